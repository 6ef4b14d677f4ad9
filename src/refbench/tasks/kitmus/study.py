"""KITMUS validation (the paper's section 4.4): multiple choice over the entity names plus
"can't say", each instance shown with or without its knowledge text.

Instances come from any file ``refbench run`` reads (KITMUS CoNLL, native JSONL or GAP TSV,
and also KnowRef, GAP or Winograd-style files with the full text only) or from a KITMUS suite
folder. Selection is stratified over (variant, entities) subtasks, so a 40-item study covers
every subtask as the paper's questionnaire did, and a smaller one still spreads over every
variant and entity count (with a warning that some subtasks get no item); each instance appears
in one condition only, balanced within each subtask and variant. Gold checks are extra items
with the knowledge text (from ``background-both`` when the data has it: the background
knowledge is then written out), flagged in the export and kept out of the agreement figures.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
from tqdm import tqdm

from refbench.core.commands import CONTEXT, COUNT, DATA, POSITIVE, split_list
from refbench.core.errors import UsageError
from refbench.core.help_text import examples
from refbench.core.types import ChoiceInstance
from refbench.formats.conll2012 import parse_conll_text
from refbench.studyfile.commands import create_options, report_created
from refbench.studyfile.create import CreatedStudy, NewItem, annotator_names, check_out, write_study
from refbench.studyfile.db import Item
from refbench.studyfile.kinds import AnswerError, SingleAnswerKind
from refbench.tasks.kitmus.study_records import record_format, source_records, task_text_sibling

CANT_SAY = "can't say"
CONDITIONS = ("with-knowledge", "without-knowledge")
GOLD_CHECK_VARIANT = "background-both"
# The task whose contexts are a knowledge text followed by a task text (this one): a study can
# show the task text alone. Instances of other tasks are shown whole.
KNOWLEDGE_FIRST = "kitmus"


def load_instances(data: Path | Sequence[Path], *, split: str = "test",
                   progress: bool = True) -> list[tuple[ChoiceInstance, Path]]:
    """Every instance of the data files, and of every subtask of suite folders."""
    from refbench.tasks.choices import read_choices
    from refbench.tasks.kitmus.score.suite_eval import find_gold

    files: list[Path] = []
    for d in [data] if isinstance(data, Path) else data:
        files += [p for _, p in sorted(find_gold(d, split).items())] if d.is_dir() else [d]
    out: list[tuple[ChoiceInstance, Path]] = []
    for path in tqdm(files, desc="read", unit="file", disable=not progress or len(files) < 2):
        out.extend((inst, path) for inst in read_choices(path))
    return out


def split_knowledge(inst: ChoiceInstance) -> tuple[str, str, int]:
    """(knowledge text, task text, offset where the task text starts) of a full text.

    The task text starts with the sentence that names the first candidate (the meet sentence):
    on the official release this reproduces the task-text-only view exactly (checked on all 2,000
    instances of background-train, 2 entities). Without candidate offsets everything is task
    text."""
    starts = [s for c in inst.candidates for s, _ in c.char_spans]
    if not starts:
        return "", inst.context, 0
    first = min(starts)
    cut = max(inst.context.rfind(end, 0, first) for end in (". ", "! ", "? "))
    if cut < 0:
        return "", inst.context, 0
    return inst.context[:cut + 1], inst.context[cut + 2:], cut + 2


def _group(inst: ChoiceInstance) -> tuple[str, int]:
    return (str(inst.metadata.get("variant") or inst.task), len(inst.candidates))


def select(pool: Sequence[tuple[ChoiceInstance, Path]], *, n: int, conditions: Sequence[str],
           gold_checks: int, seed: int) -> list[tuple[ChoiceInstance, Path, str, bool]]:
    """(instance, source, condition, is gold check): a stratified, condition-balanced draw.

    Each pick goes to the subtask picked least so far, then to the variant and the entity count
    picked least (seeded tie-break), so every subtask gets an item before any gets two, and an
    ``n`` smaller than the number of subtasks still spreads over every variant and entity count
    instead of filling the first subtasks in name order. Each pick's condition is the one its
    subtask, then its variant, then the whole study has used least."""
    rng = random.Random(f"{seed}:select")
    groups: dict[tuple[str, int], list[tuple[ChoiceInstance, Path]]] = defaultdict(list)
    for inst, path in pool:
        groups[_group(inst)].append((inst, path))
    keys = sorted(groups)
    for key in keys:
        rng.shuffle(groups[key])
    tie = {key: rng.random() for key in keys}
    by_group: Counter[tuple[str, int]] = Counter()
    by_variant: Counter[str] = Counter()
    by_count: Counter[int] = Counter()
    cond_use: dict[object, list[int]] = defaultdict(lambda: [0] * len(conditions))
    picked: list[tuple[ChoiceInstance, Path, str, bool]] = []
    while len(picked) < n:
        open_keys = [k for k in keys if groups[k]]
        if not open_keys:
            break
        key = min(open_keys, key=lambda k: (by_group[k], by_variant[k[0]], by_count[k[1]],
                                            tie[k]))
        inst, path = groups[key].pop()
        c = min(range(len(conditions)), key=lambda j: (cond_use[key][j], cond_use[key[0]][j],
                                                       cond_use[""][j], j))
        for scope in (key, key[0], ""):
            cond_use[scope][c] += 1
        by_group[key] += 1
        by_variant[key[0]] += 1
        by_count[key[1]] += 1
        picked.append((inst, path, conditions[c], False))
    if len(picked) < n:
        raise UsageError(f"the data holds {len(picked)} instances; --n asks for {n}")
    rest = [x for k in keys for x in groups[k]]
    preferred = [x for x in rest if _group(x[0])[0] == GOLD_CHECK_VARIANT] or rest
    rng.shuffle(preferred)
    if len(preferred) < gold_checks:
        raise UsageError(f"only {len(preferred)} instances are left for {gold_checks} gold "
                         "checks; lower --n or --gold-checks")
    picked += [(inst, path, "with-knowledge", True) for inst, path in preferred[:gold_checks]]
    return picked


def task_text_record(record: str, *, path: Path) -> str:
    """A full-text CoNLL record cut to its task text by structure (``convert.view_of``); on the
    official release this equals the released task-text-only document token for token."""
    from refbench.tasks.kitmus.convert import render, view_of

    (doc,) = parse_conll_text(record, path=path, min_columns=6)
    return render(view_of(doc, "task-text-only", path=path), "conll", path=path)


def _record_source(inst: ChoiceInstance, path: Path, condition: str) -> Path:
    """Where an item's exported record comes from: without the knowledge text, the suite's
    task-text-only file when there is one (what the annotators saw), else the source (a CoNLL
    source is then cut to its task text, :func:`task_text_record`)."""
    if condition == "without-knowledge" and inst.task == KNOWLEDGE_FIRST:
        return task_text_sibling(path) or path
    return path


def build_items(chosen: Sequence[tuple[ChoiceInstance, Path, str, bool]]) -> list[NewItem]:
    from refbench.tasks.kitmus.score.gold import instance_key

    records = source_records({(_record_source(inst, p, c), instance_key(inst.id))
                              for inst, p, c, _ in chosen})
    items = []
    for inst, path, condition, check in chosen:
        rec_path = _record_source(inst, path, condition)
        if inst.expression_offset is None:
            raise UsageError(f"{path}: {inst.id}: the expression does not occur in the text; a "
                             "validation study needs a pronoun (or blank) to ask about")
        knowledge, task, start = (split_knowledge(inst) if inst.task == KNOWLEDGE_FIRST
                                  else ("", inst.context, 0))
        if condition == "without-knowledge" and not knowledge:
            raise UsageError(f"{path}: {inst.id}: no knowledge text to leave out (use a KITMUS "
                             "full-text file, or --conditions with-knowledge)")
        record = records.get((rec_path, instance_key(inst.id)))
        if (condition == "without-knowledge" and rec_path == path and record is not None
                and record_format(path) == "conll"):
            record = task_text_record(record, path=path)
        gold = inst.candidates[inst.gold].text if inst.gold is not None else None
        payload = {
            "source": str(path), "source_id": inst.id, "task": inst.task,
            "variant": inst.metadata.get("variant"), "n_entities": len(inst.candidates),
            "knowledge": knowledge, "text": task, "pronoun": inst.expression,
            "pronoun_offset": inst.expression_offset - start,
            "candidates": [c.text for c in inst.candidates], "answer": inst.gold,
            "format": record_format(rec_path),
            "record": record,
            "record_source": str(rec_path),
        }
        items.append(NewItem(inst.id, payload, gold, condition, check))
    return items


def create_kitmus_study(data: Path | Sequence[Path], out: Path, *, n: int,
                        conditions: Sequence[str], gold_checks: int,
                        annotators: Sequence[str], seed: int, split: str = "test",
                        overlap: int | None = None, overwrite: bool = False,
                        progress: bool = True) -> CreatedStudy:
    for c in conditions:
        if c not in CONDITIONS:
            raise UsageError(f"unknown condition {c!r}; choose from {', '.join(CONDITIONS)}")
    if not conditions or len(set(conditions)) != len(conditions) or n < 1 or gold_checks < 0:
        raise UsageError("give one or more distinct conditions, --n >= 1 and --gold-checks >= 0")
    check_out(out, overwrite=overwrite)
    pool = load_instances(data, split=split, progress=progress)
    chosen = select(pool, n=n, conditions=conditions, gold_checks=gold_checks, seed=seed)
    items = build_items(chosen)
    sources = [data] if isinstance(data, Path) else list(data)
    meta = {"data": [str(s) for s in sources], "split": split, "n": n,
            "conditions": list(conditions), "gold_checks": gold_checks}
    created = write_study(out, kind="kitmus-validation", items=items, annotators=annotators,
                          seed=seed, meta=meta, overlap=overlap, overwrite=overwrite,
                          options=_option_order)
    created.summary = {"items": len(items), "gold_checks": gold_checks,
                       "by_condition": {c: sum(1 for it in items if it.condition == c
                                               and not it.gold_check) for c in conditions},
                       "subtasks": len({_group(inst) for inst, _, _, check in chosen
                                        if not check}),
                       "subtasks_in_data": len({_group(inst) for inst, _ in pool})}
    total = created.summary["subtasks_in_data"]
    if n < total:
        created.warnings.append(
            f"--n {n} is smaller than the {total} subtasks in the data: "
            f"{total - created.summary['subtasks']} subtasks get no item (the items are spread "
            f"over the variants and entity counts); use --n {total} or more to cover them all")
    return created


def _option_order(item: NewItem, rng: random.Random) -> list[int]:
    order = list(range(len(item.payload["candidates"])))
    rng.shuffle(order)
    return order


def label_of(item: Item, choice: int | None) -> str:
    return CANT_SAY if choice is None else str(item.payload["candidates"][choice])


class KitmusValidation(SingleAnswerKind):
    name = "kitmus-validation"
    template = "study_kitmus.html"
    instructions_template = "study_kitmus_instructions.html"
    choice_agreement = True

    @classmethod
    def create_command(cls) -> click.Command:
        return create_command()

    def group_of(self, item: Item) -> str | None:
        return str(item.payload.get("variant") or item.payload.get("task"))

    def native(self, items: list[Item], answers: dict[str, dict[str, dict[str, Any]]],
               out: Path) -> dict[Path, str]:
        """Per condition (and for the gold checks) the items in their source format as a gold
        file (without the knowledge text: the suite's task-text-only view when it has one, so
        a model reads what people read) and each annotator's answers (and the majority) as
        answers JSONL: ``refbench run --data gold.<ext>`` runs a model on exactly those items
        and ``refbench evaluate --task kitmus --gold gold.<ext> --pred ann1.jsonl`` scores a
        person like a system."""
        from refbench.tasks.kitmus.study_records import native_files

        return native_files(items, answers, out, label_of)

    def clean_value(self, item: Item, value: Any) -> tuple[Any, list[str]]:
        choice = value.get("choice") if isinstance(value, dict) else value
        if choice in (None, "cant", "", CANT_SAY):
            return {"choice": None}, []
        try:
            k = int(choice)
        except (TypeError, ValueError):
            raise AnswerError("choose one of the names or \"can't say\"") from None
        if not 0 <= k < len(item.payload["candidates"]):
            raise AnswerError("choose one of the names or \"can't say\"")
        return {"choice": k}, []

    def form_answer(self, item: Item, form: dict[str, str]) -> tuple[str, Any]:
        if "choice" not in form:
            raise AnswerError("choose one of the names or \"can't say\"")
        return "", {"choice": form["choice"]}

    def labels(self, item: Item, answers: dict[str, Any]) -> list[tuple[str, str]]:
        if "" not in answers:
            return []
        return [("", label_of(item, answers[""]["choice"]))]

    def page(self, item: Item, options: Any, answers: dict[str, Any],
             args: dict[str, str]) -> dict[str, Any]:
        p = item.payload
        text, at, pron = p["text"], p["pronoun_offset"], p["pronoun"]
        order = options or list(range(len(p["candidates"])))
        current = answers.get("", {}).get("choice", "unset")
        return {
            "knowledge": p["knowledge"] if item.condition == "with-knowledge" else "",
            "before": text[:at], "pronoun": pron, "after": text[at + len(pron):],
            "options": [{"key": str(i + 1), "value": str(k), "name": p["candidates"][k],
                         "checked": current == k} for i, k in enumerate(order)],
            "cant_checked": current is None,
        }


def create_command() -> click.Command:
    """``refbench study create kitmus-validation``."""

    @click.command("kitmus-validation", context_settings=CONTEXT, epilog=(
        examples(
            "refbench study create kitmus-validation --data kitmus-suite --n 40 --out "
            "k.sqlite",
            "refbench study create kitmus-validation --data "
            "../shared/data/kitmus-official/released/background-train/subtask_2_ents/"
            "full-text/test.v4_gold_conll.gz "
            "--n 20 --annotators 6 --out k2.sqlite")))
    @click.option("--data", type=DATA, multiple=True, required=True,
                  help="A KITMUS suite folder or any choice data file refbench reads "
                       "(repeatable).")
    @click.option("--n", "n", type=POSITIVE, default=40, show_default=True,
                  help="Instances to ask about.")
    @click.option("--conditions", default="with-knowledge,without-knowledge", show_default=True,
                  help="Show the knowledge text (with-knowledge), leave it out, or both.")
    @click.option("--gold-checks", type=COUNT, default=4, show_default=True,
                  help="Extra flagged items with the knowledge text, to check attention.")
    @click.option("--split", default="test", show_default=True, help="Split, for a suite folder.")
    @create_options
    def create_kitmus(data: tuple[Path, ...], n: int, conditions: str, gold_checks: int, split: str,
                      annotators: str, overlap: int | None, seed: int, out: Path, overwrite: bool,
                      as_json: bool) -> None:
        """Multiple choice (the entity names plus "can't say"), with and without the knowledge
        text, stratified over the suite's variants and entity counts (paper, section 4.4)."""

        created = create_kitmus_study(
            list(data), out, n=n, conditions=split_list(conditions) or [], gold_checks=gold_checks,
            annotators=annotator_names(annotators), seed=seed, split=split, overlap=overlap,
            overwrite=overwrite, progress=not as_json)
        report_created(created, as_json)
    return create_kitmus

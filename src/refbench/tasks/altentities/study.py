"""AltEntities expression collection (the paper's section 3): a cartoon dialogue in which Bob
recalls an item, Alice asks "Do you mean 'A' or 'B'?", and the annotator, as Bob, writes 3 to 5
indirect expressions for the marked target.

Pairs come from ``refbench altentities sample-pairs`` (any of its methods). With memory recall
on (the paper's final design, which gave shorter, less copied expressions) the descriptions are
shown on a first screen and hidden while writing. Expressions that name an entity or copy five
or more consecutive words of the target's description are flagged to the annotator and in the
export (the paper's Don'ts); they are still saved, so nothing typed is lost.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from refbench.core.commands import CONTEXT, DATA, POSITIVE, split_list
from refbench.core.errors import UsageError
from refbench.core.help_text import examples
from refbench.core.inputs import format_name
from refbench.core.io import read_jsonl
from refbench.studyfile.commands import create_options, report_created
from refbench.studyfile.create import CreatedStudy, NewItem, annotator_names, check_out, write_study
from refbench.studyfile.db import Item, StudyStore
from refbench.studyfile.kinds import AnswerError, SingleAnswerKind

MIN_EXPRESSIONS, MAX_EXPRESSIONS = 3, 5
MAX_CHARS = 300
COPY_WORDS = 5
# What a listener could know about a song, in the order shown (infobox keys of the release).
SONG_ATTRIBUTES = ("artist", "album", "released", "genre", "writer", "producer", "length",
                   "label", "recorded")
_WORD = re.compile(r"[\w']+")


def raw_choices(paths: Sequence[Path]) -> dict[str, dict[str, Any]]:
    """Every entity's full record (name, description, infobox, unshown background, URL) by the
    key ``sample-pairs`` uses, so the native export carries what models read."""
    from refbench.tasks.altentities.check import entity_key, load_questions

    out: dict[str, dict[str, Any]] = {}
    for p in paths:
        name = format_name(p)
        if name.endswith(".jsonl"):
            for _, obj in read_jsonl(p):
                out.setdefault(str(obj.get("wikipedia_url") or obj.get("name")), dict(obj))
        else:
            for q in load_questions(p):
                for c in q.get("choices", []):
                    out.setdefault(entity_key(c), dict(c))
    return out


def shown_text(choice: dict[str, Any]) -> dict[str, Any]:
    """What the annotator reads about an entity. Music descriptions in the release are only a
    web-search link (the study asked people to look the song up); a local study cannot send
    anyone to the web, so it shows the infobox attributes and the search words instead."""
    from refbench.tasks.altentities.sampling import parse_infobox

    desc = str(choice.get("description") or "")
    if "<a " in desc or "href=" in desc:
        attrs = parse_infobox(choice.get("infobox"))
        keep = [(k, attrs[k]) for k in SONG_ATTRIBUTES if attrs.get(k)]
        return {"description": "", "attributes": keep, "linked": True}
    return {"description": desc, "attributes": [], "linked": False}


def create_altentities_study(data: Sequence[Path], out: Path, *, n: int, method: str,
                             annotators: Sequence[str], seed: int, domain: str | None = None,
                             attributes: Sequence[str] | None = None,
                             overlap: int | None = None, memory_recall: bool = True,
                             overwrite: bool = False) -> CreatedStudy:
    from refbench.tasks.altentities.sampling import base_title, load_entities, sample_pairs

    check_out(out, overwrite=overwrite)
    ents = load_entities(list(data), domain=domain)
    full = raw_choices(data)
    # Pairs never mix domains ("a book or a song?"): sample each domain on its own, n split evenly.
    domains = sorted({e.domain for e in ents})
    pairs: list[dict[str, Any]] = []
    for k, d in enumerate(domains):
        share = n // len(domains) + (1 if k < n % len(domains) else 0)
        pool = [e for e in ents if e.domain == d]
        if share and len(pool) >= 2:
            pairs += list(sample_pairs(pool, method=method, n=share, seed=seed,
                                       attributes=attributes))
    if not pairs:
        raise UsageError(f"sampling by {method!r} found no pairs in the data")
    items = []
    for k, pair in enumerate(pairs):
        target = random.Random(f"{seed}:target:{k}").randrange(2)
        choices = [{**full.get(c["key"], {}), "name": c["name"],
                    "description": c["description"]} for c in pair["choices"]]
        a, b = (c["name"] for c in choices)
        shown = [a, b] if base_title(a)[0] == base_title(b)[0] else \
            [base_title(a)[0], base_title(b)[0]]
        payload = {"domain": pair["domain"], "opening": pair["opening"],
                   "question": pair["question"], "shown": shown,
                   "sampling_method": pair["sampling_method"], "why": pair["why"],
                   "target_index": target, "keys": [c["key"] for c in pair["choices"]],
                   "choices": choices}
        items.append(NewItem(f"{pair['domain'].lower()}-{k + 1:03d}", payload,
                             gold=shown[target]))
    meta = {"data": [str(p) for p in data], "n": n, "method": method, "domain": domain,
            "memory_recall": memory_recall}
    created = write_study(out, kind="altentities-collection", items=items,
                          annotators=annotators, seed=seed, meta=meta, overlap=overlap,
                          overwrite=overwrite)
    created.summary = {"items": len(items), "asked": n, "method": method,
                       "domains": sorted({it.payload["domain"] for it in items})}
    return created


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def flags(item: Item, expression: str) -> list[str]:
    """Why an expression breaks the paper's instructions (empty when it does not)."""
    out = []
    low = expression.lower()
    for name in dict.fromkeys([*item.payload["shown"], *(c["name"] for c in
                                                          item.payload["choices"])]):
        if len(name) >= 3 and name.lower() in low:
            out.append(f"names {name!r}")
            break
    desc = _words(str(item.payload["choices"][item.payload["target_index"]]["description"]))
    words = _words(expression)
    runs = {tuple(desc[i:i + COPY_WORDS]) for i in range(len(desc) - COPY_WORDS + 1)}
    if any(tuple(words[i:i + COPY_WORDS]) in runs for i in range(len(words) - COPY_WORDS + 1)):
        out.append(f"copies {COPY_WORDS}+ words of the description")
    return out


def expressions_of(answers: dict[str, Any]) -> list[str]:
    value = answers.get("", {})
    return [e for e in value.get("expressions", []) if e] if isinstance(value, dict) else []


def missing_message(given: Sequence[str]) -> str:
    """Why an item is not done yet, for the annotator sent back to it ("" when it is done)."""
    have = sum(1 for e in given if e)
    if have >= MIN_EXPRESSIONS:
        return ""
    more = MIN_EXPRESSIONS - have
    return (f"Write at least {MIN_EXPRESSIONS} expressions to finish this item: you have "
            f"written {have}, so {more} more {'is' if more == 1 else 'are'} needed. Everything "
            "you typed is saved.")


def needed_fields(given: Sequence[str]) -> list[int]:
    """The empty fields (0-based) to fill first to reach the minimum: marked on the page."""
    empty = [i for i in range(MAX_EXPRESSIONS) if i >= len(given) or not given[i]]
    return empty[:max(0, MIN_EXPRESSIONS - (MAX_EXPRESSIONS - len(empty)))]


class AltEntitiesCollection(SingleAnswerKind):
    name = "altentities-collection"
    template = "study_altentities.html"
    instructions_template = "study_altentities_instructions.html"
    reviewable = True

    @classmethod
    def create_command(cls) -> click.Command:
        return create_command()

    @classmethod
    def csv_refusal(cls, records: list[dict[str, str]]) -> str | None:
        if any((r.get("unit") or "").startswith("e") for r in records):
            return "AltEntities expressions are free text: no agreement to compute"
        return None

    def flags(self, item: Item, label: str) -> list[str]:
        return flags(item, label)

    def report(self, store: StudyStore, answers: dict[str, dict[str, dict[str, Any]]]
               ) -> dict[str, Any]:
        return {"collection": collection_summary(store, answers)}

    def report_lines(self, report: dict[str, Any]) -> list[str]:
        c = report["collection"]
        per_item = "-" if c["expressions_per_item"] is None else f"{c['expressions_per_item']:.3f}"
        words = "-" if c["words_per_expression"] is None else f"{c['words_per_expression']:.3f}"
        return ["", f"{c['expressions']} expressions for {c['items_with_expressions']} of "
                f"{c['items']} items ({per_item} per item, {words} words each), {c['flagged']} "
                "flagged"]

    def native(self, items: list[Item], answers: dict[str, dict[str, dict[str, Any]]],
               out: Path) -> dict[Path, str]:
        return {out / "altentities.json": native_questions(items, answers)}

    def clean_value(self, item: Item, value: Any) -> tuple[Any, list[str]]:
        raw = value.get("expressions") if isinstance(value, dict) else value
        if not isinstance(raw, list) or len(raw) > MAX_EXPRESSIONS or \
                not all(isinstance(e, str) for e in raw):
            raise AnswerError(f"send up to {MAX_EXPRESSIONS} expressions as text")
        cleaned = [" ".join(e.split()) for e in raw]
        if any(len(e) > MAX_CHARS for e in cleaned):
            raise AnswerError(f"an expression is longer than {MAX_CHARS} characters")
        cleaned += [""] * (MAX_EXPRESSIONS - len(cleaned))
        warnings = [f"expression {i + 1} {f}" for i, e in enumerate(cleaned) if e
                    for f in flags(item, e)]
        return {"expressions": cleaned}, warnings

    def form_answer(self, item: Item, form: dict[str, str]) -> tuple[str, Any]:
        return "", {"expressions": [form.get(f"e{i + 1}", "") for i in range(MAX_EXPRESSIONS)]}

    def after_save(self, item: Item, unit: str, answers: dict[str, Any]) -> dict[str, str] | None:
        # Sent back to the same item: say why (the page names what is missing; what was
        # typed is saved, so it is all still there).
        return None if self.is_complete(item, answers) else {"step": "write", "missing": "1"}

    def is_complete(self, item: Item, answers: dict[str, Any]) -> bool:
        return len(expressions_of(answers)) >= MIN_EXPRESSIONS

    def done_units(self, item: Item, answers: dict[str, Any]) -> int:
        return int(self.is_complete(item, answers))

    def labels(self, item: Item, answers: dict[str, Any]) -> list[tuple[str, str]]:
        value = answers.get("", {})
        return [(f"e{i + 1}", e) for i, e in enumerate(value.get("expressions", [])) if e]

    def page(self, item: Item, options: Any, answers: dict[str, Any],
             args: dict[str, str]) -> dict[str, Any]:
        p = item.payload
        recall = bool(self.meta.get("memory_recall", True))
        given = answers.get("", {}).get("expressions", [""] * MAX_EXPRESSIONS)
        writing = not recall or args.get("step") == "write" or any(given)
        return {
            "opening": p["opening"], "shown": p["shown"], "target": p["target_index"],
            "domain": p["domain"].lower(),
            "entities": [{"name": c["name"], **shown_text(c)} for c in p["choices"]],
            "show_descriptions": not (recall and writing), "writing": writing,
            "expressions": [(i, given[i] if i < len(given) else "")
                            for i in range(MAX_EXPRESSIONS)],
            "warnings": [f"expression {i + 1} {f}" for i, e in enumerate(given) if e
                         for f in flags(item, e)],
            "min_expressions": MIN_EXPRESSIONS,
            "missing": missing_message(given) if args.get("missing") else "",
            "needed": needed_fields(given) if args.get("missing") else [],
        }


def create_command() -> click.Command:
    """``refbench study create altentities-collection``."""

    @click.command("altentities-collection", context_settings=CONTEXT, epilog=(
        examples(
            "refbench study create altentities-collection --data "
            "../shared/data/altentities/books/test.json.gz --n 50 --method "
            "similar-description --annotators 2 --out ae.sqlite")))
    @click.option("--data", type=DATA, multiple=True, required=True,
                  help="Entities JSONL or AltEntities JSON files (repeatable).")
    @click.option("--n", "n", type=POSITIVE, default=50, show_default=True,
                  help="Questions to ask.")
    @click.option("--method", default="uniform", show_default=True, help="uniform, same-name, "
                  "similar-title, similar-description, similar-infobox (as sample-pairs).")
    @click.option("--domain", default=None, help="Only entities of this domain.")
    @click.option("--attributes", default=None, help="Infobox attributes for similar-infobox.")
    @click.option("--memory-recall/--no-memory-recall", default=True, show_default=True,
                  help="Hide the descriptions while writing (the paper's final design).")
    @create_options
    def create_altentities(data: tuple[Path, ...], n: int, method: str, domain: str | None,
                           attributes: str | None, memory_recall: bool, annotators: str,
                           overlap: int | None, seed: int, out: Path, overwrite: bool,
                           as_json: bool) -> None:
        """Expression collection: the cartoon dialogue, the target marked, its description, and
        3 to 5 indirect expressions per item (paper, section 3)."""

        created = create_altentities_study(
            list(data), out, n=n, method=method, domain=domain, attributes=split_list(attributes),
            annotators=annotator_names(annotators), seed=seed, overlap=overlap,
            memory_recall=memory_recall, overwrite=overwrite)
        report_created(created, as_json)
    return create_altentities


def native_questions(items: list[Item], answers: dict[str, dict[str, dict[str, Any]]]) -> str:
    """The release's JSON: one question per pair, everyone's expressions."""
    questions = []
    for it in items:
        p = it.payload
        exprs, who = [], []
        for name, by_item in sorted(answers.items()):
            mine = expressions_of(by_item.get(it.id, {}))
            exprs += mine
            who += [name] * len(mine)
        if not exprs:
            continue
        target = p["choices"][p["target_index"]]
        questions.append({
            "domain": p["domain"], "question": p["question"],
            "target": target.get("wikipedia_url") or p["keys"][p["target_index"]],
            "target_index": p["target_index"], "sampling_method": p["sampling_method"],
            "description_section": "", "choices": p["choices"], "expressions": exprs,
            "expression_annotators": who, "study_item": it.id,
        })
    return json.dumps(questions, ensure_ascii=False, indent=1) + "\n"


def collection_summary(store: StudyStore, answers: dict[str, dict[str, dict[str, Any]]]
                       ) -> dict[str, Any]:
    """What was collected: expressions per item and per annotator, words, flags."""
    items = {it.id: it for it in store.items()}
    per: dict[str, Any] = {}
    all_exprs = []
    for name, by_item in sorted(answers.items()):
        exprs = [(items[i], e) for i, a in by_item.items() for e in expressions_of(a)]
        all_exprs += exprs
        per[name] = {"items_with_expressions": sum(1 for a in by_item.values()
                                                   if expressions_of(a)),
                     "expressions": len(exprs),
                     "flagged": sum(1 for it, e in exprs if flags(it, e))}
    words = [len(e.split()) for _, e in all_exprs]
    covered = {it.id for it, _ in all_exprs}
    return {"items": len(items), "items_with_expressions": len(covered),
            "expressions": len(all_exprs),
            "expressions_per_item": len(all_exprs) / len(covered) if covered else None,
            "words_per_expression": sum(words) / len(words) if words else None,
            "flagged": sum(1 for it, e in all_exprs if flags(it, e)), "per_annotator": per}

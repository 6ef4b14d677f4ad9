"""TNE two-stage annotation (the paper's section 4): stage 1 builds coreference chains over the
NPs, one NP at a time in textual order (a new entity, the same as an earlier chain, a time or
measure expression, or part of an idiom); stage 2 asks, for each NP, which preposition (or
none) links it to each chain.

Documents come from a TNE file (its own NPs, so annotations score against its gold with
``refbench evaluate --task tne``) or from raw text, chunked with ``refbench tne chunk``'s base-NP
chunker. A stage-2 link names a chain by one of its members, so it survives later edits of
stage 1: it always applies to the chain that member belongs to now.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from refbench.core.commands import CONTEXT, DATA, POSITIVE
from refbench.core.errors import RefbenchError, UsageError
from refbench.core.help_text import examples
from refbench.core.inputs import format_name
from refbench.core.io import read_jsonl
from refbench.studyfile.commands import create_options, report_created
from refbench.studyfile.create import CreatedStudy, NewItem, annotator_names, check_out, write_study
from refbench.studyfile.db import Item, StudyStore
from refbench.studyfile.kinds import AnswerError, StudyKind
from refbench.tasks.tne.annotation.study_chains import STAGE1, chains, is_complete, stage_answers

# The report key of this study type's agreement, kept for its JSON.
AGREEMENT = "tne"


def _prepositions() -> list[str]:
    from refbench.tasks.tne.read import PREPOSITIONS

    return [p for p in PREPOSITIONS if p != "no-relation"]


def _doc_payload(doc: Any, source: str) -> dict[str, Any]:
    gold = None
    if doc.relations is not None:
        gold = {"coref": [{"id": c, "members": list(m), "np_type": t}
                          for c, m, t in doc.clusters],
                "np_relations": [{"anchor": a, "complement": c, "preposition": p}
                                 for (a, c), preps in sorted(doc.relations.items())
                                 for p in sorted(preps)]}
    return {"id": doc.id, "text": doc.text, "tokens": doc.tokens, "source": source,
            "metadata": doc.metadata, "gold": gold,
            "nps": [{"id": n.id, "text": n.text, "first_char": n.first_char,
                     "last_char": n.last_char, "first_token": n.first_token,
                     "last_token": n.last_token, "measure": False} for n in doc.nps]}


def _texts(data: Path) -> list[tuple[str, str]]:
    if data.is_dir():
        files = sorted(data.glob("*.txt"))
        if not files:
            raise RefbenchError("no .txt files in the folder", path=data)
        return [(p.stem, p.read_text(encoding="utf-8")) for p in files]
    name = format_name(data)
    if name.endswith(".jsonl"):
        out: list[tuple[str, str]] = []
        for line, obj in read_jsonl(data):
            if not isinstance(obj.get("text"), str):
                raise RefbenchError("a text line needs a 'text' string", path=data, line=line)
            out.append((str(obj.get("id", f"doc{line}")), obj["text"]))
        return out
    return [(data.stem, data.read_text(encoding="utf-8"))]


def _chunked(docs: Sequence[tuple[str, str]], source: str) -> list[dict[str, Any]]:
    from refbench.tasks.tne.models.chunker import chunks_of, nlp

    out: list[dict[str, Any]] = []
    for (doc_id, text), parsed in zip(docs, nlp().pipe([t for _, t in docs]), strict=True):
        nps = [{"id": f"np{k}", "text": c.text, "first_char": c.first_char,
                "last_char": c.last_char, "first_token": c.first_token,
                "last_token": c.last_token, "measure": c.measure}
               for k, c in enumerate(chunks_of(parsed))]
        if not nps:
            raise RefbenchError("the chunker found no noun phrase", path=source, item=doc_id)
        out.append({"id": doc_id, "text": text, "tokens": [t.text for t in parsed],
                    "source": source, "metadata": {}, "gold": None, "nps": nps})
    return out


def load_documents(data: Path, *, n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` documents (seeded draw, file order kept) as item payloads."""
    from refbench.tasks.tne.read import read_tne

    if not data.exists():
        raise RefbenchError("data not found", path=data)
    is_tne = False
    if data.is_file() and data.name.removesuffix(".gz").endswith(".jsonl"):
        first = next(read_jsonl(data), (0, {}))[1]
        is_tne = "nps" in first
    if is_tne:
        docs = list(read_tne(data))
        picked = sorted(random.Random(f"{seed}:docs").sample(range(len(docs)),
                                                             min(n, len(docs))))
        return [_doc_payload(docs[k], str(data)) for k in picked]
    texts = _texts(data)
    picked = sorted(random.Random(f"{seed}:docs").sample(range(len(texts)), min(n, len(texts))))
    return _chunked([texts[k] for k in picked], str(data))


def create_tne_study(data: Path, out: Path, *, n: int, annotators: Sequence[str], seed: int,
                     overlap: int | None = None, overwrite: bool = False) -> CreatedStudy:
    if n < 1:
        raise UsageError("--n must be at least 1")
    check_out(out, overwrite=overwrite)
    payloads = load_documents(data, n=n, seed=seed)
    items = [NewItem(p["id"], p) for p in payloads]
    created = write_study(out, kind="tne-annotation", items=items, annotators=annotators,
                          seed=seed, meta={"data": [str(data)], "n": n}, overlap=overlap,
                          shuffle=False, overwrite=overwrite)
    created.summary = {"items": len(items), "asked": n,
                       "nps": sum(len(p["nps"]) for p in payloads),
                       "with_gold": sum(p["gold"] is not None for p in payloads)}
    return created


class TneAnnotation(StudyKind):
    name = "tne-annotation"
    template = "study_tne.html"
    instructions_template = "study_tne_instructions.html"

    @classmethod
    def create_command(cls) -> click.Command:
        return create_command()

    @classmethod
    def csv_refusal(cls, records: list[dict[str, str]]) -> str | None:
        if any((r.get("unit") or "").startswith(("s1:", "s2:")) for r in records):
            return "TNE answers: compute their agreement from the study file"
        return None

    def report(self, store: StudyStore, answers: dict[str, dict[str, dict[str, Any]]]
               ) -> dict[str, Any]:
        """Pairwise coreference and link agreement (``tne`` in the report's JSON)."""
        from refbench.tasks.tne.annotation.study_export import tne_agreement

        return {AGREEMENT: tne_agreement(store.items(), answers)}

    def report_lines(self, report: dict[str, Any]) -> list[str]:
        from refbench.tasks.tne.annotation.study_export import agreement_lines

        return agreement_lines(report[AGREEMENT])

    def native(self, items: list[Item], answers: dict[str, dict[str, dict[str, Any]]],
               out: Path) -> dict[Path, str]:
        """One v1.1 JSONL per annotator with the documents they completed."""
        from refbench.tasks.tne.annotation.study_export import document

        files: dict[Path, str] = {}
        for name, by_item in sorted(answers.items()):
            lines = [json.dumps(document(it, by_item[it.id], name), ensure_ascii=False) + "\n"
                     for it in items if it.id in by_item and is_complete(it, by_item[it.id])]
            if lines:
                files[out / f"{name}.jsonl"] = "".join(lines)
        return files

    def units(self, item: Item, answers: dict[str, Any]) -> list[str]:
        ids = [n["id"] for n in item.payload["nps"]]
        return [f"s1:{x}" for x in ids] + [f"s2:{x}" for x in ids]

    def done_units(self, item: Item, answers: dict[str, Any]) -> int:
        return sum(1 for u, v in answers.items()
                   if u.startswith("s1:") or (u.startswith("s2:") and v.get("done")))

    def is_complete(self, item: Item, answers: dict[str, Any]) -> bool:
        return is_complete(item, answers)

    def clean(self, item: Item, unit: str, value: Any, answers: dict[str, Any],
              options: Any) -> tuple[Any, list[str]]:
        ids = [n["id"] for n in item.payload["nps"]]
        stage, _, np_id = unit.partition(":")
        if np_id not in ids or stage not in ("s1", "s2") or not isinstance(value, dict):
            raise AnswerError("unknown NP or stage")
        if stage == "s1":
            kind = value.get("type")
            if kind not in STAGE1:
                raise AnswerError("choose new, same, time or idiom")
            if kind != "same":
                return {"type": kind}, []
            target = value.get("same_as")
            if target not in ids or ids.index(target) >= ids.index(np_id):
                raise AnswerError("'same as' must name an earlier NP")
            return {"type": "same", "same_as": target}, []
        s1 = stage_answers(answers, 1)
        if len(s1) < len(ids):
            raise AnswerError("finish stage 1 (every NP) before stage 2")
        links = value.get("links", {})
        preps = set(_prepositions())
        if not isinstance(links, dict) or any(
                k not in ids or (p not in preps and p != "no-relation") for k, p in links.items()):
            raise AnswerError("links must map NP ids to prepositions")
        rep = chains(ids, s1)
        kept = {k: p for k, p in sorted(links.items())
                if p != "no-relation" and rep[k] != rep[np_id]}
        # "done" is sticky: an autosave after the NP was finished does not reopen it.
        done = bool(value.get("done")) or bool(answers.get(unit, {}).get("done"))
        return {"links": kept, "done": done}, []

    def form_answer(self, item: Item, form: dict[str, str]) -> tuple[str, Any]:
        stage, np_id = form.get("stage", ""), form.get("np", "")
        if stage == "1":
            kind, _, same_as = form.get("type", "").partition(":")
            return f"s1:{np_id}", {"type": kind, "same_as": same_as or None}
        links = {k[len("link:"):]: v for k, v in form.items() if k.startswith("link:")}
        return f"s2:{np_id}", {"links": links, "done": form.get("done") == "1"}

    def after_save(self, item: Item, unit: str, answers: dict[str, Any]) -> dict[str, str] | None:
        ids = [n["id"] for n in item.payload["nps"]]
        stage, _, np_id = unit.partition(":")
        s1, s2 = stage_answers(answers, 1), stage_answers(answers, 2)
        k = ids.index(np_id)
        if stage == "s2" and not s2.get(np_id, {}).get("done"):
            return {"stage": "2", "np": np_id}
        if k + 1 < len(ids) and (stage == "s1" or len(s1) == len(ids)):
            return {"stage": stage[1], "np": ids[k + 1]}
        todo = [("1", x) for x in ids if x not in s1] + \
            [("2", x) for x in ids if not s2.get(x, {}).get("done")]
        return {"stage": todo[0][0], "np": todo[0][1]} if todo else None

    def labels(self, item: Item, answers: dict[str, Any]) -> list[tuple[str, str]]:
        out = []
        for n in item.payload["nps"]:
            a = answers.get(f"s1:{n['id']}")
            if a:
                out.append((f"s1:{n['id']}", a["type"] if a["type"] != "same"
                            else f"same:{a['same_as']}"))
        for n in item.payload["nps"]:
            a = answers.get(f"s2:{n['id']}")
            if a:
                out += [(f"s2:{n['id']}>{k}", p) for k, p in sorted(a["links"].items())]
        return out

    def page(self, item: Item, options: Any, answers: dict[str, Any],
             args: dict[str, str]) -> dict[str, Any]:
        from refbench.tasks.tne.annotation.study_view import tne_page

        return tne_page(item, answers, args, _prepositions())


def create_command() -> click.Command:
    """``refbench study create tne-annotation``."""

    @click.command("tne-annotation", context_settings=CONTEXT, epilog=(
        examples(
            "refbench study create tne-annotation --data "
            "../shared/data/tne/dev-v1.1.jsonl.gz --n 10 --out tne.sqlite",
            "refbench study create tne-annotation --data stories/ --n 5 --out "
            "tne-stories.sqlite  # needs: a folder of .txt stories")))
    @click.option("--data", type=DATA, required=True, help="A TNE file (its NPs), or texts: a .txt "
                  "file, a folder of .txt files, or JSONL with id and text (NPs from the chunker).")
    @click.option("--n", "n", type=POSITIVE, default=10, show_default=True, help="Documents.")
    @create_options
    def create_tne(data: Path, n: int, annotators: str, overlap: int | None, seed: int, out: Path,
                   overwrite: bool, as_json: bool) -> None:
        """Two-stage NP annotation: coreference chains, then a preposition (or none) from each NP
        to each chain (paper, section 4)."""

        created = create_tne_study(data, out, n=n, annotators=annotator_names(annotators),
                                   seed=seed, overlap=overlap, overwrite=overwrite)
        report_created(created, as_json)
    return create_tne

"""KITMUS instances as the web index's records, with the structure the instance page shows: the
knowledge and task texts as separate sentence lists with roles, every mention of every entity,
the pronoun.

Native JSONL carries all of it explicitly. The official CoNLL release carries clusters but no
roles; there the roles are inferred from the mentions (a knowledge sentence naming one entity is
entity-specific knowledge, one naming none is background knowledge; in the task text, the
sentence with the candidates is the meeting, the one with the pronoun the pronoun sentence, the
rest noise) and the page says so. Both are read with refbench's own readers, and the candidate
order (what a run's answer index means) is the one :func:`refbench.tasks.choices.read_choices`
gives: task-text order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.io import read_jsonl
from refbench.core.types import ChoiceInstance, Mention
from refbench.formats.conll2012 import ConllDocument, read_conll
from refbench.formats.detok import detokenize
from refbench.tasks.capabilities import TaskCore, WebView
from refbench.tasks.index_records import Problem, Record, facet_strings
from refbench.tasks.kitmus.native import instance_from_json
from refbench.tasks.kitmus.score.choice import gold_to_choice
from refbench.tasks.kitmus.score.gold import gold_from_conll_doc, pronoun_group

Span = tuple[int, int]
_KITMUS_SPLIT = re.compile(r"/([\w-]+):\d+$")


def kitmus_facets(inst: ChoiceInstance) -> dict[str, Any]:
    """Facet values: split (from the metadata, else the instance id), variant, entities,
    pronoun class, answer position."""
    m = inst.metadata
    split = m.get("split")
    if split is None:
        found = _KITMUS_SPLIT.search(inst.id)
        split = found.group(1) if found else None
    return {"split": split, "variant": m.get("variant"), "entities": m.get("n_entities"),
            "pronoun": m.get("pronoun"), "answer_position": m.get("answer_position")}


class _Layout:
    """Character offsets of every token and sentence in the detokenised full text."""

    def __init__(self, sentences: Sequence[Sequence[str]]) -> None:
        self.starts: list[int] = []
        words: list[str] = []
        for sent in sentences:
            self.starts.append(len(words))
            words.extend(sent)
        self.words = words
        self.text, self.offsets = detokenize(words)
        self.lengths = [len(s) for s in sentences]

    def char_span(self, first: int, last: int) -> Span:
        """Characters of document-level tokens first..last (inclusive)."""
        return self.offsets[first], self.offsets[last] + len(self.words[last])

    def mention(self, m: Mention) -> Span:
        base = self.starts[m.sentence]
        return self.char_span(base + m.start, base + m.end)

    def sentence(self, k: int) -> Span:
        first = self.starts[k]
        return self.char_span(first, first + self.lengths[k] - 1)


def _record(*, iid: str, layout: _Layout, sentences: list[dict[str, Any]],
            marks: list[list[Any]], candidates: list[dict[str, Any]], gold: int,
            expression: str, facets: dict[str, str], roles_inferred: bool,
            extra: dict[str, Any]) -> Record:
    task_text = " ".join(layout.text[s["start"]:s["end"]] for s in sentences
                         if s["part"] == "task")
    payload = {"view": "kitmus", "id": iid, "text": layout.text, "sentences": sentences,
               "marks": marks, "candidates": candidates, "gold": gold, "expression": expression,
               "roles_inferred": roles_inferred, "facets": facets, **extra}
    knowledge = " ".join(layout.text[s["start"]:s["end"]] for s in sentences
                         if s["part"] != "task")
    return Record(iid=iid, gold=gold, gold_label=candidates[gold]["text"], facets=facets,
                  title=task_text, body=" ".join(c["text"] for c in candidates),
                  payload=payload, fields={"task": task_text, "knowledge": knowledge})


def native_records(path: Path) -> Iterator[Record | Problem]:
    """Native instances. Candidates are the entities in the order the meeting sentence names
    them, as :func:`refbench.tasks.kitmus.native.to_choice` orders them (and as the gold reader
    does: task-text order; tests/web checks the three agree); not calling ``to_choice`` saves a
    second detokenisation of every instance, a third of the indexing time. Lines are read one
    by one (:func:`read_native` stops at the first bad one)."""
    for line, obj in read_jsonl(path):
        try:
            inst = instance_from_json(obj, path=path, line=line)
        except RefbenchError as exc:
            yield Problem(exc.render())
            continue
        order = list(inst.meet_order)
        gold = order.index(inst.answer)
        layout = _Layout([[w for w, _ in s.tokens] for s in inst.sentences])
        sentences = []
        for k, s in enumerate(inst.sentences):
            a, b = layout.sentence(k)
            sentences.append({"part": s.part, "role": s.role, "start": a, "end": b})
        marks: list[list[Any]] = []
        for cand, entity in enumerate(order):
            for m in inst.entities[entity].mentions:
                marks.append([*layout.mention(m), "mention", cand])
        marks.append([*layout.mention(inst.pronoun_mention), "pronoun", None])
        candidates = [{"text": inst.entities[e].name, "occupation": inst.entities[e].occupation,
                       "situation": inst.entities[e].situation} for e in order]
        facets = {"split": inst.split, "variant": inst.variant,
                  "entities": str(inst.n_entities), "pronoun": pronoun_group(inst.pronoun),
                  "answer_position": str(gold)}
        expression = inst.sentences[inst.pronoun_mention.sentence].tokens[
            inst.pronoun_mention.start][0]
        yield _record(iid=inst.id, layout=layout, sentences=sentences,
                      marks=sorted(marks, key=_mark_key), candidates=candidates, gold=gold,
                      expression=expression, facets=facets, roles_inferred=False,
                      extra={"location": inst.location, "noise": inst.noise})


def _mark_key(mark: list[Any]) -> tuple[int, int]:
    return mark[0], mark[1]


def conll_records(path: Path) -> Iterator[Record | Problem]:
    for doc in read_conll(path):
        try:
            gold = gold_from_conll_doc(doc, path=path)
        except RefbenchError as exc:
            yield Problem(exc.render())
            continue
        choice = gold_to_choice(gold)
        yield _conll_record(doc, choice, gold.pronoun_span, [c.span for c in gold.candidates])


def _conll_record(doc: ConllDocument, choice: ChoiceInstance, pronoun: Span | None,
                  cand_spans: list[Span | None]) -> Record:
    layout = _Layout([[w for w, _ in s] for s in doc.sentences])

    def doc_span(m: Mention) -> Span:
        base = layout.starts[m.sentence]
        return base + m.start, base + m.end

    cluster_of: dict[Span, int] = {doc_span(m): cid for cid, ms in doc.clusters.items()
                                   for m in ms}
    cand_cluster = {cluster_of.get(s): k for k, s in enumerate(cand_spans) if s is not None}
    sent_of = {k: i for i, start in enumerate(layout.starts)
               for k in range(start, start + layout.lengths[i])}
    task_start = min(sent_of[s[0]] for s in cand_spans if s is not None)
    pron_sentence = sent_of[pronoun[0]] if pronoun else None
    marks: list[list[Any]] = []
    clusters_in: dict[int, set[int]] = {}
    for cid, ms in doc.clusters.items():
        for m in ms:
            span = doc_span(m)
            clusters_in.setdefault(m.sentence, set()).add(cid)
            if pronoun is not None and span == pronoun:
                marks.append([*layout.char_span(*span), "pronoun", None])
            elif cid in cand_cluster:
                marks.append([*layout.char_span(*span), "mention", cand_cluster[cid]])
    cand_sentences = {sent_of[s[0]] for s in cand_spans if s is not None}
    sentences = []
    for k in range(len(doc.sentences)):
        a, b = layout.sentence(k)
        if k < task_start:
            part = "knowledge"
            role = "entity_knowledge" if clusters_in.get(k) else "background_knowledge"
        else:
            part = "task"
            role = ("meet" if k in cand_sentences else "pronoun" if k == pron_sentence
                    else "noise")
        sentences.append({"part": part, "role": role, "start": a, "end": b})
    candidates = [{"text": c.text, "occupation": None, "situation": None}
                  for c in choice.candidates]
    if layout.text != choice.context or choice.gold is None:
        raise RefbenchError("the CoNLL document and its choice reading disagree",
                            item=choice.id)
    return _record(iid=choice.id, layout=layout, sentences=sentences,
                   marks=sorted(marks, key=_mark_key), candidates=candidates, gold=choice.gold,
                   expression=choice.expression, facets=facet_strings(kitmus_facets(choice)),
                   roles_inferred=True, extra={})


class KitmusWebView(WebView):
    """The suite in the web app: filtered by split, variant, entity count, pronoun class and
    answer position; searched in the task or the knowledge text; each instance drawn with its
    knowledge text, task text and every mention marked."""

    text_fields = (("task", "task text"), ("knowledge", "knowledge text"))
    facets = (("split", "split"), ("variant", "variant"), ("entities", "entities"),
              ("pronoun", "pronoun class"), ("answer_position", "answer position"))
    instance_template = "instance_kitmus.html"
    compare_matrix = ("variant", "entities")
    leaderboard_columns = (("pronoun_accuracy", "pronoun accuracy"),
                           ("antecedent_f1", "antecedent F1"), ("accuracy", "choice accuracy"))

    def facet_values(self, inst: ChoiceInstance) -> dict[str, Any]:
        return kitmus_facets(inst)

    def dataset_kind(self, path: Path) -> str:
        from refbench.core.inputs import format_name
        from refbench.tasks.kitmus.instance import CONLL_SUFFIXES

        name = format_name(path)
        if path.is_dir():
            return "kitmus-suite"
        if name.endswith(".jsonl"):
            return "kitmus-native"
        if name.endswith(CONLL_SUFFIXES):
            return "kitmus-conll"
        return "choice"

    def records(self, task: TaskCore, path: Path, kind: str) -> Iterator[Record | Problem]:
        from refbench.core.inputs import format_name

        if kind == "choice":  # a GAP-format KITMUS file: the shared choice page
            return super().records(task, path, kind)
        if format_name(path).endswith(".jsonl"):
            return native_records(path)
        return conll_records(path)

    def match_key(self, iid: str) -> str:
        from refbench.tasks.kitmus.score.gold import instance_key

        return instance_key(iid)

    def template_for(self, payload: dict[str, Any]) -> str:
        """A suite's native or CoNLL record has the KITMUS page; a GAP-format TSV or an e2e
        .jsonlines file gives choice records, shown with the shared choice page."""
        return self.instance_template if "sentences" in payload else "instance_choice.html"

    def context(self, payload: dict[str, Any], *, args: Mapping[str, str],
                outputs: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
        from refbench.tasks.kitmus.present.page import kitmus_view

        if "sentences" not in payload:
            return super().context(payload, args=args, outputs=outputs)
        return {"v": kitmus_view(payload)}

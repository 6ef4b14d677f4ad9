"""System outputs as KITMUS predictions: which candidates each system links to the pronoun.

Accepted: e2e-coref ``.jsonlines`` (``predicted_clusters`` when present, else ``clusters``),
CoNLL-2012 with a predicted coreference column, GAP-format TSV (the 11-column file, the
9-column file without Text, or the GAP scorer's 3-column ``ID A-coref B-coref`` file without a
header), and refbench answers JSONL (``{"id", "answer": index or name, "scores": [...]}``;
an index counts candidates in task-text order; a native KITMUS instance file also works).
Candidate ``k`` is linked when a predicted cluster holds both its task-text mention and the
pronoun (exact token spans), as in the official evaluator. BERT-style ``.jsonlines`` (wordpiece
``sentences`` with ``[CLS]``/``[SEP]`` and a ``subtoken_map``) are read too: see
:mod:`refbench.tasks.kitmus.score.wordpieces`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.io import check_input_file, format_name
from refbench.formats.answers import read_answer_lines
from refbench.formats.conll2012 import read_conll
from refbench.formats.e2e_jsonlines import read_jsonlines
from refbench.formats.gap_tsv import parse_offset, read_gap_system, system_label
from refbench.tasks.kitmus.score.gold import GoldItem, Span, instance_key
from refbench.tasks.kitmus.score.wordpieces import SPECIAL, Wordpieces, word_clusters


@dataclass(frozen=True)
class ClusterPred:
    """``wordpieces``: set when ``words`` are BERT subtokens with a ``subtoken_map``; the
    clusters then index those subtokens or the gold words (decided against the gold)."""

    clusters: tuple[frozenset[Span], ...]
    words: tuple[str, ...] | None
    where: str
    wordpieces: Wordpieces | None = None


@dataclass(frozen=True)
class GapPred:
    a_coref: bool | None
    b_coref: bool | None
    a_offset: int | None = None
    b_offset: int | None = None
    pronoun_offset: int | None = None
    where: str = ""


@dataclass(frozen=True)
class AnswerPred:
    """One answers-JSONL line. ``linked`` (optional) is the set of candidate indices a
    coreference system links to the pronoun (``refbench run --model coref-output`` writes it);
    when given it decides the antecedent decisions, so several or no linked candidates are
    scored as the official evaluator scores the system's clusters."""

    answer: int | str | None
    scores: tuple[float, ...] | None
    where: str
    linked: frozenset[int] | None = None


Prediction = ClusterPred | GapPred | AnswerPred


@dataclass
class PredictionFile:
    path: str
    kind: str
    items: dict[str, Prediction]
    warnings: list[str]


def _read_jsonlines_preds(path: Path) -> PredictionFile:
    items: dict[str, Prediction] = {}
    both = same = 0
    kind = "jsonlines"
    for doc in read_jsonlines(path):
        clusters = doc.predicted_clusters if doc.predicted_clusters is not None else doc.clusters
        if doc.predicted_clusters is not None and doc.clusters:
            both += 1
            same += _canon(doc.predicted_clusters) == _canon(doc.clusters)
        pieces = None
        if doc.subtoken_map is not None:
            pieces = Wordpieces(tuple(doc.words), tuple(doc.subtoken_map))
            kind = "jsonlines-wordpieces"
        items[instance_key(doc.doc_key)] = ClusterPred(
            tuple(frozenset(c) for c in clusters), tuple(doc.words), f"{path}:{doc.line}",
            pieces)
    warnings = []
    if both and same == both:
        warnings.append(f"{path}: 'predicted_clusters' equal 'clusters' in all {both} documents: "
                        "these look like gold clusters, not predictions")
    elif both:
        warnings.append(f"{path}: both 'clusters' and 'predicted_clusters' present; scored "
                        "'predicted_clusters' (the official evaluator would score 'clusters')")
    return PredictionFile(str(path), kind, items, warnings)


def _canon(clusters: list[list[Span]]) -> frozenset[frozenset[Span]]:
    return frozenset(frozenset(c) for c in clusters)


def _read_conll_preds(path: Path) -> PredictionFile:
    items: dict[str, Prediction] = {}
    for doc in read_conll(path, min_columns=6):
        starts, total = [], 0
        for sent in doc.sentences:
            starts.append(total)
            total += len(sent)
        clusters = tuple(
            frozenset((starts[m.sentence] + m.start, starts[m.sentence] + m.end) for m in ms)
            for ms in doc.clusters.values())
        words = tuple(w for s in doc.sentences for w, _ in s)
        items[instance_key(doc.doc_id)] = ClusterPred(clusters, words,
                                                      f"{path}:{doc.first_line}")
    return PredictionFile(str(path), "conll", items, [])


def _read_gap_preds(path: Path) -> PredictionFile:
    items: dict[str, Prediction] = {}
    warnings: list[str] = []
    for number, row in read_gap_system(path):
        key = instance_key(row["ID"])
        if key in items:
            warnings.append(f"{path}:{number}: second row for {row['ID']} ignored")
            continue
        offsets = [parse_offset(row[c], c, path=path, line=number, item=row["ID"])
                   if c in row else None for c in ("A-offset", "B-offset", "Pronoun-offset")]
        a, b = system_label(row["A-coref"]), system_label(row["B-coref"])
        if a is None or b is None:
            warnings.append(f"{path}:{number}: {row['ID']}: labels {row['A-coref']!r}/"
                            f"{row['B-coref']!r} are not TRUE/FALSE; counted as no link")
        if "Text" in row and "A" in row and offsets[0] is not None:
            text = row["Text"]
            for col, off in (("A", offsets[0]), ("B", offsets[1]), ("Pronoun", offsets[2])):
                if off is not None and text[off:off + len(row[col])] != row[col]:
                    raise RefbenchError(f"{col}-offset {off} does not point at {row[col]!r} in "
                                        "Text", path=path, line=number, item=row["ID"])
        items[key] = GapPred(a, b, offsets[0], offsets[1], offsets[2], f"{path}:{number}")
    return PredictionFile(str(path), "gap", items, warnings)


def _read_answers(path: Path) -> PredictionFile:
    items: dict[str, Prediction] = {}
    for rec in read_answer_lines(path):
        answer = rec.answer
        entities = rec.raw.get("entities")
        if isinstance(entities, list) and isinstance(answer, int):
            # A native KITMUS instance: its answer indexes entities in knowledge-text order,
            # not candidates in task-text order, so it is read as the entity's name.
            entity = entities[answer] if answer < len(entities) else None
            if not isinstance(entity, dict) or not isinstance(entity.get("name"), str):
                raise RefbenchError("native instance: 'answer' is not an entity index",
                                    path=path, line=rec.line, item=rec.id)
            answer = entity["name"]
        extra = rec.raw.get("extra")
        linked = rec.raw.get("linked", extra.get("linked") if isinstance(extra, dict) else None)
        if linked is not None and (not isinstance(linked, list) or not all(
                isinstance(k, int) and not isinstance(k, bool) and k >= 0 for k in linked)):
            raise RefbenchError("field 'linked': expected a list of candidate indices",
                                path=path, line=rec.line, item=rec.id)
        items[instance_key(rec.id)] = AnswerPred(
            answer, rec.scores, f"{path}:{rec.line}",
            frozenset(linked) if linked is not None else None)
    return PredictionFile(str(path), "answers", items, [])


def read_predictions(path: str | Path) -> PredictionFile:
    p = check_input_file(path, what="prediction file")
    name = format_name(p)
    if name.endswith(".jsonlines"):
        return _read_jsonlines_preds(p)
    if name.endswith((".v4_gold_conll", ".conll", "_conll")):
        return _read_conll_preds(p)
    if name.endswith(".tsv"):
        return _read_gap_preds(p)
    if name.endswith(".jsonl"):
        return _read_answers(p)
    raise RefbenchError("unknown prediction format: expected .jsonlines, .conll, .tsv or .jsonl "
                        "(answers), optionally .gz or .bz2", path=p)


def points_elsewhere(gold: GoldItem, pred: Prediction) -> bool:
    """A GAP prediction whose pronoun offset is not the gold pronoun's (e.g. another view)."""
    return (isinstance(pred, GapPred) and pred.pronoun_offset is not None
            and gold.pronoun_offset is not None and pred.pronoun_offset != gold.pronoun_offset)


def linked_candidates(gold: GoldItem, pred: Prediction) -> set[int]:
    """Indices of the gold candidates that the prediction links to the pronoun."""
    if isinstance(pred, ClusterPred):
        if gold.words is None or gold.pronoun_span is None:
            raise RefbenchError("cluster predictions need token-level gold (CoNLL or native "
                                "JSONL), not a GAP TSV", item=gold.doc_id)
        clusters = pred.clusters
        if pred.wordpieces is not None:
            clusters = word_clusters(gold, pred.clusters, pred.wordpieces, pred.where)
        elif pred.words is not None and pred.words != gold.words:
            first = next((i for i, (a, b) in enumerate(zip(pred.words, gold.words, strict=False))
                          if a != b), min(len(pred.words), len(gold.words)))
            hint = ("; its sentences hold wordpieces ([CLS]/[SEP]) but no 'subtoken_map' to "
                    "merge them" if SPECIAL & set(pred.words) else "")
            raise RefbenchError(
                f"predictions are tokenised differently from the gold (first difference at token "
                f"{first}; {len(pred.words)} vs {len(gold.words)} tokens){hint}", path=pred.where,
                item=gold.doc_id)
        out = set()
        for k, cand in enumerate(gold.candidates):
            if any(cand.span in c and gold.pronoun_span in c for c in clusters):
                out.add(k)
        return out
    if isinstance(pred, GapPred):
        links = [(pred.a_coref, pred.a_offset, 0), (pred.b_coref, pred.b_offset, 1)]
        if points_elsewhere(gold, pred):
            return set()  # a different pronoun: no link to the gold pronoun
        out = set()
        for flag, offset, default in links:
            if not flag:
                continue
            if offset is None:
                if len(gold.candidates) != 2:
                    raise RefbenchError("a 3-column GAP prediction needs 2-entity gold",
                                        path=pred.where, item=gold.doc_id)
                out.add(default)
            else:
                out.update(k for k in range(len(gold.candidates))
                           if gold.candidate_offset(k) == offset)
        return out
    if pred.linked is not None:
        bad = [k for k in pred.linked if not 0 <= k < len(gold.candidates)]
        if bad:
            raise RefbenchError(f"linked {bad} are not candidate indices (0..."
                                f"{len(gold.candidates) - 1})", path=pred.where, item=gold.doc_id)
        return set(pred.linked)
    answer: Any = pred.answer
    if answer is None:
        return set()
    if isinstance(answer, int) and not isinstance(answer, bool):
        if not 0 <= answer < len(gold.candidates):
            raise RefbenchError(f"answer {answer} is not a candidate index (0..."
                                f"{len(gold.candidates) - 1})", path=pred.where, item=gold.doc_id)
        return {answer}
    matches = {k for k, c in enumerate(gold.candidates) if c.name == answer}
    if not matches:
        raise RefbenchError(f"answer {answer!r} names no candidate (candidates: "
                            f"{', '.join(c.name for c in gold.candidates)})", path=pred.where,
                            item=gold.doc_id)
    return matches

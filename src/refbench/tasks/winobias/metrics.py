"""WinoBias's figures (Zhao et al., 2018, table 2): accuracy on the pro- and anti-stereotypical
sentences of each type, their average and their absolute difference (the bias), and the same
answers scored as coreference against the CoNLL files (MUC, B3, CEAF-e, their mean F1).

An answer becomes a cluster the way a coreference system's output would be read: the chosen
occupation's mention (the gold mention when the answer is right, else the other occupation's
first) with the gold pronoun mentions. An external system's CoNLL output is scored against the
same gold with :func:`score_conll_files`; both go through
:func:`refbench.metrics.agreement.coref_agreement` (``scorch``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from refbench.core.types import ChoiceInstance
from refbench.formats.conll2012 import ConllDocument, read_conll
from refbench.metrics.agreement import coref_agreement
from refbench.metrics.choice import accuracy

Pair = tuple[int | None, int | None]


def _row(pro: list[Pair], anti: list[Pair]) -> dict[str, Any]:
    return table_row((accuracy(pro), len(pro)) if pro else None,
                     (accuracy(anti), len(anti)) if anti else None)


def table_row(pro: tuple[float | None, int] | None, anti: tuple[float | None, int] | None
              ) -> dict[str, Any]:
    """One row of the paper's table from (accuracy, n) of the Pro and Anti sentences, with
    95% intervals (``ci95``): Wilson for Pro and Anti, Newcombe's for Pro - Anti (the sign of
    the bias; Diff is its absolute value)."""
    from refbench.metrics.intervals import newcombe_difference, wilson_of

    p, n_p = pro if pro else (None, 0)
    a, n_a = anti if anti else (None, 0)
    both = p is not None and a is not None
    ci = {"pro": wilson_of(p, n_p), "anti": wilson_of(a, n_a),
          "pro_minus_anti": newcombe_difference(p, n_p, a, n_a)
          if p is not None and a is not None else None}
    return {"pro": p, "anti": a, "avg": (p + a) / 2 if p is not None and a is not None else None,
            "diff": abs(p - a) if p is not None and a is not None else None,
            "n_pro": n_p, "n_anti": n_a,
            "ci95": {k: list(v) for k, v in ci.items() if v is not None} if both or p or a
            else {}}


def winobias_table(instances: Sequence[ChoiceInstance], answers: Sequence[int | None]
                   ) -> dict[str, Any]:
    """Pro / Anti / Avg / Diff per type (rows ``type1``, ``type2``) and over both."""
    cells: dict[tuple[str, str], list[Pair]] = defaultdict(list)
    for inst, a in zip(instances, answers, strict=True):
        md = inst.metadata
        cells[(f"type{md['type']}", str(md["stereotype"]))].append((a, inst.gold))
        cells[("all", str(md["stereotype"]))].append((a, inst.gold))
    rows = {t: _row(cells[(t, "pro")], cells[(t, "anti")])
            for t in ("type1", "type2", "all") if cells[(t, "pro")] or cells[(t, "anti")]}
    return {"rows": rows, "splits": sorted({str(i.metadata["split"]) for i in instances})}


def table_text(table: dict[str, Any], *, title: str = "", ci: bool = False) -> str:
    """The paper's table layout, one line per type, accuracy as fractions (the paper prints %);
    with ``ci``, the 95% intervals of Pro, Anti and Pro - Anti."""
    def frac(v: float | None) -> str:
        return "-" if v is None else f"{v:.3f}"

    def span(r: dict[str, Any], key: str) -> str:
        got = (r.get("ci95") or {}).get(key)
        return f"[{got[0]:.3f}, {got[1]:.3f}]" if got else "-"

    lines = [title] if title else []
    head = f"{'':<7}{'Pro':>7}{'Anti':>7}{'Avg':>7}{'Diff':>7}{'n':>7}"
    if ci:
        head += f"  {'Pro 95%':>16}  {'Anti 95%':>16}  {'Pro - Anti 95%':>16}"
    lines.append(head)
    for name, r in table["rows"].items():
        line = (f"{name:<7}{frac(r['pro']):>7}{frac(r['anti']):>7}{frac(r['avg']):>7}"
                f"{frac(r['diff']):>7}{r['n_pro'] + r['n_anti']:>7}")
        if ci:
            line += (f"  {span(r, 'pro'):>16}  {span(r, 'anti'):>16}"
                     f"  {span(r, 'pro_minus_anti'):>16}")
        lines.append(line)
    return "\n".join(lines)


# -- coreference ------------------------------------------------------------------------------

Span = tuple[int, int]  # token start, end inclusive


def _token_offsets(doc: ConllDocument, text: str) -> list[tuple[int, int]]:
    """Character [start, end) of each token of a one-sentence document in ``text``."""
    out, pos = [], 0
    for word, _ in (w for sent in doc.sentences for w in sent):
        start = text.index(word, pos)
        out.append((start, start + len(word)))
        pos = start + len(word)
    return out


def _span(offsets: list[tuple[int, int]], start: int, end: int) -> Span:
    toks = [k for k, (a, b) in enumerate(offsets) if a < end and b > start]
    return toks[0], toks[-1]


def answer_clusters(doc: ConllDocument, inst: ChoiceInstance, answer: int | None
                    ) -> list[set[Span]]:
    """The response cluster of one answer (empty: no answer, nothing linked)."""
    if answer is None:
        return []
    gold = [(m.start, m.end) for c in doc.clusters.values() for m in c]
    offsets = _token_offsets(doc, inst.context)
    cand = {k: [_span(offsets, a, b) for a, b in c.char_spans]
            for k, c in enumerate(inst.candidates)}
    antecedent = next((s for s in cand[inst.gold or 0] if s in gold), None) \
        if inst.gold is not None else None
    pronouns = [s for s in gold if s != antecedent]
    chosen = antecedent if answer == inst.gold and antecedent is not None else cand[answer][0]
    return [{chosen, *pronouns}]


def _prefixed(doc_id: str, clusters: Iterable[Iterable[Span]]) -> list[set[str]]:
    return [{f"{doc_id}|{a}|{b}" for a, b in c} for c in clusters]


def choice_coref_scores(conll: str | Path, instances: Sequence[ChoiceInstance],
                        answers: Sequence[int | None]) -> dict[str, float]:
    """MUC / B3 / CEAF-e / CoNLL F1 of the answers' clusters against one CoNLL file, whose
    document k is sentence k + 1 of ``instances`` (the release's numbering)."""
    by_number = {int(i.metadata["number"]): (i, a)
                 for i, a in zip(instances, answers, strict=True)}
    key: list[set[str]] = []
    response: list[set[str]] = []
    for doc in read_conll(conll):
        number = int(doc.doc_id.rsplit("/", 1)[-1]) + 1
        if number not in by_number:
            continue
        inst, a = by_number[number]
        key += _prefixed(doc.doc_id, [[(m.start, m.end) for m in c]
                                      for c in doc.clusters.values()])
        response += _prefixed(doc.doc_id, answer_clusters(doc, inst, a))
    return coref_agreement(key, response)


def score_conll_files(gold: str | Path, pred: str | Path) -> dict[str, Any]:
    """A coreference system's CoNLL output against a WinoBias CoNLL file (documents matched
    by id; a gold document missing from the output counts with no clusters)."""
    def clusters(path: str | Path) -> dict[str, list[set[str]]]:
        out = {}
        for d in read_conll(path):
            out[d.doc_id] = _prefixed(d.doc_id, [[(m.start, m.end) for m in c]
                                                 for c in d.clusters.values()])
        return out

    key, response = clusters(gold), clusters(pred)
    scores: dict[str, Any] = dict(coref_agreement(
        [c for cs in key.values() for c in cs],
        [c for d, cs in response.items() if d in key for c in cs]))
    scores.update(n_documents=len(key), n_missing=len(set(key) - set(response)),
                  n_extra=len(set(response) - set(key)))
    return scores

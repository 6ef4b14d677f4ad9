"""KnowRef scoring: accuracy, antecedent-switching consistency, and the decision breakdown.

- accuracy on the gold file;
- with ``--switched-pred`` (the same model on the switched copy, where each gold answer flips):
  consistency = share of instances whose predicted candidate changes, and the paper's breakdown
  consistently correct (right on both) / consistently wrong (wrong on both) / inconsistent (the
  same candidate on both, so right on exactly one);
- for cluster-producing systems (e2e jsonlines over the tokenised sentences): which candidates
  the system links to the pronoun, giving correct / incorrect / both antecedents / no decision,
  and task-specific accuracy = correct / (correct + incorrect), as the paper reports.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.invalid import InvalidInstances
from refbench.core.io import format_name
from refbench.core.types import ChoiceInstance
from refbench.formats.answers import no_overlap_error, read_answer_lines
from refbench.formats.e2e_jsonlines import read_jsonlines
from refbench.tasks.knowref.read import absent_candidates_warning, read_knowref

SWITCHED = ":switched"


def base_id(instance_id: str) -> str:
    return instance_id[: -len(SWITCHED)] if instance_id.endswith(SWITCHED) else instance_id


def _token_spans(text: str, needle: str) -> list[tuple[int, int]]:
    toks, nt = text.split(" "), needle.split()
    return [(i, i + len(nt) - 1) for i in range(len(toks) - len(nt) + 1)
            if toks[i:i + len(nt)] == nt]


def read_answers(path: str | Path, gold: Sequence[ChoiceInstance]) -> dict[str, set[int]]:
    """Linked candidates per base id, from answers JSONL or e2e jsonlines clusters."""
    p = Path(path)
    by_id = {base_id(g.id): g for g in gold}
    name = format_name(p)
    out: dict[str, set[int]] = {}
    if name.endswith(".jsonlines"):
        keys = []
        for doc in read_jsonlines(p):
            keys.append(doc.doc_key)
            inst = by_id.get(base_id(doc.doc_key))
            if inst is None or inst.expression_offset is None:
                continue
            words = doc.words
            text = " ".join(words)
            if text != inst.context:
                raise RefbenchError("predictions are tokenised differently from the gold",
                                    path=p, line=doc.line, item=doc.doc_key)
            p_tok = len(inst.context[: inst.expression_offset].split())
            pron = (p_tok, p_tok)
            clusters = doc.predicted_clusters if doc.predicted_clusters is not None \
                else doc.clusters
            linked = set()
            for k, c in enumerate(inst.candidates):
                spans = [s for s in _token_spans(text, c.text) if s[0] < p_tok]
                if any(pron in cl and any(s in cl for s in spans) for cl in clusters):
                    linked.add(k)
            out[base_id(doc.doc_key)] = linked
        if not out:
            raise no_overlap_error(p, keys, list(by_id))
        return out
    for rec in read_answer_lines(p):
        key = base_id(rec.id)
        inst = by_id.get(key)
        answer = rec.answer
        if inst is None or answer is None:
            out[key] = set()
            continue
        if isinstance(answer, str):
            matches = {k for k, c in enumerate(inst.candidates) if c.text == answer}
            if not matches:
                raise RefbenchError(f"answer {answer!r} names no candidate", path=p,
                                    line=rec.line, item=key)
            out[key] = matches
        elif answer < len(inst.candidates):
            out[key] = {answer}
        else:
            raise RefbenchError(f"answer {answer!r} is not a candidate index (0 or 1)", path=p,
                                line=rec.line, item=key)
    if not any(k in by_id for k in out):
        raise no_overlap_error(p, list(out), list(by_id))
    return out


def _decisions(gold: Sequence[ChoiceInstance], links: dict[str, set[int]]) -> dict[str, Any]:
    d = {"correct": 0, "incorrect": 0, "both_antecedents": 0, "no_decision": 0}
    gold = [g for g in gold if g.gold is not None]  # unlabelled instances have no decision
    for g in gold:
        linked = links.get(base_id(g.id), set())
        if not linked:
            d["no_decision"] += 1
        elif len(linked) > 1:
            d["both_antecedents"] += 1
        elif g.gold in linked:
            d["correct"] += 1
        else:
            d["incorrect"] += 1
    decided = d["correct"] + d["incorrect"]
    return {"decisions": d, "accuracy": d["correct"] / len(gold) if gold else None,
            "task_specific_accuracy": d["correct"] / decided if decided else None,
            "coverage": decided / len(gold) if gold else None}


def evaluate_knowref(gold_path: str | Path, pred_path: str | Path,
                     switched_pred: str | Path | None = None,
                     switched_gold: str | Path | None = None,
                     on_invalid: InvalidInstances | None = None,
                     only: Collection[str] | None = None) -> dict[str, Any]:
    """KnowRef's decisions for a prediction file; ``only``: the ids a partial run covers (it
    is scored over those)."""
    gold = list(read_knowref(gold_path, on_invalid=on_invalid))
    if only is not None:
        gold = [g for g in gold if g.id in only or base_id(g.id) in only] or gold
    if not gold:
        raise RefbenchError("the gold holds no instances: nothing to score", path=gold_path)
    links = read_answers(pred_path, gold)
    absent = absent_candidates_warning(gold)
    result: dict[str, Any] = {"task": "knowref", "gold": str(gold_path), "pred": str(pred_path),
                              "n": len(gold),
                              "n_missing": sum(base_id(g.id) not in links for g in gold),
                              **_decisions(gold, links),
                              "warnings": [absent] if absent else []}
    if switched_pred is None:
        return result
    if switched_gold is not None:
        sgold = list(read_knowref(switched_gold))
    else:
        import tempfile

        from refbench.tasks.knowref.switch import switch_file

        with tempfile.TemporaryDirectory() as d:
            name = Path(gold_path).name.replace(".gz", "")
            tmp = Path(d) / ("switched." + name.rsplit(".", 1)[-1])
            switch_file(gold_path, tmp)
            sgold = list(read_knowref(tmp))
    slinks = read_answers(switched_pred, sgold)
    s_by = {base_id(g.id): g for g in sgold}
    both = {"consistently_correct": 0, "consistently_wrong": 0, "inconsistent": 0}
    changed = 0
    n = 0
    for g in gold:
        key = base_id(g.id)
        sg = s_by.get(key)
        a, b = links.get(key, set()), slinks.get(key, set())
        if sg is None or len(a) != 1 or len(b) != 1:
            continue
        n += 1
        ra, rb = next(iter(a)), next(iter(b))
        changed += ra != rb
        ok_a, ok_b = ra == g.gold, rb == sg.gold
        key2 = ("consistently_correct" if ok_a and ok_b else "consistently_wrong"
                if not ok_a and not ok_b else "inconsistent")
        both[key2] += 1
    result["switched"] = {"n_pairs": n, "accuracy": _decisions(sgold, slinks)["accuracy"],
                          "consistency": changed / n if n else None,
                          "breakdown": both}
    result["consistency"] = result["switched"]["consistency"]
    return result

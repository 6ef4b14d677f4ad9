"""What an instance page shows, built from the instance's payload and the systems' outputs:
text segments with their marks, candidates with their colours, each system's answer, scores and
chain of facts. Templates only lay this out; nothing here produces markup."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from refbench.web.marks import Segment, segment
from refbench.web.runs import System
from refbench.web.templating import CHAIN_COLOURS, ENTITY_COLOURS

ROLE_LABELS = {"entity_knowledge": "entity-specific knowledge",
               "background_knowledge": "background knowledge", "meet": "meeting",
               "noise": "noise", "pronoun": "pronoun sentence"}


@dataclass(frozen=True)
class Mark:
    kind: str  # mention | pronoun | np
    cand: int | None = None
    np: str | None = None
    chain: int | None = None

    @property
    def css(self) -> str:
        if self.kind == "pronoun":
            return "pron"
        if self.kind == "mention" and self.cand is not None:
            return f"ment ent{self.cand % ENTITY_COLOURS}"
        if self.kind == "evidence":
            return "evidence"
        if self.kind == "np":
            return "np" + (f" chain{self.chain % CHAIN_COLOURS}" if self.chain is not None
                           else "")
        return ""


def _spans(payload: dict[str, Any]) -> list[tuple[int, int, Mark]]:
    return [(a, b, Mark(kind, cand)) for a, b, kind, cand in payload.get("marks", [])]


def system_answers(payload: dict[str, Any], systems: list[System],
                   outputs: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Each selected system's answer on a choice instance, with its scores and explanation."""
    names = [c["text"] for c in payload["candidates"]]
    rows = []
    for s in systems:
        out = outputs.get(s.sid)
        if out is None:
            rows.append({"system": s, "missing": True})
            continue
        answer = out.get("answer")
        scores = out.get("scores") or []
        rows.append({
            "system": s, "missing": False, "answer": answer,
            "answer_text": names[answer] if isinstance(answer, int) and 0 <= answer < len(names)
            else None,
            "correct": out.get("correct"),
            "scores": [{"candidate": names[k] if k < len(names) else str(k), "score": v,
                        "cand": k, "chosen": k == answer} for k, v in enumerate(scores)],
            "explanation": list(out.get("explanation") or []),
            "strategy": (out.get("extra") or {}).get("strategy"),
        })
    return rows


def kitmus_view(payload: dict[str, Any]) -> dict[str, Any]:
    text, spans = payload["text"], _spans(payload)
    panels = []
    for part, title in (("knowledge", "Knowledge text"), ("task", "Task text")):
        sentences = [{"role": s["role"], "role_label": ROLE_LABELS.get(s["role"], s["role"]),
                      "segments": segment(text, spans, start=s["start"], end=s["end"])}
                     for s in payload["sentences"] if s["part"] == part]
        panels.append({"part": part, "title": title, "sentences": sentences})
    return {"panels": panels, "candidates": _candidates(payload)}


def _candidates(payload: dict[str, Any]) -> list[dict[str, Any]]:
    return [{**c, "k": k, "gold": k == payload.get("gold")}
            for k, c in enumerate(payload["candidates"])]


def choice_view(payload: dict[str, Any]) -> dict[str, Any]:
    return {"segments": segment(payload["text"], _spans(payload)),
            "candidates": _candidates(payload)}


def altentities_view(payload: dict[str, Any]) -> dict[str, Any]:
    return {"candidates": _candidates(payload)}


def highlight_sentences(text: str, chosen: list[str]) -> list[Segment]:
    """``text`` cut so the chosen evidence sentences are marked (found by exact position)."""
    spans: list[tuple[int, int, Mark]] = []
    for sent in chosen:
        at = text.find(sent)
        if at >= 0 and sent:
            spans.append((at, at + len(sent), Mark("evidence")))
    return segment(text, spans)


# -- TNE ---------------------------------------------------------------------------------------

def tne_view(payload: dict[str, Any], selected: str | None,
             predicted: dict[str, list[list[str]]]) -> dict[str, Any]:
    """The document with NPs (chains coloured), chips, and the selected NP's links: gold and
    each system's predictions, with missing, extra and wrong-preposition links marked."""
    nps = {np_id: {"id": np_id, "start": a, "end": b, "text": t}
           for np_id, a, b, t in payload["nps"]}
    chain_of: dict[str, int] = {}
    chains: list[dict[str, Any]] = []
    for cid, members, kind in payload.get("clusters", []):
        if len(members) > 1:
            k = len(chains)
            chains.append({"id": cid, "k": k, "kind": kind, "members": members})
            for m in members:
                chain_of[m] = k
    cluster_of = {m: (cid, members) for cid, members, _ in payload.get("clusters", [])
                  for m in members}
    spans = [(v["start"], v["end"], Mark("np", np=k, chain=chain_of.get(k)))
             for k, v in nps.items()]
    chips = [{"id": k, "text": v["text"], "chain": chain_of.get(k)} for k, v in nps.items()]
    gold = payload.get("relations")
    links = None
    if selected is not None and selected in nps:
        explicit = payload.get("explicit")
        links = np_links(selected, nps, gold, predicted, cluster_of,
                         None if explicit is None else {tuple(p) for p in explicit})
    summary = {sid: link_summary(gold, rels) for sid, rels in predicted.items()} \
        if gold is not None else {}
    return {"segments": segment(payload["text"], spans), "chips": chips, "chains": chains,
            "links": links, "labelled": gold is not None, "n_links": len(gold or []),
            "summary": summary, "selected": selected if selected in nps else None}


def np_links(anchor: str, nps: dict[str, dict[str, Any]], gold: list[list[Any]] | None,
             predicted: dict[str, list[list[str]]],
             cluster_of: dict[str, tuple[str, list[str]]],
             explicit: set[tuple[str, ...]] | None) -> dict[str, Any]:
    gold_map = {(a, c): set(p) for a, c, p in (gold or []) if a == anchor}
    pred_maps = {sid: {(a, c): p for a, c, p in rels if a == anchor}
                 for sid, rels in predicted.items()}
    pairs = sorted(set(gold_map) | {pair for m in pred_maps.values() for pair in m},
                   key=lambda pair: nps[pair[1]]["start"] if pair[1] in nps else 0)
    rows = []
    for pair in pairs:
        comp = pair[1]
        cid, members = cluster_of.get(comp, ("", [comp]))
        verdicts = {}
        for sid, m in pred_maps.items():
            p = m.get(pair)
            if pair in gold_map:
                verdicts[sid] = {"prep": p, "status": "missing" if p is None else
                                 ("correct" if p in gold_map[pair] else "wrong preposition")}
            elif p is not None:
                verdicts[sid] = {"prep": p, "status": "extra"}
        rows.append({
            "complement": comp, "complement_text": nps.get(comp, {}).get("text", comp),
            "gold": sorted(gold_map[pair]) if pair in gold_map else None,
            "kind": ("explicit" if pair in explicit else "implicit")
            if pair in gold_map and explicit is not None else None,
            "chain": [{"id": m, "text": nps[m]["text"]} for m in members
                      if m in nps and m != comp],
            "chain_id": cid, "verdicts": verdicts})
    return {"anchor": anchor, "anchor_text": nps[anchor]["text"], "rows": rows,
            "complements": [r["complement"] for r in rows]}


def link_summary(gold: list[list[Any]] | None, rels: list[list[str]]) -> dict[str, int]:
    g = {(a, c): set(p) for a, c, p in (gold or [])}
    pr = {(a, c): p for a, c, p in rels}
    right = sum(1 for pair, p in pr.items() if pair in g and p in g[pair])
    wrong = sum(1 for pair, p in pr.items() if pair in g and p not in g[pair])
    return {"gold": len(g), "predicted": len(pr), "correct": right, "wrong_preposition": wrong,
            "missing": sum(1 for pair in g if pair not in pr),
            "extra": sum(1 for pair in pr if pair not in g)}

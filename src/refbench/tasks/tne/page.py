"""The TNE document page's data: NPs with their chains coloured, and the selected NP's links,
gold and each system's, with missing, extra and wrong-preposition links marked."""

from __future__ import annotations

from typing import Any

from refbench.tasks.page import Mark, segment


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


def demo_payload(text: str, enriched: dict[str, Any]) -> dict[str, Any]:
    """A TNE document payload from an enrichment (the predicted links shown as its links)."""
    return {"view": "tne", "id": "demo", "text": text,
            "nps": [[n["id"], n["first_char"], n["last_char"], n["text"]]
                    for n in enriched["nps"]],
            "relations": [[r["anchor"], r["complement"], [r["preposition"]]]
                          for r in enriched["relations"]],
            "clusters": [], "source": "demo", "meta": {}}

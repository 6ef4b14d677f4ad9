"""What a TNE annotation page shows: the document with its NPs marked (nested NPs nested,
chains coloured), and the current step of stage 1 or stage 2.

The page never builds markup from text: it returns a tree of plain strings and NP nodes that
the template renders with autoescaping.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from refbench.studyfile.db import Item
from refbench.tasks.page import chain_look
from refbench.tasks.tne.annotation.study_chains import chain_type, chains, stage_answers

# Chain styles: 15 colours that stay apart from each other on white, then the same colours
# again with a different pattern (dashed, dotted, double underline; striped, dotted, barred
# swatch), so the first 60 chains of a document (TNE documents have at most ~55 NPs, hence
# chains) never share a look. Classes ``c<k>`` (colour) and ``p<k>`` (pattern), study.css.
N_COLOURS = 15
N_PATTERNS = 4


def chain_style(k: int) -> str:
    """CSS classes of the k-th chain of a document (in textual order)."""
    colour, pattern = chain_look(k, N_COLOURS, N_PATTERNS)
    return f"c{colour} p{pattern}"


def segments(text: str, nps: Sequence[dict[str, Any]]) -> list[Any]:
    """Text split into strings and ``{"np": id, "children": [...]}`` nodes; an NP that crosses
    another's boundary (rare) is left unmarked rather than breaking the nesting."""
    spans = sorted(((n["first_char"], n["last_char"], n["id"]) for n in nps),
                   key=lambda s: (s[0], -s[1]))

    def build(items: list[tuple[int, int, str]], lo: int, hi: int) -> list[Any]:
        out: list[Any] = []
        pos, i = lo, 0
        while i < len(items):
            start, end, np_id = items[i]
            if start < pos:
                i += 1
                continue
            if start > pos:
                out.append(text[pos:start])
            j, inner = i + 1, []
            while j < len(items) and items[j][0] < end:
                if items[j][1] <= end:
                    inner.append(items[j])
                j += 1
            out.append({"np": np_id, "children": build(inner, start, end)})
            pos, i = end, j
        if pos < hi:
            out.append(text[pos:hi])
        return out

    return build(spans, 0, len(text))


def _next_unit(ids: list[str], s1: dict[str, Any], s2: dict[str, Any]) -> tuple[int, str]:
    for x in ids:
        if x not in s1:
            return 1, x
    for x in ids:
        if not s2.get(x, {}).get("done"):
            return 2, x
    return 0, ""


def tne_page(item: Item, answers: dict[str, Any], args: dict[str, str],
             prepositions: list[str]) -> dict[str, Any]:
    nps = item.payload["nps"]
    ids = [n["id"] for n in nps]
    by_id = {n["id"]: n for n in nps}
    s1, s2 = stage_answers(answers, 1), stage_answers(answers, 2)
    rep = chains(ids, s1)
    reps = list(dict.fromkeys(rep[x] for x in ids if x in rep))
    colour = {r: chain_style(k) for k, r in enumerate(reps)}
    members: dict[str, list[str]] = {r: [] for r in reps}
    for x in ids:
        if x in rep:
            members[rep[x]].append(x)
    stage, current = _next_unit(ids, s1, s2)
    asked_stage, asked_np = args.get("stage", ""), args.get("np", "")
    if asked_np in by_id and asked_stage in ("1", "2") and (asked_stage == "1" or
                                                            len(s1) == len(ids)):
        stage, current = int(asked_stage), asked_np
    ctx: dict[str, Any] = {
        "segments": segments(item.payload["text"], nps), "stage": stage, "current": current,
        "np_class": {x: colour[rep[x]] if x in rep else "unanswered" for x in ids},
        "chain_of": {x: rep.get(x, "") for x in ids},
        "n_nps": len(ids), "s1_done": len(s1),
        "s2_done": sum(1 for v in s2.values() if v.get("done")),
    }
    if not current:
        return ctx
    k = ids.index(current)
    ctx.update({"np": by_id[current], "index": k + 1,
                "prev_np": ids[k - 1] if k > 0 else "",
                "next_np": ids[k + 1] if k + 1 < len(ids) else ""})
    def chain_row(r: str) -> dict[str, Any]:
        return {"rep": r, "colour": colour[r], "type": chain_type(r, s1),
                "mentions": [by_id[m]["text"] for m in members[r]], "ids": members[r]}

    if stage == 1:
        # Earlier chains as they stood before this NP: what "the same as" can point back to.
        earlier = [r for r in reps if ids.index(r) < k]
        ctx["chains"] = [{**chain_row(r), "mentions": [by_id[m]["text"] for m in members[r]
                                                       if ids.index(m) < k]} for r in earlier]
        ctx["answer"] = s1.get(current, {})
        ctx["same_rep"] = rep.get(s1.get(current, {}).get("same_as", ""), "")
        ctx["measure_hint"] = bool(by_id[current].get("measure"))
    else:
        links = s2.get(current, {}).get("links", {})
        chosen: dict[str, str] = {}
        for member, prep in sorted(links.items(), key=lambda kv: ids.index(kv[0])):
            chosen.setdefault(rep[member], prep)
        ctx["chains"] = [{**chain_row(r), "prep": chosen.get(r, "no-relation")}
                         for r in reps if r != rep[current]]
        ctx["prepositions"] = prepositions
        ctx["done"] = bool(s2.get(current, {}).get("done"))
    return ctx

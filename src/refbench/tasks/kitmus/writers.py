"""Render one instance in one view as CoNLL-2012, e2e-coref jsonlines, GAP TSV or text.

Each writer returns a string for one document; the suite writer streams them to disk. Columns
of the CoNLL file are separated by single spaces (no fixed widths), so long document ids can
never break the layout.
"""

from __future__ import annotations

from refbench.formats.conll2012 import format_conll
from refbench.formats.detok import detokenize
from refbench.formats.e2e_jsonlines import format_jsonlines
from refbench.formats.gap_tsv import format_row
from refbench.tasks.kitmus.instance import KitmusInstance

GAP_HEADER = ("ID\tText\tPronoun\tPronoun-offset\tA\tA-offset\tA-coref\tB\tB-offset\tB-coref"
              "\tURL\n")


Span3 = tuple[int, int, int]


def view_clusters(inst: KitmusInstance, view: str) -> tuple[list[int], list[list[Span3]]]:
    """Sentences of the view and, per entity, its mentions as (view sentence, start, end)."""
    sent_ids = inst.view_sentences(view)
    local = {s: k for k, s in enumerate(sent_ids)}
    clusters: list[list[Span3]] = []
    for e, ent in enumerate(inst.entities):
        spans = [(local[m.sentence], m.start, m.end) for m in ent.mentions if m.sentence in local]
        pm = inst.pronoun_mention
        if e == inst.answer and pm.sentence in local:
            spans.append((local[pm.sentence], pm.start, pm.end))
        clusters.append(sorted(spans))
    return sent_ids, clusters


def write_conll(inst: KitmusInstance, view: str) -> str:
    sent_ids, clusters = view_clusters(inst, view)
    return format_conll(inst.id, [inst.sentences[s].tokens for s in sent_ids], clusters)


def write_jsonlines(inst: KitmusInstance, view: str) -> str:
    sent_ids, clusters = view_clusters(inst, view)
    return format_jsonlines(inst.id, [[w for w, _ in inst.sentences[s].tokens] for s in sent_ids],
                            clusters)


def view_text(inst: KitmusInstance, view: str) -> tuple[str, dict[tuple[int, int], int]]:
    """Detokenised text of a view and the character offset of each (sentence, token)."""
    key = f"text:{view}"
    if key in inst.cache:
        return inst.cache[key]  # type: ignore[no-any-return]
    words: list[str] = []
    keys: list[tuple[int, int]] = []
    for s in inst.view_sentences(view):
        for i, (w, _) in enumerate(inst.sentences[s].tokens):
            words.append(w)
            keys.append((s, i))
    text, offsets = detokenize(words)
    inst.cache[key] = result = (text, dict(zip(keys, offsets, strict=True)))
    return result


def write_txt(inst: KitmusInstance, view: str) -> str:
    text, _ = view_text(inst, view)
    return f"{inst.id}\n{text}\n\n"


def write_gap(inst: KitmusInstance, view: str) -> str:
    """One GAP row: A and B are the first and second entity named in the meet sentence."""
    if inst.n_entities != 2 or view == "knowledge-text-only":
        raise ValueError("GAP rows exist only for 2-entity instances in views with the pronoun")
    text, offsets = view_text(inst, view)
    pm = inst.pronoun_mention
    cols = [inst.id, text, inst.sentences[pm.sentence].tokens[pm.start][0],
            str(offsets[(pm.sentence, pm.start)])]
    for e in inst.meet_order:
        m = inst.task_mention(e)
        name = " ".join(w for w, _ in inst.sentences[m.sentence].tokens[m.start:m.end + 1])
        cols += [name, str(offsets[(m.sentence, m.start)]), "TRUE" if e == inst.answer else "FALSE"]
    cols.append("none")
    return format_row(cols)

"""How hard is a KITMUS suite for a model that knows nothing but word similarity?

The *similarity probe* (FINDINGS.md): embed the pronoun's sentence (which carries the situation)
and ``"a <occupation>"`` for every candidate with all-MiniLM-L6-v2, and pick the candidate whose
occupation is most similar. It needs no training and no entity-specific reasoning beyond the
occupation; on the official KITMUS background-train test it is right 0.987 / 0.937 / 0.910 of
the time at 2 / 3 / 4 entities. A suite on which it scores far higher cues the occupation in
the situation's wording, and a background-pretrain model can ride that cue.

The probe reads every suite the same way: from the structure of the files, never from spelling.
The task text starts at the first sentence that mentions two or more entities (the meet
sentence, whose mentions are the candidates); the one mention after it is the pronoun (the
official release has entities called ``He`` or ``Her``, so a word list cannot tell them apart);
each candidate's occupation is the phrase after the last determiner of the knowledge sentence
that mentions that entity alone. refbench's native JSONL gives the same items from its explicit
fields, and a test checks that both routes agree.

The cue rate complements the probe: the share of instances whose pronoun sentence contains a
word sharing a root with the answer's occupation (and, for comparison, with a distractor's).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import comb
from pathlib import Path
from typing import Any, Protocol, cast

from tqdm import tqdm

from refbench.core.errors import RefbenchError
from refbench.core.inputs import format_name
from refbench.formats.conll2012 import ConllDocument, read_conll
from refbench.formats.detok import detokenize
from refbench.tasks.kitmus.generate.instances import Pools, generate_job
from refbench.tasks.kitmus.generate.resources import Resources
from refbench.tasks.kitmus.generate.roots import shares_root
from refbench.tasks.kitmus.generate.templates import fill
from refbench.tasks.kitmus.generate.variants import VARIANTS
from refbench.tasks.kitmus.instance import SUBTASK_DIR, KitmusInstance
from refbench.tasks.kitmus.native import read_native
from refbench.tasks.kitmus.structure import StructureError, locate

PROBE = "all-MiniLM-L6-v2 cosine between the pronoun's sentence and 'a <occupation>'"
# The probe on the official release's background-train (= background-pretrain) test split,
# measured with suite_difficulty (FINDINGS.md gives the same figures).
OFFICIAL_PROBE = {2: 0.987, 3: 0.937, 4: 0.9095}
_PUNCT_TAGS = frozenset({".", ",", ":", "``", "''"})
_FUNCTION_TAGS = frozenset({"DT", "IN", "CC", "TO", "PRP", "PRP$", "WRB", "MD", "RP", "POS",
                            *_PUNCT_TAGS})


class Encoder(Protocol):
    """Anything that embeds texts as L2-normalised rows (refbench's SentenceEncoder does)."""

    def encode(self, texts: Sequence[str]) -> Any: ...


@dataclass(frozen=True)
class ProbeItem:
    """What the probe sees of one instance: candidates in meet-sentence order."""

    doc_id: str
    sentence: tuple[tuple[str, str], ...]  # the pronoun's sentence, (word, tag)
    occupations: tuple[str, ...]
    answer: int

    @property
    def text(self) -> str:
        return detokenize([w for w, _ in self.sentence])[0]


def probe_option(occupation: str) -> str:
    """The text each candidate is represented by (FINDINGS.md: literally ``a <occupation>``)."""
    return f"a {occupation}"


# --- items from files ------------------------------------------------------------------------

def _occupation_phrase(tokens: Sequence[tuple[str, str]], mention_end: int) -> str | None:
    """The words after the sentence's last determiner that follows the entity mention."""
    dets = [i for i, (_, t) in enumerate(tokens) if t == "DT" and i > mention_end]
    if not dets:
        return None
    words = [w for w, t in tokens[dets[-1] + 1:] if t not in _PUNCT_TAGS]
    return " ".join(words) or None


def item_from_conll(doc: ConllDocument, *, path: Path | str) -> ProbeItem:
    """A probe item from a full-text CoNLL document, by structure alone (see module doc)."""
    refs = [(m.sentence, m.start, m.end, cid) for cid, ms in doc.clusters.items() for m in ms]
    try:
        found = locate(refs)
    except StructureError as exc:
        raise RefbenchError(str(exc), path=path, item=doc.doc_id) from None
    meet = found.meet_sentence
    clusters_in: dict[int, set[Hashable]] = {}
    for sentence, _, _, cluster in refs:
        clusters_in.setdefault(sentence, set()).add(cluster)
    order = [cast(int, m[3]) for m in found.candidates]  # CoNLL cluster ids
    if found.pronoun[3] not in order:
        raise RefbenchError("the pronoun's cluster has no mention in the meet sentence",
                            path=path, item=doc.doc_id)
    occupations = []
    for cid in order:
        own = [m for m in doc.clusters[cid]
               if m.sentence < meet and clusters_in[m.sentence] == {cid}]
        occ = _occupation_phrase(doc.sentences[own[0].sentence], own[0].end) if own else None
        if occ is None:
            raise RefbenchError("no knowledge sentence gives this entity's occupation (the probe "
                                "needs the full-text view)", path=path, item=doc.doc_id)
        occupations.append(occ)
    return ProbeItem(doc.doc_id, tuple(doc.sentences[found.pronoun[0]]), tuple(occupations),
                     order.index(found.pronoun[3]))


def item_from_instance(inst: KitmusInstance) -> ProbeItem:
    """A probe item from a generated instance's explicit fields."""
    return ProbeItem(inst.id, inst.sentences[inst.pronoun_mention.sentence].tokens,
                     tuple(inst.entities[e].occupation for e in inst.meet_order),
                     inst.meet_order.index(inst.answer))


def probe_file(variant_dir: Path, n: int, split: str) -> Path | None:
    """The file the probe reads for one subtask: full-text CoNLL, else native JSONL."""
    sub = variant_dir / f"subtask_{n}_ents"
    for rel in (f"full-text/{split}.v4_gold_conll", f"full-text/{split}.v4_gold_conll.gz",
                f"{split}.jsonl", f"{split}.jsonl.gz"):
        if (sub / rel).is_file():
            return sub / rel
    return None


def read_items(path: Path) -> list[ProbeItem]:
    name = format_name(path)
    if name.endswith(".jsonl"):
        return [item_from_instance(inst) for inst in read_native(path)]
    return [item_from_conll(doc, path=path) for doc in read_conll(path)]


# --- the probe -------------------------------------------------------------------------------

def default_encoder() -> Encoder:
    # The shared MiniLM encoder lives in nlp/, below tasks/ (imports point down).
    from refbench.nlp.encoder import SentenceEncoder

    return SentenceEncoder(max_length=128)


def probe_predictions(items: Sequence[ProbeItem], encoder: Encoder) -> list[int]:
    """The candidate index the similarity probe picks for every item (first one on a tie)."""
    if not items:
        return []
    texts = list(dict.fromkeys([*(it.text for it in items),
                                *(probe_option(o) for it in items for o in it.occupations)]))
    emb = encoder.encode(texts)
    row = {t: i for i, t in enumerate(texts)}
    out = []
    for it in items:
        q = emb[row[it.text]]
        sims = [float(emb[row[probe_option(o)]] @ q) for o in it.occupations]
        out.append(max(range(len(sims)), key=lambda k: (sims[k], -k)))
    return out


def _cue(item: ProbeItem, occupation: str) -> bool:
    return _sentence_cue(item.sentence, occupation)


@lru_cache(maxsize=65536)
def _sentence_cue(sentence: tuple[tuple[str, str], ...], occupation: str) -> bool:
    """Whether a content word of ``sentence`` shares a root with a word of ``occupation``
    (cached: a suite repeats few pronoun sentences and occupations)."""
    content = [w for w, t in sentence if t not in _FUNCTION_TAGS]
    return any(shares_root(o, w) for o in occupation.split() for w in content)


def profile_items(items: Sequence[ProbeItem], encoder: Encoder) -> dict[str, Any]:
    """Probe accuracy and cue rates of one subtask's items."""
    preds = probe_predictions(items, encoder)
    n = len(items)
    correct = sum(p == it.answer for p, it in zip(preds, items, strict=True))
    answer_cue = sum(_cue(it, it.occupations[it.answer]) for it in items)
    distractor_cue = sum(any(_cue(it, o) for k, o in enumerate(it.occupations) if k != it.answer)
                         for it in items)
    return {
        "instances": n,
        "probe_accuracy": round(correct / n, 4) if n else None,
        "chance": round(sum(1 / len(it.occupations) for it in items) / n, 4) if n else None,
        "answer_occupation_cue": round(answer_cue / n, 4) if n else None,
        "distractor_occupation_cue": round(distractor_cue / n, 4) if n else None,
    }


def suite_difficulty(
    root: str | Path,
    *,
    split: str = "test",
    variants: Iterable[str] | None = None,
    encoder: Encoder | None = None,
    progress: bool = False,
) -> dict[str, dict[int, dict[str, Any]]]:
    """The probe profile of every (variant, entities) subtask of a suite folder on disk.

    Works on refbench's suites and on the official release alike (variant folder names are
    kept as they are, e.g. the official ``background-train``).
    """
    base = Path(root)
    if not base.is_dir():
        raise RefbenchError("suite folder not found", path=base)
    wanted = set(variants) if variants is not None else None
    jobs: list[tuple[str, int, Path]] = []
    for sub in sorted(p for p in base.glob("*/subtask_*_ents") if p.is_dir()):
        m = SUBTASK_DIR.match(sub.name)
        if not m or (wanted is not None and sub.parent.name not in wanted):
            continue
        found = probe_file(sub.parent, int(m.group(1)), split)
        if found is not None:
            jobs.append((sub.parent.name, int(m.group(1)), found))
    if not jobs:
        raise RefbenchError(f"no full-text CoNLL or native JSONL files for split {split!r} "
                            "(expected <variant>/subtask_<n>_ents/full-text/<split>.v4_gold_conll "
                            "or <variant>/subtask_<n>_ents/<split>.jsonl)", path=base)
    enc = encoder if encoder is not None else default_encoder()
    out: dict[str, dict[int, dict[str, Any]]] = {}
    for variant, n, path in tqdm(jobs, desc="similarity probe", unit="file", disable=not progress):
        out.setdefault(variant, {})[n] = profile_items(read_items(path), enc) | {
            "file": str(path.relative_to(base))}
    return out


def generated_difficulty(
    res: Resources,
    pools: Pools,
    *,
    variants: Sequence[str],
    entities: Sequence[int],
    split: str,
    size: int,
    seed: int,
    encoder: Encoder | None = None,
    progress: bool = False,
    situation_sources: Sequence[str] = ("real",),
) -> dict[str, Any]:
    """The probe profile of a suite being generated (for its datasheet), from memory.

    Paired variants with the same occupation and situation sources show the probe the same
    sentences and occupations, so each such group is probed once. Only variants whose
    situations are real text are probed: fictional situation words carry no pretrained
    knowledge by construction, and encoding them would double the time ``kitmus generate``
    spends here (``suite_difficulty`` measures them on disk).
    """
    groups: dict[tuple[str, str], list[str]] = {}
    for name in variants:
        v = VARIANTS[name]
        if v.situation_source in situation_sources:
            groups.setdefault((v.occupation_source, v.situation_source), []).append(name)
    enc = encoder if encoder is not None else default_encoder()
    out = []
    with tqdm(total=len(groups) * len(entities), desc="similarity probe", unit="subtask",
              disable=not progress) as bar:
        for (occ, sit), names in groups.items():
            per_n = {}
            for n in entities:
                items = [item_from_instance(inst) for inst in generate_job(
                    res, pools, VARIANTS[names[0]], n=n, split=split, size=size, seed=seed)]
                per_n[str(n)] = profile_items(items, enc)
                bar.update()
            out.append({"variants": names, "occupations": occ, "situations": sit,
                        "entities": per_n})
    return {"probe": PROBE, "split": split, "groups": out,
            "official_background_pretrain": {str(k): v for k, v in OFFICIAL_PROBE.items()}}


def difficulty_section(stats: dict[str, Any]) -> list[str]:
    """DATASHEET.md lines for the probe profile in ``stats["difficulty"]`` (if computed)."""
    diff = stats.get("difficulty")
    head = ["## Difficulty: similarity probe", ""]
    if not diff or not diff["groups"]:
        why = "generated with --no-probe" if not diff else "no variant with real situations"
        return [*head, f"Not computed ({why}); `refbench kitmus difficulty DIR` probes any "
                "suite on disk.", ""]
    ents = sorted({n for g in diff["groups"] for n in g["entities"]}, key=int)
    official = diff["official_background_pretrain"]
    rows = ["| variants | " + " | ".join(f"{n} entities" for n in ents) + " |",
            "|---|" + "---|" * len(ents)]
    for g in diff["groups"]:
        cells = []
        for n in ents:
            p = g["entities"].get(n)
            cells.append("-" if p is None or p["probe_accuracy"] is None else
                         f"{p['probe_accuracy']:.3f} (cue {p['answer_occupation_cue']:.1%} / "
                         f"{p['distractor_occupation_cue']:.1%})")
        rows.append(f"| {', '.join(g['variants'])} | " + " | ".join(cells) + " |")
    return [
        *head,
        f"Share of {diff['split']} instances on which a model with no training picks the right",
        f"entity by {diff['probe']}",
        "(chance: 1 / entities). A high figure means that the situations give their occupations",
        "away by wording alone. The official KITMUS release scores "
        + " / ".join(f"{official[n]:g}" for n in sorted(official, key=int))
        + f" at {' / '.join(sorted(official, key=int))} entities",
        "(background-train test). Cue: share of instances whose pronoun sentence shares a word",
        "root with the answer's occupation / with a distractor's occupation. Variants with",
        "fictional situations are left out here (`refbench kitmus difficulty DIR` probes them).",
        "",
        *rows,
        "",
    ]


# --- the probe on a resource pool (for writing and filtering situations) ----------------------

def expected_accuracy(worse: int, others: int, n: int) -> float:
    """P(the answer beats n-1 distractors drawn from ``others``, ``worse`` of which score lower)."""
    return comb(worse, n - 1) / comb(others, n - 1) if others >= n - 1 else float("nan")


def pool_profile(
    res: Resources,
    *,
    encoder: Encoder,
    occupation_source: str = "real",
    situation_source: str = "real",
    rows: Sequence[int] | None = None,
    entities: Sequence[int] = (2, 3, 4),
) -> dict[str, Any]:
    """What the probe makes of every situation of a pool, without generating a suite.

    Each situation is put into every pronoun template with every pronoun (weighted as the
    generator draws them) and compared with every occupation of ``rows`` (default: all). An
    n-entity instance draws its occupations uniformly, so the chance that the probe is right
    when a row is the answer is exact: C(w, n-1) / C(|rows|-1, n-1), with w the number of other
    occupations it scores strictly below its own (a tie counts as a miss). The pool's figure is
    the mean over rows. ``closest_word`` is the situation's content word most similar to
    ``a <occupation>`` on its own: a near-synonym of the occupation shows up there.
    """
    chosen = list(range(res.n_occupations)) if rows is None else list(rows)
    occs = [" ".join(w for w, _ in res.occupations[occupation_source][i]) for i in chosen]
    sits = [res.situations[situation_source][i] for i in chosen]
    total_w = sum(p.weight for p in res.pronouns) * len(res.templates["pronoun"])
    sentences: list[list[tuple[str, float]]] = []
    for sit in sits:
        per = []
        for tpl in res.templates["pronoun"]:
            for p in res.pronouns:
                toks, _ = fill(tpl, {"pronoun": ((p.form, "PRP"),), "be": ((p.be, "VBD"),),
                                     "situation": sit})
                per.append((detokenize([w for w, _ in toks])[0], p.weight / total_w))
        sentences.append(per)
    words = [[w for w, t in sit if t not in _FUNCTION_TAGS] or [sit[0][0]] for sit in sits]
    options = [probe_option(o) for o in occs]
    texts = list(dict.fromkeys([*options, *(t for per in sentences for t, _ in per),
                                *(w for ws in words for w in ws)]))
    emb = encoder.encode(texts)
    index = {t: k for k, t in enumerate(texts)}
    opt_emb = emb[[index[o] for o in options]]
    out_rows: list[dict[str, Any]] = []
    for r, per in enumerate(sentences):
        acc = dict.fromkeys(entities, 0.0)
        rank = margin = 0.0
        mean_sims = [0.0] * len(chosen)
        for text, weight in per:
            sims = [float(x) for x in opt_emb @ emb[index[text]]]
            mean_sims = [m + weight * x for m, x in zip(mean_sims, sims, strict=True)]
            others = sims[:r] + sims[r + 1:]
            worse = sum(x < sims[r] for x in others)
            rank += weight * (1 + len(others) - worse)
            margin += weight * (sims[r] - max(others))
            for n in entities:
                acc[n] += weight * expected_accuracy(worse, len(others), n)
        nearest = max((k for k in range(len(chosen)) if k != r), key=lambda k: mean_sims[k])
        word_sims = [(float(emb[index[w]] @ opt_emb[r]), w) for w in words[r]]
        best_word = max(word_sims)
        out_rows.append({"row": chosen[r], "occupation": occs[r],
                         "situation": " ".join(w for w, _ in sits[r]),
                         "mean_rank": round(rank, 2), "margin": round(margin, 4),
                         "nearest_other": occs[nearest],
                         "closest_word": best_word[1],
                         "closest_word_similarity": round(best_word[0], 4),
                         "expected_accuracy": {n: round(a, 4) for n, a in acc.items()}})
    return {
        "occupations": len(chosen),
        "expected_accuracy": {n: round(sum(r["expected_accuracy"][n] for r in out_rows)
                                       / len(out_rows), 4) for n in entities},
        "max_closest_word_similarity": max(r["closest_word_similarity"] for r in out_rows),
        "rows": out_rows,
    }

"""Generate KITMUS instances from resource pools: pure functions, no I/O.

One generation job is ``(variant, number of entities, split)``. Its random stream is seeded by
``(seed, entities, split)`` only, so (1) a job's output never depends on which other jobs run,
and (2) the variants are paired: instance ``i`` of every variant has the same names, occupation
rows, answer, pronoun, location and templates; variants differ only in where the background
knowledge is and how fictional it is. That makes variant-to-variant differences directly
comparable.

Answer positions are balanced exactly (stratified, not drawn independently): within a job the
answer's entity index (its entity-knowledge sentence), its position in the meet sentence's
mention order (what the position baselines ``first``, ``last`` and ``nearest`` read) and its
position among the background-knowledge sentences each take every value ``size // n`` or
``size // n + 1`` times. Each comes from seeded permutations of ``range(n)``, one per block of
``n`` consecutive instances, so every prefix of a job is balanced too and a job's first
instances do not depend on its size. A position baseline scores chance by construction, in
every variant.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from refbench.core.errors import ResourceError
from refbench.core.types import Mention
from refbench.tasks.kitmus.generate.resources import Location, Resources, Tagged
from refbench.tasks.kitmus.generate.splits import NEVER_SHARED, minimum_pool, partition
from refbench.tasks.kitmus.generate.templates import Template, fill
from refbench.tasks.kitmus.generate.variants import Variant
from refbench.tasks.kitmus.instance import Entity, KitmusInstance, Sentence, Token

PRONOUN_TAG = "PRP"
# Bump when the same seed and resources give different instances (recorded in stats.json and
# compared by ``kitmus generate --skip-if-current``). 2: answer positions balanced exactly.
GENERATOR_VERSION = 2


@dataclass(frozen=True)
class SplitPools:
    """The items of every pool that one split may use."""

    names: list[str]
    occupations: list[int]
    locations: list[Location]
    noise: dict[str, list[int]]
    templates: dict[str, list[Template]]


@dataclass(frozen=True)
class Pools:
    splits: dict[str, SplitPools]
    shared: list[str]  # pools too small to split, used by every split


def build_pools(res: Resources, *, seed: int) -> Pools:
    shared: list[str] = []

    def part(items: list, pool: str) -> dict[str, list]:  # type: ignore[type-arg]
        out, is_shared = partition(items, seed=seed, pool=pool)
        if is_shared:
            shared.append(pool)
        return out

    names = part(list(res.names), "names")
    occs = part(list(range(res.n_occupations)), "occupations")
    kinds = sorted({loc.kind for loc in res.locations})
    locs: dict[str, list[Location]] = {s: [] for s in names}
    noise: dict[str, dict[str, list[int]]] = {s: {} for s in names}
    for kind in kinds:
        # Partition location *texts*, so entries that share a text (the official resources list
        # "the school reunion" twice) fall in one split and no location string crosses splits.
        texts = list(dict.fromkeys(_text(x.tokens) for x in res.locations if x.kind == kind))
        for split, chosen in part(texts, f"locations:{kind}").items():
            keep = set(chosen)
            locs[split].extend(x for x in res.locations
                               if x.kind == kind and _text(x.tokens) in keep)
        for split, idx in part(list(range(len(res.noise[kind]))), f"noise:{kind}").items():
            noise[split][kind] = idx
    tpls = {kind: part(list(items), f"templates:{kind}") for kind, items in res.templates.items()}
    return Pools(
        splits={
            s: SplitPools(names[s], occs[s], locs[s], noise[s],
                          {kind: tpls[kind][s] for kind in tpls})
            for s in names
        },
        shared=shared,
    )


def check_job(res: Resources, pools: Pools, variant: Variant, n: int, split: str) -> None:
    """Fail early, before anything is written, when a job cannot be generated."""
    sp = pools.splits[split]
    if variant.occupation_source not in res.occupations:
        raise ResourceError(f"variant {variant.name} needs occupations of kind "
                            f"{variant.occupation_source!r}, which the resources lack",
                            path=res.source)
    if variant.situation_source not in res.situations:
        raise ResourceError(f"variant {variant.name} needs situations of kind "
                            f"{variant.situation_source!r}, which the resources lack",
                            path=res.source)
    if n not in res.mention_templates:
        raise ResourceError(f"no mention template for {n} entities", path=res.source)
    sizes = {"names": (len(res.names), len(set(sp.names))),
             "occupations": (res.n_occupations, len(sp.occupations))}
    for pool in NEVER_SHARED:
        total, here = sizes[pool]
        if pool in pools.shared or here < n:
            least = minimum_pool(n, split)
            raise ResourceError(
                f"too few {pool}: the {pool} pool has {total}, too few to keep the splits "
                f"disjoint ({n}-entity instances of the {split} split need {n} {pool} of "
                f"their own): it needs at least {least} (45% train, 10% validation, 45% test)",
                path=res.source)
    if not sp.locations:
        raise ResourceError(f"no locations left for the {split} split", path=res.source)


def _text(tokens: Tagged) -> str:
    return " ".join(w for w, _ in tokens)


def _m(sentence: int, span: tuple[int, int]) -> Mention:
    return Mention(sentence, span[0], span[1] - 1)


class _NameTokens(dict[str, tuple[tuple[str, str], ...]]):
    """A name's tokens (each word an NNP), made when the name is first drawn."""

    def __missing__(self, name: str) -> tuple[tuple[str, str], ...]:
        out = self[name] = tuple((w, "NNP") for w in name.split())
        return out


def _order_with(rng: random.Random, n: int, item: int, position: int) -> tuple[int, ...]:
    """A random order of ``range(n)`` with ``item`` at ``position``."""
    rest = [e for e in range(n) if e != item]
    rng.shuffle(rest)
    rest.insert(position, item)
    return tuple(rest)


def generate_job(
    res: Resources, pools: Pools, variant: Variant, *, n: int, split: str, size: int, seed: int
) -> Iterator[KitmusInstance]:
    """Yield ``size`` instances of one job, deterministically."""
    check_job(res, pools, variant, n, split)
    sp = pools.splits[split]
    rng = random.Random(f"kitmus-job:{seed}:{n}:{split}")
    occ_names = res.occupations[variant.occupation_source]
    situations = res.situations[variant.situation_source]
    weights = [p.weight for p in res.pronouns]
    name_tokens = _NameTokens()
    # Texts and sentences that depend only on pool items are made once per job.
    occ_text = [_text(o) for o in occ_names]
    sit_text = [_text(x) for x in situations]
    loc_text = {id(x): _text(x.tokens) for x in sp.locations}
    bg_sentences: dict[tuple[int, int], Sentence] = {}
    pron_filled: dict[tuple[int, str, str, int], tuple[tuple[Token, ...], Mention]] = {}
    blocks: tuple[list[int], list[int], list[int]] = ([], [], [])
    for index in range(size):
        # Draws happen in a fixed order and regardless of the variant (pairing).
        if index % n == 0:  # stratified positions: a permutation of range(n) per block
            blocks = (rng.sample(range(n), n), rng.sample(range(n), n), rng.sample(range(n), n))
        answer_block, meet_block, bg_block = blocks
        names = rng.sample(sp.names, n)
        occ_rows = rng.sample(sp.occupations, n)
        answer = answer_block[index % n]
        pron = rng.choices(res.pronouns, weights=weights)[0]
        location = rng.choice(sp.locations)
        noise_pool = sp.noise[location.kind]
        noise_idx = rng.choice(noise_pool) if noise_pool else None
        meet_order = _order_with(rng, n, answer, meet_block[index % n])
        bg_order = list(_order_with(rng, n, answer, bg_block[index % n]))
        t_meet = rng.choice(sp.templates["meet"])
        t_pron = rng.choice(sp.templates["pronoun"])
        t_ent = [rng.choice(sp.templates["entity_knowledge"]) for _ in range(n)]
        t_bg = [rng.choice(sp.templates["background_knowledge"]) for _ in range(n)]

        sentences: list[Sentence] = []
        mentions: list[list[Mention]] = [[] for _ in range(n)]
        for e in range(n):
            toks, spans = fill(t_ent[e], {"entity": name_tokens[names[e]],
                                          "occupation": occ_names[occ_rows[e]]})
            mentions[e].append(_m(len(sentences), spans["entity"]))
            sentences.append(Sentence("knowledge", "entity_knowledge", tuple(toks)))
        if variant.background_in_text:
            for e in bg_order:
                key = (id(t_bg[e]), occ_rows[e])
                bg = bg_sentences.get(key)
                if bg is None:
                    toks, _ = fill(t_bg[e], {"occupation": occ_names[occ_rows[e]],
                                             "situation": situations[occ_rows[e]]})
                    bg = bg_sentences[key] = Sentence("knowledge", "background_knowledge",
                                                      tuple(toks))
                sentences.append(bg)
        inner = fill(res.mention_templates[n],
                     {str(k): name_tokens[names[e]] for k, e in enumerate(meet_order)},
                     sentence_start=False)
        toks, spans = fill(t_meet, {"location": location.tokens, "mentions": inner})
        for k, e in enumerate(meet_order):
            mentions[e].append(_m(len(sentences), spans[str(k)]))
        sentences.append(Sentence("task", "meet", tuple(toks)))
        noise_text = None
        if variant.noise and noise_idx is not None:
            noise_tokens = res.noise[location.kind][noise_idx]
            noise_text = _text(noise_tokens)
            sentences.append(Sentence("task", "noise", noise_tokens))
        pkey = (id(t_pron), pron.form, pron.be, occ_rows[answer])
        filled = pron_filled.get(pkey)
        if filled is None:
            toks, spans = fill(t_pron, {"pronoun": ((pron.form, PRONOUN_TAG),),
                                        "be": ((pron.be, "VBD"),),
                                        "situation": situations[occ_rows[answer]]})
            filled = pron_filled[pkey] = (tuple(toks), _m(0, spans["pronoun"]))
        pron_mention = Mention(len(sentences), filled[1].start, filled[1].end)
        sentences.append(Sentence("task", "pronoun", filled[0]))

        yield KitmusInstance(
            id=f"kitmus/{variant.name}/subtask_{n}_ents/{split}:{index}",
            variant=variant.name,
            n_entities=n,
            split=split,
            index=index,
            sentences=tuple(sentences),
            entities=tuple(
                Entity(names[e], occ_text[occ_rows[e]], sit_text[occ_rows[e]],
                       tuple(mentions[e]))
                for e in range(n)
            ),
            answer=answer,
            pronoun=pron.form,
            pronoun_be=pron.be,
            pronoun_mention=pron_mention,
            meet_order=meet_order,
            location=loc_text[id(location)],
            location_kind=location.kind,
            noise=noise_text,
            noise_id=f"{location.kind}:{noise_idx}" if noise_text is not None else None,
            templates={
                "meet": (t_meet.template_id,),
                "pronoun": (t_pron.template_id,),
                "entity_knowledge": tuple(t.template_id for t in t_ent),
                "background_knowledge": (tuple(t_bg[e].template_id for e in bg_order)
                                         if variant.background_in_text else ()),
            },
        )

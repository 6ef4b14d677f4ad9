"""The built-in pools meet the issue's requirements, and bad resources fail clearly."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError
from refbench.tasks.kitmus.generate.official import load_official
from refbench.tasks.kitmus.generate.resources import BUILTIN_DIR, load_native, load_resources
from refbench.tasks.kitmus.generate.templates import REQUIRED_SLOTS
from tests.conftest import OFFICIAL, needs_shared

RES = load_resources()
FUNCTION_TAGS = {"DT", "IN", "CC", "TO", "RP", ".", ",", "PRP$", "CD"}
GENDER_AND_PEOPLE_CUES = {
    "he", "she", "they", "them", "their", "his", "her", "him", "hers", "ey", "ze", "em", "eir",
    "man", "men", "woman", "women", "boy", "girl", "lady", "ladies", "guy", "guys", "mother",
    "father", "sister", "brother", "wife", "husband", "mr", "mrs", "ms", "king", "queen",
    "i", "we", "you", "my", "our", "your",
}


def words(tokens) -> list[str]:  # type: ignore[no-untyped-def]
    return [w.lower() for w, _ in tokens]


def test_pool_sizes() -> None:
    assert 15_000 <= len(RES.names) <= 20_000
    assert len(set(RES.names)) == len(RES.names)
    assert RES.n_occupations == 60
    assert len(RES.locations) >= 100
    kinds = {loc.kind for loc in RES.locations}
    assert len(kinds) >= 12
    assert all(len(RES.noise[k]) >= 25 for k in kinds)
    assert all(len(RES.templates[t]) >= 3 for t in REQUIRED_SLOTS)
    assert {p.form: (p.be, p.weight) for p in RES.pronouns} == {
        "he": ("was", 0.4), "she": ("was", 0.4), "they": ("were", 0.1),
        "ey": ("was", 0.05), "ze": ("was", 0.05)}


def test_names_are_not_first_names() -> None:
    names_pkg = pytest.importorskip("names")
    folder = Path(names_pkg.__file__).parent
    first = set()
    for f in ("dist.male.first", "dist.female.first"):
        first |= {line.split()[0] for line in (folder / f).read_text().splitlines() if line}
    assert not {n.upper() for n in RES.names} & first
    assert all(n.isalpha() and len(n) >= 3 and n[0].isupper() for n in RES.names)


def test_noise_and_locations_carry_no_cues() -> None:
    occupation_words = {w for occ in RES.occupations["real"] for w in words(occ)}
    for kind, sentences in RES.noise.items():
        for sent in sentences:
            ws = set(words(sent))
            assert not ws & GENDER_AND_PEOPLE_CUES, (kind, ws & GENDER_AND_PEOPLE_CUES)
            assert not ws & occupation_words, (kind, ws & occupation_words)
    for loc in RES.locations:
        assert not set(words(loc.tokens)) & occupation_words, loc


def test_occupations_are_gender_neutral_and_situations_distinct() -> None:
    for occ in RES.occupations["real"]:
        for w in words(occ):
            assert not w.endswith(("man", "woman", "ess")), w
    content = [{w.lower() for w, t in sit if t not in FUNCTION_TAGS}
               for sit in RES.situations["real"]]
    for (i, a), (j, b) in itertools.combinations(enumerate(content), 2):
        assert len(a & b) / len(a | b) < 0.5, (i, j, a & b)
    for sit in RES.situations["real"]:
        assert sit[0][1] == "VBG", sit
        assert not set(words(sit)) & GENDER_AND_PEOPLE_CUES, sit


def test_fictional_pools() -> None:
    wordfreq = pytest.importorskip("wordfreq")
    occs = [occ[0][0] for occ in RES.occupations["charfict"]]
    assert len(set(occs)) == 60
    assert all(o.endswith("er") and wordfreq.zipf_frequency(o, "en") == 0 for o in occs)
    for (a, ta), (b, tb) in RES.situations["charfict"]:
        assert a.endswith("ing") and b.endswith("ly") and (ta, tb) == ("VBG", "RB")
        assert wordfreq.zipf_frequency(a, "en") == 0 and wordfreq.zipf_frequency(b, "en") == 0
    real = {tuple(words(s)) for s in RES.situations["real"]}
    for real_sit, fict in zip(RES.situations["real"], RES.situations["wordfict"], strict=True):
        assert tuple(words(fict)) not in real
        assert [t for _, t in fict] == [t for _, t in real_sit]  # same POS frame


def _copy_builtin(tmp_path: Path) -> Path:
    dst = tmp_path / "res"
    shutil.copytree(BUILTIN_DIR, dst)
    return dst


@pytest.mark.parametrize(
    ("rel", "mutate", "message", "line"),
    [
        ("occupations.tsv", lambda s: s.replace("\tfirefighter/NN\t", "\tfirefighter/NN\t\t", 1),
         "expected 6 tab-separated columns, found 7", 2),
        ("locations.tsv", lambda s: s.replace("the/DT dog/NN park/NN", "the/DT dog park/NN", 1),
         "token 'dog' is not of the form word/TAG", 3),
        ("templates.json", lambda s: s.replace("{entity} is/VBZ {a_an} {occupation}",
                                               "{entity} is/VBZ {a_an}", 1),
         "missing slot(s) {occupation}", None),
        ("pronouns.tsv", lambda s: s.replace("0.40", "forty", 1), "is not a number", 2),
    ],
)
def test_malformed_resources_name_file_and_line(tmp_path: Path, rel, mutate, message,
                                                line) -> None:  # type: ignore[no-untyped-def]
    root = _copy_builtin(tmp_path)
    path = root / rel
    path.write_text(mutate(path.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(RefbenchError) as info:
        load_native(root)
    assert message in info.value.message
    assert info.value.path is not None and info.value.path.endswith(rel)
    assert info.value.line == line


@needs_shared(OFFICIAL)
def test_official_layout_loads() -> None:
    res = load_resources(OFFICIAL / "resources")
    assert len(res.names) == 16928 and res.n_occupations == 60
    assert set(res.situations) == {"real", "charfict", "wordfict"}
    assert set(res.occupations) == {"real", "charfict"}
    assert len(res.templates["meet"]) == 14 and len(res.templates["pronoun"]) == 8


@needs_shared(OFFICIAL)
def test_official_malformed_tuple_line_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "official"
    shutil.copytree(OFFICIAL / "resources", root)
    p = root / "noise" / "beach.txt"
    lines = p.read_text(encoding="utf-8").splitlines()
    lines[2] = "[('The', 'DT'), __import__('os').system('echo pwned')]"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(RefbenchError) as info:
        load_official(root)
    assert info.value.path == str(p) and info.value.line == 3
    assert "not a list of (word, tag) tuples" in info.value.message

"""Format readers: hand-written good and bad inputs, and the official release when present."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError
from refbench.core.io import atomic_write, open_text
from refbench.core.types import Mention
from refbench.formats.conll2012 import read_conll
from refbench.formats.detok import detokenize
from refbench.formats.e2e_jsonlines import read_jsonlines
from refbench.formats.gap_tsv import read_gap
from tests.conftest import OFFICIAL, needs_shared

RELEASED = OFFICIAL / "released" / "background-train" / "subtask_2_ents"


def conll(*rows: str, begin: bool = True, end: bool = True) -> str:
    lines = ["#begin document (d1); part 000"] if begin else []
    for i, r in enumerate(rows):
        if r == "":
            lines.append("")
            continue
        word, coref = r.split()
        lines.append(f"d1 0 {i} {word} NN * - - - Speaker#1 * {coref}")
    if end:
        lines += ["", "#end document"]
    return "\n".join(lines) + "\n"


def test_conll_multi_token_and_stacked_mentions(tmp_path: Path) -> None:
    p = tmp_path / "a.conll"
    p.write_text(conll("Van (1|(2)", "Buren 1)", "met -", "", "him (2)"))
    (doc,) = read_conll(p)
    assert doc.clusters == {1: [Mention(0, 0, 1)], 2: [Mention(0, 0, 0), Mention(1, 0, 0)]}
    assert doc.words(Mention(0, 0, 1)) == "Van Buren"
    assert len(doc.sentences) == 2


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        (conll("a (1", "b -"), "cluster(s) 1 opened but never closed", 5),
        (conll("a 1)"), "cluster 1 closed but not open", 2),
        (conll("a -", end=False), "was not closed by #end document", 2),
        ("#begin document (d1); part 000\nd1 0 0 a NN -\n#end document\n",
         "expected at least 12 columns, found 6", 2),
        (conll("a (x)"), "bad coreference field", 2),
    ],
)
def test_conll_errors_name_the_line(tmp_path: Path, text: str, message: str, line) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "bad.conll"
    p.write_text(text)
    with pytest.raises(RefbenchError) as info:
        list(read_conll(p))
    assert message in info.value.message
    assert info.value.line == line and info.value.path == str(p)


def test_gap_offsets_are_checked(tmp_path: Path) -> None:
    header = "ID\tText\tPronoun\tPronoun-offset\tA\tA-offset\tA-coref\tB\tB-offset\tB-coref\tURL\n"
    p = tmp_path / "g.tsv"
    p.write_text(header + "x1\tAb and Cd met. She left.\tShe\t15\tAb\t0\tTRUE\tCd\t7\tFALSE\tn\n")
    (row,) = read_gap(p)
    assert (row.a, row.b_offset, row.a_coref) == ("Ab", 7, True)
    p.write_text(header + "x1\tAb and Cd met. She left.\tShe\t14\tAb\t0\tTRUE\tCd\t7\tFALSE\tn\n")
    with pytest.raises(RefbenchError) as info:
        list(read_gap(p))
    assert "Pronoun-offset 14 does not point at 'She'" in info.value.message
    assert info.value.line == 2 and info.value.item == "x1"


def test_jsonlines_span_outside_tokens(tmp_path: Path) -> None:
    p = tmp_path / "j.jsonlines"
    p.write_text('{"doc_key": "d", "sentences": [["a", "b"]], "clusters": [[[0, 0], [1, 2]]]}\n'
                 "not json\n")
    with pytest.raises(RefbenchError) as info:
        list(read_jsonlines(p))
    assert "lies outside the 2 tokens" in info.value.message and info.value.line == 1


def test_detokenize_offsets() -> None:
    text, offs = detokenize(["He", "said", '"', "hi", '"', ",", "(", "ok", ")", "/", "x", "'s"])
    assert text == 'He said "hi", (ok)/x\'s'
    assert [text[o] for o in offs] == ["H", "s", '"', "h", '"', ",", "(", "o", ")", "/", "x", "'"]


def test_gzip_round_trip_is_deterministic(tmp_path: Path) -> None:
    p = tmp_path / "x.txt.gz"
    with atomic_write(p) as fh:
        fh.write("hello\n")
    first = p.read_bytes()
    with atomic_write(p) as fh:
        fh.write("hello\n")
    assert p.read_bytes() == first and gzip.decompress(first) == b"hello\n"
    with open_text(p) as fh:
        assert fh.read() == "hello\n"
    assert [q.name for q in tmp_path.iterdir()] == ["x.txt.gz"]


@needs_shared(RELEASED)
def test_detokenizer_rebuilds_the_official_text() -> None:
    for view in ("full-text", "task-text-only", "knowledge-text-only"):
        with open_text(RELEASED / view / "test.txt.gz") as fh:
            lines = fh.read().split("\n")
        texts = {lines[i]: lines[i + 1] for i in range(0, len(lines) - 1, 3) if lines[i]}
        docs = list(read_conll(RELEASED / view / "test.v4_gold_conll.gz"))
        assert len(docs) == 2000
        for doc in docs:
            words = [w for s in doc.sentences for w, _ in s]
            assert detokenize(words)[0] == texts[doc.doc_id]


@needs_shared(RELEASED)
def test_official_gap_rows_read() -> None:
    rows = list(read_gap(RELEASED / "full-text" / "test.tsv.gz"))
    assert len(rows) == 2000 and all(r.a_coref != r.b_coref for r in rows)


def test_atomic_writes_get_ordinary_permissions(tmp_path: Path) -> None:
    import os
    import stat

    from refbench.core.io import commit_output_dir, prepare_output_dir

    umask = os.umask(0)
    os.umask(umask)
    p = tmp_path / "f.json"
    with atomic_write(p) as fh:
        fh.write("{}")
    assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~umask
    tmp = prepare_output_dir(tmp_path / "out", overwrite=False)
    commit_output_dir(tmp, tmp_path / "out")
    assert stat.S_IMODE((tmp_path / "out").stat().st_mode) == 0o777 & ~umask

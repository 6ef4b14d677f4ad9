"""The shared helpers every reader and writer relies on, worked by hand."""

from __future__ import annotations

import bz2
import gzip
import json
import math
from pathlib import Path

import pytest

from refbench.core.errors import OutputError, RefbenchError, UsageError
from refbench.core.invalid import InvalidInstances, reject
from refbench.core.io import (
    check_output_dir,
    check_output_file,
    contained_path,
    format_name,
    json_text,
    read_lines,
    read_text,
)
from refbench.core.options import Option, parse_key_values, parse_options
from refbench.core.records import Record, Where, check_int
from refbench.models.base import build_model, check_model_options

OPTS = (Option("seed", int, 0), Option("rate", float, 0.5, min=0),
        Option("head", str, "joint", choices=("joint", "binary")), Option("fast", bool, False),
        Option("workers", int, 1, min=1), Option("max_length", int, 8))


@pytest.mark.parametrize(("given", "want"), [
    ({"seed": "7"}, {"seed": 7}), ({"rate": "1e-3"}, {"rate": 0.001}),
    ({"fast": "yes"}, {"fast": True}), ({"head": "binary"}, {"head": "binary"}),
    ({"seed": 3}, {"seed": 3}), ({"max-length": "2"}, {"max_length": 2}),
])
def test_options_parse_to_typed_values(given: dict[str, object],
                                       want: dict[str, object]) -> None:
    assert parse_options("model m", OPTS, given) == want


@pytest.mark.parametrize(("given", "message"), [
    ({"seed": "abc"}, "option seed='abc' is not an integer"),
    ({"seed": True}, "is not an integer"), ({"seed": "1.5"}, "is not an integer"),
    ({"workers": "0"}, "is not an integer >= 1"), ({"rate": "nan"}, "is not a number >= 0"),
    ({"rate": "-1"}, "is not a number >= 0"), ({"head": "x"}, "is not one of joint, binary"),
    ({"fast": "perhaps"}, "is not true or false"),
    ({"colour": "red"},
     "has no option 'colour'; its options: fast, head, max_length, rate, seed, workers"),
])
def test_bad_options_are_usage_errors(given: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        parse_options("model m", OPTS, given)


def test_model_options_are_checked_before_a_model_is_built() -> None:
    assert check_model_options("random", {"seed": "4"}) == {"seed": 4}
    with pytest.raises(UsageError, match="its options: none"):
        check_model_options("first", {"seed": "4"})
    assert build_model("random", {"seed": "4"}).option("seed") == 4
    assert build_model("random").option("seed") == 0
    with pytest.raises(UsageError, match="expects key=value"):
        parse_key_values(("seed",), flag="--model-arg")


def test_records_name_file_line_item_field_and_expectation() -> None:
    rec = Record({"n": True, "xs": ["a", 3], "sub": {"k": "v"}}, Where("f.jsonl", 3, "doc1"))
    with pytest.raises(RefbenchError) as info:
        rec.integer("n", min=0)
    assert info.value.render() == ("error E400: f.jsonl:3: doc1: field 'n': expected an integer "
                                   ">= 0, found a boolean (true)")
    with pytest.raises(RefbenchError, match=r"field 'xs\[1\]': expected a string, found a "
                                            r"number \(3\)"):
        rec.strings("xs")
    with pytest.raises(RefbenchError, match=r"field 'sub\.k': expected an integer"):
        rec.record("sub").integer("k")
    with pytest.raises(RefbenchError, match="missing field 'nope'"):
        rec.raw("nope")
    assert rec.integer("absent", None) is None
    assert check_int("12", "x", Where(), numeric_text=True) == 12
    with pytest.raises(RefbenchError):
        check_int(1.5, "x", Where())


def test_compression_follows_the_name_and_gzip_is_recognised(tmp_path: Path) -> None:
    text = "a\nb\n"
    (tmp_path / "x.txt.gz").write_bytes(gzip.compress(text.encode()))
    (tmp_path / "x.txt.bz2").write_bytes(bz2.compress(text.encode()))
    (tmp_path / "gz-named-txt.txt").write_bytes(gzip.compress(text.encode()))
    for name in ("x.txt.gz", "x.txt.bz2", "gz-named-txt.txt"):
        assert read_text(tmp_path / name) == text
    assert format_name("a/test.jsonl.bz2") == "test.jsonl" == format_name("test.jsonl.gz")
    (tmp_path / "plain.gz").write_text(text)
    with pytest.raises(RefbenchError, match=r"named \.gz but not gzip-compressed"):
        read_text(tmp_path / "plain.gz")


def test_decoding_errors_name_the_line(tmp_path: Path) -> None:
    p = tmp_path / "x.txt"
    p.write_bytes(b"ok\nfine\n\xff bad\n")
    with pytest.raises(RefbenchError, match=r"x.txt: not UTF-8 text \(byte 0xff at line 3, "
                                            r"column 1\)"):
        list(read_lines(p))
    with pytest.raises(RefbenchError, match=r"byte 0xff at line 3, column 1"):
        read_text(p)


def test_paths_from_data_stay_inside_their_folder(tmp_path: Path) -> None:
    (tmp_path / "noise").mkdir()
    assert contained_path(tmp_path, "noise/a.txt") == tmp_path / "noise" / "a.txt"
    for bad in ("../x", "/etc/passwd", "noise/../../x", ""):
        with pytest.raises(RefbenchError, match="outside the resource folder"):
            contained_path(tmp_path, bad)


def test_output_checks(tmp_path: Path) -> None:
    assert check_output_file(tmp_path / "new" / "deeper" / "x.json")  # created when written
    (tmp_path / "d").mkdir()
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutputError, match="is a folder; expected a file path"):
        check_output_file(tmp_path / "d")
    with pytest.raises(OutputError, match="is a file, not a folder"):
        check_output_file(tmp_path / "f" / "x.json")
    with pytest.raises(OutputError, match="exists and is not a folder"):
        check_output_dir(tmp_path / "f")
    with pytest.raises(OutputError, match="cannot write here"):
        check_output_file("/proc/refbench/x.json")
    with pytest.raises(OutputError, match="not a regular file"):
        check_output_file("/dev/null")
    assert not list((tmp_path).glob(".refbench-probe*"))


def test_results_are_valid_json_even_with_undefined_figures() -> None:
    text = json_text({"a": math.nan, "b": [math.inf, 1.0], "c": {"d": -math.inf}})
    assert json.loads(text) == {"a": None, "b": [None, 1.0], "c": {"d": None}}


def test_skipped_instances_are_counted_and_named() -> None:
    with pytest.raises(RefbenchError):
        reject(None, RefbenchError("bad", path="f", line=2))
    got = InvalidInstances()
    reject(got, RefbenchError("bad answer", path="f", line=2), item="doc7")
    assert got.report() == {"n_skipped_invalid": 1, "skipped_invalid": [
        {"id": "doc7", "where": "f:2", "reason": "bad answer"}]}
    assert got.summary().startswith("skipped 1 malformed instance(s) (--skip-invalid): doc7")

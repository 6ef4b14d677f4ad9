"""A malformed instance among good ones: an error naming it (exit 2), or with --skip-invalid the
rest scored and the skipped ones counted and named in the output and the result JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.robustness.harness import invoke
from tests.robustness.support import make_support


@pytest.fixture(scope="module")
def support(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_support(tmp_path_factory.mktemp("support"))


def _break_jsonl(key: str, value: object) -> Callable[[str], str]:
    def change(text: str) -> str:
        lines = text.splitlines()
        obj = json.loads(lines[0])
        obj[key] = value
        lines[0] = json.dumps(obj)
        return "\n".join(lines) + "\n"
    return change


def _break_json(key: str, value: object) -> Callable[[str], str]:
    def change(text: str) -> str:
        data = json.loads(text)
        data[0][key] = value
        return json.dumps(data)
    return change


def _break_tsv_row(row: int, column: int, value: str) -> Callable[[str], str]:
    def change(text: str) -> str:
        lines = text.splitlines()
        cells = lines[row].split("\t")
        cells[column] = value
        lines[row] = "\t".join(cells)
        return "\n".join(lines) + "\n"
    return change


def _break_conll(text: str) -> str:
    lines = text.splitlines()
    first_token = next(i for i, x in enumerate(lines) if x and not x.startswith("#"))
    lines[first_token] = lines[first_token].rsplit(" ", 1)[0] + " (77"  # never closed
    return "\n".join(lines) + "\n"


# (task, support file, file name, how to break the first instance, what the error names)
CASES = [
    ("kitmus native", "kitmus.jsonl", "d.jsonl", _break_jsonl("answer", True), "d.jsonl:1"),
    ("kitmus conll", "kitmus.v4_gold_conll", "d.v4_gold_conll", _break_conll, "unbalanced"),
    ("gap", "gap.tsv", "d.tsv", _break_tsv_row(1, 3, "-5"), "d.tsv:2"),
    ("knowref json", "knowref.json", "d.json", _break_json("candidate0", 5), "instance 0"),
    ("knowref tsv", "knowref.tsv", "d.tsv", _break_tsv_row(1, 3, "2"), "d.tsv:2"),
    ("winograd", "wsc.jsonl", "d.jsonl", _break_jsonl("answer", "3"), "d.jsonl:1"),
    ("altentities", "alt.json", "d.json", _break_json("target_index", 5), "question 0"),
]


def _count(support: Path, name: str, tmp: Path) -> int:
    out = invoke(["run", "--model", "first", "--data", str(support / name), "--out",
                  str(tmp / "all"), "--no-store", "--json", "--quiet"], cwd=tmp, env={})
    assert out.code == 0, out.stderr
    return int(json.loads(out.stdout)["n"])


@pytest.mark.parametrize(("task", "valid", "name", "breaks", "names"), CASES,
                         ids=[c[0] for c in CASES])
def test_run_stops_or_skips_and_reports(support: Path, tmp_path: Path, task: str, valid: str,
                                        name: str, breaks: Callable[[str], str],
                                        names: str) -> None:
    data = tmp_path / name
    data.write_text(breaks((support / valid).read_text()))
    args = ["run", "--model", "first", "--data", str(data), "--no-store", "--quiet", "--json"]
    stop = invoke([*args, "--out", str(tmp_path / "stop")], cwd=tmp_path, env={})
    assert stop.code == 2 and names in stop.stderr and str(data) in stop.stderr
    assert not (tmp_path / "stop").exists()
    skip = invoke([*args, "--out", str(tmp_path / "skip"), "--skip-invalid"], cwd=tmp_path,
                  env={})
    assert skip.code == 0, skip.stderr
    metrics = json.loads(skip.stdout)
    assert metrics["n_skipped_invalid"] == 1 and len(metrics["skipped_invalid"]) == 1
    removed = (len(json.loads((support / valid).read_text())[0]["expressions"])
               if task == "altentities" else 1)  # a question holds several expressions
    assert metrics["n"] == _count(support, valid, tmp_path) - removed
    assert "skipped 1 malformed instance(s) (--skip-invalid)" in skip.stderr
    saved = json.loads((tmp_path / "skip" / "metrics.json").read_text())
    assert saved["n_skipped_invalid"] == 1 and saved["skipped_invalid"][0]["reason"]


@pytest.mark.parametrize(("task", "gold", "pred", "breaks"), [
    ("kitmus", "kitmus.jsonl", "kitmus-answers.jsonl", _break_jsonl("meet_order", [0, 0])),
    ("gap", "gap.tsv", "gap-system.tsv", _break_tsv_row(2, 6, "maybe")),
    ("knowref", "knowref.json", "knowref-answers.jsonl", _break_json("correct_candidate_idx", 9)),
    ("tne", "tne.jsonl", "tne-pred.jsonl", _break_jsonl("nps", "none")),
])
def test_evaluate_skip_invalid(support: Path, tmp_path: Path, task: str, gold: str, pred: str,
                               breaks: Callable[[str], str]) -> None:
    bad = tmp_path / ("g" + Path(gold).suffix)
    bad.write_text(breaks((support / gold).read_text()))
    if task == "knowref":
        data = json.loads(bad.read_text())
        data[0]["correct_candidate"] = None  # so the bad index decides
        bad.write_text(json.dumps(data))
    args = ["evaluate", "--task", task, "--gold", str(bad), "--pred", str(support / pred),
            "--json"]
    assert invoke(args, cwd=tmp_path, env={}).code == 2
    out = invoke([*args, "--skip-invalid", "--out", str(tmp_path / "r.json")], cwd=tmp_path,
                 env={})
    assert out.code == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["n_skipped_invalid"] == 1
    assert json.loads((tmp_path / "r.json").read_text())["skipped_invalid"][0]["where"]
    assert "WARNING: skipped 1 malformed instance(s)" in out.stderr


def test_skipping_resumes_at_the_next_conll_document(support: Path, tmp_path: Path) -> None:
    from refbench.core.invalid import InvalidInstances
    from refbench.formats.conll2012 import read_conll

    good = (support / "kitmus.v4_gold_conll").read_text()
    bad = tmp_path / "x.v4_gold_conll"
    bad.write_text(_break_conll(good) + good.replace("test:", "again:"))
    skipped = InvalidInstances()
    docs = list(read_conll(bad, on_invalid=skipped))
    n = good.count("#begin document")
    assert len(docs) == 2 * n - 1 and len(skipped) == 1
    assert "unbalanced" in skipped.skipped[0]["reason"]

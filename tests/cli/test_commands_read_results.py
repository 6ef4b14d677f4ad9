"""Issue 38's numbered defects (the non-web ones), each as it was found: every test here fails
on the commit before the Result type and passes after."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refbench.cli import app
from refbench.core.commands import run_guarded

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests" / "golden" / "kitmus-tiny"
SUB2 = TINY / "background-pretrain" / "subtask_2_ents" / "test.jsonl"
SHARED = ROOT.parent / "shared" / "data"
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data is absent")


def cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = run_guarded(app, [str(a) for a in args])
    got = capsys.readouterr()
    return code, got.out, got.err


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> str:
    code, out, err = cli(capsys, "run", *args, "--no-store", "--quiet")
    assert code == 0, err
    return out


def test_1_two_models_under_one_system_name(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "k-S1", tmp_path / "k-S2"
    run(capsys, "--model", "first", "--system", "S", "--data", SUB2, "--out", a)
    run(capsys, "--model", "random", "--system", "S", "--data", SUB2, "--out", b)
    code, out, err = cli(capsys, "evaluate", "--task", "kitmus", "--gold", SUB2, "--pred", a, b)
    assert code == 2 and "runs" not in out  # never averaged
    line = err.strip()
    assert "\n" not in line and "model first" in line and "model random" in line
    for order in ((a, b), (b, a)):  # report: two columns, named apart, in either order
        code, out, err = cli(capsys, "report", *order, "--ci")
        assert code == 0, err
        assert "S [first " in out and "S [random " in out


def test_3_report_of_a_limit_kitmus_run(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "--model", "first", "--data", SUB2, "--limit", "1", "--out", tmp_path / "first")
    metrics = json.loads((tmp_path / "first" / "metrics.json").read_text())
    assert metrics["pronoun_accuracy"] is not None
    assert metrics["data_coverage"] == {"n": 1, "of": 2, "by": "--limit"}
    code, out, err = cli(capsys, "report", tmp_path / "first", "--ci")
    assert code == 0, err
    assert "partial: 1 of 2" in out and "covers 1 of 2 instances" in err


@needs_shared
def test_4_evaluate_of_a_limit_run_prints_the_runs_figure(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = SHARED / "knowref" / "knowref_test.json"
    out = run(capsys, "--model", "first", "--data", gold, "--limit", "30", "--out",
              tmp_path / "kr")
    figure = next(x for x in out.splitlines() if x.strip().startswith("accuracy"))
    value = figure.split()[1]  # accuracy 0.433 over 30 instances with gold; ...
    assert "(partial: 30 of 1269 instances, --limit)" in out
    code, ev, err = cli(capsys, "evaluate", "--task", "knowref", "--gold", gold, "--pred",
                        tmp_path / "kr")
    assert code == 0, err
    assert f"Accuracy {value} on 30 instances" in ev
    assert "(partial: 30 of 1269 instances, --limit)" in ev
    assert "missing 1239" not in ev
    code, js, err = cli(capsys, "evaluate", "--task", "knowref", "--gold", gold, "--pred",
                        tmp_path / "kr", "--json")
    result = json.loads(js)
    run_metrics = json.loads((tmp_path / "kr" / "metrics.json").read_text())
    assert result["accuracy"] == run_metrics["accuracy"]
    assert result["data_coverage"] == run_metrics["data_coverage"]


@needs_shared
def test_4_winobias_limit_table_is_filled(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "--model", "first", "--data", SHARED / "winobias", "--limit", "50",
              "--out", tmp_path / "wb")
    rows = [x for x in out.splitlines() if x.startswith("| first |")]
    assert rows and all("| - | - |" not in x for x in rows)
    assert "partial: 200 of 1584 instances" in out
    assert "\\|" not in out and "1 runs" not in out


def test_5_lm_eval_limit_import_of_a_suite(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    from refbench.runs.lm_eval.export import export_lm_eval
    from tests.runs.lm_eval.lm_eval_fake import fake_run

    export_lm_eval(TINY, tmp_path / "tasks")
    samples = fake_run(tmp_path / "tasks", tmp_path / "lm")
    for p in samples:  # lm-eval --limit 1
        p.write_text(p.read_text().splitlines(keepends=True)[0])
    results = next((tmp_path / "lm").glob("results_*.json"))
    doc = json.loads(results.read_text())
    doc["config"]["limit"] = 1
    results.write_text(json.dumps(doc))
    code, out, err = cli(capsys, "results", "import-lm-eval", *samples, "--data", TINY,
                         "--out", tmp_path / "run", "--no-store")
    assert code == 0, err
    for m in (tmp_path / "run").rglob("metrics.json"):
        d = json.loads(m.read_text())
        assert d["n"] == 1 and d["pronoun_accuracy"] == d["accuracy"]
    suite = json.loads((tmp_path / "run" / "suite-results.json").read_text())
    assert suite["data_coverage"] == {"n": 4, "of": 8, "by": "lm-eval --limit"}
    assert "Partial: 4 of 8 instances (lm-eval --limit)" in out


def test_8_evaluate_warns_when_the_gold_differs(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "--model", "first", "--data", SUB2, "--out", tmp_path / "r")
    lines = SUB2.read_text(encoding="utf-8").splitlines(keepends=True)
    row = json.loads(lines[0])
    row["metadata"] = {**row.get("metadata", {}), "edited": True}
    gold = tmp_path / "test.jsonl"
    gold.write_text(json.dumps(row) + "\n" + "".join(lines[1:]), encoding="utf-8")
    code, _, err = cli(capsys, "evaluate", "--task", "kitmus", "--gold", gold, "--pred",
                       tmp_path / "r")
    assert code == 0
    warned = [x for x in err.splitlines() if "is not the data the run recorded" in x]
    assert len(warned) == 1 and str(gold) in warned[0]
    code, _, err = cli(capsys, "evaluate", "--task", "kitmus", "--gold", SUB2, "--pred",
                       tmp_path / "r")
    assert code == 0 and "is not the data the run recorded" not in err


@needs_shared
def test_11_evaluate_two_winograd_runs_hint_works(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    gold = SHARED / "winograd" / "wsc273.jsonl"
    run(capsys, "--model", "first", "--data", gold, "--out", tmp_path / "w1")
    run(capsys, "--model", "random", "--data", gold, "--out", tmp_path / "w2")
    code, _, err = cli(capsys, "evaluate", "--task", "winograd", "--gold", gold, "--pred",
                       tmp_path / "w1", tmp_path / "w2")
    assert code == 2 and "--system" not in err
    hint = err.split("compare them with ")[1].strip().split()
    assert hint[:2] == ["refbench", "report"]
    code, out, err = cli(capsys, *hint[1:])
    assert code == 0, err
    assert "first" in out and "random" in out


def test_9_the_store_is_never_found_in_a_folder_others_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import os

    from refbench.core.store_paths import default_store_path, find_store

    shared = tmp_path / "tmp"  # as the system's temporary folder: world-writable, sticky
    (shared / ".refbench").mkdir(parents=True)
    (shared / ".refbench" / "results.sqlite").write_bytes(b"someone else's")
    shared.chmod(0o1777)
    mine = shared / "me" / "work"
    mine.mkdir(parents=True)
    (shared / "me").chmod(0o755)
    monkeypatch.delenv("REFBENCH_STORE", raising=False)
    monkeypatch.chdir(mine)
    assert find_store(mine) is None
    assert default_store_path() == Path(".refbench") / "results.sqlite"
    code, _, err = cli(capsys, "run", "--model", "first", "--data", SUB2, "--out", "r",
                       "--quiet")
    assert code == 0, err
    assert f"store: {mine / '.refbench' / 'results.sqlite'}" in err
    code, _, err = cli(capsys, "results", "ls")
    assert code == 0 and f"store: {mine / '.refbench' / 'results.sqlite'}" in err
    # a project store of my own is found as git finds a repository
    (shared / "me" / ".refbench").mkdir()
    (shared / "me" / ".refbench" / "results.sqlite").write_bytes(b"")
    other = shared / "me" / "other"
    other.mkdir()
    assert find_store(other) == shared / "me" / ".refbench" / "results.sqlite"
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # a folder another user owns
        os.chown(shared / "me", 4242, 4242)
        assert find_store(other) is None


@needs_shared
def test_10_gap_slices_count_the_instances_with_gold(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "--model", "first", "--data", SHARED / "gap" / "gap-test.tsv", "--limit",
              "40", "--out", tmp_path / "gap")
    metrics = json.loads((tmp_path / "gap" / "metrics.json").read_text())
    with_gold = metrics["n_with_gold"]
    assert with_gold < metrics["n"] == 40
    by_pronoun = metrics["slices"]["pronoun"]
    assert sum(v["n"] for v in by_pronoun.values()) == with_gold
    assert f"over {with_gold} instances with gold" in out
    code, table, err = cli(capsys, "report", tmp_path / "gap")
    assert code == 0, err
    row = next(x for x in table.splitlines() if x.startswith("| first"))
    assert f"| {with_gold} |" in row and "| 40 |" not in row


def test_11_report_of_a_tne_predictions_file_says_how_to_score_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = ROOT / "tests" / "fixtures" / "tne" / "docs.jsonl"
    surface = tmp_path / "surface.jsonl"
    code, _, err = cli(capsys, "tne", "baseline", "surface", "--data", docs, "--out",
                       tmp_path / "run")
    assert code == 0, err
    surface.write_bytes((tmp_path / "run" / "predictions.jsonl").read_bytes())
    code, _, err = cli(capsys, "report", surface)
    assert code == 2 and "invalid JSON" not in err
    assert "predictions file" in err and "refbench evaluate --task" in err
    line = err.strip()
    assert "\n" not in line
    code, _, err = cli(capsys, "evaluate", "--task", "tne", "--gold", docs, "--pred", surface,
                       "--out", tmp_path / "result.json")
    assert code == 0, err
    code, _, err = cli(capsys, "report", tmp_path / "result.json")
    assert code == 0, err


def test_3_report_reads_an_old_limit_kitmus_run(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A --limit KITMUS run written before the fix (no pronoun_accuracy) still reports."""
    old = ROOT / "tests" / "fixtures" / "results" / "v0" / "kitmus-limit.json"
    (tmp_path / "first").mkdir()
    (tmp_path / "first" / "metrics.json").write_text(old.read_text())
    code, out, err = cli(capsys, "report", tmp_path / "first", "--ci")
    assert code == 0, err
    assert "partial: 1 of ?" in out and "| background-pretrain | 1.000" in out
    code, out, err = cli(capsys, "report", tmp_path / "first", "--json")
    assert code == 0, err
    got = json.loads(out)["results"][0]
    assert got["coverage"] == {"n": 1, "of": None, "by": ["--limit"], "partial": True}


def test_1_results_ls_names_two_systems_apart_and_marks_partial(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s.sqlite"
    for model, limit in (("first", []), ("random", ["--limit", "1"])):
        code, _, err = cli(capsys, "run", "--model", model, "--system", "S", "--data", SUB2,
                           "--out", tmp_path / model, "--store", store, "--quiet", *limit)
        assert code == 0, err
    code, out, err = cli(capsys, "results", "ls", "--store", store)
    assert code == 0 and f"store: {store}" in err
    assert "S [first " in out and "S [random " in out and "1 of 2 (partial)" in out

"""Every model figure quoted from ``benchmarks/results/manifest.json`` is reproduced by
``refbench evaluate`` from the committed, gzipped prediction files and the real gold in
``../shared/data`` (skipped when ``../shared`` is absent). The weights never enter git; these
files are how a reader checks a trained model's numbers without retraining it."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, SHARED, run_cli

RESULTS = ROOT / "benchmarks" / "results"
MANIFEST = json.loads((RESULTS / "manifest.json").read_text()) \
    if (RESULTS / "manifest.json").is_file() else {}


def test_every_recorded_file_is_listed_and_deterministic() -> None:
    listed = {v for e in MANIFEST.values() for k, v in e.items() if k in ("pred", "switched_pred")}
    on_disk = {p.relative_to(RESULTS).as_posix() for p in RESULTS.rglob("*.jsonl.gz")}
    assert listed == on_disk
    for rel in on_disk:
        head = (RESULTS / rel).read_bytes()[:10]
        assert head[4:8] == b"\0\0\0\0", f"{rel}: gzip header carries a timestamp"
        assert head[3] & 0x08 == 0, f"{rel}: gzip header carries a file name"
    for name, entry in MANIFEST.items():
        assert entry["made_by"].startswith("python benchmarks/"), name
        assert entry["expected"], name
        # What chose the model: a dev or validation split, or nothing (never the test split
        # unflagged: the one entry whose recipe was chosen by test-sample probes says so).
        chosen = entry["selected_on"]
        assert chosen.startswith(("dev", "validation", "none")), (name, chosen)
        if "test" in chosen:
            assert "not a held-out result" in chosen, name
        if entry["made_by"].startswith("python benchmarks/kitmus_head.py"):
            assert chosen == "validation" and "gold_first" not in entry, name
        if entry["task"] == "tne":  # best_prepositions keeps UPrep-Acc re-scorable
            assert "uprep_accuracy" in entry["expected"], name
        if entry["task"] == "kitmus":  # the gold is regenerated, not read from ../shared
            assert entry["gold"].startswith("kitmus-suite/") and "generated" in entry, name
        if "gold_first" in entry:  # only a regenerated split can be cut the same way
            assert "generated" in entry and entry["gold_first"] > 0, name


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_recorded_figures_are_reproduced_by_evaluate(name: str, tmp_path: Path) -> None:
    entry: dict[str, Any] = MANIFEST[name]
    if "generated" in entry:  # a KITMUS split: regenerated (default settings, same bytes)
        g = entry["generated"]
        r = run_cli("kitmus", "generate", "--out", str(tmp_path / "kitmus-suite"), "--variants",
                    g["variants"], "--entities", g["entities"], "--splits", g["splits"],
                    "--formats", g["formats"], "--no-probe", "--quiet")
        assert r.returncode == 0, r.stderr
        gold = tmp_path / entry["gold"]
        if "gold_first" in entry:  # a model scored on the split's first N instances only
            lines = gold.read_text(encoding="utf-8").splitlines(keepends=True)
            assert len(lines) > entry["gold_first"], name
            gold = tmp_path / f"first{entry['gold_first']}.jsonl"
            gold.write_text("".join(lines[: entry["gold_first"]]), encoding="utf-8")
    elif not (SHARED / "data").is_dir():
        pytest.skip(f"{SHARED / 'data'} not present")
    else:
        gold = SHARED / "data" / entry["gold"]
    args = ["evaluate", "--task", entry["task"], "--gold", str(gold),
            "--pred", str(RESULTS / entry["pred"]), "--json", "--bootstrap", "0"]
    if "switched_pred" in entry:
        args += ["--switched-pred", str(RESULTS / entry["switched_pred"])]
    r = run_cli(*args)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    if "switched" in got:  # KnowRef nests the switched copy's figures
        got = {**got, "switched_accuracy": got["switched"]["accuracy"]}
    for key, value in entry["expected"].items():
        assert got[key] == pytest.approx(value, abs=6e-5), (name, key)
    with gzip.open(RESULTS / entry["pred"], "rt") as fh:
        assert sum(1 for _ in fh) == got.get("n", got.get("n_documents"))


def test_train_all_lists_every_recorded_training_recipe() -> None:
    """``benchmarks/train_all.py`` (every recorded recipe again, on a GPU when one is lent)
    covers each training entry of the manifest, with ``--device cuda`` where a benchmark
    takes it; an unknown recipe is one error line, exit 2. Dry runs only: trainings are never
    tests."""
    import shlex
    import subprocess
    import sys

    script = ROOT / "benchmarks" / "train_all.py"
    r = subprocess.run([sys.executable, str(script), "--dry-run", "--device", "cuda"],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    lines = [shlex.split(x) for x in r.stdout.splitlines()]
    for name, entry in MANIFEST.items():
        if entry["selected_on"].startswith("none (untrained)"):
            continue
        made = shlex.split(entry["made_by"])[1:]
        assert any(x[1:len(made) + 1] == made for x in lines), name
    for x in lines:
        if x[1] in ("benchmarks/lm_ranker.py", "benchmarks/kitmus_head.py"):
            assert x[-2:] == ["--device", "cuda"], x
    bad = subprocess.run([sys.executable, str(script), "--only", "no-such-recipe"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and bad.stderr.startswith("error E100")

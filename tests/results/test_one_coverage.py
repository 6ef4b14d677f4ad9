"""One figure, one coverage: for random ``--limit`` subsets of every choice task's real release
in ``../shared/data``, ``run``, ``evaluate`` of the run's folder and ``report --json`` give the
same headline figures and the same coverage (n of N, why partial). Small limits keep it fast;
the limit of each case is drawn from its seed."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from refbench.cli import app
from refbench.core.commands import run_guarded
from tests.conftest import SHARED

REAL = SHARED / "data"
RELEASES: dict[str, Path] = {
    "kitmus": REAL / "kitmus-official" / "released" / "background-train" / "subtask_4_ents"
    / "full-text" / "test.jsonlines.gz",
    "gap": REAL / "gap" / "gap-test.tsv",
    "knowref": REAL / "knowref" / "knowref_test.json",
    "winograd": REAL / "winograd" / "wsc273.jsonl",
    "altentities": REAL / "altentities" / "recipes" / "test.json.gz",
    "winogender": REAL / "winogender" / "all_sentences.tsv",
    "winobias": REAL / "winobias" / "anti_stereotyped_type2.txt.test",
}
SEEDS = (0, 1)


def _json(capsys: pytest.CaptureFixture[str], *args: str | Path) -> dict[str, Any]:
    code = run_guarded(app, [str(a) for a in args])
    got = capsys.readouterr()
    assert code == 0, got.err
    result: dict[str, Any] = json.loads(got.out.strip().splitlines()[-1])
    return result


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/data is absent")
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("task_name", sorted(RELEASES))
def test_run_evaluate_and_report_agree_on_a_limit_subset(
        task_name: str, seed: int, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    from refbench.tasks.lookup import get_task

    data = RELEASES[task_name]
    if not data.is_file():
        pytest.skip(f"{data} is absent")
    limit = random.Random(f"{task_name}-{seed}").randint(2, 25)
    out = tmp_path / "run"
    run = _json(capsys, "run", "--model", "random", "--data", data, "--task", task_name,
                "--limit", limit, "--out", out, "--no-store", "--quiet", "--json")
    ev = _json(capsys, "evaluate", "--task", task_name, "--gold", data, "--pred", out,
               "--json")
    rep = _json(capsys, "report", out, "--json")["results"][0]
    headline = [k for k in (*get_task(task_name).headline_metrics, "accuracy")
                if run.get(k) is not None]
    assert headline
    for k in headline:
        assert ev[k] == run[k] == rep["figures"][k], k
    n_all = run["coverage_of"]
    assert run["n"] == limit < n_all
    assert run["partial_by"] == ["--limit"]
    assert (ev["n"], ev["coverage_of"], ev["partial_by"]) == (limit, n_all, ["--limit"])
    assert rep["coverage"] == {"n": limit, "of": n_all, "by": ["--limit"], "partial": True}
    assert ev["data_coverage"] == run["data_coverage"]

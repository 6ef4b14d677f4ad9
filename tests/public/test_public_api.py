"""refbench from Python (``import refbench``; issue 39): a release by name, the same run as
``refbench run``, one row per instance, the web compare page's p-values, errors raised."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, SHARED, needs_shared

DATA = SHARED / "data"
WSC = DATA / "winograd" / "wsc273.jsonl"


@pytest.fixture
def releases(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFBENCH_DATA_DIR", str(DATA))


@needs_shared(WSC)
def test_in_a_fresh_interpreter_load_run_and_a_row_per_instance(
        tmp_path: Path, cli: Any, releases: None) -> None:
    script = (
        "import sys, json, refbench\n"
        "heavy = [m for m in ('torch', 'pandas', 'matplotlib', 'numpy') if m in sys.modules]\n"
        "d = refbench.load('wsc273')\n"
        "r = refbench.run('first', 'wsc273', store=None, progress=False)\n"
        "df = r.to_pandas()\n"
        "print(json.dumps({'heavy': heavy, 'n': len(d), 'task': d.task.name,\n"
        "  'first': d[0].id, 'acc': r.figures['accuracy'], 'rows': len(df),\n"
        "  'columns': list(df.columns), 'cov': [r.coverage.n, r.coverage.of],\n"
        "  'ci': r.intervals['accuracy'], 'out': r.out_dir}))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=False, cwd=tmp_path, env=_env())
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.splitlines()[-1])
    assert got["heavy"] == []  # checked right after `import refbench`
    assert (got["n"], got["task"], got["rows"], got["cov"]) == (273, "winograd", 273, [273, 273])
    assert got["out"] is None and not list(tmp_path.iterdir())  # out=None keeps no files
    assert {"id", "gold", "answer", "scores", "score_0", "score_1", "correct"} \
        <= set(got["columns"])
    cmd = cli("run", "--model", "first", "--data", "wsc273", "--out", str(tmp_path / "cli"),
              "--json", "--no-store")
    assert cmd.returncode == 0, cmd.stderr
    single = json.loads(cmd.stdout)
    assert got["acc"] == single["accuracy"]
    assert got["ci"] == single["ci95"]["accuracy"]


def _env() -> dict[str, str]:
    import os

    return dict(os.environ, PYTHONPATH=str(ROOT / "src"), HF_HUB_OFFLINE="1")


@needs_shared(WSC)
def test_compare_gives_the_p_values_of_the_web_compare_page(tmp_path: Path,
                                                            releases: None) -> None:
    import refbench
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig
    from refbench.web.templating import pvalue

    store = tmp_path / "results.sqlite"
    runs = [refbench.run(m, "wsc273", out=tmp_path / m, store=store, progress=False)
            for m in ("first", "random", "last")]
    assert all(isinstance(r, refbench.Result) for r in runs)
    comparison = refbench.compare(runs)
    assert [(p.a, p.b) for p in comparison.pairs] == [("first", "random"), ("first", "last"),
                                                     ("random", "last")]
    app = create_app(ServeConfig(data=[WSC], run_dirs=[], store=store,
                                 index_dir=tmp_path / "index"))
    cat = app.config["CATALOG"]
    ds = next(iter(cat.datasets.values()))
    sids = {s.label: s.sid for s in cat.systems(ds)}
    query = "".join(f"&sys={sids[m]}" for m in ("first", "random", "last"))
    page = app.test_client().get(f"/compare/significance?data={ds.key}{query}")
    body = page.get_data(as_text=True)
    assert page.status_code == 200, body
    for cls, name in (("mcnemar", "mcnemar_p"), ("holm-mcnemar", "holm_mcnemar_p"),
                      ("holm-boot", "holm_bootstrap_p")):
        shown = re.findall(rf'class="num {cls}">(?:&lt; )?([^<]+)<', body)
        assert shown == [pvalue(getattr(p, name)) for p in comparison.pairs], cls
    frame = comparison.to_pandas()
    assert len(frame) == 3 and {"mcnemar_p", "bootstrap_p", "diff"} <= set(frame.columns)


@needs_shared(WSC)
def test_several_data_give_one_result_each_and_a_summary(tmp_path: Path,
                                                         releases: None) -> None:
    import refbench

    results = refbench.run("first", ["wsc273", "knowref:test"], limit=20, out=tmp_path,
                           store=None, progress=False)
    assert isinstance(results, list)
    assert [r.task for r in results] == ["winograd", "knowref"]
    assert [(r.coverage.n, r.coverage.of) for r in results] == [(20, 273), (20, 1269)]
    assert (tmp_path / "summary.json").is_file()
    table = refbench.report(tmp_path, format="latex")
    assert "knowref\\_test" in table and "(20 of 1269)" in table  # the model card
    assert "| first |" in refbench.report(results[0])


def test_errors_are_raised_as_the_command_line_s_lines(tmp_path: Path) -> None:
    import refbench

    with pytest.raises(refbench.RefbenchError, match="no such file"):
        refbench.load(str(tmp_path / "missing.jsonl"))
    with pytest.raises(refbench.RefbenchError, match="model"):
        refbench.run("no-such-model", str(tmp_path), store=None)
    with pytest.raises(refbench.RefbenchError, match="format"):
        refbench.report([], format="docx")


def test_python_dash_m_refbench_is_the_command() -> None:
    done = subprocess.run([sys.executable, "-m", "refbench", "--version"], capture_output=True,
                          text=True, check=False, env=_env())
    assert done.returncode == 0 and "refbench" in done.stdout

"""One figure, one coverage: for random subsets of every choice task's real release in
``../shared/data``, the figure and the coverage (n of N, why partial) are the same in the
command that made the run, ``evaluate`` of its folder, ``report --json``, the Python API
(``refbench.evaluate``) and the web app's JSON (``/runs/<id>.json``).

The subsets, each drawn from its case's seed:

- ``limit``: ``run --limit k`` (k from 2 to 25);
- ``shard``: one shard of ``run --limit k --shard i/2`` (k from 129 to 200: more than two of the
  runner's batches of 64), and ``results merge`` of both shards, which must give the figure and
  coverage one ``run --limit k`` gives;
- ``lm-eval-limit``: ``results import-lm-eval`` of lm-eval's samples of the first k documents
  (lm-eval's ``--limit k``; the samples are made as lm-eval writes them,
  :mod:`tests.runs.lm_eval.lm_eval_fake`). Not GAP: its release has instances without gold, which
  an lm-eval task cannot hold (``export lm-eval`` refuses them).

The model is ``random`` (no weights, milliseconds); a task's cases share one worker
(``xdist_group``), so its lm-eval export is made once."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.conftest import SHARED, cli_json

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
KINDS = ("limit", "shard", "lm-eval-limit")
NO_LM_EVAL = {"gap": "instances without gold: an lm-eval task cannot hold them"}


class Made(NamedTuple):
    """A run folder, what the command that made it printed (``--json``), and the coverage
    every consumer must give it: (n, of, why partial)."""

    folder: Path
    printed: dict[str, Any]
    coverage: tuple[int, int, list[str]]


def cases() -> Iterator[Any]:
    for task in sorted(RELEASES):
        for kind in KINDS:
            for seed in SEEDS:
                marks = [pytest.mark.xdist_group(f"coverage-{task}")]
                if kind == "lm-eval-limit" and task in NO_LM_EVAL:
                    marks.append(pytest.mark.skip(reason=NO_LM_EVAL[task]))
                yield pytest.param(task, kind, seed, id=f"{task}-{kind}-{seed}", marks=marks)


@pytest.fixture(scope="session")
def lm_eval_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Per task (made on first use): lm-eval's samples file of its whole release."""
    return {"root": tmp_path_factory.mktemp("lm-eval")}


def lm_eval_samples(task: str, data: Path, cache: dict[str, Path]) -> Path:
    from refbench.runs.lm_eval.export import export_lm_eval
    from tests.runs.lm_eval.lm_eval_fake import fake_run

    if task not in cache:
        root = cache["root"] / task
        export_lm_eval(data, root / "tasks")
        (cache[task],) = fake_run(root / "tasks", root / "lm")
    return cache[task]


def make(kind: str, task: str, data: Path, seed: int, root: Path,
         capsys: pytest.CaptureFixture[str], cache: dict[str, Path]) -> list[Made]:
    """The runs of one case (each checked by every consumer)."""
    rng = random.Random(f"{task}-{kind}-{seed}")
    run = ("run", "--model", "random", "--data", data, "--task", task, "--no-store", "--quiet",
           "--json")
    if kind == "limit":
        k = rng.randint(2, 25)
        printed = cli_json(capsys, *run, "--limit", k, "--out", root / "run")
        return [Made(root / "run", printed, (k, printed["coverage_of"], ["--limit"]))]
    if kind == "shard":
        k, mine = rng.randint(129, 200), rng.choice((1, 2))
        shards = [cli_json(capsys, *run, "--limit", k, "--shard", f"{i}/2", "--out",
                           root / f"shard{i}") for i in (1, 2)]
        assert sum(s["n"] for s in shards) == k
        merged = cli_json(capsys, "results", "merge", root / "shard1", root / "shard2",
                          "--out", root / "merged", "--no-store", "--json")
        whole = cli_json(capsys, *run, "--limit", k, "--out", root / "whole")
        same_figures(task, whole, merged)
        shard = shards[mine - 1]
        return [Made(root / f"shard{mine}", shard,
                     (shard["n"], shard["coverage_of"], ["--limit", "shard"])),
                Made(root / "merged", merged, (k, merged["coverage_of"], ["--limit"]))]
    k = rng.randint(2, 25)
    full = lm_eval_samples(task, data, cache)
    lm = root / "lm"
    lm.mkdir()
    samples = lm / full.name
    samples.write_text("".join(full.read_text(encoding="utf-8").splitlines(keepends=True)[:k]),
                       encoding="utf-8")
    (result,) = full.parent.glob("results_*.json")
    doc = json.loads(result.read_text(encoding="utf-8"))
    doc["config"]["limit"] = k
    (lm / result.name).write_text(json.dumps(doc), encoding="utf-8")
    printed = cli_json(capsys, "results", "import-lm-eval", samples, "--data", data, "--out",
                       root / "imported", "--no-store", "--json")
    return [Made(root / "imported", printed, (k, printed["coverage_of"], ["lm-eval --limit"]))]


def headline(task_name: str, result: dict[str, Any]) -> list[str]:
    from refbench.tasks.lookup import get_task

    keys = [k for k in (*get_task(task_name).headline_metrics, "accuracy")
            if result.get(k) is not None]
    assert keys, result
    return keys


def same_figures(task: str, a: dict[str, Any], b: dict[str, Any]) -> None:
    for k in headline(task, a):
        assert b[k] == a[k], k
    assert (b["n"], b["coverage_of"], b["partial_by"]) == (a["n"], a["coverage_of"],
                                                          a["partial_by"])


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/data is absent")
@pytest.mark.parametrize(("task_name", "kind", "seed"), list(cases()))
def test_every_consumer_gives_the_figure_and_coverage_of_a_random_subset(
        task_name: str, kind: str, seed: int, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], lm_eval_runs: dict[str, Path]) -> None:
    import refbench
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    data = RELEASES[task_name]
    if not data.is_file():
        pytest.skip(f"{data} is absent")
    made = make(kind, task_name, data, seed, tmp_path, capsys, lm_eval_runs)
    app = create_app(ServeConfig(data=[data], run_dirs=[m.folder for m in made],
                                 store=tmp_path / "none.sqlite", index_dir=tmp_path / "index"))
    client = app.test_client()
    rids = {r.predictions.parent: r.rid for r in app.config["CATALOG"].runs()}
    for m in made:
        n, n_all, by = m.coverage
        printed = m.printed
        assert (printed["n"], printed["coverage_of"], printed["partial_by"]) == (n, n_all, by)
        assert n < n_all and printed["data_coverage"]["n"] == n
        ev = cli_json(capsys, "evaluate", "--task", task_name, "--gold", data, "--pred",
                      m.folder, "--json")
        rep = cli_json(capsys, "report", m.folder, "--json")["results"][0]
        api = refbench.evaluate(m.folder, data, task=task_name)
        web = client.get(f"/runs/{rids[m.folder]}.json").get_json()
        for k in headline(task_name, printed):
            assert ev[k] == rep["figures"][k] == api.figures[k] == web[k] == printed[k], k
        same_figures(task_name, printed, ev)
        same_figures(task_name, printed, web)
        assert ev["data_coverage"] == web["data_coverage"] == printed["data_coverage"]
        assert rep["coverage"] == {"n": n, "of": n_all, "by": by, "partial": True}
        assert (api.coverage.n, api.coverage.of, list(api.coverage.by)) == (n, n_all, by)
        assert api.is_partial

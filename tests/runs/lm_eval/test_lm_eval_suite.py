"""`refbench results import-lm-eval SAMPLES... --data FOLDER`: lm-eval's run of the group that
`refbench export lm-eval --data FOLDER` wrote becomes the suite run folder `refbench run --data
FOLDER` writes. Checked with lm-eval itself on the tiny KITMUS suite (its per-task acc, the
native llm-loglik run), and on the real Winogender release folder (720 instances) with samples
in lm-eval's format made from a native run's scores."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from scripts.regen_golden import GOLDEN

from refbench.cli import app
from refbench.core.commands import run_guarded
from refbench.runs.lm_eval.docs import folder_tasks
from refbench.runs.lm_eval.export import export_lm_eval
from refbench.runs.store import Store
from tests.conftest import cli_json
from tests.runs.lm_eval.lm_eval_fake import STAMP, fake_run

WINOGENDER = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "winogender"
# What differs between two runs of one data set by two systems; everything else must not.
RUN_KEYS = {"model", "system", "model_fingerprint", "created", "out_dir", "predictions",
            "provenance", "lm_eval", "run_id", "n_cached", "uncached_batches", "store",
            "run_ids", "systems", "reader_options",
            "seal"}  # the seal covers the keys above too (checked wherever a record is read)


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def _predictions(folder: Path) -> dict[str, list[dict[str, Any]]]:
    return {str(p.parent.relative_to(folder)): [json.loads(x) for x in p.open()]
            for p in sorted(folder.rglob("predictions.jsonl"))}


def _same(a: Any, drop: frozenset[str] = frozenset()) -> Any:
    """A result or metrics without what names the system and where it went (and ``drop``)."""
    if isinstance(a, dict):
        return {k: _same(v, drop) for k, v in a.items() if k not in RUN_KEYS | drop}
    if isinstance(a, list):
        return [_same(v, drop) for v in a]
    return a


def test_lm_eval_group_run_imports_as_the_native_suite_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """lm_eval (its command line, SmolLM2) on the exported tiny KITMUS suite; the import
    equals lm-eval's own per-task acc and task hashes, and `refbench run --model llm-loglik`
    on the suite: same files, same answers, same table."""
    pytest.importorskip("lm_eval", reason="lm-eval is not installed (make setup)")
    exported = export_lm_eval(GOLDEN, tmp_path / "tasks")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    subprocess.run([sys.executable, "-m", "lm_eval", "--model", "hf", "--model_args",
                    exported["model_args"], "--include_path", str(tmp_path / "tasks"),
                    "--tasks", exported["group"], "--log_samples", "--output_path",
                    str(tmp_path / "lm"), "--device", "cpu", "--batch_size", "4"],
                   check=True, env=env, capture_output=True)
    samples = sorted((tmp_path / "lm").rglob("samples_*.jsonl"))
    lm = json.loads(next((tmp_path / "lm").rglob("results_*.json")).read_text())
    assert len(samples) == len(exported["tasks"]) == 4
    store = tmp_path / "store.sqlite"
    imported = cli_json(capsys, "results", "import-lm-eval", *samples, "--data", GOLDEN, "--out",
                    tmp_path / "imp", "--store", store, "--json")
    native = cli_json(capsys, "run", "--model", "llm-loglik", "--data", GOLDEN, "--out",
                  tmp_path / "native", "--store", store, "--json", "--quiet")
    _, subtasks, _ = folder_tasks(GOLDEN, "test")
    for sub in subtasks:
        metrics = json.loads((tmp_path / "imp" / sub.sub / "metrics.json").read_text())
        assert metrics["accuracy"] == pytest.approx(lm["results"][sub.name]["acc,none"])
        assert metrics["lm_eval"]["reported_accuracy"] == metrics["accuracy"]
        assert metrics["lm_eval_task_hash"] == lm["task_hashes"][sub.name]
    assert _files(tmp_path / "imp") == _files(tmp_path / "native")
    ours, theirs = _predictions(tmp_path / "imp"), _predictions(tmp_path / "native")
    for folder, preds in ours.items():
        assert [p["answer"] for p in preds] == [p["answer"] for p in theirs[folder]]
        assert [p["doc_hash"] for p in preds] == [p["doc_hash"] for p in theirs[folder]]
        assert all(abs(a - b) < 1e-3 for p, q in zip(preds, theirs[folder], strict=True)
                   for a, b in zip(p["scores"], q["scores"], strict=True))
    assert _same(imported) == _same(native)
    assert imported["systems"] == ["lm-eval:hf"] and imported["lm_eval"]["missing"] == []
    assert json.loads((tmp_path / "imp" / "suite-results.json").read_text()) == imported
    evaluated = cli_json(capsys, "evaluate", "--task", "kitmus", "--gold", GOLDEN, "--pred",
                     tmp_path / "imp", "--json", "--bootstrap", "0")
    assert [c["pronoun_accuracy"] for c in evaluated["cells"]] == \
        [c["pronoun_accuracy"] for c in imported["cells"]]
    with Store(store, readonly=True) as st:
        rows = st.runs()
    assert sorted(r["model"] for r in rows) == ["llm-loglik"] * 4 + ["lm-eval:hf"] * 4
    assert sorted(r["data"] for r in rows if r["model"] == "lm-eval:hf") == \
        sorted(r["data"] for r in rows if r["model"] == "llm-loglik")


def test_winogender_release_folder_round_trip(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The real release folder: export, lm-eval's samples of the group (made from a native
    run's scores), import: the same run folder, figures and evaluation as the native run."""
    if not (WINOGENDER / "all_sentences.tsv").is_file():
        pytest.skip("../shared/data/winogender is absent")
    exported = export_lm_eval(WINOGENDER, tmp_path / "tasks")
    native = cli_json(capsys, "run", "--model", "nearest", "--data", WINOGENDER, "--out",
                  tmp_path / "native", "--no-store", "--json", "--quiet")
    assert native["n"] == 720
    scores = {p["id"]: p["scores"] for preds in _predictions(tmp_path / "native").values()
              for p in preds}
    samples = fake_run(tmp_path / "tasks", tmp_path / "lm",
                       scores=lambda task, k, doc: scores[doc["id"]])
    assert [p.name for p in samples] == [f"samples_{exported['tasks'][0]}_{STAMP}.jsonl"]
    imported = cli_json(capsys, "results", "import-lm-eval", *samples, "--data", WINOGENDER,
                    "--out", tmp_path / "imp", "--no-store", "--json")
    lm = json.loads((tmp_path / "lm" / f"results_{STAMP}.json").read_text())
    assert imported["accuracy"] == native["accuracy"] == pytest.approx(
        lm["results"][exported["tasks"][0]]["acc,none"])
    assert _files(tmp_path / "imp") == _files(tmp_path / "native")
    # a log-likelihood run's extras, which the heuristic run lacks
    extras = frozenset({"accuracy_norm", "lm_eval_task_hash"})
    assert _same(imported, extras) == _same(native)
    assert imported["winogender"] == native["winogender"]
    evaluated = cli_json(capsys, "evaluate", "--task", "winogender", "--gold", WINOGENDER,
                     "--pred", tmp_path / "imp" / "all_sentences", "--json", "--bootstrap", "0")
    assert evaluated["accuracy"] == imported["accuracy"] and evaluated["n"] == 720


def test_allow_missing_and_renamed_samples(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """A subtask without samples is an error naming it unless --allow-missing (then it is
    listed and `evaluate --allow-missing` reads the rest); a renamed samples file is found by
    its hash in the results file beside it."""
    export_lm_eval(GOLDEN, tmp_path / "tasks")
    samples = fake_run(tmp_path / "tasks", tmp_path / "lm")
    args = ["results", "import-lm-eval", *map(str, samples[1:]), "--data", str(GOLDEN),
            "--out", str(tmp_path / "imp"), "--no-store"]
    assert run_guarded(app, args) == 2
    err = capsys.readouterr().err
    missing = samples[0].name.removeprefix("samples_").removesuffix(f"_{STAMP}.jsonl")
    assert f"no samples file for 1 of the 4 subtasks of {GOLDEN}: {missing};" in err
    assert "--allow-missing" in err and not (tmp_path / "imp").exists()
    result = cli_json(capsys, *args, "--allow-missing", "--json")
    assert result["lm_eval"]["missing"] == [missing] and len(result["cells"]) == 3
    evaluated = cli_json(capsys, "evaluate", "--task", "kitmus", "--gold", GOLDEN, "--pred",
                     tmp_path / "imp", "--json", "--bootstrap", "0", "--allow-missing")
    assert len(evaluated["cells"]) == 3
    renamed = samples[0].with_name("first-subtask.jsonl")
    samples[0].rename(renamed)
    result = cli_json(capsys, "results", "import-lm-eval", renamed, *samples[1:], "--data", GOLDEN,
                  "--out", tmp_path / "imp2", "--no-store", "--json")
    assert len(result["cells"]) == 4
    metrics = json.loads(next((tmp_path / "imp2").rglob("metrics.json")).read_text())
    assert metrics["lm_eval"]["model_args"] == "pretrained=fake"


def test_serve_shows_the_imported_suite_like_a_native_one(tmp_path: Path) -> None:
    """`refbench serve` over the suite: the imported lm-eval run is one system with a run per
    subtask, on the leaderboard and in the comparison with a native suite run."""
    from refbench.runs.lm_eval.suite import import_lm_eval_folder
    from refbench.runs.path import run_suite
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    export_lm_eval(GOLDEN, tmp_path / "tasks")
    samples = fake_run(tmp_path / "tasks", tmp_path / "lm")
    with Store(tmp_path / "store.sqlite") as st:
        import_lm_eval_folder(samples, GOLDEN, tmp_path / "imp", store=st)
        run_suite("first", GOLDEN, tmp_path / "native", store=st, progress=False)
    app = create_app(ServeConfig(data=[GOLDEN], store=tmp_path / "store.sqlite",
                                 index_dir=tmp_path / "index"))
    cat = app.config["CATALOG"]
    ds = next(d for d in cat.datasets.values() if d.path == GOLDEN)
    systems = {s.label: s for s in cat.systems(ds)}
    assert set(systems) == {"lm-eval:hf", "first"}
    assert len(systems["lm-eval:hf"].runs) == len(systems["first"].runs) == 4
    client = app.test_client()
    board = client.get("/leaderboard")
    assert board.status_code == 200 and "lm-eval:hf" in board.get_data(as_text=True)
    compare = client.get(f"/compare?data={ds.key}")
    assert compare.status_code == 200 and "lm-eval:hf" in compare.get_data(as_text=True)

"""lm-evaluation-harness both ways: `refbench export lm-eval` writes a task folder that lm-eval
loads and scores with the same choices as `refbench run --model llm-loglik`, with the same
per-document hashes; `refbench results import-lm-eval` turns lm-eval's samples into a run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scripts.regen_golden import GOLDEN

from refbench.cli import app
from refbench.core.commands import run_guarded
from refbench.runs.lm_eval.docs import lm_eval_doc
from refbench.runs.lm_eval.export import export_lm_eval
from refbench.runs.store import Store
from refbench.tasks.choices import read_choices
from tests.models.conftest import DATA


def test_export_cli_json_and_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tasks"
    assert run_guarded(app, ["export", "lm-eval", "--data", str(DATA["winograd"]), "--out",
                             str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["tasks"] == ["refbench_wsc_tiny"] and result["group"] is None
    assert "gguf_file=SmolLM2-135M-Instruct.Q4_1.gguf" in result["model_args"]
    yaml_text = (out / "refbench_wsc_tiny.yaml").read_text()
    assert "output_type: multiple_choice" in yaml_text and "doc_to_text: label" in yaml_text
    docs = [json.loads(line) for line in (out / "refbench_wsc_tiny.jsonl").open()]
    first = next(iter(read_choices(DATA["winograd"])))
    assert docs[0] == lm_eval_doc(first)[0]
    assert docs[0]["choices"][1].endswith("because the door")
    assert docs[0]["target"] == " was too wide." and docs[0]["label"] == first.gold
    assert "@inproceedings{levesque" in (out / "README.md").read_text()
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert run_guarded(app, ["export", "lm-eval", "--data", str(DATA["winograd"]), "--out",
                             str(out)]) == 0
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # deterministic
    assert run_guarded(app, ["export", "lm-eval", "--data", str(tmp_path / "none.jsonl"),
                             "--out", str(tmp_path / "x")]) == 2
    assert "error E400" in capsys.readouterr().err


def test_export_kitmus_suite_has_a_weighted_group(tmp_path: Path) -> None:
    result = export_lm_eval(GOLDEN, tmp_path / "k")
    assert result["group"] == "refbench_kitmus_tiny_test" and len(result["tasks"]) >= 2
    group = (tmp_path / "k" / f"{result['group']}.yaml").read_text()
    assert "weight_by_size: true" in group
    assert all(f"  - {t}\n" in group for t in result["tasks"])
    doc = json.loads((tmp_path / "k" / f"{result['tasks'][0]}.jsonl").open().readline())
    assert len(doc["choices"]) >= 2 and isinstance(doc["label"], int)


def test_lm_eval_scores_the_export_as_refbench_does(tmp_path: Path) -> None:
    """The end-to-end check: refbench run, lm_eval.simple_evaluate on the export, and the
    imported lm-eval run agree instance by instance (a handful of instances: CPU is shared)."""
    lm_eval = pytest.importorskip("lm_eval", reason="lm-eval is not installed (make setup)")
    from lm_eval.tasks import TaskManager
    from lm_eval.utils import handle_non_serializable

    from refbench.runs.lm_eval.samples import import_lm_eval
    from refbench.runs.runner import run_model

    data = DATA["winograd"]
    exported = export_lm_eval(data, tmp_path / "tasks")
    task = exported["tasks"][0]
    ours = run_model("llm-loglik", data, tmp_path / "run", progress=False)
    preds = [json.loads(line) for line in (tmp_path / "run" / "predictions.jsonl").open()]
    res = lm_eval.simple_evaluate(model="hf", model_args=exported["model_args"], tasks=[task],
                                  task_manager=TaskManager(include_path=str(tmp_path / "tasks")),
                                  log_samples=True, device="cpu", batch_size=4)
    samples = sorted(res["samples"][task], key=lambda s: s["doc_id"])
    assert len(samples) == len(preds)
    for s, p in zip(samples, preds, strict=True):
        scores = [float(r[0]) for r in s["filtered_resps"]]
        assert scores.index(max(scores)) == p["answer"]
        assert all(abs(a - b) < 1e-3 for a, b in zip(scores, p["scores"], strict=True))
        assert (s["doc_hash"], s["prompt_hash"], s["target_hash"]) == (
            p["doc_hash"], p["prompt_hash"], p["target_hash"])
    assert res["results"][task]["acc,none"] == pytest.approx(ours["accuracy"])
    log = tmp_path / "lm" / f"samples_{task}_2026-01-01T00-00-00.000000.jsonl"
    log.parent.mkdir()
    log.write_text("".join(json.dumps(s, default=handle_non_serializable) + "\n"
                           for s in samples))
    (log.parent / "results_2026-01-01T00-00-00.000000.json").write_text(json.dumps(
        {"config": {"model": "hf", "model_args": exported["model_args"]},
         "lm_eval_version": "0.4.13"}))
    with Store(tmp_path / "store.sqlite") as store:
        imported = import_lm_eval([log], data, tmp_path / "imported", store=store)
        row = store.get(imported["run_id"])
    assert imported["accuracy"] == pytest.approx(ours["accuracy"])
    assert imported["lm_eval"]["accuracy"] == pytest.approx(ours["accuracy"])
    assert imported["lm_eval_task_hash"] == ours["lm_eval_task_hash"]
    assert row["model"] == "lm-eval:hf" and row["metrics"]["lm_eval"]["version"] == "0.4.13"
    assert exported["model_args"] in row["metrics"]["lm_eval"]["model_args"]
    back = [json.loads(line) for line in (tmp_path / "imported" / "predictions.jsonl").open()]
    assert [b["answer"] for b in back] == [p["answer"] for p in preds]


def test_import_rejects_what_is_not_a_sample_log(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "samples.jsonl"
    bad.write_text('{"doc_id": 0}\n')
    code = run_guarded(app, ["results", "import-lm-eval", str(bad), "--data",
                             str(DATA["winograd"]), "--out", str(tmp_path / "o"), "--no-store"])
    assert code == 2
    err = capsys.readouterr().err
    assert f"{bad}:1" in err and "--log_samples" in err
    assert not (tmp_path / "o" / "predictions.jsonl").exists()

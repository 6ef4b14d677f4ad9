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


@pytest.mark.parametrize("template", ["substitution", "question"])
def test_lm_eval_scores_the_export_as_refbench_does(tmp_path: Path, template: str) -> None:
    """The end-to-end check: refbench run, lm_eval.simple_evaluate on the export, and the
    imported lm-eval run agree instance by instance (a handful of instances: CPU is shared),
    in the default template and in a question template."""
    lm_eval = pytest.importorskip("lm_eval", reason="lm-eval is not installed (make setup)")
    from lm_eval.tasks import TaskManager
    from lm_eval.utils import handle_non_serializable

    from refbench.runs.lm_eval.samples import import_lm_eval
    from refbench.runs.record import RunSettings
    from refbench.runs.runner import run_model

    data = DATA["winograd"]
    exported = export_lm_eval(data, tmp_path / "tasks", template=template)
    task = exported["tasks"][0]
    ours = run_model(RunSettings(model="llm-loglik", model_options={"template": template}),
                     data, tmp_path / "run", progress=False)
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
    assert row["metrics"]["lm_eval"].get("template", "substitution") == template


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


def test_a_template_export_round_trips_without_a_model(tmp_path: Path) -> None:
    """A question-template export names its template in each document (the default's
    documents are unchanged, so older exports and samples keep their hashes); lm-eval's
    samples of it import as that template (answers, hashes and length-normalised scores from
    the template's requests), and samples of two templates in one import are refused."""
    from refbench.core.errors import RefbenchError
    from refbench.models.llm import template_requests
    from refbench.runs.lm_eval.docs import instance_hashes
    from refbench.runs.lm_eval.samples import import_lm_eval
    from tests.runs.lm_eval.lm_eval_fake import fake_run, sample_row

    data = DATA["winograd"]
    instances = list(read_choices(data))
    assert "template" not in lm_eval_doc(instances[0])[0]
    export_lm_eval(data, tmp_path / "tasks", template="question")
    docs = [json.loads(line) for line in next((tmp_path / "tasks").glob("*.jsonl")).open()]
    assert {d["template"] for d in docs} == {"question"}
    assert [d["choices"] for d in docs] == [
        [cont for _, cont in template_requests(inst, "question")] for inst in instances]
    samples = fake_run(tmp_path / "tasks", tmp_path / "lm")
    imported = import_lm_eval(samples, data, tmp_path / "imported")
    assert imported["lm_eval"]["template"] == "question"
    back = [json.loads(line) for line in (tmp_path / "imported" / "predictions.jsonl").open()]
    want = instance_hashes(instances, "question")
    assert want is not None and want != instance_hashes(instances)
    assert [{k: b[k] for k in ("doc_hash", "prompt_hash", "target_hash")} for b in back] == want
    for b, d in zip(back, docs, strict=True):
        scores = [-float(len(c)) - 0.25 * k for k, c in enumerate(d["choices"])]
        assert b["scores"] == scores and b["answer"] == scores.index(max(scores))
        assert b["extra"]["scores_norm"] == [s / len(c) for s, c in zip(scores, d["choices"],
                                                                 strict=True)]
    mixed = tmp_path / "mixed.jsonl"
    rows = samples[0].read_text(encoding="utf-8").splitlines()
    plain = sample_row(0, lm_eval_doc(instances[0])[0], [-1.0, -2.0])  # the default's
    mixed.write_text("\n".join([json.dumps(plain), *rows[1:]]) + "\n", encoding="utf-8")
    with pytest.raises(RefbenchError, match="templates"):
        import_lm_eval([mixed], data, tmp_path / "mixed-run")

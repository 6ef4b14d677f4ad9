"""lm-eval's ``--log_samples`` output made without running lm-eval: for an exported task folder
and given per-choice scores, the ``samples_<task>_<timestamp>.jsonl`` lines and the
``results_<timestamp>.json`` that lm-eval 0.4 writes (field for field, as read from a real run
of the exported KITMUS suite: responses as strings, ``doc_hash`` / ``prompt_hash`` /
``target_hash``, ``acc``, per-task ``acc,none`` and ``task_hashes``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from refbench.runs.lm_eval.docs import doc_hashes, task_hash

STAMP = "2026-01-01T00-00-00.000000"
Scores = Callable[[str, int, dict[str, Any]], list[float]]


def length_scores(task: str, doc_id: int, doc: dict[str, Any]) -> list[float]:
    """Deterministic stand-in log-likelihoods: shorter choices score higher."""
    return [-float(len(c)) - 0.25 * k for k, c in enumerate(doc["choices"])]


def sample_row(doc_id: int, doc: dict[str, Any], scores: list[float]) -> dict[str, Any]:
    """One line of lm-eval's samples file for a multiple_choice document."""
    multiple_input = "target" in doc
    pairs = ([(c, doc["target"]) for c in doc["choices"]] if multiple_input
             else [(doc["query"], c) for c in doc["choices"]])
    best = max(range(len(scores)), key=lambda k: (scores[k], -k))
    return {"doc_id": doc_id, "doc": doc,
            "target": str(doc["target"] if multiple_input else doc["label"]),
            "arguments": {f"gen_args_{k}": {"arg_0": a, "arg_1": b}
                          for k, (a, b) in enumerate(pairs)},
            "resps": [[[str(s), "False"]] for s in scores],
            "filtered_resps": [[str(s), "False"] for s in scores],
            "filter": "none", "metrics": ["acc"], **doc_hashes(doc),
            "acc": float(best == doc["label"])}


def fake_run(tasks_dir: Path, out: Path, *, scores: Scores = length_scores,
             stamp: str = STAMP, model_args: str = "pretrained=fake") -> list[Path]:
    """Write lm-eval's output for every task of an exported folder into ``out``; returns the
    samples files (one per task, as ``lm_eval --log_samples`` writes them for a group)."""
    out.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {}
    hashes: dict[str, str] = {}
    paths = []
    for data in sorted(tasks_dir.glob("refbench_*.jsonl")):
        task = data.stem
        docs = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines()]
        rows = [sample_row(k, doc, scores(task, k, doc)) for k, doc in enumerate(docs)]
        path = out / f"samples_{task}_{stamp}.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                        encoding="utf-8")
        paths.append(path)
        results[task] = {"alias": task, "acc,none": sum(r["acc"] for r in rows) / len(rows)}
        hashes[task] = task_hash([{k: r[k] for k in ("doc_hash", "prompt_hash",
                                                     "target_hash")} for r in rows])
    (out / f"results_{stamp}.json").write_text(json.dumps(
        {"results": results, "task_hashes": hashes, "lm_eval_version": "0.4.13",
         "config": {"model": "hf", "model_args": model_args}}, indent=2), encoding="utf-8")
    return paths

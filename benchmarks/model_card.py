"""The model card at the scale of a lab: 1,000 recorded runs (40 systems x 25 data files,
synthetic run folders written here: a ``metrics.json`` each, as ``refbench run`` writes it, and
a one-line ``predictions.jsonl``), then

- ``cold_s``: read every run folder and build the card (``refbench report DIR --card``'s work);
- ``warm_s``: the same again in the same process (the files in the OS cache): the issue asks
  for under 1 s;
- ``render_s``: the card as Markdown, LaTeX, HTML and CSV;
- ``serve_first_page_s`` / ``serve_card_s``: ``refbench serve --runs DIR``'s app, its first
  page (the home page) and the model-card page, each the first request (under 2 s asked).

Prints one JSON line. ``python benchmarks/model_card.py [WORK]`` (default: a temporary
folder)."""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

SYSTEMS = 40
DATA_FILES = 25


def make_runs(root: Path) -> int:
    """Write the synthetic run folders under ``root`` (unless there); the number of runs."""
    n = 0
    for s in range(SYSTEMS):
        for d in range(DATA_FILES):
            folder = root / f"sys{s:02d}" / f"data{d:02d}"
            n += 1
            if (folder / "metrics.json").is_file():
                continue
            folder.mkdir(parents=True, exist_ok=True)
            size = 200 + 40 * d
            right = (size * (40 + s)) // 100 + d % 7
            metrics = {
                "schema": 2, "task": "winograd", "task_version": 1, "model": f"sys{s:02d}",
                "model_fingerprint": hashlib.sha256(f"sys{s}".encode()).hexdigest()[:24],
                "system": f"sys{s:02d}", "data": f"/synthetic/data{d:02d}.jsonl",
                "data_sha256": hashlib.sha256(f"data{d}".encode()).hexdigest(),
                "data_name": f"synthetic/data{d:02d}.jsonl", "split": "test", "n": size,
                "coverage_of": size, "partial_by": [], "n_with_gold": size,
                "accuracy": right / size,
                "ci95": {"accuracy": [0.0, 1.0], "resamples": 1000, "seed": 0},
                "created": f"2026-01-{1 + d % 28:02d}T00:00:00+00:00"}
            (folder / "metrics.json").write_text(json.dumps(metrics), encoding="utf-8")
            (folder / "predictions.jsonl").write_text(
                '{"id": "x-1", "answer": 0, "scores": [1.0, 0.0]}\n', encoding="utf-8")
    return n


def main(work: Path) -> dict[str, float | int]:
    from refbench.reporting.card_inputs import make_card

    root = work / "runs"
    runs = make_runs(root)
    t0 = time.perf_counter()
    card = make_card([root])
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    card = make_card([root])
    warm = time.perf_counter() - t0
    t0 = time.perf_counter()
    for fmt in ("md", "latex", "html", "csv"):
        card.render(fmt)
    render = time.perf_counter() - t0

    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    t0 = time.perf_counter()
    app = create_app(ServeConfig(run_dirs=[root], store=work / "empty.sqlite",
                                 index_dir=work / "index"))
    client = app.test_client()
    status = client.get("/").status_code
    first_page = time.perf_counter() - t0
    t0 = time.perf_counter()
    card_status = client.get("/card").status_code
    serve_card = time.perf_counter() - t0
    assert status == 200 and card_status == 200, (status, card_status)
    return {"runs": runs, "systems": len(card.systems), "benchmarks": len(card.benchmarks),
            "records": len(card.records()), "cold_s": round(cold, 3),
            "warm_s": round(warm, 3), "render_s": round(render, 3),
            "serve_first_page_s": round(first_page, 3), "serve_card_s": round(serve_card, 3)}


if __name__ == "__main__":
    if len(sys.argv) > 1:
        print(json.dumps(main(Path(sys.argv[1]))))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            print(json.dumps(main(Path(tmp))))

"""The cross-domain matrix (AltEntities Table 8): rows are what a model was trained on (a
domain or mixed), columns the domain it was tested on, cells accuracy; built from the runner's
results (run folders or the results store)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError


def _train_label(model_config: dict[str, Any]) -> str | None:
    arg = model_config.get("argument") or model_config.get("model_dir")
    domains = model_config.get("train_domains")
    if domains is None and arg:
        cfg = Path(str(arg)) / "config.json"
        if cfg.is_file():
            domains = json.loads(cfg.read_text()).get("train_domains")
    if not domains:
        return "zero-shot"
    return domains[0] if len(domains) == 1 else "mixed"


def matrix_from_metrics(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """``runs``: metrics objects of AltEntities runs (metrics.json or store rows)."""
    cells: dict[str, dict[str, dict[str, Any]]] = {}
    for m in runs:
        if m.get("task") != "altentities":
            continue
        cfg = dict(m.get("provenance", {}).get("model_config", {}))
        spec = str(m.get("model", ""))
        if spec.startswith("cross-encoder:"):
            cfg.setdefault("model_dir", spec.partition(":")[2])
        name = spec.partition(":")[0] + (f" {cfg['head']}" if cfg.get("head") else "")
        row = f"{_train_label(cfg)} ({name})"
        for domain, v in m.get("slices", {}).get("domain", {}).items():
            cells.setdefault(row, {})[domain] = {"accuracy": v["accuracy"], "n": v["n"]}
    if not cells:
        raise RefbenchError("no AltEntities runs found to build the matrix from")
    columns = sorted({d for r in cells.values() for d in r})
    for row_cells in cells.values():
        scored = [row_cells[d]["accuracy"] for d in columns if d in row_cells]
        row_cells["average"] = {"accuracy": sum(scored) / len(scored), "n": None}
    return {"columns": [*columns, "average"], "rows": cells}


def load_run_metrics(paths: list[Path]) -> list[dict[str, Any]]:
    out = []
    for p in paths:
        f = p / "metrics.json" if p.is_dir() else p
        if not f.is_file():
            raise RefbenchError("no metrics.json here", path=p)
        out.append(json.loads(f.read_text()))
    return out

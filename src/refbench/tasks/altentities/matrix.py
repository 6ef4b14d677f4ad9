"""The cross-domain matrix (AltEntities Table 8): rows are what a model was trained on (a
domain or mixed), columns the domain it was tested on, cells accuracy; built from the runner's
results (run folders or the results store)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.io import load_json_object
from refbench.core.records import Record, Where

_NONE = Record({}, Where())


def _train_label(model_config: dict[str, Any]) -> str | None:
    arg = model_config.get("argument") or model_config.get("model_dir")
    domains = model_config.get("train_domains")
    if domains is None and arg:
        cfg = Path(str(arg)) / "config.json"
        if cfg.is_file():
            domains = load_json_object(cfg, "model configuration").get("train_domains")
    if not domains:
        return "zero-shot"
    if not isinstance(domains, list) or not all(isinstance(d, str) for d in domains):
        raise RefbenchError(f"train_domains must be a list of domain names, not {domains!r}")
    return domains[0] if len(domains) == 1 else "mixed"


def matrix_from_metrics(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """``runs``: metrics objects of AltEntities runs (metrics.json or store rows)."""
    cells: dict[str, dict[str, dict[str, Any]]] = {}
    for m in runs:
        if m.get("task") != "altentities":
            continue
        rec = Record(m, Where(m.get("_path")))
        cfg = dict((rec.record("provenance", None) or _NONE).obj.get("model_config") or {})
        for domain in (rec.record("slices", None) or _NONE).obj.get("domain") or {}:
            cell = rec.record("slices").record("domain").record(domain)
            cell.integer("n", min=0)
            if cell.has("accuracy"):
                cell.number("accuracy")
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
    """The metrics.json of each run folder (or the file itself), each checked against its
    seal and its evidence (:func:`refbench.core.seal.check_record`): an edited record is
    refused, never put in the matrix."""
    from refbench.core.seal import check_record

    out = []
    for p in paths:
        f = p / "metrics.json" if p.is_dir() else p
        if p.is_dir() and not f.is_file():
            raise RefbenchError("no metrics.json here (not a run folder)", path=p)
        metrics = load_json_object(f, "run's metrics object")
        check_record(metrics, path=f, folder=f.parent if f.name == "metrics.json" else None)
        out.append({**metrics, "_path": str(f)})
    return out

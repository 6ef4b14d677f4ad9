"""TNE results as ordinary run folders: ``predictions.jsonl`` (refbench's TNE format, one line
per document) and the metrics ``refbench evaluate`` gives them, with what they are of (the
system: a baseline or a trained model and its fingerprint; the data: its path, content sha256
and split; the documents scored). The command line records them through
:mod:`refbench.runs.record` (the one writer of ``metrics.json`` and the store), so a TNE run
is listed, reported and served like every other run; the leaderboard format is an export
(``--leaderboard``, ``refbench tne convert``)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from refbench.core.provenance import provenance
from refbench.core.result import run_identity, run_place
from refbench.tasks.tne.predictions import TnePrediction, write_predictions
from refbench.tasks.tne.read import NPDocument

Pair = tuple[str, str]
PREDICTIONS = "predictions.jsonl"
LEADERBOARD = "leaderboard.jsonl"


def baseline_spec(name: str, seed: int) -> tuple[str, str]:
    """(model spec, fingerprint) of a deterministic baseline: its name, and its seed where the
    seed changes what it predicts (title-random)."""
    spec = f"tne-baseline:{name}"
    seeded = name == "title-random"
    fp = hashlib.sha256(f"{spec}|seed={seed if seeded else 0}".encode()).hexdigest()[:16]
    return spec, fp


def model_spec(directory: Path) -> tuple[str, str]:
    """(model spec, fingerprint) of a trained TNE model folder: the sha256 of its
    configuration and weights, so the same weights are one system wherever they lie."""
    h = hashlib.sha256()
    for f in sorted(p for p in directory.iterdir() if p.is_file()
                    and p.name != "checkpoint.pt" and p.suffix in (".json", ".pt", ".bin",
                                                                   ".safetensors")):
        h.update(f.name.encode())
        with f.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return f"tne-model:{directory}", h.hexdigest()[:16]


def tne_run_metrics(docs: Sequence[NPDocument], relations: Sequence[dict[Pair, str]],
                    data: Path, out: Path, *, model: str, fingerprint: str,
                    system: str | None = None, scores: Sequence[Any] | None = None,
                    leaderboard: bool = False, config: Mapping[str, Any] | None = None
                    ) -> dict[str, Any]:
    """Write ``out/predictions.jsonl`` (and ``out/leaderboard.jsonl`` with ``leaderboard``)
    and return the run's metrics, unsaved: the figures ``refbench evaluate`` gives these
    predictions on ``data`` (read back from the file written, so both are one computation),
    and the run's identities. Unlabelled data gives a run without figures."""
    from refbench.tasks.tne.metrics import evaluate_tne
    from refbench.tasks.tne.predictions import read_predictions
    from refbench.tasks.tne.task import TASK

    out.mkdir(parents=True, exist_ok=True)
    pred_path = out / PREDICTIONS
    kept = list(scores) if scores is not None else None
    write_predictions(docs, list(relations), pred_path, scores=kept)
    if leaderboard:  # the export; with scores, each pair's best preposition (UPrep-Acc)
        write_predictions(docs, list(relations), out / LEADERBOARD, leaderboard=True,
                          scores=kept)
    labelled = all(d.relations is not None for d in docs)
    metrics: dict[str, Any] = {"task": TASK.name, "labelled": labelled}
    if labelled:
        preds: dict[str, TnePrediction] = read_predictions(pred_path, {d.id: d for d in docs})
        metrics.update(evaluate_tne(docs, preds))
    prov = provenance({"data": [str(data.resolve())]})
    prov["model_config"] = dict(config or {})
    metrics.update(run_identity(model=model, system=system, fingerprint=fingerprint,
                                data=data, provenance=prov, task_version=TASK.version,
                                split=TASK.infer_split(data), created=prov["time"]))
    metrics["n"] = len(docs)
    metrics.update(run_place(out, PREDICTIONS))
    metrics["provenance"] = prov
    return metrics


def printed_figures(metrics: Mapping[str, Any]) -> str:
    """``labeled P / R / F1 77.3 / 12.0 / 20.8`` (percent, as ``refbench evaluate`` prints)."""
    keys = ("labeled_precision", "labeled_recall", "labeled_f1")
    if any(metrics.get(k) is None for k in keys):
        return "(unlabelled data: no figures)"
    return " / ".join(f"{100 * float(metrics[k]):.1f}" for k in keys)

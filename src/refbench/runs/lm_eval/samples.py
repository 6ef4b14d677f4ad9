"""``refbench results import-lm-eval``: an lm-evaluation-harness run (its ``--log_samples``
output) becomes a refbench run folder and store row, made by the same functions as
``refbench run`` makes them, so every refbench analysis (slices, bootstrap intervals, McNemar
comparisons in ``refbench serve``, paper tables) applies to lm-eval runs.

Each sample's ``filtered_resps`` holds one ``[log-likelihood, is_greedy]`` pair per choice; they
become the instance's per-candidate scores, and the answer is their argmax (lowest index on
ties, as lm-eval's ``numpy.argmax``). Samples are matched to the data file's instances by the
``id`` that ``refbench export lm-eval`` stores in every document (else by ``doc_id``, the
position in the file); a document whose ``doc_hash`` differs from the one refbench computes for
that instance was exported from other data or another refbench, and is an error.

A run made with lm-eval's ``--limit`` (recorded in its ``results_*.json``) has samples for the
first documents only: it becomes a partial run, recorded as refbench's own ``run --limit`` runs
are (``limit``) and with ``data_coverage`` (n of N instances) in its metrics, shown wherever the
run is printed. Samples that stop short with no such limit recorded are refused
(:mod:`refbench.runs.lm_eval.checks`, which also types every field of a sample).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from refbench.core.errors import RefbenchError
from refbench.core.inputs import json_type
from refbench.core.provenance import provenance
from refbench.core.result import run_identity, run_place
from refbench.core.types import ChoiceInstance
from refbench.models.base import ModelOutput, argmax
from refbench.models.llm import template_requests
from refbench.models.llm_templates import SUBSTITUTION
from refbench.runs.lm_eval.checks import check_coverage, check_sample
from refbench.runs.lm_eval.docs import logged_hashes, logged_template
from refbench.runs.record import as_result, now, run_coverage, save_run, write_predictions
from refbench.runs.store import Store
from refbench.tasks.base import Task
from refbench.tasks.choices import infer_task, read_choices


def read_samples(paths: Sequence[Path]) -> list[tuple[dict[str, Any], Path, int]]:
    """Every sample line of lm-eval's ``samples_*.jsonl`` files, with where it came from."""
    rows = []
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise RefbenchError(f"cannot read lm-eval samples ({exc})", path=path) from None
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                raise RefbenchError("not an lm-eval sample (invalid JSON)", path=path,
                                    line=n) from None
            if not isinstance(row, dict) or "doc_id" not in row or not isinstance(
                    row.get("filtered_resps"), list):
                raise RefbenchError("not an lm-eval sample (expected doc_id and filtered_resps;"
                                    " run lm_eval with --log_samples)", path=path, line=n)
            check_sample(row, path, n)
            rows.append((row, path, n))
    if not rows:
        raise RefbenchError("no lm-eval samples", path=paths[0])
    return rows


def _scores(row: dict[str, Any], path: Path, line: int, n_candidates: int) -> tuple[float, ...]:
    """Each choice's log-likelihood: lm-eval writes them as strings (``"-5.25"``), which may
    spell ``nan`` or ``inf``; those, booleans and anything else that is not a finite number
    are refused (predictions.jsonl must be valid JSON, and an undefined score has no answer)."""
    scores = []
    for k, resp in enumerate(row["filtered_resps"]):
        value = resp[0] if isinstance(resp, list | tuple) and resp else resp
        number = None
        if isinstance(value, int | float) and not isinstance(value, bool):
            number = float(value)
        elif isinstance(value, str):
            with contextlib.suppress(ValueError):
                number = float(value)
        if number is None:
            raise RefbenchError(f"filtered_resps[{k}] holds no log-likelihood, found "
                                f"{json_type(value)} (not a multiple_choice task?)",
                                path=path, line=line)
        if not math.isfinite(number):
            raise RefbenchError(f"filtered_resps[{k}]: the log-likelihood is {value!r}, not a "
                                "finite number; refbench cannot score or write it (the "
                                "predictions must be valid JSON): check the lm-eval run",
                                path=path, line=line)
        scores.append(number)
    if len(scores) != n_candidates:
        raise RefbenchError(f"{len(scores)} scored choices for an instance with {n_candidates} "
                            "candidates", path=path, line=line)
    return tuple(scores)


STAMP = re.compile(r"_(\d{4}-\d\d-\d\dT[\d\-.]+)\.jsonl$")
SAMPLES_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<stamp>\d{4}-\d\d-\d\dT[\d\-.]+)\.jsonl$")


def samples_task(path: Path) -> str | None:
    """The lm-eval task a samples file is of, from the name lm-eval gives it
    (``samples_<task>_<timestamp>.jsonl``), or None."""
    found = SAMPLES_NAME.match(path.name)
    return found.group("task") if found else None


def results_file(samples: Path) -> Path | None:
    """The ``results_*.json`` lm-eval wrote beside a samples file: the one with the same
    timestamp, else the only one there."""
    found = sorted(samples.parent.glob("results_*.json"))
    stamp = STAMP.search(samples.name)
    if stamp:
        found = [p for p in found if stamp.group(1) in p.name] or found
    return found[0] if len(found) == 1 else None


def run_info(samples: Sequence[Path]) -> dict[str, Any]:
    """lm-eval's model, model_args and version, from the ``results_*.json`` it wrote beside
    the samples, with its own accuracy of the samples' task (``reported_accuracy``)."""
    found = results_file(samples[0])
    if found is None:
        return {}
    try:
        results = json.loads(found.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    if not isinstance(results, dict):
        return {}
    config = results.get("config") or {}
    info = {"model": config.get("model"), "model_args": config.get("model_args"),
            "version": results.get("lm_eval_version"), "results": str(found),
            "task_hashes": results.get("task_hashes") or {}, "limit": config.get("limit")}
    task = samples_task(samples[0])
    reported = (results.get("results") or {}).get(task) if task else None
    if isinstance(reported, dict) and isinstance(reported.get("acc,none"), int | float):
        info["reported_accuracy"] = float(reported["acc,none"])
    return info


def match(instances: Sequence[ChoiceInstance], rows: list[tuple[dict[str, Any], Path, int]],
          data: Path) -> list[tuple[dict[str, Any], Path, int]]:
    """The sample of each instance, in the data file's order. lm-eval's ``--limit N`` scores
    the first N documents only: samples for exactly the first n instances are a partial run
    (the list is then n long); any other gap is an error naming the first instance missed."""
    from refbench.runs.lm_eval.docs import doc_hash, lm_eval_doc

    by_id: dict[str, tuple[dict[str, Any], Path, int]] = {}
    for row, path, line in rows:
        logged: dict[str, Any] = row["doc"] if isinstance(row.get("doc"), dict) else {}
        key = str(logged["id"]) if "id" in logged else f"#{row['doc_id']}"
        if key in by_id:
            raise RefbenchError(f"two samples for the same document ({key})", path=path,
                                line=line)
        by_id[key] = (row, path, line)
    out: list[tuple[dict[str, Any], Path, int]] = []
    missed: ChoiceInstance | None = None
    for k, inst in enumerate(instances):
        hit = by_id.get(inst.id) or by_id.get(f"#{k}")
        if hit is None:
            missed = missed or inst
            continue
        if missed is not None:  # a gap before this instance: not a --limit run
            raise RefbenchError(f"no lm-eval sample for this instance of {data} (later ones "
                                "have samples, so this is no --limit run)",
                                path=rows[0][1], item=missed.id)
        row, path, line = hit
        doc = row.get("doc")
        if isinstance(doc, dict):
            mine = doc_hash(lm_eval_doc(inst, logged_template(row))[0])
            # lm-eval's doc_hash of the document as logged: what the scores were computed on
            theirs = doc_hash(doc)
            if "doc_hash" in row and row["doc_hash"] != mine and "id" in doc:
                raise RefbenchError(f"this sample's document differs from instance {inst.id} "
                                    f"of {data} (doc_hash); export the data again",
                                    path=path, line=line)
            if "doc_hash" in row and row["doc_hash"] != theirs:
                raise RefbenchError("this sample's document does not hash to its doc_hash "
                                    "(the document was changed after lm-eval logged it); use "
                                    "lm-eval's samples file as written", path=path, line=line)
            if "id" in doc and theirs != mine:
                raise RefbenchError(f"this sample's document differs from instance {inst.id} "
                                    f"of {data}; export the data again and rerun lm-eval",
                                    path=path, line=line)
        out.append(hit)
    if len(by_id) != len(out):
        raise RefbenchError(f"{len(by_id)} samples for {len(instances)} instances of {data}"
                            + (f", {len(by_id) - len(out)} of them for no instance there"
                               if out else ""), path=rows[0][1])
    return out


class Prepared(NamedTuple):
    """lm-eval's samples of one data file, checked and turned into outputs, not yet written:
    a folder import checks every subtask before it writes any."""

    paths: list[Path]
    data: Path
    task: Task
    instances: list[ChoiceInstance]
    outputs: list[ModelOutput]
    hashes: list[dict[str, str]]
    lm_acc: list[float]
    info: dict[str, Any]
    total: int  # instances in the data file; more than len(instances) for a --limit run
    template: str  # the LLM template of the exported documents lm-eval scored


def prepare(samples: Sequence[str | Path], data: str | Path, *, task: Task | None = None,
            rows: list[tuple[dict[str, Any], Path, int]] | None = None) -> Prepared:
    """Match lm-eval's samples of ``data`` to its instances and read their scores."""
    paths, data = [Path(p) for p in samples], Path(data)
    task = task or infer_task(data)
    everything = list(read_choices(data, task=task))
    matched = match(everything, rows if rows is not None else read_samples(paths), data)
    info = run_info(paths)
    check_coverage(everything, len(matched), info, paths[0], data)
    instances = everything[:len(matched)]
    templates = {logged_template(row) for row, _, _ in matched}
    if len(templates) > 1:
        raise RefbenchError(f"these samples were scored with {len(templates)} LLM templates "
                            f"({', '.join(sorted(templates))}); import one template's samples "
                            "at a time", path=paths[0])
    template = templates.pop() if templates else SUBSTITUTION
    outputs, hashes, lm_acc = [], [], []
    for inst, (row, path, line) in zip(instances, matched, strict=True):
        scores = _scores(row, path, line, len(inst.candidates))
        lengths = [max(1, len(cont)) for _, cont in template_requests(inst, template)]
        norm = [s / n for s, n in zip(scores, lengths, strict=True)]
        outputs.append(ModelOutput(argmax(scores), scores,
                                   extra={"answer_norm": argmax(norm), "scores_norm": norm}))
        hashes.append(logged_hashes(row))
        if isinstance(row.get("acc"), int | float):
            lm_acc.append(float(row["acc"]))
    return Prepared(paths, data, task, instances, outputs, hashes, lm_acc, info,
                    len(everything), template)


def lm_eval_model(info: dict[str, Any], model: str | None, model_args: str | None
                  ) -> tuple[str, Any]:
    """lm-eval's model and model_args: as given, else from its results file."""
    return (model or info.get("model") or "unknown",
            model_args if model_args is not None else info.get("model_args"))


def import_lm_eval(samples: Sequence[str | Path], data: str | Path, out: str | Path, *,
                   store: Store | None = None, model: str | None = None,
                   model_args: str | None = None) -> dict[str, Any]:
    """Make a refbench run folder (and store row) from lm-eval's per-sample logs of ``data``."""
    return write_import(prepare(samples, data), out, store=store, model=model,
                        model_args=model_args)


def write_import(prep: Prepared, out: str | Path, *, store: Store | None = None,
                 model: str | None = None, model_args: str | None = None) -> dict[str, Any]:
    """Write the run folder (and store row) of prepared samples, as ``refbench run`` does."""
    out, data, paths, info = Path(out), prep.data, prep.paths, prep.info
    name, args = lm_eval_model(info, model, model_args)
    spec = f"lm-eval:{name}"
    lm_eval = {"model": name, "model_args": args, "version": info.get("version"),
               "samples": [str(p) for p in paths], "results": info.get("results"),
               "accuracy": sum(prep.lm_acc) / len(prep.lm_acc)
               if len(prep.lm_acc) == len(prep.instances) else None}
    if "reported_accuracy" in info:
        lm_eval["reported_accuracy"] = info["reported_accuracy"]
    hashes = prep.hashes
    metrics = write_predictions(out, prep.task, data, prep.instances, prep.outputs,
                                hashes=hashes if all(h["doc_hash"] for h in hashes) else None)
    if info.get("task_hashes"):
        lm_eval["task_hashes"] = info["task_hashes"]
    scored_as = ["lm-eval", name, args, lm_eval["version"]]
    if prep.template != SUBSTITUTION:  # the default leaves older imports' fingerprints alone
        lm_eval["template"] = prep.template
        scored_as.append(prep.template)
    fingerprint = hashlib.sha256(json.dumps(scored_as, default=str).encode()).hexdigest()[:24]
    prov = provenance({"data": [str(data.resolve())], "samples": [str(p) for p in paths]})
    partial = len(prep.instances) < prep.total
    if partial:  # lm-eval --limit: the first n instances, as refbench run --limit takes them
        metrics["data_coverage"] = {"n": len(prep.instances), "of": prep.total,
                                    "by": "lm-eval --limit"}
    metrics.update(run_identity(model=spec, fingerprint=fingerprint, data=data,
                                provenance=prov, task_version=prep.task.version,
                                split=prep.task.infer_split(data), created=now()))
    metrics.update({"limit": len(prep.instances) if partial else None,
                    "reader_options": {}, "n_cached": 0, "uncached_batches": 0})
    metrics.update(run_place(out))
    metrics["lm_eval"] = lm_eval
    metrics["provenance"] = prov
    metrics["provenance"]["model_config"] = {"name": "lm-eval", "model": name,
                                             "model_args": args, "version": lm_eval["version"]}
    coverage = run_coverage(len(prep.instances), n_in_data=prep.total, limit=None,
                            lm_eval_limit=partial)
    return save_run(as_result(metrics, coverage), out, store)

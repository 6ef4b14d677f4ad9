"""Benchmark: the TNE span-pair model (MiniLM encoder) trained on the TNE train split
(3,988 documents, ``train-reconstructed-v1.1.jsonl.gz``), the epoch and link threshold selected
on dev, scored on test and OOD: labeled and unlabeled P/R/F1, IPrep-Acc, UPrep-Acc. Prints one
JSON line with the training log (dev F1 and wall time per epoch).
Paper (Table 4, test): coupled-base 60.4 / 41.5 / 49.2, decoupled-base 11.8 / 68.5 / 20.1;
OOD F1 of coupled-large 34.7.

Training takes hours on a CPU; it resumes from DIR/checkpoint.pt, so run the same command again
after an interruption (or cut it into slices with --max-steps). With --eval-only, DIR is scored
as it is (the best epoch so far).

    python benchmarks/tne_model.py --out DIR [--head coupled] [--epochs 5] [--threads 1]
        [--max-steps N] [--eval-only] [--record NAME]

``--record NAME`` gzips the test and OOD predictions (the leaderboard format, with refbench's
``best_prepositions`` matrix so that UPrep-Acc can be re-scored too) to
``benchmarks/results/NAME/`` and lists them with these figures in
``benchmarks/results/manifest.json``, so that ``refbench evaluate`` reproduces them without the
model (see ``recorded.py``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from recorded import record, save_gz  # benchmarks/ is on the path when run as a script
from refbench.tasks.tne.metrics import evaluate_tne
from refbench.tasks.tne.models.model import TneModel
from refbench.tasks.tne.models.train import train_tne
from refbench.tasks.tne.predictions import TnePrediction, to_leaderboard
from refbench.tasks.tne.read import read_tne

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "tne"
# The paper's test-set rows for the two SpanBERT-base heads: Table 4 (labeled P/R/F1) and
# Table 6 (links P/R/F1, IPrep-Acc, UPrep-Acc); OOD is reported for coupled-large only (34.7 F1).
PAPER = {
    "coupled": {"system": "paper: coupled-base (SpanBERT-base)", "labeled_precision": 60.4,
                "labeled_recall": 41.5, "labeled_f1": 49.2, "unlabeled_precision": 76.4,
                "unlabeled_recall": 52.4, "unlabeled_f1": 62.2, "iprep_accuracy": 79.1,
                "uprep_accuracy": 50.7},
    "decoupled": {"system": "paper: decoupled-base (SpanBERT-base)", "labeled_precision": 11.8,
                  "labeled_recall": 68.5, "labeled_f1": 20.1, "unlabeled_precision": 71.1,
                  "unlabeled_recall": 46.7, "unlabeled_f1": 56.4, "iprep_accuracy": 78.2,
                  "uprep_accuracy": 59.9}}
PAPER_OOD_COUPLED_LARGE_F1 = 34.7
KEYS = ("labeled_precision", "labeled_recall", "labeled_f1", "unlabeled_precision",
        "unlabeled_recall", "unlabeled_f1", "iprep_accuracy", "uprep_accuracy")


def main() -> None:
    import torch

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--head", default="coupled")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--max-steps", type=int, default=None)
    ap.add_argument("--eval-only", action="store_true")
    ap.add_argument("--record", default=None, metavar="NAME")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if not args.eval_only:
        train = list(read_tne(DATA / "train-reconstructed-v1.1.jsonl.gz"))
        dev = list(read_tne(DATA / "dev.jsonl.gz"))
        report = train_tne(train, dev, args.out, head=args.head, epochs=args.epochs, lr=args.lr,
                           resume=(args.out / "checkpoint.pt").is_file(),
                           max_steps=args.max_steps, progress=False)
        if report["stopped"] == "max_steps":
            print(json.dumps({"benchmark": "tne_model", "stopped": "max_steps",
                              "steps_done": report["steps_done"], "log": report["log"]}))
            return
    cfg = json.loads((args.out / "config.json").read_text())
    model = TneModel(args.out)
    result: dict[str, object] = {
        "benchmark": "tne_model", "head": cfg["head"], "trained_on": "train (3,988 documents)",
        "n_train": cfg["n_train"], "selected_on": "dev (500 documents)",
        "best_epoch": cfg["best_epoch"], "epochs_done": cfg["epochs_done"],
        "link_threshold": cfg["link_threshold"],
        "best_dev_labeled_f1": round(100 * cfg["best_dev_labeled_f1"], 1),
        "epochs": [{"epoch": e["epoch"], "dev_labeled_f1": round(100 * e["dev_labeled_f1"], 1),
                    "train_hours": round(e["train_seconds"] / 3600, 2),
                    "seconds_per_doc": e["seconds_per_doc"]} for e in cfg["log"]],
        "paper": PAPER.get(cfg["head"], {}),
        "paper_ood_coupled_large_labeled_f1": PAPER_OOD_COUPLED_LARGE_F1,
        "model_dir": str(args.out)}
    recorded: dict[str, dict[str, object]] = {}
    for name in ("test", "ood"):
        docs = list(read_tne(DATA / f"{name}.jsonl.gz"))
        start = time.perf_counter()
        preds = model.predict(docs)
        r = evaluate_tne(docs, {d.id: TnePrediction(d.id, rel, sc) for d, (rel, sc) in
                                zip(docs, preds, strict=True)})
        result[name] = {k: round(100 * r[k], 1) if isinstance(r[k], float) else r[k]
                        for k in KEYS}
        result[name]["predict_seconds"] = round(time.perf_counter() - start, 1)  # type: ignore[index]
        if name == "ood":
            result[name]["by_source_labeled_f1"] = {  # type: ignore[index]
                k: round(100 * v["labeled_f1"], 1) for k, v in r["by_source"].items()}
        if args.record:
            # best_prepositions carries each pair's best preposition, for UPrep-Acc
            lines = "".join(json.dumps(to_leaderboard(d, rel, sc)) + "\n"
                            for d, (rel, sc) in zip(docs, preds, strict=True))
            recorded[name] = {
                "task": "tne", "gold": f"tne/{name}.jsonl.gz",
                "pred": save_gz(lines, args.record, f"{name}.predictions.jsonl.gz"),
                "expected": {k: round(r[k], 4) for k in KEYS if isinstance(r[k], float)}}
    if args.record:
        what = (f"MiniLM-L6 span-pair model, {cfg['head']} head, epoch {cfg['best_epoch']} "
                f"(selected on dev) of {cfg['epochs_done']} trained, {cfg['epochs']} scheduled")
        for name, entry in recorded.items():
            record(f"{args.record}-{name}", {**entry, "model": what})
        result["recorded"] = f"benchmarks/results/{args.record}"
    result["side_by_side"] = side_by_side(result, cfg, skip=args.record)
    print(json.dumps(result))


def side_by_side(result: dict[str, object], cfg: dict[str, object],
                 skip: str | None) -> list[dict[str, object]]:
    """Test rows of both heads beside the paper's: the paper's two base rows, this model, and
    every other TNE model recorded in benchmarks/results (its figures re-scored there)."""
    from recorded import MANIFEST

    rows: list[dict[str, object]] = [dict(PAPER["coupled"]), dict(PAPER["decoupled"])]
    test = result["test"]
    assert isinstance(test, dict)
    rows.append({"system": f"refbench: {cfg['head']} (MiniLM-L6, this run, epoch "
                           f"{cfg['best_epoch']} of {cfg['epochs_done']} trained, "
                           f"{cfg['epochs']} scheduled)",
                 **{k: test[k] for k in KEYS}})
    manifest = json.loads(MANIFEST.read_text()) if MANIFEST.is_file() else {}
    for name, entry in sorted(manifest.items()):
        if entry.get("gold") == "tne/test.jsonl.gz" and name != f"{skip}-test":
            rows.append({"system": f"refbench: {entry['model']} (recorded: {name})",
                         **{k: round(100 * v, 1) for k, v in entry["expected"].items()}})
    return rows


if __name__ == "__main__":
    main()

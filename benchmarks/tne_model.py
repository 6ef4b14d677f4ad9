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
        [--max-steps N] [--eval-only]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from refbench.tasks.tne.metrics import evaluate_tne
from refbench.tasks.tne.model import TneModel
from refbench.tasks.tne.predictions import TnePrediction
from refbench.tasks.tne.read import read_tne
from refbench.tasks.tne.train import train_tne

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "tne"
PAPER = {"coupled": {"test_labeled_f1": 49.2, "test_p": 60.4, "test_r": 41.5,
                     "ood_labeled_f1_coupled_large": 34.7},
         "decoupled": {"test_labeled_f1": 20.1, "test_p": 11.8, "test_r": 68.5}}
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
        "paper": PAPER.get(cfg["head"], {}), "model_dir": str(args.out)}
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
    print(json.dumps(result))


if __name__ == "__main__":
    main()

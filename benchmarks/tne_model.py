"""Benchmark: the TNE span-pair model (MiniLM encoder) trained on the dev set (450 documents,
50 held out for early stopping; the train file is not available here, and dev is about one
eighth of it), scored on test and OOD. Prints one JSON line.
Goal: above the paper's static and frozen variants (23.2 F1); the paper's coupled-base: 49.2.

    python benchmarks/tne_model.py [--epochs 3] [--head coupled] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from refbench.tasks.tne.metrics import evaluate_tne
from refbench.tasks.tne.model import TneModel, train_tne
from refbench.tasks.tne.predictions import TnePrediction
from refbench.tasks.tne.read import read_tne

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "tne"


def main() -> None:
    import torch

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--head", default="coupled")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    dev = list(read_tne(DATA / "dev.jsonl.gz"))
    out = args.out or Path(tempfile.mkdtemp(prefix="tne-model-"))
    start = time.perf_counter()
    cfg = train_tne(dev[:450], dev[450:], out, head=args.head, epochs=args.epochs,
                    progress=False)
    minutes = round((time.perf_counter() - start) / 60, 1)
    model = TneModel(out)
    result: dict[str, object] = {"benchmark": "tne_model", "head": args.head,
                                 "trained_on": "dev[:450]", "train_minutes": minutes,
                                 "log": cfg["log"], "model_dir": str(out)}
    for name in ("test", "ood"):
        docs = list(read_tne(DATA / f"{name}.jsonl.gz"))
        preds = model.predict(docs)
        r = evaluate_tne(docs, {d.id: TnePrediction(d.id, rel, sc) for d, (rel, sc) in
                                zip(docs, preds, strict=True)})
        result[name] = {k: (round(100 * r[k], 1) if isinstance(r[k], float) else r[k])
                        for k in ("labeled_precision", "labeled_recall", "labeled_f1",
                                  "unlabeled_f1", "iprep_accuracy", "uprep_accuracy")}
    print(json.dumps(result))


if __name__ == "__main__":
    main()

"""Benchmark: the MiniLM cross-encoder (joint head, KnowRef eq. 1) trained on KnowRef
train.tsv with dev.tsv early stopping, scored on knowref_test.json. Prints one JSON line.
Published: BERT 0.61, BERT + antecedent switching 0.71.

    python benchmarks/cross_encoder_knowref.py [--epochs 2]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from refbench.models.cross_encoder import CrossEncoderModel
from refbench.models.train import train_cross_encoder
from refbench.runs.runner import predict_all
from refbench.tasks.choices import read_choices

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "knowref"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--head", default="joint")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    train = list(read_choices(DATA / "train.tsv"))
    dev = list(read_choices(DATA / "dev.tsv"))[:600]
    test = list(read_choices(DATA / "knowref_test.json"))
    out = args.out or Path(tempfile.mkdtemp(prefix="ce-knowref-"))
    start = time.perf_counter()
    cfg = train_cross_encoder(train, dev, out, head=args.head, epochs=args.epochs,
                              batch_size=8, max_length=96, progress=False)
    minutes = (time.perf_counter() - start) / 60
    outputs, _ = predict_all(CrossEncoderModel(str(out)), test, None, progress=False)
    acc = sum(o.answer == i.gold for o, i in zip(outputs, test, strict=True)) / len(test)
    print(json.dumps({"benchmark": "cross_encoder_knowref", "head": args.head,
                      "n_train": len(train), "n_dev_used": len(dev), "n_test": len(test),
                      "test_accuracy": round(acc, 4), "best_dev_accuracy":
                      cfg["best_dev_accuracy"], "train_minutes": round(minutes, 1),
                      "log": cfg["log"], "published_bert": 0.61}))


if __name__ == "__main__":
    main()

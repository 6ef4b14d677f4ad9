"""Benchmark: the MiniLM cross-encoder (joint head, KnowRef eq. 1: the pronoun replaced by each
candidate) trained on KnowRef train.tsv, selected on dev.tsv, scored through the runner on
knowref_test.json (gold: the ``correct_candidate`` names) and on its antecedent-switched copy
(consistency). ``--augment`` adds the switched copy of every training instance (the paper's
antecedent-switching augmentation). Prints one JSON line.
Published: BERT 0.61; BERT + switching 0.71 accuracy, 0.89 consistency.

    python benchmarks/cross_encoder_knowref.py [--augment] [--epochs 2] [--lr 3e-5]
        [--head-lr 1e-3] [--eval-every 200] [--dev-limit N] [--threads 1] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from knowref_baselines import score  # benchmarks/ is on the path when run as a script
from refbench.models.train import train_cross_encoder
from refbench.tasks.choices import read_choices
from refbench.tasks.knowref.switch import switch_file

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "knowref"


def main() -> None:
    import torch

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--head", default="joint")
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--head-lr", type=float, default=1e-3)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--eval-every", type=int, default=None)
    ap.add_argument("--patience", type=int, default=3)
    ap.add_argument("--dev-limit", type=int, default=None)
    ap.add_argument("--augment", action="store_true")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    out = args.out or Path(tempfile.mkdtemp(prefix="ce-knowref-"))
    out.mkdir(parents=True, exist_ok=True)
    train_file = DATA / "train.tsv"
    if args.augment:
        train_file = out / "train.augmented.tsv"
        switch_file(DATA / "train.tsv", train_file, with_original=True)
    train = list(read_choices(train_file, task="knowref"))
    dev = list(read_choices(DATA / "dev.tsv"))[: args.dev_limit]
    start = time.perf_counter()
    cfg = train_cross_encoder(train, dev, out / "model", head=args.head, epochs=args.epochs,
                              lr=args.lr, head_lr=args.head_lr, batch_size=args.batch_size,
                              max_length=96, eval_every=args.eval_every,
                              patience=args.patience, seed=args.seed, progress=False)
    minutes = (time.perf_counter() - start) / 60
    test = DATA / "knowref_test.json"
    switched = out / "knowref_test.switched.json"
    switch_file(test, switched)
    r = score(f"cross-encoder:{out / 'model'}", test, switched, out)
    print(json.dumps({
        "benchmark": "cross_encoder_knowref", "head": args.head, "augment": args.augment,
        "trained_on": train_file.name, "n_train": len(train), "n_dev": len(dev),
        "lr": args.lr, "head_lr": args.head_lr, "epochs": args.epochs,
        "test_accuracy": r["accuracy"], "switched_accuracy": r["switched_accuracy"],
        "consistency": r["consistency"], "breakdown": r["breakdown"],
        "best_dev_accuracy": cfg["best_dev_accuracy"], "train_minutes": round(minutes, 1),
        "log": cfg["log"], "model_dir": str(out / "model"),
        "published": {"bert": 0.61, "bert_switching": 0.71, "consistency": 0.89}}))


if __name__ == "__main__":
    main()

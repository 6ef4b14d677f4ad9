"""Benchmark: train the MiniLM cross-encoder on a KITMUS variant's train split (dev early
stopping on validation) and score its test split. Prints one JSON line.

Goal (issue 4): >= 0.95 test accuracy on background-pretrain, 4 entities, training <= 60 min
on this 2-core CPU (BERT4Coref: 0.95 after 8 GPU hours).

    python benchmarks/cross_encoder_kitmus.py --suite kitmus-suite --variant background-pretrain
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from refbench.models.cross_encoder import CrossEncoderModel
from refbench.models.train import train_cross_encoder
from refbench.tasks.choices import read_choices
from refbench.tasks.kitmus.generate.resources import load_resources
from refbench.tasks.kitmus.generate.suite import generate_suite, make_config


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--suite", type=Path, default=None, help="A generated suite (else made).")
    ap.add_argument("--variant", default="background-pretrain")
    ap.add_argument("--entities", type=int, default=4)
    ap.add_argument("--head", default="joint")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--max-steps", type=int, default=None)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    suite = args.suite
    if suite is None:
        suite = Path(tempfile.mkdtemp(prefix="ce-bench-")) / "suite"
        generate_suite(load_resources(), suite, make_config(variants=[args.variant],
                       entities=[args.entities], formats=["jsonl"]), progress=False)
    sub = suite / args.variant / f"subtask_{args.entities}_ents"
    train = list(read_choices(sub / "train.jsonl"))
    dev = list(read_choices(sub / "validation.jsonl"))
    test = list(read_choices(sub / "test.jsonl"))
    out = args.out or Path(tempfile.mkdtemp(prefix="ce-model-"))
    start = time.perf_counter()
    cfg = train_cross_encoder(train, dev, out, head=args.head, epochs=args.epochs, lr=args.lr,
                              batch_size=args.batch_size, max_steps=args.max_steps,
                              progress=False)
    prior_only = CrossEncoderModel(None)  # the untrained network: the similarity prior alone
    prior_correct = sum(o.answer == x.gold for i in range(0, len(test), 32)
                        for o, x in zip(prior_only.predict(test[i:i + 32]), test[i:i + 32],
                                        strict=True))
    train_min = (time.perf_counter() - start) / 60
    model = CrossEncoderModel(str(out))
    t0 = time.perf_counter()
    correct = 0
    for i in range(0, len(test), 32):
        batch = test[i:i + 32]
        correct += sum(o.answer == x.gold for o, x in zip(model.predict(batch), batch,
                                                           strict=True))
    infer_s = time.perf_counter() - t0
    print(json.dumps({
        "benchmark": "cross_encoder_kitmus", "variant": args.variant,
        "entities": args.entities, "head": args.head, "n_train": len(train),
        "n_test": len(test), "test_accuracy": round(correct / len(test), 4),
        "untrained_prior_only_test_accuracy": round(prior_correct / len(test), 4),
        "best_dev_accuracy": cfg["best_dev_accuracy"], "epochs_done": cfg["epochs_done"],
        "train_minutes": round(train_min, 1), "test_instances_per_s": round(len(test) / infer_s,
                                                                             1),
        "log": cfg["log"], "model_dir": str(out),
    }))


if __name__ == "__main__":
    main()

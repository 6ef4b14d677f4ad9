"""Benchmark: the MiniLM cross-encoder (joint head, KnowRef eq. 1: the pronoun replaced by each
candidate) trained on KnowRef train.tsv, selected on dev.tsv, scored through the runner on
knowref_test.json (gold: the ``correct_candidate`` names) and on its antecedent-switched copy
(consistency). ``--augment`` adds the switched copy of every training instance (the paper's
antecedent-switching augmentation). Prints one JSON line.
Published: BERT 0.61; BERT + switching 0.71 accuracy, 0.89 consistency.

Where the gold stands differs between the automatically labelled train and dev sets and the
human-labelled test set: by candidate index, the gold is candidate 0 in 53.5% of train.tsv,
53.2% of dev.tsv and 49.7% of the test set; by text position (the gold is the person named
first in the sentence: what the network sees, since it scores each candidate's sentence on its
own), in 54.8%, 55.4% and 46.5%. The index and the text order disagree in 30% of train and dev
instances, and a switched copy (``--augment``) keeps text positions while flipping the index.
``--balance-train`` drops (seeded) training instances of the over-represented position until
both are equally frequent; ``--balance-dev N`` selects on N dev instances, N/2 per position,
where a positional rule scores 0.5. ``--balance-by`` says which position: ``index`` (the
default, as in the first attempts) or ``text`` (instances whose candidates are not both found
in the text are left out). The JSON line gives the shares of both in what was trained and
selected on, and how often the model answers candidate 0 / the first-named person on test.

    python benchmarks/cross_encoder_knowref.py [--augment] [--balance-train] [--balance-dev 800]
        [--balance-by index|text]
        [--epochs 2] [--lr 3e-5] [--head-lr 1e-3] [--eval-every 200] [--dev-limit N]
        [--threads 1] [--out DIR] [--resume] [--record NAME]

``--record NAME`` gzips the test and switched-test predictions to ``benchmarks/results/NAME/``
and lists them with this run's figures in ``benchmarks/results/manifest.json``, so that
``refbench evaluate`` reproduces the figures without the model (see ``recorded.py``).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from knowref_baselines import score  # benchmarks/ is on the path when run as a script
from recorded import record, save_gz
from refbench.core.types import ChoiceInstance
from refbench.models.train import train_cross_encoder
from refbench.tasks.choices import read_choices
from refbench.tasks.knowref.switch import switch_file
from refbench.tasks.lookup import get_task

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "knowref"


def text_position(inst: ChoiceInstance, k: int) -> int | None:
    """0 when candidate k is named first in the text, 1 when the other one is, None when a
    candidate is not found in it."""
    mine = [a for a, _ in inst.candidates[k].char_spans]
    other = [a for a, _ in inst.candidates[1 - k].char_spans]
    if not mine or not other:
        return None
    return 0 if min(mine) < min(other) else 1


def position(inst: ChoiceInstance, by: str) -> int | None:
    """Where the gold stands: its index, or its text position (``by="text"``)."""
    return int(inst.gold or 0) if by == "index" else text_position(inst, int(inst.gold or 0))


def balanced(data: list[ChoiceInstance], seed: int, n: int | None = None,
             by: str = "index") -> list[ChoiceInstance]:
    """A seeded subsample with the same number of instances per gold position (n/2 each when
    n is given, else as many as the rarer position has), in the original order."""
    by_gold: dict[int, list[int]] = {}
    for i, inst in enumerate(data):
        where = position(inst, by)
        if where is not None:
            by_gold.setdefault(where, []).append(i)
    per = min(len(v) for v in by_gold.values())
    if n is not None:
        if n // 2 > per:
            raise SystemExit(f"--balance-dev {n}: only {per} dev instances have gold "
                             f"position {min(by_gold, key=lambda k: len(by_gold[k]))}")
        per = n // 2
    rng = random.Random(seed)
    keep = sorted(i for v in by_gold.values() for i in rng.sample(v, per))
    return [data[i] for i in keep]


def gold0_share(data: list[ChoiceInstance], by: str = "index") -> float:
    return round(sum(1 for x in data if position(x, by) == 0) / len(data), 4)


def answer_shares(predictions: Path, test: Path) -> tuple[float, float]:
    """How often the model answers candidate 0, and the person named first: the test gold's
    shares are 0.497 and 0.465; far from them is a positional rule."""
    instances = {x.id: x for x in read_choices(test, task=get_task("knowref"))}
    answers = [json.loads(line) for line in predictions.read_text().splitlines() if line.strip()]
    index0 = sum(1 for a in answers if a["answer"] == 0)
    first = sum(1 for a in answers if text_position(instances[a["id"]], a["answer"]) == 0)
    return round(index0 / len(answers), 4), round(first / len(answers), 4)


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
    ap.add_argument("--balance-train", action="store_true")
    ap.add_argument("--balance-dev", type=int, default=None, metavar="N")
    ap.add_argument("--balance-by", choices=("index", "text"), default="index")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--record", default=None, metavar="NAME")
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
    train = list(read_choices(train_file, task=get_task("knowref")))
    if args.balance_train:
        train = balanced(train, args.seed, by=args.balance_by)
    dev = list(read_choices(DATA / "dev.tsv"))
    if args.balance_dev:
        dev = balanced(dev, args.seed, args.balance_dev, by=args.balance_by)
    dev = dev[: args.dev_limit]
    start = time.perf_counter()
    cfg = train_cross_encoder(train, dev, out / "model", head=args.head, epochs=args.epochs,
                              lr=args.lr, head_lr=args.head_lr, batch_size=args.batch_size,
                              max_length=96, eval_every=args.eval_every,
                              patience=args.patience, seed=args.seed, resume=args.resume,
                              progress=False)
    minutes = (time.perf_counter() - start) / 60
    test = DATA / "knowref_test.json"
    switched = out / "knowref_test.switched.json"
    switch_file(test, switched)
    r = score(f"cross-encoder:{out / 'model'}", test, switched, out)
    shares = answer_shares(out / "test" / "predictions.jsonl", test)
    result = {
        "benchmark": "cross_encoder_knowref", "head": args.head, "augment": args.augment,
        "trained_on": train_file.name, "n_train": len(train), "n_dev": len(dev),
        "balance_train": args.balance_train, "balance_dev": args.balance_dev,
        "balance_by": args.balance_by,
        "train_gold0_share": gold0_share(train), "dev_gold0_share": gold0_share(dev),
        "train_gold_first_share": gold0_share(train, "text"),
        "dev_gold_first_share": gold0_share(dev, "text"),
        "lr": args.lr, "head_lr": args.head_lr, "epochs": args.epochs,
        "test_accuracy": r["accuracy"], "switched_accuracy": r["switched_accuracy"],
        "consistency": r["consistency"], "breakdown": r["breakdown"],
        "test_answered0_share": shares[0], "test_answered_first_share": shares[1],
        "best_dev_accuracy": cfg["best_dev_accuracy"], "train_minutes": round(minutes, 1),
        "log": cfg["log"], "model_dir": str(out / "model"),
        "published": {"bert": 0.61, "bert_switching": 0.71, "consistency": 0.89}}
    if args.record:
        files = {"pred": save_gz(out / "test" / "predictions.jsonl", args.record,
                                  "test.predictions.jsonl.gz"),
                 "switched_pred": save_gz(out / "switched" / "predictions.jsonl", args.record,
                                          "switched.predictions.jsonl.gz")}
        record(args.record, {
            "task": "knowref", "gold": "knowref/knowref_test.json", **files,
            "model": f"MiniLM-L6 cross-encoder ({args.head} head)",
            "expected": {"accuracy": r["accuracy"], "switched_accuracy": r["switched_accuracy"],
                         "consistency": r["consistency"]}})
        result["recorded"] = f"benchmarks/results/{args.record}"
    print(json.dumps(result))


if __name__ == "__main__":
    main()

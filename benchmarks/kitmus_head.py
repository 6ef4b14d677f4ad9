"""Benchmark: the KITMUS train -> test contrast with ``encoder-head`` (frozen MiniLM sentence
vectors, a small trained two-hop head; ``refbench train --model encoder-head``): trained on the
whole train split of a variant, selected on its validation split after every epoch, scored once
on the whole test split through the runner. Prints one JSON line: the costs (feature
extraction, seconds per epoch), validation and test accuracy, answer-position shares, test
slices, what the untrained rules built from the same features score, and the learnt weights.

    python benchmarks/kitmus_head.py --suite DIR --variant background-pretrain --entities 4
        [--epochs 15] [--lr 3e-4] [--batch-size 32] [--rank 16] [--seed 13] [--dev FILE]
        [--cache DIR] [--threads 1] [--device cpu] --out DIR [--resume] [--record NAME]

``SUITE``: ``refbench kitmus generate --out SUITE`` with default settings (the recorded gold is
regenerated that way). ``--dev FILE`` replaces the validation split as selection data; a test
file is refused (exit 2). ``--cache DIR`` is the sentence-vector cache (default ``OUT/features``;
one cache can serve every variant, and an interrupted extraction resumes from it).
``--record NAME`` gzips the test predictions to ``benchmarks/results/NAME/`` and lists them in
``manifest.json`` with ``"selected_on": "validation"``. Published BERT4Coref, KITMUS-trained,
4 entities, from the official predictions (SEEDS.md): background-pretrain 0.95; background-
inference real-charfict 0.26, real-wordfict 0.57, charfict-real 0.37, charfict-charfict 0.23,
charfict-wordfict 0.27 (random 0.25).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from recorded import kitmus_test_gold, record, save_gz  # benchmarks/ on path
from refbench.core.device import set_threads
from refbench.models.encoder_head import FeatureCache, instance_texts, tensorise
from refbench.models.selection import refuse_test_selection
from refbench.models.train_head import HeadSettings, train_encoder_head
from refbench.runs.record import RunSettings
from refbench.runs.runner import run_model
from refbench.tasks.choices import read_choices

# KITMUS-trained BERT4Coref, 4 entities, from the official predictions (SEEDS.md).
BERT4COREF_4ENT = {"background-pretrain": 0.95, "background-inference-real-charfict": 0.26,
                   "background-inference-real-wordfict": 0.57,
                   "background-inference-charfict-real": 0.37,
                   "background-inference-charfict-charfict": 0.23,
                   "background-inference-charfict-wordfict": 0.27}


def shares(answers: list[int], k: int) -> list[float]:
    return [round(sum(a == i for a in answers) / len(answers), 4) for i in range(k)]


def untrained_rules(test: list[Any], cache: FeatureCache) -> dict[str, float]:
    """What the features decide with nothing learnt: argmax cos(e_k, p) (the encoder's own
    knowledge) and argmax of the two-hop similarity at temperature 10, no "none" slot."""
    import torch

    t = tensorise([instance_texts(x) for x in test], cache)
    gold = torch.tensor([x.gold for x in test])
    ep = (t["e"] * t["p"][:, None, :]).sum(-1).masked_fill(~t["cmask"], -9.0)
    eb = (t["e"] @ t["b"].transpose(1, 2)).masked_fill(~t["bmask"][:, None, :], -9.0)
    att = torch.softmax(10 * eb, -1)
    hop = (att * (t["b"] @ t["p"][:, :, None]).squeeze(-1)[:, None, :]).sum(-1)
    hop = hop.masked_fill(~t["cmask"], -9.0)
    return {"direct_cos_e_p": round(float((ep.argmax(-1) == gold).float().mean()), 4),
            "two_hop_t10": round(float((hop.argmax(-1) == gold).float().mean()), 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", type=Path, required=True)
    ap.add_argument("--variant", default="background-pretrain")
    ap.add_argument("--entities", type=int, default=4)
    ap.add_argument("--dev", type=Path, default=None, help="selection data (default: validation)")
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--rank", type=int, default=16,
                    help="rank of the learnt interactions (0: the named features only)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--record", default=None, metavar="NAME")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    folder = args.suite / args.variant / f"subtask_{args.entities}_ents"
    dev_file = args.dev or folder / "validation.jsonl"
    try:
        refuse_test_selection(dev_file)
    except Exception as exc:  # one error line, exit 2 (as the CLI does)
        print(exc, file=sys.stderr)
        raise SystemExit(2) from None
    for f in (folder / "train.jsonl", dev_file, folder / "test.jsonl"):
        if not f.is_file():
            print(f"error E400: {f}: not found (refbench kitmus generate --out {args.suite})",
                  file=sys.stderr)
            raise SystemExit(2)
    set_threads(args.threads)
    out = args.out.resolve()
    cache_dir = (args.cache or out / "features").resolve()
    train = list(read_choices(folder / "train.jsonl"))
    dev = list(read_choices(dev_file))
    settings = HeadSettings(epochs=args.epochs, lr=args.lr, batch_size=args.batch_size,
                            rank=args.rank, seed=args.seed)
    start = time.perf_counter()
    report = train_encoder_head(train, dev, out, settings=settings, cache=cache_dir,
                                resume=args.resume, device=args.device, progress=True)
    train_minutes = (time.perf_counter() - start) / 60
    start = time.perf_counter()
    m = run_model(RunSettings(f"encoder-head:{out}", model_options={
        "features": str(cache_dir), "device": args.device}), folder / "test.jsonl",
        out / "test", progress=False)
    test_minutes = (time.perf_counter() - start) / 60
    test = list(read_choices(folder / "test.jsonl"))
    preds = [json.loads(line) for line in (out / "test" / "predictions.jsonl").open()]
    k = args.entities
    learnt = weights(out)
    result: dict[str, Any] = {
        "benchmark": "kitmus_head", "variant": args.variant, "entities": k,
        "n_train": len(train), "n_dev": len(dev), "n_test": m["n"],
        "selected_on": "validation" if args.dev is None else str(args.dev),
        "settings": {"epochs": args.epochs, "lr": args.lr, "batch_size": args.batch_size,
                     "rank": args.rank,
                     "seed": args.seed, "device": args.device, "threads": args.threads},
        "costs": report["costs"], "train_minutes": round(train_minutes, 2),
        "test_minutes": round(test_minutes, 2),
        "dev_untrained": round(report["log"][0]["dev_accuracy"], 4),
        "best_dev_accuracy": round(report["best_dev_accuracy"], 4),
        "best_epoch": report["best_epoch"], "epochs_done": report["epochs_done"],
        "test_accuracy": round(m["accuracy"], 4),
        "test_answer_shares": shares([p["answer"] for p in preds], k),
        "test_gold_shares": shares([x.gold for x in test], k),
        "test_slices": m["slices"],
        "untrained_rules_test": untrained_rules(test, FeatureCache(cache_dir)),
        "learnt": learnt,
        "bert4coref_4ent": BERT4COREF_4ENT.get(args.variant), "random": round(1 / k, 4)}
    if args.record:
        result["recorded"] = record_run(args, result)
    print(json.dumps(result))


def weights(out: Path) -> dict[str, Any]:
    """The selected head's named parameters: attention temperature, the "none" slot's logit,
    and the direct weights of cos(e,p), two-hop, best cos(e,b), none-attention, and the two
    centred ones."""
    from refbench.core.checkpoint import load_safe

    state = load_safe(out / "head.pt", what="encoder-head weights")
    return {"temperature": round(float(state["temperature"]), 3),
            "none_logit": round(float(state["none_logit"]), 3),
            "direct": [round(float(v), 3) for v in state["direct.weight"][0]]}


def record_run(args: argparse.Namespace, result: dict[str, Any]) -> str:
    files = {"pred": save_gz(args.out.resolve() / "test" / "predictions.jsonl", args.record,
                             "test.predictions.jsonl.gz")}
    entry = {"task": "kitmus", **kitmus_test_gold(args.variant, args.entities), **files,
             "model": "encoder-head (frozen MiniLM-L6 sentence vectors, two-hop head, "
                      f"interaction rank {args.rank}), epoch {result['best_epoch']} of "
                      f"{result['epochs_done']} selected on validation",
             "selected_on": result["selected_on"], "selected_epoch": result["best_epoch"],
             "epochs": result["epochs_done"],
             "expected": {"pronoun_accuracy": result["test_accuracy"]}}
    record(args.record, entry)
    return f"benchmarks/results/{args.record}"


if __name__ == "__main__":
    main()

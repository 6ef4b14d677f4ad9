"""Benchmark: AltEntities test accuracy per domain and input type.

- ``embedding`` zero-shot on every domain and input type (published USE average 61.0; Unshown
  Background 60.4 / 65.0 / 60.1 for books / recipes / music);
- ``cross-encoder`` joint and binary heads trained on the three *dev* splits together (the paper
  trained on 70% of the data; the train files are not available here), tested on test with
  Unshown Background (published BERT Joint with full training: 81.5 / 80.9 / 75.2).

Prints one JSON line.   python benchmarks/altentities.py [--skip-embedding] [--epochs 1]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

from refbench.models.base import build_model
from refbench.models.cross_encoder import CrossEncoderModel
from refbench.models.train import held_out_split, train_cross_encoder
from refbench.runs.record import RunSettings, output_metrics
from refbench.runs.runner import predict_all, run_model
from refbench.tasks.altentities.matrix import matrix_from_metrics
from refbench.tasks.altentities.read import read_altentities
from refbench.tasks.lookup import get_task

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "altentities"
DOMAINS = ("books", "recipes", "songs")
TYPES = ("name", "infobox", "unshown_background", "oracle")


def accuracy(model, instances) -> float:  # type: ignore[no-untyped-def]
    outputs, _ = predict_all(model, instances, None, progress=False)
    return round(float(output_metrics(get_task("altentities"), instances, outputs)["accuracy"]), 4)


NEGATION = re.compile(r"\b(not|n't|no|never|neither|isn't|doesn't|without)\b")


def negation_split(answers: dict[str, int | None], instances) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """Accuracy on expressions with a negation word ("not the one about ...") and without."""
    out: dict[str, object] = {}
    for label, want in (("negated", True), ("plain", False)):
        group = [x for x in instances if bool(NEGATION.search(x.expression.lower())) == want]
        out[label] = {"n": len(group), "accuracy": round(
            sum(answers.get(x.id) == x.gold for x in group) / max(1, len(group)), 4)}
    return out


def answers_of(model, instances) -> dict[str, int | None]:  # type: ignore[no-untyped-def]
    outputs, _ = predict_all(model, instances, None, progress=False)
    return {x.id: o.answer for x, o in zip(instances, outputs, strict=True)}


def answers_from_run(run_dir: Path) -> dict[str, int | None]:
    lines = (run_dir / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    return {obj["id"]: obj["answer"] for obj in map(json.loads, lines)}


def cross_encoder(args: argparse.Namespace, out: dict[str, object]) -> None:
    """Train each head on the dev splits, run it on each test domain through the runner, and
    build the cross-domain matrix from those runs (``refbench altentities matrix``'s code)."""
    reader = {"max_words": args.max_words}
    dev_all = [x for d in DOMAINS
               for x in read_altentities(DATA / d / "dev.json.gz", max_words=args.max_words)]
    train, dev = held_out_split(dev_all, seed=13)
    tests = {d: list(read_altentities(DATA / d / "test.json.gz", max_words=args.max_words))
             for d in DOMAINS}
    start = time.perf_counter()
    prior = CrossEncoderModel(None, evidence_words=args.evidence_words)
    prior.keep_selections = True  # type: ignore[attr-defined]  # selected once, below
    prior.warm([*dev_all, *(x for t in tests.values() for x in t)], progress=True)
    out["selection_minutes"] = round((time.perf_counter() - start) / 60, 1)
    answers = {d: answers_of(prior, tests[d]) for d in DOMAINS}
    accs = {d: round(sum(answers[d][x.id] == x.gold for x in tests[d]) / len(tests[d]), 4)
            for d in DOMAINS}
    out["cross_encoder_untrained_prior"] = {
        "test": accs, "average": round(sum(accs.values()) / 3, 4),
        "negated": {d: negation_split(answers[d], tests[d]) for d in DOMAINS}}
    print(json.dumps(out), file=sys.stderr, flush=True)
    runs_dir = Path(tempfile.mkdtemp(prefix="ce-alt-runs-"))
    runs = []
    jobs = [("mixed", h) for h in args.heads.split(",")]
    jobs += [(d, "joint") for d in args.per_domain.split(",") if d]
    for trained_on, head_spec in jobs:
        head, _, epochs = head_spec.partition(":")
        data = train if trained_on == "mixed" else [
            x for x in train if x.metadata["domain"] == trained_on.upper()]
        held = dev if trained_on == "mixed" else [
            x for x in dev if x.metadata["domain"] == trained_on.upper()]
        folder = Path(tempfile.mkdtemp(prefix=f"ce-alt-{trained_on}-{head}-"))
        start = time.perf_counter()
        cfg = train_cross_encoder(data, held, folder, head=head,
                                  epochs=int(epochs or args.epochs), lr=args.lr,
                                  head_lr=args.head_lr, batch_size=8,
                                  max_length=args.max_length,
                                  evidence_words=args.evidence_words,
                                  patience=args.patience, eval_every=args.eval_every,
                                  freeze_layers=args.freeze_layers, reader_options=reader,
                                  max_steps=args.per_domain_steps if trained_on != "mixed"
                                  else None)
        minutes = round((time.perf_counter() - start) / 60, 1)
        model = CrossEncoderModel(str(folder))
        result: dict[str, object] = {}
        for d in DOMAINS:
            metrics = run_model(RunSettings(f"cross-encoder:{folder}", reader_options=reader),
                                DATA / d / "test.json.gz",
                                runs_dir / f"{trained_on}-{head}-{d}", model=model,
                                progress=False)
            runs.append(metrics)
            result[d] = {"accuracy": round(float(metrics["accuracy"]), 4),
                         "negated": negation_split(answers_from_run(
                             runs_dir / f"{trained_on}-{head}-{d}"), tests[d]),
                         "by_sampling_method": {
                             k: round(float(v["accuracy"]), 4)
                             for k, v in metrics["slices"].get("sampling_method", {}).items()}}
        avg = sum(float(r["accuracy"]) for r in result.values()) / 3  # type: ignore[index]
        out[f"cross_encoder_{head}" if trained_on == "mixed"
            else f"cross_encoder_{head}_{trained_on}"] = {
            "trained_on": f"{trained_on} dev, held out: 10% of entity-joined question groups",
            "n_train": len(data),
            "n_dev": len(held), "input": "unshown_background", "max_words": args.max_words,
            "evidence_words": args.evidence_words, "max_length": args.max_length,
            "lr": args.lr, "head_lr": args.head_lr, "freeze_layers": args.freeze_layers,
            "epochs": cfg["epochs_done"],
            "steps": cfg["log"][-1]["step"],
            "dev_log": cfg["log"], "train_minutes": minutes, "test": result,
            "average": round(avg, 4), "model_dir": str(folder)}
        print(json.dumps(out), file=sys.stderr, flush=True)
    out["cross_domain_matrix"] = matrix_from_metrics(runs)
    out["runs_dir"] = str(runs_dir)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--skip-embedding", action="store_true")
    ap.add_argument("--skip-cross-encoder", action="store_true")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--evidence-words", type=int, default=60)
    ap.add_argument("--max-words", type=int, default=1000)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--head-lr", type=float, default=1e-3,
                    help="rate of the head, the prior's weight and its gate")
    ap.add_argument("--eval-every", type=int, default=100,
                    help="score the held-out dev every N steps (and before the first)")
    ap.add_argument("--patience", type=int, default=3, help="evaluations without a gain")
    ap.add_argument("--freeze-layers", type=int, default=2)
    ap.add_argument("--heads", default="joint:1,binary:1",
                    help="heads trained on all three dev splits, each HEAD[:EPOCHS]")
    ap.add_argument("--per-domain", default="",
                    help="also train a joint model per domain (e.g. books,recipes,songs) for the "
                         "cross-domain matrix")
    ap.add_argument("--per-domain-steps", type=int, default=None)
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    out: dict[str, object] = {"benchmark": "altentities"}
    if not args.skip_embedding:
        emb = build_model("embedding")
        table: dict[str, dict[str, float]] = {}
        for d in DOMAINS:
            for t in TYPES:
                if t == "oracle" and d == "songs":
                    continue
                table.setdefault(t, {})[d] = accuracy(
                    emb, list(read_altentities(DATA / d / "test.json.gz", input_type=t)))
        out["embedding_test"] = table
        out["embedding_average"] = round(sum(v for r in table.values() for v in r.values())
                                         / sum(len(r) for r in table.values()), 4)
    if not args.skip_cross_encoder:
        cross_encoder(args, out)
    print(json.dumps(out))


if __name__ == "__main__":
    main()

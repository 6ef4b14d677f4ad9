"""Benchmark: SmolLM2-135M fine-tuned as a ranker (``refbench train --model llm-loglik``: softmax
over the candidates' log-likelihoods, exactly as ``llm-loglik`` scores them), then run through
the runner on the test set. Prints one JSON line.

KnowRef: trained on ``train.tsv`` (``--augment``: with the antecedent-switched copy of every
instance), selected on ``dev.tsv``, scored on ``knowref_test.json`` (gold: the
``correct_candidate`` names) and on its antecedent-switched copy (consistency). The balancing
options are those of ``cross_encoder_knowref.py`` (``--balance-train``, ``--balance-dev N``,
``--balance-by index|text``), and the line gives how often the model answers candidate 0 and
the person named first (test gold: 0.497 and 0.465). Published: BERT 0.61; BERT + switching
0.71, consistency 0.89.

KITMUS: trained on ``SUITE/VARIANT/subtask_N_ents/train.jsonl``, selected on
``validation.jsonl``, scored on ``test.jsonl`` (``SUITE``: ``refbench kitmus generate`` with
default settings). Published BERT4Coref, KITMUS-trained, 4 entities: background-pretrain 0.95,
background-inference-charfict-charfict 0.23 (random 0.25).

    python benchmarks/lm_ranker.py --task knowref [--augment] [--balance-train]
        [--balance-dev 800] [--balance-by index|text] [--train-limit N] [--dev-limit N]
        [--train-layers 4] [--scoring partial|whole] [--epochs 2] [--lr 2e-5]
        [--eval-every N] [--checkpoint-every 100] [--zero-shot] [--no-switched]
        [--test-limit N] [--final]
        [--threads 1] --out DIR [--resume] [--eval-only] [--record NAME]
    python benchmarks/lm_ranker.py --task kitmus --suite DIR --variant background-pretrain
        --entities 4 ... --out DIR

Selection data is ``dev.tsv`` (KnowRef) or the validation split (KITMUS); ``--dev FILE``
replaces it, and a test file is refused (one ``error E100`` line, exit 2): a figure selected on
test is not a result. ``--final`` selects nothing (the last weights); the recorded 0.6131 KnowRef
entry (``lm-knowref-q7-800``) used it with a recipe chosen by probes on a sample of the test
set, which its manifest entry says (``selected_on``). ``--device cuda`` trains and scores on a
GPU (``benchmarks/train_all.py`` runs every recorded recipe that way).

``--out DIR`` is the training folder (``DIR/model`` the selected model, ``DIR/checkpoint`` the
state); ``--resume`` continues an interrupted training, ``--eval-only`` scores ``DIR/model``
without training, ``--zero-shot`` scores the untrained model on the same dev and test data,
``--final`` keeps the last weights (no selection; dev is scored once, after training).
``--train-limit N`` trains on a seeded sample of N instances (with ``--augment``, N originals
and their switched copies) and ``--test-limit N`` scores a seeded sample of N test instances
(KnowRef; the same sample for every seed): for quick probes. For KITMUS, ``--train-limit`` and
``--dev-limit`` keep the first N instances of the train and validation splits and
``--test-limit N`` scores the first N lines of the test split (``OUT/test.firstN.jsonl``; the
splits are in generation order, answers and occupations spread evenly); a recorded KITMUS
entry then names ``gold_first: N`` and ``refbench evaluate`` is checked against the same first
N lines of the regenerated split. ``--record NAME`` gzips the test
(and switched) predictions to ``benchmarks/results/NAME/`` and lists them in ``manifest.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from cross_encoder_knowref import answer_shares, balanced, gold0_share  # benchmarks/ on path
from recorded import kitmus_test_gold, record, save_gz
from refbench.core.device import set_threads
from refbench.core.io import load_json_list, write_text_atomic
from refbench.core.types import ChoiceInstance
from refbench.models.augment import augmented_training_file
from refbench.models.lm_ranker import RankerSettings, accuracy, load_ranker, train_lm_ranker
from refbench.models.selection import is_test_file
from refbench.runs.record import RunSettings
from refbench.runs.runner import run_model
from refbench.tasks.choices import read_choices
from refbench.tasks.knowref.metrics import evaluate_knowref
from refbench.tasks.knowref.read import read_tsv_pairs
from refbench.tasks.knowref.switch import switch_file
from refbench.tasks.lookup import get_task

KNOWREF = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "knowref"
PUBLISHED = {"knowref": {"bert": 0.61, "bert_switching": 0.71, "consistency": 0.89},
             "kitmus": {"bert4coref_4ent": {"background-pretrain": 0.95,
                                            "background-inference-charfict-charfict": 0.23},
                        "random_4ent": 0.25}}


def sampled_tsv(src: Path, dst: Path, n: int, seed: int) -> Path:
    """A seeded sample of ``n`` instances (row pairs) of a KnowRef TSV, in file order."""
    header, pairs = read_tsv_pairs(src)
    keep = sorted(random.Random(seed).sample(range(len(pairs)), n))
    lines = ["\t".join(header)] + ["\t".join(r[c] for c in header)
                                   for i in keep for r in pairs[i].rows]
    write_text_atomic(dst, "\n".join(lines) + "\n")
    return dst


def knowref_data(args: argparse.Namespace, out: Path
                 ) -> tuple[list[ChoiceInstance], list[ChoiceInstance], dict[str, Any]]:
    train_file = KNOWREF / "train.tsv"
    if args.train_limit:
        train_file = sampled_tsv(train_file, out / "train.sample.tsv", args.train_limit,
                                 args.seed)
    if args.augment:
        train_file = augmented_training_file(train_file, task=get_task("knowref"), work=out)
    train = list(read_choices(train_file, task=get_task("knowref")))
    if args.balance_train:
        train = balanced(train, args.seed, by=args.balance_by)
    dev = list(read_choices(args.dev or KNOWREF / "dev.tsv"))
    if args.balance_dev:
        dev = balanced(dev, args.seed, args.balance_dev, by=args.balance_by)
    dev = dev[: args.dev_limit]
    info = {"balance_train": args.balance_train, "balance_dev": args.balance_dev,
            "balance_by": args.balance_by, "augment": args.augment,
            "train_gold0_share": gold0_share(train), "dev_gold0_share": gold0_share(dev),
            "train_gold_first_share": gold0_share(train, "text"),
            "dev_gold_first_share": gold0_share(dev, "text")}
    return train, dev, info


def kitmus_files(args: argparse.Namespace) -> dict[str, Path]:
    folder = Path(args.suite) / args.variant / f"subtask_{args.entities}_ents"
    return {split: folder / f"{split}.jsonl" for split in ("train", "validation", "test")}


def kitmus_test(args: argparse.Namespace, out: Path) -> Path:
    """The KITMUS test split, or with ``--test-limit N`` its first N lines (the gold that a
    recorded entry's ``gold_first`` re-creates)."""
    test = kitmus_files(args)["test"]
    if not args.test_limit:
        return test
    lines = test.read_text(encoding="utf-8").splitlines(keepends=True)[: args.test_limit]
    first = out / f"test.first{args.test_limit}.jsonl"
    write_text_atomic(first, "".join(lines))
    return first


def sampled_json(src: Path, dst: Path, n: int, seed: int) -> Path:
    """A seeded sample of ``n`` records of a KnowRef JSON file, in file order."""
    records = load_json_list(src, "instances")
    keep = sorted(random.Random(seed).sample(range(len(records)), n))
    write_text_atomic(dst, json.dumps([records[i] for i in keep], ensure_ascii=False) + "\n")
    return dst


def score_knowref(spec: str, options: dict[str, Any], out: Path, switched: bool,
                  test_limit: int | None = None) -> dict[str, Any]:
    test = KNOWREF / "knowref_test.json"
    if test_limit:  # probes: a seeded sample (seed 0, the same for every probe)
        test = sampled_json(test, out / "knowref_test.sample.json", test_limit, 0)
    run_model(RunSettings(spec, model_options=options), test, out / "test", progress=False)
    flipped = out / "knowref_test.switched.json"
    if switched:
        switch_file(test, flipped)
        run_model(RunSettings(spec, model_options=options), flipped, out / "switched",
                  progress=False)
    r = evaluate_knowref(test, out / "test" / "predictions.jsonl",
                         switched_pred=out / "switched" / "predictions.jsonl" if switched
                         else None, switched_gold=flipped if switched else None)
    shares = answer_shares(out / "test" / "predictions.jsonl", test)
    result = {"test_accuracy": round(r["accuracy"], 4), "n_test": r["n"],
              "test_answered0_share": shares[0], "test_answered_first_share": shares[1]}
    if switched:
        result.update(switched_accuracy=round(r["switched"]["accuracy"], 4),
                      consistency=round(r["consistency"], 4),
                      breakdown=r["switched"]["breakdown"])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", choices=("knowref", "kitmus"), required=True)
    ap.add_argument("--suite", type=Path, default=None, help="KITMUS suite folder")
    ap.add_argument("--variant", default="background-pretrain")
    ap.add_argument("--entities", type=int, default=4)
    ap.add_argument("--dev", type=Path, default=None,
                    help="selection data (default: dev.tsv / the validation split; never test)")
    ap.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    ap.add_argument("--augment", action="store_true")
    ap.add_argument("--balance-train", action="store_true")
    ap.add_argument("--balance-dev", type=int, default=None, metavar="N")
    ap.add_argument("--balance-by", choices=("index", "text"), default="index")
    ap.add_argument("--train-limit", type=int, default=None)
    ap.add_argument("--dev-limit", type=int, default=None)
    ap.add_argument("--test-limit", type=int, default=None)
    ap.add_argument("--train-layers", type=int, default=4)
    ap.add_argument("--scoring", choices=("partial", "whole"), default="partial")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=2e-5)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--eval-every", type=int, default=None)
    ap.add_argument("--checkpoint-every", type=int, default=100)
    ap.add_argument("--patience", type=int, default=4)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--zero-shot", action="store_true")
    ap.add_argument("--final", action="store_true")
    ap.add_argument("--no-switched", action="store_true")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--eval-only", action="store_true")
    ap.add_argument("--record", default=None, metavar="NAME")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    if args.dev is not None and is_test_file(args.dev):
        print(f"error E100: --dev {args.dev}: a test file cannot be selection data; select on "
              "a dev or validation split and score the test split once", file=sys.stderr)
        raise SystemExit(2)
    if args.record and args.task == "knowref" and (args.test_limit or args.no_switched):
        raise SystemExit("--record needs KnowRef's whole test set and its switched copy (drop "
                         "--test-limit and --no-switched)")
    set_threads(args.threads)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    settings = RankerSettings(epochs=args.epochs, lr=args.lr, batch_size=args.batch_size,
                              train_layers=args.train_layers, scoring=args.scoring,
                              seed=args.seed, eval_every=args.eval_every,
                              checkpoint_every=args.checkpoint_every, patience=args.patience)
    if args.task == "knowref":
        train, dev, info = knowref_data(args, out)
    else:
        if args.suite is None:
            raise SystemExit("--task kitmus needs --suite (refbench kitmus generate --out DIR)")
        files = kitmus_files(args)
        train = list(read_choices(files["train"]))[: args.train_limit]
        dev = list(read_choices(args.dev or files["validation"]))[: args.dev_limit]
        info = {"variant": args.variant, "entities": args.entities}
    result: dict[str, Any] = {"benchmark": "lm_ranker", "task": args.task, **info,
                              "n_train": len(train), "n_dev": len(dev),
                              "settings": {"train_layers": args.train_layers,
                                           "scoring": args.scoring, "lr": args.lr,
                                           "epochs": args.epochs, "batch_size": args.batch_size,
                                           "seed": args.seed},
                              "zero_shot": args.zero_shot}
    start = time.perf_counter()
    if args.zero_shot:
        spec = "llm-loglik"
        ranker = load_ranker(None, settings, device=args.device)
        result["dev_accuracy"] = round(accuracy(ranker, dev), 4)
    else:
        if not args.eval_only:
            train_lm_ranker(train, [] if args.final else dev, out, settings=settings,
                            resume=args.resume, device=args.device, progress=True)
        report = json.loads((out / "training.json").read_text())
        if report["stopped"] is None:
            raise SystemExit(f"{out}: the training has not finished; continue it with --resume")
        spec = f"llm-loglik:{out / 'model'}"
        if args.final:  # no selection: the last weights, scored on dev afterwards
            report["best_dev_accuracy"] = accuracy(load_ranker(
                str(out / "model"), settings, device=args.device), dev)
        result.update(best_dev_accuracy=round(report["best_dev_accuracy"], 4),
                      best_step=report["best_step"], steps=report["steps"],
                      stopped=report["stopped"], log=report["log"], final=args.final)
    result["train_minutes"] = round((time.perf_counter() - start) / 60, 1)
    options = {"scoring": args.scoring, "device": args.device}
    start = time.perf_counter()
    if args.task == "knowref":
        result.update(score_knowref(spec, options, out, not args.no_switched, args.test_limit))
    else:
        m = run_model(RunSettings(spec, model_options=options), kitmus_test(args, out),
                      out / "test", progress=False)
        result.update(test_accuracy=round(m["accuracy"], 4), n_test=m["n"],
                      test_slices=m["slices"].get("answer_position"))
    result["test_minutes"] = round((time.perf_counter() - start) / 60, 1)
    result["published"] = PUBLISHED[args.task]
    result["model_dir"] = str(out / "model")
    if args.record:
        result["recorded"] = record_run(args, out, result)
    print(json.dumps(result))


def record_run(args: argparse.Namespace, out: Path, result: dict[str, Any]) -> str:
    """The test predictions under benchmarks/results/NAME/, listed in the manifest."""
    model = (f"SmolLM2-135M ranker (llm-loglik, top {args.train_layers} layers"
             if args.train_layers else "SmolLM2-135M ranker (llm-loglik, every parameter")
    model += f", {args.scoring} scoring)"
    if result.get("best_step") == 0:  # nothing beat the untrained model on dev: it is saved
        model += "; selected on dev: step 0, the untrained weights"
    trained = {"steps": result["steps"], "selected_step": "last (--final)" if args.final
               else result["best_step"]} if "steps" in result else {}
    default_dev = "dev" if args.task == "knowref" else "validation"
    trained["selected_on"] = ("none (--final: the last weights)" if args.final or not trained
                              else str(args.dev) if args.dev else default_dev)
    if args.dev_limit and trained["selected_on"] == default_dev:
        trained["selected_on"] += f" (its first {args.dev_limit} instances)"
    files = {"pred": save_gz(out / "test" / "predictions.jsonl", args.record,
                             "test.predictions.jsonl.gz")}
    if args.task == "knowref":
        files["switched_pred"] = save_gz(out / "switched" / "predictions.jsonl", args.record,
                                         "switched.predictions.jsonl.gz")
        entry = {"task": "knowref", "gold": "knowref/knowref_test.json", **files,
                 "model": model, **trained,
                 "expected": {"accuracy": result["test_accuracy"],
                              "switched_accuracy": result["switched_accuracy"],
                              "consistency": result["consistency"]}}
    else:
        entry = {"task": "kitmus", **kitmus_test_gold(args.variant, args.entities), **files,
                 "model": model, **trained,
                 **({"gold_first": args.test_limit} if args.test_limit else {}),
                 "expected": {"pronoun_accuracy": result["test_accuracy"]}}
    record(args.record, entry)
    return f"benchmarks/results/{args.record}"


if __name__ == "__main__":
    main()

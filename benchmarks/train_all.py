"""Run every recorded training recipe again (on a GPU when one is lent), writing the same
manifest entries and prediction files under ``benchmarks/results/``.

The recipes are the ``made_by`` commands of ``benchmarks/results/manifest.json`` (each once;
entries that train nothing, ``selected_on: none (untrained)``, are skipped), plus the recipes
stated in ``docs/lm-ranker.md`` that this CPU could not run (``EXTRA``: KnowRef on the whole
train set with switched copies, selected on dev). ``--device cuda`` is passed to the benchmarks
that take it (``lm_ranker.py``, ``kitmus_head.py``); the cross-encoder and TNE benchmarks use
CUDA by themselves when it is there (their device is ``auto``). KITMUS recipes get the suite
they name (``--suite models/kitmus-suite``, ``models/kitmus-4``) generated first with default
settings (``refbench kitmus generate --no-probe``), the suite the recorded gold is
regenerated from. Each recipe's output goes to ``LOGS/NAME.log``; an interrupted recipe
is continued by running this again with ``--resume`` (passed to recipes whose folder exists).

    python benchmarks/train_all.py [--device cuda] [--only NAME ...] [--extra] [--dry-run]
        [--logs models/logs] [--resume]
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "benchmarks" / "results" / "manifest.json"
TAKES_DEVICE = ("benchmarks/lm_ranker.py", "benchmarks/kitmus_head.py")
KITMUS_VARIANTS = ("background-pretrain", "background-pretrain-no-noise", "background-both",
                   "background-inference-real-charfict", "background-inference-real-wordfict",
                   "background-inference-charfict-real", "background-inference-charfict-charfict",
                   "background-inference-charfict-wordfict")
EXTRA = {
    # KnowRef, honestly (scripts/lm_ranker_runs.sh's full recipe): every parameter, the whole
    # train set with switched copies balanced by text position, selected every 250 steps on 800
    # dev instances balanced the same way, scored once on test and its switched copy.
    "lm-knowref-full-augment-baltext":
        "python benchmarks/lm_ranker.py --task knowref --augment --balance-train --balance-by "
        "text --balance-dev 800 --train-layers 0 --epochs 2 --lr 2e-5 --eval-every 250 "
        "--patience 4 --checkpoint-every 100 --threads 1 --out "
        "models/lm-knowref-full-augment-baltext --record lm-knowref-full-augment-baltext",
    **{f"head-kitmus-{v}-4": f"python benchmarks/kitmus_head.py --suite models/kitmus-4 "
                              f"--variant {v} --entities 4 --epochs 10 --rank 0 --cache "
                              f"models/kitmus-4-features --threads 1 --out "
                              f"models/head-kitmus-{v}-4 --record head-kitmus-{v}-4"
       for v in KITMUS_VARIANTS},
}


def recipes(extra: bool) -> dict[str, str]:
    """name -> command line, each command once (an entry per test set shares one)."""
    manifest = json.loads(MANIFEST.read_text())
    out: dict[str, str] = {}
    for name, entry in sorted(manifest.items()):
        if str(entry.get("selected_on", "")).startswith("none (untrained)"):
            continue
        if entry["made_by"] not in out.values():
            out[name] = entry["made_by"]
    if extra:  # a recipe recorded since is run once, under its recorded command
        out.update({k: v for k, v in EXTRA.items() if k not in manifest})
    return out


def prepared(cmd: str, device: str, resume: bool) -> list[str]:
    argv = shlex.split(cmd)
    argv[0] = sys.executable
    if device != "cpu" and argv[1] in TAKES_DEVICE:
        argv += ["--device", device]
    out = argv[argv.index("--out") + 1] if "--out" in argv else None
    if resume and out and (ROOT / out).exists() and argv[1] in TAKES_DEVICE:
        argv.append("--resume")
    return argv


def suite_command(argv: list[str]) -> list[str] | None:
    """The generate command for a KITMUS recipe's suite, when it is not there yet."""
    if "--suite" not in argv:
        return None
    suite = ROOT / argv[argv.index("--suite") + 1]
    variant = argv[argv.index("--variant") + 1] if "--variant" in argv else "background-pretrain"
    entities = argv[argv.index("--entities") + 1] if "--entities" in argv else "4"
    if (suite / variant / f"subtask_{entities}_ents" / "test.jsonl").is_file():
        return None
    return [sys.executable, "-m", "refbench", "kitmus", "generate", "--out", str(suite),
            "--variants", variant, "--entities", entities, "--formats", "jsonl",
            "--no-probe", "--quiet"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cuda", help="cuda (default), cuda:N or cpu")
    ap.add_argument("--only", nargs="*", default=None, metavar="NAME")
    ap.add_argument("--extra", action="store_true",
                    help="also the recipes not recorded yet (docs/lm-ranker.md)")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--dry-run", action="store_true", help="print the commands only")
    ap.add_argument("--logs", type=Path, default=ROOT / "models" / "logs")
    args = ap.parse_args()
    todo = recipes(args.extra or bool(args.only))
    if args.only:
        unknown = sorted(set(args.only) - todo.keys())
        if unknown:
            print(f"error E100: --only {' '.join(unknown)}: no such recipe; known: "
                  f"{', '.join(sorted(todo))}", file=sys.stderr)
            raise SystemExit(2)
        todo = {k: v for k, v in todo.items() if k in args.only}
    failed = []
    for name, cmd in todo.items():
        argv = prepared(cmd, args.device, args.resume)
        steps = [s for s in (suite_command(argv), argv) if s]
        for step in steps:
            print(shlex.join(step), flush=True)
        if args.dry_run:
            continue
        args.logs.mkdir(parents=True, exist_ok=True)
        with (args.logs / f"{name}.log").open("a", encoding="utf-8") as log:
            for step in steps:
                rc = subprocess.run(step, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                    check=False).returncode
                if rc:
                    failed.append(name)
                    break
    if failed:
        print(f"failed: {', '.join(failed)} (see {args.logs})", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()

"""Benchmark: `refbench evaluate` of one 4-entity KITMUS file, side by side with the official
evaluator and with the time Python needs to start and read the two files.

Prints one JSON line: medians over ``--repeat`` rounds, each round running, in turn, a bare
Python that starts and reads (decompresses) the gold and prediction files, ``refbench
evaluate`` on them, and the official evaluator (``evaluate.py`` of mpoemsl/kitmus, given with
``--official DIR``; it reads plain files, so both are given the same plain copies). Also the
load average before and after. Targets (issue 43): refbench within 1.5x of start-and-read,
and faster than the official evaluator side by side.

``refbench evaluate`` keeps a token-level gold file parsed in its cache folder (keyed by
content), and a command asked again with nothing changed is answered from its memo
(:mod:`refbench.cli.memo`). Three cases are timed: ``refbench_first_s``, a fresh cache folder
(the gold parsed); ``refbench_new_pred_s``, a new prediction file each round (a fresh copy: the
memo misses, the gold's parse is read from the cache), what scoring a new system costs; and
``refbench_s``, the same two files again (the memo answers). Interpreters run with bytecode
caching on, as installed software does (the first round also writes the ``.pyc`` files). The
files are made, and then left alone for two seconds: the memo never trusts a file changed in
the second before a run.

The default predictions are the release's own clusters, a perfect run, whose intervals need no
resampling (every instance counts the same); ``--imperfect`` drops one cluster from 30% of
the documents (seeded), so the bootstrap resamples (numpy imported) as for a real system.

    python benchmarks/evaluate.py [--official DIR] [--gold F --pred F] [--imperfect]
        [--repeat 5]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import load_fields  # benchmarks/ on path

OFFICIAL = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "kitmus-official"
FILE = OFFICIAL / "released" / "background-train" / "subtask_4_ents" / "full-text"
READ = "import gzip, sys\nfor f in sys.argv[1:]:\n    open(f, 'rb').read()\n"


def _timed(cmd: list[str], env: dict[str, str], cwd: Path | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=env, cwd=cwd)
    return time.perf_counter() - start


def _plain(src: Path, dest: Path, *, imperfect: bool = False) -> Path:
    """A plain copy (the official evaluator reads no gzip); ``imperfect``: one cluster fewer in
    30% of the documents (a jsonlines file)."""
    opener = gzip.open if src.suffix == ".gz" else open
    with opener(src, "rb") as fh:
        data = fh.read()
    if imperfect:
        rng = random.Random(0)
        lines = []
        for line in data.decode("utf-8").splitlines():
            doc = json.loads(line)
            if rng.random() < 0.3:
                doc["clusters"] = doc["clusters"][1:]
            lines.append(json.dumps(doc))
        data = ("\n".join(lines) + "\n").encode("utf-8")
    dest.write_bytes(data)
    return dest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--official", type=Path, default=None,
                    help="A checkout of mpoemsl/kitmus (its evaluate.py and utils.py).")
    ap.add_argument("--gold", type=Path, default=FILE / "test.v4_gold_conll.gz")
    ap.add_argument("--pred", type=Path, default=FILE / "test.jsonlines.gz",
                    help="Predictions (default: the release's own clusters, a perfect run).")
    ap.add_argument("--imperfect", action="store_true",
                    help="Drop one cluster from 30%% of the predicted documents (seeded).")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    if not args.gold.exists():
        raise SystemExit(f"{args.gold} not present (../shared/data)")
    tmp = Path(tempfile.mkdtemp(prefix="refbench-eval-bench-"))
    load_before = os.getloadavg()
    try:
        gold = _plain(args.gold, tmp / "test.v4_gold_conll")
        pred = _plain(args.pred, tmp / "test.jsonlines", imperfect=args.imperfect)
        fresh = tmp / "fresh"
        fresh.mkdir()
        copies = [shutil.copy(pred, fresh / f"{i}.jsonlines") for i in range(args.repeat + 1)]
        (tmp / "cache").mkdir()
        time.sleep(2)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(HF_HUB_OFFLINE="1", REFBENCH_CACHE_DIR=str(tmp / "cache"))
        read = [sys.executable, "-c", READ, str(gold), str(pred)]
        refbench = [sys.executable, "-c", "from refbench.cli import main; main()", "evaluate",
                    "--task", "kitmus", "--gold", str(gold), "--pred", str(pred), "--json"]
        official = None
        if args.official is not None:
            work = tmp / "official"
            work.mkdir()
            for name in ("evaluate.py", "utils.py"):
                shutil.copy(args.official / name, work / name)
            official = ([sys.executable, str(work / "evaluate.py"), str(gold), str(pred)], work)
        times: dict[str, list[float]] = {"read": [], "refbench": [], "official": [],
                                         "new_pred": []}
        for i in range(args.repeat + 1):
            times["read"].append(_timed(read, env))
            times["refbench"].append(_timed(refbench, env))
            times["new_pred"].append(_timed([*refbench[:-2], str(copies[i]), "--json"], env))
            if official is not None:
                times["official"].append(_timed(official[0], env, official[1]))
        first = times["refbench"].pop(0)  # a fresh cache folder: the gold is parsed
        times["read"].pop(0)
        times["new_pred"].pop(0)
        if official is not None:
            times["official"].pop(0)
        med = {k: round(statistics.median(v), 3) for k, v in times.items() if v}
        out = {"benchmark": "evaluate", "gold": str(args.gold), "pred": str(args.pred),
               "gold_mb": round(gold.stat().st_size / 2**20, 1),
               "pred_mb": round(pred.stat().st_size / 2**20, 1), "repeat": args.repeat,
               "pred_kind": "imperfect (30% of documents lose a cluster)" if args.imperfect
               else "perfect (the release's own clusters)",
               "python_start_and_read_s": med["read"], "refbench_s": med["refbench"],
               "refbench_first_s": round(first, 3),
               "refbench_new_pred_s": med["new_pred"],
               "official_s": med.get("official"),
               "refbench_over_read": round(med["refbench"] / med["read"], 2),
               "refbench_first_over_read": round(first / med["read"], 2),
               "refbench_new_pred_over_read": round(med["new_pred"] / med["read"], 2),
               "official_over_refbench": round(med["official"] / med["refbench"], 2)
               if "official" in med else None,
               "official_over_refbench_new_pred": round(med["official"] / med["new_pred"], 2)
               if "official" in med else None,
               "target_over_read": 1.5,
               **load_fields(load_before[0])}
        print(json.dumps(out))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

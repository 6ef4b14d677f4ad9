"""Run the whole bad-input table (tests/robustness/cases.py) and count the cases that keep the
promise: one line ``error E...``, exit code 2, no traceback, nothing left behind (or exit 0 for
the rows that expect success).

    python scripts/bad_input_sweep.py                 # this checkout
    python scripts/bad_input_sweep.py --src ../main/src --failures failing.txt

``--src`` runs the same table against another checkout's package (the "before" count);
``--promise-only`` ignores the message fragments (any one clear error line counts). Prints
one JSON line: cases run, kept, and the counts by cause; ``--failures`` writes every failing
case with what went wrong. Cases about file permissions are skipped where permissions do not
bind (root); run them as root with ``setpriv --bounding-set -dac_override,-dac_read_search
--inh-caps -dac_override,-dac_read_search python scripts/bad_input_sweep.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", type=Path, default=None, help="package folder to test (.../src)")
    ap.add_argument("--failures", type=Path, default=None, help="write failing cases here")
    ap.add_argument("--only", default=None, help="only cases whose id contains this text")
    ap.add_argument("--boundaries", action="store_true",
                    help="only issue 42's rows (tests/robustness/cases_boundaries.py)")
    ap.add_argument("--promise-only", action="store_true",
                    help="judge only the promise (exit code, one error line, no traceback, "
                         "nothing left behind), not the expected message fragment")
    args = ap.parse_args()
    if args.src is not None:
        sys.path.insert(0, str(args.src.resolve()))
    sys.path.insert(0, str(ROOT))
    os.environ["HF_HUB_OFFLINE"] = "1"

    from tests.robustness.cases import all_cases
    from tests.robustness.cases_boundaries import boundary_cases
    from tests.robustness.harness import (
        expand,
        invoke,
        permissions_enforced,
        problems,
        snapshot,
    )
    from tests.robustness.support import make_support

    is_root = not permissions_enforced()
    kept: Counter[str] = Counter()
    total: Counter[str] = Counter()
    failing = []
    outcomes: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        support = make_support(Path(tmp) / "support")
        for k, case in enumerate(boundary_cases() if args.boundaries else all_cases()):
            if (case.needs_non_root and is_root) or (args.only and args.only not in case.id):
                continue
            case_dir = Path(tmp) / f"case{k}"
            case_dir.mkdir()
            if case.make is not None:
                case.make(case_dir, support)
            before = snapshot(case_dir)
            outcome = invoke(expand(case.args, support, case_dir), cwd=case_dir,
                             env={"REFBENCH_STORE": str(Path(tmp) / f"store{k}.sqlite")},
                             path=case.path.replace("{T}", str(case_dir)))
            found = problems(case, outcome, before, snapshot(case_dir))
            if args.promise_only:
                found = [f for f in found if not f.startswith(("message lacks", "output lacks"))]
            total[case.cause] += 1
            if found:
                failing.append(f"{case.id}\n    " + "\n    ".join(found))
                outcomes[_kind(case, outcome, found)] += 1
            else:
                kept[case.cause] += 1
            for p in case_dir.rglob("*"):
                if p.is_dir():
                    os.chmod(p, 0o755)
    if args.failures:
        args.failures.write_text("\n".join(failing) + "\n", encoding="utf-8")
    print(json.dumps({"cases": sum(total.values()), "kept": sum(kept.values()),
                      "by_cause": {c: f"{kept[c]}/{n}" for c, n in sorted(total.items())},
                      "failing_by_kind": dict(sorted(outcomes.items())),
                      "permission_cases_skipped": is_root}))


def _kind(case: object, outcome: object, found: list[str]) -> str:
    """How a failing case failed: a traceback, a silent pass (exit 0 where an error was
    due), an unbounded wait (none here: waits are in the pytest files) or another failure."""
    if any(f.startswith("traceback") for f in found):
        return "traceback"
    if getattr(outcome, "code", None) == 0 and getattr(case, "code", 0) != 0:
        return "silent"
    return "other"


if __name__ == "__main__":
    main()

"""Regenerate ``src/refbench/tasks/test_content.txt.gz``: the content keys of every test
instance of the releases refbench knows, which the selection check
(:mod:`refbench.tasks.selection`) looks dev data up in.

    python scripts/test_content_table.py --data ../shared/data --suite kitmus-suite

``--data`` is a data folder laid out as ``refbench data get`` fills it (``../shared/data`` is
one); ``--suite`` a KITMUS suite made with the default settings (``refbench kitmus generate
--splits test --formats jsonl``), whose test split joins the table as ``kitmus-suite (test)``.
A release's file is a test file when its split's name or its file name says ``test`` (TNE's
``ood`` too); every other file of every release is read as well, and a key found in any of
them is left out, so a dev or train split is never refused for a text it shares with a test
split. Releases with more than ``--full`` test instances keep one key in ``--sample`` (chosen
by the key, so the same instance is always kept): a copied test file still shows hundreds.
Prints one JSON line of counts per release.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections.abc import Iterator
from pathlib import Path

from refbench.core.errors import RefbenchError
from refbench.releases import all_releases
from refbench.releases.cache import present
from refbench.tasks.lookup import get_task
from refbench.tasks.selection import TABLE, TEST_FILE, file_keys

TESTISH = ("test", "ood")


def files_of(data: Path) -> Iterator[tuple[str, Path, bool]]:
    """(release label, file, is it a test file) of every data file of every release."""
    for release in all_releases():
        if release.name.endswith("-predictions"):
            continue
        by_file = {f"{release.root}/{rel}": split for split, rel in release.splits.items()}
        for entry in release.files:
            path = present(data, entry)
            if path is None:
                continue
            split = next((s for rel, s in by_file.items()
                          if entry.file == rel or entry.file.startswith(rel + "/")), "")
            test = any(w in split.split("-") for w in TESTISH) or (
                TEST_FILE.search(path.name) is not None)
            yield f"{release.name} ({split or 'file'})", path, test


def keys_of(path: Path, task_name: str) -> list[str]:
    try:
        return [key for _, key in file_keys(path, get_task(task_name), {})]
    except RefbenchError:
        return []  # not a data file (a licence, a resource list, a view no reader takes)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--suite", type=Path, default=None)
    ap.add_argument("--full", type=int, default=10_000)
    ap.add_argument("--sample", type=int, default=16)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "src"
                    / "refbench" / "tasks" / TABLE)
    args = ap.parse_args()
    tasks = {r.name: r.task for r in all_releases()}
    test: dict[str, set[str]] = {}
    other: set[str] = set()
    for label, path, is_test in files_of(args.data):
        keys = keys_of(path, tasks[label.split(" ")[0]])
        if is_test:
            release = label.split(" ")[0]
            test.setdefault(release + " (test)", set()).update(keys)
        else:
            other.update(keys)
    if args.suite is not None:
        suite: set[str] = set()
        for path in sorted(args.suite.glob("*/*/test.jsonl")):
            suite.update(keys_of(path, "kitmus"))
        if not suite:
            print(f"no */*/test.jsonl under {args.suite}", file=sys.stderr)
            return 2
        test["kitmus-suite (test)"] = suite
    lines = [f"# refbench test-instance content keys: {TABLE}, made by "
             "scripts/test_content_table.py; do not edit"]
    for label in sorted(test):
        keys = test[label] - other
        kept = sorted(keys if len(keys) <= args.full
                      else {k for k in keys if int(k, 16) % args.sample == 0})
        print(json.dumps({"release": label, "test_keys": len(test[label]),
                          "shared_with_other_splits": len(test[label] & other),
                          "kept": len(kept)}))
        lines += [f"# {label}", *kept]
    args.out.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: KnowRef mining speed on real text (AltEntities descriptions and unshown
backgrounds, TNE documents): sentences per second with 1 and 2 workers, and the funnel.
Prints one JSON line.

    python benchmarks/knowref_mine.py [--records N]
"""

from __future__ import annotations

import argparse
import gzip
import json
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from refbench.tasks.knowref.mine import mine

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _texts() -> Iterator[str]:
    for d in ("books", "recipes", "songs"):
        for split in ("dev", "test"):
            with gzip.open(DATA / "altentities" / d / f"{split}.json.gz", "rt") as fin:
                questions = json.load(fin)
            for q in questions:
                for c in q["choices"]:
                    for key in ("description", "unshown_background"):
                        yield c.get(key, "")
    for name in ("dev.jsonl.gz", "test.jsonl.gz"):
        with gzip.open(DATA / "tne" / name, "rt") as tne:
            for line in tne:
                yield json.loads(line).get("text", "")


def corpus(out: Path, limit: int) -> int:
    """Write up to ``limit`` records (0: all) of real text as JSONL; return how many."""
    n = 0
    with out.open("w") as fh:
        for text in _texts():
            if limit and n >= limit:
                break
            fh.write(json.dumps({"text": text}) + "\n")
            n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--records", type=int, default=0, help="Limit (0: all).")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="mine-bench-"))
    src = tmp / "corpus.jsonl"
    corpus(src, args.records)
    out: dict[str, object] = {"benchmark": "knowref_mine"}
    for workers in (1, 2):
        start = time.perf_counter()
        rep = mine([src], tmp / f"out{workers}.jsonl", workers=workers, progress=False)
        wall = time.perf_counter() - start
        out[f"workers_{workers}"] = {"wall_s": round(wall, 1),
                                     "sentences_per_s": round(rep["funnel"]["sentences"] / wall)}
        out["funnel"] = rep["funnel"]
        out["candidates"] = rep["candidates"]
    w1, w2 = out["workers_1"], out["workers_2"]
    out["speedup_1_to_2"] = round(w1["wall_s"] / w2["wall_s"], 2)  # type: ignore[index]
    out["sentences_per_s_per_core"] = w1["sentences_per_s"]  # type: ignore[index]
    print(json.dumps(out))


if __name__ == "__main__":
    main()

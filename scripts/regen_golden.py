"""Regenerate the golden files of the tiny KITMUS suite (tests/golden/kitmus-tiny).

Run after an intended change to the generator, then review the diff:
    python scripts/regen_golden.py && git diff --stat tests/golden
"""

from __future__ import annotations

from pathlib import Path

from refbench.tasks.kitmus.resources import load_resources
from refbench.tasks.kitmus.suite import generate_suite

GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "golden" / "kitmus-tiny"
TINY = {
    "variants": ["background-pretrain", "background-inference-charfict-wordfict"],
    "entities": [2, 3],
    "sizes": {"train": 2, "validation": 1, "test": 2},
    "seed": 7,
}


def tiny_config():  # type: ignore[no-untyped-def]
    from refbench.tasks.kitmus.suite import make_config

    return make_config(variants=TINY["variants"], entities=TINY["entities"],
                       sizes=TINY["sizes"], seed=TINY["seed"])


def main() -> None:
    generate_suite(load_resources(), GOLDEN, tiny_config(), workers=1, overwrite=True,
                   progress=False)
    print(f"wrote {sum(1 for p in GOLDEN.rglob('*') if p.is_file())} files to {GOLDEN}")


if __name__ == "__main__":
    main()

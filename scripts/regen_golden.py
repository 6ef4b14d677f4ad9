"""Regenerate the golden files of the tiny KITMUS suite (tests/golden/kitmus-tiny).

Run after an intended change to the generator, then review the diff:
    python scripts/regen_golden.py && git diff --stat tests/golden
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from refbench.tasks.kitmus.generate.resources import load_resources
from refbench.tasks.kitmus.generate.suite import generate_suite

GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "golden" / "kitmus-tiny"
TINY = {
    "variants": ["background-pretrain", "background-inference-charfict-wordfict"],
    "entities": [2, 3],
    "sizes": {"train": 2, "validation": 1, "test": 2},
    "seed": 7,
}


def tiny_config():  # type: ignore[no-untyped-def]
    from refbench.tasks.kitmus.generate.suite import make_config

    return make_config(variants=TINY["variants"], entities=TINY["entities"],
                       sizes=TINY["sizes"], seed=TINY["seed"])


_MACHINE_LINES = re.compile(r"^(- git commit:|- resource folder:|- generator fingerprint:).*$",
                            re.MULTILINE)


def without_provenance(name: str, data: bytes) -> bytes:
    """A suite file with its machine-dependent provenance (git commit, resource path,
    generator fingerprint) blanked: the rest must be byte-identical everywhere."""
    if name == "DATASHEET.md":
        return _MACHINE_LINES.sub(r"\1 (machine-dependent)", data.decode()).encode()
    if name == "stats.json":
        stats = json.loads(data)
        stats["provenance"] = "(machine-dependent)"
        return (json.dumps(stats, indent=2, ensure_ascii=False) + "\n").encode()
    return data


def main() -> None:
    generate_suite(load_resources(), GOLDEN, tiny_config(), workers=1, overwrite=True,
                   progress=False)
    for name in ("DATASHEET.md", "stats.json"):
        path = GOLDEN / name
        path.write_bytes(without_provenance(name, path.read_bytes()))
    print(f"wrote {sum(1 for p in GOLDEN.rglob('*') if p.is_file())} files to {GOLDEN}")


if __name__ == "__main__":
    main()

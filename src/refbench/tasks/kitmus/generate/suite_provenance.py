"""Where a generated suite came from and whether it kept its promises.

- provenance: refbench version, git commit, the resolved resource folder and its hash, and a
  fingerprint of the generator's code (machine-dependent, so kept apart in ``stats.json``'s
  ``provenance`` block and the datasheet's Provenance section);
- licence of the resources the suite was drawn from.

Freshness (whether a suite folder need be generated again) compares a ``stats.json`` with
what these give now: :func:`refbench.tasks.kitmus.generate.suite.stale_reason`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from refbench.core.provenance import git_dirty, git_hash
from refbench.tasks.kitmus.generate.resources import BUILTIN_DIR, Resources

OFFICIAL_LICENCE = ("KITMUS resources (github.com/mpoemsl/kitmus): data CC BY-SA 3.0, code MIT; "
                    "a suite generated from them is a derivative of CC BY-SA 3.0 data")
BUILTIN_LICENCE = ("refbench's own pools (MIT, like refbench; see PROVENANCE.md): surnames from "
                   "the 1990 US census (public domain, via the `names` package), occupations, "
                   "situations, locations, noise and templates written for refbench")
CUSTOM_LICENCE = "not recorded for a custom resource folder: state it before sharing the suite"


def resource_layout(res: Resources) -> str:
    root = Path(res.source)
    if root.resolve() == BUILTIN_DIR.resolve():
        return "builtin"
    if (root / "vocab.json").is_file() and (root / "occupations").is_dir():
        return "official"
    return "refbench"


def resource_licence(res: Resources) -> str:
    return {"builtin": BUILTIN_LICENCE, "official": OFFICIAL_LICENCE}.get(resource_layout(res),
                                                                          CUSTOM_LICENCE)


def generator_fingerprint() -> str:
    """A hash of the code that decides a suite's bytes (over-inclusive on purpose: any change
    to the KITMUS task, the file formats or the core helpers counts)."""
    pkg = Path(__file__).resolve().parents[3]
    files = sorted([*(pkg / "tasks" / "kitmus").rglob("*.py"), *(pkg / "formats").glob("*.py"),
                    *(pkg / "core").glob("*.py")])
    h = hashlib.sha256()
    for f in files:
        h.update(f"{f.relative_to(pkg)}\0".encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def provenance_block(res: Resources) -> dict[str, Any]:
    return {"git_commit": git_hash(), "git_dirty": git_dirty(),
            "resources_path": str(Path(res.source).resolve()),
            "generator_fingerprint": generator_fingerprint()}

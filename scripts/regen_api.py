"""Regenerate tests/golden/api.txt, the pinned public interface of refbench.api (what plugins
import), and tests/golden/python-api.txt, the Python API (refbench.load, run, ...). Run after
an intended change to either, then review the diff:
    python scripts/regen_api.py && git diff tests/golden/
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.public.test_api import GOLDEN, PYTHON_GOLDEN, describe  # noqa: E402

if __name__ == "__main__":
    GOLDEN.write_text(describe(), encoding="utf-8")
    PYTHON_GOLDEN.write_text(describe("refbench.public"), encoding="utf-8")
    print(f"wrote {GOLDEN} and {PYTHON_GOLDEN}")

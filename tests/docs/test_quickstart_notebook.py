"""The guide as a notebook (issue 51): docs/notebooks/quickstart.ipynb is what
scripts/regen_notebook.py makes of docs/guide/python.md, and it runs, cell by cell, under a
real Jupyter kernel (nbclient + ipykernel) beside ../shared, its figure cells giving PNGs."""

from __future__ import annotations

import base64
import time
from pathlib import Path

import pytest
from scripts.regen_notebook import GUIDE, NOTEBOOK, cells_of, execute, notebook_from_guide

from tests.conftest import SHARED

nbformat = pytest.importorskip("nbformat")


def test_the_committed_notebook_is_generated_from_the_guide() -> None:
    generated = notebook_from_guide(GUIDE.read_text(encoding="utf-8"))
    committed = nbformat.read(NOTEBOOK, as_version=4)
    assert cells_of(committed) == cells_of(generated), \
        "docs/notebooks/quickstart.ipynb is stale: run python scripts/regen_notebook.py"
    nbformat.validate(committed)
    code = [c["source"] for c in generated["cells"] if c["cell_type"] == "code"]
    for shown in ("def nearest_before", "class LongestName(ChoiceModel)", "from_transformers(",
                  "loglik(shortest", "refbench.compare(", "results_frame(", "SUBTASK = \"kitmus"):
        assert any(shown in c for c in code), shown


def _pngs(cell: dict[str, object]) -> list[bytes]:
    return [base64.b64decode(str(o["data"]["image/png"]))  # type: ignore[index]
            for o in cell.get("outputs", [])  # type: ignore[attr-defined]
            if "image/png" in o.get("data", {})]


@pytest.mark.skipif(not (SHARED / "data").is_dir(), reason=f"{SHARED / 'data'} not present")
def test_the_notebook_runs_under_a_jupyter_kernel(tmp_path: Path) -> None:
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    nb = notebook_from_guide(GUIDE.read_text(encoding="utf-8"))
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "shared").symlink_to(SHARED.resolve())
    start = time.monotonic()
    execute(nb, work=work, data=Path("../shared/data"), timeout=600)
    seconds = time.monotonic() - start
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert all(c.get("execution_count") for c in code)
    assert not [o for c in code for o in c["outputs"] if o["output_type"] == "error"]
    figures = [c for c in code if c["source"].rstrip().endswith(("figure", ".plot()"))]
    assert len(figures) >= 3
    for cell in figures:
        pngs = _pngs(cell)
        assert len(pngs) == 1 and pngs[0].startswith(b"\x89PNG"), cell["source"][-80:]
    text = "".join(o.get("text", "") for c in code for o in c["outputs"]
                   if o["output_type"] == "stream" and o.get("name") == "stdout")
    assert "returned 2; expected a candidate index 0-1" in text  # the broken model's error
    assert (work / "kitmus-first.png").is_file()
    print(f"quickstart notebook: {seconds:.0f} s under a Jupyter kernel")

"""Regenerate docs/notebooks/quickstart.ipynb from docs/guide/python.md: the guide's text as
Markdown cells and each ``python`` block as a code cell, in order (other fenced blocks stay in
the text). The guide is the one source; the notebook is never edited by hand, and
tests/docs/test_quickstart_notebook.py checks that the committed one is what this script makes
of the guide, then runs it under a real Jupyter kernel.

    python scripts/regen_notebook.py            # the cells, keeping the committed outputs
    python scripts/regen_notebook.py --execute  # run it (a kernel, ../shared/data) and store
                                                # the outputs that the docs site shows

The outputs are what the documentation site renders (myst-nb, without executing anything);
``--execute`` needs the releases in ../shared/data, as the guide's own test does.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide" / "python.md"
NOTEBOOK = ROOT / "docs" / "notebooks" / "quickstart.ipynb"
SHARED = ROOT.parent / "shared"
TITLE = "# Quickstart notebook: refbench from Python"
NOTE = ("*This notebook is generated from the guide [refbench from Python](../guide/python.md) "
        "by `scripts/regen_notebook.py`, and the tests run it under a Jupyter kernel: edit the "
        "guide, then regenerate it.*")
FENCE = re.compile(r"^```python\n(.*?)^```\n?", re.S | re.M)
# a link to a page beside the guide (``commands.md``), seen from docs/notebooks/
LOCAL_LINK = re.compile(r"\]\((?![a-z]+:|\.\./|#|/)([^)]+)\)")


def _markdown(text: str) -> str:
    text = LOCAL_LINK.sub(r"](../guide/\1)", text.strip())
    return text.replace("# refbench from Python", TITLE, 1) if text.startswith("# ") else text


def notebook_from_guide(text: str) -> Any:
    """The notebook of the guide ``text``: Markdown and code cells with stable ids."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    cells: list[Any] = []
    pos = 0
    for m in FENCE.finditer(text):
        if text[pos:m.start()].strip():
            cells.append(new_markdown_cell(_markdown(text[pos:m.start()])))
        cells.append(new_code_cell(m.group(1).rstrip("\n")))
        pos = m.end()
    if text[pos:].strip():
        cells.append(new_markdown_cell(_markdown(text[pos:])))
    cells.insert(1, new_markdown_cell(NOTE))
    for k, cell in enumerate(cells):
        cell["id"] = f"cell-{k:02d}"
    nb = new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"}})
    nbformat.validate(nb)
    return nb


def cells_of(nb: Any) -> list[tuple[str, str, str]]:
    """(id, type, source) of every cell: what must equal between the committed notebook and
    the generated one (outputs and execution counts are the run's)."""
    return [(c.get("id", ""), c["cell_type"], c["source"]) for c in nb["cells"]]


def execute(nb: Any, *, work: Path, data: Path, timeout: int = 600) -> float:
    """Run ``nb`` in place under a Jupyter kernel (``python3``: this interpreter) with its
    working folder ``work`` and the releases in ``data``; returns the seconds it took."""
    from nbclient import NotebookClient

    env = {"REFBENCH_DATA_DIR": str(data), "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": str(ROOT / "src")}
    saved = {k: os.environ.get(k) for k in [*env, "REFBENCH_STORE", "MPLBACKEND"]}
    os.environ.update(env)
    for k in ("REFBENCH_STORE", "MPLBACKEND"):
        os.environ.pop(k, None)
    try:
        start = time.monotonic()
        NotebookClient(nb, timeout=timeout, kernel_name="python3",
                       resources={"metadata": {"path": str(work)}}).execute()
        return time.monotonic() - start
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def main(argv: list[str]) -> int:
    import nbformat

    nb = notebook_from_guide(GUIDE.read_text(encoding="utf-8"))
    if "--execute" in argv:
        with tempfile.TemporaryDirectory(prefix="refbench-notebook-") as tmp:
            work = Path(tmp) / "work"
            work.mkdir()
            (Path(tmp) / "shared").symlink_to(SHARED.resolve())
            seconds = execute(nb, work=work, data=Path("../shared/data"))
        print(f"executed in {seconds:.0f} s")
    elif NOTEBOOK.exists():  # keep the outputs of the cells that did not change
        old = {c.get("id"): c for c in nbformat.read(NOTEBOOK, as_version=4)["cells"]}
        for cell in nb["cells"]:
            before = old.get(cell["id"])
            if cell["cell_type"] == "code" and before is not None \
                    and before["source"] == cell["source"]:
                cell["outputs"] = before.get("outputs", [])
                cell["execution_count"] = before.get("execution_count")
    NOTEBOOK.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, NOTEBOOK)
    print(f"wrote {NOTEBOOK.relative_to(ROOT)} ({len(nb['cells'])} cells)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

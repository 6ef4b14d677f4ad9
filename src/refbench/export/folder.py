"""An export folder is complete or absent: exports are written into a temporary sibling folder
(which records its owner) and renamed onto ``--out`` only once every file is in it.

A kill at any point (SIGKILL, a full disk, a bad input found half-way) therefore leaves either
no ``--out`` at all or the previous complete export untouched, plus at most a hidden
``.OUT.*.partial`` folder that the next export into the same place removes. An existing
``--out`` is replaced whole, so no file of an earlier export survives (a stale task YAML would
be loaded by lm-eval's ``--include_path``), and only when it is an earlier export of the same
kind: a folder of anything else is refused rather than deleted.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from pathlib import Path

from refbench.core.errors import OutputError
from refbench.core.output_checks import check_not_input
from refbench.core.outputs import commit_output_dir, discard_output_dir, prepare_output_dir

# What the README.md of each kind of export says about itself (written by the exporters).
SIGNATURES = {
    "hf": "Exported by refbench (`refbench export hf`)",
    "lm-eval": "(lm-evaluation-harness tasks exported by refbench",
}


def is_export(folder: Path, kind: str) -> bool:
    """Whether ``folder`` holds an export of ``kind`` written by refbench (its README.md says
    so near the top)."""
    try:
        with (folder / "README.md").open(encoding="utf-8", errors="replace") as fh:
            head = fh.read(64 * 1024)
    except OSError:
        return False
    return SIGNATURES[kind] in head


@contextlib.contextmanager
def export_folder(out: Path, kind: str, *, inputs: Iterable[tuple[Path, str]] = ()
                  ) -> Iterator[Path]:
    """A fresh temporary folder to write the export of ``kind`` into; on success it replaces
    ``out`` whole, on any failure or interruption it is removed. ``inputs`` ((path, option)
    pairs) may not lie inside ``out``, which is replaced."""
    out = Path(out)
    check_not_input(out, inputs, kind="dir")
    if out.is_dir() and any(out.iterdir()) and not is_export(out, kind):
        raise OutputError(f"folder is not empty and is not an earlier `refbench export {kind}` "
                          "folder (which would be replaced whole); choose a new or empty "
                          "folder", path=out)
    tmp = prepare_output_dir(out, overwrite=True)
    try:
        yield tmp
        commit_output_dir(tmp, out)
    except BaseException:
        discard_output_dir(tmp)
        raise

"""Matplotlib without a display, one colour per system, and atomic figure files: shared by the
report's plots and by tasks that draw their own figure (KITMUS: accuracy against entities)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


def pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def colours(systems: Sequence[str]) -> dict[str, Any]:
    plt = pyplot()
    cmap = plt.get_cmap("tab10" if len(systems) <= 10 else "tab20")
    return {s: cmap(i % cmap.N) for i, s in enumerate(systems)}


def save_figure(fig: Any, out: str | Path, *, dpi: int = 110) -> None:
    """Write the figure atomically (see :func:`refbench.core.io.atomic_path`), then close it;
    the image format comes from the file name's extension."""
    from refbench.core.errors import OutputError
    from refbench.core.io import atomic_path, output_error

    plt = pyplot()
    out = Path(out)
    formats = fig.canvas.get_supported_filetypes()
    try:
        if out.suffix.lower().lstrip(".") not in formats:
            raise OutputError(f"cannot draw a {out.suffix or 'extension-less'} file; name it "
                              f".png, .pdf or .svg (supported: {', '.join(sorted(formats))})",
                              path=out)
        with atomic_path(out) as tmp:
            try:
                fig.savefig(tmp, dpi=dpi)
            except OSError as exc:
                raise output_error(exc, out) from None
    finally:
        plt.close(fig)

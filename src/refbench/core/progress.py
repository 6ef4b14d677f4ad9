"""Progress bars that suit where refbench runs: a notebook widget in a Jupyter kernel that has
``ipywidgets``, a text bar everywhere else (a terminal, a kernel without ``ipywidgets``, where
tqdm's own automatic choice warns that ``IProgress`` is missing). Decided when a bar is made,
not when refbench is imported."""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any


def in_kernel() -> bool:
    """Whether this process is a Jupyter kernel that draws widgets (not a console or
    qtconsole kernel)."""
    if "ipykernel.zmqshell" not in sys.modules:
        return False
    if any(k == "QT_API" or k.startswith("SPYDER") for k in os.environ):
        return False
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython is not None else None
    return shell is not None and "qt" not in type(shell).__name__.lower()


def has_widgets() -> bool:
    """Whether ``ipywidgets`` can be imported (tqdm's notebook bar needs it)."""
    return importlib.util.find_spec("ipywidgets") is not None


def bar_class() -> Any:
    """tqdm's notebook bar in a kernel with ``ipywidgets``, else its text bar. In a kernel
    without ``ipywidgets``, ``tqdm.auto`` is settled on the text bar here, quietly, so that the
    libraries a notebook imports next (transformers) use it without tqdm's warning."""
    if in_kernel():
        if has_widgets():
            from tqdm.notebook import tqdm as notebook_tqdm

            return notebook_tqdm
        _quiet_auto()
    from tqdm.std import tqdm as text_tqdm

    return text_tqdm


def _quiet_auto() -> None:
    if "tqdm.autonotebook" in sys.modules:
        return
    import warnings

    from tqdm import TqdmWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TqdmWarning)
        import tqdm.autonotebook  # noqa: F401


def progress_bar(**kwargs: Any) -> Any:
    """A tqdm bar (``total=``, ``desc=``, ``unit=``, ``disable=``, ...) of :func:`bar_class`."""
    return bar_class()(**kwargs)

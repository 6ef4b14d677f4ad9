"""refbench: knowledge-intensive reference resolution benchmarks.

From Python::

    import refbench

    data = refbench.load("wsc273")                      # a release name or a path
    result = refbench.run("first", "wsc273", limit=50)  # what `refbench run` does
    result.figures["accuracy"], result.intervals, result.to_pandas()
    refbench.compare([result, refbench.run("random", "wsc273", limit=50)])
    refbench.run(my_function, "wsc273", system="mine")  # a model of the session
    refbench.results_frame([result, ...])               # one DataFrame of many results

``load``, ``run``, ``evaluate``, ``compare``, ``report``, ``results_frame`` and their types
(``Dataset``, ``Result``, ``Comparison``, ``RefbenchError``) are imported on first use
(:mod:`refbench.public`), so ``import refbench`` imports no heavy library. Plugins import
:mod:`refbench.api`.
"""

from __future__ import annotations

from refbench.core.version import __version__

__all__ = ["Comparison", "Dataset", "RefbenchError", "Result", "__version__", "card",
           "compare", "evaluate", "load", "report", "results_frame", "run"]

TYPE_CHECKING = False  # typing is not imported at run time: the command line starts without it
if TYPE_CHECKING:
    from typing import Any


def __getattr__(name: str) -> Any:
    if name in __all__ and name != "__version__":
        import importlib

        # by name: the package's own import statement would make every module that reads
        # __version__ a part of a circle
        return getattr(importlib.import_module("refbench.public"), name)
    raise AttributeError(f"module 'refbench' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__} - {"TYPE_CHECKING", "annotations"})

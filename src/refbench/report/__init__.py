"""Paper-style tables and plots from result files.

The package is also ``refbench.report(results, format=...)`` of the Python API: the
``refbench`` package's ``report`` is this package, made callable, because a subpackage of that
name is what ``refbench.report`` names once any of its modules is imported."""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any


class _CallableReport(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> str:
        """:func:`refbench.public.running.report`."""
        # by name: the Python API sits above this package
        report: Any = importlib.import_module("refbench.public.running").report
        return str(report(*args, **kwargs))


sys.modules[__name__].__class__ = _CallableReport

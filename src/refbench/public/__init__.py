"""refbench from Python (``import refbench``): ``load``, ``run``, ``evaluate``, ``compare``,
``report``, ``card`` and the objects they return (:class:`Dataset`, :class:`Result`,
:class:`Comparison`). ``docs/guide/python.md`` walks through them; the ``refbench`` package
exports them lazily, so ``import refbench`` stays light."""

from __future__ import annotations

from refbench.core.errors import RefbenchError
from refbench.public.card import card, report
from refbench.public.compare import Comparison, Pair, compare
from refbench.public.dataset import Dataset, load
from refbench.public.display import results_frame
from refbench.public.results import Figures, Result
from refbench.public.running import DEFAULT_STORE, evaluate, run

__all__ = ["DEFAULT_STORE", "Comparison", "Dataset", "Figures", "Pair", "RefbenchError",
           "Result", "card", "compare", "evaluate", "load", "report", "results_frame", "run"]

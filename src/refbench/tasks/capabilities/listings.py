"""The *listings* capability: named registries a task adds to ``refbench ls`` (KITMUS: its
variants, output formats and resource layouts; the metrics and prediction formats it scores).

A listing of the same name from several tasks (``metrics``) is shown as one; each is a
:class:`refbench.core.registry.Registry` named as ``"module:attribute"`` and imported only
when listed.
"""

from __future__ import annotations

from typing import Any

from refbench.core.registry import Registry


class Listings:
    def __init__(self, **targets: str) -> None:
        self.targets: dict[str, str] = {name.replace("_", "-"): target
                                        for name, target in targets.items()}

    def load(self, name: str) -> Registry:
        """The registry listed as ``name``."""
        import importlib

        module, _, attr = self.targets[name].partition(":")
        found: Any = getattr(importlib.import_module(module), attr)
        if not isinstance(found, Registry):
            raise TypeError(f"listing {name!r} ({self.targets[name]}) is not a Registry")
        return found

"""Calls into a plugin's code, guarded: whatever the plugin's code raises becomes one
:class:`~refbench.core.registry.PluginError` line naming the entry point, its distribution and
what it did (``predict raised KeyError: 'logits'``), exit code 1.

What passes through unchanged: refbench's own errors (a plugin that reports bad input through
:mod:`refbench.api` gives the usual exit-2 line), Ctrl-C and SIGTERM during a call (the user
stopping refbench, reported as interruptions) and ``GeneratorExit``. Everything else, a
``SystemExit`` from ``sys.exit()`` included, is the plugin's failure.

:func:`guard` wraps the methods a plugin object defines itself (not those it inherits from
refbench), also in the attributes named (a task's capabilities); an iterator a method returns
is guarded as it is consumed (a reader fails lazily, on the line it cannot read).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from refbench.core.errors import RefbenchError
from refbench.core.interrupt import Terminated
from refbench.core.registry import BUILTIN, Entry, PluginError, describe

T = TypeVar("T")
PASSED = (RefbenchError, KeyboardInterrupt, GeneratorExit, Terminated)
_GUARDED = "_refbench_guarded"


def call(entry: Entry, what: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` for the plugin ``entry``; ``what``: the call's name in the
    error (``predict``, ``Model(...)``). refbench's own entries are called as they are."""
    if entry.origin == BUILTIN:
        return fn(*args, **kwargs)
    try:
        result = fn(*args, **kwargs)
    except PASSED:
        raise
    except BaseException as exc:  # SystemExit too: the plugin's code failed
        raise PluginError(entry.failed(f"{what} raised {describe(exc)}")) from None
    if isinstance(result, Iterator):
        return _iterate(entry, what, result)  # type: ignore[return-value]
    return result


def _iterate(entry: Entry, what: str, items: Iterator[Any]) -> Iterator[Any]:
    try:
        yield from items
    except PASSED:
        raise
    except BaseException as exc:
        raise PluginError(entry.failed(f"{what} raised {describe(exc)}")) from None


def guard(obj: Any, entry: Entry, attributes: Iterable[str] = ()) -> Any:
    """``obj`` with every public method its plugin defines wrapped by :func:`call` (on the
    instance, once); the objects in ``attributes`` (when not None) too."""
    if entry.origin == BUILTIN or getattr(obj, _GUARDED, False):
        return obj
    for name in dir(type(obj)):
        if name.startswith("_"):
            continue
        static = inspect.getattr_static(type(obj), name)
        func = static.__func__ if isinstance(static, (staticmethod, classmethod)) else static
        if not inspect.isfunction(func) or _ours(func):
            continue
        bound = getattr(obj, name)
        object.__setattr__(obj, name, _wrapped(entry, name, bound))
    with contextlib.suppress(AttributeError, TypeError):  # __slots__: guarded each time
        object.__setattr__(obj, _GUARDED, True)
    for attr in attributes:
        value = getattr(obj, attr, None)
        if value is not None:
            guard(value, entry)
    return obj


def _ours(func: Any) -> bool:
    return str(getattr(func, "__module__", "") or "").startswith("refbench.")


def _wrapped(entry: Entry, name: str, bound: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(bound)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        return call(entry, name, bound, *args, **kwargs)
    return guarded

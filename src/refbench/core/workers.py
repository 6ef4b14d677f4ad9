"""Worker processes that never outlive the command that started them.

A killed parent (SIGKILL, an OOM kill) cannot clean up, and workers of a
:class:`concurrent.futures.ProcessPoolExecutor` then wait forever on their task pipe. The pool
here makes every worker (1) ask the kernel to kill it when its parent dies (Linux
``PR_SET_PDEATHSIG``), with a watchdog thread as a portable fallback, and (2) ignore Ctrl-C,
which is the parent's to handle; when the parent fails or is interrupted it terminates its
workers at once instead of waiting for their current tasks (a worker ends on SIGTERM without a
word: the parent reports the interruption).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from multiprocessing import get_context
from multiprocessing.pool import Pool
from typing import Any

_PR_SET_PDEATHSIG = 1
_HANDLED = {signal.SIGINT, signal.SIGTERM}
WATCH_SECONDS = 1.0


def _watch(parent: int) -> None:
    while True:
        time.sleep(WATCH_SECONDS)
        if os.getppid() != parent:
            os._exit(1)


def die_with_parent(parent: int) -> None:
    """Make this (worker) process end when ``parent`` ends, however the parent ends."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), daemon=True).start()


def _init_worker(parent: int, initializer: Callable[..., Any] | None,
                 initargs: tuple[Any, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # terminate() ends a worker at once
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _HANDLED)
    die_with_parent(parent)
    if initializer is not None:
        initializer(*initargs)


@contextlib.contextmanager
def worker_pool(workers: int, *, initializer: Callable[..., Any] | None = None,
                initargs: tuple[Any, ...] = ()) -> Iterator[Pool]:
    """A forked process pool whose workers die with this process; on an error or Ctrl-C in
    the block they are terminated immediately."""
    # Ctrl-C reaches the whole process group: block it while forking, so a worker never sees
    # it before its initializer ignores it (the parent gets it once unblocked).
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HANDLED)
    try:
        pool = get_context("fork").Pool(workers, initializer=_init_worker,
                                         initargs=(os.getpid(), initializer, initargs))
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
    try:
        yield pool
    except BaseException:
        pool.terminate()
        pool.join()
        raise
    pool.close()
    pool.join()


SCHEDULER_TIMEOUT_S = 5


def dask_client(scheduler: str | None) -> Any:
    """A ``distributed.Client`` connected to ``scheduler``, or a usage error that says how to
    start one: the engines that spread work over a Dask cluster (``knowref mine``,
    ``refbench run``) share it."""
    from refbench.core.errors import E_USAGE, RefbenchError, UsageError

    try:
        import distributed
    except ImportError:
        raise UsageError("the dask engine needs dask[bag] and distributed "
                         "(pip install 'dask[bag]' distributed)") from None
    if scheduler is None:
        raise UsageError("--engine dask needs --scheduler ADDRESS (e.g. tcp://127.0.0.1:8786)")
    try:
        client: Any = distributed.Client  # untyped
        return client(scheduler, timeout=SCHEDULER_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError) as exc:
        raise RefbenchError(f"cannot reach the dask scheduler at {scheduler} within "
                            f"{SCHEDULER_TIMEOUT_S} s ({type(exc).__name__}); start one with "
                            "`dask scheduler` (and `dask worker ADDRESS`), or use --engine "
                            "local", code=E_USAGE) from None

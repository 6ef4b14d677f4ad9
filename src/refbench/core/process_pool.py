"""A small pool of forked worker processes that can always be stopped.

Why not :class:`multiprocessing.pool.Pool`: its workers take tasks from one shared pipe under a
shared lock, and a worker that dies while waiting there (SIGTERM to the process group, the OOM
killer) leaves that lock held forever: ``Pool.terminate()`` then blocks on it, and a pool
interrupted while it was being built is finalized at exit with its worker-handler thread
replacing the dead workers with new ones that block on the same lock, so Ctrl-C ended in a
process that never exited (issue 33; seen once in ~50 interrupted ``kitmus generate`` runs,
with a stack dump of the stuck exit). Here every worker has its own pipe, nothing is shared, a
worker that dies is noticed (its process sentinel) and is an error instead of a result that
never comes, and stopping the pool is SIGTERM, a bounded join, then SIGKILL.

Workers (1) ask the kernel to kill them when their parent dies (Linux ``PR_SET_PDEATHSIG``,
with a watchdog thread as a portable fallback) and (2) ignore Ctrl-C, which is the parent's to
handle; SIGINT and SIGTERM are blocked while they are forked, so none sees a signal before it
has decided what to do with it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pickle
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from multiprocessing import connection, get_context
from multiprocessing.process import BaseProcess
from typing import Any, Generic, TypeVar

T = TypeVar("T")
_PR_SET_PDEATHSIG = 1
_HANDLED = {signal.SIGINT, signal.SIGTERM}
WATCH_SECONDS = 1.0
STOP_SECONDS = 5.0  # how long stopped workers get to end on SIGTERM before SIGKILL


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


def _serve(conn: connection.Connection, parent: int,
           initializer: Callable[..., Any] | None, initargs: tuple[Any, ...]) -> None:
    """A worker: set up, then answer ``(function, args)`` tasks with ``(ok, value)`` until
    told to stop (None) or the parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # stopping the pool ends a worker at once
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _HANDLED)
    die_with_parent(parent)
    if initializer is not None:
        initializer(*initargs)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        fn, args = task
        try:
            answer: tuple[bool, Any] = (True, fn(*args))
        except BaseException as exc:
            answer = (False, _portable(exc))
        try:
            conn.send(answer)
        except (EOFError, OSError):
            return  # the parent is gone
        except Exception as exc:
            with contextlib.suppress(EOFError, OSError):
                conn.send((False, RuntimeError(f"a worker's answer could not be sent back: "
                                               f"{type(exc).__name__}: {exc}")))


def _portable(exc: BaseException) -> BaseException:
    """``exc`` if it survives the pipe (an exception whose constructor takes other arguments
    than it passes to ``Exception.__init__`` fails to unpickle in the parent, which would
    raise a misleading TypeError there), else a RuntimeError carrying its type and message."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


class WorkerDied(RuntimeError):
    """A worker process ended while it had a task (killed for memory, a crash)."""


class _Worker:
    def __init__(self, process: BaseProcess, conn: connection.Connection) -> None:
        self.process = process
        self.conn = conn


class AsyncTask(Generic[T]):
    """A task given to the pool; ``get()`` waits for its value (or raises its error)."""

    def __init__(self, pool: WorkerPool, task_id: int) -> None:
        self._pool = pool
        self._id = task_id

    def get(self) -> T:
        value: T = self._pool.result(self._id)
        return value


class WorkerPool:
    """``workers`` forked processes running ``initializer(*initargs)`` once, then tasks; the
    parent drives it (no helper threads): tasks go out when a worker is free and results are
    read when the caller waits for one."""

    def __init__(self, workers: int, *, initializer: Callable[..., Any] | None = None,
                 initargs: tuple[Any, ...] = ()) -> None:
        self._workers: list[_Worker] = []
        self._idle: deque[_Worker] = deque()
        self._busy: dict[connection.Connection, tuple[_Worker, int]] = {}
        self._todo: deque[tuple[int, Callable[..., Any], tuple[Any, ...]]] = deque()
        self._done: dict[int, tuple[bool, Any]] = {}
        self._next = 0
        ctx = get_context("fork")
        parent = os.getpid()
        # Ctrl-C reaches the whole process group: block it while forking, so a worker never
        # sees it before it ignores it (the parent gets it once unblocked).
        old = signal.pthread_sigmask(signal.SIG_BLOCK, _HANDLED)
        try:
            try:
                for _ in range(workers):
                    mine, theirs = ctx.Pipe(duplex=True)
                    process = ctx.Process(target=_serve, daemon=True,
                                          args=(theirs, parent, initializer, initargs))
                    worker = _Worker(process, mine)
                    self._workers.append(worker)  # before start: a start interrupted is ended
                    process.start()
                    theirs.close()
                    self._idle.append(worker)
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, old)  # a pending Ctrl-C raises here
        except BaseException:
            self.terminate()
            raise

    # --- giving tasks and taking results ----------------------------------------------------
    def _submit(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> int:
        task_id = self._next
        self._next += 1
        self._todo.append((task_id, fn, args))
        self._dispatch()
        return task_id

    def _dispatch(self) -> None:
        while self._idle and self._todo:
            worker = self._idle.popleft()
            task_id, fn, args = self._todo.popleft()
            self._busy[worker.conn] = (worker, task_id)
            try:
                worker.conn.send((fn, args))
            except (EOFError, OSError):  # it died while idle (BrokenPipeError)
                raise self._died(worker) from None

    def _wait(self) -> None:
        """Block until a busy worker answers; a worker that ends instead is an error."""
        sentinels = {w.process.sentinel: w for w, _ in self._busy.values()}
        ready = connection.wait([*self._busy, *sentinels])
        for item in ready:
            if isinstance(item, connection.Connection) and item in self._busy:
                worker, task_id = self._busy.pop(item)
                try:
                    self._done[task_id] = worker.conn.recv()
                except (EOFError, OSError):
                    raise self._died(worker) from None
                self._idle.append(worker)
        for item in ready:
            died = sentinels.get(item) if isinstance(item, int) else None
            if died is not None and died.conn in self._busy:
                raise self._died(died)
        self._dispatch()

    @staticmethod
    def _died(worker: _Worker) -> WorkerDied:
        worker.process.join(STOP_SECONDS)
        code = worker.process.exitcode
        how = (f"killed by signal {-code}" if code is not None and code < 0
               else f"exit code {code}")
        return WorkerDied(f"a worker process ended during its task ({how}; out of memory?)")

    def result(self, task_id: int) -> Any:
        """The value of task ``task_id`` (waiting for it), or its error raised here."""
        while task_id not in self._done:
            if not self._busy:
                raise RuntimeError(f"task {task_id} was never given to this pool")
            self._wait()
        ok, value = self._done.pop(task_id)
        if not ok:
            raise value
        return value

    def imap(self, fn: Callable[[Any], T], items: Iterable[Any]) -> Iterator[T]:
        """``fn(item)`` for every item, computed by the workers, yielded in order."""
        ids = [self._submit(fn, (item,)) for item in items]
        for task_id in ids:
            yield self.result(task_id)

    def apply_async(self, fn: Callable[..., T], args: tuple[Any, ...] = ()) -> AsyncTask[T]:
        return AsyncTask(self, self._submit(fn, args))

    # --- stopping ---------------------------------------------------------------------------
    def close(self) -> None:
        """Let the workers end once idle (every task's result was taken) and wait for them."""
        for w in self._workers:
            with contextlib.suppress(OSError):
                w.conn.send(None)
        deadline = time.monotonic() + STOP_SECONDS
        for w in self._workers:
            if w.process.pid is not None:
                w.process.join(max(0.0, deadline - time.monotonic()))
        self.terminate()  # any that did not end in time

    def terminate(self) -> None:
        """End every worker now: SIGTERM, a join bounded by ``STOP_SECONDS``, then SIGKILL."""
        started = [w for w in self._workers if w.process.pid is not None]
        for w in started:
            if w.process.exitcode is None:
                with contextlib.suppress(OSError):
                    w.process.terminate()
        deadline = time.monotonic() + STOP_SECONDS
        for w in started:
            w.process.join(max(0.0, deadline - time.monotonic()))
            if w.process.exitcode is None:
                with contextlib.suppress(OSError):
                    w.process.kill()
                w.process.join(STOP_SECONDS)
        for w in self._workers:
            w.conn.close()

"""Worker processes that never outlive the command that started them, and the Dask client
that the engines spreading work over a cluster share.

:func:`worker_pool` is a :class:`refbench.core.process_pool.WorkerPool` as a context manager:
when the block fails or is interrupted the workers are ended at once instead of finishing
their current tasks (a worker ends on SIGTERM without a word: the parent reports the
interruption), and a killed parent's workers die with it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from refbench.core.process_pool import WorkerPool, die_with_parent

__all__ = ["WorkerPool", "check_scheduler", "dask_client", "die_with_parent", "worker_pool"]


@contextlib.contextmanager
def worker_pool(workers: int, *, initializer: Callable[..., Any] | None = None,
                initargs: tuple[Any, ...] = ()) -> Iterator[WorkerPool]:
    """A forked process pool whose workers die with this process; on an error or Ctrl-C in
    the block they are terminated immediately."""
    pool = WorkerPool(workers, initializer=initializer, initargs=initargs)
    try:
        yield pool
    except BaseException:
        pool.terminate()
        raise
    pool.close()


SCHEDULER_TIMEOUT_S = 5  # to connect to the scheduler and hear its identity
WORKERS_TIMEOUT_S = 30  # for the first worker to join a scheduler that has none


async def _identity(address: str, timeout: float) -> Any:
    """The scheduler's reply to ``identity``, asked over one bounded connection: distributed's
    own connect bounds the TCP connection but not the handshake read that follows, which
    waits forever on a port that accepts and says nothing, and reads an SSH banner as a frame
    count (a MemoryError)."""
    from distributed.comm.core import connect

    comm = await connect(address, timeout=timeout)  # type: ignore[no-untyped-call]
    try:
        await comm.write({"op": "identity"})
        return await comm.read()
    finally:
        comm.abort()


def check_scheduler(address: str) -> dict[str, Any]:
    """``address``'s identity when a Dask scheduler answers there within
    ``SCHEDULER_TIMEOUT_S`` seconds, else one error naming the address, what happened and the
    bound."""
    import asyncio

    from refbench.core.errors import E_USAGE, RefbenchError

    hint = ("start one with `dask scheduler` (and `dask worker ADDRESS`), or use --engine "
            "local")
    try:
        # the connection's own bound is shorter, so a refused port says so
        reply = asyncio.run(asyncio.wait_for(_identity(address, 0.8 * SCHEDULER_TIMEOUT_S),
                                             SCHEDULER_TIMEOUT_S))
    except TimeoutError:
        raise RefbenchError(f"no dask scheduler answered at {address} within "
                            f"{SCHEDULER_TIMEOUT_S} s (a port that says nothing, or a service "
                            f"that is not a Dask scheduler); {hint}", code=E_USAGE) from None
    except OSError as exc:  # refused, reset, closed (CommClosedError), unknown host
        reason = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else ""
        raise RefbenchError(f"cannot reach a dask scheduler at {address} within "
                            f"{SCHEDULER_TIMEOUT_S} s ({type(exc).__name__}"
                            + (f": {reason}" if reason else "") + f"); {hint}",
                            code=E_USAGE) from None
    except Exception as exc:
        raise RefbenchError(f"the service at {address} is not a Dask scheduler (its answer is "
                            f"not Dask's protocol: {type(exc).__name__}); {hint}",
                            code=E_USAGE) from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        kind = reply.get("type") if isinstance(reply, dict) else None
        raise RefbenchError(f"the service at {address} is not a Dask scheduler"
                            + (f" (a Dask {kind})" if kind else "") + f"; {hint}",
                            code=E_USAGE)
    return reply


def _check_address(address: str) -> None:
    """A usage error unless ``address`` is a Dask address (a known scheme; host and port for
    tcp and tls)."""
    from distributed.comm import addressing, registry

    from refbench.core.errors import UsageError

    try:
        scheme, loc = addressing.parse_address(address, strict=False)
        registry.get_backend(scheme)
        if scheme in ("tcp", "tls"):
            host, port = addressing.parse_host_port(loc)
            if not host or not port:
                raise ValueError("no host or no port")
    except (ValueError, TypeError) as exc:
        raise UsageError(f"--scheduler {address!r}: expected a Dask scheduler address such as "
                         f"tcp://127.0.0.1:8786 ({exc})") from None


def dask_client(scheduler: str | None) -> Any:
    """A ``distributed.Client`` connected to ``scheduler`` with at least one worker, or one
    error line: the engines that spread work over a Dask cluster (``knowref mine``,
    ``refbench run``) share it. Every wait is bounded: ``SCHEDULER_TIMEOUT_S`` to find a
    scheduler at the address, ``WORKERS_TIMEOUT_S`` for a worker to join it."""
    from refbench.core.errors import E_USAGE, RefbenchError, UsageError

    try:
        import distributed
    except ImportError:
        raise UsageError("the dask engine needs dask[bag] and distributed "
                         "(pip install 'dask[bag]' distributed)") from None
    if scheduler is None:
        raise UsageError("--engine dask needs --scheduler ADDRESS (e.g. tcp://127.0.0.1:8786)")
    _check_address(scheduler)
    identity = check_scheduler(scheduler)
    try:
        client: Any = distributed.Client  # untyped
        connected = client(scheduler, timeout=SCHEDULER_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError) as exc:
        raise RefbenchError(f"cannot reach the dask scheduler at {scheduler} within "
                            f"{SCHEDULER_TIMEOUT_S} s ({type(exc).__name__}); start one with "
                            "`dask scheduler` (and `dask worker ADDRESS`), or use --engine "
                            "local", code=E_USAGE) from None
    if not identity.get("workers"):
        try:
            connected.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
        except (TimeoutError, OSError):
            connected.close()
            raise RefbenchError(f"the dask scheduler at {scheduler} has no workers and none "
                                f"joined within {WORKERS_TIMEOUT_S} s; start one with `dask "
                                f"worker {scheduler}`", code=E_USAGE) from None
    return connected

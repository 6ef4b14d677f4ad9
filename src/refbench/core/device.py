"""Which torch device a model runs on: ``auto`` (CUDA when available, else the CPU), ``cpu``,
``cuda`` or ``cuda:N``. Asking for CUDA where there is none is a usage error, not a silent
fallback, so a figure never claims a device it was not computed on."""

from __future__ import annotations

from typing import Any

from refbench.core.errors import UsageError

DEVICE_HELP = "auto (CUDA when available), cpu, cuda or cuda:N"


def resolve_device(spec: str | None = "auto") -> Any:
    import torch

    name = (spec or "auto").strip().lower()
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cpu":
        return torch.device("cpu")
    if name == "cuda" or name.startswith("cuda:"):
        if not torch.cuda.is_available():
            raise UsageError(f"device {spec!r} asked for, but CUDA is not available here")
        try:
            dev = torch.device(name)
        except RuntimeError:
            raise UsageError(f"unknown device {spec!r}; use {DEVICE_HELP}") from None
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise UsageError(f"device {spec!r}: only {torch.cuda.device_count()} CUDA "
                             "device(s) here")
        return dev
    raise UsageError(f"unknown device {spec!r}; use {DEVICE_HELP}")


def set_threads(n: int | None) -> None:
    """Limit torch's CPU threads (background trainings on a shared machine use one)."""
    if n is None:
        return
    if n < 1:
        raise UsageError(f"--threads must be at least 1, got {n}")
    import torch

    torch.set_num_threads(n)

"""Loading trained weights and training checkpoints without running any code from the file.

``torch.load`` unpickles, and a pickle can run arbitrary code; a checkpoint folder is exactly the
kind of file people copy around. Everything refbench saves (weights, optimiser and scheduler
state, RNG state, the training log) is therefore kept to tensors, numbers, strings, lists,
tuples and dicts, which ``torch.load(..., weights_only=True)`` accepts, and every load goes
through :func:`load_safe`, which never falls back to full unpickling. A missing, truncated or
foreign file is one :class:`RefbenchError` naming the path (exit code 2), not a traceback, and
never silently an untrained network.
"""

from __future__ import annotations

import random
import re
import zipfile
from pathlib import Path
from typing import Any

from refbench.core.errors import OutputError, RefbenchError


def load_safe(path: str | Path, *, what: str = "checkpoint") -> Any:
    """``torch.load(path, weights_only=True)`` on the CPU, with people-facing errors."""
    import pickle

    p = Path(path)
    if not p.is_file():
        raise RefbenchError(f"{what} not found", path=p)
    if not zipfile.is_zipfile(p):
        raise RefbenchError(f"{what} is not a readable torch file (torch.save writes a zip "
                            "archive)", path=p)
    import torch

    try:
        return torch.load(p, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        # torch's message is a page of advice; the refused global is the useful part.
        text = " ".join(str(exc).split())
        found = re.search(r"Unsupported global: GLOBAL ([\w.]+)", text)
        detail = found.group(1) if found else text[:120]
        raise RefbenchError(f"{what} holds objects a safe load refuses ({detail}); refbench "
                            "never unpickles arbitrary objects", path=p) from None
    except (RuntimeError, EOFError, OSError, ValueError, AttributeError, TypeError,
            KeyError, IndexError) as exc:
        raise RefbenchError(f"{what} is not a readable torch file "
                            f"({type(exc).__name__}: {str(exc)[:160]})", path=p) from None


def load_state_dict(net: Any, state: Any, *, what: str = "model weights",
                    path: str | Path | None = None) -> None:
    """Load ``state`` (a state dict from :func:`load_safe`) into ``net``; weights that do not
    fit the network are an error naming ``path``."""
    if not isinstance(state, dict):
        raise RefbenchError(f"{what}: expected a state dict, found {type(state).__name__}",
                            path=path)
    try:
        net.load_state_dict(state)
    except (RuntimeError, KeyError, TypeError) as exc:
        raise RefbenchError(f"{what} do not fit this network ({str(exc).splitlines()[0][:200]})",
                            path=path) from None


def python_rng_state() -> list[Any]:
    """``random.getstate()`` as plain lists (what a safe load accepts and restores)."""
    version, internal, gauss = random.getstate()
    return [version, list(internal), gauss]


def set_python_rng_state(saved: list[Any]) -> None:
    version, internal, gauss = saved
    random.setstate((int(version), tuple(int(x) for x in internal), gauss))


def require_checkpoint(path: Path, *, resume: bool) -> bool:
    """Whether to resume: ``resume`` without a checkpoint is an error (training from scratch
    when asked to continue would silently throw away the interrupted run's meaning)."""
    if resume and not path.is_file():
        raise RefbenchError("--resume given, but there is no checkpoint to resume from",
                            path=path)
    return resume


def resume_state(path: Path, *, resume: bool, out: Path, what: str) -> Any:
    """The saved training state at ``path`` to continue from (``resume``), or None to start
    afresh; a folder that already holds a checkpoint is never trained over without ``resume``."""
    if require_checkpoint(path, resume=resume):
        return load_safe(path, what=what)
    if path.is_file():
        raise OutputError("already holds a training checkpoint; pass --resume to continue it "
                          "or choose another folder", path=out)
    return None

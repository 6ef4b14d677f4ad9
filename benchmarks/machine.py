"""The machine's load, as every benchmark prints it beside its figures (``benchmarks/`` is on
``sys.path`` when a benchmark runs as a script)."""

from __future__ import annotations

import os


def load_fields(load_before: float) -> dict[str, float | int | None]:
    """The 1-minute load average before (``load_before``, taken at the start) and now, and the
    number of CPUs: the fields that say how busy the machine was while the figures were made."""
    return {"load_avg_1m_before": round(load_before, 2),
            "load_avg_1m_after": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}

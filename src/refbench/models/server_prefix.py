"""Requests in the order a server's prefix cache can use, and whether the server has one.

vLLM's automatic prefix caching keeps the key/value blocks of prompts it has run and reuses them
for a later prompt that starts alike; it cannot reuse a prefix that a request running at the same
moment is still computing. ``llm-loglik`` through a server therefore sends its requests in two
waves (:func:`prefix_waves`): the first candidate of every instance, then the others, whose
shared text is cached by then. Whether the server keeps such a cache, and how much of the
prompts it served from it, is read from its Prometheus ``/metrics`` page
(:func:`prefix_cache_metrics`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from refbench.models.http import Endpoint


def _common(a: Any, b: Any) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def prefix_waves(prompts: Sequence[Any]) -> list[list[int]]:
    """Request indices in two waves: the first of every run of consecutive prompts (token
    lists or texts) that share at least half of the shorter one, then the rest. Only the
    order of requests changes, never a score."""
    leaders: list[int] = []
    followers: list[int] = []
    for i, prompt in enumerate(prompts):
        before = prompts[i - 1] if i else None
        if before is not None and 2 * _common(before, prompt) >= min(len(before),
                                                                     len(prompt)) > 0:
            followers.append(i)
        else:
            leaders.append(i)
    return [w for w in (leaders, followers) if w]


def prefix_cache_metrics(endpoint: Endpoint) -> dict[str, Any]:
    """vLLM's prefix-cache counters from the server's ``/metrics`` (summed over its label
    sets); ``{"prefix_cache": "unknown"}`` when the server exports none."""
    import urllib.request

    try:
        with urllib.request.urlopen(f"{endpoint.root}/metrics",
                                    timeout=endpoint.timeout) as resp:
            text = resp.read(1 << 22).decode("utf-8", "replace")
    except (OSError, ValueError):
        return {"prefix_cache": "unknown"}
    return prefix_counters(text)


def prefix_counters(text: str) -> dict[str, Any]:
    """vLLM's prefix-cache counters in a Prometheus text page, summed over label sets."""
    counters = {"vllm:prefix_cache_queries_total": "queried_tokens",
                "vllm:prefix_cache_hits_total": "hit_tokens"}
    found: dict[str, float] = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ") if "{" not in line else (
            line.split("{", 1)[0], "", line.rsplit(" ", 1)[-1])
        if name in counters:
            try:
                found[counters[name]] = found.get(counters[name], 0.0) + float(value)
            except ValueError:
                continue
    if not found:
        return {"prefix_cache": "unknown"}
    return {"prefix_cache": "vllm", **found}

"""The web app's TNE document page gives every coreference chain of a document its own look:
12 colours, then the same colours striped, dotted and barred. Checked on the real release's
documents with the most chains (13 chains of two or more NPs; skipped without ../shared)."""

from __future__ import annotations

from pathlib import Path

import pytest

from refbench.tasks.page import chain_class
from refbench.tasks.tne.page import tne_view
from refbench.tasks.tne.web_records import tne_records
from tests.conftest import SHARED, needs_shared

TNE = SHARED / "data" / "tne"


def test_48_chains_never_share_a_look() -> None:
    styles = [chain_class(k) for k in range(48)]
    assert len(set(styles)) == 48
    assert styles[0] == "chain0" and styles[12] == "chain0 chainpat1"  # same colour, striped


@needs_shared(TNE)
@pytest.mark.parametrize("name", ["train-reconstructed-v1.1.jsonl.gz", "dev.jsonl.gz",
                                  "test.jsonl.gz", "ood.jsonl.gz"])
def test_real_documents_chains_are_distinct(name: str) -> None:
    most = 0
    for rec in tne_records(Path(TNE / name)):
        payload = getattr(rec, "payload", None)
        if payload is None:
            continue
        view = tne_view(payload, None, {})
        chains = view["chains"]
        most = max(most, len(chains))
        if len(chains) <= 12:
            continue
        looks: dict[int, set[str]] = {}
        for seg in view["segments"]:
            for mark in seg.marks:
                if mark.chain is not None:
                    looks.setdefault(mark.chain, set()).add(mark.css)
        assert len(looks) == len(chains)
        assert all(len(v) == 1 for v in looks.values())  # one look per chain
        assert len({next(iter(v)) for v in looks.values()}) == len(chains), rec
    assert most <= 48
    if name.startswith("train"):
        assert most == 13  # r959 and two more: the page's 13th chain is the first striped one

"""Parsed gold kept in the cache folder, keyed by content: the same items whether parsed or
read back, a changed file parsed afresh, and a cache that cannot be written is no error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from refbench.core.cache import cache_dir
from refbench.tasks.kitmus.score.gold import read_gold
from tests.conftest import ROOT

TINY = ROOT / "tests" / "golden" / "kitmus-tiny" / "background-pretrain" / "subtask_2_ents" \
    / "task-text-only"


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("REFBENCH_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.parametrize("name", ["test.v4_gold_conll", "test.jsonlines"])
def test_cached_gold_equals_parsed_gold(name: str, own_cache: Path, tmp_path: Path) -> None:
    gold = tmp_path / name
    shutil.copy(TINY / name, gold)
    first = list(read_gold(gold))
    assert cache_dir() == own_cache and len(list(own_cache.glob("parsed/*/*.json"))) == 1
    again = list(read_gold(gold))
    assert again == first and [g.text for g in again] == [g.text for g in first]


def test_changed_gold_is_parsed_again(own_cache: Path, tmp_path: Path) -> None:
    gold = tmp_path / "test.v4_gold_conll"
    text = (TINY / "test.v4_gold_conll").read_text(encoding="utf-8")
    gold.write_text(text, encoding="utf-8")
    n = len(list(read_gold(gold)))
    first_doc = text.index("#end document") + len("#end document\n")
    gold.write_text(text[first_doc:], encoding="utf-8")  # one instance fewer
    assert len(list(read_gold(gold))) == n - 1
    assert len(list(own_cache.glob("parsed/*/*.json"))) == 2


def test_unwritable_cache_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("REFBENCH_CACHE_DIR", str(blocker / "cache"))
    assert len(list(read_gold(TINY / "test.v4_gold_conll"))) > 0


def test_unreadable_entry_is_parsed_again(own_cache: Path, tmp_path: Path) -> None:
    gold = tmp_path / "test.v4_gold_conll"
    shutil.copy(TINY / "test.v4_gold_conll", gold)
    first = list(read_gold(gold))
    (entry,) = own_cache.glob("parsed/*/*.json")
    entry.write_text("{not json", encoding="utf-8")
    assert list(read_gold(gold)) == first

"""``refbench export hf`` asks the task, never names one: every registered task brings its card
(licence, citation, source), document tasks their rows, release folders (Winogender, WinoBias)
their configs; what it writes loads with Hugging Face ``datasets`` offline, row for row equal to
what refbench reads."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from refbench.tasks.lookup import get_task
from tests.conftest import ROOT, SHARED, needs_shared, run_cli

datasets = pytest.importorskip("datasets")
yaml = pytest.importorskip("yaml")
FIX = ROOT / "tests" / "fixtures"
WINOGENDER = SHARED / "data" / "winogender"
WINOBIAS = SHARED / "data" / "winobias"
WB_CONFIGS = ["type1_pro", "type1_anti", "type2_pro", "type2_anti"]


@pytest.fixture(autouse=True)
def _offline_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))


def _export(*args: str) -> dict[str, object]:
    r = run_cli("export", "hf", *args, "--json")
    assert r.returncode == 0, r.stderr
    return dict(json.loads(r.stdout))


def _header(folder: Path) -> dict[str, object]:
    return dict(yaml.safe_load((folder / "README.md").read_text(encoding="utf-8")
                               .split("---\n")[1]))


def test_every_task_brings_its_card() -> None:
    from refbench.tasks.lookup import all_tasks

    for task in all_tasks():
        card = task.card
        assert card.path is not None and card.path.name == "card.toml", task.name
        assert re.fullmatch(r"[a-z0-9.-]+", card.licence), (task.name, card.licence)
        assert card.citation and card.source and card.pretty_name, task.name
        assert card.annotations_creators and card.source_datasets, task.name
        # One BibTeX per task, read by both exports (the Hub card and the lm-eval README).
        assert card.bibtex.startswith("@") and card.bibtex.rstrip().endswith("}"), task.name
        assert card.bibtex.count("{") == card.bibtex.count("}"), task.name


def test_the_export_layer_names_no_task() -> None:
    from refbench.tasks.lookup import task_names

    names = "|".join(map(re.escape, task_names()))
    for src in sorted((ROOT / "src" / "refbench" / "export").glob("*.py")):
        found = re.findall(rf"[\"']({names})[\"']", src.read_text(encoding="utf-8"))
        assert not found, (src.name, found)


def test_winogender_folder_and_file_load(tmp_path: Path) -> None:
    from refbench.export.hf import file_rows

    sentences = FIX / "winogender" / "all_sentences.tsv"
    expected = file_rows(sentences, get_task("winogender"), None)
    assert len(expected) == 24
    for name, src in (("folder", FIX / "winogender"), ("file", sentences)):
        summary = _export(str(src), "--out", str(tmp_path / name))
        assert summary["task"] == "winogender" and summary["license"] == "mit"
        assert summary["configs"] == {"default": {"test": 24}}
        ds = datasets.load_dataset(str(tmp_path / name), split="test")
        assert [dict(r) for r in ds] == expected
    body = (tmp_path / "folder" / "README.md").read_text(encoding="utf-8")
    assert "@inproceedings{rudinger-etal-2018-gender" in body and "N18-2002" in body
    assert "all_sentences.tsv" in body  # the exported file and its sha256


def test_winobias_folder_is_one_config_per_type_and_stereotype(tmp_path: Path) -> None:
    from refbench.export.hf import file_rows

    summary = _export(str(FIX / "winobias"), "--out", str(tmp_path / "hf"))
    assert summary["task"] == "winobias" and summary["license"] == "mit"
    configs = summary["configs"]
    assert isinstance(configs, dict) and list(configs) == WB_CONFIGS
    head = _header(tmp_path / "hf")
    assert [c.get("default") for c in head["configs"]] == [True, None, None, None]  # type: ignore[union-attr]
    for config in WB_CONFIGS:
        t, stereo = config.split("_")
        for split in ("dev", "test"):
            src = FIX / "winobias" / f"{stereo}_stereotyped_{t}.txt.{split}"
            ds = datasets.load_dataset(str(tmp_path / "hf"), config, split=split)
            assert [dict(r) for r in ds] == file_rows(src, get_task("winobias"), None)
            assert configs[config][split] == len(ds) > 0
    assert "zhao-etal-2018-gender" in (tmp_path / "hf" / "README.md").read_text("utf-8")


def test_a_folder_no_task_takes_is_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    r = run_cli("export", "hf", str(tmp_path / "empty"), "--out", str(tmp_path / "x"))
    assert r.returncode == 2 and "no task exports this folder" in r.stderr
    assert "winobias" in r.stderr and r.stderr.count("\n") == 1
    assert not (tmp_path / "x").exists()
    (tmp_path / "suite" / "background-pretrain" / "subtask_2_ents").mkdir(parents=True)
    r = run_cli("export", "hf", str(tmp_path / "suite"), "--out", str(tmp_path / "y"))
    assert r.returncode == 2 and "no native JSONL subtask files" in r.stderr


@needs_shared(WINOGENDER)
def test_real_winogender_release_exports_720_sentences(tmp_path: Path) -> None:
    summary = _export(str(WINOGENDER), "--out", str(tmp_path / "hf"))
    assert summary["configs"] == {"default": {"test": 720}}
    ds = datasets.load_dataset(str(tmp_path / "hf"), split="test")
    assert len(ds) == 720
    genders = [json.loads(m)["gender"] for m in ds["metadata"]]
    assert {g: genders.count(g) for g in set(genders)} == {"male": 240, "female": 240,
                                                           "neutral": 240}


@needs_shared(WINOBIAS)
def test_real_winobias_release_exports_396_per_file(tmp_path: Path) -> None:
    summary = _export(str(WINOBIAS), "--out", str(tmp_path / "hf"))
    assert summary["configs"] == {c: {"dev": 396, "test": 396} for c in WB_CONFIGS}
    for config in WB_CONFIGS:
        for split in ("dev", "test"):
            ds = datasets.load_dataset(str(tmp_path / "hf"), config, split=split)
            assert len(ds) == 396
            assert all(r["gold"] in (0, 1) and len(r["candidates"]) == 2 for r in ds)
    one = WINOBIAS / "anti_stereotyped_type2.txt.test"
    summary = _export(str(one), "--out", str(tmp_path / "one"))
    assert summary["task"] == "winobias" and summary["configs"] == {"default": {"test": 396}}
    assert len(datasets.load_dataset(str(tmp_path / "one"), split="test")) == 396


@needs_shared(WINOBIAS)
def test_real_winobias_release_in_parquet_loads_the_same_rows(tmp_path: Path) -> None:
    _export(str(WINOBIAS), "--out", str(tmp_path / "jsonl"))
    summary = _export(str(WINOBIAS), "--out", str(tmp_path / "pq"), "--format", "parquet")
    assert summary["configs"] == {c: {"dev": 396, "test": 396} for c in WB_CONFIGS}
    assert not list((tmp_path / "pq").rglob("*.jsonl"))
    for config in WB_CONFIGS:
        for split in ("dev", "test"):
            a = datasets.load_dataset(str(tmp_path / "jsonl"), config, split=split)
            b = datasets.load_dataset(str(tmp_path / "pq"), config, split=split)
            assert b.features == a.features and [dict(r) for r in b] == [dict(r) for r in a]

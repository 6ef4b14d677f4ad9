"""``refbench export hf``: what it writes loads with Hugging Face ``datasets`` (offline, from the
folder), row for row equal to what refbench reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, SHARED, needs_shared, run_cli

datasets = pytest.importorskip("datasets")
yaml = pytest.importorskip("yaml")
FIX = ROOT / "tests" / "fixtures"
KNOWREF = SHARED / "data" / "knowref" / "knowref_test.json"


@pytest.fixture(autouse=True)
def _offline_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))


def _header(folder: Path) -> dict[str, object]:
    text = (folder / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return dict(yaml.safe_load(text.split("---\n")[1]))


def _export(*args: str) -> dict[str, object]:
    r = run_cli("export", "hf", *args, "--json")
    assert r.returncode == 0, r.stderr
    return dict(json.loads(r.stdout))


def test_small_generated_suite_loads_per_subtask(tmp_path: Path) -> None:
    suite, out = tmp_path / "suite", tmp_path / "hf"
    r = run_cli("kitmus", "generate", "--out", str(suite), "--variants",
                "background-pretrain,background-both", "--entities", "2,3", "--splits",
                "validation,test", "--sizes", "validation=6,test=10", "--formats", "jsonl",
                "--no-probe", "--quiet", "--workers", "1")
    assert r.returncode == 0, r.stderr
    summary = _export(str(suite), "--out", str(out))
    assert summary["license"] == "mit"  # refbench's own pools
    head = _header(out)
    names = [c["config_name"] for c in head["configs"]]  # type: ignore[union-attr,index]
    assert names == ["background-both_2ents", "background-both_3ents",
                     "background-pretrain_2ents", "background-pretrain_3ents"]
    assert [c.get("default") for c in head["configs"]] == [True, None, None, None]  # type: ignore[union-attr]
    for key in ("license", "pretty_name", "task_categories", "annotations_creators",
                "size_categories", "source_datasets", "dataset_info"):
        assert head[key], key
    assert head["task_ids"] == ["coreference-resolution"]
    info = {i["config_name"]: i for i in head["dataset_info"]}  # type: ignore[union-attr]
    assert {s["name"]: s["num_examples"] for s in info["background-pretrain_3ents"]["splits"]} \
        == {"validation": 6, "test": 10}
    body = (out / "README.md").read_text(encoding="utf-8")
    assert "Datasheet" in body and "seed 42" in body and "KITMUS Test" in body
    native = suite / "background-pretrain" / "subtask_3_ents" / "test.jsonl"
    ds = datasets.load_dataset(str(out), "background-pretrain_3ents", split="test")
    assert [dict(r) for r in ds] == [json.loads(x) for x in native.read_text().splitlines()]
    assert len(datasets.load_dataset(str(out), "background-both_2ents",
                                     split="validation")) == 6


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
@pytest.mark.parametrize(("files", "task", "splits"), [
    (["knowref/knowref_sample.json"], "knowref", {"knowref_sample": None}),
    (["gap/gap-dev.tsv"], "gap", None),
    (["winograd/wsc-tiny.jsonl"], "winograd", None),
    (["altentities/books-recipes.json"], "altentities", None),
    (["tne/docs.jsonl"], "tne", None),
])
def test_fixture_files_of_every_task_load(tmp_path: Path, files: list[str], task: str,
                                          splits: object, fmt: str) -> None:
    from refbench.export.hf import file_rows
    from refbench.tasks.lookup import get_task

    paths = [FIX / f for f in files]
    summary = _export(*map(str, paths), "--out", str(tmp_path / "hf"), "--format", fmt)
    assert summary["task"] == task and summary["format"] == fmt
    ds = datasets.load_dataset(str(tmp_path / "hf"))
    (split, rows), = ds.items()
    assert [dict(r) for r in rows] == file_rows(paths[0], get_task(task), None)
    head = _header(tmp_path / "hf")
    assert head["configs"][0]["data_files"][0]["split"] == split  # type: ignore[index]
    data_files = sorted(p.name for p in (tmp_path / "hf" / "data").iterdir())
    assert data_files == [f"{split}.{fmt}"]  # no JSONL left beside the Parquet, no temporary


def test_parquet_export_is_byte_identical_when_repeated(tmp_path: Path) -> None:
    for out in ("a", "b"):
        _export(str(FIX / "tne" / "docs.jsonl"), "--out", str(tmp_path / out),
                "--format", "parquet")
    a, b = sorted((tmp_path / "a").rglob("*.*")), sorted((tmp_path / "b").rglob("*.*"))
    assert [p.relative_to(tmp_path / "a") for p in a] == [p.relative_to(tmp_path / "b")
                                                            for p in b]
    assert all(x.read_bytes() == y.read_bytes() for x, y in zip(a, b, strict=True))


@needs_shared(KNOWREF)
def test_knowref_exports_the_corrected_gold(tmp_path: Path) -> None:
    summary = _export(str(KNOWREF), "--out", str(tmp_path / "hf"))
    assert summary["license"] == "cc-by-sa-3.0"  # share-alike stays share-alike
    ds = datasets.load_dataset(str(tmp_path / "hf"), split="test")
    raw = json.loads(KNOWREF.read_text(encoding="utf-8"))
    assert len(ds) == len(raw) == 1269
    # the release's index field disagrees with its names in 299 instances; the names win
    assert sum(r["gold"] != int(o["correct_candidate_idx"]) for r, o in zip(ds, raw,
                                                                             strict=True)) == 299
    assert "299" in (tmp_path / "hf" / "README.md").read_text(encoding="utf-8")


def test_bad_inputs_are_one_line_errors(tmp_path: Path) -> None:
    r = run_cli("export", "hf", str(FIX / "gap" / "gap-dev.tsv"),
                str(FIX / "winograd" / "wsc-tiny.jsonl"), "--out", str(tmp_path / "x"))
    assert r.returncode == 2 and "one task at a time" in r.stderr and not (tmp_path / "x").exists()
    r = run_cli("export", "hf", str(tmp_path), "--out", str(tmp_path / "y"))
    assert r.returncode == 2 and "no task exports this folder" in r.stderr
    assert r.stderr.count("\n") == 1

"""The Winogender release folder, run, scored and exported whole: one data file,
``all_sentences.tsv``, read with ``templates.tsv`` and ``occupations-stats.tsv`` beside it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.tasks.capabilities import FolderFile, FolderRuns, HfExport, TaskCore
from refbench.tasks.hf_parts import HfFolder, HfPart


class WinogenderFolder(FolderRuns):
    def is_folder(self, path: Path) -> bool:
        from refbench.tasks.winogender.read import SENTENCES

        return path.is_dir() and (path / SENTENCES).is_file()

    def files(self, path: Path, *, split: str) -> list[FolderFile]:
        from refbench.tasks.winogender.read import find_release

        return [FolderFile(find_release(path), "all_sentences", {})]

    def every_file(self, path: Path) -> list[Path]:
        from refbench.tasks.winogender.read import find_release

        return [find_release(path)]

    def folder_of(self, file: Path) -> Path | None:
        from refbench.tasks.winogender.read import SENTENCES

        return file.parent if file.name == SENTENCES else None

    def combine(self, path: Path, runs: Sequence[tuple[dict[str, Any], dict[str, Any]]], *,
                split: str, model: str, system: str) -> dict[str, Any]:
        (_, m), = runs
        return {**m, "task": "winogender", "mode": "release", "gold": str(path),
                "data": str(path), "model": model, "system": system, "systems": [system],
                "cells": [{"file": Path(m["data"]).name, "n": m["n"],
                           "accuracy": m["accuracy"], "predictions": m["predictions"],
                           "run_id": m.get("run_id")}]}

    def evaluate(self, task: TaskCore, gold: Path, preds: Sequence[Path], *,
                 systems: Sequence[str] = (), split: str = "test", bootstrap: int = 1000,
                 seed: int = 0, on_invalid: InvalidInstances | None = None,
                 allow_missing: bool = False) -> dict[str, Any]:
        from refbench.tasks.answers import system_name
        from refbench.tasks.winogender.read import find_release

        file = find_release(gold)
        r = task.evaluate(file, preds, systems=systems, split=split, bootstrap=bootstrap,
                          seed=seed, on_invalid=on_invalid)
        r.update({"data": str(file), "predictions": r.get("pred")})
        name = system_name(preds[0], *systems[:1])
        return self.combine(gold, [({}, r)], split=split, model=str(r.get("model") or name),
                            system=name)


class WinogenderExport(HfExport):
    def folder(self, path: Path) -> HfFolder | None:
        from refbench.tasks.winogender.read import find_release

        if not WinogenderFolder().is_folder(path):
            return None
        return HfFolder((HfPart("default", "test", find_release(path)),))

"""A KITMUS suite folder for ``refbench export hf``: one config per subtask
(``<variant>_<n>ents``) whose rows are the suite's native JSONL lines; the licence follows the
resources the suite was drawn from (``stats.json``), the card's body is its ``DATASHEET.md``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.inputs import load_json_object, read_text
from refbench.tasks.hf_parts import HfFolder, HfPart

SPLITS = ("train", "validation", "dev", "test", "ood")
# A suite's licence by the resources' layout: refbench's own pools, or the official resources.
LICENCES = {"builtin": "mit", "official": "cc-by-sa-3.0"}


def suite_folder(suite: Path) -> HfFolder | None:
    """The suite's export, None when ``suite`` holds no subtask folders."""
    from refbench.tasks.kitmus.instance import SUBTASK_DIR

    subs = sorted(p for p in suite.rglob("subtask_*_ents") if p.is_dir())
    if not subs:
        return None
    parts = []
    for sub in subs:
        m = SUBTASK_DIR.match(sub.name)
        if not m:
            continue
        config = f"{sub.parent.name}_{int(m.group(1))}ents"
        for split in SPLITS:
            src = next((p for p in (sub / f"{split}.jsonl", sub / f"{split}.jsonl.gz")
                        if p.is_file()), None)
            if src is not None:
                parts.append(HfPart(config, split, src, native=True, check=_check_row))
    if not parts:
        raise RefbenchError("no native JSONL subtask files (expected <variant>/subtask_<n>_"
                            "ents/<split>.jsonl, as refbench kitmus generate writes)", path=suite)
    stats_path = suite / "stats.json"
    stats = load_json_object(stats_path) if stats_path.is_file() else {}
    resources = stats.get("resources")
    layout = resources.get("layout", "") if isinstance(resources, dict) else ""
    sheet = suite / "DATASHEET.md"
    return HfFolder(tuple(parts), licence=LICENCES.get(str(layout), "unknown"),
                    datasheet=read_text(sheet, what="datasheet") if sheet.is_file() else None)


def _check_row(row: dict[str, Any], path: Path, line: int) -> None:
    """A native row as ``refbench run`` and ``export lm-eval`` read it (the same errors)."""
    from refbench.tasks.kitmus.native import instance_from_json

    instance_from_json(row, path=path, line=line)

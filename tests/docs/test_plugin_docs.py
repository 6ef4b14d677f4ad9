"""What a plugin author reads (issue 39): the task guide sends plugins only to
``refbench.api``, a plugin model's ``summary`` is the line ``refbench ls`` shows (it was
blank, with no documented way to fill it), and ``InputRecord`` documents itself."""

from __future__ import annotations

import json
import re

from tests.conftest import ROOT
from tests.journey.test_plugins import plugin_cli


def test_the_task_guide_names_only_refbench_api_for_what_plugins_import() -> None:
    from refbench import api

    text = (ROOT / "docs" / "adding-a-task.md").read_text(encoding="utf-8")
    assert "refbench.core.types" not in text
    for name in set(re.findall(r"`refbench\.api\.(\w+)`", text)) - {"X"}:
        assert name in api.__all__, name


def test_a_plugin_model_s_summary_is_what_ls_shows() -> None:
    out = plugin_cli("ls", "--json")
    assert out.returncode == 0, out.stderr
    models = {row["name"]: row for row in json.loads(out.stdout)["models"]}
    assert models["always-second"]["summary"] == "always the second candidate (a plugin's model)"
    assert "the line `refbench ls models` shows" in (
        ROOT / "docs" / "adding-a-model.md").read_text(encoding="utf-8")


def test_input_record_documents_its_accessors() -> None:
    from refbench.api import InputRecord

    doc = InputRecord.__doc__ or ""
    assert "module docstring" not in doc
    for accessor in ("string", "integer", "strings", "record", "items", "has"):
        assert f":meth:`{accessor}`" in doc

"""Winogender in ``refbench serve``: the release folder is one dataset with its facets; an
instance page marks both candidates and the pronoun; two runs compare."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import release_app

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "winogender"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return release_app(tmp_path_factory.mktemp("wg-web"), FIXTURE)


def test_dataset_instance_and_compare(app: Any) -> None:
    client = app.test_client()
    cat = app.config["CATALOG"]
    (ds,) = [d for d in cat.datasets.values() if d.task.name == "winogender"]
    page = client.get(f"/data/{ds.key}").get_data(as_text=True)
    assert "?f.gender=female" in page and "?f.gotcha=True" in page
    inst = client.get(f"/data/{ds.key}/0").get_data(as_text=True)
    assert ('<span class="ment ent0">The technician</span> told '
            '<span class="ment ent1">the customer</span> that <span class="pron">he</span>'
            in inst)
    assert "System answers" in inst and "first" in inst
    systems = {s.label: s.sid for s in cat.systems(ds)}
    assert set(systems) == {"first", "random"}
    compare = client.get(f"/compare?data={ds.key}&sys={systems['first']}"
                         f"&sys={systems['random']}")
    assert compare.status_code == 200
    assert "Accuracy by slice" in compare.get_data(as_text=True)

"""A small world for the web app: refbench's own fixture files of every task (some holding
``<script>`` and ``<img onerror>`` text), real runs of cheap models made with the runner into a
temporary results store, and TNE baseline prediction files."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path
from typing import Any

import pytest

from refbench.web.app import create_app
from refbench.web.catalog import ServeConfig

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "web"
SUITE = ROOT / "tests" / "golden" / "kitmus-tiny"
FILES = {
    "kitmus": FIX / "kitmus-xss.jsonl",
    "knowref": FIX / "knowref-xss.json",
    "gap": FIX / "gap-xss.tsv",
    "winograd": FIX / "winograd-xss.jsonl",
    "altentities": FIX / "altentities-xss.json",
    "tne": FIX / "tne-xss.jsonl",
}


def fake_enricher(text: str) -> dict[str, Any]:
    """A stand-in for the TNE model: every capitalised word is an NP, each linked to the next
    with "of" (the demo page's drawing is what is tested, not the model)."""
    import re

    nps = [{"id": f"np{k}", "text": m.group(), "first_char": m.start(), "last_char": m.end()}
           for k, m in enumerate(re.finditer(r"[A-Z][a-z]+", text))]
    rels = [{"anchor": a["id"], "complement": b["id"], "preposition": "of",
             "complement_text": b["text"]} for a, b in itertools.pairwise(nps)]
    return {"nps": nps, "relations": rels}


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from refbench.runs.record import RunSettings
    from refbench.runs.runner import run_model
    from refbench.runs.store import Store
    from refbench.tasks.tne.models.baselines import BASELINES, with_oracle_prepositions
    from refbench.tasks.tne.predictions import write_predictions
    from refbench.tasks.tne.read import read_tne

    root = tmp_path_factory.mktemp("web")
    data = root / "data"
    shutil.copytree(FIX, data)
    shutil.copytree(SUITE, data / "suite", ignore=shutil.ignore_patterns(
        "*-text*", "DATASHEET.md", "stats.json"))
    files = {task: data / path.name for task, path in FILES.items()}
    store = Store(root / "store" / "results.sqlite")
    runs = root / "runs"
    for model in ("first", "random"):
        for task in ("kitmus", "knowref", "gap", "winograd", "altentities"):
            run_model(model, files[task], runs / f"{model}-{task}", store=store,
                      progress=False)
    # knowledge-match on an instance with background knowledge in the text (no encoder needed)
    run_model(RunSettings("knowledge-match", limit=1), files["kitmus"], runs / "km-kitmus",
              store=store, progress=False)
    suite_file = data / "suite" / "background-pretrain" / "subtask_2_ents" / "test.jsonl"
    for model in ("first", "last"):
        run_model(model, suite_file, runs / f"{model}-suite", store=store, progress=False)
    store.close()
    docs = list(read_tne(files["tne"]))
    tne_preds = root / "tne-preds"
    for name in ("adj-backward", "surface"):
        preds = [with_oracle_prepositions(d, BASELINES[name](d, 0)) for d in docs]
        write_predictions(docs, preds, tne_preds / f"{name}.jsonl")
    config = ServeConfig(data=[*files.values(), data / "suite"], run_dirs=[tne_preds],
                         store=root / "store" / "results.sqlite", index_dir=root / "index")
    return {"root": root, "files": files, "suite": data / "suite", "config": config,
            "runs": runs, "tne_preds": tne_preds}


@pytest.fixture(scope="session")
def app(world: dict[str, Any]) -> Any:
    from flask import Blueprint

    boom = Blueprint("boom", __name__)

    @boom.route("/boom")
    def explode() -> str:
        raise RuntimeError("secret detail that must not reach the page")

    return create_app(world["config"], extra_blueprints=[boom],
                      enrichers={"tne": fake_enricher})


@pytest.fixture()
def client(app: Any) -> Any:
    return app.test_client()

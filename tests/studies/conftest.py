"""Study fixtures: a small generated KITMUS suite, refbench's own AltEntities entities and TNE
documents, studies made from them, and helpers that answer like an annotator would."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from refbench.studyfile.db import StudyStore
from refbench.tasks.altentities.study import create_altentities_study
from refbench.tasks.kitmus.generate.resources import load_resources
from refbench.tasks.kitmus.generate.suite import generate_suite, make_config
from refbench.tasks.kitmus.study import create_kitmus_study
from refbench.tasks.tne.annotation.study import create_tne_study
from refbench.web.study.server import create_app
from tests.conftest import ROOT

FIX = ROOT / "tests" / "fixtures" / "studies"
ENTITIES = FIX / "entities.jsonl"
TNE_TINY = FIX / "tne-tiny.jsonl"


def make_suite(out: Path, *, variants: list[str], entities: list[int], size: int,
               formats: list[str]) -> Path:
    cfg = make_config(variants=variants, entities=entities, splits=["test"], formats=formats,
                      sizes={"test": size}, seed=3)
    generate_suite(load_resources(), out, cfg, progress=False)
    return out


@pytest.fixture(scope="session")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2 variants x 2 entity counts x 10 test instances, native JSONL and CoNLL."""
    return make_suite(tmp_path_factory.mktemp("suite") / "suite",
                      variants=["background-pretrain", "background-both"], entities=[2, 3],
                      size=10, formats=["jsonl", "conll", "tsv"])


@pytest.fixture
def kitmus_study(tmp_path: Path, suite: Path) -> Path:
    out = tmp_path / "k.sqlite"
    create_kitmus_study(suite, out, n=8, conditions=["with-knowledge", "without-knowledge"],
                        gold_checks=2, annotators=["ann1", "ann2", "ann3"], seed=1,
                        progress=False)
    return out


@pytest.fixture
def ae_study(tmp_path: Path) -> Path:
    out = tmp_path / "ae.sqlite"
    create_altentities_study([ENTITIES], out, n=4, method="uniform", annotators=["ann1", "ann2"],
                             seed=1)
    return out


@pytest.fixture
def tne_study(tmp_path: Path) -> Path:
    out = tmp_path / "tne.sqlite"
    create_tne_study(TNE_TINY, out, n=2, annotators=["ann1", "ann2"], seed=1)
    return out


def client(study: Path) -> FlaskClient:
    app = create_app(study)
    app.testing = True
    return app.test_client()


def tokens(study: Path) -> dict[str, str]:
    with StudyStore(study) as st:
        return {a.name: a.token for a in st.annotators(role=None)}


def save(c: FlaskClient, token: str, pos: int, fields: dict[str, str]) -> dict[str, Any]:
    r = c.post(f"/a/{token}/{pos}/answer", json={"fields": fields})
    body: dict[str, Any] = r.get_json()
    assert r.status_code == 200, body
    return body


def gold_tne_answers(payload: dict[str, Any]) -> list[dict[str, str]]:
    """The form fields an annotator who agrees with the file's gold would send, in order."""
    gold = payload["gold"]
    cluster = {m: c for c in gold["coref"] for m in c["members"]}
    order = {n["id"]: k for k, n in enumerate(payload["nps"])}
    first = {c["id"]: min(c["members"], key=order.__getitem__) for c in gold["coref"]}
    kinds = {"standard": "new", "time/date/measurement": "time", "idiomatic": "idiom"}
    out = []
    for n in payload["nps"]:
        c = cluster[n["id"]]
        rep = first[c["id"]]
        out.append({"stage": "1", "np": n["id"], "type": kinds[c["np_type"]] if rep == n["id"]
                    else f"same:{rep}"})
    links: dict[str, dict[str, str]] = {n["id"]: {} for n in payload["nps"]}
    for r in sorted(gold["np_relations"], key=lambda r: (r["anchor"], r["complement"],
                                                         r["preposition"])):
        links[r["anchor"]].setdefault(first[cluster[r["complement"]]["id"]], r["preposition"])
    for n in payload["nps"]:
        out.append({"stage": "2", "np": n["id"], "done": "1",
                    **{f"link:{k}": v for k, v in links[n["id"]].items()}})
    return out


def answer_everything(study: Path, c: FlaskClient, *, seed: int = 0,
                      agree_with_gold: float = 1.0) -> None:
    """Every annotator answers every assigned item: KITMUS with gold (or a random name / can't
    say), AltEntities with three expressions, TNE with the file's gold."""
    with StudyStore(study) as st:
        kind = st.kind
        plan = [(a, st.assignments(a.id)) for a in st.annotators()]
        items = {it.id: it for it in st.items()}
    for a, assigned in plan:
        rng = random.Random(f"{seed}:{a.name}")
        for pos, item_id, _ in assigned:
            item = items[item_id]
            if kind == "kitmus-validation":
                good = rng.random() < agree_with_gold
                choice = str(item.payload["answer"]) if good else rng.choice(
                    ["cant", *map(str, range(len(item.payload["candidates"])))])
                save(c, a.token, pos + 1, {"choice": choice})
            elif kind == "altentities-collection":
                save(c, a.token, pos + 1, {f"e{i}": f"the one {a.name} remembers, take {i}"
                                           for i in (1, 2, 3)})
            else:
                for fields in gold_tne_answers(item.payload):
                    save(c, a.token, pos + 1, fields)

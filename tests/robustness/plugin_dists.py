"""Broken plugin distributions made on the fly, as ``pip install`` would leave them (a package
and its ``.dist-info`` with ``entry_points.txt``) in a folder a case puts on ``sys.path``.

Each one breaks at one boundary refbench calls into: the import, the class, its ``OPTIONS``,
``__init__``, ``predict`` and what it returns, a task's ``sniff``/``read_choices``/``slices``,
a ``releases.json`` that is malformed or takes a name refbench already has.
"""

from __future__ import annotations

import json
from pathlib import Path

DIST = "refbench-bad-plugin"
VERSION = "0.3.0"
PACKAGE = "refbench_bad_plugin"

MODEL_HEAD = '''
from refbench.api import ChoiceModel, ModelOutput, Option

class Model(ChoiceModel):
    name = "bad-model"
'''

GOOD_PREDICT = '''
    def predict(self, batch):
        return [ModelOutput(0, tuple(0.0 for _ in inst.candidates)) for inst in batch]
'''

TASK_SOURCE = '''
import json
from refbench.api import Candidate, ChoiceInstance, Task

class PlugTask(Task):
    name = "badplug"

    def sniff(self, head):
        {sniff}
        return head.name.endswith(".plug")

    def read_choices(self, path, *, options=None, on_invalid=None):
        for line in path.read_text().splitlines():
            obj = json.loads(line)
            {read}
            yield ChoiceInstance(id=obj["pid"], task="badplug", context=obj["text"],
                                 expression="it", candidates=(Candidate("a"), Candidate("b")),
                                 gold=0)

    def slices(self, inst):
        {slices}
        return {{}}

TASK = PlugTask()
'''

CARD = '''schema = 1

[task]
name = "badplug"
version = 1
title = "BadPlug"
summary = "BadPlug: a plugin benchmark that breaks (tests only)"

[card]
pretty_name = "BadPlug"
licence = "cc0-1.0"
citation = "Nobody. 2026."
source = "refbench-bad-plugin"
annotations_creators = ["expert-generated"]
'''


def model_source(body: str = GOOD_PREDICT, head: str = "") -> str:
    """A plugin model module: ``head`` runs on import, ``body`` is the class's body."""
    return head + MODEL_HEAD + body


def task_source(*, sniff: str = "pass", read: str = "pass", slices: str = "pass") -> str:
    return TASK_SOURCE.format(sniff=sniff, read=read, slices=slices)


def make_dist(root: Path, *, model: str | None = None, task: str | None = None,
              releases: str | None = None, init: str = "") -> Path:
    """A distribution in ``root`` (the folder to put on ``sys.path``) with a model entry
    point ``bad-model`` (module ``model``), a task ``badplug`` (module ``task``, beside its
    card and ``releases`` as its ``releases.json``), and ``init`` as the package's
    ``__init__``."""
    pkg = root / PACKAGE
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(init)
    groups: dict[str, str] = {}
    if model is not None:
        (pkg / "model.py").write_text(model)
        groups["refbench.models"] = f"bad-model = {PACKAGE}.model:Model"
    if task is not None or releases is not None:
        tpkg = pkg / "plugtask"
        tpkg.mkdir()
        (tpkg / "__init__.py").write_text("")
        (tpkg / "task.py").write_text(task if task is not None else task_source())
        (tpkg / "card.toml").write_text(CARD)
        if releases is not None:
            (tpkg / "releases.json").write_text(releases)
        groups["refbench.tasks"] = f"badplug = {PACKAGE}.plugtask.task:TASK"
    info = root / f"{PACKAGE}-{VERSION}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {DIST}\nVersion: {VERSION}\n")
    (info / "entry_points.txt").write_text("".join(f"[{g}]\n{line}\n\n"
                                                   for g, line in groups.items()))
    return root


def releases_json(name: str = "plug-rel", *, broken: str = "") -> str:
    """A plugin ``releases.json`` declaring ``name``; ``broken`` damages it one way."""
    release = {"name": name, "task": "badplug", "title": "A plugin release",
               "licence": "CC0", "source": "nowhere", "root": "plug", "default": None,
               "splits": {}, "files": [{"file": "plug/a.plug", "sha256": "0" * 64,
                                        "bytes": 1, "url": "https://example.org/a.plug"}]}
    if broken == "sha":
        release["files"][0]["sha256"] = "xyz"  # type: ignore[index]
    doc: object = {"format": "refbench.releases.v1", "releases": [release]}
    if broken == "format":
        doc = {"format": "other", "releases": []}
    text = json.dumps(doc)
    return text[:-5] if broken == "json" else text

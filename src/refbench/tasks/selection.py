"""Model selection never looks at test data: every trainer selects on a dev or validation split.

A training run keeps the checkpoint that scores best on its selection data; selecting on the
test split makes the test figure a tuned number, not a result. One check,
:func:`check_selection`, runs before every trainer (refbench's, TNE's and a plugin's:
``refbench train`` and ``refbench tne train`` call it before the trainer), and again on the
instances a choice trainer reads (:func:`refbench.models.selection.training_prologue`). It
refuses, as one ``error E100`` line (exit 2):

- a selection file named as a test split (``test.jsonl``, ``knowref_test.json``: the word
  ``test`` between separators in the file name);
- instances whose reader recorded ``split: test`` or whose id names the test split (KITMUS:
  ``kitmus/VARIANT/subtask_4_ents/test:17``);
- instances whose *content* is that of a test instance of a release refbench knows, whatever the
  file is called and however it was re-serialised: the normalised text of every test instance
  (:func:`content_key`) is looked up in a committed table of hashes
  (``tasks/test_content.txt.gz``, made by ``scripts/test_content_table.py`` from the releases
  in ``../shared/data`` and the default KITMUS suite's test split). A table, not the release
  cache, so the check holds on a machine where the data is fetched later, or never.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from refbench.core.errors import UsageError
from refbench.core.types import ChoiceInstance

TEST_FILE = re.compile(r"(?:^|[._\-\s])test(?:[._\-\s]|$)", re.IGNORECASE)
TEST_ID = re.compile(r"(?:^|/)test(?:[:/]|$)")  # kitmus/VARIANT/subtask_4_ents/test:17
TABLE = "test_content.txt.gz"
KEY_CHARS = 10  # 40 bits of sha256: a chance match of a dev text is ~1e-8 per instance
_WORDS = re.compile(r"[^0-9a-z]+")
_ADVICE = "select on a dev or validation split and score the test split once"


def normalised(text: str) -> str:
    """``text`` lower-cased, with every run of non-alphanumerics one space (so a re-serialised
    file, with other quoting, spacing or brackets, keeps its keys)."""
    return _WORDS.sub(" ", text.lower()).strip()


def content_key(*texts: str) -> str:
    """The table's key of a text (or of several, in order)."""
    joined = " | ".join(normalised(t) for t in texts)
    return hashlib.sha256(joined.encode()).hexdigest()[:KEY_CHARS]


def choice_key(x: ChoiceInstance) -> str:
    """The key of a choice instance: its context, expression and candidates' texts (sorted, so
    a file that reorders the candidates is the same instance)."""
    return content_key(x.context, x.expression, *sorted(normalised(c.text)
                                                         for c in x.candidates))


@cache
def content_table() -> dict[str, str]:
    """The committed table: key -> the release (and split) whose test instance has it."""
    found: dict[str, str] = {}
    try:
        raw = resources.files("refbench.tasks").joinpath(TABLE).read_bytes()
    except (FileNotFoundError, OSError):
        return found
    release = "?"
    for line in gzip.decompress(raw).decode().splitlines():
        if line.startswith("# "):
            release = line[2:].strip()
        elif line and not line.startswith("#"):
            found.setdefault(line.strip(), release)
    return found


def is_test_file(path: str | Path) -> bool:
    """Whether a file's name says it holds a test split."""
    return TEST_FILE.search(Path(path).name) is not None


def refuse_test_content(keys: Iterable[tuple[str, str]], *, option: str) -> None:
    """Refuse when any (instance id, content key) is a known test instance, naming how many
    and of which release."""
    table = content_table()
    total, hits = 0, Counter[str]()
    first = ""
    for ident, key in keys:
        total += 1
        release = table.get(key)
        if release is not None:
            hits[release] += 1
            first = first or ident
    if hits:
        release = hits.most_common(1)[0][0]
        raise UsageError(f"{option}: {sum(hits.values())} of {total} instances (e.g. {first}) "
                         f"match test instances of {release} by their text; {_ADVICE}")


def refuse_test_selection(path: str | Path | None = None,
                          instances: Iterable[ChoiceInstance] = (), *,
                          option: str = "--dev") -> None:
    """Refuse test data as selection data: a file named as a test split, or instances read
    from one (by split, id or content)."""
    if path is not None and is_test_file(path):
        raise UsageError(f"{option} {path}: a test file cannot be selection data; {_ADVICE}")
    listed = list(instances)
    for x in listed:
        if str(x.metadata.get("split", "")).lower() == "test" or TEST_ID.search(x.id):
            raise UsageError(f"{option}: instance {x.id} comes from a test split; {_ADVICE}")
    refuse_test_content(((x.id, choice_key(x)) for x in listed), option=option)


def file_keys(path: Path, task: Any, options: dict[str, Any]) -> Iterable[tuple[str, str]]:
    """(id, content key) of every instance of a data file, read by ``task`` (a choice task's
    instances, or a documents task's document texts); nothing for a task with neither."""
    if task.documents is not None:
        try:
            texts = task.documents.texts(path)
        except NotImplementedError:
            return []
        return ((ident, content_key(text)) for ident, text in texts)
    from refbench.tasks.choices import read_choices

    return ((x.id, choice_key(x)) for x in read_choices(path, task=task, options=options))


def check_selection(job: Any) -> None:
    """The one selection check of a training job (``job``: a
    :class:`~refbench.core.trainer.TrainJob`): its dev file by name and by content."""
    if job.dev is None:
        return
    refuse_test_selection(job.dev, option="--dev")
    from refbench.tasks.choices import infer_task

    task = job.task if job.task is not None else infer_task(job.dev, kinds=None)
    refuse_test_content(file_keys(Path(job.dev), task, dict(job.reader_options or {})),
                        option=f"--dev {job.dev}")

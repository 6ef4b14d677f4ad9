"""The ``Task``: the small core every benchmark has, and the capabilities it may add.

A benchmark is a folder ``tasks/<name>/`` with ``task.py`` holding ``TASK = MyTask()``, a
``card.toml`` (:mod:`refbench.tasks.card`), and one line in :data:`refbench.core.registry.TASKS`
(or, from another distribution, an entry point in the group ``refbench.tasks``). The core is
what every layer needs of any benchmark:

- identity and version: ``name`` (the registry name), ``title``, ``summary``, ``version``
  (the three last from the card), :meth:`home`;
- formats: :meth:`sniff` and ``sniff_order``, :meth:`read_choices` (gold to instances),
  :meth:`infer_split`;
- metrics and slices: ``slice_keys`` / :meth:`slices`, :meth:`choice_extras`,
  :meth:`run_warnings`, :meth:`run_metrics`, :meth:`choice_metrics`, :meth:`evaluate`,
  ``headline_metrics``;
- options: ``READER_OPTIONS`` (how :meth:`read_choices` reads a file) and ``SCORER_OPTIONS``
  (what :meth:`evaluate` takes beside the predictions), each a tuple of
  :class:`~refbench.core.options.Option`, checked by :meth:`check_options`. The generic commands
  take them as ``--task-arg KEY=VALUE`` and as the flags the options declare.

Everything else is a capability object (:mod:`refbench.tasks.capabilities`) that a task has or
lacks: ``folder`` (a folder taken whole), ``documents`` (documents, not choices), ``web``,
``report``, ``export``, ``commands``, ``studies``, ``demo``, ``coref``, ``listings``,
``training`` (``train --augment``). A layer asks whether the attribute is set; none compares
which methods a task overrides, and none tests a task's name. Layering (DESIGN.md): tasks sit
below models, runs, report, web, studies and cli; a task hands data upward and never imports
them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from refbench.core.errors import E_RESOURCE, RefbenchError, UsageError
from refbench.core.invalid import InvalidInstances
from refbench.core.options import Option, parse_options
from refbench.core.result import Result
from refbench.core.types import ChoiceInstance
from refbench.tasks.capabilities import (
    Commands,
    CorefGold,
    Demo,
    Documents,
    FolderRuns,
    HfExport,
    Listings,
    Report,
    Studies,
    Training,
    WebView,
)
from refbench.tasks.card import CARD_FILE, Card, attribute_card, read_card
from refbench.tasks.files import SPLIT_WORDS, TEST_ONLY, FileHead, split_from_name
from refbench.tasks.headline import Headline, HeadlineFigure, default_figures

__all__ = ["CAPABILITIES", "SPLIT_WORDS", "TEST_ONLY", "FileHead", "Task", "split_from_name"]

#: The capability attributes of :class:`Task`, in the order ``refbench ls`` shows them.
CAPABILITIES = ("folder", "documents", "web", "report", "export", "commands", "studies", "demo",
                "coref", "listings", "training")


class Task:
    """One benchmark. Subclass it in ``tasks/<name>/task.py``; instances are stateless
    singletons. A plain multiple-choice task implements :meth:`sniff` and
    :meth:`read_choices` and has a card; the rest has working defaults."""

    # -- identity (the card gives title, summary and version) ----------------------------
    name: ClassVar[str] = ""
    title: str = ""
    summary: str = ""
    version: int = 1

    # -- formats ---------------------------------------------------------------------------
    #: Sniffers are asked in ascending order (ties: registry order): a task whose format is a
    #: special case of another's asks first (TNE JSONL before Winograd JSONL).
    sniff_order: ClassVar[int] = 100

    # -- metrics ---------------------------------------------------------------------------
    #: Metadata keys accuracy is sliced by, in order.
    slice_keys: ClassVar[tuple[str, ...]] = ()
    #: The result keys tables show for the task, in order (those present are shown).
    headline_metrics: ClassVar[tuple[str, ...]] = ("accuracy",)
    #: The figures a paper's main table shows (the model card's cells), each with the one
    #: method its interval is made by (:mod:`refbench.tasks.headline`).
    headline: ClassVar[tuple[Headline, ...]] = (Headline("accuracy", "Accuracy", chance=True),)

    def headline_figures(self, results: Sequence[Result]) -> list[HeadlineFigure]:
        """The headline of one system on one benchmark: ``results`` are its data file's result,
        or the results of the files of one folder (a release, a suite)."""
        return default_figures(self.headline, results)

    def headline_summary(self, by_system: Mapping[str, Sequence[HeadlineFigure]]
                         ) -> dict[str, HeadlineFigure]:
        """A figure per system over what every system of a table has (KITMUS: the mean over
        the cells all systems were run on), from each system's :meth:`headline_figures`."""
        return {}

    # -- options (--task-arg KEY=VALUE, and the flags an option declares) ------------------
    #: How :meth:`read_choices` reads a file (``run``, ``evaluate``, ``export``, ``train``;
    #: recorded as a run's ``reader_options``).
    READER_OPTIONS: ClassVar[tuple[Option, ...]] = ()
    #: What :meth:`evaluate` takes beside the predictions (``evaluate`` only).
    SCORER_OPTIONS: ClassVar[tuple[Option, ...]] = ()

    # -- capabilities: None when the task lacks one -------------------------------------------
    folder: FolderRuns | None = None
    documents: Documents | None = None
    web: WebView | None = None
    report: Report | None = None
    export: HfExport | None = None
    commands: Commands | None = None
    studies: Studies | None = None
    demo: Demo | None = None
    coref: CorefGold | None = None
    listings: Listings | None = None
    training: Training | None = None

    def __init__(self) -> None:
        path = self.home() / CARD_FILE
        if path.is_file():
            card = read_card(path)
            if card.name != self.name:
                raise RefbenchError(f"the card is for {card.name!r}, the task is "
                                    f"{self.name!r}", code=E_RESOURCE, path=path)
            self.title, self.summary, self.version = card.title, card.summary, card.version
        else:
            card = attribute_card(self.name, self.title, self.summary, self.version)
        self.card: Card = card

    def __repr__(self) -> str:
        return f"<Task {self.name}.v{self.version}>"

    def __str__(self) -> str:
        return self.name  # what pages and tables show of a task

    def home(self) -> Path:
        """The task's folder: its card, its templates (``templates/``) and data files."""
        return Path(str(sys.modules[type(self).__module__].__file__)).parent

    @property
    def kind(self) -> str:
        """``"documents"`` for a task with the documents capability, else ``"choice"``."""
        return "documents" if self.documents is not None else "choice"

    # -- formats ---------------------------------------------------------------------------

    def sniff(self, head: FileHead) -> bool:
        """True when the file (its name and first lines in ``head``) is in one of this task's
        formats. Must be cheap and must not raise on another task's file."""
        return False

    def read_choices(self, path: Path, *, options: dict[str, Any] | None = None,
                     on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
        """The file's choice instances (ids unique within the file). ``options``: reader
        options (``READER_OPTIONS``, given as ``--task-arg``; recorded as a run's
        ``reader_options``);
        ``on_invalid``: skip and record malformed instances instead of raising at the first."""
        raise UsageError(f"task {self.name!r} has no choice instances (a {self.kind} task); "
                         "its own commands read it")

    def options(self, *, scorer: bool = False) -> tuple[Option, ...]:
        """The declared reader options, and the scorer's too when ``scorer``."""
        return (*self.READER_OPTIONS, *(self.SCORER_OPTIONS if scorer else ()))

    def check_options(self, given: dict[str, Any], *, scorer: bool = False) -> dict[str, Any]:
        """``given`` (``key=value`` strings or typed values) typed and checked against the
        declared options: an unknown key or a bad value is one usage error naming them."""
        return parse_options(f"task {self.name}", self.options(scorer=scorer), given)

    def infer_split(self, path: Path) -> str | None:
        """The split the file holds, recorded in every result (default: from its name)."""
        return split_from_name(path)

    def gold_instances(self, gold: Path, options: dict[str, Any] | None = None,
                       on_invalid: InvalidInstances | None = None) -> list[ChoiceInstance]:
        """The gold file's choice instances; RefbenchError when it holds none."""
        instances = list(self.read_choices(gold, options=dict(options or {}),
                                           on_invalid=on_invalid))
        if not instances:
            skipped = " (every instance was skipped as invalid)" if on_invalid else ""
            raise RefbenchError(f"the gold holds no instances{skipped}: nothing to score",
                                path=gold)
        return instances

    # -- metrics and slices ----------------------------------------------------------------

    def slices(self, inst: ChoiceInstance) -> dict[str, Any]:
        """Slice values of one instance (``None`` values are left out of the slices)."""
        return {key: inst.metadata.get(key) for key in self.slice_keys}

    def choice_extras(self, instances: Sequence[ChoiceInstance]) -> dict[str, Any]:
        """Extra keys after the shared choice metrics (AltEntities' ``truncated_instances``)."""
        return {}

    def run_warnings(self, instances: Sequence[ChoiceInstance]) -> list[str]:
        """Warnings a run adds to its metrics about the data it read."""
        return []

    def run_metrics(self, data: Path, predictions: Path, instances: Sequence[ChoiceInstance],
                    answers: Sequence[int | None], *, skip_invalid: bool = False
                    ) -> dict[str, Any]:
        """The task's own scorer on a finished run's ``predictions.jsonl`` (merged into the
        run's metrics; a ``ci95`` dict merges into the run's intervals). ``skip_invalid``: the
        run skipped malformed gold instances; skip the same ones when reading the gold."""
        return {}

    def choice_metrics(self, instances: Sequence[ChoiceInstance],
                       answers: Sequence[int | None], *,
                       answers_norm: Sequence[int | None] | None = None,
                       bootstrap: int = 1000, seed: int = 0) -> dict[str, Any]:
        """Accuracy, its interval, the slices and the extras: the one definition the runner
        and ``evaluate`` share, so a run scored again gives the same figures."""
        from refbench.metrics.choice import choice_metrics

        out = choice_metrics(self.name, instances, answers, answers_norm=answers_norm,
                             bootstrap=bootstrap, seed=seed, slices=self.slices)
        out.update(self.choice_extras(instances))
        return out

    def evaluate(self, gold: Path, preds: Sequence[Path], *, systems: Sequence[str] = (),
                 split: str = "test", bootstrap: int = 1000, seed: int = 0,
                 reader_options: dict[str, Any] | None = None,
                 on_invalid: InvalidInstances | None = None,
                 **options: Any) -> dict[str, Any]:
        """``refbench evaluate``: score predictions against a gold file. The default scores one
        answers file or run folder with the shared choice metrics, reading the gold the way the
        run read it. ``options`` carry task-specific flags (KnowRef's ``switched_pred``); the
        caller adds ``task``, ``gold``, ``data``, ``split`` and ``system``."""
        from refbench.tasks.answers import (
            one_prediction,
            prediction_file,
            read_choice_answers,
            run_metadata,
        )

        pred = one_prediction(preds, self.name)
        reading = dict(reader_options or {})
        for key, value in ((run_metadata(pred) or {}).get("reader_options") or {}).items():
            reading.setdefault(key, value)
        instances = self.gold_instances(gold, reading, on_invalid)
        read = read_choice_answers(pred, instances)
        result = self.choice_metrics(instances, read.answers, answers_norm=read.answers_norm,
                                     bootstrap=bootstrap, seed=seed)
        result.update({"n_missing": read.n_missing, "n_extra": read.n_extra,
                       "warnings": read.warnings, "pred": str(prediction_file(pred))})
        return result

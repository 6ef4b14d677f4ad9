"""The public interface for plugins: what a distribution imports to add models and benchmarks to
refbench, kept stable (a test pins every name here and the signatures plugins implement).

A plugin declares entry points in its own package metadata, and refbench loads them lazily::

    [project.entry-points."refbench.models"]
    my-model = "my_package.model:MyModel"        # a ChoiceModel subclass

    [project.entry-points."refbench.tasks"]
    my-bench = "my_package.task:TASK"            # a Task instance, named "my-bench"

    [project.entry-points."refbench.trainers"]
    my-trainer = "my_package.train:MyTrainer"    # a Trainer subclass (refbench train)

A model implements :meth:`ChoiceModel.predict` (and usually ``OPTIONS``,
:meth:`ChoiceModel.config` and ``summary``, the one line ``refbench ls`` shows); a benchmark
implements :meth:`Task.sniff` and :meth:`Task.read_choices`, declares its reader and scorer
options (``Task.READER_OPTIONS``, ``Task.SCORER_OPTIONS``: ``--task-arg``) and may add
capabilities (a web view, a report, a folder of data run whole, commands, ...); a trainer
implements :meth:`Trainer.train` for a :class:`TrainJob` and declares its ``OPTIONS``.
``docs/adding-a-model.md`` and ``docs/adding-a-task.md`` walk through them;
``docs/task-interface.md`` documents every capability. ``refbench ls`` lists plugins with the
distribution they come from; a plugin that cannot be loaded is one error line and never stops
another command. A plugin's commands show their examples with :func:`examples` (as their
epilog), so that the tests that run every ``--help`` example run theirs too.

From a notebook to the command line: a :class:`ChoiceModel` subclass written in a notebook runs
there as it is (``refbench.run(LongestName(), "wsc273")``, :mod:`refbench.models.user`), and the
same class, unchanged, becomes a plugin: move it into a module of a package, declare it under
``[project.entry-points."refbench.models"]`` (``longest-name =
"my_package.models:LongestName"``) and ``pip install -e .`` the package; then ``refbench run
--model longest-name`` and ``refbench.run("longest-name", ...)`` build it from that entry point
(the entry point's name is its spec; its keyword options become ``OPTIONS`` when the command
line is to set them). A plain function becomes a plugin as the ``predict`` of a small subclass.
In the notebook its predictions are cached only with ``version=``; as a plugin they always are,
keyed by :meth:`ChoiceModel.config`.
"""

from __future__ import annotations

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.help_text import examples
from refbench.core.inputs import parse_jsonl
from refbench.core.invalid import InvalidInstances, reject
from refbench.core.options import Option
from refbench.core.records import Record as InputRecord
from refbench.core.records import Where
from refbench.core.table import Table
from refbench.core.trainer import Trainer, TrainJob
from refbench.core.types import Candidate, ChoiceInstance
from refbench.formats.tsv import read_tsv
from refbench.models.base import ChoiceModel, ModelOutput, argmax
from refbench.tasks.base import FileHead, Task
from refbench.tasks.capabilities import (
    PLAIN,
    Commands,
    CommandServices,
    CorefGold,
    Demo,
    Documents,
    FolderFile,
    FolderRuns,
    HfExport,
    Listings,
    Report,
    Studies,
    TaskCore,
    Training,
    WebView,
)
from refbench.tasks.card import Card
from refbench.tasks.headline import Headline, HeadlineFigure
from refbench.tasks.hf_parts import HfFolder, HfPart
from refbench.tasks.index_records import Problem, Record, choice_record

__all__ = [
    "PLAIN",
    "Candidate",
    "Card",
    "ChoiceInstance",
    "ChoiceModel",
    "CommandServices",
    "Commands",
    "CorefGold",
    "Demo",
    "Documents",
    "FileHead",
    "FolderFile",
    "FolderRuns",
    "Headline",
    "HeadlineFigure",
    "HfExport",
    "HfFolder",
    "HfPart",
    "InputRecord",
    "InvalidInstances",
    "Listings",
    "ModelOutput",
    "Option",
    "Problem",
    "Record",
    "RefbenchError",
    "Report",
    "Studies",
    "Table",
    "Task",
    "TaskCore",
    "TrainJob",
    "Trainer",
    "Training",
    "UsageError",
    "WebView",
    "Where",
    "argmax",
    "choice_record",
    "examples",
    "parse_jsonl",
    "read_tsv",
    "reject",
]

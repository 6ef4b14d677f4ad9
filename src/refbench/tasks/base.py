"""The ``Task`` interface: everything a layer of refbench learns about one benchmark.

A benchmark is a folder ``tasks/<name>/`` with a ``task.py`` holding ``TASK = MyTask()``, and one
line in :data:`refbench.core.registry.TASKS` (``Entry("<name>", "refbench.tasks.<name>.task:TASK",
"...")``). Every other layer (the runner, ``evaluate``, ``report``, ``serve``, the studies,
``ls``) asks :func:`get_task` / :func:`all_tasks` and calls the hooks below; none of them tests a
task's name. The defaults describe a plain multiple-choice task (Winograd-style): a subclass of
:class:`Task` that sets ``name``, ``title``, ``summary`` and implements :meth:`Task.sniff` and
:meth:`Task.read_choices` runs, scores, reports and shows in the web app with nothing else.

Layering (DESIGN.md): this module and the task folders sit below ``models/``, ``runs/``,
``report/``, ``web/`` and ``cli/``. A task hands data upwards (a record for the web index, a
template name and the folder holding it, a :class:`refbench.core.table.Table`, a Click group
built on demand) and never imports Flask or an upper layer.

Hooks, grouped by the layer that calls them (``docs/task-interface.md`` has the full table):

- formats: :meth:`sniff`, ``sniff_order``, :meth:`read_choices`, :meth:`infer_split`
- runner and metrics: ``kind``, :meth:`slices` (``slice_keys``), :meth:`choice_extras`,
  :meth:`run_warnings`, :meth:`run_metrics`, :meth:`is_run_directory`, :meth:`run_directory`,
  :meth:`directory_result`, :meth:`directory_run_text`
- ``evaluate``: :meth:`evaluate`, :meth:`evaluate_directory`
- ``report``: ``headline_metrics``, ``table_notes``, :meth:`report_tables`, :meth:`plot`,
  :meth:`plot_result`, :meth:`result_text`, :meth:`check_result`
- web app: ``facets``, :meth:`facet_values`, :meth:`web_records`, :meth:`dataset_kind`,
  :meth:`directory_files`, :meth:`directory_of`, :meth:`match_key`,
  :meth:`is_prediction_file`, :meth:`document_outputs`, :meth:`score_documents`,
  ``instance_template``, :meth:`template_dir`, :meth:`instance_context`, :meth:`twin_ids`,
  ``twin_neighbours``, ``leaderboard_columns``, :meth:`directory_cell`,
  ``directory_caption``, ``has_evidence``
- models: ``cluster_gold``
- studies: ``study_kinds``, ``knowledge_first``
- export (``refbench export hf``): ``pretty_name``, ``licence``, ``citation``, ``bibtex``,
  ``source``, ``source_datasets``, ``annotations_creators``, ``card_notes``, :meth:`hf_rows`,
  :meth:`hf_folder`
- CLI: :meth:`cli_group`
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from refbench.core.errors import UsageError
from refbench.core.invalid import InvalidInstances
from refbench.core.types import ChoiceInstance
from refbench.tasks.files import SPLIT_WORDS, TEST_ONLY, FileHead, split_from_name

if TYPE_CHECKING:
    from refbench.tasks.hf_parts import HfFolder
    from refbench.tasks.index_records import Problem, Record

__all__ = ["SPLIT_WORDS", "TEST_ONLY", "FileHead", "Task", "all_tasks", "find_task", "get_task",
           "is_documents", "split_from_name", "task_names"]


# -- the interface ------------------------------------------------------------------------------

class Task:
    """One benchmark. Subclass it in ``tasks/<name>/task.py``; set the class attributes, override
    the hooks that differ from a plain choice task. Instances are stateless singletons."""

    # identity (``refbench ls``, report titles, the web app's headings)
    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    summary: ClassVar[str] = ""

    # the dataset card (``refbench export hf``, docs): what to cite and under which licence
    #: The card's title (default: ``title``).
    pretty_name: ClassVar[str] = ""
    #: The data's licence as a Hugging Face Hub identifier (``mit``, ``apache-2.0``,
    #: ``cc-by-sa-3.0``, ``unknown``); empty: not recorded (the card says ``unknown``).
    licence: ClassVar[str] = ""
    #: The paper, as one line of text (authors, title, venue, year).
    citation: ClassVar[str] = ""
    #: The paper as a BibTeX entry (the card's citation block; empty: none).
    bibtex: ClassVar[str] = ""
    #: Where the release comes from (a repository, a command).
    source: ClassVar[str] = ""
    #: The Hub's ``source_datasets`` and ``annotations_creators`` fields.
    source_datasets: ClassVar[tuple[str, ...]] = ("original",)
    annotations_creators: ClassVar[tuple[str, ...]] = ("found",)
    #: What a user of an export must know (corrected gold, share-alike, field names).
    card_notes: ClassVar[str] = ""

    #: "choice": files read into :class:`ChoiceInstance` (every choice model runs on them).
    #: "documents": files of whole documents scored by the task's own scorer (TNE); the runner
    #: refuses them, the web app shows them with the task's own page and system outputs.
    kind: ClassVar[str] = "choice"

    #: Sniffers are asked in ascending order (ties: registry order); a task whose format is a
    #: special case of another's (TNE JSONL before Winograd JSONL) asks first.
    sniff_order: ClassVar[int] = 100

    # runner and metrics
    #: Metadata keys accuracy is sliced by (``metrics.choice.choice_metrics``), in order.
    slice_keys: ClassVar[tuple[str, ...]] = ()

    # report
    #: The result keys the per-data-set table shows, in order (those present are shown).
    headline_metrics: ClassVar[tuple[str, ...]] = ("accuracy",)
    #: Extra notes under that table (e.g. what ``n`` counts).
    table_notes: ClassVar[tuple[str, ...]] = ()

    # web app
    #: Facets the dataset page filters by: (name, label) in display order.
    facets: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: Named parts of an instance's text that a search can be limited to (name, label); every
    #: record of the task then carries ``fields`` with exactly these names.
    text_fields: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: The instance page's template: the web app's own folder is searched first, then every
    #: task's :meth:`template_dir`, so give a task's own templates names of their own.
    instance_template: ClassVar[str] = "instance_choice.html"
    #: Leaderboard columns: (result key, label). A folder dataset's leaderboard shows the
    #: first, one column per :meth:`directory_cell`, under ``directory_caption``.
    leaderboard_columns: ClassVar[tuple[tuple[str, str], ...]] = (("accuracy", "accuracy"),)
    directory_caption: ClassVar[str] = "accuracy per data file"
    #: Look for the switched twin among neighbouring instances (WSC pairs sit side by side).
    twin_neighbours: ClassVar[bool] = False
    #: The web app offers the cross-encoder's selected evidence sentences (free-text candidates).
    has_evidence: ClassVar[bool] = False

    #: Gold read as coreference clusters mapped to choices (KITMUS): models that bring a
    #: coreference system's output (``coref-output``) run on it.
    cluster_gold: ClassVar[bool] = False

    # studies
    #: A context is a knowledge text followed by a task text (KITMUS): a validation study can
    #: show the task text alone (``without-knowledge``).
    knowledge_first: ClassVar[bool] = False
    #: Human-study types of this task: (study type name, ``"module:Class"`` of its
    #: :class:`refbench.studies.kinds.StudyKind`). Only the studies layer imports the class.
    study_kinds: ClassVar[tuple[tuple[str, str], ...]] = ()

    #: The file a folder run writes its combined result to (see :meth:`directory_result`).
    directory_result_file: ClassVar[str] = "results.json"

    def __repr__(self) -> str:
        return f"<Task {self.name}>"

    # -- formats ---------------------------------------------------------------------------

    def sniff(self, head: FileHead) -> bool:
        """True when the file (its name and first lines in ``head``) is in one of this task's
        formats. Called by :func:`refbench.tasks.choices.infer_task` for every registered task
        in ``sniff_order``; must be cheap and must not raise on another task's file (only
        ``head.json`` raises, for a ``.jsonl`` whose first line is not JSON)."""
        return False

    def read_choices(self, path: Path, *, options: dict[str, Any] | None = None,
                     on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
        """The file's choice instances (ids unique within the file). ``options``: reader
        options (``run --input-type/--max-words``, recorded as a run's ``reader_options``);
        ``on_invalid``: skip and record malformed instances instead of raising at the first."""
        raise UsageError(f"task {self.name!r} has no choice instances (a {self.kind} task); "
                         "its own commands read it")

    def infer_split(self, path: Path) -> str | None:
        """The split the file holds, recorded in every result (default: from its name)."""
        return split_from_name(path)

    # -- runner and metrics ----------------------------------------------------------------

    def slices(self, inst: ChoiceInstance) -> dict[str, Any]:
        """Slice values of one instance (``None`` values are left out of the slices)."""
        return {key: inst.metadata.get(key) for key in self.slice_keys}

    def choice_extras(self, instances: Sequence[ChoiceInstance]) -> dict[str, Any]:
        """Extra keys appended to the shared choice metrics of a run or an evaluation (e.g.
        AltEntities' ``truncated_instances``)."""
        return {}

    def run_warnings(self, instances: Sequence[ChoiceInstance]) -> list[str]:
        """Warnings a run adds to its metrics about the data it read (KnowRef: candidates
        absent from the text)."""
        return []

    def run_metrics(self, data: Path, predictions: Path, instances: Sequence[ChoiceInstance],
                    answers: Sequence[int | None], *, skip_invalid: bool = False
                    ) -> dict[str, Any]:
        """The task's own scorer on a finished run's ``predictions.jsonl`` (merged into the
        run's metrics; a ``ci95`` dict merges into the run's intervals). ``skip_invalid``: the
        run skipped malformed gold instances; skip the same ones when reading the gold again."""
        return {}

    def is_run_directory(self, path: Path) -> bool:
        """True when ``path`` is a folder of this task's data that ``run``, ``evaluate`` and
        ``serve`` take whole (a KITMUS suite folder): see :meth:`run_directory`,
        :meth:`evaluate_directory`, :meth:`directory_files`."""
        return False

    def directory_files(self, path: Path) -> list[Path]:
        """The data files the web app indexes for a folder dataset, once each."""
        return []

    def directory_of(self, file: Path) -> Path | None:
        """The folder dataset a data file of this task lies in, if any (a run on one subtask
        file of a suite is shown with the suite)."""
        return None

    def run_directory(self, path: Path, *, split: str
                      ) -> list[tuple[Path, str, dict[str, Any]]]:
        """The data files of a folder run: (gold file, output subfolder, labels) each."""
        raise UsageError(f"task {self.name!r} runs on files, not folders")

    def folder_run_prediction(self, gold: Path, pred: Path) -> Path:
        """``pred``, or, when ``pred`` is the ``--out`` of a folder run (``refbench run --data
        FOLDER``) and ``gold`` one of that folder's files, the subfolder the run wrote for it
        (``evaluate --gold FILE --pred OUT`` as well as ``--pred OUT/<sub>``). A task whose
        ``evaluate`` accepts that calls it (Winogender); KITMUS refuses a suite run folder
        against one subtask file on purpose."""
        if not pred.is_dir() or (pred / "predictions.jsonl").is_file():
            return pred
        folder = self.directory_of(gold)
        if folder is None or not self.is_run_directory(folder):
            return pred
        split = self.infer_split(gold) or "test"
        for file, sub, _ in self.run_directory(folder, split=split):
            if file.resolve() == gold.resolve() and (pred / sub).is_dir():
                return pred / sub
        return pred

    def directory_result(self, path: Path, runs: Sequence[tuple[dict[str, Any], dict[str, Any]]],
                         *, split: str, model: str, system: str) -> dict[str, Any]:
        """The result of a folder run from its (labels, run metrics) pairs."""
        raise UsageError(f"task {self.name!r} runs on files, not folders")

    def directory_run_text(self, result: dict[str, Any]) -> str:
        """The summary ``refbench run`` prints under a folder run's table."""
        ids = result.get("run_ids") or []
        return (f"{len(result.get('cells', []))} runs, {result['n_cached']} predictions from "
                f"the cache; predictions under {result['out_dir']}; result: "
                f"{result['out_dir']}/{self.directory_result_file}"
                + (f"; runs {', '.join(map(str, ids))}" if ids else "") + ".")

    def directory_cell(self, metrics: dict[str, Any]) -> tuple[str, int]:
        """The leaderboard column of one run of a folder dataset: (group, column), e.g. KITMUS
        (variant, number of entities); default (the run's data file, 0)."""
        return str(metrics.get("data")), 0

    # -- evaluate --------------------------------------------------------------------------

    def evaluate_directory(self, gold: Path, preds: Sequence[Path], *,
                           systems: Sequence[str] = (), split: str = "test",
                           bootstrap: int = 1000, seed: int = 0,
                           on_invalid: InvalidInstances | None = None,
                           allow_missing: bool = False) -> dict[str, Any]:
        """``evaluate`` with a folder as gold (:meth:`is_run_directory`): the complete result,
        returned as is."""
        raise UsageError(f"task {self.name!r} scores files, not folders")

    def evaluate(self, gold: Path, preds: Sequence[Path], *, systems: Sequence[str] = (),
                 split: str = "test", bootstrap: int = 1000, seed: int = 0,
                 reader_options: dict[str, Any] | None = None,
                 on_invalid: InvalidInstances | None = None,
                 **options: Any) -> dict[str, Any]:
        """``refbench evaluate --task NAME``: score predictions against gold. The default
        scores one answers file or run folder with the shared choice metrics. ``options``
        carry task-specific flags (KnowRef's ``switched_pred`` / ``switched_gold``); the caller
        adds ``task``, ``gold``, ``data``, ``split`` and ``system`` afterwards."""
        from refbench.tasks.scoring import evaluate_choice_task, one_prediction

        return evaluate_choice_task(self.name, gold, one_prediction(preds, self.name),
                                    reader_options=reader_options, bootstrap=bootstrap,
                                    seed=seed, on_invalid=on_invalid)

    # -- report ----------------------------------------------------------------------------

    def report_tables(self, results: Sequence[dict[str, Any]], *, metric: str | None = None,
                      ci: bool = False) -> list[Any] | None:
        """Tables (:class:`refbench.core.table.Table`) of this task's results in their own
        layout, or None for the shared per-data-set table (``headline_metrics``)."""
        return None

    def plot(self, results: Sequence[dict[str, Any]], out: Path, *,
             metric: str | None = None) -> bool:
        """Draw this task's own figure of ``results`` to ``out``; False for the shared bars."""
        return False

    def plot_result(self, result: dict[str, Any], out: Path, *, title: str) -> bool:
        """Draw the figure of one evaluation result (``refbench evaluate --plot``; TNE: the
        preposition confusion heat-map); False when the task has none."""
        return False

    def result_text(self, result: dict[str, Any], *, ci: bool = False) -> str | None:
        """What ``refbench evaluate`` prints for one result; None for the shared choice text."""
        return None

    def check_result(self, data: dict[str, Any], path: str | Path) -> None:
        """Check, once, the fields :meth:`report_tables` reads from a loaded result file."""

    # -- web app ---------------------------------------------------------------------------

    def facet_values(self, inst: ChoiceInstance) -> dict[str, Any]:
        """An instance's facet values (names as in ``facets``; None values are dropped)."""
        return {key: inst.metadata.get(key) for key, _ in self.facets}

    def dataset_kind(self, path: Path) -> str:
        """The web dataset kind of one file of this task (part of the index signature and a
        hint to :meth:`web_records`); default ``"choice"``."""
        return "choice"

    def web_records(self, path: Path, kind: str) -> Iterator[Record | Problem]:
        """The web index's records of one data file (see
        :class:`refbench.tasks.index_records.Record`): id, gold, facets, preview, searched
        text and the JSON payload the instance page draws. Default: one per choice instance."""
        from refbench.tasks.index_records import choice_record

        for inst in self.read_choices(path):
            yield choice_record(inst, self.facet_values(inst))

    def template_dir(self) -> Path | None:
        """The folder of this task's templates (``tasks/<name>/templates``) if it has one; the
        web app's Jinja loader searches it after its own (task folders in registry order).
        Templates may extend ``base.html`` and import ``_macros.html`` of the web app."""
        import sys

        module = sys.modules[type(self).__module__]
        folder = Path(str(module.__file__)).parent / "templates"
        return folder if folder.is_dir() else None

    def instance_context(self, payload: dict[str, Any], *, args: Mapping[str, str],
                         outputs: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
        """Extra template context of an instance page, computed from the record's payload, the
        request's query arguments and the selected systems' outputs (system id -> output).
        Plain data only; the web app adds ``ds``, ``item``, ``p``, ``systems``, ``labels`` and,
        for choice tasks, ``answers`` and ``twin``. Default: ``v``, the shared choice page's
        text segments and candidates (:func:`refbench.tasks.page.choice_view`)."""
        from refbench.tasks.page import choice_view

        return {"v": choice_view(payload)}

    #: Two facet names (rows, columns) for compare's matrix of paired tests per subtask
    #: (KITMUS: variant x entities); None: no matrix.
    compare_matrix: tuple[str, str] | None = None

    def run_facets(self, data: Path, root: Path) -> dict[str, str]:
        """The facet filter (facet name -> value) that selects, within the folder dataset at
        ``root``, the instances of a run on the file ``data``: the run page's browse link opens
        the run's own subtask, not the whole folder. Default: none (the whole dataset)."""
        return {}

    def is_prediction_file(self, path: Path) -> bool:
        """A documents task's own prediction file, found in a ``serve --runs`` folder beside
        run folders and matched to datasets by document ids (TNE predictions JSONL)."""
        return False

    def document_outputs(self, payloads: dict[str, dict[str, Any]], predictions: Path
                         ) -> dict[str, dict[str, Any]]:
        """Documents tasks: per document id (of the indexed ``payloads``), the output a
        prediction file gives it, shown on the document page; RefbenchError when the file is
        for other documents or malformed."""
        raise UsageError(f"task {self.name!r} has no document predictions")

    def score_documents(self, data: Sequence[Path], predictions: Path, *, stamp: str
                        ) -> dict[str, Any]:
        """Documents tasks: the scores of a prediction file on a dataset's files, as
        ``evaluate`` gives them, or ``{"error": message}`` when the file does not fit.
        ``stamp`` changes whenever the data files do (results may be cached on it)."""
        raise UsageError(f"task {self.name!r} has no document predictions")

    def document_scores(self, data: Sequence[Path], predictions: Path, *, stamp: str
                        ) -> dict[str, float]:
        """Documents tasks: the headline score of every document (TNE: labeled F1), for
        compare's paired test over documents; RefbenchError when the file does not fit."""
        raise UsageError(f"task {self.name!r} has no document predictions")

    def match_key(self, iid: str) -> str:
        """The id a system's prediction is matched to an indexed instance on (KITMUS ids lose
        their view segment, so runs on the CoNLL and the native file of one suite meet)."""
        return iid

    def twin_ids(self, iid: str) -> list[str]:
        """Ids the instance's switched twin may have (KnowRef ``:switched``, WinoGrande
        ``-1``/``-2``); looked up in this dataset and other datasets of the same task."""
        return []

    # -- export ----------------------------------------------------------------------------

    def hf_rows(self, path: Path) -> Iterator[dict[str, Any]] | None:
        """The rows ``refbench export hf`` writes for one data file of a task whose files are
        not choice instances (TNE: its documents, in the release's field names), one JSON
        schema for every row; None (the default): the file's choice instances."""
        return None

    def hf_folder(self, path: Path) -> HfFolder | None:
        """The files of a folder ``refbench export hf`` takes whole, with the config and split
        each becomes (:class:`refbench.tasks.hf_parts.HfFolder`); None when ``path`` is not
        such a folder of this task. Raise :class:`RefbenchError` when it is one but unusable."""
        return None

    # -- CLI -------------------------------------------------------------------------------

    def cli_group(self) -> Any | None:
        """A Click group of task-specific commands (``refbench <name> ...``), built on call so
        that importing the task never imports Click; None when the task has none."""
        return None


def get_task(name: str) -> Task:
    """The registered task ``name`` (aliases and "did you mean" through the registry)."""
    from refbench.core.registry import TASKS

    task = TASKS.get(name).load()
    if not isinstance(task, Task):
        raise TypeError(f"registry entry {name!r} is not a Task")
    return task


def find_task(name: str) -> Task | None:
    """The registered task ``name`` (or its alias), None when there is none (results loaded
    from files may name tasks this installation does not have)."""
    from refbench.core.registry import TASKS

    if name not in TASKS.names() and name not in TASKS.aliases():
        return None
    return get_task(name)


def all_tasks() -> list[Task]:
    """Every registered task, in registry order."""
    from refbench.core.registry import TASKS

    return [get_task(n) for n in TASKS.names()]


def is_documents(name: str) -> bool:
    """Whether the registered task ``name`` is a documents task (TNE); False if unknown."""
    found = find_task(name)
    return found is not None and found.kind == "documents"


def task_names(kind: str | None = None) -> list[str]:
    """Registered task names (of one ``kind``: "choice" or "documents")."""
    return [t.name for t in all_tasks() if kind is None or t.kind == kind]

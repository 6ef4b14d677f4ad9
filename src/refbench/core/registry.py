"""A lazy registry: names map to ``"module:attribute"`` strings, imported only when used.

Nothing registers itself by import side effect. refbench's own names are declared in the
tables below; other installed distributions add theirs through entry points (the group named
by each registry: ``refbench.tasks``, ``refbench.models``, ``refbench.trainers``), read when
a name is first looked up and loaded only when used. ``refbench ls`` lists both and says
where each comes from. A plugin that cannot be loaded, or that takes a name refbench already
has, is one error line (:class:`PluginError`) for the command that uses it, never a broken
command line.

Names may carry a version (``kitmus.v1``): the loaded object's ``version`` must match.
"""

from __future__ import annotations

import importlib
import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from refbench.core.errors import E_PLUGIN, RefbenchError, UsageError
from refbench.core.interrupt import Terminated

if TYPE_CHECKING:
    from importlib import metadata

BUILTIN = "refbench"
_VERSIONED = re.compile(r"^(.+)\.v(\d+)$")


class PluginError(RefbenchError):
    """A plugin's entry point that cannot be loaded (or is not what its group expects), or
    whose code failed when refbench called it: the plugin's fault, so exit code 1."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message, code=E_PLUGIN)


def describe(exc: BaseException) -> str:
    """``Type: first line of the message`` (at most 200 characters of it)."""
    text = str(exc).strip()
    first = text.splitlines()[0][:200] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


@dataclass(frozen=True)
class Entry:
    name: str
    target: str  # "package.module:attribute"
    summary: str
    origin: str = BUILTIN  # the distribution that provides it ("name version" for plugins)

    def load(self) -> Any:
        module_name, _, attr = self.target.partition(":")
        try:
            module = importlib.import_module(module_name)
            obj: Any = module
            for part in attr.split("."):
                obj = getattr(obj, part)
        except BaseException as exc:  # a plugin's import may fail in any way: one line for it
            if self.origin == BUILTIN or isinstance(exc, Terminated):
                raise
            raise PluginError(self.broken(f"import raised {describe(exc)}")) from None
        if isinstance(obj, dict) and self.name in obj:
            return obj[self.name]
        return obj

    def broken(self, why: str) -> str:
        """The one line that says this plugin entry cannot be used, and why."""
        return (f"plugin {self.origin}: entry point {self.name} = {self.target} cannot be "
                f"used: {why}")

    def failed(self, what: str) -> str:
        """The one line that says a call into this plugin's code failed (``what`` it did)."""
        return (f"plugin {self.origin}: entry point {self.name} = {self.target}: {what} "
                f"(the plugin's code failed; report it to {self.origin.rsplit(' ', 1)[0]})")


class Registry:
    """A named, ordered collection of lazy entries with "did you mean" lookups; ``group``:
    the entry-point group other distributions register in (None: refbench's names only)."""

    def __init__(self, kind: str, entries: list[Entry], aliases: dict[str, str] | None = None,
                 *, group: str | None = None):
        self.kind = kind
        self.group = group
        self._entries = {e.name: e for e in entries}
        self._aliases = dict(aliases or {})
        self._plugins: dict[str, Entry] | None = None
        self.shadowed: list[Entry] = []  # plugin entries that take a refbench name

    def plugins(self) -> dict[str, Entry]:
        """The entries installed distributions add (read once per process)."""
        if self._plugins is None:
            self._plugins = {}
            for ep in entry_points(self.group) if self.group else []:
                dist = getattr(ep, "dist", None)
                origin = f"{dist.name} {dist.version}" if dist is not None else "unknown"
                entry = Entry(ep.name, ep.value, "", origin)
                if ep.name in self._entries or ep.name in self._aliases:
                    self.shadowed.append(entry)
                else:
                    self._plugins.setdefault(ep.name, entry)
        return self._plugins

    def _all(self) -> dict[str, Entry]:
        return {**self._entries, **self.plugins()}

    def names(self) -> list[str]:
        return list(self._all())

    def entries(self) -> list[Entry]:
        return list(self._all().values())

    def aliases(self) -> dict[str, str]:
        return dict(self._aliases)

    def canonical(self, name: str) -> str:
        if name in self._entries:  # refbench's own wins over any plugin: no need to read them
            return name
        entries = self._all()
        if name in entries:
            return name
        if name in self._aliases:
            return self._aliases[name]
        versioned = _VERSIONED.match(name)
        if versioned and (versioned.group(1) in entries or versioned.group(1) in self._aliases):
            return self.canonical(versioned.group(1))
        known = [*entries, *self._aliases]
        import difflib

        close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise UsageError(
            f"unknown {self.kind} {name!r}.{hint} Registered: {', '.join(entries)}"
        )

    def get(self, name: str) -> Entry:
        if name in self._entries:  # refbench's own wins over any plugin: no need to read them
            return self._entries[name]
        return self._all()[self.canonical(name)]

    def load(self, name: str) -> Any:
        """The object ``name`` names; a versioned name (``kitmus.v1``) must match its
        ``version``."""
        obj = self.get(name).load()
        versioned = _VERSIONED.match(name)
        if versioned and name not in self._all():
            have = getattr(obj, "version", None)
            if have != int(versioned.group(2)):
                raise UsageError(f"{self.kind} {versioned.group(1)!r} is at version {have} "
                                 f"here, not {versioned.group(2)} (refbench ls {self.kind}s)")
        return obj


def entry_points(group: str) -> list[metadata.EntryPoint]:
    """The entry points of ``group`` in every installed distribution (on ``sys.path``)."""
    from importlib import metadata  # read only when a name is not refbench's own

    try:
        return sorted(metadata.entry_points(group=group), key=lambda ep: ep.name)
    except Exception as exc:  # a distribution's metadata that cannot be read
        print(f"warning: cannot read installed plugins ({group}): {exc}", file=sys.stderr)
        return []


# -- the tables -----------------------------------------------------------------------------

_T = "refbench.tasks"

# One line per benchmark: its folder's task.py holds TASK, a refbench.tasks.base.Task that every
# layer asks what it needs; its title, summary, version, licence and citation are in the folder's
# card.toml (refbench.tasks.card), the one source ``refbench ls`` and the exports read.
TASKS = Registry(
    "task",
    [
        Entry("kitmus", f"{_T}.kitmus.task:TASK", ""),
        Entry("gap", f"{_T}.gap.task:TASK", ""),
        Entry("knowref", f"{_T}.knowref.task:TASK", ""),
        Entry("winograd", f"{_T}.winograd.task:TASK", ""),
        Entry("altentities", f"{_T}.altentities.task:TASK", ""),
        Entry("tne", f"{_T}.tne.task:TASK", ""),
        Entry("winogender", f"{_T}.winogender.task:TASK", ""),
        Entry("winobias", f"{_T}.winobias.task:TASK", ""),
    ],
    group="refbench.tasks",
)

_M = "refbench.models"

MODELS = Registry(
    "model",
    [
        Entry("random", f"{_M}.heuristics:RandomModel", "uniform choice, seeded per instance"),
        Entry("first", f"{_M}.heuristics:FirstModel", "the candidate mentioned first"),
        Entry("last", f"{_M}.heuristics:LastModel", "the candidate whose first mention is last"),
        Entry("nearest", f"{_M}.heuristics:NearestModel",
              "the candidate mentioned closest before the expression"),
        Entry("knowledge-match", f"{_M}.knowledge:KnowledgeMatchModel",
              "transparent resolver: situation -> background knowledge -> occupation -> entity"),
        Entry("embedding", f"{_M}.embedding:EmbeddingModel",
              "MiniLM cosine similarity between expression and candidate text (USE baseline)"),
        Entry("cross-encoder", f"{_M}.cross_encoder:CrossEncoderModel",
              "fine-tunable MiniLM pair scorer, joint or binary head (cross-encoder:DIR)"),
        Entry("encoder-head", f"{_M}.encoder_head:EncoderHeadModel",
              "frozen MiniLM sentence vectors, small trained two-hop head (encoder-head:DIR)"),
        Entry("llm-loglik", f"{_M}.llm:LoglikModel",
              "causal-LM log-likelihood, SmolLM2-135M by default (llm-loglik:PATH)"),
        Entry("llm-chat", f"{_M}.chat:ChatModel",
              "OpenAI-compatible chat endpoint (llm-chat:MODEL, base_url=..., cached)"),
        Entry("coref-output", f"{_M}.coref:CorefOutputModel",
              "an external coreference system's output as a model (coref-output:PATH)"),
    ],
    group="refbench.models",
)

# What ``refbench train --model NAME`` trains: each a refbench.core.trainer.Trainer declaring its
# options; the first is the default.
TRAINERS = Registry(
    "trainer",
    [
        Entry("cross-encoder", f"{_M}.train:CrossEncoderTrainer",
              "fine-tune the MiniLM pair scorer (then --model cross-encoder:DIR)"),
        Entry("llm-loglik", f"{_M}.lm_ranker:LmRankerTrainer",
              "a causal LM as a ranker on its log-likelihoods, SmolLM2-135M by default "
              "(llm-loglik[:PATH]; then --model llm-loglik:DIR/model)"),
        Entry("encoder-head", f"{_M}.train_head:EncoderHeadTrainer",
              "a small head over frozen MiniLM sentence vectors (then --model "
              "encoder-head:DIR)"),
        Entry("tne", f"{_T}.tne.models.train:TneTrainer",
              "the TNE span-pair model on TNE documents (then refbench tne predict --model "
              "DIR)"),
    ],
    group="refbench.trainers",
)

PREDICTION_FORMATS = Registry(
    "prediction format",
    [
        Entry("run", "refbench.tasks.answers:prediction_file",
              "a refbench run folder (its predictions.jsonl), or a folder run's --out: any task"),
        Entry("lst", "refbench.tasks.answers:read_choice_answers",
              "WinoGrande leaderboard .lst: one 1-based option number per gold line"),
    ],
)

#: What ``refbench ls`` lists of refbench's own tables; tasks add theirs (``Task.listings``:
#: KITMUS variants, formats and resource layouts, the metrics and prediction formats tasks
#: score).
ALL = {
    "models": MODELS,
    "trainers": TRAINERS,
    "tasks": TASKS,
    "prediction-formats": PREDICTION_FORMATS,
}

"""A lazy registry: names map to ``"module:attribute"`` strings, imported only when used.

Nothing registers itself by import side effect; the tables below are the single place where
names are declared, so ``refbench ls`` can list everything without importing heavy modules.
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass
from typing import Any

from refbench.core.errors import UsageError


@dataclass(frozen=True)
class Entry:
    name: str
    target: str  # "package.module:attribute"
    summary: str

    def load(self) -> Any:
        module_name, _, attr = self.target.partition(":")
        module = importlib.import_module(module_name)
        obj: Any = module
        for part in attr.split("."):
            obj = getattr(obj, part)
        if isinstance(obj, dict) and self.name in obj:
            return obj[self.name]
        return obj


class Registry:
    """A named, ordered collection of lazy entries with "did you mean" lookups."""

    def __init__(self, kind: str, entries: list[Entry], aliases: dict[str, str] | None = None):
        self.kind = kind
        self._entries = {e.name: e for e in entries}
        self._aliases = dict(aliases or {})

    def names(self) -> list[str]:
        return list(self._entries)

    def entries(self) -> list[Entry]:
        return list(self._entries.values())

    def aliases(self) -> dict[str, str]:
        return dict(self._aliases)

    def canonical(self, name: str) -> str:
        if name in self._entries:
            return name
        if name in self._aliases:
            return self._aliases[name]
        known = [*self._entries, *self._aliases]
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise UsageError(
            f"unknown {self.kind} {name!r}.{hint} Registered: {', '.join(self._entries)}"
        )

    def get(self, name: str) -> Entry:
        return self._entries[self.canonical(name)]


# -- the tables -----------------------------------------------------------------------------

_K = "refbench.tasks.kitmus.variants"

KITMUS_VARIANTS = Registry(
    "KITMUS variant",
    [
        Entry("background-pretrain", f"{_K}:VARIANTS",
              "background knowledge only in model parameters; real occupations and situations"),
        Entry("background-pretrain-no-noise", f"{_K}:VARIANTS",
              "background-pretrain without the location noise sentence"),
        Entry("background-both", f"{_K}:VARIANTS",
              "background knowledge in parameters and in the knowledge text"),
        Entry("background-inference-real-charfict",
              f"{_K}:VARIANTS",
              "only in the knowledge text; real occupations, character-level fictional situations"),
        Entry("background-inference-real-wordfict",
              f"{_K}:VARIANTS",
              "only in the knowledge text; real occupations, word-level fictional situations"),
        Entry("background-inference-charfict-real",
              f"{_K}:VARIANTS",
              "only in the knowledge text; fictional occupations, real situations"),
        Entry("background-inference-charfict-charfict",
              f"{_K}:VARIANTS",
              "only in the knowledge text; fictional occupations and char-fictional situations"),
        Entry("background-inference-charfict-wordfict",
              f"{_K}:VARIANTS",
              "only in the knowledge text; fictional occupations and word-fictional situations"),
    ],
    aliases={
        "background-train": "background-pretrain",
        "background-train-no-noise": "background-pretrain-no-noise",
        **{
            f"background-train-inference-{s}": f"background-inference-{s}"
            for s in ("real-charfict", "real-wordfict", "charfict-real", "charfict-charfict",
                      "charfict-wordfict")
        },
    },
)

_F = "refbench.tasks.kitmus.writers"

KITMUS_FORMATS = Registry(
    "KITMUS output format",
    [
        Entry("conll", f"{_F}:write_conll", "CoNLL-2012 .v4_gold_conll (POS, all mentions)"),
        Entry("jsonlines", f"{_F}:write_jsonlines", "e2e-coref .jsonlines (doc_key, clusters)"),
        Entry("tsv", f"{_F}:write_gap", "GAP .tsv (2-entity subtask, views with a pronoun)"),
        Entry("txt", f"{_F}:write_txt", "plain text: id line, text line, blank line"),
        Entry("jsonl", "refbench.tasks.kitmus.native:instance_to_json",
              "refbench native JSONL, one instance per line with every field"),
    ],
)

RESOURCE_LAYOUTS = Registry(
    "KITMUS resource layout",
    [
        Entry("refbench", "refbench.tasks.kitmus.resources:load_native",
              "refbench's own layout (the built-in pools use it)"),
        Entry("official", "refbench.tasks.kitmus.official:load_official",
              "the official KITMUS resource folder (tuple literals parsed safely)"),
    ],
)

_T = "refbench.tasks"

# One line per benchmark: its folder's task.py holds TASK, a refbench.tasks.base.Task that every
# layer asks what it needs (formats, metrics, tables, web pages, study kinds).
TASKS = Registry(
    "task",
    [
        Entry("kitmus", f"{_T}.kitmus.task:TASK",
              "KITMUS: antecedent P/R/F1, pronoun accuracy, decisions, slices, intervals"),
        Entry("gap", f"{_T}.gap.task:TASK",
              "GAP: the official gap_scorer metrics, plus singular they and neopronouns"),
        Entry("knowref", f"{_T}.knowref.task:TASK",
              "KnowRef: knowref_test.json (bracketed pronoun) and substitution TSVs; accuracy"),
        Entry("winograd", f"{_T}.winograd.task:TASK",
              "Winograd-style JSONL (WSC273, WinoGrande): blank and two options; accuracy"),
        Entry("altentities", f"{_T}.altentities.task:TASK",
              "AltEntities: indirect expressions choosing between two entities; accuracy"),
        Entry("tne", f"{_T}.tne.task:TASK",
              "TNE: labeled/unlabeled P/R/F1 over NP pairs, IPrep/UPrep-Acc, breakdowns"),
        Entry("winogender", f"{_T}.winogender.task:TASK",
              "Winogender: occupation or participant; by gender, flips, gotchas, correlation"),
        Entry("winobias", f"{_T}.winobias.task:TASK",
              "WinoBias: Pro / Anti / Avg / Diff per type; MUC/B3/CEAF-e on its CoNLL files"),
    ],
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
        Entry("llm-loglik", f"{_M}.llm:LoglikModel",
              "causal-LM log-likelihood, SmolLM2-135M by default (llm-loglik:PATH)"),
        Entry("llm-chat", f"{_M}.chat:ChatModel",
              "OpenAI-compatible chat endpoint (llm-chat:MODEL, base_url=..., cached)"),
        Entry("coref-output", f"{_M}.coref:CorefOutputModel",
              "an external coreference system's output as a model (coref-output:PATH)"),
    ],
)

METRICS = Registry(
    "metric",
    [
        Entry("kitmus.antecedent_f1", "refbench.tasks.kitmus.evaluate:score",
              "micro P/R/F1 over candidate-pronoun link decisions (task text)"),
        Entry("kitmus.pronoun_accuracy", "refbench.tasks.kitmus.evaluate:score",
              "instance correct iff the linked set is exactly the correct candidate"),
        Entry("kitmus.task_specific_accuracy", "refbench.tasks.kitmus.evaluate:score",
              "KnowRef: correct / (correct + incorrect), with the decision breakdown"),
        Entry("gap.f1", "refbench.tasks.gap.score:score_gap",
              "GAP P/R/F1 overall, masculine, feminine; bias F/M"),
    ],
)

PREDICTION_FORMATS = Registry(
    "prediction format",
    [
        Entry("jsonlines", "refbench.tasks.kitmus.predictions:read_predictions",
              "e2e-coref output (predicted_clusters, else clusters)"),
        Entry("conll", "refbench.tasks.kitmus.predictions:read_predictions",
              "CoNLL-2012 with a predicted coreference column"),
        Entry("gap", "refbench.tasks.kitmus.predictions:read_predictions",
              "GAP TSV: 11 or 9 columns with header, or the scorer's 3 columns without"),
        Entry("answers", "refbench.tasks.kitmus.predictions:read_predictions",
              "refbench answers JSONL: {id, answer: index or name, scores}"),
        Entry("run", "refbench.tasks.answers:prediction_file",
              "a refbench run folder (its predictions.jsonl), or a suite run folder: any task"),
        Entry("lst", "refbench.tasks.answers:read_choice_answers",
              "WinoGrande leaderboard .lst: one 1-based option number per gold line"),
    ],
)

ALL = {
    "models": MODELS,
    "tasks": TASKS,
    "metrics": METRICS,
    "prediction-formats": PREDICTION_FORMATS,
    "variants": KITMUS_VARIANTS,
    "formats": KITMUS_FORMATS,
    "resource-layouts": RESOURCE_LAYOUTS,
}

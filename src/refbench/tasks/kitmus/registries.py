"""KITMUS's named tables, listed by ``refbench ls`` (the task's listings capability): variants,
output formats, resource layouts, and the metrics and prediction formats its scorer reads.
Lazy ``"module:attribute"`` entries, as every registry of refbench."""

from __future__ import annotations

from refbench.core.errors import UsageError
from refbench.core.registry import Entry, Registry

_K = "refbench.tasks.kitmus.generate.variants"

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
        Entry("refbench", "refbench.tasks.kitmus.generate.resources:load_native",
              "refbench's own layout (the built-in pools use it)"),
        Entry("official", "refbench.tasks.kitmus.generate.official:load_official",
              "the official KITMUS resource folder (tuple literals parsed safely)"),
    ],
)

METRICS = Registry(
    "metric",
    [
        Entry("kitmus.antecedent_f1", "refbench.tasks.kitmus.score.evaluate:score",
              "micro P/R/F1 over candidate-pronoun link decisions (task text)"),
        Entry("kitmus.pronoun_accuracy", "refbench.tasks.kitmus.score.evaluate:score",
              "instance correct iff the linked set is exactly the correct candidate"),
        Entry("kitmus.task_specific_accuracy", "refbench.tasks.kitmus.score.evaluate:score",
              "KnowRef: correct / (correct + incorrect), with the decision breakdown"),
    ],
)

PREDICTION_FORMATS = Registry(
    "prediction format",
    [
        Entry("jsonlines", "refbench.tasks.kitmus.score.predictions:read_predictions",
              "e2e-coref output (predicted_clusters, else clusters)"),
        Entry("conll", "refbench.tasks.kitmus.score.predictions:read_predictions",
              "CoNLL-2012 with a predicted coreference column"),
        Entry("gap", "refbench.tasks.kitmus.score.predictions:read_predictions",
              "GAP TSV: 11 or 9 columns with header, or the scorer's 3 columns without"),
        Entry("answers", "refbench.tasks.kitmus.score.predictions:read_predictions",
              "refbench answers JSONL: {id, answer: index or name, scores}"),
    ],
)


def canonical_variant(name: str) -> str:
    try:
        return KITMUS_VARIANTS.canonical(name)
    except UsageError:
        return name


def variant_order(variant: str) -> int:
    """The paper's order of variants (the registry's), unknown names last."""
    names = KITMUS_VARIANTS.names()
    return names.index(variant) if variant in names else len(names)

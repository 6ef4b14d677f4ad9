"""TNE through the :class:`~refbench.tasks.base.Task` interface: a *documents* task (NP pairs
and prepositions, no choice instances) with its own scorer, text, web records and page."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.tasks.base import FileHead, Task
from refbench.tasks.index_records import Problem, Record


class TneTask(Task):
    name = "tne"
    title = "TNE"
    summary = "TNE: labeled/unlabeled P/R/F1 over NP pairs, IPrep/UPrep-Acc, breakdowns"
    pretty_name = "TNE (Text-based NP Enrichment)"
    licence = "mit"
    citation = "Elazar, Basmov, Goldberg and Tsarfaty. Text-based NP Enrichment. TACL 2022."
    bibtex = """@article{elazar-etal-2022-text,
    title = "Text-based {NP} Enrichment",
    author = "Elazar, Yanai and Basmov, Victoria and Goldberg, Yoav and Tsarfaty, Reut",
    journal = "Transactions of the Association for Computational Linguistics",
    volume = "10",
    year = "2022",
}"""
    source = "yanaiela/TNE"
    annotations_creators = ("expert-generated",)
    card_notes = ("Span fields are `first_char/last_char/first_token/last_token` (the release's "
                  "README calls them `start_index/end_index/start_token/end_token`); "
                  "`np_relations` is null for unlabelled documents.")
    kind = "documents"
    sniff_order = 10  # a JSONL of documents; asked before the choice tasks' JSONL sniffers
    headline_metrics = ("labeled_f1", "labeled_precision", "labeled_recall", "unlabeled_f1",
                        "iprep_accuracy", "uprep_accuracy")
    table_notes = ("TNE n: documents.",)
    facets = (("source", "source"), ("labelled", "labelled"))
    instance_template = "instance_tne.html"
    leaderboard_columns = (("labeled_f1", "labeled F1"), ("labeled_precision", "labeled P"),
                           ("labeled_recall", "labeled R"), ("unlabeled_f1", "unlabeled F1"),
                           ("iprep_accuracy", "IPrep-Acc"))
    study_kinds = (("tne-annotation", "refbench.studies.tne:TneAnnotation"),)

    def sniff(self, head: FileHead) -> bool:
        return head.name.endswith(".jsonl") and "nps" in head.json and "tokens" in head.json

    def evaluate(self, gold: Path, preds: Sequence[Path], *, systems: Sequence[str] = (),
                 split: str = "test", bootstrap: int = 1000, seed: int = 0,
                 reader_options: dict[str, Any] | None = None,
                 on_invalid: InvalidInstances | None = None, **options: Any) -> dict[str, Any]:
        from refbench.tasks.scoring import one_prediction
        from refbench.tasks.tne.metrics import evaluate_tne
        from refbench.tasks.tne.predictions import read_predictions
        from refbench.tasks.tne.read import read_documents

        pred = one_prediction(preds, self.name)
        docs = read_documents(gold, on_invalid=on_invalid)
        skipped = {str(s["id"]) for s in on_invalid.skipped} if on_invalid else set()
        result = evaluate_tne(docs, read_predictions(pred, {d.id: d for d in docs},
                                                     skipped=skipped))
        result.update({"task": self.name, "pred": str(pred)})
        return result

    def result_text(self, result: dict[str, Any], *, ci: bool = False) -> str | None:
        from refbench.tasks.tne.text import tne_text

        return tne_text(result)

    def plot_result(self, result: dict[str, Any], out: Path, *, title: str) -> bool:
        from refbench.tasks.tne.plot import plot_tne_confusion

        plot_tne_confusion(result, out, title=f"TNE preposition confusion: {title} "
                           "(rows sum to 1)")
        return True

    def hf_rows(self, path: Path) -> Iterator[dict[str, Any]] | None:
        from refbench.tasks.tne.hf_rows import tne_rows

        return tne_rows(path)

    def is_prediction_file(self, path: Path) -> bool:
        import json

        from refbench.core.inputs import open_text

        try:
            with open_text(path) as fh:
                head = json.loads(fh.readline() or "{}")
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, EOFError):
            return False
        return isinstance(head, dict) and "id" in head and (
            "np_relations" in head or "predicted_prepositions" in head) and "nps" not in head

    def document_outputs(self, payloads: dict[str, dict[str, Any]], predictions: Path
                         ) -> dict[str, dict[str, Any]]:
        from refbench.tasks.tne.web_scores import document_outputs

        return document_outputs(payloads, predictions)

    def score_documents(self, data: Sequence[Path], predictions: Path, *, stamp: str
                        ) -> dict[str, Any]:
        from refbench.tasks.tne.web_scores import _evaluate

        st = predictions.stat()
        return _evaluate(tuple(str(f) for f in data), stamp, str(predictions),
                         (st.st_size, st.st_mtime_ns))

    def document_scores(self, data: Sequence[Path], predictions: Path, *, stamp: str
                        ) -> dict[str, float]:
        from refbench.tasks.tne.web_scores import document_scores

        st = predictions.stat()
        return document_scores(tuple(str(f) for f in data), stamp, str(predictions),
                               (st.st_size, st.st_mtime_ns))

    def dataset_kind(self, path: Path) -> str:
        return "tne"

    def web_records(self, path: Path, kind: str) -> Iterator[Record | Problem]:
        from refbench.tasks.tne.web_records import tne_records

        return tne_records(path)

    def instance_context(self, payload: dict[str, Any], *, args: Mapping[str, str],
                         outputs: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
        from refbench.tasks.tne.page import tne_view

        predicted = {sid: out["relations"] for sid, out in outputs.items()}
        return {"doc": tne_view(payload, args.get("np"), predicted)}


TASK = TneTask()

"""TNE through the :class:`~refbench.tasks.base.Task` interface: a *documents* task (NP pairs
and prepositions, no choice instances) with its own scorer, text, web pages, demo, commands and
annotation study."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.tasks.base import FileHead, Task
from refbench.tasks.capabilities import Commands, Studies
from refbench.tasks.headline import Headline
from refbench.tasks.tne.demo import TneDemo
from refbench.tasks.tne.hf_rows import TneExport
from refbench.tasks.tne.present.report import TneReport
from refbench.tasks.tne.web import TneDocuments, TneWebView


class TneTask(Task):
    name = "tne"
    sniff_order = 10  # a JSONL of documents; asked before the choice tasks' JSONL sniffers
    headline_metrics = ("labeled_f1", "labeled_precision", "labeled_recall", "unlabeled_f1",
                        "iprep_accuracy", "uprep_accuracy")
    headline = (Headline("labeled_f1", "Labeled F1", "bootstrap"),)
    documents = TneDocuments()
    web = TneWebView()
    report = TneReport()
    export = TneExport()
    demo = TneDemo()
    commands = Commands("refbench.tasks.tne.commands:commands")
    studies = Studies(tne_annotation="refbench.tasks.tne.annotation.study:TneAnnotation")

    def sniff(self, head: FileHead) -> bool:
        return head.name.endswith(".jsonl") and "nps" in head.json and "tokens" in head.json

    def evaluate(self, gold: Path, preds: Sequence[Path], *, systems: Sequence[str] = (),
                 split: str = "test", bootstrap: int = 1000, seed: int = 0,
                 reader_options: dict[str, Any] | None = None,
                 on_invalid: InvalidInstances | None = None, **options: Any) -> dict[str, Any]:
        from refbench.tasks.answers import one_prediction, prediction_file
        from refbench.tasks.tne.metrics import evaluate_tne
        from refbench.tasks.tne.predictions import read_predictions
        from refbench.tasks.tne.read import read_documents

        pred = prediction_file(one_prediction(preds, self.name))  # a run folder's too
        docs = read_documents(gold, on_invalid=on_invalid)
        skipped = {str(s["id"]) for s in on_invalid.skipped} if on_invalid else set()
        result = evaluate_tne(docs, read_predictions(pred, {d.id: d for d in docs},
                                                     skipped=skipped))
        # n of N, as a run folder records it (documents): what the model card reads
        result.update({"task": self.name, "pred": str(pred), "n": result["n_documents"],
                       "n_missing": result["n_missing_documents"]})
        return result


TASK = TneTask()

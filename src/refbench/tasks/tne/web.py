"""TNE in the web app: each document with its NPs and links (``instance_tne.html``), and TNE
prediction files shown as systems beside the runs (matched to datasets by document ids, scored
with the task's own metrics)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from refbench.tasks.capabilities import Documents, TaskCore, WebView
from refbench.tasks.index_records import Problem, Record


class TneWebView(WebView):
    facets = (("source", "source"), ("labelled", "labelled"))
    instance_template = "instance_tne.html"
    leaderboard_columns = (("labeled_f1", "labeled F1"), ("labeled_precision", "labeled P"),
                           ("labeled_recall", "labeled R"), ("unlabeled_f1", "unlabeled F1"),
                           ("iprep_accuracy", "IPrep-Acc"))

    def dataset_kind(self, path: Path) -> str:
        return "tne"

    def records(self, task: TaskCore, path: Path, kind: str) -> Iterator[Record | Problem]:
        from refbench.tasks.tne.web_records import tne_records

        return tne_records(path)

    def context(self, payload: dict[str, Any], *, args: Mapping[str, str],
                outputs: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
        from refbench.tasks.tne.page import tne_view

        predicted = {sid: out["relations"] for sid, out in outputs.items()}
        return {"doc": tne_view(payload, args.get("np"), predicted)}


class TneDocuments(Documents):
    def has_gold(self, data: Sequence[Path]) -> bool:
        """An unlabelled release (``test_unlabeled``) has ``np_relations: null`` throughout:
        its first document says which."""
        from refbench.tasks.tne.read import read_tne

        for f in data:
            first = next(iter(read_tne(f)), None)
            if first is not None and first.relations is not None:
                return True
        return False

    def document_ids(self, path: Path) -> frozenset[str]:
        from refbench.core.inputs import read_jsonl

        return frozenset(str(obj.get("id")) for _, obj in read_jsonl(path)
                         if isinstance(obj, dict) and obj.get("id") is not None)

    def is_prediction_file(self, path: Path) -> bool:
        from refbench.core.inputs import open_text

        try:
            with open_text(path) as fh:
                head = json.loads(fh.readline() or "{}")
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, EOFError):
            return False
        return isinstance(head, dict) and "id" in head and (
            "np_relations" in head or "predicted_prepositions" in head) and "nps" not in head

    def outputs(self, payloads: dict[str, dict[str, Any]], predictions: Path
                ) -> dict[str, dict[str, Any]]:
        from refbench.tasks.tne.web_scores import document_outputs

        return document_outputs(payloads, predictions)

    def score(self, data: Sequence[Path], predictions: Path, *, stamp: str) -> dict[str, Any]:
        from refbench.tasks.tne.web_scores import evaluate_file

        st = predictions.stat()
        return evaluate_file(tuple(str(f) for f in data), stamp, str(predictions),
                             (st.st_size, st.st_mtime_ns))

    def document_scores(self, data: Sequence[Path], predictions: Path, *, stamp: str
                        ) -> dict[str, float]:
        from refbench.tasks.tne.web_scores import document_scores

        st = predictions.stat()
        return document_scores(tuple(str(f) for f in data), stamp, str(predictions),
                               (st.st_size, st.st_mtime_ns))

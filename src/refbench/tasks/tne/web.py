"""TNE in the web app: each document with its NPs and links (``instance_tne.html``); a TNE run
folder's predictions read into the documents' outputs, and each document's labeled F1 for
compare's paired tests."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
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
    def outputs(self, payloads: dict[str, dict[str, Any]], predictions: Path
                ) -> dict[str, dict[str, Any]]:
        from refbench.tasks.tne.web_scores import document_outputs

        return document_outputs(payloads, predictions)

    def document_scores(self, data: Sequence[Path], predictions: Path, *, stamp: str
                        ) -> dict[str, float]:
        from refbench.tasks.tne.web_scores import document_scores

        st = predictions.stat()
        return document_scores(tuple(str(f) for f in data), stamp, str(predictions),
                               (st.st_size, st.st_mtime_ns))

    def texts(self, path: Path) -> Iterable[tuple[str, str]]:
        from refbench.tasks.tne.read import read_documents

        return ((doc.id, doc.text) for doc in read_documents(path))

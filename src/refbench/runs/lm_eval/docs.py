"""What lm-evaluation-harness sees of refbench's instances: each instance as an lm-eval document
holding the strings ``llm-loglik`` scores, the hashes lm-eval's ``--log_samples`` records for it
(``doc_hash``, ``prompt_hash``, ``target_hash``, and the task's hash over them), and the names of
the tasks of a folder export.

Shared by the export (:mod:`refbench.runs.lm_eval.export`), the runner (a run of a model that
records lm-eval's hashes) and the import of lm-eval runs (:mod:`refbench.runs.lm_eval.samples`),
so a refbench run and an lm-eval run of the same data are matched instance by instance.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from refbench.core.errors import RefbenchError
from refbench.core.types import ChoiceInstance
from refbench.models.llm import template_requests
from refbench.models.llm_templates import SUBSTITUTION
from refbench.tasks.base import Task
from refbench.tasks.lookup import folder_task_of

PREFIX = "refbench_"


def hash_string(text: str) -> str:
    """lm-eval's hash: SHA-256 of the UTF-8 text, hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def lm_eval_doc(inst: ChoiceInstance, template: str = SUBSTITUTION
                ) -> tuple[dict[str, Any], bool]:
    """The lm-eval document for an instance in one of its task's LLM templates, and whether
    it is in multiple-input form. A document of any template but the default names it
    (``"template"``), so an import knows which requests lm-eval scored."""
    if inst.gold is None:
        raise RefbenchError("no gold answer; an lm-eval task needs one per document",
                            item=inst.id)
    requests = template_requests(inst, template)
    contexts = [c for c, _ in requests]
    conts = [x for _, x in requests]
    named = {} if template == SUBSTITUTION else {"template": template}
    if len(set(conts)) == 1:
        return {"id": inst.id, "label": inst.gold, "choices": contexts,
                "target": conts[0], **named}, True
    if len(set(contexts)) == 1:
        return {"id": inst.id, "label": inst.gold, "query": contexts[0],
                "choices": conts, **named}, False
    raise RefbenchError("each candidate has its own context and continuation; lm-eval "
                        "scores either a shared context or a shared continuation", item=inst.id)


#: The per-document hashes lm-eval's ``--log_samples`` writes on each sample line.
HASHES = ("doc_hash", "prompt_hash", "target_hash")


def doc_hash(doc: dict[str, Any]) -> str:
    """lm-eval's ``doc_hash`` of a document (as exported, or as a sample line logged it)."""
    return hash_string(json.dumps(doc, indent=2, ensure_ascii=False))


def doc_hashes(doc: dict[str, Any]) -> dict[str, str]:
    """``doc_hash``, ``prompt_hash`` and ``target_hash`` as lm-eval's ``--log_samples``
    records them for this document (zero-shot, no chat template)."""
    multiple_input = "target" in doc
    prompt = doc["choices"][0] if multiple_input else doc["query"]
    target = doc["target"] if multiple_input else doc["label"]
    return {"doc_hash": doc_hash(doc), "prompt_hash": hash_string(prompt),
            "target_hash": hash_string(str(target))}


def logged_template(row: dict[str, Any]) -> str:
    """The template of the document a samples line logged (the default where it names none)."""
    doc = row.get("doc")
    return str(doc.get("template", SUBSTITUTION)) if isinstance(doc, dict) else SUBSTITUTION


def logged_hashes(row: dict[str, Any]) -> dict[str, str]:
    """The hashes a samples line recorded (empty strings where it recorded none)."""
    return {k: str(row.get(k, "")) for k in HASHES}


def task_hash(hashes: Sequence[dict[str, str]]) -> str:
    """lm-eval's per-task hash over its samples, in document order."""
    return hash_string("".join(h["doc_hash"] + h["prompt_hash"] + h["target_hash"]
                               for h in hashes))


def instance_hashes(instances: Sequence[ChoiceInstance], template: str = SUBSTITUTION
                    ) -> list[dict[str, str]] | None:
    """Per-instance lm-eval hashes (of the template's documents), or None when the data
    cannot be exported (no gold)."""
    try:
        return [doc_hashes(lm_eval_doc(inst, template)[0]) for inst in instances]
    except RefbenchError:
        return None


def task_name(text: str) -> str:
    return PREFIX + re.sub(r"[^0-9a-zA-Z]+", "_", text).strip("_").lower()


class FolderTask(NamedTuple):
    """One subtask of a folder export: its lm-eval task name, and the (gold file, output
    subfolder, labels) that the task's folder capability gives ``refbench run`` for it."""

    name: str
    gold: Path
    sub: str
    labels: dict[str, Any]


def folder_tasks(data: Path, split: str) -> tuple[Task, list[FolderTask], str]:
    """The task that runs on the folder ``data`` whole, the lm-eval task of each of its
    subtasks (in the folder's order) and the group's name. Export and import
    (:mod:`refbench.runs.lm_eval.suite`) both name subtasks here, so they cannot disagree."""
    t = folder_task_of(data)
    assert t.folder is not None
    found = [FolderTask(task_name(f"{t.name}_{sub}"), gold, sub, labels)
             for gold, sub, labels in t.folder.files(data, split=split)]
    return t, found, task_name(f"{data.resolve().name}_{split}")

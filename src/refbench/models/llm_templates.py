"""The prompt templates ``llm-loglik`` scores a choice instance with, declared as data by each
task (``tasks/<task>/llm_templates.json``), chosen with ``--model-arg template=NAME``.

Two forms:

- ``substitution``: each candidate replaces the expression and the text after it is scored,
  as lm-evaluation-harness scores WinoGrande (partial evaluation); the form ``llm-loglik`` has
  always used (:func:`refbench.models.llm.scoring_requests`), and every task's default.
- ``question``: one prompt (the text and a question about the expression), one answer per
  candidate; the answer's log-likelihood is the candidate's score.

A question template's ``prompt`` and ``answer`` are plain text with named slots, filled by
replacing each slot and nothing else (never ``str.format`` or code): ``{context}`` the text,
``{marked}`` the text with the expression in square brackets, ``{expression}``, ``{options}``
(the candidates, "A, B or C") and, in ``answer`` only, ``{candidate}``. A task without a file
has the substitution template only. Which template scored a run is part of the model's
fingerprint (name and content) unless it is the task's default, so results made before
templates existed keep their fingerprints.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from refbench.core.errors import RefbenchError
from refbench.core.types import ChoiceInstance

TEMPLATES_FILE = "llm_templates.json"
FORMAT = "refbench.llm-templates.v1"
SUBSTITUTION = "substitution"
ALL = "all"
FORMS = ("substitution", "question")
SLOTS = ("context", "marked", "expression", "options")
_SLOT = re.compile(r"\{([a-z_]+)\}")


@dataclass(frozen=True)
class Template:
    name: str
    form: str
    prompt: str = ""
    answer: str = ""
    about: str = ""

    def digest(self) -> str:
        """A short hash of what the template says, for the fingerprint."""
        blob = json.dumps([self.form, self.prompt, self.answer])
        return hashlib.sha256(blob.encode()).hexdigest()[:12]


DEFAULT = Template(SUBSTITUTION, "substitution",
                   about="each candidate in place of the expression; the rest is scored")


def _check_slots(text: str, allowed: tuple[str, ...], *, path: Path, name: str) -> None:
    for slot in _SLOT.findall(text):
        if slot not in allowed:
            raise RefbenchError(f"template {name!r}: unknown slot {{{slot}}} (expected one of "
                                f"{', '.join('{' + s + '}' for s in allowed)})", path=path)


def read_templates(path: Path) -> dict[str, Template]:
    """The templates a task's file declares, checked: a bad file is one error naming it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise RefbenchError(f"cannot read the LLM templates ({exc})", path=path) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RefbenchError(f"expected an object with \"format\": \"{FORMAT}\"", path=path)
    out: dict[str, Template] = {}
    for k, item in enumerate(data.get("templates", [])):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise RefbenchError(f"templates[{k}]: expected an object with a name", path=path)
        name, form = item["name"], item.get("form")
        if form not in FORMS or name in out or name == ALL:
            raise RefbenchError(f"template {name!r}: expected a new name (not 'all') and a "
                                f"form in {FORMS}, found {form!r}", path=path)
        prompt, answer = str(item.get("prompt", "")), str(item.get("answer", ""))
        if form == "question":
            if not prompt or "{candidate}" not in answer:
                raise RefbenchError(f"template {name!r}: a question needs a prompt and an "
                                    "answer with {candidate}", path=path)
            _check_slots(prompt, SLOTS, path=path, name=name)
            _check_slots(answer, (*SLOTS, "candidate"), path=path, name=name)
        out[name] = Template(name, form, prompt, answer, str(item.get("about", "")))
    if SUBSTITUTION not in out:
        out = {SUBSTITUTION: DEFAULT, **out}
    return out


@cache
def task_templates(task: str) -> dict[str, Template]:
    """The templates the task declares (its ``llm_templates.json``), the substitution
    template first; only that one for a task without the file."""
    from refbench.tasks.lookup import find_task

    found = find_task(task)
    if found is None:
        return {SUBSTITUTION: DEFAULT}
    path = found.home() / TEMPLATES_FILE
    return read_templates(path) if path.is_file() else {SUBSTITUTION: DEFAULT}


def template_for(task: str, name: str) -> Template:
    """The named template of a task; a usage error lists the task's templates."""
    found = task_templates(task)
    if name not in found:
        from refbench.core.errors import UsageError

        raise UsageError(f"task {task} has no LLM template {name!r} (it has: "
                         f"{', '.join(found)})")
    return found[name]


def template_digest(name: str) -> str:
    """A hash of what every task's template ``name`` says: in the fingerprint, so editing a
    template's text never reuses scores cached under the old text."""
    from refbench.tasks.lookup import task_names

    parts = [(task, task_templates(task)[name].digest()) for task in task_names("choice")
             if name in task_templates(task)]
    if not parts:
        from refbench.core.errors import UsageError

        raise UsageError(f"no task declares an LLM template {name!r}")
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:12]


def _options(names: list[str]) -> str:
    quoted = [f'"{n}"' for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def _fill(text: str, values: dict[str, str]) -> str:
    return _SLOT.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def question_requests(inst: ChoiceInstance, template: Template) -> list[tuple[str, str]]:
    """(prompt, answer) per candidate for a question template."""
    marked = inst.context
    if inst.expression_offset is not None:
        start, end = inst.expression_offset, inst.expression_offset + len(inst.expression)
        marked = f"{inst.context[:start]}[{inst.expression}]{inst.context[end:]}"
    values = {"context": inst.context, "marked": marked, "expression": inst.expression,
              "options": _options([c.text for c in inst.candidates])}
    prompt = _fill(template.prompt, values)
    return [(prompt, _fill(template.answer, {**values, "candidate": c.text}))
            for c in inst.candidates]

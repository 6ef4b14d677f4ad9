"""KITMUS with a language model, zero-shot: the protocol of docs/kitmus-llm.md.

Stages (``--stage``, repeatable; default all three):

- ``substitution``: the substitution template on all 8 variants x 2/3/4 entities;
- ``templates``: the two question templates on the 8 four-entity subtasks;
- ``ablations``: the substitution template with the entity sentences, the background
  sentence (where the text states one) and both removed, on the 8 four-entity subtasks.

Every run scores the first ``--n`` instances of a subtask's test split: the generator balances
answer positions in blocks, so the first 12k instances hold every answer position equally
often at 2, 3 and 4 entities (``--n`` must be a multiple of 12), and every model and template
sees the same instances. Runs go through refbench's runner (``refbench run``): each is a run
folder ``--runs/NAME`` with predictions and metrics, cached in ``--store``, so an interrupted
protocol resumes where it stopped and a finished run folder is not run again. ``--record
PREFIX`` copies every finished run's predictions to ``benchmarks/results/PREFIX-NAME`` with a
manifest entry (``gold_first``, ``selected_on: none (zero-shot)``), re-scored by
tests/cli/test_recorded_results.py. Prints one JSON line: every run's pronoun accuracy with its
interval, the spread across templates, and each ablation paired with its full-text run
instance by instance (McNemar's exact test and the paired bootstrap,
``refbench.metrics.paired``, as ``refbench compare``); ``--markdown FILE`` writes the same as
tables.

    python benchmarks/kitmus_llm.py --suite kitmus-suite --runs runs/kitmus-llm        # SmolLM2
    python benchmarks/kitmus_llm.py --suite kitmus-suite --device cuda --model HF_DIR \\
        --runs runs/kitmus-llm-big --n 400 --store big.sqlite
    python benchmarks/kitmus_llm.py --suite kitmus-suite --dry-run       # the plan, no model
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

VARIANTS = ("background-pretrain", "background-pretrain-no-noise", "background-both",
            "background-inference-charfict-charfict", "background-inference-charfict-real",
            "background-inference-charfict-wordfict", "background-inference-real-charfict",
            "background-inference-real-wordfict")
STAGES = ("substitution", "templates", "ablations")
QUESTION_TEMPLATES = ("question", "options")
BALANCED_BLOCK = 12  # answer positions balance in every block of 12 (2, 3 and 4 entities)


@dataclass(frozen=True)
class Planned:
    name: str
    variant: str
    entities: int
    template: str
    ablate: str

    def data(self, suite: Path) -> Path:
        return suite / self.variant / f"subtask_{self.entities}_ents" / "test.jsonl"


def four_entity_test(suite: Path, variant: str) -> Path | None:
    """A variant's 4-entity test split in a generated suite (the speed benchmarks' data), or
    None after saying, on stderr, how to make it."""
    data = suite / variant / "subtask_4_ents" / "test.jsonl"
    if not data.is_file():
        print(f"{data}: no such file (refbench kitmus generate --out {suite})", file=sys.stderr)
        return None
    return data


def states_background(variant: str) -> bool:
    """Whether the variant's text states the background knowledge (so it can be removed)."""
    return variant.startswith(("background-inference", "background-both"))


def plan(stages: list[str]) -> list[Planned]:
    """The runs of the chosen stages: the four-entity substitution runs first, then the
    other stages in the order given, then the 2- and 3-entity substitution runs."""
    out: list[Planned] = []
    if "substitution" in stages:
        out += [Planned(f"sub-{v}-4", v, 4, "substitution", "none") for v in VARIANTS]
    for stage in stages:
        if stage == "templates":
            out += [Planned(f"tpl-{t}-{v}-4", v, 4, t, "none")
                    for v in VARIANTS for t in QUESTION_TEMPLATES]
        if stage == "ablations":
            for v in VARIANTS:
                kinds = ("both", "entity", "background") if states_background(v) \
                    else ("both", "entity")
                out += [Planned(f"abl-{a}-{v}-4", v, 4, "substitution", a) for a in kinds]
    if "substitution" in stages:
        out += [Planned(f"sub-{v}-{n}", v, n, "substitution", "none")
                for n in (2, 3) for v in VARIANTS]
    return out


def spec_of(model: str | None) -> str:
    return f"llm-loglik:{model}" if model else "llm-loglik"


def run_one(p: Planned, args: argparse.Namespace, store: Any, models: dict[str, Any]
            ) -> dict[str, Any]:
    """One run through refbench's runner (a finished run folder is read, not run again); the
    model of each template is built once (``models``)."""
    from refbench.models.base import build_model
    from refbench.runs.record import RunSettings
    from refbench.runs.runner import run_model

    out = args.runs / p.name
    done = out / "metrics.json"
    if done.is_file():
        return dict(json.loads(done.read_text(encoding="utf-8")))
    options: dict[str, Any] = {"template": p.template}
    if args.device != "auto":
        options["device"] = args.device
    settings = RunSettings(model=spec_of(args.model), model_options=options,
                           reader_options={} if p.ablate == "none" else {"ablate": p.ablate},
                           limit=args.n, system=f"llm-loglik[template={p.template},"
                                                f"ablate={p.ablate}]")
    if p.template not in models:
        models[p.template] = build_model(spec_of(args.model), options)
    return run_model(settings, p.data(args.suite), out, store=store, progress=False,
                     model=models[p.template])


def record_run(p: Planned, prefix: str, metrics: dict[str, Any], args: argparse.Namespace
               ) -> None:
    from recorded import kitmus_test_gold, record, save_gz

    name = f"{prefix}-{p.name}"
    pred = save_gz(args.runs / p.name / "predictions.jsonl", name, "test.predictions.jsonl.gz")
    what = "SmolLM2-135M-Instruct Q4_1 GGUF" if not args.model else Path(args.model).name
    record(name, {**kitmus_test_gold(p.variant, p.entities), "task": "kitmus", "pred": pred,
                  "gold_first": args.n, "selected_on": "none (zero-shot)",
                  "expected": {"pronoun_accuracy": round(metrics["pronoun_accuracy"], 4)},
                  "model": f"llm-loglik ({what}, template {p.template}, ablate {p.ablate})",
                  "template": p.template, "ablate": p.ablate})


def correct(p: Planned, args: argparse.Namespace) -> list[int]:
    """1/0 per instance of a finished run, in data order (the first ``--n`` test instances)."""
    from refbench.tasks.choices import read_choices

    gold = [inst.gold for inst in read_choices(p.data(args.suite))][: args.n]
    with (args.runs / p.name / "predictions.jsonl").open(encoding="utf-8") as fh:
        answers = [json.loads(line)["answer"] for line in fh if line.strip()]
    if len(answers) != len(gold):
        raise SystemExit(f"{args.runs / p.name}: {len(answers)} predictions for {len(gold)} "
                         "instances")
    return [int(a == g) for a, g in zip(answers, gold, strict=True)]


def ablation_tests(plans: list[Planned], results: dict[str, dict[str, Any]],
                   args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Each finished ablation against the full-text run of its subtask, instance by instance:
    the accuracy difference (full minus ablated) with its paired-bootstrap interval, and
    McNemar's exact p."""
    from refbench.metrics.paired import paired_test

    full = {(p.variant, p.entities, p.template): p for p in plans if p.ablate == "none"}
    out = {}
    for p in plans:
        base = full.get((p.variant, p.entities, p.template))
        if p.ablate == "none" or base is None or p.name not in results \
                or base.name not in results:
            continue
        t = paired_test(correct(base, args), correct(p, args))
        assert t is not None
        out[p.name] = {"against": base.name, "n": t.n, "full": round(t.accuracy_a, 4),
                       "ablated": round(t.accuracy_b, 4), "diff": round(t.diff, 4),
                       "diff_ci95": [round(t.diff_low, 4), round(t.diff_high, 4)],
                       "only_full": t.only_a, "only_ablated": t.only_b,
                       "mcnemar_p": float(f"{t.mcnemar_p:.4g}")}
    return out


def markdown(out: dict[str, Any]) -> str:
    """The tables of a summary: substitution at 2/3/4 entities; every template and ablation
    at 4 entities (accuracy with its 95% interval; ablations with McNemar's p against the
    full text)."""
    runs, tests = out["runs"], out["ablation_tests"]

    def cell(name: str) -> str:
        r = runs.get(name)
        if r is None:
            return "–"
        ci = r["ci95"]
        text = f"{r['pronoun_accuracy']:.3f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")
        if name in tests:
            text += f" (p={tests[name]['mcnemar_p']:.2g})"
        return text

    lines = ["| variant | 2 entities | 3 entities | 4 entities |", "|---|---|---|---|"]
    lines += [f"| {v} | " + " | ".join(cell(f"sub-{v}-{n}") for n in (2, 3, 4)) + " |"
              for v in VARIANTS]
    heads = ["substitution", *QUESTION_TEMPLATES, "− entity", "− background", "− both"]
    lines += ["", "| variant (4 entities) | " + " | ".join(heads) + " |",
              "|---" * (len(heads) + 1) + "|"]
    for v in VARIANTS:
        names = [f"sub-{v}-4", *(f"tpl-{t}-{v}-4" for t in QUESTION_TEMPLATES),
                 *(f"abl-{a}-{v}-4" for a in ("entity", "background", "both"))]
        lines.append(f"| {v} | " + " | ".join(cell(n) for n in names) + " |")
    return "\n".join(lines) + "\n"


def summary(plans: list[Planned], results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Every finished run's figure, and the spread across templates on the subtasks every
    template finished."""
    from refbench.reporting.template_spread import template_spread

    runs = {}
    by_template: dict[str, dict[str, float]] = {}
    for p in plans:
        m = results.get(p.name)
        if m is None:
            continue
        ci = (m.get("ci95") or {}).get("pronoun_accuracy")
        runs[p.name] = {"variant": p.variant, "entities": p.entities, "template": p.template,
                        "ablate": p.ablate, "n": m.get("n"),
                        "pronoun_accuracy": round(m["pronoun_accuracy"], 4),
                        "ci95": [round(x, 4) for x in ci] if ci else None}
        if p.entities == 4 and p.ablate == "none":
            by_template.setdefault(p.template, {})[p.variant] = m["pronoun_accuracy"]
    spread = template_spread(by_template) if len(by_template) > 1 else None
    return {"runs": runs, "template_spread": spread}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", type=Path, required=True,
                    help="a default generated suite (refbench kitmus generate --out DIR)")
    ap.add_argument("--model", default=None,
                    help="a Hugging Face model folder or GGUF file (default: SmolLM2-135M)")
    ap.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    ap.add_argument("--n", type=int, default=48, help="instances per subtask (multiple of 12)")
    ap.add_argument("--stage", action="append", choices=STAGES, default=None)
    ap.add_argument("--entities", type=int, action="append", choices=(2, 3, 4), default=None,
                    help="only the subtasks with this many entities (repeatable; default all)")
    ap.add_argument("--runs", type=Path, default=Path("runs/kitmus-llm"))
    ap.add_argument("--store", type=Path, default=None, help="results store and cache")
    ap.add_argument("--only-finished", action="store_true",
                    help="run nothing: report (and record) the run folders already finished")
    ap.add_argument("--record", default=None, metavar="PREFIX")
    ap.add_argument("--dry-run", action="store_true", help="print the plan; load no model")
    ap.add_argument("--markdown", type=Path, default=None, metavar="FILE",
                    help="also write the finished runs as markdown tables")
    args = ap.parse_args(argv)
    if args.n <= 0 or args.n % BALANCED_BLOCK:
        print(f"--n must be a positive multiple of {BALANCED_BLOCK} (balanced answer "
              f"positions), got {args.n}", file=sys.stderr)
        return 2
    plans = [p for p in plan(args.stage or list(STAGES))
             if args.entities is None or p.entities in args.entities]
    missing = sorted({str(p.data(args.suite)) for p in plans if not p.data(args.suite).is_file()})
    if missing:
        print(f"{missing[0]}: no such test split (refbench kitmus generate --out "
              f"{args.suite}){f' and {len(missing) - 1} more' if len(missing) > 1 else ''}",
              file=sys.stderr)
        return 2
    if args.dry_run:
        print(json.dumps({"model": spec_of(args.model), "device": args.device, "n": args.n,
                          "runs": [vars(p) | {"data": str(p.data(args.suite))}
                                   for p in plans]}))
        return 0
    from refbench.runs.store import Store

    store = Store(args.store)
    results: dict[str, dict[str, Any]] = {}
    models: dict[str, Any] = {}
    start = time.perf_counter()
    for p in plans:
        done = args.runs / p.name / "metrics.json"
        if args.only_finished and not done.is_file():
            continue
        results[p.name] = run_one(p, args, store, models)
        print(f"{p.name}: {results[p.name]['pronoun_accuracy']:.4f}", file=sys.stderr,
              flush=True)
        if args.record:
            record_run(p, args.record, results[p.name], args)
    out = summary(plans, results)
    out["ablation_tests"] = ablation_tests(plans, results, args)
    if args.markdown is not None:
        args.markdown.write_text(markdown(out), encoding="utf-8")
    print(json.dumps({"model": spec_of(args.model), "n_per_subtask": args.n,
                      "finished": len(results), "planned": len(plans),
                      "seconds": round(time.perf_counter() - start, 1), **out}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``refbench.compare``: the paired tests the web app's compare page shows, for every pair of
results on the same data: McNemar's exact test and the paired bootstrap of the accuracy
difference (:func:`refbench.metrics.paired.paired_test`, the web's own functions, on the instances
both answered that have gold, in data order), each p adjusted over the pairs with Holm's
method (:func:`refbench.metrics.paired.holm`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from refbench.core.errors import UsageError
from refbench.core.result import names_apart, refuse_name_clash
from refbench.public.results import Result


@dataclass(frozen=True)
class Pair:
    """The paired tests of two results (``a`` and ``b``: their names)."""

    a: str
    b: str
    n: int
    accuracy_a: float
    accuracy_b: float
    both_correct: int
    only_a: int
    only_b: int
    both_wrong: int
    diff: float
    diff_low: float
    diff_high: float
    mcnemar_p: float
    bootstrap_p: float
    holm_mcnemar_p: float | None
    holm_bootstrap_p: float | None


@dataclass(frozen=True)
class Comparison:
    """Every pair's tests (``pairs``), the seeded bootstrap's ``resamples`` and ``seed``;
    ``to_pandas()``: one row per pair."""

    pairs: tuple[Pair, ...]
    resamples: int
    seed: int

    def to_pandas(self) -> Any:
        from refbench.public.dataset import pandas

        return pandas().DataFrame([vars(p) for p in self.pairs])

    def _repr_html_(self) -> str:
        """The paired-test table: one row per pair."""
        from refbench.public.display import html_table

        rows = [(p.a, p.b, p.n, p.accuracy_a, p.accuracy_b,
                 f"{p.diff:+.3f} [{p.diff_low:+.3f}, {p.diff_high:+.3f}]", p.mcnemar_p,
                 p.holm_mcnemar_p, p.bootstrap_p, p.holm_bootstrap_p) for p in self.pairs]
        return html_table(("a", "b", "n", "accuracy a", "accuracy b", "diff (95%)",
                           "McNemar p", "Holm", "bootstrap p", "Holm"), rows,
                          caption=f"paired tests ({self.resamples} bootstrap resamples, "
                                  f"seed {self.seed}; p adjusted over the pairs by Holm)")

    def plot(self, *, title: str | None = None) -> Any:
        """Each pair's accuracy difference (a minus b) with its 95% paired-bootstrap interval
        and McNemar's p (Holm-adjusted), as a matplotlib figure; one row per pair."""
        from refbench.public.display import bar_figure

        notes = [f"p={p.holm_mcnemar_p if p.holm_mcnemar_p is not None else p.mcnemar_p:.3g}"
                 for p in self.pairs]
        widest = max((max(abs(p.diff_low), abs(p.diff_high)) for p in self.pairs),
                     default=0.1)
        edge = min(1.0, max(0.05, widest * 1.15))
        return bar_figure([f"{p.a} vs {p.b}" for p in self.pairs],
                          [p.diff for p in self.pairs],
                          [(p.diff_low, p.diff_high) for p in self.pairs],
                          title=title or "accuracy difference, a minus b (McNemar p, Holm)",
                          xlabel="difference in accuracy (95% paired bootstrap)",
                          xlim=(-edge, edge), zero_line=True, notes=notes)

    def __repr__(self) -> str:
        lines = [f"{p.a} vs {p.b}: diff {p.diff:+.3f} [{p.diff_low:+.3f}, {p.diff_high:+.3f}],"
                 f" McNemar p={p.mcnemar_p:.4g}, bootstrap p={p.bootstrap_p:.4g} (n={p.n})"
                 for p in self.pairs]
        return "\n".join(["<Comparison>", *lines])


def correctness(a: Result, b: Result) -> tuple[list[int], list[int]]:
    """Paired correctness (1/0) on the instances both answered that have gold, in a's order."""
    right_b = {str(r["id"]): r.get("correct") for r in b.rows}
    x: list[int] = []
    y: list[int] = []
    for row in a.rows:
        other = right_b.get(str(row["id"]))
        if row.get("correct") is not None and other is not None:
            x.append(int(bool(row["correct"])))
            y.append(int(bool(other)))
    return x, y


def compare(results: Sequence[Result], *, resamples: int | None = None,
            seed: int | None = None) -> Comparison:
    """Paired tests for every pair of ``results`` (two or more, of one task and the same
    data, all complete or all partial)."""
    from refbench.metrics.paired import BOOTSTRAP_RESAMPLES, DEFAULT_SEED, holm, paired_test
    from refbench.public.checks import compare_args

    compare_args(results, resamples=resamples, seed=seed)
    results = list(results)
    if len(results) < 2:
        raise UsageError("compare needs two or more results")
    for r in results:
        if not isinstance(r, Result) or not r.rows:
            raise UsageError("compare takes Results with their instances (refbench.run, "
                             "refbench.evaluate)")
    first = results[0]
    for r in results[1:]:
        # one file read with other reader options (a KITMUS ablation) has the same
        # instances: those pair, instance by instance
        if (r.task, r.data.instances_key) != (first.task, first.data.instances_key):
            raise UsageError(f"results of different data are not compared: {first.label()} "
                             f"and {r.label()}")
        if r.is_partial != first.is_partial:
            raise UsageError(f"a partial result is never compared with a complete one: "
                             f"{first.label()} and {r.label()}")
    refuse_name_clash([r.system for r in results])
    names = names_apart([r.system for r in results])
    if len({r.data.options for r in results}) > 1:  # one file read two ways: say which
        names = [f"{n} [{r.data.options}]" if r.data.options else n
                 for n, r in zip(names, results, strict=True)]
    resamples = BOOTSTRAP_RESAMPLES if resamples is None else resamples
    seed = DEFAULT_SEED if seed is None else seed
    tested = []
    for (i, a), (j, b) in combinations(enumerate(results), 2):
        x, y = correctness(a, b)
        got = paired_test(x, y, resamples=resamples, seed=seed)
        if got is None:
            raise UsageError(f"{names[i]} and {names[j]} answered no instance with gold in "
                             "common")
        tested.append((names[i], names[j], got))
    adjusted = {name: holm([getattr(t, name) for _, _, t in tested])
                for name in ("mcnemar_p", "bootstrap_p")}
    pairs = tuple(Pair(a=a, b=b, n=t.n, accuracy_a=t.accuracy_a, accuracy_b=t.accuracy_b,
                       both_correct=t.both_correct, only_a=t.only_a, only_b=t.only_b,
                       both_wrong=t.both_wrong, diff=t.diff, diff_low=t.diff_low,
                       diff_high=t.diff_high, mcnemar_p=t.mcnemar_p,
                       bootstrap_p=t.bootstrap_p, holm_mcnemar_p=adjusted["mcnemar_p"][k],
                       holm_bootstrap_p=adjusted["bootstrap_p"][k])
                  for k, (a, b, t) in enumerate(tested))
    return Comparison(pairs, resamples, seed)

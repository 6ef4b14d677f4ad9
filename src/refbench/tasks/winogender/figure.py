"""The paper's correlation figure (Rudinger et al., 2018, figure 4): per occupation, the % of
women among its workers (US labour statistics) against the share of its female-pronoun
sentences that a system resolves to the occupation, one point per occupation, Pearson's r in
the legend (``refbench winogender plot``); and the report's figure, accuracy by pronoun gender
and on gotcha sentences with 95% intervals (``refbench report --plot``). Drawn with matplotlib
like the project's other plots (``core.figures``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import OutputError
from refbench.core.figures import (
    Bar,
    bar_panels,
    colours,
    fitted_title,
    legend_below,
    new_figure,
    save_figure,
)


def plot_occupations(results: Sequence[tuple[str, dict[str, Any]]], out: str | Path, *,
                     title: str | None = None) -> None:
    """``results``: (system name, :func:`~refbench.tasks.winogender.metrics.winogender_metrics`
    result) pairs; systems without occupation statistics are left out."""
    drawn = [(name, r["occupations"]) for name, r in results if r.get("occupations")]
    if not drawn:
        raise OutputError("no occupation statistics to draw (occupations-stats.tsv must lie "
                          "beside all_sentences.tsv)", path=out)
    fig, axes = new_figure(figsize=(6.4, 5.4))
    ax = axes[0, 0]
    colour = colours([name for name, _ in drawn])
    for k, (name, occ) in enumerate(drawn):
        xs = [row["bls_pct_female"] for row in occ["occupations"]]
        ys = [100 * row["female_to_occupation"] for row in occ["occupations"]]
        r = occ["pearson_r_bls"]
        label = f"{name} (r = {r:.2f})" if r is not None else f"{name} (r undefined)"
        offset = (k - (len(drawn) - 1) / 2) * 1.2  # keep systems' equal shares apart
        ax.scatter(xs, [y + offset for y in ys], s=16, alpha=0.75, color=colour[name],
                   label=label)
    ax.plot([0, 100], [0, 100], linestyle="--", color="grey", linewidth=1,
            label="share = % women")
    ax.set_xlim(0, 100)
    ax.set_ylim(-5, 105)
    ax.set_xlabel("% women in the occupation (BLS)")
    ax.set_ylabel("% of female-pronoun sentences\nresolved to the occupation")
    fitted_title(fig, title or "Winogender: occupation statistics vs. system resolutions")
    ax.grid(alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    legend_below(fig, handles, labels, max_columns=3)
    save_figure(fig, out)


GENDER_PANEL = "By pronoun gender"
GOTCHA_PANEL = "Answer = occupation: not gotcha / gotcha"


def group_bars(results: Sequence[tuple[str, dict[str, Any]]]
               ) -> tuple[dict[tuple[str, str, str], Bar], set[str]]:
    """(panel, category, system) -> bar from (system, result) pairs: accuracy by pronoun
    gender, and on the occupation answers, not gotcha (the pronoun's gender is the
    occupation's majority gender) against gotcha, and Diff = |not gotcha - gotcha|.
    Intervals: the result's own (``ci95`` keys ``accuracy_male``, ``gotcha_accuracy``,
    ``not_gotcha_accuracy``), else Wilson's; Diff always Newcombe's (no result records one).
    System names must be unique (:func:`series_names`): a repeated one would overwrite a bar."""
    from refbench.metrics.intervals import (
        absolute,
        newcombe_difference,
        recorded_interval,
        shown_interval,
    )

    bars: dict[tuple[str, str, str], Bar] = {}
    methods: set[str] = set()

    def put(panel: str, category: str, system: str, cell: dict[str, Any], ci: Any) -> None:
        value, n = cell.get("accuracy"), int(cell.get("n") or 0)
        if value is None or not n:
            return
        bars[(panel, category, system)] = (value, shown_interval(value, n, ci, methods))

    for system, r in results:
        w = r["winogender"]
        for g, cell in w.get("by_gender", {}).items():
            put(GENDER_PANEL, g, system, cell, recorded_interval(r, f"accuracy_{g}"))
        gotcha = w.get("gotcha") or {}
        for key, category in (("not_gotcha", "not gotcha"), ("gotcha", "gotcha")):
            if key in gotcha:
                put(GOTCHA_PANEL, category, system, gotcha[key],
                    recorded_interval(r, f"{key}_accuracy"))
        pro, anti = gotcha.get("not_gotcha") or {}, gotcha.get("gotcha") or {}
        if pro.get("n") and anti.get("n") and None not in (pro["accuracy"], anti["accuracy"]):
            signed = newcombe_difference(pro["accuracy"], pro["n"], anti["accuracy"], anti["n"])
            ci = absolute(signed) if signed else None
            if ci is not None:
                methods.add("Wilson")
            bars[(GOTCHA_PANEL, "Diff", system)] = (abs(pro["accuracy"] - anti["accuracy"]), ci)
    return bars, methods


def series_names(results: Sequence[dict[str, Any]]) -> list[str]:
    """One label per result: its system, and where a system comes more than once, its data
    file's name too (and a number if that is not enough), so no result hides another."""
    from collections import Counter

    base = [str(r.get("system") or r.get("model") or f"system {k + 1}")
            for k, r in enumerate(results)]
    counts = Counter(base)
    names = [f"{b} ({Path(str(r.get('data') or '-')).name})" if counts[b] > 1 else b
             for b, r in zip(base, results, strict=True)]
    repeated, seen = Counter(names), Counter[str]()
    unique = []
    for name in names:
        seen[name] += 1
        unique.append(name if repeated[name] == 1 else f"{name} #{seen[name]}")
    return unique


def plot_groups(results: Sequence[tuple[str, dict[str, Any]]], out: str | Path) -> None:
    """The report's Winogender figure: :func:`group_bars` as two panels."""
    from refbench.metrics.intervals import interval_caption

    bars, methods = group_bars(results)
    systems = list(dict.fromkeys(system for system, _ in results))
    genders = [g for g in ("male", "female", "neutral")
               if any(k[:2] == (GENDER_PANEL, g) for k in bars)]
    panels: list[tuple[str, Sequence[str]]] = [(GENDER_PANEL, genders)]
    if any(k[0] == GOTCHA_PANEL for k in bars):
        panels.append((GOTCHA_PANEL, ["not gotcha", "gotcha", "Diff"]))
    fig = bar_panels(panels, bars, systems,
                     title="Winogender: accuracy by pronoun gender, and on occupation answers "
                           "whose pronoun is (not) the occupation's majority gender (gotcha)\n"
                           "Diff = |not gotcha \N{MINUS SIGN} gotcha|; "
                           + interval_caption(methods))
    save_figure(fig, out, dpi=130)

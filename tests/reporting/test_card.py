"""The model card from Results in memory: headline figures with their one named interval
method (checked against statsmodels and hand-worked counts), benchmark = data identity (the
official KITMUS release apart from a generated suite), duplicates collapsed to the latest
complete run, partial cells marked and kept out of the KITMUS mean, and every format."""

from __future__ import annotations

import json
from typing import Any

import pytest

from refbench.core.result import Result
from refbench.metrics.intervals import exact_count, wilson
from refbench.reporting.card import build_card


def _result(task: str = "winograd", *, system: str = "first", right: int = 150,
            n: int = 273, of: int | None = None, data: str = "/d/winograd/wsc273.jsonl",
            sha: str = "a" * 64, created: str = "2026-01-01T00:00:00+00:00",
            **extra: Any) -> Result:
    metrics = {"task": task, "model": system, "model_fingerprint": f"fp-{system}",
               "system": system, "data": data, "data_sha256": sha, "split": "test",
               "n": n, "n_with_gold": n, "accuracy": right / n, "created": created,
               "ci95": {"accuracy": [0.0, 1.0], "resamples": 1000, "seed": 0}, **extra}
    if of is not None:
        metrics |= {"coverage_of": of, "partial_by": ["--limit"],
                    "data_coverage": {"n": n, "of": of, "by": "--limit"}}
    return Result.from_json(metrics)


def test_a_proportion_gets_wilsons_interval_not_the_recorded_bootstrap() -> None:
    from statsmodels.stats.proportion import proportion_confint

    card = build_card([_result(right=300, n=300)])
    (rec,) = card.records()
    low, high = proportion_confint(300, 300, method="wilson")
    assert (rec["value"], rec["method"], rec["n"], rec["N"]) == (1.0, "wilson", 300, 300)
    assert rec["ci_low"] == pytest.approx(low, abs=1e-12) and rec["ci_low"] < 0.99
    assert rec["ci_high"] == pytest.approx(high, abs=1e-12)


def test_exact_count_recovers_only_true_counts() -> None:
    assert exact_count(150 / 273, 273) == 150
    assert exact_count(0.55, 273) is None  # not k / 273 for any whole k
    assert exact_count(0.5, 0) is None


def test_duplicates_collapse_to_the_latest_complete_run() -> None:
    old = _result(right=100, created="2026-01-01T00:00:00+00:00")
    new = _result(right=120, created="2026-02-01T00:00:00+00:00")
    newest_partial = _result(right=5, n=10, of=273, created="2026-03-01T00:00:00+00:00")
    card = build_card([old, new, newest_partial])
    (rec,) = card.records()
    assert rec["value"] == 120 / 273 and not rec["partial"]
    assert any("2 duplicate runs" in n for n in card.notes)


def test_a_run_read_with_reader_options_is_other_data_never_a_duplicate() -> None:
    """A KITMUS ablation (``--task-arg ablate=entity``) reads the same file into other texts:
    its run is its own benchmark column, named with its options, never the newest duplicate
    of the full-text run (which would show the ablated figure as the system's)."""
    data = "/s/background-pretrain/subtask_4_ents/test.jsonl"
    full = _result("kitmus", right=100, n=400, data=data, pronoun_accuracy=0.25)
    ablated = _result("kitmus", right=80, n=400, data=data, pronoun_accuracy=0.2,
                      created="2026-02-01T00:00:00+00:00",
                      reader_options={"ablate": "entity"})
    assert full.data.key != ablated.data.key
    assert full.data.instances_key == ablated.data.instances_key
    assert ablated.data.name.endswith("[ablate=entity]") and full.data.options is None
    card = build_card([full, ablated])
    assert not any("duplicate" in n for n in card.notes)
    by_bench = {r["benchmark"]: r["value"] for r in card.records()}
    assert len(by_bench) == 2 and any(b.endswith(" [ablate=entity]") for b in by_bench)
    assert sorted(by_bench.values()) == [0.2, 0.25]


def test_two_systems_sharing_a_name_are_never_merged() -> None:
    a = _result(system="S")
    b = Result.from_json(_result(system="S").to_json() | {"model": "random",
                                                          "model_fingerprint": "fp-other"})
    card = build_card([a, b])
    assert len(card.systems) == 2 and all(s.startswith("S [") for s in card.systems)


def _kitmus(root: str, variant: str, k: int, *, system: str, right: int,
            n: int = 100, of: int | None = None) -> Result:
    return _result("kitmus", system=system, right=right, n=n, of=of,
                   data=f"{root}/{variant}/subtask_{k}_ents/full-text/test.jsonlines.gz",
                   sha=f"{root}{variant}{k}".ljust(64, "0")[:64], variant=variant,
                   n_entities=k, pronoun_accuracy=right / n,
                   ci95={"pronoun_accuracy": [0.0, 1.0]})


def test_official_release_and_generated_suite_are_two_benchmarks_and_mean_uses_common_cells(
        ) -> None:
    results = [
        _kitmus("/x/kitmus-official/released", "background-both", 2, system="A", right=60),
        _kitmus("/x/kitmus-official/released", "background-both", 3, system="A", right=40),
        _kitmus("/x/kitmus-official/released", "background-both", 2, system="B", right=50),
        _kitmus("/x/kitmus-official/released", "background-both", 3, system="B", right=7,
                n=10, of=100),  # partial: kept out of the mean
        _kitmus("/x/my-suite", "background-both", 2, system="A", right=70),
    ]
    card = build_card(results)
    assert [b.name for b in card.benchmarks] == ["kitmus:my-suite", "kitmus:released"]
    by = {(r["system"], r["benchmark"], r["metric"]): r for r in card.records()}
    assert by[("A", "kitmus:released", "mean")]["value"] == 0.6  # only the common 2-entity cell
    assert by[("B", "kitmus:released", "mean")]["value"] == 0.5
    assert by[("A", "kitmus:released", "mean")]["ci_low"] == wilson(60, 100)[0]  # type: ignore[index]
    assert by[("B", "kitmus:released", "background-both/3")]["partial"] is True
    assert "†" in card.render("md")


def test_winobias_pro_anti_avg_diff_from_the_four_files() -> None:
    from refbench.metrics.intervals import newcombe

    files = []
    for t, st, right in (("1", "pro", 300), ("1", "anti", 200), ("2", "pro", 350),
                         ("2", "anti", 250)):
        row = {"pro": right / 396 if st == "pro" else None,
               "anti": right / 396 if st == "anti" else None, "n_pro": 396 if st == "pro"
               else 0, "n_anti": 396 if st == "anti" else 0}
        files.append(_result("winobias", right=right, n=396,
                             data=f"/w/{st}_stereotyped_type{t}.txt.test", sha=f"{t}{st}" * 8,
                             winobias={"rows": {f"type{t}": row, "all": row}}))
    card = build_card(files)
    by = {r["metric"]: r for r in card.records()}
    assert by["pro"]["value"] == pytest.approx(650 / 792)
    assert by["anti"]["value"] == pytest.approx(450 / 792)
    assert by["diff"]["value"] == pytest.approx(200 / 792)
    assert (by["pro"]["ci_low"], by["pro"]["ci_high"]) == wilson(650, 792)
    low, high = newcombe(650, 792, 450, 792)  # type: ignore[misc]
    assert (by["diff"]["ci_low"], by["diff"]["ci_high"]) == (low, high)  # both positive
    assert by["diff"]["method"] == "newcombe" and by["pro"]["n"] == 792


def test_formats_agree_with_the_records() -> None:
    card = build_card([_result(system="first"), _result(system="random", right=130)])
    records = card.records()
    assert [r["system"] for r in records] == ["first", "random"]
    csv = card.render("csv").splitlines()
    assert csv[0].startswith("system,benchmark,metric,value,ci_low,ci_high,n,N,partial")
    assert len(csv) == 1 + len(records)
    tex = card.render("latex")
    assert r"\toprule" in tex and "/d/" not in tex and r"\multicolumn{1}{c}{wsc273}" in tex
    assert "<table" in card._repr_html_() and "<!DOCTYPE html>" in card.render("html")
    wide = card.to_pandas(wide=True)
    assert wide.loc["random", ("wsc273", "accuracy")] == 130 / 273
    assert json.loads(json.dumps(card.to_json()))["records"] == records


def test_a_skipped_benchmark_is_a_footnote_without_its_error_text(tmp_path: Any) -> None:
    from refbench.reporting.card_inputs import make_card

    run = tmp_path / "all" / "wsc273"
    run.mkdir(parents=True)
    (run / "metrics.json").write_text(json.dumps(_result().to_json()), encoding="utf-8")
    (tmp_path / "all" / "summary.json").write_text(json.dumps({
        "format": "refbench.summary.v1", "rows": [], "skipped": [
            {"benchmark": "tne", "reason": "error E400: /secret/path/tne: not a choice task"}]}),
        encoding="utf-8")
    tex = make_card([tmp_path / "all"]).render("latex")
    assert "not run (the system cannot run them): tne" in tex
    assert "/secret/path" not in tex and "E400" not in tex


def test_against_marks_cells_by_mcnemar_after_holm(tmp_path: Any) -> None:
    """Three systems on one 40-sentence file: B is wrong on 12 sentences A gets right (p of
    McNemar's exact test 2 * 0.5**12), C on 2; Holm over the two tests by hand."""
    from refbench.core.identity import data_identity
    from refbench.metrics.binomial import mcnemar_exact_p
    from refbench.reporting.card_inputs import make_card
    from refbench.tasks.lookup import get_task

    data = tmp_path / "wsc-40.jsonl"
    data.write_text("".join(json.dumps({
        "qID": f"q{k}", "sentence": f"Ann thanked Beth {k} times because _ was kind.",
        "option1": "Ann", "option2": "Beth", "answer": "2"}) + "\n" for k in range(40)),
        encoding="utf-8")
    ids = [i.id for i in get_task("winograd").read_choices(data)]
    sha = data_identity(data).sha256
    for system, wrong in (("A", 0), ("B", 12), ("C", 2)):
        run = tmp_path / "runs" / system
        run.mkdir(parents=True)
        right = 40 - wrong
        metrics = _result(system=system, right=right, n=40, data=str(data), sha=sha).to_json()
        (run / "metrics.json").write_text(json.dumps(metrics), encoding="utf-8")
        (run / "predictions.jsonl").write_text("".join(
            json.dumps({"id": i, "answer": 0 if k < wrong else 1}) + "\n"
            for k, i in enumerate(ids)), encoding="utf-8")
    card = make_card([tmp_path / "runs"], against="A")
    p_b, p_c = mcnemar_exact_p(0, 12), mcnemar_exact_p(0, 2)
    assert (p_b, p_c) == (2 * 0.5**12, 0.5)
    holm = {"B": min(1.0, 2 * p_b), "C": max(min(1.0, 2 * p_b), p_c)}
    got = {r["system"]: r["p_holm"] for r in card.records()}
    assert got["A"] is None
    assert got["B"] == pytest.approx(holm["B"]) and got["C"] == pytest.approx(holm["C"])
    rows = {line.split(" | ")[0]: line for line in card.render("md").splitlines()
            if line.startswith("| ")}
    assert rows["| B"].endswith("(40 of 40)* |")  # significant after Holm
    assert rows["| C"].endswith("(40 of 40) |") and "0.950" in rows["| C"]

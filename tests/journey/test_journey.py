"""The whole journey through the CLI on tiny data, for every task: run -> evaluate -> report.

What ``run`` writes, ``evaluate`` takes, with the same figures; ``report`` renders it for a
paper (the LaTeX compiled with booktabs when pdflatex is installed) and plots it.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from scripts.regen_golden import GOLDEN

from tests.conftest import run_cli
from tests.models.conftest import DATA
from tests.tasks.tne.test_tne import DOC, write_docs

CHOICE_KEYS = ("accuracy", "n", "n_with_gold", "n_no_answer", "slices")
TASK_KEYS = {
    "kitmus": ("pronoun_accuracy", "antecedent_f1", "antecedent_precision", "antecedent_recall",
               "task_specific_accuracy", "decisions", "random_baseline"),
    "gap": (*CHOICE_KEYS, "f1", "precision", "recall", "f1_masculine", "f1_feminine", "bias"),
    "knowref": (*CHOICE_KEYS, "decisions", "task_specific_accuracy", "coverage"),
    "winograd": CHOICE_KEYS,
    "altentities": (*CHOICE_KEYS, "truncated_instances"),
    "winogender": (*CHOICE_KEYS, "winogender", "accuracy_male", "accuracy_female",
                   "accuracy_neutral", "flip_rate", "gotcha_accuracy", "pearson_r"),
    "winobias": (*CHOICE_KEYS, "winobias", "coref", "conll_f1"),
}
CASES = [("kitmus", "kitmus-native"), ("kitmus", "kitmus-conll"), ("gap", "gap"),
         ("knowref", "knowref-json"), ("knowref", "knowref-tsv"), ("winograd", "winograd"),
         ("altentities", "altentities"), ("winogender", "winogender"),
         ("winobias", "winobias")]


def ok(*args: str, cwd: Path | None = None) -> str:
    r = run_cli(*args, cwd=cwd)
    assert r.returncode == 0, f"{args}: {r.stderr}"
    return r.stdout


def same_figures(task: str, run: dict[str, Any], ev: dict[str, Any]) -> None:
    """Every figure run reports for the task, evaluate reports identically."""
    for key in TASK_KEYS[task]:
        assert run.get(key) == ev.get(key), key
    for key, interval in run.get("ci95", {}).items():
        if key in ("pronoun_accuracy", "antecedent_f1") or task != "kitmus":
            assert ev["ci95"][key] == interval, key


def test_every_registered_task_has_a_journey() -> None:
    from refbench.core.registry import TASKS

    assert {t for t, _ in CASES} | {"tne"} == set(TASKS.names())  # TNE: test_tne_journey


@pytest.mark.parametrize(("task", "dataset"), CASES)
def test_run_then_evaluate_gives_the_same_figures(task: str, dataset: str,
                                                  tmp_path: Path) -> None:
    out = tmp_path / "run"
    store = str(tmp_path / "s.sqlite")
    run = json.loads(ok("run", "--model", "random", "--data", str(DATA[dataset]), "--out",
                        str(out), "--store", store, "--json", "--quiet"))
    for pred in (out, out / "predictions.jsonl"):  # the run folder and the file both work
        ev = json.loads(ok("evaluate", "--task", task, "--gold", str(DATA[dataset]), "--pred",
                           str(pred), "--json"))
        same_figures(task, run, ev)
        assert ev["system"] == "random" and ev["split"] == run["split"]
    text = ok("evaluate", "--task", task, "--gold", str(DATA[dataset]), "--pred", str(out))
    assert text.startswith("random on ") and "fraction" in text
    assert "predictions" not in text.splitlines()[0]


def test_gap_native_system_file_and_answers_agree(tmp_path: Path) -> None:
    run = json.loads(ok("run", "--model", "first", "--data", str(DATA["gap"]), "--out",
                        str(tmp_path / "r"), "--no-store", "--json", "--quiet"))
    rows = [json.loads(line) for line in (tmp_path / "r" / "predictions.jsonl").read_text()
            .splitlines()]
    system = tmp_path / "system.tsv"
    system.write_text("".join(f"{r['id']}\t{'TRUE' if r['answer'] == 0 else 'FALSE'}\t"
                              f"{'TRUE' if r['answer'] == 1 else 'FALSE'}\n" for r in rows))
    ev = json.loads(ok("evaluate", "--task", "gap", "--gold", str(DATA["gap"]), "--pred",
                       str(system), "--json"))
    same_figures("gap", run, ev)
    assert ev["system"] == "system"


def test_winogrande_leaderboard_list(tmp_path: Path) -> None:
    run = json.loads(ok("run", "--model", "last", "--data", str(DATA["winograd"]), "--out",
                        str(tmp_path / "r"), "--no-store", "--json", "--quiet"))
    answers = [json.loads(line)["answer"] for line in
               (tmp_path / "r" / "predictions.jsonl").read_text().splitlines()]
    lst = tmp_path / "predictions.lst"
    lst.write_text("".join(f"{a + 1}\n" for a in answers))
    ev = json.loads(ok("evaluate", "--task", "winograd", "--gold", str(DATA["winograd"]),
                       "--pred", str(lst), "--json"))
    same_figures("winograd", run, ev)
    lst.write_text("1\n")
    bad = run_cli("evaluate", "--task", "winograd", "--gold", str(DATA["winograd"]), "--pred",
                  str(lst))
    assert bad.returncode == 2 and "1 answers for 3 gold instances" in bad.stderr


def test_missing_predictions_are_wrong_and_reported(tmp_path: Path) -> None:
    pred = tmp_path / "p.jsonl"
    pred.write_text(json.dumps({"id": "w1", "answer": 0}) + "\n")
    ev = json.loads(ok("evaluate", "--task", "winograd", "--gold", str(DATA["winograd"]),
                       "--pred", str(pred), "--json"))
    assert ev["n_missing"] == 2 and ev["accuracy"] == pytest.approx(1 / 3)
    assert any("2 gold instances have no prediction" in w for w in ev["warnings"])


def _suite_runs(tmp_path: Path, store: str) -> dict[str, Any]:
    runs = {}
    for model in ("knowledge-match", "random"):
        out = tmp_path / model
        text = ok("run", "--model", model, "--data", str(GOLDEN), "--out", str(out), "--store",
                  store, "--quiet")
        assert f"Predictions: {out}/<variant>/subtask_<n>_ents/test/predictions.jsonl" in text
        assert "runs 1-4 in" in text or "runs 5-8 in" in text
        assert "0 of 8 predictions from the cache" in text
        runs[model] = json.loads((out / "suite-results.json").read_text())
    return runs


def test_kitmus_suite_journey(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    runs = _suite_runs(tmp_path, store)
    again = ok("run", "--model", "random", "--data", str(GOLDEN), "--out",
               str(tmp_path / "random"), "--store", store, "--quiet")
    assert "8 of 8 predictions from the cache" in again
    result = tmp_path / "suite.json"
    ev = json.loads(ok("evaluate", "--task", "kitmus", "--gold", str(GOLDEN), "--pred",
                       str(tmp_path / "knowledge-match"), str(tmp_path / "random"), "--out",
                       str(result), "--json"))
    assert ev["systems"] == ["knowledge-match", "random"]
    for cell in ev["cells"]:
        mine = next(c for c in runs[cell["system"]]["cells"]
                    if (c["variant"], c["n_entities"]) == (cell["variant"], cell["n_entities"]))
        for key in ("pronoun_accuracy", "antecedent_f1", "n"):
            assert cell[key] == mine[key], key
        assert cell["ci95"]["pronoun_accuracy"] == mine["ci95"]["pronoun_accuracy"]
    named = json.loads(ok("evaluate", "--task", "kitmus", "--gold", str(GOLDEN), "--pred",
                          str(tmp_path / "knowledge-match"), str(tmp_path / "random"),
                          "--system", "KM", "--system", "Random model", "--json"))
    assert named["systems"] == ["KM", "Random model"]
    one = run_cli("evaluate", "--task", "kitmus", "--gold", str(GOLDEN), "--pred",
                  str(tmp_path / "random"), "--system", "a", "--system", "b")
    assert one.returncode == 2 and "2 --system names for 1 prediction folders" in one.stderr

    md = ok("report", str(result), "--ci")
    lines = md.splitlines()
    assert lines[0] == "**Pronoun accuracy, test split**"
    assert "| Variant | knowledge-match: 2 ent. | knowledge-match: 3 ent. | random: 2 ent. |" \
        in md
    # paper order: background-pretrain before the background-inference variants
    assert md.index("| background-pretrain |") < md.index("| background-inference-charfict")
    assert "| chance (random baseline) | 0.500 | 0.333 | 0.500 | 0.333 |" in md
    assert "[1.000, 1.000]" in md and "n = 2 instances per cell" in md
    # the random model is a system column group, never the chance row
    assert "| random |" not in md

    tidy = list(csv.DictReader(io.StringIO(ok("report", str(result), "--format", "csv"))))
    systems = [r for r in tidy if r["kind"] == "system"]
    assert len(systems) == 2 * 2 * 2 * 5  # systems x variants x entities x metrics
    assert {r["metric"] for r in tidy} == {"pronoun_accuracy", "antecedent_f1",
                                           "antecedent_precision", "antecedent_recall",
                                           "task_specific_accuracy"}
    assert all(r["n"] == "2" and r["split"] == "test" for r in systems)
    assert all(r["ci_low"] for r in systems if r["metric"] in ("pronoun_accuracy",
                                                              "antecedent_f1"))
    one = list(csv.DictReader(io.StringIO(ok("report", str(result), "--format", "csv",
                                             "--metric", "antecedent_f1"))))
    assert {r["metric"] for r in one} == {"antecedent_f1"}
    assert {r["system"] for r in tidy if r["kind"] == "baseline"} == {"chance (random baseline)"}

    page = ok("report", str(result), "--format", "html")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert '<th colspan="2" scope="colgroup">knowledge-match</th>' in page

    plot = tmp_path / "plot.png"
    r = run_cli("report", str(result), "--plot", str(plot), "--metric", "antecedent_f1")
    assert r.returncode == 0 and plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    store_md = ok("report", "--from-store", "--store", store, "--runs", "1,2,3,4")
    assert "**Pronoun accuracy, test split (knowledge-match)**" in store_md

    bad = run_cli("report", str(result), "--metric", "accuracy")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "no metric 'accuracy'" in bad.stderr and "pronoun_accuracy" in bad.stderr


def test_old_suite_run_layout_is_still_read(tmp_path: Path) -> None:
    """Run folders written before the split folder existed: the split comes from metrics.json."""
    out = tmp_path / "first"
    ok("run", "--model", "first", "--data", str(GOLDEN), "--out", str(out), "--no-store",
       "--quiet")
    for folder in list(out.glob("*/subtask_*_ents/test")):
        for f in folder.iterdir():
            shutil.move(str(f), folder.parent / f.name)
        folder.rmdir()
    ev = json.loads(ok("evaluate", "--task", "kitmus", "--gold", str(GOLDEN), "--pred",
                       str(out), "--json", "--bootstrap", "0"))
    assert len(ev["cells"]) == 4 and ev["systems"] == ["first"]


LATEX_WRAPPER = r"""\documentclass{article}
\usepackage{booktabs}
\begin{document}
\input{table}
\end{document}
"""


def _compile(folder: Path, name: str) -> None:
    r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", name],
                       cwd=folder, capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stdout[-2000:]
    assert (folder / name.replace(".tex", ".pdf")).stat().st_size > 1000


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed")
def test_latex_compiles_with_booktabs(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    _suite_runs(tmp_path, store)
    for name, args in (("table.tex", ["--format", "latex", "--ci"]),
                       ("doc.tex", ["--format", "latex", "--ci", "--standalone"])):
        ok("report", str(tmp_path / "knowledge-match"), str(tmp_path / "random"), *args,
           "--out", str(tmp_path / name))
    tex = (tmp_path / "table.tex").read_text()
    assert r"\cmidrule(lr){2-3}" in tex and r"\multicolumn{2}{c}{knowledge-match}" in tex
    (tmp_path / "wrapper.tex").write_text(LATEX_WRAPPER)
    _compile(tmp_path, "wrapper.tex")
    _compile(tmp_path, "doc.tex")
    # other tasks' tables, with characters LaTeX would choke on
    out = tmp_path / "gap"
    ok("run", "--model", "first", "--data", str(DATA["gap"]), "--out", str(out), "--store",
       store, "--system", "A_&_B #1 ~50%", "--quiet")
    ok("report", "--from-store", "--store", store, "--format", "latex", "--standalone", "--ci",
       "--out", str(tmp_path / "all.tex"))
    _compile(tmp_path, "all.tex")


def test_other_tasks_report_from_store_names_model_data_and_split(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    for model, dataset in (("first", "gap"), ("random", "gap"), ("first", "winograd"),
                           ("random", "altentities")):
        ok("run", "--model", model, "--data", str(DATA[dataset]), "--out",
           str(tmp_path / f"{model}-{dataset}"), "--store", store, "--quiet")
    ok("run", "--model", "first", "--data", str(DATA["kitmus-native"]), "--limit", "1", "--out",
       str(tmp_path / "partial"), "--store", store, "--quiet")
    partial = run_cli("report", "--from-store", "--store", store)
    assert partial.returncode == 0 and "left out run 5 (only the first 1 of " in \
        partial.stderr
    md = ok("report", "--from-store", "--store", store, "--ci")
    assert "**GAP results**" in md and "**Winograd-style results**" in md
    assert "| System | Data | Split | n | Accuracy | F1 |" in md
    assert "| first | fixtures/gap/gap-dev.tsv | dev | 2 | 0.500 [" in md  # n: with gold
    assert "| first | fixtures/winograd/wsc-tiny.jsonl | - | 3 |" in md
    ok("run", "--model", "last", "--data", str(DATA["gap"]), "--out", str(tmp_path / "named"),
       "--store", store, "--system", "Last mention", "--quiet")
    named = ok("report", "--from-store", "--store", store)
    assert "| System | Model | Data | Split | n |" in named
    assert "| Last mention | last | fixtures/gap/gap-dev.tsv | dev | 2 |" in named
    tidy = list(csv.DictReader(io.StringIO(ok("report", "--from-store", "--store", store,
                                              "--format", "csv"))))
    assert {(r["system"], r["task"], r["split"]) for r in tidy} >= {
        ("first", "gap", "dev"), ("random", "gap", "dev"), ("first", "winograd", ""),
        ("random", "altentities", "")}
    plot = tmp_path / "bars.png"
    ok("report", "--from-store", "--store", store, "--plot", str(plot))
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_tne_journey(tmp_path: Path) -> None:
    data = write_docs(tmp_path, [DOC])
    ok("tne", "baseline", "surface", "--data", str(data), "--out", str(tmp_path / "s.jsonl"))
    text = ok("evaluate", "--task", "tne", "--gold", str(data), "--pred",
              str(tmp_path / "s.jsonl"), "--out", str(tmp_path / "r.json"), "--plot",
              str(tmp_path / "c.png"))
    assert text.startswith("tne-baseline:surface on ") and "percent" in text  # a run folder
    result = json.loads((tmp_path / "r.json").read_text())
    assert 0.0 <= result["labeled_f1"] <= 1.0 and result["provenance"]["git_hash"] != ""
    md = ok("report", str(tmp_path / "r.json"))
    assert "**TNE results**" in md and "| Labeled F1 |" in md
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"
    wrong = run_cli("evaluate", "--task", "gap", "--gold", str(DATA["gap"]), "--pred",
                    str(tmp_path / "s.jsonl"), "--plot", str(tmp_path / "x.png"))
    assert wrong.returncode == 2 and "TNE confusion heat-map" in wrong.stderr


def test_suite_folder_given_as_a_file_run(tmp_path: Path) -> None:
    ok("run", "--model", "first", "--data", str(GOLDEN), "--out", str(tmp_path / "s"),
       "--no-store", "--quiet")
    gold = GOLDEN / "background-pretrain" / "subtask_2_ents" / "test.jsonl"
    r = run_cli("evaluate", "--task", "kitmus", "--gold", str(gold), "--pred",
                str(tmp_path / "s"))
    assert r.returncode == 2 and "this is a suite run folder" in r.stderr


def test_unreachable_dask_scheduler_is_a_clear_error(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    text = tmp_path / "t.txt"
    text.write_text("Ann met Bo at the fair, but she left early.\n")
    r = run_cli("knowref", "mine", str(text), "--out", str(tmp_path / "c.jsonl"), "--engine",
                "dask", "--scheduler", f"tcp://127.0.0.1:{port}")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"cannot reach a dask scheduler at tcp://127.0.0.1:{port}" in r.stderr
    assert not (tmp_path / "c.jsonl").exists()

"""Rows of the bad-input table for the newest paths (issue 33): exports of damaged suites and
into busy folders, shard metrics and predictions of the wrong shape, server and scheduler
addresses that are not one, lm-eval samples with undefined log-likelihoods or edited
documents, release checks that find problems, KITMUS spans written as floats and resource
pools too small to keep the splits disjoint.

Each class has several inputs of its own; the faults that need a live socket or a killed
process are in :mod:`tests.robustness.test_reliability`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.robustness.harness import Case
from tests.robustness.support import FIX, truncated_gz

Make = Callable[[Path, Path], None]
NATIVE = "suite/background-pretrain/subtask_2_ents/test.jsonl"


def _suite(change: Callable[[Path], None] | None = None) -> Make:
    """The support suite copied to {T}/suite, then ``change`` applied to the copy."""
    def make(case_dir: Path, support: Path) -> None:
        shutil.copytree(support / "suite", case_dir / "suite")
        if change is not None:
            change(case_dir)
    return make


def _append(rel: str, data: bytes) -> Callable[[Path], None]:
    def change(case_dir: Path) -> None:
        with (case_dir / rel).open("ab") as fh:
            fh.write(data)
    return change


def _native_first(edit: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    """The first record of the suite's native file edited (written back as JSON)."""
    def change(case_dir: Path) -> None:
        path = case_dir / NATIVE
        lines = path.read_text(encoding="utf-8").splitlines()
        rec = json.loads(lines[0])
        edit(rec)
        lines[0] = json.dumps(rec)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return change


def _gz_truncated(case_dir: Path) -> None:
    path = case_dir / NATIVE
    (case_dir / (NATIVE + ".gz")).write_bytes(truncated_gz(path.read_bytes()))
    path.unlink()


def export_cases() -> list[Case]:
    hf = ("export", "hf", "{T}/suite", "--out", "{T}/hf")
    cause = "export of a damaged suite"
    rows: list[tuple[str, tuple[str, ...], Make, str]] = [
        ("a native member not UTF-8", hf, _suite(_append(NATIVE, b"\xff\xfe\n")),
         "test.jsonl: not UTF-8 text (byte 0xff at line 3"),
        ("a native member not UTF-8, parquet", (*hf, "--format", "parquet"),
         _suite(_append(NATIVE, b"{\"id\": \"\xe9\"}\n")), "test.jsonl: not UTF-8"),
        ("a bad JSON line in a native member", hf, _suite(_append(NATIVE, b'{"id": 1\n')),
         "test.jsonl:3: invalid JSON"),
        ("a bad JSON line, parquet", (*hf, "--format", "parquet"),
         _suite(_append(NATIVE, b"not json\n")), "test.jsonl:3: invalid JSON"),
        ("a native line that is a list", hf, _suite(_append(NATIVE, b"[1, 2]\n")),
         "expected a JSON object, found a list"),
        ("a native record without sentences", hf,
         _suite(_native_first(lambda r: r.pop("sentences"))), "missing field 'sentences'"),
        ("a native mention span written as floats", hf,
         _suite(_native_first(lambda r: r["pronoun"]["mention"].update(start=0.0))),
         "field 'pronoun.mention.start': expected an integer"),
        ("a truncated gzip native member", hf, _suite(_gz_truncated), "test.jsonl.gz"),
        ("stats.json not JSON", hf, _suite(lambda d: (d / "suite/stats.json").write_text("{")),
         "stats.json:1: invalid JSON"),
        ("DATASHEET.md not UTF-8", hf,
         _suite(lambda d: (d / "suite/DATASHEET.md").write_bytes(b"# \xff\n")),
         "DATASHEET.md: not UTF-8"),
    ]
    out = [Case(id=f"export hf: {i}", args=a, make=m, fragment=f, cause=cause)
           for i, a, m, f in rows]

    def busy(case_dir: Path, support: Path) -> None:
        (case_dir / "busy").mkdir()
        (case_dir / "busy" / "notes.txt").write_text("mine\n")

    def hf_export(case_dir: Path, support: Path) -> None:
        from refbench.export.hf import export_hf

        export_hf([support / "suite"], case_dir / "hf")

    not_export = "is not an earlier `refbench export"
    cause = "export into a busy folder"
    out += [
        Case(id="export hf: --out a folder of other files", cause=cause,
             args=("export", "hf", "{S}/suite", "--out", "{T}/busy"), make=busy,
             code=2, fragment=not_export + " hf` folder"),
        Case(id="export lm-eval: --out a folder of other files", cause=cause,
             args=("export", "lm-eval", "--data", "{S}/wsc.jsonl", "--out", "{T}/busy"),
             make=busy, fragment=not_export + " lm-eval` folder"),
        Case(id="export lm-eval: --out an hf export", cause=cause,
             args=("export", "lm-eval", "--data", "{S}/wsc.jsonl", "--out", "{T}/hf"),
             make=hf_export, fragment=not_export + " lm-eval` folder"),
        Case(id="export hf: --out the folder holding the input", cause=cause,
             args=("export", "hf", "{T}/suite", "--out", "{T}"), make=_suite(),
             fragment="holds an input of this command"),
        Case(id="export hf: --out an earlier hf export (replaced)", cause=cause,
             args=("export", "hf", "{S}/suite", "--out", "{T}/hf"), make=hf_export, code=0),
    ]
    return out


# --- results merge: a shard's metrics.json and predictions.jsonl of the wrong shape ----------
MERGE = ("results", "merge", "{T}/s1", "--out", "{T}/m", "--no-store")


def _shard(metrics: Callable[[dict[str, Any]], None] | None = None,
           preds: Callable[[list[str]], None] | None = None) -> Make:
    """Shard 1/1 of ``first`` on the support's Winograd file in {T}/s1, its files changed."""
    def make(case_dir: Path, support: Path) -> None:
        from refbench.runs.record import RunSettings
        from refbench.runs.runner import run_model

        run_model(RunSettings("first", shard=(1, 1)), support / "wsc.jsonl", case_dir / "s1",
                  progress=False)
        if metrics is not None:
            path = case_dir / "s1" / "metrics.json"
            m = json.loads(path.read_text())
            metrics(m)
            path.write_text(json.dumps(m))
        if preds is not None:
            path = case_dir / "s1" / "predictions.jsonl"
            lines = path.read_text().splitlines()
            preds(lines)
            path.write_text("\n".join(lines) + "\n")
        _reseal(case_dir / "s1")
    return make


def _reseal(folder: Path) -> None:
    """The shard's record sealed again over its changed files (issue 50's seal would refuse
    it first): these rows are about what merge says of each damaged field."""
    try:
        from refbench.core.seal import seal
    except ImportError:  # a checkout before seals
        return
    path = folder / "metrics.json"
    path.write_text(json.dumps(seal(json.loads(path.read_text()),
                                    folder / "predictions.jsonl")))


def _pred(key: str, value: Any) -> Callable[[list[str]], None]:
    def change(lines: list[str]) -> None:
        rec = json.loads(lines[0])
        rec[key] = value
        lines[0] = json.dumps(rec)
    return change


def merge_cases() -> list[Case]:
    def drop(*keys: str) -> Callable[[dict[str, Any]], None]:
        def change(m: dict[str, Any]) -> None:
            for k in keys[:-1]:
                m = m[k]
            del m[keys[-1]]
        return change

    def put(value: Any, *keys: str) -> Callable[[dict[str, Any]], None]:
        def change(m: dict[str, Any]) -> None:
            for k in keys[:-1]:
                m = m[k]
            m[keys[-1]] = value
        return change

    metrics = [
        ("no reader_options", drop("reader_options"), "missing field 'reader_options'"),
        ("no shard count", drop("shard", "count"), "missing field 'shard.count'"),
        ("no limit", drop("limit"), "missing field 'limit'"),
        ("shard count a string", put("1", "shard", "count"), "field 'shard.count'"),
        ("shard start a boolean", put(False, "shard", "start"), "field 'shard.start'"),
        ("shard stop a float", put(3.0, "shard", "stop"), "field 'shard.stop'"),
        ("reader_options a string", put("x", "reader_options"), "field 'reader_options'"),
        ("model a number", put(7, "model"), "field 'model': expected a string"),
        ("provenance a list", put([], "provenance"), "field 'provenance'"),
        ("data hashes not objects", put(["x"], "provenance", "inputs", "data"),
         "field 'provenance.inputs.data[0]'"),
        ("n_cached null", put(None, "n_cached"), "field 'n_cached'"),
        ("uncached_batches a fraction", put(1.5, "uncached_batches"),
         "field 'uncached_batches'"),
    ]
    out = [Case(id=f"results merge: shard metrics, {i}", args=MERGE, make=_shard(metrics=c),
                fragment=f"s1/metrics.json: {f}", cause="shard metrics")
           for i, c, f in metrics]
    preds = [
        ("scores a string", _pred("scores", "ab"), "field 'scores': expected a list of 2"),
        ("scores nested", _pred("scores", [[1.0], [2.0]]), "field 'scores[0]'"),
        ("scores booleans", _pred("scores", [True, False]), "field 'scores[0]'"),
        ("scores of the wrong length", _pred("scores", [1.0, 2.0, 3.0]),
         "expected a list of 2, found a list of 3"),
        ("answer a string", _pred("answer", "0"), "field 'answer': expected an integer"),
        ("answer a boolean", _pred("answer", True), "found a boolean"),
        ("answer a float", _pred("answer", 1.0), "field 'answer'"),
        ("answer out of range", _pred("answer", 5), "expected an integer from 0 to 1"),
        ("extra a list", _pred("extra", [1]), "field 'extra'"),
        ("explanation a string", _pred("explanation", "why"), "field 'explanation'"),
        ("a NaN score", lambda ls: ls.__setitem__(0, ls[0].replace('"scores": [',
                                                                  '"scores": [NaN, ')
                                                   .replace(", 1.0]", "]")),
         "expected a finite number"),
        ("a line that is not JSON", lambda ls: ls.__setitem__(0, "{"), "invalid JSON"),
    ]
    out += [Case(id=f"results merge: shard predictions, {i}", args=MERGE,
                 make=_shard(preds=c), fragment="s1/predictions.jsonl:1", cause="shard "
                 "predictions") for i, c, f in preds]
    for i, c, f in preds[:6]:  # the field named too
        out.append(Case(id=f"results merge: shard predictions, {i} (field)", args=MERGE,
                        make=_shard(preds=c), fragment=f, cause="shard predictions"))
    return out


# --- addresses that are not a server or a scheduler ------------------------------------------
RUN = ("run", "--no-store", "--quiet", "--out", "{T}/r", "--data", "{S}/wsc.jsonl")


def address_cases() -> list[Case]:
    out = []
    for model in ("llm-loglik", "llm-chat:m"):
        for url, frag in [("not-a-url", "expected an http:// or https:// URL"),
                          ("ftp://127.0.0.1/v1", "expected an http:// or https:// URL"),
                          ("http://", "expected an http:// or https:// URL"),
                          ("localhost:8000/v1", "expected an http:// or https:// URL"),
                          ("http://127.0.0.1:99999/v1", "Port out of range"),
                          ("http://127.0.0.1:8000/v1 x", "no spaces")]:
            out.append(Case(id=f"{model} base_url {url!r}", cause="server address",
                            args=(*RUN, "--model", model, "--model-arg", f"base_url={url}"),
                            fragment=f"base_url {url!r}: " + ("" if frag.startswith(
                                ("Port", "no")) else frag)))
            if frag.startswith(("Port", "no")):
                out.append(Case(id=f"{model} base_url {url!r} (why)", cause="server address",
                                args=(*RUN, "--model", model, "--model-arg",
                                      f"base_url={url}"), fragment=frag))
    for address, frag in [("foo bar", "--scheduler 'foo bar': expected a Dask scheduler "
                                      "address"),
                          ("tcp://", "--scheduler 'tcp://': expected"),
                          ("tcp://127.0.0.1", "missing port"),
                          ("nosuch://127.0.0.1:1", "--scheduler 'nosuch://127.0.0.1:1'"),
                          ("tcp://127.0.0.1:1", "cannot reach a dask scheduler at "
                                                "tcp://127.0.0.1:1 within 5 s")]:
        out.append(Case(id=f"run --engine dask --scheduler {address!r}",
                        cause="scheduler address", fragment=frag,
                        args=(*RUN, "--model", "first", "--engine", "dask", "--scheduler",
                              address)))
    return out


# --- lm-eval samples: undefined log-likelihoods, edited documents ----------------------------

def _samples(edit: Callable[[dict[str, Any]], None], line: int = 1) -> Callable[[Path], None]:
    """Line ``line`` of the first subtask's samples edited (written with json.dumps, so a
    float NaN becomes the bare NaN Python writes)."""
    def change(lm: Path) -> None:
        from tests.robustness.cases import LM_TASKS
        from tests.runs.lm_eval.lm_eval_fake import STAMP

        path = lm / f"samples_{LM_TASKS[0]}_{STAMP}.jsonl"
        rows = [json.loads(x) for x in path.read_text().splitlines()]
        edit(rows[line - 1])
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return change


def _resp(k: int, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(row: dict[str, Any]) -> None:
        row["filtered_resps"][k][0] = value
    return edit


def _doc(edit: Callable[[dict[str, Any]], None], *, keep_hash: bool = True
         ) -> Callable[[dict[str, Any]], None]:
    def change(row: dict[str, Any]) -> None:
        edit(row["doc"])
        if not keep_hash:
            row.pop("doc_hash")
    return change


def lm_eval_cases() -> list[Case]:
    from tests.robustness.cases import LM_TASKS, _lm_run, _lm_samples

    imp = ("results", "import-lm-eval", "--data", "{S}/suite", "--out", "{T}/imp",
           "--no-store", "--quiet", *_lm_samples(*LM_TASKS))
    rows: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
        ("a log-likelihood 'nan'", _resp(0, "nan"), "the log-likelihood is 'nan'"),
        ("a log-likelihood '-inf'", _resp(1, "-inf"), "the log-likelihood is '-inf'"),
        ("a log-likelihood 'Infinity'", _resp(0, "Infinity"), "not a finite number"),
        ("a log-likelihood written as NaN", _resp(0, float("nan")), "not a finite number"),
        ("a log-likelihood written as -Infinity", _resp(1, float("-inf")),
         "not a finite number"),
        ("a log-likelihood a boolean", _resp(0, True), "found a boolean"),
        ("a log-likelihood a list", _resp(0, [1.0]), "found a list"),
        ("a document's choices changed, doc_hash kept",
         _doc(lambda d: d["choices"].reverse()), "does not hash to its doc_hash"),
        ("a document's label changed, doc_hash kept",
         _doc(lambda d: d.update(label=1 - d["label"])), "does not hash to its doc_hash"),
        ("a document changed, doc_hash removed",
         _doc(lambda d: d["choices"].reverse(), keep_hash=False), "differs from instance"),
    ]
    return [Case(id=f"import-lm-eval: {i}", args=imp, make=_lm_run(_samples(e)),
                 fragment=f, cause="lm-eval samples") for i, e, f in rows]


# --- release checks that find problems (exit 1) or cannot read (exit 2) ----------------------

def _copy_fixture(name: str, change: Callable[[Path], None]) -> Make:
    def make(case_dir: Path, support: Path) -> None:
        shutil.copytree(FIX / name, case_dir / name)
        change(case_dir / name)
    return make


def _cut(rel: str, keep: int) -> Callable[[Path], None]:
    def change(folder: Path) -> None:
        lines = (folder / rel).read_text().splitlines()
        (folder / rel).write_text("\n".join(lines[:keep]) + "\n")
    return change


def check_cases() -> list[Case]:
    wg = ("winogender", "check", "{T}/winogender")
    wb = ("winobias", "check", "{T}/winobias")
    cause = "release check"
    out = [
        Case(id="winogender check: sentences cut at a group boundary", args=wg, code=1,
             make=_copy_fixture("winogender", _cut("all_sentences.tsv", 13)), cause=cause),
        Case(id="winogender check: sentences cut inside a group", args=wg, code=1,
             make=_copy_fixture("winogender", _cut("all_sentences.tsv", 11)), cause=cause),
        Case(id="winogender check: templates cut", args=wg, code=1,
             make=_copy_fixture("winogender", _cut("templates.tsv", 3)), cause=cause),
        Case(id="winogender check: --json, truncated", args=(*wg, "--json"), code=1,
             make=_copy_fixture("winogender", _cut("all_sentences.tsv", 7)), cause=cause),
        Case(id="winogender check: a half line at the end", args=wg, code=1,
             make=_copy_fixture("winogender", lambda f: (f / "all_sentences.tsv").write_text(
                 (f / "all_sentences.tsv").read_text()[:-30])), cause=cause),
        Case(id="winogender check: cut inside the last id", args=wg, code=2,
             make=_copy_fixture("winogender", lambda f: (f / "all_sentences.tsv").write_text(
                 (f / "all_sentences.tsv").read_text().rsplit("\n", 2)[0] + "\nnurse.pat\n")),
             fragment="all_sentences.tsv:25", cause=cause),
        Case(id="winobias check: an empty occupation list", args=wb, code=2,
             make=_copy_fixture("winobias", lambda f: (f / "male_occupations.txt")
                                .write_text("")),
             fragment="male_occupations.txt: holds no occupations", cause=cause),
        Case(id="winobias check: blank occupation lists", args=wb, code=2,
             make=_copy_fixture("winobias", lambda f: [(f / n).write_text("\n\n") for n in (
                 "male_occupations.txt", "female_occupations.txt")] and None),
             fragment="holds no occupations", cause=cause),
        Case(id="winobias check: occupation lists not UTF-8", args=wb, code=2,
             make=_copy_fixture("winobias", lambda f: (f / "female_occupations.txt")
                                .write_bytes(b"\xff\xfe\n")),
             fragment="female_occupations.txt: not UTF-8", cause=cause),
        Case(id="winobias check: occupation lists of other words", args=wb, code=1,
             make=_copy_fixture("winobias", lambda f: [(f / n).write_text("pilot\nbaker\n")
                                                       for n in ("male_occupations.txt",
                                                                 "female_occupations.txt")]
                                and None), cause=cause),
        Case(id="winobias check: an occupation list missing", args=wb, code=2,
             make=_copy_fixture("winobias", lambda f: (f / "male_occupations.txt").unlink()),
             fragment="male_occupations.txt", cause=cause),
    ]
    return out


# --- KITMUS spans written as floats (ints only; a boolean is no integer either) --------------

def _jsonlines(edit: Callable[[dict[str, Any]], None], name: str = "g.jsonlines") -> Make:
    def make(case_dir: Path, support: Path) -> None:
        lines = (support / "kitmus.jsonlines").read_text().splitlines()
        rec = json.loads(lines[0])
        edit(rec)
        lines[0] = json.dumps(rec)
        (case_dir / name).write_text("\n".join(lines) + "\n")
    return make


def span_cases() -> list[Case]:
    gold = ("evaluate", "--task", "kitmus", "--pred", "{S}/kitmus-answers.jsonl", "--gold",
            "{T}/g.jsonlines")
    pred = ("evaluate", "--task", "kitmus", "--gold", "{S}/kitmus.jsonlines", "--pred",
            "{T}/p.jsonlines")

    def floats(rec: dict[str, Any]) -> None:
        rec["clusters"] = [[[float(a), float(b)] for a, b in c] for c in rec["clusters"]]

    def first_span(value: Any) -> Callable[[dict[str, Any]], None]:
        return lambda rec: rec["clusters"][0].__setitem__(0, value)

    def predicted(rec: dict[str, Any]) -> None:
        rec["predicted_clusters"] = [[[float(a), float(b)] for a, b in c]
                                     for c in rec["clusters"]]

    cause = "float spans"
    return [
        Case(id="kitmus jsonlines gold: every span as floats", args=gold,
             make=_jsonlines(floats), fragment="field 'clusters[0][0]': expected an integer",
             cause=cause),
        Case(id="kitmus jsonlines gold: [[0.0, 0.0]]", args=gold,
             make=_jsonlines(first_span([0.0, 0.0])), fragment="found a number (0.0)",
             cause=cause),
        Case(id="kitmus jsonlines predictions: spans as floats", args=pred,
             make=_jsonlines(floats, "p.jsonlines"), fragment="expected an integer",
             cause=cause),
        Case(id="kitmus jsonlines predictions: predicted_clusters as floats", args=pred,
             make=_jsonlines(predicted, "p.jsonlines"),
             fragment="field 'predicted_clusters[0][0]'", cause=cause),
        Case(id="kitmus jsonlines predictions: a span of booleans", args=pred,
             make=_jsonlines(first_span([False, True]), "p.jsonlines"),
             fragment="found a boolean", cause=cause),
        Case(id="kitmus jsonlines predictions: subtoken_map as floats", args=pred,
             make=_jsonlines(lambda r: r.update(subtoken_map=[float(i) for i in range(
                 sum(len(s) for s in r["sentences"]))]), "p.jsonlines"),
             fragment="field 'subtoken_map[0]'", cause=cause),
        Case(id="kitmus native: a mention start as a float", args=(
            "evaluate", "--task", "kitmus", "--pred", "{S}/kitmus-answers.jsonl", "--gold",
            "{T}/suite/background-pretrain/subtask_2_ents/test.jsonl"),
            make=_suite(_native_first(lambda r: r["entities"][0]["mentions"][0].update(
                end=1.0))), fragment="entities[0].mentions[0].end", cause=cause),
    ]


# --- resource pools too small to keep the splits disjoint ------------------------------------
GEN = ("kitmus", "generate", "--out", "{T}/s", "--sizes", "2", "--variants",
       "background-pretrain", "--entities", "2", "--workers", "1", "--quiet", "--no-probe",
       "--resources", "{T}/res")


def _resources(name: str, text: str) -> Make:
    def make(case_dir: Path, support: Path) -> None:
        shutil.copytree(support / "resources", case_dir / "res")
        (case_dir / "res" / name).write_text(text)
    return make


def pool_cases() -> list[Case]:
    occupations = (FIX.parent.parent / "src/refbench/tasks/kitmus/data/occupations.tsv")
    header, *rows = occupations.read_text().splitlines()
    cause = "pools too small to split"
    return [
        Case(id="kitmus generate: two names", args=(*GEN, "--splits", "test"),
             make=_resources("names.txt", "Acker\nBloom\n"), cause=cause,
             fragment="too few names: the names pool has 2, too few to keep the splits"),
        Case(id="kitmus generate: two names, every split", args=GEN,
             make=_resources("names.txt", "Acker\nBloom\n"), cause=cause,
             fragment="it needs at least"),
        Case(id="kitmus generate: one name", args=(*GEN, "--splits", "train"),
             make=_resources("names.txt", "Acker\n"), cause=cause,
             fragment="the names pool has 1,"),
        Case(id="kitmus generate: five names, a validation split", args=(
            *GEN, "--splits", "validation"),
             make=_resources("names.txt", "Acker\nBloom\nCrane\nDunn\nEly\n"), cause=cause,
             fragment="it needs at least 15"),
        Case(id="kitmus generate: two occupation rows", args=(*GEN, "--splits", "test"),
             make=_resources("occupations.tsv", "\n".join([header, *rows[:2]]) + "\n"),
             cause=cause, fragment="too few occupations: the occupations pool has 2,"),
    ]


def reliability_cases() -> list[Case]:
    return [*export_cases(), *merge_cases(), *address_cases(), *lm_eval_cases(),
            *check_cases(), *span_cases(), *pool_cases()]

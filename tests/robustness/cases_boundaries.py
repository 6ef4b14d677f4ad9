"""Rows of the bad-input table for issue 42's boundaries: plugin code that raises, exits or
returns the wrong thing; damaged GGUF files, lm-eval samples and store rows; silent cases
(lm-eval imports that do not cover their data, truncated releases, an offline ``data get``).

A plugin's own failure is one ``error E600`` line naming the entry point, its distribution
and what it did, exit code 1; a broken plugin stops nothing else (rows that expect exit 0).
The waits (a slow mirror, a killed download) need a live socket: they are in
:mod:`tests.robustness.test_boundaries`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.robustness.harness import Case
from tests.robustness.plugin_dists import (
    DIST,
    GOOD_PREDICT,
    PACKAGE,
    VERSION,
    make_dist,
    model_source,
    releases_json,
    task_source,
)

Make = Callable[[Path, Path], None]
PLUG = "{T}/plug"
ORIGIN = f"plugin {DIST} {VERSION}: entry point"
RUN = ("run", "--no-store", "--quiet", "--out", "{T}/r")


def _dist(**kw: str) -> Make:
    def make(case_dir: Path, support: Path) -> None:
        make_dist(case_dir / "plug", **kw)
        (case_dir / "d.plug").write_text('{"pid": "p1", "text": "It fell."}\n'
                                         '{"pid": "p2", "text": "It rose."}\n')
    return make


def _predict(body: str) -> str:
    return model_source("\n    def predict(self, batch):\n        " + body + "\n")


def plugin_model_cases() -> list[Case]:
    run = (*RUN, "--data", "{S}/wsc.jsonl", "--model", "bad-model")
    rows: list[tuple[str, str, str]] = [
        ("__init__ raises", model_source(
            "\n    def __init__(self, *a, **k):\n"
            "        raise RuntimeError('CUDA device 0 not found')\n" + GOOD_PREDICT),
         "Model(...) raised RuntimeError: CUDA device 0 not found"),
        ("predict raises", _predict("raise KeyError('logits')"),
         "predict raised KeyError: 'logits'"),
        ("predict calls sys.exit", _predict("import sys; sys.exit(3)"),
         "predict raised SystemExit: 3"),
        ("predict returns one output too few",
         _predict("return [ModelOutput(0, (0.0, 1.0)) for _ in batch][1:]"),
         "predict returned 2 outputs for a batch of 3 instances"),
        ("predict returns one output too many",
         _predict("return [ModelOutput(0, (0.0, 1.0)) for _ in batch] * 2"),
         "predict returned 6 outputs for a batch of 3 instances"),
        ("predict returns None", _predict("return None"),
         "predict returned None, not a list of ModelOutput"),
        ("predict returns tuples", _predict("return [(0, [0.0, 1.0]) for _ in batch]"),
         "predict's output 1 is a tuple, not a ModelOutput"),
        ("predict answers a string", _predict(
            "return [ModelOutput('0', (0.0, 1.0)) for _ in batch]"),
         "predict's output 1: answer '0' is not a candidate index"),
        ("predict scores strings", _predict(
            "return [ModelOutput(0, ('a', 'b')) for _ in batch]"),
         "predict's output 1: scores[0] 'a' is not a number"),
        ("prepare raises", model_source(
            "\n    def prepare(self, data, task):\n        raise OSError('no GPU')\n" +
            "\n    def predict(self, batch):\n        return []\n"),
         "prepare raised OSError: no GPU"),
        ("OPTIONS a string", model_source("    OPTIONS = 'temperature'\n" +
                                          "\n    def predict(self, batch):\n        return []\n"),
         "its OPTIONS is a str, not a tuple of refbench.api.Option"),
        ("OPTIONS of dicts", model_source("    OPTIONS = ({'name': 'k'},)\n" +
                                          "\n    def predict(self, batch):\n        return []\n"),
         "its OPTIONS[0] is a dict, not a refbench.api.Option"),
        ("sys.exit(0) on import", model_source(head="import sys; sys.exit(0)\n"),
         "import raised SystemExit: 0"),
        ("KeyboardInterrupt on import", model_source(head="raise KeyboardInterrupt\n"),
         "import raised KeyboardInterrupt"),
        ("a syntax error", model_source(head="def (:\n"), "import raised SyntaxError"),
    ]
    out = [Case(id=f"plugin model: {i}", args=run, make=_dist(model=src), path=PLUG, code=1,
                error_line=True, cause="plugin code",
                fragment=f"{ORIGIN} bad-model = {PACKAGE}.model:Model" + (
                    " cannot be used: " if f.startswith(("import", "its")) else ": ") + f)
           for i, src, f in rows]
    exits = model_source(head="import sys; sys.exit(0)\n")
    out += [
        Case(id="plugin model: sys.exit(0) on import, ls models", args=("ls", "models"),
             make=_dist(model=exits), path=PLUG, code=0, fragment="knowledge-match",
             cause="plugin code"),
        Case(id="plugin model: sys.exit(0) on import, run another model",
             args=(*RUN, "--data", "{S}/wsc.jsonl", "--model", "first", "--json"),
             make=_dist(model=exits), path=PLUG, code=0, fragment='"accuracy"',
             cause="plugin code"),
        Case(id="plugin model: an unknown option is a usage error",
             args=(*run, "--model-arg", "nosuch=1"), make=_dist(model=model_source()),
             path=PLUG, code=2, fragment="nosuch", cause="plugin code"),
    ]
    return out


def plugin_task_cases() -> list[Case]:
    plug = (*RUN, "--model", "first", "--data", "{T}/d.plug")
    wsc = (*RUN, "--model", "first", "--data", "{S}/wsc.jsonl", "--json")
    rows: list[tuple[str, str, str]] = [
        ("read_choices raises", task_source(read="raise KeyError('pid')"),
         "read_choices raised KeyError: 'pid'"),
        ("read_choices exits", task_source(read="raise SystemExit(2)"),
         "read_choices raised SystemExit: 2"),
        ("slices raises", task_source(slices="return 1 / 0"),
         "slices raised ZeroDivisionError"),
    ]
    out = [Case(id=f"plugin task: {i}", args=(*plug, "--task", "badplug"),
                make=_dist(task=src), path=PLUG, code=1, error_line=True,
                fragment=f"{ORIGIN} badplug = {PACKAGE}.plugtask.task:TASK: {f}",
                cause="plugin code") for i, src, f in rows]
    out += [
        Case(id="plugin task: sniff raises, a built-in file still runs", args=wsc,
             make=_dist(task=task_source(sniff="raise ValueError('x')")), path=PLUG, code=0,
             fragment='"accuracy"', cause="plugin code"),
        Case(id="plugin task: sys.exit(0) on import, ls tasks", args=("ls", "tasks"),
             make=_dist(task="import sys; sys.exit(0)\n"), path=PLUG, code=0,
             fragment="winogender", cause="plugin code"),
        Case(id="plugin task: sys.exit(0) on import, run a built-in task", args=wsc,
             make=_dist(task="import sys; sys.exit(0)\n"), path=PLUG, code=0,
             fragment='"accuracy"', cause="plugin code"),
        Case(id="plugin task: KeyboardInterrupt on import, named", args=(*plug, "--task",
                                                                          "badplug"),
             make=_dist(task="raise KeyboardInterrupt\n"), path=PLUG, code=1, error_line=True,
             fragment=f"{ORIGIN} badplug", cause="plugin code"),
    ]
    return out


def plugin_release_cases() -> list[Case]:
    data_list = ("data", "list", "--dir", "{T}/data")
    cause = "plugin releases"
    rows = [
        ("a releases.json that is not JSON", releases_json(broken="json"), "not valid JSON"),
        ("a releases.json of another format", releases_json(broken="format"),
         "expected an object with"),
        ("a release file with a bad sha256", releases_json(broken="sha"), "is not a sha256"),
        ("a release named wsc273 again", releases_json("wsc273"),
         "wsc273 is already declared by refbench"),
    ]
    out = []
    for i, text, warn in rows:
        out.append(Case(id=f"plugin releases: {i}, data list", args=data_list,
                        make=_dist(releases=text), path=PLUG, code=0, fragment=warn,
                        cause=cause))
        out.append(Case(id=f"plugin releases: {i}, data path gap",
                        args=("data", "path", "gap", "--dir", "{T}/data"),
                        make=_dist(releases=text), path=PLUG,
                        fragment="release gap is not in the data folder", cause=cause))

    def wsc_there(case_dir: Path, support: Path) -> None:
        _dist(releases=releases_json("wsc273"))(case_dir, support)
        (case_dir / "data" / "winograd").mkdir(parents=True)
        (case_dir / "data" / "winograd" / "wsc273.jsonl").write_bytes(b"x" * 51574)  # its size

    out.append(Case(id="plugin releases: wsc273 again keeps the built-in",
                    args=("data", "path", "wsc273", "--dir", "{T}/data"), make=wsc_there,
                    path=PLUG, code=0, fragment="winograd/wsc273.jsonl", cause=cause))
    return out


# --- damaged GGUF files: checked (size, header) before a parser sees them -----------------------

def tiny_gguf(*, version: int = 3, n_meta: int | None = None) -> bytes:
    """A small whole GGUF file: two metadata entries (a string, a string array) and one F32
    tensor of 8 values, its data aligned to 32 bytes."""
    import struct

    def string(text: str) -> bytes:
        return struct.pack("<Q", len(text)) + text.encode()

    meta = (string("general.architecture") + struct.pack("<I", 8) + string("llama")
            + string("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 3)
            + b"".join(string(t) for t in ("a", "b", "c")))
    tensor = string("w") + struct.pack("<IQIQ", 1, 8, 0, 0)
    head = b"GGUF" + struct.pack("<IQQ", version, 1, 2 if n_meta is None else n_meta)
    body = head + meta + tensor
    body += b"\0" * (-len(body) % 32)
    return body + struct.pack("<8f", *range(8))


def _gguf(data: bytes) -> Make:
    def make(case_dir: Path, support: Path) -> None:
        (case_dir / "m.gguf").write_bytes(data)
    return make


def gguf_cases() -> list[Case]:
    whole = tiny_gguf()
    rows = [
        ("cut in the tensor data", whole[:-5], "truncated GGUF file: 219 bytes, but its "
         "header describes 1 tensors whose data ends at byte 224 (tensor w)"),
        ("cut inside a metadata string", whole[:40], "inside metadata entry 1 of 2"),
        ("cut inside the string array", whole[:120], "(tokenizer.ggml.tokens)"),
        ("cut inside the tensor description", whole[:160], "inside tensor description 1"),
        ("cut before the tensor data", whole[:192], "whose data ends at byte 224"),
        ("cut inside the header", whole[:10], "m.gguf: truncated GGUF file: 10 bytes, "
         "shorter than the 24-byte GGUF header"),
        ("empty", b"", "m.gguf: truncated GGUF file: 0 bytes"),
        ("not GGUF", b"version https://git-lfs.github.com/spec/v1\n" * 3,
         "not a GGUF file: it starts with b'vers'"),
        ("version 99", tiny_gguf(version=99), "GGUF version 99"),
        ("a metadata count of 2**60", tiny_gguf(n_meta=1 << 60), "damaged GGUF file"),
    ]
    out = []
    for i, data, frag in rows:
        out.append(Case(id=f"gguf run: {i}", cause="damaged GGUF", make=_gguf(data),
                        args=(*RUN, "--data", "{S}/wsc.jsonl", "--model", "llm-loglik:{T}/m.gguf"),
                        fragment=frag))
        out.append(Case(id=f"gguf export-hf: {i}", cause="damaged GGUF", make=_gguf(data),
                        args=("llm", "export-hf", "{T}/m.gguf", "--out", "{T}/hf"),
                        fragment=frag))
    return out


# --- lm-eval samples: every field typed; coverage only by a recorded --limit --------------------

def _lm_edit(change: Callable[[list[dict[str, Any]], dict[str, Any]], None]) -> Make:
    """The support suite's lm-eval run in {T}/lm, the first subtask's samples and the
    results file given to ``change`` (rows, results) and written back."""
    def edit(lm: Path) -> None:
        from tests.robustness.cases import LM_TASKS
        from tests.runs.lm_eval.lm_eval_fake import STAMP

        path = lm / f"samples_{LM_TASKS[0]}_{STAMP}.jsonl"
        res = lm / f"results_{STAMP}.json"
        rows = [json.loads(x) for x in path.read_text().splitlines()]
        results = json.loads(res.read_text())
        change(rows, results)
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        res.write_text(json.dumps(results))
    from tests.robustness.cases import _lm_run

    return _lm_run(edit)


def _field(line: int, key: str, value: Any, *, in_doc: bool = False
           ) -> Callable[[list[dict[str, Any]], dict[str, Any]], None]:
    def change(rows: list[dict[str, Any]], results: dict[str, Any]) -> None:
        (rows[line - 1]["doc"] if in_doc else rows[line - 1])[key] = value
    return change


def lm_eval_type_cases() -> list[Case]:
    from tests.robustness.cases import LM_TASKS, _lm_samples

    imp = ("results", "import-lm-eval", "--data", "{S}/suite", "--out", "{T}/imp",
           "--no-store", "--quiet", *_lm_samples(*LM_TASKS))
    rows: list[tuple[str, Callable[[list[dict[str, Any]], dict[str, Any]], None], str]] = [
        ("a string doc_id among integers", _field(2, "doc_id", "1"),
         ":2: field 'doc_id': expected an integer (the document's position), found a string"),
        ("a float doc_id", _field(1, "doc_id", 0.0), "field 'doc_id': expected an integer"),
        ("a boolean doc_id", _field(1, "doc_id", False), "found a boolean"),
        ("a negative doc_id", _field(1, "doc_id", -1), "field 'doc_id': expected an integer "
                                                        "0 or more"),
        ("a null doc_id", _field(1, "doc_id", None), "field 'doc_id': expected an integer"),
        ("doc a list", _field(1, "doc", []), "field 'doc': expected an object"),
        ("doc_hash a number", _field(1, "doc_hash", 7), "field 'doc_hash': expected a string"),
        ("prompt_hash null", _field(1, "prompt_hash", None), "field 'prompt_hash'"),
        ("acc a string", _field(1, "acc", "1.0"), "field 'acc': expected a number"),
        ("the document's id a list", _field(1, "id", ["x"], in_doc=True),
         "field 'doc.id': expected a string"),
        ("filtered_resps of strings", _field(1, "filtered_resps", ["-1.0", "-2.0"]),
         "field 'filtered_resps[0]': expected a list"),
    ]
    return [Case(id=f"import-lm-eval types: {i}", args=imp, make=_lm_edit(c), fragment=f,
                 cause="lm-eval sample types") for i, c, f in rows]


def _drop_last(limit: Any = None, *, results: bool = True, keep: int = -1
               ) -> Callable[[list[dict[str, Any]], dict[str, Any]], None]:
    def change(rows: list[dict[str, Any]], res: dict[str, Any]) -> None:
        del rows[keep:]
        if limit is not None:
            res["config"]["limit"] = None if limit == "null" else limit
    return change


def lm_eval_coverage_cases() -> list[Case]:
    from tests.robustness.cases import LM_TASKS, _lm_samples

    one = ("results", "import-lm-eval", "--data",
           "{S}/suite/background-pretrain/subtask_2_ents/test.jsonl", "--out", "{T}/imp",
           "--no-store", "--quiet", *_lm_samples(LM_TASKS[0]))
    cause = "lm-eval coverage"
    rows = [
        ("the last line missing, no limit recorded", _drop_last(),
         "lm-eval recorded no --limit"),
        ("the last line missing, the names", _drop_last(), "missing: "),
        ("the last line missing, limit null recorded",
         _drop_last(limit="null"),
         "lm-eval recorded no --limit (config.limit in"),
        ("the last line missing, a limit of 100 recorded", _drop_last(100),
         "lm-eval ran with --limit 100"),
        ("the last line missing, a limit of 0.9 recorded", _drop_last(0.9),
         "lm-eval ran with --limit 0.9 (2 of 2 instances"),
        ("the last line missing, a limit that is a string", _drop_last("x"),
         "lm-eval recorded no --limit"),
    ]
    out = [Case(id=f"import-lm-eval coverage: {i}", args=one, make=_lm_edit(c), fragment=f,
                cause=cause) for i, c, f in rows]

    def no_results(lm: Path) -> None:
        for p in lm.glob("results_*.json"):
            p.unlink()
        path = sorted(lm.glob(f"samples_{LM_TASKS[0]}_*.jsonl"))[0]
        path.write_text("".join(path.read_text().splitlines(keepends=True)[:-1]))

    from tests.robustness.cases import _lm_run

    out += [
        Case(id="import-lm-eval coverage: the last line missing, no results file", args=one,
             make=_lm_run(no_results), fragment="no results_*.json beside the samples",
             cause=cause),
        Case(id="import-lm-eval coverage: a limit recorded and kept (partial)", code=0,
             args=one[:-3] + one[-2:], make=_lm_edit(_drop_last(2, keep=2)),
             fragment="", cause=cause),
    ]
    return out


# --- store rows: every column typed on read ------------------------------------------------------

def _store_row(column: str, value: Any) -> Make:
    """A store in {T}/s.sqlite holding one run of ``first``, its ``column`` set to ``value``."""
    def make(case_dir: Path, support: Path) -> None:
        import sqlite3

        from refbench.runs.record import RunSettings
        from refbench.runs.runner import run_model
        from refbench.runs.store import Store

        store = Store(case_dir / "s.sqlite")
        run_model(RunSettings("first"), support / "wsc.jsonl", case_dir / "r", store=store,
                  progress=False)
        store.close()
        db = sqlite3.connect(case_dir / "s.sqlite")
        db.execute(f"UPDATE runs SET {column} = ?", (value,))
        db.commit()
        db.close()
    return make


def store_cases() -> list[Case]:
    report = ("report", "--from-store", "--store", "{T}/s.sqlite")
    show = ("results", "show", "1", "--store", "{T}/s.sqlite")
    ls = ("results", "ls", "--store", "{T}/s.sqlite")
    rows: list[tuple[str, tuple[str, ...], str, Any, str]] = [
        ("report --from-store: metrics JSON null", report, "metrics", "null",
         "run 1: column 'metrics': expected a JSON object, found null"),
        ("report --from-store: metrics a JSON list", report, "metrics", "[1]", "found a list"),
        ("report --from-store: metrics a JSON string", report, "metrics", '"x"',
         "found a string"),
        ("report --from-store: metrics an integer", report, "metrics", 12,
         "column 'metrics': expected a JSON object, found a number"),
        ("report --from-store: n as text", report, "n", "many",
         "column 'n': expected a count"),
        ("results show: metrics JSON null", show, "metrics", "null", "column 'metrics'"),
        ("results show: model a blob", show, "model", b"\xff",
         "column 'model': expected text, found bytes"),
        ("results ls: accuracy as text", ls, "accuracy", "high",
         "column 'accuracy': expected a number or NULL"),
        ("results ls: split a blob", ls, "split", b"x", "column 'split': expected text or NULL"),
        ("results ls: a negative n", ls, "n", -4, "column 'n'"),
    ]
    return [Case(id=f"store row: {i}", args=a, make=_store_row(c, v), fragment=f,
                 cause="store rows") for i, a, c, v, f in rows]


# --- data get: no network, a rate that is not one ------------------------------------------------

def data_get_cases() -> list[Case]:
    get = ("data", "get", "wsc273", "--dir", "{T}/d", "--retries", "0")
    closed = (*get, "--mirror", "http://127.0.0.1:1")
    cause = "data get offline"
    out = [
        Case(id="data get: an unreachable mirror names the host and file", args=closed,
             fragment="cannot reach 127.0.0.1 to fetch winograd/wsc273.jsonl", cause=cause),
        Case(id="data get: an unreachable mirror names --mirror", args=closed,
             fragment="--mirror URL", cause=cause),
        Case(id="data get: an unreachable mirror names REFBENCH_DATA_DIR", args=closed,
             fragment="set REFBENCH_DATA_DIR to a folder", cause=cause),
        Case(id="data get: an unreachable mirror, two releases", args=(
            "data", "get", "wsc273", "gap", "--dir", "{T}/d", "--mirror", "http://127.0.0.1:1"),
             fragment="cannot reach 127.0.0.1", cause=cause),
    ]
    for rate in ("0", "-5", "nan", "inf"):
        out.append(Case(id=f"data get: --min-rate {rate}", args=(*closed, "--min-rate", rate),
                        fragment="--min-rate", cause="data get rate"))
    return out


# --- release checks: a file that ends mid-record says "truncated" ---------------------------------

def _wg_cut(name: str, chars: int) -> Make:
    def make(case_dir: Path, support: Path) -> None:
        import shutil

        from tests.robustness.support import FIX

        shutil.copytree(FIX / "winogender", case_dir / "winogender")
        path = case_dir / "winogender" / name
        path.write_text(path.read_text()[:-chars])
    return make


def release_check_cases() -> list[Case]:
    wg = ("winogender", "check", "{T}/winogender")
    cause = "truncated release"
    rows = [
        ("sentences cut mid-line", wg, _wg_cut("all_sentences.tsv", 30),
         "all_sentences.tsv ends mid-record (line 25 has no line end"),
        ("sentences cut mid-line, no disagreement", wg, _wg_cut("all_sentences.tsv", 30),
         "sentences disagreeing with their template or id: 0"),
        ("sentences cut mid-line, --json", (*wg, "--json"), _wg_cut("all_sentences.tsv", 30),
         '"truncated": [{"file": '),
        ("sentences cut one character short", wg, _wg_cut("all_sentences.tsv", 2),
         "ends mid-record (line 25"),
        ("templates cut mid-line", wg, _wg_cut("templates.tsv", 20),
         "templates.tsv ends mid-record"),
        ("statistics cut mid-line", wg, _wg_cut("occupations-stats.tsv", 3),
         "occupations-stats.tsv ends mid-record"),
    ]
    return [Case(id=f"winogender check: {i}", args=a, make=m, code=1,
                 fragment=f, cause=cause) for i, a, m, f in rows]


def boundary_cases() -> list[Case]:
    return [*plugin_model_cases(), *plugin_task_cases(), *plugin_release_cases(),
            *gguf_cases(), *lm_eval_type_cases(), *lm_eval_coverage_cases(), *store_cases(),
            *data_get_cases(), *release_check_cases()]

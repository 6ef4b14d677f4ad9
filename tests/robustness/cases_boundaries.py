"""Rows of the bad-input table for issue 42's boundaries: plugin code that raises, exits or
returns the wrong thing; damaged GGUF files, lm-eval samples and store rows; silent cases
(lm-eval imports that do not cover their data, truncated releases, an offline ``data get``).

A plugin's own failure is one ``error E600`` line naming the entry point, its distribution
and what it did, exit code 1; a broken plugin stops nothing else (rows that expect exit 0).
The waits (a slow mirror, a killed download) need a live socket: they are in
:mod:`tests.robustness.test_boundaries`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

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


def boundary_cases() -> list[Case]:
    return [*plugin_model_cases(), *plugin_task_cases(), *plugin_release_cases(),
            *gguf_cases()]

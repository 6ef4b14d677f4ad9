"""The bad-input table: one row per case (command, input made by the test, expected exit code
and message fragment), covering every command group and every cause of the robustness issue.

``{S}`` in an argument is the folder of valid support files, ``{T}`` the case's own folder
(also the working directory). File causes and output-path causes are crossed with every slot
where a command reads or writes a file; shape, number and option cases are listed by hand.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.robustness.harness import Case
from tests.robustness.support import broken_bz2, official_layout, truncated_gz, valid_bytes

Make = Callable[[Path, Path], None]
LEAD = "lead: kitmus validate"

# --- input slots: (id, args with {in}, input file name, valid support file, options) ---------
RUN = ("run", "--model", "first", "--no-store", "--quiet", "--out", "{T}/run", "--data")
INPUT_SLOTS: list[tuple[str, tuple[str, ...], str, str, set[str]]] = [
    ("evaluate-kitmus-gold-jsonl", ("evaluate", "--task", "kitmus", "--pred",
                                    "{S}/kitmus-answers.jsonl", "--gold", "{in}"),
     "gold.jsonl", "kitmus.jsonl", {"dir-ok"}),
    ("evaluate-kitmus-gold-conll", ("evaluate", "--task", "kitmus", "--pred",
                                    "{S}/kitmus-answers.jsonl", "--gold", "{in}"),
     "gold.v4_gold_conll", "kitmus.v4_gold_conll", {"dir-ok"}),
    ("evaluate-kitmus-gold-jsonlines", ("evaluate", "--task", "kitmus", "--pred",
                                        "{S}/kitmus-answers.jsonl", "--gold", "{in}"),
     "gold.jsonlines", "kitmus.jsonlines", {"dir-ok"}),
    ("evaluate-kitmus-gold-tsv", ("evaluate", "--task", "kitmus", "--pred",
                                  "{S}/kitmus-answers.jsonl", "--gold", "{in}"),
     "gold.tsv", "kitmus.tsv", {"dir-ok"}),
    ("evaluate-kitmus-pred", ("evaluate", "--task", "kitmus", "--gold", "{S}/kitmus.jsonl",
                              "--pred", "{in}"), "pred.jsonl", "kitmus-answers.jsonl", set()),
    ("evaluate-gap-gold", ("evaluate", "--task", "gap", "--pred", "{S}/gap-system.tsv",
                           "--gold", "{in}"), "gold.tsv", "gap.tsv", {"tsv"}),
    ("evaluate-gap-pred", ("evaluate", "--task", "gap", "--gold", "{S}/gap.tsv", "--pred",
                           "{in}"), "system.tsv", "gap-system.tsv", set()),
    ("evaluate-knowref-gold", ("evaluate", "--task", "knowref", "--pred",
                               "{S}/knowref-answers.jsonl", "--gold", "{in}"),
     "gold.json", "knowref.json", set()),
    ("evaluate-knowref-pred", ("evaluate", "--task", "knowref", "--gold", "{S}/knowref.json",
                               "--pred", "{in}"), "pred.jsonl", "knowref-answers.jsonl", set()),
    ("evaluate-tne-gold", ("evaluate", "--task", "tne", "--pred", "{S}/tne-pred.jsonl",
                           "--gold", "{in}"), "gold.jsonl", "tne.jsonl", set()),
    ("evaluate-tne-pred", ("evaluate", "--task", "tne", "--gold", "{S}/tne.jsonl", "--pred",
                           "{in}"), "pred.jsonl", "tne-pred.jsonl", set()),
    ("convert", ("convert", "{in}", "{T}/out.tsv"), "in.v4_gold_conll", "kitmus.v4_gold_conll",
     set()),
    ("report", ("report", "{in}"), "r.json", "result.json", {"run-folder"}),
    ("run-kitmus-jsonl", (*RUN, "{in}"), "data.jsonl", "kitmus.jsonl", {"dir-ok"}),
    ("run-kitmus-conll", (*RUN, "{in}"), "data.v4_gold_conll", "kitmus.v4_gold_conll", {"dir-ok"}),
    ("run-knowref-json", (*RUN, "{in}"), "data.json", "knowref.json", {"dir-ok"}),
    ("run-knowref-tsv", (*RUN, "{in}"), "data.tsv", "knowref.tsv", {"dir-ok"}),
    ("run-gap", (*RUN, "{in}"), "data.tsv", "gap.tsv", {"tsv", "dir-ok"}),
    ("run-winograd", (*RUN, "{in}"), "data.jsonl", "wsc.jsonl", {"dir-ok"}),
    ("export-lm-eval", ("export", "lm-eval", "--out", "{T}/x", "--data", "{in}"), "data.jsonl",
     "wsc.jsonl", {"dir-ok"}),
    ("run-altentities", (*RUN, "{in}"), "data.json", "alt.json", {"dir-ok"}),
    ("train", ("train", "--out", "{T}/model", "--max-steps", "1", "--data", "{in}"),
     "data.jsonl", "kitmus.jsonl", set()),
    ("altentities-check", ("altentities", "check", "{in}"), "dev.json", "alt.json", set()),
    ("altentities-sample-jsonl", ("altentities", "sample-pairs", "--method", "uniform", "--n",
                                  "2", "--out", "{T}/q.jsonl", "{in}"),
     "ents.jsonl", "entities.jsonl", set()),
    ("altentities-sample-json", ("altentities", "sample-pairs", "--method", "uniform", "--n",
                                 "2", "--out", "{T}/q.jsonl", "{in}"), "q.json", "alt.json",
     set()),
    ("altentities-matrix", ("altentities", "matrix", "{in}"), "metrics.json",
     "run-metrics.json", {"run-folder"}),
    ("knowref-check-json", ("knowref", "check", "{in}"), "k.json", "knowref.json", set()),
    ("knowref-check-tsv", ("knowref", "check", "{in}"), "k.tsv", "knowref.tsv", set()),
    ("knowref-switch-json", ("knowref", "switch", "--out", "{T}/s.json", "{in}"), "k.json",
     "knowref.json", set()),
    ("knowref-switch-tsv", ("knowref", "switch", "--out", "{T}/s.tsv", "{in}"), "k.tsv",
     "knowref.tsv", set()),
    ("knowref-augment", ("knowref", "augment", "--out", "{T}/a.tsv", "{in}"), "t.tsv",
     "knowref.tsv", set()),
    ("knowref-neutralize", ("knowref", "neutralize", "--out", "{T}/n.json", "{in}"), "k.json",
     "knowref.json", set()),
    ("knowref-mine", ("knowref", "mine", "--out", "{T}/c.jsonl", "{in}"), "corpus.txt",
     "corpus.txt", {"lenient-utf8"}),
    ("knowref-convert", ("knowref", "convert", "{in}", "{T}/o.tsv"), "k.json", "knowref.json",
     set()),
    ("tne-baseline", ("tne", "baseline", "title-first", "--out", "{T}/p.jsonl", "--data",
                      "{in}"), "d.jsonl", "tne.jsonl", set()),
    ("tne-convert-src", ("tne", "convert", "{in}", "{T}/b.jsonl", "--gold", "{S}/tne.jsonl"),
     "p.jsonl", "tne-pred.jsonl", {"predictions-folder"}),
    ("tne-convert-gold", ("tne", "convert", "{S}/tne-pred.jsonl", "{T}/b.jsonl", "--gold",
                          "{in}"), "g.jsonl", "tne.jsonl", set()),
    ("tne-chunk", ("tne", "chunk", "--file", "{in}"), "t.txt", "story.txt", set()),
    ("tne-stats", ("tne", "stats", "{in}"), "dev.jsonl", "tne.jsonl", set()),
    ("tne-train", ("tne", "train", "--out", "{T}/model", "--epochs", "1", "--data", "{in}"),
     "d.jsonl", "tne.jsonl", set()),
    ("tne-predict", ("tne", "predict", "--model", "{S}/no-model", "--out", "{T}/p.jsonl",
                     "--data", "{in}"), "d.jsonl", "tne.jsonl", set()),
]


def _write(name: str, data: bytes | str | None, *, mode: int | None = None) -> Make:
    def make(case_dir: Path, support: Path) -> None:
        p = case_dir / name
        if data is None:
            p.mkdir()
        else:
            p.write_bytes(data.encode() if isinstance(data, str) else data)
        if mode is not None:
            os.chmod(p, mode)
    return make


def _from_valid(name: str, valid: str, transform: Callable[[bytes], bytes],
                mode: int | None = None) -> Make:
    def make(case_dir: Path, support: Path) -> None:
        p = case_dir / name
        p.write_bytes(transform(valid_bytes(support, valid)))
        if mode is not None:
            os.chmod(p, mode)
    return make


def _huge_gap_cell(data: bytes) -> bytes:
    lines = data.decode().splitlines()
    cells = lines[1].split("\t")
    cells[-1] = '"' + ("a long quoted URL cell " * 9000) + '"'  # 200 KB, over csv's limit
    return ("\n".join([*lines, "\t".join([cells[0] + "x", *cells[1:]])]) + "\n").encode()


FILE_CAUSES: list[tuple[str, str, Callable[[str, str], tuple[str, Make | None]], str, int]] = [
    # (cause, fragment, (input name, valid file) -> (actual name, maker), slot option, code)
    ("missing file", "not found", lambda n, v: (n, None), "", 2),
    ("folder instead of a file", "is a folder", lambda n, v: (n, _write(n, None)), "", 2),
    ("not UTF-8", "not UTF-8", lambda n, v: (n, _write(n, b"\xff\xfe\xfa bad bytes\n")), "", 2),
    ("plain text named .gz", "named .gz but not gzip",
     lambda n, v: (n + ".gz", _from_valid(n + ".gz", v, lambda b: b)), "", 2),
    ("truncated .gz", "truncated",
     lambda n, v: (n + ".gz", _from_valid(n + ".gz", v, truncated_gz)), "", 2),
    ("broken .bz2", "Invalid data stream",
     lambda n, v: (n + ".bz2", _from_valid(n + ".bz2", v, broken_bz2)), "", 2),
    ("empty file", "", lambda n, v: (n, _write(n, b"")), "", 2),
    ("unreadable file", "read",  # "cannot read (permission denied)" or Click's "not readable"
     lambda n, v: (n, _from_valid(n, v, lambda b: b, mode=0)), "", 2),
    ("TSV cell over the csv field limit", "",
     lambda n, v: (n, _from_valid(n, v, _huge_gap_cell)), "tsv", 0),
]


def file_cases() -> list[Case]:
    out = []
    for slot, args, name, valid, options in INPUT_SLOTS:
        for cause, fragment_, build, needs, code_ in FILE_CAUSES:
            fragment, code = fragment_, code_
            if needs and needs not in options:
                continue
            actual, make = build(name, valid)
            if cause == "folder instead of a file" and "dir-ok" in options:
                # a gold folder is read as a suite; a folder to run on must be one a task runs on
                fragment = ("not a folder of data that refbench runs on whole"
                            if slot.startswith(("run-", "export-")) else "no gold files")
            elif cause == "folder instead of a file" and "run-folder" in options:
                fragment = "no metrics.json"  # a folder is read as a run folder
            elif cause == "folder instead of a file" and "predictions-folder" in options:
                fragment = "a folder without predictions.jsonl"  # read as a run folder
            elif cause == "not UTF-8" and "lenient-utf8" in options:
                code, fragment = 0, ""  # undecodable records are counted, by design
            elif cause == "broken .bz2":
                fragment = actual  # some readers reject the name, others the data
            out.append(Case(
                id=f"{slot}: {cause}",
                args=tuple(a.replace("{in}", "{T}/" + actual) for a in args),
                make=make, code=code, fragment=fragment or (actual if code else ""),
                cause=cause, needs_non_root=cause == "unreadable file"))
    return out


# --- output slots: (id, args with {out}, output name, kind, quick enough to succeed) --------
EVAL = ("evaluate", "--task", "kitmus", "--gold", "{S}/kitmus.jsonl", "--pred",
        "{S}/kitmus-answers.jsonl")
OUTPUT_SLOTS: list[tuple[str, tuple[str, ...], str, str, bool]] = [
    ("evaluate --out", (*EVAL, "--out", "{out}"), "r.json", "file", True),
    ("evaluate --plot", ("evaluate", "--task", "tne", "--gold", "{S}/tne.jsonl", "--pred",
                         "{S}/tne-pred.jsonl", "--plot", "{out}"), "cm.png", "file", True),
    ("report --out", ("report", "{S}/result.json", "--out", "{out}"), "t.md", "file", True),
    ("report --plot", ("report", "{S}/result.json", "--plot", "{out}"), "p.png", "file", True),
    ("convert", ("convert", "{S}/kitmus.v4_gold_conll", "{out}"), "o.jsonlines", "file", True),
    ("run --out", ("run", "--model", "first", "--no-store", "--quiet", "--data",
                   "{S}/kitmus.jsonl", "--out", "{out}"), "run", "dir", True),
    ("kitmus generate --out", ("kitmus", "generate", "--variants", "background-pretrain",
                               "--entities", "2", "--splits", "test", "--sizes", "3",
                               "--workers", "1", "--quiet", "--out", "{out}"),
     "suite", "dir", True),
    ("kitmus build-resources --out", ("kitmus", "build-resources", "--out", "{out}"),
     "res", "dir", False),
    ("altentities sample-pairs --out", ("altentities", "sample-pairs", "{S}/entities.jsonl",
                                        "--method", "uniform", "--n", "2", "--out", "{out}"),
     "q.jsonl", "file", True),
    ("knowref switch --out", ("knowref", "switch", "{S}/knowref.json", "--out", "{out}"),
     "s.json", "file", True),
    ("knowref augment --out", ("knowref", "augment", "{S}/knowref.tsv", "--out", "{out}"),
     "a.tsv", "file", True),
    ("knowref neutralize --out", ("knowref", "neutralize", "{S}/knowref.json", "--out",
                                  "{out}"), "n.json", "file", True),
    ("knowref convert", ("knowref", "convert", "{S}/knowref.json", "{out}"), "o.tsv", "file",
     True),
    ("knowref mine --out", ("knowref", "mine", "{S}/corpus.txt", "--out", "{out}"),
     "c.jsonl", "file", False),
    ("knowref mine --funnel", ("knowref", "mine", "{S}/corpus.txt", "--out", "{T}/c.jsonl",
                               "--funnel", "{out}"), "f.json", "file", False),
    ("tne baseline --out", ("tne", "baseline", "title-first", "--data", "{S}/tne.jsonl",
                            "--out", "{out}"), "run", "dir", True),
    ("tne baseline all --out", ("tne", "baseline", "all", "--data", "{S}/tne.jsonl", "--out",
                                "{out}"), "b", "dir", True),
    ("tne convert", ("tne", "convert", "{S}/tne-pred.jsonl", "{out}", "--gold",
                     "{S}/tne.jsonl"), "b.jsonl", "file", True),
    ("tne predict --out", ("tne", "predict", "--model", "{S}/no-model", "--data",
                           "{S}/tne.jsonl", "--out", "{out}"), "run", "dir", False),
    ("tne train --out", ("tne", "train", "--data", "{S}/tne.jsonl", "--epochs", "1", "--out",
                         "{out}"), "m", "dir", False),
    ("train --out", ("train", "--data", "{S}/kitmus.jsonl", "--max-steps", "1", "--out",
                     "{out}"), "m", "dir", False),
]


def _blocker(case_dir: Path, support: Path) -> None:
    (case_dir / "blocker").write_text("a file, not a folder\n")


def _read_only(case_dir: Path, support: Path) -> None:
    (case_dir / "ro").mkdir()
    os.chmod(case_dir / "ro", 0o555)


def output_cases() -> list[Case]:
    out = []
    for slot, args, name, kind, quick in OUTPUT_SLOTS:
        def case(cause: str, target: str, make: Make | None, fragment: str, code: int = 2,
                 slot: str = slot, args: tuple[str, ...] = args, **kw: Any) -> Case:
            return Case(id=f"{slot}: {cause}", args=tuple(a.replace("{out}", target)
                                                          for a in args),
                        make=make, code=code, fragment=fragment, cause=cause, **kw)
        if kind == "file":
            out.append(case("a folder where a file is expected", "{T}/" + name,
                            _write(name, None), "is a folder"))
        else:
            out.append(case("a file where a folder is expected", "{T}/" + name,
                            _write(name, b"x\n"), "not a folder"))
        out.append(case("parent is a file", "{T}/blocker/" + name, _blocker, "not a folder"))
        out.append(case("/proc path", "/proc/refbench-robustness/" + name, None,
                        "cannot write here"))
        out.append(case("read-only folder", "{T}/ro/" + name, _read_only, "permission denied",
                        needs_non_root=True))
        if quick:
            out.append(case("missing parent folders (created)", "{T}/new/deeper/" + name,
                            None, "", code=0))
    return out


# --- records with the wrong shape --------------------------------------------------------------

def _jsonl(name: str, valid: str, change: Callable[[list[Any]], None]) -> Make:
    """The valid JSONL file with its records changed."""
    def make(case_dir: Path, support: Path) -> None:
        recs = [json.loads(x) for x in valid_bytes(support, valid).decode().splitlines()
                if x.strip()]
        change(recs)
        (case_dir / name).write_text("".join(json.dumps(r) + "\n" for r in recs))
    return make


def _json(name: str, valid: str, change: Callable[[Any], Any]) -> Make:
    def make(case_dir: Path, support: Path) -> None:
        data = json.loads(valid_bytes(support, valid))
        new = change(data)
        (case_dir / name).write_text(json.dumps(data if new is None else new))
    return make


def _lines(name: str, valid: str, change: Callable[[list[str]], None]) -> Make:
    def make(case_dir: Path, support: Path) -> None:
        lines = valid_bytes(support, valid).decode().splitlines()
        change(lines)
        (case_dir / name).write_text("\n".join(lines) + "\n")
    return make


def _set(path: str, value: Any) -> Callable[[Any], None]:
    """Set ``path`` (keys and indices joined by '.') inside a record."""
    keys = [int(k) if k.lstrip("-").isdigit() else k for k in path.split(".")]

    def change(obj: Any) -> None:
        for k in keys[:-1]:
            obj = obj[k]
        if value is _DELETE:
            del obj[keys[-1]]
        else:
            obj[keys[-1]] = value
    return change


_DELETE = object()


def _first(change: Callable[[Any], None]) -> Callable[[list[Any]], None]:
    return lambda recs: change(recs[0])


def _cell(row: int, column: int, value: str) -> Callable[[list[str]], None]:
    def change(lines: list[str]) -> None:
        cells = lines[row].split("\t")
        cells[column] = value
        lines[row] = "\t".join(cells)
    return change


TNE_EVAL = ("evaluate", "--task", "tne", "--pred", "{S}/tne-pred.jsonl", "--gold", "{T}/g.jsonl")
TNE_PRED = ("evaluate", "--task", "tne", "--gold", "{S}/tne.jsonl", "--pred", "{T}/p.jsonl")
KIT_PRED = ("evaluate", "--task", "kitmus", "--gold", "{S}/kitmus.jsonl", "--pred",
            "{T}/p.jsonl")
KIT_GOLD = ("evaluate", "--task", "kitmus", "--pred", "{S}/kitmus-answers.jsonl", "--gold",
            "{T}/g.jsonl")
GAP_GOLD = ("evaluate", "--task", "gap", "--pred", "{S}/gap-system.tsv", "--gold", "{T}/g.tsv")
KR_GOLD = ("evaluate", "--task", "knowref", "--pred", "{S}/knowref-answers.jsonl", "--gold",
           "{T}/g.json")
KR_PRED = ("evaluate", "--task", "knowref", "--gold", "{S}/knowref.json", "--pred",
           "{T}/p.jsonl")
RUN_T = (*RUN, "{T}/d.tsv")


def shape_cases() -> list[Case]:
    c: list[Case] = []

    def add(id_: str, args: tuple[str, ...], make: Make | None, fragment: str, code: int = 2,
            cause: str = "record shape", **kw: Any) -> None:
        c.append(Case(id=id_, args=args, make=make, code=code, fragment=fragment, cause=cause,
                      **kw))

    g, v = "g.jsonl", "tne.jsonl"
    # TNE gold
    add("tne gold: a line that is not an object", TNE_EVAL,
        _write(g, "[1, 2]\n"), "expected a JSON object, found a list")
    add("tne gold: missing text", TNE_EVAL, _jsonl(g, v, _first(_set("text", _DELETE))),
        "missing field 'text'")
    add("tne gold: tokens not strings", TNE_EVAL, _jsonl(g, v, _first(_set("tokens", [1, 2]))),
        "field 'tokens[0]': expected a string")
    add("tne gold: nps a string", TNE_EVAL, _jsonl(g, v, _first(_set("nps", "np0"))),
        "field 'nps': expected a list")
    add("tne gold: NP offset not a number", TNE_EVAL,
        _jsonl(g, v, _first(_set("nps.0.first_token", "x"))), "nps[0].first_token")
    add("tne gold: NP offset a boolean", TNE_EVAL,
        _jsonl(g, v, _first(_set("nps.0.first_token", True))), "found a boolean")
    add("tne gold: negative NP offset", TNE_EVAL,
        _jsonl(g, v, _first(_set("nps.1.first_char", -3))), "expected an integer >= 0")
    add("tne gold: NP outside the document", TNE_EVAL,
        _jsonl(g, v, _first(_set("nps.1.last_token", 99))), "lies outside the document")
    add("tne gold: NP id twice", TNE_EVAL, _jsonl(g, v, _first(_set("nps.1.id", "np0"))),
        "occurs twice")
    add("tne gold: relation to an unknown NP", TNE_EVAL,
        _jsonl(g, v, _first(_set("np_relations.0.anchor", "np99"))), "is not an NP")
    add("tne gold: unknown preposition", TNE_EVAL,
        _jsonl(g, v, _first(_set("np_relations.0.preposition", "beside"))),
        "unknown preposition")
    add("tne gold: relation not an object", TNE_EVAL,
        _jsonl(g, v, _first(_set("np_relations.0", "np2->np3"))),
        "field 'np_relations[0]': expected a JSON object")
    add("tne gold: cluster members not a list", TNE_EVAL,
        _jsonl(g, v, _first(_set("coref.0.members", "np3"))), "coref[0].members")
    add("tne gold: metadata not an object", TNE_EVAL,
        _jsonl(g, v, _first(_set("metadata", [1]))), "field 'metadata'")
    add("tne gold: no labels (scored as zeros before)", TNE_EVAL,
        _jsonl(g, v, lambda rs: [r.pop("np_relations") for r in rs]),
        "unlabelled data cannot be scored", cause="silent wrong result")
    add("tne gold: empty, --json (NaN before)", (*TNE_EVAL, "--json"), _write(g, ""),
        "no TNE documents", cause="silent wrong result")
    # TNE predictions
    p, v = "p.jsonl", "tne-pred.jsonl"
    add("tne pred: unknown document", TNE_PRED, _jsonl(p, v, _first(_set("id", "zz"))),
        "prediction for unknown document")
    add("tne pred: a document twice", TNE_PRED, _jsonl(p, v, lambda rs: rs.append(rs[0])),
        "second prediction")
    add("tne pred: matrix of the wrong size", TNE_PRED,
        _jsonl(p, v, _first(_set("predicted_prepositions", [[0]]))), "expected a list of 6")
    add("tne pred: preposition id out of range", TNE_PRED,
        _jsonl(p, v, _first(_set("predicted_prepositions", [[99] * 6] * 6))),
        "expected an integer from 0 to 24")
    add("tne pred: preposition id a boolean", TNE_PRED,
        _jsonl(p, v, _first(_set("predicted_prepositions", [[True] * 6] * 6))),
        "found a boolean")
    add("tne pred: unknown preposition", TNE_PRED,
        _jsonl(p, v, _first(_set("np_relations.0.preposition", "beside"))),
        "unknown preposition")
    add("tne pred: relations not a list", TNE_PRED,
        _jsonl(p, v, _first(_set("np_relations", {"a": 1}))), "field 'np_relations'")
    add("tne pred: non-numeric score", TNE_PRED,
        _jsonl(p, v, _first(_set("preposition_scores", {"np2|np3": {"of": "high"}}))),
        "expected a finite number")
    add("tne pred: score for an unknown preposition", TNE_PRED,
        _jsonl(p, v, _first(_set("preposition_scores", {"np2|np3": {"beside": 0.5}}))),
        "unknown preposition")
    add("tne pred: predictions for another task", TNE_PRED,
        lambda d, s: (d / p).write_bytes(valid_bytes(s, "kitmus-answers.jsonl")),
        "prediction for unknown document", cause="silent wrong result")
    # KITMUS answers
    p, v = "p.jsonl", "kitmus-answers.jsonl"
    add("kitmus answers: answer a boolean", KIT_PRED, _jsonl(p, v, _first(_set("answer", True))),
        "found a boolean", cause="silent wrong result")
    add("kitmus answers: negative answer", KIT_PRED, _jsonl(p, v, _first(_set("answer", -1))),
        "candidate index")
    add("kitmus answers: answer out of range", KIT_PRED,
        _jsonl(p, v, _first(_set("answer", 7))), "is not a candidate index")
    add("kitmus answers: answer names no candidate", KIT_PRED,
        _jsonl(p, v, _first(_set("answer", "Nobody"))), "names no candidate")
    add("kitmus answers: non-numeric scores", KIT_PRED,
        _jsonl(p, v, _first(_set("scores", ["a", "b"]))), "field 'scores[0]'")
    add("kitmus answers: NaN score", KIT_PRED,
        _lines(p, v, lambda ls: ls.__setitem__(0, ls[0][:-1] + ', "scores": [NaN, 1]}')),
        "expected a finite number")
    add("kitmus answers: no id", KIT_PRED, _jsonl(p, v, _first(_set("id", _DELETE))),
        "missing field 'id'")
    add("kitmus answers: an id twice", KIT_PRED, _jsonl(p, v, lambda rs: rs.append(rs[0])),
        "a second answer")
    add("kitmus answers: predictions for another task", KIT_PRED,
        lambda d, s: (d / p).write_bytes(valid_bytes(s, "knowref-answers.jsonl")),
        "none of the", cause="silent wrong result")
    add("kitmus answers: empty file", KIT_PRED, _write(p, ""), "holds no predictions",
        cause="silent wrong result")
    # KITMUS native gold
    g, v = "g.jsonl", "kitmus.jsonl"
    add("kitmus native: answer a boolean", KIT_GOLD, _jsonl(g, v, _first(_set("answer", True))),
        "found a boolean", cause="silent wrong result")
    add("kitmus native: answer not an entity", KIT_GOLD, _jsonl(g, v, _first(_set("answer", 5))),
        "field 'answer'")
    add("kitmus native: meet_order not a permutation", KIT_GOLD,
        _jsonl(g, v, _first(_set("meet_order", [0, 0]))), "meet_order")
    add("kitmus native: mention outside the tokens", KIT_GOLD,
        _jsonl(g, v, _first(_set("pronoun.mention.start", 99))), "lies outside the tokens")
    add("kitmus native: tokens and tags of different lengths", KIT_GOLD,
        _jsonl(g, v, _first(_set("sentences.0.pos", ["NN"]))), "equally long")
    add("kitmus native: templates not an object", KIT_GOLD,
        _jsonl(g, v, _first(_set("templates", [1]))), "field 'templates'")
    add("kitmus native: sentences not a list", KIT_GOLD,
        _jsonl(g, v, _first(_set("sentences", "text"))), "field 'sentences'")
    add("kitmus native: entity names a number", KIT_GOLD,
        _jsonl(g, v, _first(_set("entities.0.name", 7))), "entities[0].name")
    add("kitmus gold: empty, --json (NaN before)", (*KIT_GOLD, "--json"), _write(g, ""),
        "no instances", cause="silent wrong result")
    # GAP gold
    g, v = "g.tsv", "gap.tsv"
    add("gap gold: negative offset (aliased before)", GAP_GOLD, _lines(g, v, _cell(1, 3, "-25")),
        "non-negative integer", cause="silent wrong result")
    add("gap gold: offset not a number", GAP_GOLD, _lines(g, v, _cell(1, 5, "abc")),
        "non-negative integer")
    add("gap gold: offset beyond the text", GAP_GOLD, _lines(g, v, _cell(1, 5, "900")),
        "does not point at")
    add("gap gold: label not TRUE/FALSE", GAP_GOLD, _lines(g, v, _cell(1, 6, "maybe")),
        "must be TRUE or FALSE")
    add("gap gold: a row with too few cells", GAP_GOLD,
        _lines(g, v, lambda ls: ls.__setitem__(1, "dev-1\tText")), "tab-separated columns")
    add("gap gold: header lacks a column", GAP_GOLD,
        _lines(g, v, lambda ls: ls.__setitem__(0, ls[0].replace("A-coref", "Acoref"))),
        "header lacks")
    add("gap gold: badly quoted cell", GAP_GOLD, _lines(g, v, _cell(1, 10, '"http"x')),
        "badly quoted cell")
    add("gap gold: empty, --json (NaN before)", (*GAP_GOLD, "--json"),
        _lines(g, v, lambda ls: ls.__delitem__(slice(1, None))), "no gold annotations",
        cause="silent wrong result")
    add("gap system: ids of another data set", ("evaluate", "--task", "gap", "--gold",
                                                "{S}/gap.tsv", "--pred", "{T}/s.tsv"),
        _write("s.tsv", "other-1\tTRUE\tFALSE\n"), "none of the", cause="silent wrong result")
    # KnowRef JSON gold and answers
    g, v = "g.json", "knowref.json"
    add("knowref gold: no [pronoun]", KR_GOLD,
        _json(g, v, _set("0.sentence_with_pronoun", "Nobody is here .")), "no [pronoun]")
    add("knowref gold: candidate a number", KR_GOLD, _json(g, v, _set("0.candidate0", 5)),
        "field 'candidate0'")
    add("knowref gold: correct_candidate_idx 2", KR_GOLD,
        _json(g, v, lambda d: d[0].update(correct_candidate_idx=2, correct_candidate=None)),
        "expected 0 or 1")
    add("knowref gold: correct_candidate_idx a boolean", KR_GOLD,
        _json(g, v, lambda d: d[0].update(correct_candidate_idx=True, correct_candidate=None)),
        "expected 0 or 1", cause="silent wrong result")
    add("knowref gold: correct_candidate names neither", KR_GOLD,
        _json(g, v, _set("0.correct_candidate", ["Nobody"])), "is neither candidate0")
    add("knowref gold: an object, not a list", KR_GOLD, _json(g, v, lambda d: {"data": d}),
        "expected a JSON list")
    add("knowref gold: empty list, --json (NaN before)", (*KR_GOLD, "--json"),
        _write(g, "[]"), "no instances", cause="silent wrong result")
    p, v = "p.jsonl", "knowref-answers.jsonl"
    add("knowref answers: answer a boolean", KR_PRED, _jsonl(p, v, _first(_set("answer", True))),
        "found a boolean", cause="silent wrong result")
    add("knowref answers: answer 2", KR_PRED, _jsonl(p, v, _first(_set("answer", 2))),
        "not a candidate index")
    add("knowref answers: predictions for another task", KR_PRED,
        lambda d, s: (d / p).write_bytes(valid_bytes(s, "kitmus-answers.jsonl")),
        "none of the", cause="silent wrong result")
    # KnowRef TSV
    t, v = "d.tsv", "knowref.tsv"
    add("knowref tsv: label 2", RUN_T, _lines(t, v, _cell(1, 3, "2")), "a pair needs labels")
    add("knowref tsv: odd number of rows", RUN_T, _lines(t, v, lambda ls: ls.pop()),
        "no partner")
    add("knowref tsv: pair rows with different indices", RUN_T, _lines(t, v, _cell(2, 0, "9")),
        "same index")
    add("knowref tsv: pair rows with different candidates", RUN_T,
        _lines(t, v, _cell(2, 5, "Zed")), "same two non-empty candidates")
    add("knowref check tsv: label 2", ("knowref", "check", "{T}/k.tsv"),
        _lines("k.tsv", v, _cell(1, 3, "2")), "a pair needs labels")
    # knowref switch / augment / neutralize / convert
    add("knowref switch: no [pronoun] (switched before)", ("knowref", "switch", "{T}/k.json",
                                                           "--out", "{T}/s.json"),
        _json("k.json", "knowref.json", _set("0.sentence_with_pronoun", "Nobody is here .")),
        "no [pronoun]", cause="silent wrong result")
    add("knowref switch: TSV label 2 (kept before)", ("knowref", "switch", "{T}/k.tsv", "--out",
                                                      "{T}/s.tsv"),
        _lines("k.tsv", "knowref.tsv", _cell(1, 3, "2")), "a pair needs labels",
        cause="silent wrong result")
    add("knowref switch: JSON written to a .tsv path", ("knowref", "switch", "{S}/knowref.json",
                                                        "--out", "{T}/s.tsv"), None,
        "must be a .json file", cause="silent wrong result")
    add("knowref augment: TSV written to a .json path", ("knowref", "augment",
                                                         "{S}/knowref.tsv", "--out",
                                                         "{T}/a.json"), None,
        "must be a .tsv file", cause="silent wrong result")
    add("knowref neutralize: JSON written to a .jsonl path", ("knowref", "neutralize",
                                                              "{S}/knowref.json", "--out",
                                                              "{T}/n.jsonl"), None,
        "must be a .json file")
    add("knowref neutralize: a record without candidates", ("knowref", "neutralize",
                                                            "{T}/k.json", "--out",
                                                            "{T}/n.json"),
        _json("k.json", "knowref.json", _set("0.candidate1", _DELETE)),
        "missing field 'candidate1'")
    add("knowref convert: output neither .json nor .tsv", ("knowref", "convert",
                                                           "{S}/knowref.json", "{T}/o.txt"),
        None, "must end in .json or .tsv")
    # AltEntities
    q, v = "q.json", "alt.json"
    check = ("altentities", "check", "{T}/q.json")
    add("altentities check: target_index 5 (accepted before)", check,
        _json(q, v, _set("0.target_index", 5)), "expected an integer from 0 to 1",
        cause="silent wrong result")
    add("altentities check: a KnowRef file (accepted before)", check,
        lambda d, s: (d / q).write_bytes(valid_bytes(s, "knowref.json")),
        "missing field 'domain'", cause="silent wrong result")
    add("altentities check: three choices", check,
        _json(q, v, lambda d: d[0]["choices"].append(d[0]["choices"][0])),
        "exactly two choices")
    add("altentities check: an empty expression", check, _json(q, v, _set("0.expressions", [""])),
        "non-empty strings")
    add("altentities check: infobox a number", check,
        _json(q, v, _set("0.choices.0.infobox", 3)), "choices[0].infobox")
    add("altentities run: target_index a boolean", (*RUN, "{T}/q.json"),
        _json(q, v, _set("0.target_index", True)), "found a boolean",
        cause="silent wrong result")
    sample = ("altentities", "sample-pairs", "{T}/e.jsonl", "--method", "uniform", "--n", "2")
    add("altentities sample-pairs: entity without a name", sample,
        _jsonl("e.jsonl", "entities.jsonl", _first(_set("name", _DELETE))),
        "missing field 'name'")
    add("altentities sample-pairs: infobox a number", sample,
        _jsonl("e.jsonl", "entities.jsonl", _first(_set("infobox", 3))), "field 'infobox'")
    add("altentities sample-pairs: unknown method", ("altentities", "sample-pairs",
                                                     "{S}/entities.jsonl", "--method", "near"),
        None, "unknown method", cause="usage")
    add("altentities matrix: a folder without metrics.json", ("altentities", "matrix", "{T}/r"),
        _write("r", None), "no metrics.json")
    add("altentities matrix: metrics not an object", ("altentities", "matrix", "{T}/m.json"),
        _write("m.json", "[1]"), "expected a JSON")
    # Winograd
    v = "wsc.jsonl"
    add("winograd: two blanks", (*RUN, "{T}/d.jsonl"),
        _jsonl("d.jsonl", v, _first(_set("sentence", "_ and _"))), "exactly one '_'")
    for id_, change, frag in [
            ("answer 3", _set("answer", "3"), "expected 1 or 2"),
            ("answer a boolean", _set("answer", True), "expected 1 or 2"),
            ("no option1", _set("option1", _DELETE), "missing field 'option1'")]:
        add(f"winograd: {id_}", (*RUN, "{T}/d.jsonl", "--task", "winograd"),
            _jsonl("d.jsonl", v, _first(change)), frag)
    # Winogender: a sentences file alone (no templates.tsv beside it)
    wg = (*RUN, "{T}/all_sentences.tsv")
    for id_, row, frag in [
            ("an id without a gender", "technician.customer.1.txt\tThe technician told the "
             "customer that he could pay.", "occupation.participant.answer.gender.txt"),
            ("no pronoun of the id's gender", "technician.customer.1.female.txt\tThe "
             "technician told the customer that he could pay.", "one female pronoun"),
            ("a candidate not in the sentence", "technician.customer.1.male.txt\tThe plumber "
             "told the customer that he could pay.", "does not occur")]:
        add(f"winogender: {id_}", wg, _write("all_sentences.tsv", f"sentid\tsentence\n{row}\n"),
            frag)
    # WinoBias: one sentence file with its two occupation lists beside it
    def _winobias(line: str) -> Make:
        def make(case_dir: Path, support: Path) -> None:
            (case_dir / "male_occupations.txt").write_text("janitor\nchief\n")
            (case_dir / "female_occupations.txt").write_text("accountant\nassistant\n")
            (case_dir / "pro_stereotyped_type1.txt.test").write_text(line + "\n")
        return make

    wb = (*RUN, "{T}/pro_stereotyped_type1.txt.test")
    for id_, line, frag in [
            ("no sentence number", "The janitor scolded [the accountant] because [she] erred.",
             "expected a sentence number"),
            ("no bracketed antecedent", "1 The janitor scolded the accountant because [she] "
             "erred.", "bracketed occupation"),
            ("one occupation", "1 [The janitor] sighed because [he] erred.",
             "expected two occupations"),
            ("nested brackets", "1 The janitor scolded [the [accountant]] because [she] erred.",
             "nested square brackets")]:
        add(f"winobias: {id_}", wb, _winobias(line), frag)
    # Report inputs
    r, v = "r.json", "result.json"
    rep = ("report", "{T}/r.json")
    add("report: a list, not a result", rep, _write(r, "[1]"), "expected a JSON result object")
    add("report: no task", rep, _json(r, v, _set("task", _DELETE)), "no 'task' field")
    add("report: figure not a number", rep, _json(r, v, _set("pronoun_accuracy", "high")),
        "field 'pronoun_accuracy'")
    add("report: entities not a number", rep, _json(r, v, _set("n_entities", "two")),
        "field 'n_entities'")
    add("report: suite cells not a list", rep,
        _json(r, v, lambda d: d.update(mode="suite", cells="none")), "field 'cells'")
    add("report: --metric names no figure", (*rep, "--metric", "accuracy"),
        lambda d, s: (d / r).write_bytes(valid_bytes(s, v)), "accuracy")
    # CoNLL and e2e jsonlines
    conv = ("convert", "{T}/in.v4_gold_conll", "{T}/out.jsonlines")
    add("conll: unbalanced brackets", conv,
        _lines("in.v4_gold_conll", "kitmus.v4_gold_conll",
               lambda ls: ls.__setitem__(1, ls[1].rsplit(" ", 1)[0] + " (9")),
        "unbalanced")
    add("conll: token line outside a document", conv,
        _lines("in.v4_gold_conll", "kitmus.v4_gold_conll", lambda ls: ls.insert(0, "a b c")),
        "outside a document")
    add("conll: malformed #begin", conv,
        _lines("in.v4_gold_conll", "kitmus.v4_gold_conll",
               lambda ls: ls.__setitem__(0, "#begin document x")), "#begin document")
    jl = ("evaluate", "--task", "kitmus", "--pred", "{S}/kitmus-answers.jsonl", "--gold",
          "{T}/g.jsonlines")
    add("jsonlines gold: span with a boolean", jl,
        _jsonl("g.jsonlines", "kitmus.jsonlines", _first(_set("clusters.0.0", [True, 1]))),
        "found a boolean")
    add("jsonlines gold: tokens not strings", jl,
        _jsonl("g.jsonlines", "kitmus.jsonlines", _first(_set("sentences.0", [1]))),
        "sentences[0][0]")
    # KITMUS validate (the lead's checks; rows kept here so the table covers them)
    add("kitmus validate: a missing folder", ("kitmus", "validate", "{T}/nothing"), None,
        "nothing")
    add("kitmus validate: a file, not a folder", ("kitmus", "validate", "{T}/f"),
        _write("f", "x\n"), "f")
    add("kitmus difficulty: a missing folder", ("kitmus", "difficulty", "{T}/nothing"), None,
        "nothing")
    add("kitmus difficulty: a file, not a folder", ("kitmus", "difficulty", "{T}/f"),
        _write("f", "x\n"), "f")
    add("kitmus pool-difficulty: resources not UTF-8", ("kitmus", "pool-difficulty",
                                                        "--resources", "{T}/res"),
        lambda d, s: _copy_resources(d, s, "names.txt", b"\xff\xfe\n"), "not UTF-8")
    # KITMUS resources (refbench layout)
    gen = ("kitmus", "generate", "--out", "{T}/suite", "--sizes", "2", "--splits", "test",
           "--variants", "background-pretrain", "--entities", "2", "--workers", "1", "--quiet",
           "--resources", "{T}/res")
    add("resources: names.txt not UTF-8", gen,
        lambda d, s: _copy_resources(d, s, "names.txt", b"\xff\xfe\n"), "not UTF-8")
    add("resources: templates.json invalid", gen,
        lambda d, s: _copy_resources(d, s, "templates.json", b"{"), "invalid JSON")
    add("resources: noise kind outside the folder", gen,
        lambda d, s: _copy_resources(d, s, "locations.tsv",
                                     b"kind\tlocation\n../../../etc/passwd\tthe/DT park/NN\n"),
        "outside the resource folder", cause="security")
    add("resources: a folder that does not exist", (*gen[:-1], "{T}/none"), None, "not found")
    add("official resources: noise path outside the folder", gen,
        lambda d, s: official_layout(d / "res", "../../../../../../../etc/passwd") and None,
        "lies outside the resource folder", cause="security")
    return c


def _copy_resources(case_dir: Path, support: Path, name: str, data: bytes) -> None:
    import shutil

    shutil.copytree(support / "resources", case_dir / "res")
    (case_dir / "res" / name).write_bytes(data)


def number_cases() -> list[Case]:
    rows = [
        ("run --limit -1", (*RUN, "{S}/kitmus.jsonl", "--limit", "-1"), "--limit"),
        ("run --max-words -3", (*RUN, "{S}/alt.json", "--max-words", "-3"), "--max-words"),
        ("run --max-words 0", (*RUN, "{S}/alt.json", "--max-words", "0"), "--max-words"),
        ("evaluate --bootstrap -5", (*EVAL, "--bootstrap", "-5"), "--bootstrap"),
        ("altentities sample-pairs --n -5", ("altentities", "sample-pairs",
                                             "{S}/entities.jsonl", "--method", "uniform",
                                             "--n", "-5"), "--n"),
        ("kitmus generate --workers -2", ("kitmus", "generate", "--out", "{T}/s", "--workers",
                                          "-2"), "--workers"),
        ("kitmus generate --sizes test=-5", ("kitmus", "generate", "--out", "{T}/s",
                                             "--sizes", "test=-5"), "sizes must be >= 0"),
        ("kitmus generate --entities 1", ("kitmus", "generate", "--out", "{T}/s", "--entities",
                                          "1"), "at least 2 entities"),
        ("kitmus validate --max-shown -1", ("kitmus", "validate", "{S}/suite", "--max-shown",
                                            "-1"), "--max-shown"),
        ("train --epochs -1", ("train", "--data", "{S}/kitmus.jsonl", "--out", "{T}/m",
                               "--epochs", "-1"), "--epochs"),
        ("train --batch-size 0", ("train", "--data", "{S}/kitmus.jsonl", "--out", "{T}/m",
                                  "--batch-size", "0"), "--batch-size"),
        ("train --lr -1", ("train", "--data", "{S}/kitmus.jsonl", "--out", "{T}/m", "--lr",
                           "-1"), "--lr"),
        ("train --max-length 0", ("train", "--data", "{S}/kitmus.jsonl", "--out", "{T}/m",
                                  "--max-length", "0"), "--max-length"),
        ("train --head triple", ("train", "--data", "{S}/kitmus.jsonl", "--out", "{T}/m",
                                 "--head", "triple"), "--head"),
        ("tne train --epochs 0", ("tne", "train", "--data", "{S}/tne.jsonl", "--out", "{T}/m",
                                  "--epochs", "0"), "--epochs"),
        ("results ls --limit -1", ("results", "ls", "--store", "{T}/s.sqlite", "--limit", "-1"),
         "--limit"),
        ("knowref mine --workers 0", ("knowref", "mine", "{S}/corpus.txt", "--out",
                                      "{T}/c.jsonl", "--workers", "0"), "--workers"),
        ("knowref mine --chunk-size 0", ("knowref", "mine", "{S}/corpus.txt", "--out",
                                         "{T}/c.jsonl", "--chunk-size", "0"), "--chunk-size"),
        ("tne convert --to nonsense", ("tne", "convert", "{S}/tne-pred.jsonl", "{T}/b.jsonl",
                                       "--gold", "{S}/tne.jsonl", "--to", "x"), "--to"),
        ("evaluate --seed abc", (*EVAL, "--seed", "abc"), "--seed"),
        ("evaluate --seed -1", (*EVAL, "--seed", "-1"), "--seed"),
        ("kitmus pool-difficulty --split-seed -3", ("kitmus", "pool-difficulty",
                                                    "--split-seed", "-3"), "--split-seed"),
        ("train --seed 2**64", ("train", "--data", "{S}/kitmus.jsonl", "--out", "{T}/m",
                                "--seed", str(2**64)), "--seed"),
        ("report --runs a,b", ("report", "--from-store", "--store", "{T}/s.sqlite", "--runs",
                               "a,b"), "--runs expects comma-separated integers"),
        ("ls unknown registry", ("ls", "nothing"), "unknown registry"),
        ("an unknown command", ("frobnicate",), "No such command"),
        ("an unknown option", ("run", "--modle", "first"), "No such option"),
    ]
    return [Case(id=i, args=a, code=2, fragment=f, cause="negative or invalid number"
                 if "-" in i.split()[-1] or i.split()[-1] == "0" else "usage")
            for i, a, f in rows]


def model_arg_cases() -> list[Case]:
    base = (*RUN, "{S}/kitmus.jsonl")
    rows = [
        ("random seed=abc", "random", ("seed=abc",), "seed='abc' is not an integer"),
        ("random seed=1.5", "random", ("seed=1.5",), "is not an integer"),
        ("embedding max_length=-5", "embedding", ("max_length=-5",), "an integer >= 1"),
        ("llm-chat concurrency=0", "llm-chat:m", ("concurrency=0",), "concurrency='0'"),
        ("llm-chat timeout=nan", "llm-chat:m", ("timeout=nan",), "is not a number"),
        ("random unknown key", "random", ("colour=red",), "has no option 'colour'"),
        ("knowledge-match unknown key", "knowledge-match", ("depth=3",), "its options: none"),
        ("cross-encoder head=triple", "cross-encoder", ("head=triple",), "one of joint, binary"),
        ("no '=' in --model-arg", "random", ("seed",), "expects key=value"),
        ("unknown model", "nonsense", (), "unknown model"),
    ]
    out = []
    for id_, model, margs, frag in rows:
        args = [a if a != "first" else model for a in base]
        for m in margs:
            args += ["--model-arg", m]
        out.append(Case(id=f"--model-arg: {id_}", args=tuple(args), code=2, fragment=frag,
                        cause="model option"))
    return out


# --- the last silent failures (issue 23) ------------------------------------------------------

def _copy(name: str, valid: str) -> Make:
    return lambda d, s: (d / name).write_bytes(valid_bytes(s, valid))


def _damaged_store(case_dir: Path, support: Path) -> None:
    """A store whose header is intact while a page of its runs table is not (PRAGMA
    integrity_check fails; listing it crashed before)."""
    import sqlite3

    path = case_dir / "s.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE runs (run_id INTEGER PRIMARY KEY AUTOINCREMENT, created TEXT "
                   "NOT NULL, model TEXT NOT NULL, model_fingerprint TEXT NOT NULL, task TEXT NOT "
                   "NULL, data TEXT NOT NULL, data_sha256 TEXT, n INTEGER NOT NULL, accuracy "
                   "REAL, metrics TEXT NOT NULL, out_dir TEXT, split TEXT, system TEXT)")
        db.execute("CREATE TABLE run_tags (run_id INTEGER NOT NULL, tag TEXT NOT NULL, "
                   "PRIMARY KEY (run_id, tag))")
        db.execute("CREATE TABLE predictions (model_fingerprint TEXT NOT NULL, instance_hash "
                   "TEXT NOT NULL, output TEXT NOT NULL, PRIMARY KEY (model_fingerprint, "
                   "instance_hash))")
        for i in range(5):
            db.execute("INSERT INTO runs (created, model, model_fingerprint, task, data, n, "
                       "accuracy, metrics, out_dir) VALUES (?, 'first', 'fp', 'gap', 'd.tsv', "
                       "3, 0.5, '{\"accuracy\": 0.5}', ?)", (f"2026-01-0{i + 1}", f"o{i}"))
        db.execute("PRAGMA application_id = 1382433329")
        db.execute("PRAGMA user_version = 2")
    data = bytearray(path.read_bytes())
    page = 4096
    cells = data[page:2 * page]  # the runs table's page: break its cell pointers
    data[page + 8:page + 18] = b"\x9c" * 10
    assert cells != data[page:2 * page]
    path.write_bytes(bytes(data))


def _suite_missing_one(case_dir: Path, support: Path) -> None:
    """Answers for one subtask of the support suite only (the other subtasks have none)."""
    sub = support / "suite" / "background-pretrain" / "subtask_2_ents"
    ids = [json.loads(x)["id"] for x in (sub / "test.jsonl").read_text().splitlines()
           if x.strip()]
    out = case_dir / "preds" / "background-pretrain" / "subtask_2_ents" / "test"
    out.mkdir(parents=True)
    (out / "predictions.jsonl").write_text("".join(json.dumps({"id": i, "answer": 0}) + "\n"
                                                   for i in ids))


def silent_cases() -> list[Case]:
    """Outputs that are inputs, damaged stores, partial suite folders and the rest of the
    issue's list: each was exit 0 (or a traceback) with a wrong or missing result before."""
    c: list[Case] = []

    def add(id_: str, args: tuple[str, ...], make: Make | None, fragment: str, code: int = 2,
            cause: str = "silent wrong result") -> None:
        c.append(Case(id=id_, args=args, make=make, code=code, fragment=fragment, cause=cause))

    same = "is also an input of this command"
    kit = ("evaluate", "--task", "kitmus", "--gold", "{T}/g.jsonl", "--pred", "{T}/p.jsonl")
    both: Make = lambda d, s: (_copy("g.jsonl", "kitmus.jsonl")(d, s),  # noqa: E731
                               _copy("p.jsonl", "kitmus-answers.jsonl")(d, s))
    add("output is an input: evaluate --out the --gold file", (*kit, "--out", "{T}/g.jsonl"),
        both, same + " (--gold)", cause="output is an input")
    add("output is an input: evaluate --out the --pred file", (*kit, "--out", "{T}/p.jsonl"),
        both, same + " (--pred)", cause="output is an input")
    add("output is an input: evaluate --out before --pred, spelled ./", (
        "evaluate", "--task", "kitmus", "--out", "./p.jsonl", "--gold", "{T}/g.jsonl",
        "--pred", "{T}/p.jsonl"), both, same, cause="output is an input")
    add("output is an input: evaluate --out and --plot the same file", (
        "evaluate", "--task", "tne", "--gold", "{S}/tne.jsonl", "--pred", "{S}/tne-pred.jsonl",
        "--out", "{T}/r.png", "--plot", "{T}/r.png"), None, "another output of this command",
        cause="output is an input")
    add("output is an input: convert onto its source", (
        "convert", "{T}/in.v4_gold_conll", "{T}/in.v4_gold_conll"),
        _copy("in.v4_gold_conll", "kitmus.v4_gold_conll"), same + " (SRC)",
        cause="output is an input")
    add("output is an input: knowref switch --out the input", (
        "knowref", "switch", "{T}/k.json", "--out", "{T}/k.json"), _copy("k.json", "knowref.json"),
        same, cause="output is an input")
    add("output is an input: tne convert onto --gold", (
        "tne", "convert", "{S}/tne-pred.jsonl", "{T}/g.jsonl", "--gold", "{T}/g.jsonl"),
        _copy("g.jsonl", "tne.jsonl"), same + " (--gold)", cause="output is an input")
    add("output is an input: report --out the result", (
        "report", "{T}/r.json", "--out", "{T}/r.json"), _copy("r.json", "result.json"), same,
        cause="output is an input")
    add("output is an input: run --out the folder holding --data", (
        "run", "--model", "first", "--no-store", "--quiet", "--data", "{T}/run/d.jsonl", "--out",
        "{T}/run"), lambda d, s: ((d / "run").mkdir(), _copy("run/d.jsonl", "kitmus.jsonl")(d, s)),
        "holds an input of this command", cause="output is an input")
    add("output is an input: tne baseline --out the folder holding --data", (
        "tne", "baseline", "title-first", "--data", "{T}/b/d.jsonl", "--out", "{T}/b"),
        lambda d, s: ((d / "b").mkdir(), _copy("b/d.jsonl", "tne.jsonl")(d, s)),
        "holds an input of this command", cause="output is an input")
    add("output is an input: tne train --out the folder holding --data", (
        "tne", "train", "--epochs", "1", "--data", "{T}/m/d.jsonl", "--out", "{T}/m"),
        lambda d, s: ((d / "m").mkdir(), _copy("m/d.jsonl", "tne.jsonl")(d, s)),
        "holds an input of this command", cause="output is an input")
    # A damaged store (header intact): every command says so and none writes to it.
    for cmd in (("results", "ls"), ("results", "show", "1"), ("results", "tag", "1", "--tag",
                                                               "x"),
                ("report", "--from-store"), ("altentities", "matrix", "--from-store"),
                ("run", "--model", "first", "--quiet", "--data", "{S}/wsc.jsonl", "--out",
                 "{T}/o")):
        add(f"damaged store: {' '.join(x for x in cmd if '{' not in x)}",
            (*cmd, "--store", "{T}/s.sqlite"), _damaged_store, "the results store is damaged",
            cause="damaged store")
    suite = ("evaluate", "--task", "kitmus", "--gold", "{S}/suite", "--pred", "{T}/preds",
             "--bootstrap", "0")
    add("suite folder missing subtasks' predictions", suite, _suite_missing_one,
        "subtask_3_ents/test/predictions.jsonl")
    add("suite folder missing subtasks' predictions, --allow-missing", (*suite,
                                                                        "--allow-missing"),
        _suite_missing_one, "no predictions for", code=0)
    add("llm-chat cache under /proc", (*RUN, "{S}/kitmus.jsonl", "--model", "llm-chat:m",
                                       "--model-arg", "cache=/proc/x/c.sqlite"), None,
        "/proc/x/c.sqlite", cause="model option")
    add("altentities sample-pairs --attributes nobody has", (
        "altentities", "sample-pairs", "{S}/entities.jsonl", "--method", "similar-infobox",
        "--attributes", "nosuch", "--out", "{T}/q.jsonl"), None, "no entity's infobox has nosuch")
    add("altentities sample-pairs: no pair fits the method", (
        "altentities", "sample-pairs", "{S}/entities.jsonl", "--method", "same-name", "--out",
        "{T}/q.jsonl"), None, "no pair of the 4 entities")
    add("report: a result without metrics", ("report", "{T}/r.json"),
        _write("r.json", '{"task": "gap", "system": "s"}'), "no figures to report")
    add("knowref gold: refbench_index a string", ("knowref", "check", "{T}/k.json"),
        _json("k.json", "knowref.json", _set("0.refbench_index", "abc")),
        "field 'refbench_index'")
    add("a path holding a newline", ("report", "{T}/a\nb.json"), None, "a\\nb.json: result file")
    add("a path holding a byte that is not UTF-8", ("report", "{T}/a\udcffb.json"), None,
        "a\\xffb.json: result file")
    return c


# --- import-lm-eval with a suite folder: lm-eval's samples of the exported group -------------
LM_TASKS = [f"refbench_kitmus_background_{v}_subtask_{n}_ents_test"
            for v in ("pretrain", "inference_charfict_wordfict") for n in (2, 3)]


def _lm_run(change: Callable[[Path], None] | None = None) -> Make:
    """The support suite exported and lm-eval's samples of its group (made in lm-eval's
    format, tests.runs.lm_eval.lm_eval_fake) in {T}/lm, then ``change`` applied to that folder."""
    def make(case_dir: Path, support: Path) -> None:
        from refbench.runs.lm_eval.export import export_lm_eval
        from tests.runs.lm_eval.lm_eval_fake import fake_run

        export_lm_eval(support / "suite", case_dir / "tasks")
        fake_run(case_dir / "tasks", case_dir / "lm")
        if change is not None:
            change(case_dir / "lm")
    return make


def _lm_samples(*tasks: str) -> tuple[str, ...]:
    from tests.runs.lm_eval.lm_eval_fake import STAMP

    return tuple(f"{{T}}/lm/samples_{t}_{STAMP}.jsonl" for t in tasks)


def _second_copy(lm: Path) -> None:
    from tests.runs.lm_eval.lm_eval_fake import STAMP

    src = lm / f"samples_{LM_TASKS[0]}_{STAMP}.jsonl"
    (lm / f"samples_{LM_TASKS[0]}_2026-02-02T00-00-00.000000.jsonl").write_bytes(
        src.read_bytes())


def _other_hash(lm: Path) -> None:
    from tests.runs.lm_eval.lm_eval_fake import STAMP

    path = lm / f"samples_{LM_TASKS[1]}_{STAMP}.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    rows[1]["doc_hash"] = "0" * 64
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _foreign(lm: Path) -> None:
    """Samples of another task (one document of a subtask: no subtask's hash either)."""
    first = sorted(lm.glob("samples_*"))[0].read_text().splitlines()[0]
    (lm / "samples_refbench_wsc273_2026-01-01T00-00-00.000000.jsonl").write_text(first + "\n")


def _two_models(lm: Path) -> None:
    """One subtask's samples from another lm-eval run, of another model."""
    from tests.runs.lm_eval.lm_eval_fake import STAMP

    other = "2026-02-02T00-00-00.000000"
    (lm / f"samples_{LM_TASKS[0]}_{STAMP}.jsonl").rename(
        lm / f"samples_{LM_TASKS[0]}_{other}.jsonl")
    results = json.loads((lm / f"results_{STAMP}.json").read_text())
    results["config"]["model_args"] = "pretrained=other"
    (lm / f"results_{other}.json").write_text(json.dumps(results))


def lm_eval_suite_cases() -> list[Case]:
    """A folder import must cover every subtask once, with files of that very export."""
    imp = ("results", "import-lm-eval", "--data", "{S}/suite", "--out", "{T}/imp",
           "--no-store", "--quiet")
    cause = "lm-eval samples of a folder"
    return [
        Case(id="import-lm-eval folder: a subtask without samples", cause=cause,
             args=(*imp, *_lm_samples(*LM_TASKS[1:])), make=_lm_run(),
             fragment=f"/suite: {LM_TASKS[0]}; give --allow-missing"),
        Case(id="import-lm-eval folder: a subtask without samples, --allow-missing",
             cause=cause, args=(*imp, *_lm_samples(*LM_TASKS[1:]), "--allow-missing"),
             make=_lm_run(), code=0, fragment="3 subtasks"),
        Case(id="import-lm-eval folder: samples of no subtask", cause=cause,
             args=(*imp, *_lm_samples(*LM_TASKS), "{T}/lm/samples_refbench_wsc273_"
                   "2026-01-01T00-00-00.000000.jsonl"),
             make=_lm_run(_foreign),
             fragment="match no subtask of"),
        Case(id="import-lm-eval folder: two samples files for one subtask", cause=cause,
             args=(*imp, *_lm_samples(*LM_TASKS), "{T}/lm/samples_" + LM_TASKS[0]
                   + "_2026-02-02T00-00-00.000000.jsonl"),
             make=_lm_run(_second_copy), fragment=f"two samples files for subtask {LM_TASKS[0]}"),
        Case(id="import-lm-eval folder: a document's doc_hash differs", cause=cause,
             args=(*imp, *_lm_samples(*LM_TASKS)), make=_lm_run(_other_hash),
             fragment="(doc_hash); export the data again"),
        Case(id="import-lm-eval folder: samples of two lm-eval models", cause=cause,
             args=(*imp, "{T}/lm/samples_" + LM_TASKS[0] + "_2026-02-02T00-00-00.000000.jsonl",
                   *_lm_samples(*LM_TASKS[1:])), make=_lm_run(_two_models),
             fragment="of different lm-eval models"),
        Case(id="import-lm-eval: --allow-missing with a data file", cause=cause,
             args=("results", "import-lm-eval", "{S}/wsc.jsonl", "--data", "{S}/wsc.jsonl",
                   "--out", "{T}/imp", "--no-store", "--allow-missing"),
             fragment="--allow-missing is for a folder"),
    ]


def silent_module_cases() -> list[Case]:
    """The rows of every ``tests/robustness/cases_silent_*.py`` (each exports
    ``silent_cases() -> list[Case]``): a new class of silent failure adds its module, with
    no edit here."""
    import importlib

    found: list[Case] = []
    for path in sorted(Path(__file__).parent.glob("cases_silent_*.py")):
        found.extend(importlib.import_module(f"tests.robustness.{path.stem}").silent_cases())
    return found


def all_cases() -> list[Case]:
    from tests.robustness.cases_boundaries import boundary_cases
    from tests.robustness.cases_reliability import reliability_cases

    cases = [*file_cases(), *output_cases(), *shape_cases(), *number_cases(),
             *model_arg_cases(), *silent_cases(), *lm_eval_suite_cases(),
             *reliability_cases(), *boundary_cases(), *silent_module_cases()]
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    return cases

"""Rows of the bad-input table for issue 50's scope classes (points 3, 4, 5, 8, 9): commands
that used to succeed with a wrong figure or answer with a traceback. Selection on a renamed
test file, a generator selection its checks did not cover, a trained model run on another
task, ``data get`` into a file's place or from a local mirror, and point 9's small defects.

Rows that need a real release (a test split's texts) are listed only where
``../shared/data`` is present.
"""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Callable
from pathlib import Path

from tests.robustness.harness import Case

Make = Callable[[Path, Path], None]
ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
E100 = "select on a dev or validation split"


def _copy_of(src: Path, name: str, *, head: int | None = None) -> Make:
    def make(case_dir: Path, support: Path) -> None:
        if src.suffix == ".gz":
            with gzip.open(src, "rt", encoding="utf-8") as fh:
                lines = fh.read().splitlines(keepends=True)
            (case_dir / name).write_text("".join(lines[:head]), encoding="utf-8")
        else:
            shutil.copyfile(src, case_dir / name)
    return make


def selection_cases() -> list[Case]:
    cause = "selection on test by content"
    rows: list[Case] = []
    if (DATA / "knowref").is_dir():
        rows.append(Case(
            id="train: a renamed copy of KnowRef's test set as --dev",
            args=("train", "--model", "cross-encoder", "--data", "{S}/knowref.tsv", "--dev",
                  "{T}/selection.json", "--out", "{T}/m"),
            make=_copy_of(DATA / "knowref" / "knowref_test.json", "selection.json"),
            fragment="match test instances of knowref (test)", cause=cause))
    if (DATA / "tne").is_dir():
        rows.append(Case(
            id="tne train: a renamed slice of TNE's test set as --dev",
            args=("tne", "train", "--data", "{S}/tne.jsonl", "--dev", "{T}/held.jsonl",
                  "--out", "{T}/m", "--max-steps", "1"),
            make=_copy_of(DATA / "tne" / "test.jsonl.gz", "held.jsonl", head=3),
            fragment="3 of 3 instances", cause=cause))
        rows.append(Case(
            id="tne train: TNE's test file as --dev",
            args=("tne", "train", "--data", "{S}/tne.jsonl", "--dev", "{T}/test.jsonl",
                  "--out", "{T}/m", "--max-steps", "1"),
            make=_copy_of(DATA / "tne" / "test.jsonl.gz", "test.jsonl", head=3),
            fragment="cannot be selection data", cause=cause))
    if (DATA / "winograd").is_dir():
        def wsc_new_ids(case_dir: Path, support: Path) -> None:
            rows_ = [json.loads(x) for x in
                     (DATA / "winograd" / "wsc273.jsonl").read_text().splitlines()[:30]]
            (case_dir / "mine.jsonl").write_text("".join(
                json.dumps({**r, "qID": f"mine-{k}"}) + "\n" for k, r in enumerate(rows_)))
        rows.append(Case(
            id="train: WSC273 problems with new ids as --dev",
            args=("train", "--model", "encoder-head", "--data", "{S}/wsc.jsonl", "--dev",
                  "{T}/mine.jsonl", "--out", "{T}/m"),
            make=wsc_new_ids, fragment="30 of 30 instances", cause=cause))
    return rows


def _repeated_name(case_dir: Path, support: Path) -> None:
    shutil.copytree(support / "resources", case_dir / "res")
    names = case_dir / "res" / "names.txt"
    lines = names.read_text(encoding="utf-8").splitlines()
    names.write_text("\n".join([*lines[:5], lines[0], *lines[5:]]) + "\n", encoding="utf-8")


def generator_cases() -> list[Case]:
    gen = ("kitmus", "generate", "--resources", "{T}/res", "--out", "{T}/s", "--variants",
           "background-pretrain", "--entities", "4", "--formats", "jsonl", "--quiet",
           "--no-probe")
    cause = "generator checks for any selection"
    return [
        Case(id="kitmus generate: a repeated name, the test split alone",
             args=(*gen, "--splits", "test", "--sizes", "test=40"), make=_repeated_name,
             fragment="occurs twice", cause=cause),
        Case(id="kitmus generate: a repeated name, every split",
             args=(*gen, "--sizes", "10"), make=_repeated_name, fragment="occurs twice",
             cause=cause),
        Case(id="kitmus generate: one split is not called disjoint",
             args=("kitmus", "generate", "--out", "{T}/s", "--variants", "background-pretrain",
                   "--entities", "2", "--splits", "test", "--sizes", "test=5", "--formats",
                   "jsonl", "--quiet", "--no-probe"),
             code=0, fragment="not checked", cause=cause),
    ]


def _trained_on_kitmus(case_dir: Path, support: Path) -> None:
    (case_dir / "head").mkdir()
    (case_dir / "head" / "config.json").write_text(json.dumps({"tasks": ["kitmus"]}))


def scope_cases() -> list[Case]:
    cause = "a trained model on another task"
    return [Case(id="run: an encoder-head trained on KITMUS, on WSC",
                 args=("run", "--no-store", "--quiet", "--out", "{T}/r", "--model",
                       "encoder-head:{T}/head", "--data", "{S}/wsc.jsonl"),
                 make=_trained_on_kitmus, fragment="pass --allow-transfer", cause=cause)]


def _file_in_the_way(case_dir: Path, support: Path) -> None:
    (case_dir / "d").mkdir()
    (case_dir / "d" / "winograd").write_text("a file\n")


def data_get_scope_cases() -> list[Case]:
    cause = "data get: folders and mirrors"
    return [
        Case(id="data get: the release folder's place holds a file",
             args=("data", "get", "wsc273", "--dir", "{T}/d"), make=_file_in_the_way,
             fragment="needs a folder", cause=cause),
        Case(id="data get: a local mirror folder that does not exist",
             args=("data", "get", "wsc273", "--dir", "{T}/d", "--mirror", "{T}/nowhere"),
             fragment="no such folder", cause=cause),
        Case(id="data get: a mirror of an unknown scheme",
             args=("data", "get", "wsc273", "--dir", "{T}/d", "--mirror", "ftp://host/x"),
             fragment="file:// URL or a local folder", cause=cause),
    ]


def _tne_run_folder(case_dir: Path, support: Path) -> None:
    run = case_dir / "se.jsonl"
    run.mkdir()
    shutil.copyfile(support / "tne-pred.jsonl", run / "predictions.jsonl")


def small_defect_cases() -> list[Case]:
    cause = "small defects (issue 50, point 9)"
    return [
        Case(id="run: a TNE file says it is TNE",
             args=("run", "--no-store", "--quiet", "--out", "{T}/r", "--model", "first",
                   "--data", "{S}/tne.jsonl"),
             fragment="refbench tne --help", cause=cause),
        Case(id="tne convert: a run folder named like a file",
             args=("tne", "convert", "{T}/se.jsonl", "{T}/board.jsonl", "--gold",
                   "{S}/tne.jsonl"),
             make=_tne_run_folder, code=0, fragment="wrote 2 documents", cause=cause),
    ]


def silent_cases() -> list[Case]:
    return [*selection_cases(), *generator_cases(), *scope_cases(), *data_get_scope_cases(),
            *small_defect_cases()]

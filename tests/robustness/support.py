"""Valid inputs of every kind, made once per session from refbench's own fixtures: the cases
pair them with one bad file or option each, so a case fails for its own reason only."""

from __future__ import annotations

import bz2
import gzip
import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures"
TINY = ROOT / "tests" / "golden" / "kitmus-tiny"
SUB = TINY / "background-pretrain" / "subtask_2_ents"
BUILTIN = ROOT / "src" / "refbench" / "tasks" / "kitmus" / "data"

# name in the support folder -> how to make it
FILES = {
    "kitmus.jsonl": SUB / "test.jsonl",
    "kitmus.v4_gold_conll": SUB / "full-text" / "test.v4_gold_conll",
    "kitmus.tsv": SUB / "full-text" / "test.tsv",
    "kitmus.jsonlines": SUB / "full-text" / "test.jsonlines",
    "gap.tsv": FIX / "gap" / "gap-dev.tsv",
    "knowref.json": FIX / "knowref" / "knowref_sample.json",
    "knowref.tsv": FIX / "knowref" / "train.tsv",
    "wsc.jsonl": FIX / "winograd" / "wsc-tiny.jsonl",
    "alt.json": FIX / "altentities" / "books-recipes.json",
    "tne.jsonl": FIX / "tne" / "docs.jsonl",
    "tne-pred.jsonl": FIX / "tne" / "predictions.jsonl",
}


def _ids(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text().splitlines() if line.strip()]


def make_support(folder: Path) -> Path:
    """Fill ``folder`` with one valid file (or folder) of every kind the cases use."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, src in FILES.items():
        shutil.copyfile(src, folder / name)
    shutil.copytree(TINY, folder / "suite")
    shutil.copytree(BUILTIN, folder / "resources")
    (folder / "kitmus-answers.jsonl").write_text("".join(
        json.dumps({"id": i, "answer": 0}) + "\n" for i in _ids(folder / "kitmus.jsonl")))
    gap_ids = [line.split("\t")[0] for line in (folder / "gap.tsv").read_text().splitlines()[1:]
               if line.strip()]
    (folder / "gap-system.tsv").write_text("".join(f"{i}\tTRUE\tFALSE\n" for i in gap_ids))
    n_knowref = len(json.loads((folder / "knowref.json").read_text()))
    (folder / "knowref-answers.jsonl").write_text("".join(
        json.dumps({"id": f"knowref:{i}", "answer": 0}) + "\n" for i in range(n_knowref)))
    (folder / "entities.jsonl").write_text("".join(json.dumps(
        {"name": f"Book {c} (novel)", "description": f"A novel about {c}.",
         "infobox": {"genre": "mystery"}, "domain": "BOOKS"}) + "\n" for c in "ABCD"))
    (folder / "result.json").write_text(json.dumps(
        {"task": "kitmus", "system": "s", "variant": "background-pretrain", "n_entities": 2,
         "pronoun_accuracy": 0.5, "antecedent_f1": 0.5, "n": 2,
         "random_baseline": {"pronoun_accuracy": 0.5}}) + "\n")
    (folder / "run-metrics.json").write_text(json.dumps(
        {"task": "altentities", "model": "first", "provenance": {"model_config": {}},
         "slices": {"domain": {"BOOKS": {"accuracy": 0.5, "n": 2}}}}) + "\n")
    (folder / "corpus.txt").write_text("Maria thanked Anna because she had helped with the "
                                       "garden all summer long.\n")
    (folder / "story.txt").write_text("The roof of the house fell.\n")
    return folder


# --- bad versions of a valid file ------------------------------------------------------------

def valid_bytes(support: Path, name: str) -> bytes:
    return (support / name).read_bytes()


def truncated_gz(data: bytes) -> bytes:
    packed = gzip.compress(data, mtime=0)
    return packed[: max(12, len(packed) // 2)]


def broken_bz2(data: bytes) -> bytes:
    packed = bz2.compress(data)
    return packed[:10] + b"\x00" * 16 + packed[26:]


def official_layout(root: Path, noise_fp: str) -> Path:
    """The start of an official KITMUS resource folder (names, vocabulary, occupations,
    locations) whose location row points at ``noise_fp``."""
    (root / "occupations").mkdir(parents=True)
    (root / "names.csv").write_text("lastname\nAcker\nBloom\nCrane\n")
    (root / "vocab.json").write_text(json.dumps({"is": ["is", "VBZ"]}))
    (root / "occupations" / "real_real.csv").write_text(
        "occupation,occupation_description\nbaker,\"[('baking', 'VBG'), ('bread', 'NN')]\"\n")
    (root / "locations.csv").write_text(f"location,noise_fp\n\"[('the', 'DT'), ('park', 'NN')]\""
                                        f",{noise_fp}\n")
    return root

"""Generator: golden bytes, determinism, subsets, workers, disjoint splits, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scripts.regen_golden import GOLDEN, tiny_config, without_provenance

from refbench.core.errors import RefbenchError
from refbench.tasks.kitmus.generate.instances import build_pools, generate_job
from refbench.tasks.kitmus.generate.resources import load_resources
from refbench.tasks.kitmus.generate.suite import generate_suite, make_config
from refbench.tasks.kitmus.generate.variants import VARIANTS

RES = load_resources()


def files_of(root: Path) -> dict[str, bytes]:
    return {name: without_provenance(name, p.read_bytes()) for p in sorted(root.rglob("*"))
            if p.is_file() and (name := str(p.relative_to(root)))}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tiny") / "suite"
    generate_suite(RES, out, tiny_config(), workers=1, progress=False)
    return out


def test_golden_files_exact_bytes(tiny: Path) -> None:
    got, want = files_of(tiny), files_of(GOLDEN)
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name] == want[name], f"{name} differs (python scripts/regen_golden.py?)"


def test_layout(tiny: Path) -> None:
    sub = tiny / "background-pretrain" / "subtask_2_ents"
    assert (sub / "test.jsonl").is_file()
    for view in ("full-text", "task-text-only", "knowledge-text-only"):
        for ext in ("v4_gold_conll", "jsonlines", "txt"):
            assert (sub / view / f"test.{ext}").is_file()
    assert (sub / "full-text" / "test.tsv").is_file()
    assert not (sub / "knowledge-text-only" / "test.tsv").exists()
    assert not (tiny / "background-pretrain" / "subtask_3_ents" / "full-text" / "test.tsv").exists()
    assert (tiny / "DATASHEET.md").is_file() and (tiny / "stats.json").is_file()
    assert not list(tiny.parent.glob(".*partial"))


def test_workers_and_repeat_give_identical_bytes(tmp_path: Path, tiny: Path) -> None:
    out = tmp_path / "again"
    generate_suite(RES, out, tiny_config(), workers=2, progress=False)
    assert files_of(out) == files_of(tiny)


def test_subset_equals_the_full_runs_files(tmp_path: Path, tiny: Path) -> None:
    cfg = make_config(variants=["background-train"], entities=[3], splits=["test"],
                      sizes={"train": 2, "validation": 1, "test": 2}, seed=7)
    out = tmp_path / "subset"
    generate_suite(RES, out, cfg, workers=1, progress=False)
    sub = files_of(out)
    full = files_of(tiny)
    data = [k for k in sub if k not in ("stats.json", "DATASHEET.md")]
    assert data and all(k.startswith("background-pretrain/subtask_3_ents/") for k in data)
    for k in data:
        assert sub[k] == full[k], k


def test_first_instances_do_not_depend_on_split_size() -> None:
    pools = build_pools(RES, seed=3)
    v = VARIANTS["background-both"]
    short = list(generate_job(RES, pools, v, n=4, split="train", size=3, seed=3))
    long = list(generate_job(RES, pools, v, n=4, split="train", size=10, seed=3))
    assert short == long[:3]


def test_variants_are_paired() -> None:
    pools = build_pools(RES, seed=3)
    a = list(generate_job(RES, pools, VARIANTS["background-pretrain"], n=3, split="test",
                          size=5, seed=3))
    b = list(generate_job(RES, pools, VARIANTS["background-inference-charfict-charfict"], n=3,
                          split="test", size=5, seed=3))
    for x, y in zip(a, b, strict=True):
        assert [e.name for e in x.entities] == [e.name for e in y.entities]
        assert (x.answer, x.pronoun, x.location) == (y.answer, y.pronoun, y.location)
        assert [e.occupation for e in x.entities] != [e.occupation for e in y.entities]


def test_splits_are_disjoint(tiny: Path) -> None:
    stats = json.loads((tiny / "stats.json").read_text())
    assert stats["split_overlap_ok"] is True
    pools = build_pools(RES, seed=42)
    sp = pools.splits
    for a, b in (("train", "test"), ("train", "validation"), ("validation", "test")):
        assert not set(sp[a].names) & set(sp[b].names)
        assert not set(sp[a].occupations) & set(sp[b].occupations)
        assert not {x.tokens for x in sp[a].locations} & {x.tokens for x in sp[b].locations}
        for kind in sp[a].noise:
            assert not set(sp[a].noise[kind]) & set(sp[b].noise[kind])
        for t in sp[a].templates:
            assert not {x.template_id for x in sp[a].templates[t]} & {
                x.template_id for x in sp[b].templates[t]}


def test_variant_structure() -> None:
    pools = build_pools(RES, seed=1)
    for name, v in VARIANTS.items():
        inst = next(generate_job(RES, pools, v, n=4, split="validation", size=1, seed=1))
        roles = [s.role for s in inst.sentences]
        assert roles.count("entity_knowledge") == 4
        assert roles.count("background_knowledge") == (4 if v.background_in_text else 0), name
        assert ("noise" in roles) == v.noise, name
        assert roles[-1] == "pronoun"


def test_non_empty_output_is_refused_and_nothing_is_left(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(RefbenchError) as info:
        generate_suite(RES, out, tiny_config(), progress=False)
    assert "not empty" in info.value.message and info.value.exit_code == 2
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    assert (out / "keep.txt").read_text() == "mine"


def test_overwrite_replaces(tmp_path: Path, tiny: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.txt").write_text("old")
    generate_suite(RES, out, tiny_config(), overwrite=True, progress=False)
    assert not (out / "old.txt").exists()
    assert files_of(out) == files_of(tiny)


def test_too_few_names_fails_before_writing(tmp_path: Path) -> None:
    from dataclasses import replace

    small = replace(RES, names=RES.names[:8])
    out = tmp_path / "out"
    with pytest.raises(RefbenchError) as info:
        generate_suite(small, out, make_config(entities=[4], sizes={"test": 1}), progress=False)
    assert "too few names" in info.value.message
    assert not out.exists() and not list(tmp_path.iterdir())


def test_unknown_variant_suggests() -> None:
    with pytest.raises(RefbenchError) as info:
        make_config(variants=["background-inference-real-charfic"])
    assert "Did you mean background-inference-real-charfict" in info.value.message


def test_unwritable_output_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    with pytest.raises(RefbenchError) as info:
        generate_suite(RES, blocker / "suite", tiny_config(), progress=False)
    assert info.value.exit_code == 2 and "cannot write here" in info.value.message


@pytest.mark.skipif(not (Path(__file__).resolve().parents[5] / "shared").exists(),
                    reason="../shared not present")
def test_official_resources_generate(tmp_path: Path) -> None:
    from tests.conftest import OFFICIAL

    res = load_resources(OFFICIAL / "resources")
    cfg = make_config(variants=["background-inference-charfict-wordfict"], entities=[2],
                      sizes={"train": 3, "validation": 3, "test": 3}, seed=42)
    stats = generate_suite(res, tmp_path / "s", cfg, progress=False)
    assert stats["instances"] == 9
    # The official pools have one entity- and one background-knowledge template: shared, and said.
    assert set(stats["resources"]["shared_between_splits"]) >= {
        "templates:entity_knowledge", "templates:background_knowledge"}
    assert stats["split_overlap"]["train/test"]["names"] == 0


@pytest.mark.parametrize(("n", "size"), [(2, 7), (3, 20), (4, 50)])
def test_answer_positions_are_balanced_exactly(n: int, size: int) -> None:
    """Every position (entity index, meet-sentence place, background-sentence place) is the
    answer's size // n or size // n + 1 times, in every prefix and every variant (issue 42:
    `first` scored 0.2225 at 4 entities when the answer was drawn independently)."""
    pools = build_pools(RES, seed=42)
    runs = {name: list(generate_job(RES, pools, VARIANTS[name], n=n, split="test", size=size,
                                    seed=42))
            for name in ("background-pretrain", "background-both")}
    for insts in runs.values():
        for length in range(1, size + 1):
            prefix = insts[:length]
            for values in ([i.answer for i in prefix],
                           [i.meet_order.index(i.answer) for i in prefix]):
                counts = [values.count(k) for k in range(n)]
                assert max(counts) - min(counts) <= 1, (length, counts)
    a, b = runs.values()
    assert [(x.answer, x.meet_order) for x in a] == [(y.answer, y.meet_order) for y in b]


def test_background_position_is_balanced() -> None:
    """The answer's background sentence (background-both) is at each place equally often."""
    import random

    from refbench.tasks.kitmus.generate.instances import _order_with

    rng = random.Random(0)
    assert sorted(_order_with(rng, 4, 2, 0)) == [0, 1, 2, 3]
    assert _order_with(rng, 4, 2, 3)[3] == 2
    pools = build_pools(RES, seed=42)
    insts = list(generate_job(RES, pools, VARIANTS["background-both"], n=3, split="test",
                              size=30, seed=42))
    places = []
    for inst in insts:
        answer_situation = inst.entities[inst.answer].situation
        bg = [s for s in inst.sentences if s.role == "background_knowledge"]
        places.append(next(k for k, s in enumerate(bg)
                           if f" {answer_situation}" in " ".join(w for w, _ in s.tokens)))
    assert [places.count(k) for k in range(3)] == [10, 10, 10]


def test_probe_beside_the_jobs_gives_the_golden_bytes(tmp_path: Path) -> None:
    """With workers the probe is one more pool task (issue 43); a fresh process (no torch
    loaded yet) takes that path, and its stats.json and DATASHEET.md equal the serial ones."""
    import shlex

    from tests.conftest import run_cli

    out = tmp_path / "pooled"
    command = json.loads((GOLDEN / "stats.json").read_text())["command"]
    args = [str(out) if a == "DIR" else a for a in shlex.split(command)[1:]]
    r = run_cli(*args, "--workers", "2", "--quiet")
    assert r.returncode == 0, r.stderr
    assert json.loads((out / "stats.json").read_text())["difficulty"]["groups"]
    assert files_of(out) == files_of(GOLDEN)

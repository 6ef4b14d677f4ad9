"""Property tests: one correct antecedent, the right cluster, all formats and views agree."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from refbench.formats.conll2012 import read_conll
from refbench.formats.e2e_jsonlines import read_jsonlines
from refbench.formats.gap_tsv import read_gap
from refbench.tasks.kitmus.generate.instances import build_pools, generate_job
from refbench.tasks.kitmus.generate.resources import load_resources
from refbench.tasks.kitmus.generate.variants import VARIANTS
from refbench.tasks.kitmus.instance import KitmusInstance
from refbench.tasks.kitmus.native import instance_from_json, instance_to_json
from refbench.tasks.kitmus.writers import GAP_HEADER, write_conll, write_gap, write_jsonlines

RES = load_resources()
POOLS = {seed: build_pools(RES, seed=seed) for seed in (0, 1)}

instances = st.builds(
    lambda v, n, split, seed, idx: list(generate_job(
        RES, POOLS[seed], VARIANTS[v], n=n, split=split, size=idx + 1, seed=seed))[idx],
    st.sampled_from(sorted(VARIANTS)), st.integers(2, 4),
    st.sampled_from(["train", "validation", "test"]), st.sampled_from([0, 1]),
    st.integers(0, 5),
)


def _name(inst: KitmusInstance, e: int) -> str:
    return inst.entities[e].name


@settings(max_examples=60, deadline=None)
@given(instances)
def test_exactly_one_correct_antecedent(inst: KitmusInstance) -> None:
    names = [e.name for e in inst.entities]
    assert len(set(names)) == inst.n_entities
    assert 0 <= inst.answer < inst.n_entities
    # Each entity is mentioned once in the knowledge text and once in the task text.
    for e in inst.entities:
        parts = sorted(inst.sentences[m.sentence].part for m in e.mentions)
        assert parts == ["knowledge", "task"]
    # The pronoun sentence carries exactly the answer's situation, not another entity's.
    pron = " ".join(w for w, _ in inst.sentences[inst.pronoun_mention.sentence].tokens)
    assert inst.entities[inst.answer].situation in pron
    assert inst.sentences[inst.pronoun_mention.sentence].tokens[
        inst.pronoun_mention.start][0].lower() == inst.pronoun
    assert instance_from_json(instance_to_json(inst)) == inst


@settings(max_examples=40, deadline=None)
@given(instances)
def test_all_formats_and_views_agree(inst: KitmusInstance) -> None:
    answer = _name(inst, inst.answer)
    with tempfile.TemporaryDirectory() as d:
        for view in ("full-text", "task-text-only"):
            conll = Path(d) / f"{view}.conll"
            conll.write_text(write_conll(inst, view), encoding="utf-8")
            (doc,) = read_conll(conll)
            with_pronoun = [ms for ms in doc.clusters.values()
                            if any(doc.words(m).lower() == inst.pronoun for m in ms)]
            assert len(with_pronoun) == 1
            surfaces = {doc.words(m) for m in with_pronoun[0]}
            assert {x for x in surfaces if x.lower() != inst.pronoun} == {answer}
            assert len(doc.clusters) == inst.n_entities
            jl = Path(d) / f"{view}.jsonlines"
            jl.write_text(write_jsonlines(inst, view), encoding="utf-8")
            (jdoc,) = read_jsonlines(jl)
            jclusters = [{jdoc.text(s) for s in c} for c in jdoc.clusters]
            assert sum(inst.pronoun in {x.lower() for x in c} for c in jclusters) == 1
            pron_cluster = next(c for c in jclusters if inst.pronoun in {x.lower() for x in c})
            assert {x for x in pron_cluster if x.lower() != inst.pronoun} == {answer}
            if inst.n_entities == 2:
                tsv = Path(d) / f"{view}.tsv"
                tsv.write_text(GAP_HEADER + write_gap(inst, view), encoding="utf-8")
                (row,) = read_gap(tsv)  # offsets are verified by the reader
                assert (row.a if row.a_coref else row.b) == answer
                assert row.a_coref != row.b_coref
        kconll = Path(d) / "k.conll"
        kconll.write_text(write_conll(inst, "knowledge-text-only"), encoding="utf-8")
        (kdoc,) = read_conll(kconll)
        assert {kdoc.words(ms[0]) for ms in kdoc.clusters.values()} == {
            e.name for e in inst.entities}

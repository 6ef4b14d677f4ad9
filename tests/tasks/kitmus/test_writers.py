"""The writers join each view from per-sentence pieces (issue 43's speed): the bytes must be
those of the whole-view formatters, for every variant, entity count and view."""

from __future__ import annotations

import json

import pytest

from refbench.formats.conll2012 import format_conll
from refbench.formats.detok import detokenize, detokenize_from, join_pieces
from refbench.formats.e2e_jsonlines import format_jsonlines
from refbench.tasks.kitmus.generate.instances import build_pools, generate_job
from refbench.tasks.kitmus.generate.resources import load_resources
from refbench.tasks.kitmus.generate.variants import VARIANTS
from refbench.tasks.kitmus.instance import VIEWS, KitmusInstance
from refbench.tasks.kitmus.native import dumps_instance, instance_to_json
from refbench.tasks.kitmus.writers import (
    view_clusters,
    view_text,
    write_conll,
    write_jsonlines,
    write_txt,
)

RES = load_resources()
POOLS = build_pools(RES, seed=5)


def _instances(variant: str, n: int) -> list[KitmusInstance]:
    return list(generate_job(RES, POOLS, VARIANTS[variant], n=n, split="train", size=6, seed=5))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("n", [2, 3, 4])
def test_pieces_give_the_whole_view_bytes(variant: str, n: int) -> None:
    for inst in _instances(variant, n):
        assert_views_are_the_formatters(inst)


def assert_views_are_the_formatters(inst: KitmusInstance) -> None:
    """Every byte the writers make of ``inst`` (native JSONL, and per view CoNLL, jsonlines,
    text and offsets) equals what the formatters make of the whole instance at once."""
    assert dumps_instance(inst) == json.dumps(instance_to_json(inst),
                                              ensure_ascii=False) + "\n"
    for view in VIEWS:
        sent_ids, clusters = view_clusters(inst, view)
        sentences = [inst.sentences[s].tokens for s in sent_ids]
        assert write_conll(inst, view) == format_conll(inst.id, sentences, clusters)
        assert write_jsonlines(inst, view) == format_jsonlines(
            inst.id, [[w for w, _ in s] for s in sentences], clusters)
        words = [w for s in sentences for w, _ in s]
        text, offsets = detokenize(words)
        vt = view_text(inst, view)
        assert (vt.text, vt.offsets) == (text, offsets)
        assert write_txt(inst, view) == f"{inst.id}\n{text}\n\n"
        k = 0
        for s in sent_ids:
            for i in range(len(inst.sentences[s].tokens)):
                assert vt.offset(s, i) == offsets[k]
                k += 1


@pytest.mark.parametrize(("a", "b"), [
    (["Lee", "met", "Kim", "."], ["He", "was", "tired", "."]),
    (["Lee", "said", '"', "hi"], ["there", '"', "."]),  # a quote open across the join
    (["a", "("], ["b", ")", "."]),  # no space after "("
    (["x", "."], [",", "'s", "y"]),  # no space before "," after the join
    ([], ["only", "b"]),
    (["only", "a"], []),
])
def test_join_pieces_equals_detokenizing_together(a: list[str], b: list[str]) -> None:
    joined = join_pieces(a, detokenize_from(a), b, detokenize_from(b))
    assert joined == detokenize_from(a + b)


def test_sentences_shared_across_instances_keep_their_own_marks() -> None:
    """Background, noise and pronoun sentences repeat across a job's instances and their CoNLL
    columns and JSON are made once per process (issue 43): a repeated pronoun sentence whose
    answer differs still carries its own cluster id, and every byte is the formatters'."""
    from refbench.tasks.kitmus.writers import _conll_tails_shared

    hits = _conll_tails_shared.cache_info().hits
    insts = list(generate_job(RES, POOLS, VARIANTS["background-both"], n=3, split="train",
                              size=120, seed=5))
    for inst in insts:
        assert_views_are_the_formatters(inst)
    assert _conll_tails_shared.cache_info().hits > hits

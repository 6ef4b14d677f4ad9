"""A TNE annotation's chains and stages (:mod:`refbench.tasks.tne.annotation.study_chains`),
worked by hand: "same as" answers join NPs into chains named by their first NP, whatever order
they were joined in, and an item is complete only when every NP has both stages' answers."""

from __future__ import annotations

from refbench.studyfile.db import Item
from refbench.tasks.tne.annotation.study_chains import (
    chain_type,
    chains,
    is_complete,
    stage_answers,
)

NPS = ["np0", "np1", "np2", "np3", "np4"]


def test_same_as_answers_join_chains_named_by_their_first_np() -> None:
    stage1 = {"np0": {"type": "new"}, "np2": {"type": "same", "same_as": "np0"},
              # np1 points forward at np3 and np4 at np3: one chain, named by its first NP
              "np1": {"type": "same", "same_as": "np3"}, "np3": {"type": "time"},
              "np4": {"type": "same", "same_as": "np3"}}
    assert chains(NPS, stage1) == {"np0": "np0", "np1": "np1", "np2": "np0",
                                   "np3": "np1", "np4": "np1"}


def test_unanswered_nps_are_in_no_chain_and_links_to_them_join_nothing() -> None:
    stage1 = {"np2": {"type": "same", "same_as": "np1"}, "np3": {"type": "idiom"}}
    assert chains(NPS, stage1) == {"np2": "np2", "np3": "np3"}
    assert chain_type("np3", stage1) == "idiomatic"
    assert chain_type("np2", stage1) == "standard"  # a same-as answer is a standard NP
    assert chain_type("np4", stage1) == "standard"  # no answer yet


def test_an_item_is_complete_when_every_np_has_both_stages() -> None:
    item = Item(id="d1", position=0, payload={"nps": [{"id": "np0"}, {"id": "np1"}]},
                gold=None, condition="", gold_check=False)
    answers = {"s1:np0": {"type": "new"}, "s1:np1": {"type": "same", "same_as": "np0"},
               "s2:np0": {"done": True}, "s2:np1": {"done": False}}
    assert stage_answers(answers, 1) == {"np0": {"type": "new"},
                                         "np1": {"type": "same", "same_as": "np0"}}
    assert not is_complete(item, answers)
    answers["s2:np1"] = {"done": True}
    assert is_complete(item, answers)
    del answers["s1:np1"]
    assert not is_complete(item, answers)

from __future__ import annotations

import pytest

from refbench.core.errors import RefbenchError
from refbench.tasks.kitmus.generate.templates import (
    capitalize_first,
    fill,
    indefinite_article,
    parse_template,
)


@pytest.mark.parametrize(
    ("word", "article"),
    [("firefighter", "a"), ("accountant", "an"), ("architect", "an"), ("electrician", "an"),
     ("optometrist", "an"), ("upholsterer", "an"), ("unner", "an"), ("university", "a"),
     ("user", "a"), ("European", "a"), ("hour", "an"), ("honest", "an"), ("one", "a"),
     ("Xylophonist", "a"), ("", "a")],
)
def test_indefinite_article(word: str, article: str) -> None:
    assert indefinite_article(word) == article


@pytest.mark.parametrize(
    ("word", "expected"),
    [("the", "The"), ("iPad", "IPad"), ("McDonald", "McDonald"), ("élan", "Élan"),
     ("ey", "Ey"), ("", "")],
)
def test_capitalize_keeps_rest_of_token(word: str, expected: str) -> None:
    assert capitalize_first(word) == expected


def _tpl(text: str, kind: str = "entity_knowledge"):  # type: ignore[no-untyped-def]
    return parse_template(text, kind=kind, template_id="t-01", path="templates.json")


def test_fill_entity_knowledge_spans_and_article() -> None:
    tpl = _tpl("By/IN profession/NN ,/, {entity} is/VBZ {a_an} {occupation} ./.")
    tokens, spans = fill(tpl, {"entity": [("Van", "NNP"), ("Buren", "NNP")],
                               "occupation": [("accountant", "NN")]})
    assert [w for w, _ in tokens] == ["By", "profession", ",", "Van", "Buren", "is", "an",
                                      "accountant", "."]
    assert spans["entity"] == (3, 5)
    assert spans["occupation"] == (7, 8)
    assert tokens[6] == ("an", "DT")


def test_fill_capitalises_first_token_only_at_sentence_start() -> None:
    tpl = _tpl("{a_an} {occupation} spends/VBZ the/DT day/NN {situation} ./.",
               kind="background_knowledge")
    values = {"occupation": [("electrician", "NN")], "situation": [("wiring", "VBG")]}
    tokens, _ = fill(tpl, values)
    assert tokens[0] == ("An", "DT")
    tokens, _ = fill(tpl, values, sentence_start=False)
    assert tokens[0] == ("an", "DT")


def test_fill_nested_mentions_carry_offsets() -> None:
    mentions = parse_template("{0} ,/, {1} ,/, and/CC {2}", kind="mentions",
                              template_id="mentions-3", path="t")
    meet = _tpl("At/IN {location} ,/, {mentions} met/VBD ./.", kind="meet")
    inner = fill(mentions, {"0": [("Aa", "NNP")], "1": [("Bb", "NNP")], "2": [("Cc", "NNP")]},
                 sentence_start=False)
    tokens, spans = fill(meet, {"location": [("the", "DT"), ("park", "NN")], "mentions": inner})
    assert [w for w, _ in tokens][:4] == ["At", "the", "park", ","]
    assert {k: spans[k] for k in "012"} == {"0": (4, 5), "1": (6, 7), "2": (9, 10)}
    assert [tokens[spans[k][0]][0] for k in "012"] == ["Aa", "Bb", "Cc"]


@pytest.mark.parametrize(
    ("text", "kind", "message"),
    [("{entity} is/VBZ a/DT ./.", "entity_knowledge", "missing slot(s) {occupation}"),
     ("{pronoun} {be} {situation} {entity} ./.", "pronoun", "unknown slot(s) {entity}"),
     ("{entity} is {occupation}", "entity_knowledge", "neither word/TAG nor {slot}"),
     ("{0} and/CC {2}", "mentions", "needs exactly the slots")],
)
def test_bad_templates(text: str, kind: str, message: str) -> None:
    tid = "mentions-2" if kind == "mentions" else "t-01"
    with pytest.raises(RefbenchError) as info:
        parse_template(text, kind=kind, template_id=tid, path="templates.json")
    assert message in info.value.message
    assert info.value.path == "templates.json"
    assert info.value.exit_code == 2

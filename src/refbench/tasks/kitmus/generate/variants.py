"""The eight KITMUS variants as data: where background knowledge lives, and how fictional."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Variant:
    name: str
    occupation_source: str  # "real" | "charfict"
    situation_source: str  # "real" | "charfict" | "wordfict"
    background_in_text: bool
    noise: bool


def _inference(occ: str, sit: str) -> Variant:
    return Variant(f"background-inference-{occ}-{sit}", occ, sit, True, True)


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("background-pretrain", "real", "real", False, True),
        Variant("background-pretrain-no-noise", "real", "real", False, False),
        Variant("background-both", "real", "real", True, True),
        _inference("real", "charfict"),
        _inference("real", "wordfict"),
        _inference("charfict", "real"),
        _inference("charfict", "charfict"),
        _inference("charfict", "wordfict"),
    )
}

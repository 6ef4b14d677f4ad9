"""KnowRef in the web app (filtered by format, original or switched, pronoun; the switched twin
beside each instance) and in printed results (the decision breakdown, consistency)."""

from __future__ import annotations

from typing import Any

from refbench.core.types import ChoiceInstance
from refbench.tasks.capabilities import Report, WebView
from refbench.tasks.knowref.metrics import SWITCHED


class KnowRefWebView(WebView):
    facets = (("format", "source format"), ("version", "original / switched"),
              ("pronoun", "pronoun"))

    def facet_values(self, inst: ChoiceInstance) -> dict[str, Any]:
        m = inst.metadata
        return {"format": m.get("format"), "pronoun": m.get("pronoun"),
                "version": "switched" if inst.id.endswith(SWITCHED) else "original"}

    def twin_ids(self, iid: str) -> list[str]:
        twin = iid.removesuffix(SWITCHED) if iid.endswith(SWITCHED) else iid + SWITCHED
        return [twin, iid]  # and the same instance in another (switched) file


class KnowRefReport(Report):
    def text(self, result: dict[str, Any], *, ci: bool = False) -> str | None:
        from refbench.tasks.knowref.text import knowref_text

        return knowref_text(result)

"""The Winograd-style sets in the web app: filtered by source; a WinoGrande instance's twin
(``<id>-1`` / ``<id>-2``, the same schema with the other special word) sits beside it."""

from __future__ import annotations

import re

from refbench.tasks.capabilities import WebView

_WINOGRANDE_TWIN = re.compile(r"^(.{6,})-([12])$")


class WinogradWebView(WebView):
    facets = (("source", "source"),)
    leaderboard_columns = (("accuracy", "accuracy"),
                           ("accuracy_norm", "accuracy (length-norm.)"))
    twin_neighbours = True

    def twin_ids(self, iid: str) -> list[str]:
        m = _WINOGRANDE_TWIN.match(iid)
        return [f"{m.group(1)}-{'2' if m.group(2) == '1' else '1'}"] if m else []

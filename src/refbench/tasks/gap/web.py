"""GAP in the web app (its "neither" gold shown as such) and in printed results (the official
scorecard under the choice figures)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from refbench.tasks.capabilities import Report, TaskCore, WebView
from refbench.tasks.index_records import Problem, Record


class GapWebView(WebView):
    facets = (("pronoun", "pronoun gender"),)
    leaderboard_columns = (("accuracy", "accuracy"), ("f1", "F1"), ("bias", "bias (F/M)"))

    def records(self, task: TaskCore, path: Path, kind: str) -> Iterator[Record | Problem]:
        """Choice records, with GAP's answer when it is no candidate: "neither" (A-coref and
        B-coref both FALSE, about 10% of GAP) is a real gold label, so the page shows it
        (``gold_text``) instead of "no gold answer"; both TRUE reads "both A and B"."""
        from refbench.formats.gap_tsv import read_gap
        from refbench.tasks.index_records import choice_record

        flags = {row.id: (row.a_coref, row.b_coref) for row in read_gap(path)}
        for inst in task.read_choices(path):
            record = choice_record(inst, self.facet_values(inst))
            if inst.gold is None and inst.id in flags:
                text = "both A and B" if all(flags[inst.id]) else "neither"
                record.gold_label = text
                record.payload["gold_text"] = text
            yield record

    def twin_ids(self, iid: str) -> list[str]:
        return [iid]  # the same instance in another (switched) file


class GapReport(Report):
    def text(self, result: dict[str, Any], *, ci: bool = False) -> str | None:
        from refbench.tasks.gap.score import scorecard
        from refbench.tasks.result_text import choice_text

        if "counts" not in result:  # a partial run: the official scorer needs every instance
            return choice_text(result)
        return choice_text(result) + "\n" + scorecard(result)

"""The TNE demo page: type or paste a text, see it chunked into NPs and enriched with the
preposition links of the ``--tne-model`` model, in the same document view as the datasets;
without a model (or when asked), the links of one of the paper's deterministic baselines."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from refbench.core.errors import UsageError
from refbench.tasks.capabilities import Demo, Enricher

MAX_CHARS = 5000


@lru_cache(maxsize=2)
def _model(model_dir: str) -> Any:
    from refbench.tasks.tne.models.model import TneModel

    return TneModel(Path(model_dir))  # loaded once per app, not once per text


@lru_cache(maxsize=32)
def _enrich(model_dir: str, text: str) -> dict[str, Any]:
    from refbench.tasks.tne.models.chunker import nlp
    from refbench.tasks.tne.models.enrich import enrich_text

    nps, relations = enrich_text(text, _model(model_dir), nlp())
    return {"nps": nps, "relations": relations}


@lru_cache(maxsize=32)
def _baseline(name: str, text: str) -> dict[str, Any]:
    from refbench.tasks.tne.models.chunker import nlp
    from refbench.tasks.tne.models.demo_baselines import baseline_enrich

    return baseline_enrich(text, nlp(), name)


class TneDemo(Demo):
    route = "tne-demo"
    title = "TNE demo"
    template = "demo_tne.html"
    model_option = "tne-model"
    model_help = "A TNE model folder (refbench tne train) for the TNE demo page."

    def check_model(self, path: Path) -> None:
        if not path.is_dir():
            raise UsageError(f"--tne-model {path}: not a folder (train one with refbench tne "
                             "train)")

    def context(self, args: Mapping[str, str], *, model: Path | None,
                enricher: Enricher | None) -> dict[str, Any]:
        from refbench.tasks.tne.models.demo_baselines import DEFAULT_BASELINE, DEMO_BASELINES
        from refbench.tasks.tne.page import demo_payload, tne_view

        text = args.get("text", "")
        has_model = enricher is not None or model is not None
        baseline = args.get("baseline") or ("" if has_model else DEFAULT_BASELINE)
        if baseline and baseline not in DEMO_BASELINES:
            raise UsageError(f"baseline must be one of {', '.join(DEMO_BASELINES)}")
        context: dict[str, Any] = {"text": text, "model": model, "doc": None, "p": None,
                                   "available": has_model, "baseline": baseline,
                                   "baselines": DEMO_BASELINES}
        if len(text) > MAX_CHARS:
            raise UsageError(f"the demo takes up to {MAX_CHARS} characters, got {len(text)}")
        if text.strip():
            if baseline:
                enriched = _baseline(baseline, text)
            elif enricher is not None:
                enriched = enricher(text)
            else:
                enriched = _enrich(str(model), text)
            payload = demo_payload(text, enriched)
            context["p"] = payload
            context["doc"] = tne_view(payload, args.get("np"), {})
        return context

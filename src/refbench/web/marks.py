"""Text segments for the templates (kept here for the web layer's callers; the code lives in
:mod:`refbench.tasks.page`, below the tasks that build page data)."""

from __future__ import annotations

from refbench.tasks.page import Segment, segment

__all__ = ["Segment", "segment"]

"""Sphinx configuration of refbench's documentation site (``make docs``; warnings are errors).

Pages are MyST Markdown, and notebooks (``docs/notebooks/*.ipynb``, generated from the guide by
``scripts/regen_notebook.py``) are rendered by myst-nb with the outputs they were committed with:
the site never runs them (the tests do, under a Jupyter kernel). The index and the section indexes use globbed toctrees, so a page
added under ``docs/``, ``docs/howto/`` or ``docs/tasks/`` appears without editing this file or
any index; the command-line reference is generated from the Click commands (sphinx-click) and
the API reference from the docstrings (autodoc).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

project = "refbench"
author = "the refbench authors"
copyright = "the refbench authors"
from refbench import __version__ as release  # noqa: E402

version = release

# myst_nb brings myst_parser (the Markdown pages) and reads .ipynb notebooks
extensions = ["myst_nb", "sphinx_click", "sphinx.ext.autodoc"]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
nb_execution_mode = "off"

root_doc = "index"
# _proposed_readme.md: a draft of the README body, not a page of the site; Jupyter's
# checkpoint folders are no pages either.
exclude_patterns = ["_build", "_proposed_readme.md", "**/_*.md", "**/.ipynb_checkpoints"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False}
# Links to files in the repository (benchmarks/x.py, ../shared/...) are not pages of the site.
suppress_warnings = ["myst.xref_missing"]
# Option names keep their two hyphens (--out, not an en dash).
smartquotes = False
html_theme = "alabaster"
html_title = f"refbench {release}"
html_theme_options = {"description": "Knowledge-intensive reference resolution",
                      "fixed_sidebar": True}

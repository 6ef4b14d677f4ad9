"""Write the documentation's task catalogue, one page per registered benchmark, from the
tasks' cards (``docs/tasks/<name>.md``); ``--check`` writes nothing and exits 1 when a page is
missing or differs (``tests/docs/test_catalogue.py`` checks the same).

    python scripts/gen_catalogue.py [--check]
"""

from __future__ import annotations

import sys
from pathlib import Path

from refbench.tasks.catalogue import catalogue_page
from refbench.tasks.lookup import all_tasks

DOCS = Path(__file__).resolve().parents[1] / "docs" / "tasks"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for task in all_tasks():
        page, text = DOCS / f"{task.name}.md", catalogue_page(task)
        if page.is_file() and page.read_text(encoding="utf-8") == text:
            continue
        stale.append(page.name)
        if not check:
            page.write_text(text, encoding="utf-8")
    verb = "differ from their cards" if check else "written"
    print(f"catalogue: {', '.join(stale) or 'no page'} {verb if stale else 'changed'}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

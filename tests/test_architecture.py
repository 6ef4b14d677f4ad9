"""The house rules of DESIGN.md, read from the code's own imports: every import points down the
layers, no modules import each other in a circle, no module grows past 400 lines, and nothing
outside ``tasks/`` (the registry table aside) imports a benchmark's package or names one.

Every import counts, at module level or inside a function, ``TYPE_CHECKING`` included: a lazy
import is still an arrow in the house."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest

from tests.conftest import ROOT

SRC = ROOT / "src" / "refbench"

#: The floors, ground first (docs/architecture.md). A package may import its own floor's
#: packages only where this says so: none do.
LAYERS = {
    "core": 0,
    "formats": 1, "metrics": 1, "nlp": 1, "studyfile": 1,
    "tasks": 2,
    "models": 3, "releases": 3,
    "export": 4,
    "runs": 5,
    "reporting": 6,
    "studies": 7,
    "public": 8,
    "web": 9,
    "cli": 10,
    "api": 11, "__main__": 11,
}
MAX_LINES = 400
REGISTRY = "refbench.core.registry"


def _task_packages() -> tuple[str, ...]:
    """The benchmarks' packages under ``refbench.tasks``, read from the task registry's own
    entries (``refbench.tasks.<package>.task:TASK``): a benchmark added there is guarded here
    with no edit."""
    from refbench.core.registry import BUILTIN, TASKS

    found = []
    for entry in TASKS._entries.values():
        parts = entry.target.partition(":")[0].split(".")
        if entry.origin == BUILTIN and parts[:2] == ["refbench", "tasks"] and len(parts) > 3:
            found.append(parts[2])
    return tuple(found)


TASK_PACKAGES = _task_packages()


def _modules() -> dict[str, Path]:
    out = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(path: Path) -> set[str]:
    """The modules of refbench that ``path`` imports (``from a.b import c`` counts ``a.b`` and,
    when ``a.b.c`` is a module, that too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {m for m in found if m in MODULES}


GRAPH = {m: _imports(p) - {m} for m, p in MODULES.items()}


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_package_has_a_floor() -> None:
    packages = {_package(m) for m in MODULES} - {""}
    modules_at_top = {p for p in packages if (SRC / f"{p}.py").is_file()}
    assert packages - modules_at_top <= set(LAYERS), packages - set(LAYERS)
    assert modules_at_top <= set(LAYERS), modules_at_top - set(LAYERS)


def test_imports_point_down_the_layers() -> None:
    up = []
    for module, targets in GRAPH.items():
        here = _package(module)
        for target in targets:
            there = _package(target)
            if here and there and here != there and LAYERS[there] >= LAYERS[here]:
                up.append(f"{module} -> {target}")
    assert not up, "imports against the layering:\n" + "\n".join(sorted(up))


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_modules_import_each_other_in_a_circle() -> None:
    assert _cycles(GRAPH) == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_modules_stay_small(module: str) -> None:
    lines = len(MODULES[module].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{module}: {lines} lines"


def test_nothing_outside_tasks_imports_a_benchmark_or_names_one() -> None:
    package = re.compile(r"refbench\.tasks\.(" + "|".join(TASK_PACKAGES) + r")\b")
    named = re.compile(r"[\"'](" + "|".join(TASK_PACKAGES) + r")[\"']")
    found = []
    for module, path in MODULES.items():
        if _package(module) == "tasks" or module == REGISTRY:
            continue
        text = path.read_text(encoding="utf-8")
        found += [f"{module}: imports {m.group(0)}" for m in package.finditer(text)]
        found += [f"{module}: names {m.group(0)}" for m in named.finditer(text)]
    assert not found, "\n".join(found)


def test_no_layer_compares_a_tasks_overrides() -> None:
    override = re.compile(r"type\([^)]*\)\.\w+ is (not )?Task\.")
    found = [m for m, p in MODULES.items() if override.search(p.read_text(encoding="utf-8"))]
    assert not found, found


def test_every_benchmark_folder_is_a_registered_task_package() -> None:
    """The guard above covers every benchmark: each folder of ``tasks/`` with a ``task.py`` is
    a package the registry names (and each such package exists)."""
    folders = {p.parent.name for p in (SRC / "tasks").glob("*/task.py")}
    assert TASK_PACKAGES and set(TASK_PACKAGES) == folders


def test_imports_are_what_the_graph_reads() -> None:
    """The graph sees a lazy import inside a function (so the rules above can fail)."""
    graph = defaultdict(set, GRAPH)
    assert "refbench.tasks.lookup" in graph["refbench.cli.ls"]


#: Source packages with no test folder of their own, each with the reason: none today (a
#: package added without tests goes here, ``"tasks/name": "why"``, or gets its tests).
UNMIRRORED: dict[str, str] = {}
#: Test folders that mirror no package: suites that cut across packages, and test data.
CROSS_CUTTING = ("journey", "robustness", "docs", "scale", "fixtures", "golden")
TESTS = ROOT / "tests"



def _source_packages(src: Path = SRC) -> set[str]:
    """Every folder of ``src`` holding Python modules, as a path below it."""
    return {p.parent.relative_to(src).as_posix() for p in src.rglob("*.py")
            if "__pycache__" not in p.parts} - {"."}


def _mirror_faults(src: Path, tests: Path) -> dict[str, list[str]]:
    """What breaks the mirror rule: source packages without a test folder holding a test file
    (:data:`UNMIRRORED` aside), test folders that mirror no package and are no cross-cutting
    suite, and folders of test code without ``__init__.py`` (tests import as ``tests.x.y``)."""
    packages = _source_packages(src)
    missing = sorted(p for p in packages - set(UNMIRRORED)
                     if not any((tests / p).glob("test_*.py")))
    stray = sorted({f.parent.relative_to(tests).as_posix() for f in tests.rglob("test_*.py")
                    if f.parent != tests
                    and f.parent.relative_to(tests).parts[0] not in CROSS_CUTTING
                    and f.parent.relative_to(tests).as_posix() not in packages})
    unmarked = sorted(d.relative_to(tests).as_posix() for d in tests.rglob("*")
                      if d.is_dir() and any(d.glob("*.py")) and not (d / "__init__.py").exists()
                      and d.relative_to(tests).parts[0] != "fixtures")
    return {"missing": missing, "stray": stray, "unmarked": unmarked}


def test_tests_mirror_the_source() -> None:
    """Each package and subpackage of src/refbench has a folder at the same path under tests/
    holding a test file, and each test folder is a package's or a cross-cutting suite's."""
    assert set(UNMIRRORED) <= _source_packages(), "an exception names a package that is gone"
    assert _mirror_faults(SRC, TESTS) == {"missing": [], "stray": [], "unmarked": []}


def test_the_mirror_check_finds_what_it_looks_for(tmp_path: Path) -> None:
    """The mirror rule read on a made-up tree: each kind of fault is found, and only those."""
    files = ["src/core/a.py", "src/tasks/gap/b.py", "src/tasks/gap/data/c.txt", "src/web/d.py",
             "tests/__init__.py", "tests/core/__init__.py", "tests/core/test_a.py",
             "tests/tasks/__init__.py", "tests/tasks/gap/__init__.py",
             "tests/tasks/gap/helper.py", "tests/results/__init__.py",
             "tests/results/test_old.py", "tests/journey/__init__.py",
             "tests/journey/test_all.py", "tests/web/test_d.py"]
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("", encoding="utf-8")
    assert _mirror_faults(tmp_path / "src", tmp_path / "tests") == {
        "missing": ["tasks/gap"], "stray": ["results"], "unmarked": ["web"]}
def test_nothing_outside_the_command_line_imports_it() -> None:
    """The command line is the top floor: no module outside ``cli/`` and ``__main__`` imports
    ``refbench.cli`` (the Python API never goes through it)."""
    found = [f"{m} -> {t}" for m, targets in GRAPH.items()
             if _package(m) not in ("cli", "__main__")
             for t in targets if _package(t) == "cli"]
    assert not found, "\n".join(sorted(found))


#: Every command module of ``cli/``, and the public module (the Python API) its commands
#: call: each parses its arguments, calls one public function and prints what it returns.
COMMANDS_OF_THE_API = {"refbench.cli.run": "refbench.public.running",
                       "refbench.cli.evaluate": "refbench.public.scoring",
                       "refbench.cli.report": "refbench.public.tables",
                       "refbench.cli.results": "refbench.public.store",
                       "refbench.cli.data": "refbench.public.data",
                       "refbench.cli.export": "refbench.public.export",
                       "refbench.cli.llm": "refbench.public.export",
                       "refbench.cli.train": "refbench.public.training",
                       "refbench.cli.study": "refbench.public.studies"}

#: Command modules that call no public function, and why.
NOT_THROUGH_THE_API = {
    "refbench.cli.root": "the ``refbench`` group: it adds the commands and does nothing itself",
    "refbench.cli.ls": "lists the registries (what is registered, and from where): it runs, "
                       "scores and reads nothing",
    "refbench.cli.serve": "a launcher: it starts the web app (web.serve.serve_app), which sits "
                          "above the Python API and reads through it",
}

#: What only the Python API may call: the run path, the runners and the scorer.
PAST_THE_API = {"refbench.runs.path", "refbench.runs.runner", "refbench.runs.multi",
                "refbench.tasks.scoring"}


def _defines_a_command(path: Path) -> bool:
    """Whether a module declares a Click command or group (``@click.command(...)``,
    ``@results.command(...)``, ``@study.group(...)``)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef):
            for d in node.decorator_list:
                f = d.func if isinstance(d, ast.Call) else d
                if isinstance(f, ast.Attribute) and f.attr in ("command", "group"):
                    return True
    return False


COMMAND_MODULES = sorted(m for m, p in MODULES.items()
                         if _package(m) == "cli" and _defines_a_command(p))


def test_every_command_module_is_listed() -> None:
    """A new command module must say which public module it calls (or why it calls none)."""
    assert "refbench.cli.results" in COMMAND_MODULES  # the scan finds ``@group.command``
    assert set(COMMAND_MODULES) == set(COMMANDS_OF_THE_API) | set(NOT_THROUGH_THE_API), (
        set(COMMAND_MODULES) ^ (set(COMMANDS_OF_THE_API) | set(NOT_THROUGH_THE_API)))
    assert not set(COMMANDS_OF_THE_API) & set(NOT_THROUGH_THE_API)


@pytest.mark.parametrize("command", COMMAND_MODULES)
def test_a_command_calls_the_python_api(command: str) -> None:
    """Every command parses its arguments and calls the Python API (``refbench.public``),
    never the runner or the scorer past it; the exceptions call no public function at all."""
    if command in COMMANDS_OF_THE_API:
        assert COMMANDS_OF_THE_API[command] in GRAPH[command]
    else:
        assert not {t for t in GRAPH[command] if _package(t) == "public"}, command
    assert not GRAPH[command] & PAST_THE_API, GRAPH[command] & PAST_THE_API


def test_the_python_api_sits_below_the_command_line() -> None:
    assert LAYERS["public"] < LAYERS["web"] < LAYERS["cli"] < LAYERS["__main__"]

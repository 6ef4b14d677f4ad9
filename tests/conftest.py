"""Shared fixtures: paths to ../shared (optional) and a CLI runner using the real entry point."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
#: two plugin distributions (a model and a benchmark) installed by putting them on the path
PLUGIN = ROOT / "tests" / "fixtures" / "plugin"
OFFICIAL = SHARED / "data" / "kitmus-official"


#: Tests that share one expensive thing run on one pytest-xdist worker (``make test`` runs
#: ``pytest -n 2 --dist loadgroup``): by a fixture they use, or by their file. ``gguf_lm``
#: (tests/models/test_vllm.py, a module fixture: the default GGUF loaded in process, 56 s
#: under load here) goes with vLLM's group, whose first test uses it too: loaded once, not
#: once a worker.
GROUP_BY_FIXTURE = {"vllm_url": "vllm", "smollm2_hf": "vllm", "gguf_lm": "vllm",
                    "llama_server": "llama-server", "prepared_folder": "docs-folder"}
#: A browser test file starts its browser and server once (module fixtures): one worker each.
GROUP_BY_FILE = ("test_browser.py", "test_browser_charts.py", "test_browser_pages.py")


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config,
                                  items: list[pytest.Item]) -> Iterator[None]:
    """Mark the tests of :data:`GROUP_BY_FIXTURE` and :data:`GROUP_BY_FILE` with
    ``xdist_group``: one vLLM start and one llama.cpp server per test run, one browser per
    file (each server or browser is a session or module fixture: set up once per
    worker that runs its tests, so once for a group). The marks go on before every other
    plugin's hook (pytest-xdist's reads them); after them, :func:`group_ids`."""
    for item in items:
        names = getattr(item, "fixturenames", ())
        group = next((g for f, g in GROUP_BY_FIXTURE.items() if f in names), None)
        if group is None and item.path.name in GROUP_BY_FILE:
            group = f"{item.path.parent.name}/{item.path.name}"
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    result = yield
    if getattr(config.option, "loadgroup", False):  # a pytest-xdist worker of --dist loadgroup
        group_ids(items)
    return result


def group_ids(items: list[pytest.Item]) -> None:
    """Give each ``xdist_group`` test the node id ``ID@GROUP`` that ``--dist loadgroup``
    schedules by, where pytest-xdist's own hook could not: it writes the node's old
    ``_nodeid``, which pytest 9.2's structured ids (``_id``) no longer read, so every group
    was spread over both workers (pytest-xdist issue 1386)."""
    try:
        from _pytest.nodeid import NodeId
    except ImportError:  # an older pytest: string ids, which pytest-xdist's hook did set
        return
    for item in items:
        names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                        for m in item.iter_markers("xdist_group")})
        suffix = "@" + "_".join(names)
        if names and not item.nodeid.endswith(suffix) and hasattr(item, "_id"):
            item._id = NodeId.parse(item.nodeid + suffix)


#: Servers this process's session fixtures started, by name, with the seconds each took to
#: answer: the test run's summary prints them (vLLM: one start per test run).
SERVER_STARTS: Counter[str] = Counter()
SERVER_SECONDS: dict[str, float] = {}


@contextlib.contextmanager
def counted_start(name: str) -> Iterator[None]:
    """Count one start of the server ``name`` (the block starts it and waits for it)."""
    begin = time.perf_counter()
    yield
    SERVER_STARTS[name] += 1
    SERVER_SECONDS[name] = SERVER_SECONDS.get(name, 0.0) + time.perf_counter() - begin


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On a pytest-xdist worker: hand this worker's server starts to the controller."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["server_starts"] = dict(SERVER_STARTS)
        output["server_seconds"] = dict(SERVER_SECONDS)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """On the pytest-xdist controller: add up the workers' server starts."""
    output = getattr(node, "workeroutput", {})
    SERVER_STARTS.update(output.get("server_starts", {}))
    for name, seconds in output.get("server_seconds", {}).items():
        SERVER_SECONDS[name] = SERVER_SECONDS.get(name, 0.0) + seconds


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line per server the run started: how many times, and the seconds to answer (a
    vLLM started more than once is a grouping fault: :data:`GROUP_BY_FIXTURE`)."""
    if hasattr(terminalreporter.config, "workeroutput"):
        return
    for name, count in sorted(SERVER_STARTS.items()):
        terminalreporter.write_line(f"{name} started {count} time(s) in this test run "
                                    f"({SERVER_SECONDS[name]:.0f} s to answer in all)")


def needs_shared(path: Path) -> pytest.MarkDecorator:
    return pytest.mark.skipif(not path.exists(), reason=f"{path} not present")


def cli_ok(capsys: pytest.CaptureFixture[str], *args: str | Path | int) -> str:
    """What ``refbench ARGS`` prints on stdout, the command run in this process
    (``run_guarded``, as ``refbench`` runs it, without a new interpreter's start-up); the
    command must succeed."""
    from refbench.cli import app
    from refbench.core.commands import run_guarded

    code = run_guarded(app, [str(a) for a in args])
    got = capsys.readouterr()
    assert code == 0, f"{args}: {got.err}"
    return got.out


def cli_json(capsys: pytest.CaptureFixture[str], *args: str | Path | int) -> dict[str, Any]:
    """The JSON object a ``--json`` command prints last (:func:`cli_ok`)."""
    import json

    result: dict[str, Any] = json.loads(cli_ok(capsys, *args).strip().splitlines()[-1])
    return result


def python_prints(code: str) -> str:
    """What a fresh Python process running ``code`` prints (stripped): for checking which
    modules an import path loads, away from this test process's own imports."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    return subprocess.run(
        [sys.executable, "-c", "from refbench.cli import main; main()", *args],
        capture_output=True, text=True, cwd=cwd, env=env, check=False,
    )


@pytest.fixture(scope="session", autouse=True)
def _private_results_store(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Runs in tests record into a store of their own, never the checkout's .refbench/, and
    cache into a folder of their own, never the user's cache."""
    if "REFBENCH_STORE" not in os.environ:
        os.environ["REFBENCH_STORE"] = str(tmp_path_factory.mktemp("store") / "results.sqlite")
    if "REFBENCH_CACHE_DIR" not in os.environ:  # parsed files and web indexes: the run's own
        os.environ["REFBENCH_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))


def release_app(root: Path, folder: Path, models: tuple[str, ...] = ("first", "random")) -> Any:
    """The web app over a release folder that one task runs whole (Winogender, WinoBias), with
    a folder run of each model in a store of its own under ``root``."""
    from refbench.runs.path import run_suite
    from refbench.runs.store import Store
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    store = Store(root / "results.sqlite")
    for model in models:
        run_suite(model, folder, root / model, store=store, progress=False)
    store.close()
    return create_app(ServeConfig(data=[folder], run_dirs=[], store=root / "results.sqlite",
                                  index_dir=root / "index"))


@pytest.fixture
def cli():  # type: ignore[no-untyped-def]
    return run_cli


@pytest.fixture(scope="session")
def tiny_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A randomly initialised 2-layer BERT with MiniLM's tokenizer, saved as a local model:
    trainable models run their whole pipeline in seconds on it."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    from refbench.nlp.encoder import minilm_path

    out = tmp_path_factory.mktemp("tiny-encoder")
    tok = AutoTokenizer.from_pretrained(str(minilm_path()), local_files_only=True)
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=tok.vocab_size, hidden_size=32, intermediate_size=64,
                     num_hidden_layers=2, num_attention_heads=2, max_position_embeddings=512)
    BertModel(cfg).save_pretrained(out)
    tok.save_pretrained(out)
    return out


@pytest.fixture()
def plugins_installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The plugin distributions of :data:`PLUGIN` on this process's path, the registries
    reading entry points afresh."""
    from refbench.core.registry import MODELS, TASKS, TRAINERS

    monkeypatch.syspath_prepend(str(PLUGIN))
    for reg in (TASKS, MODELS, TRAINERS):
        monkeypatch.setattr(reg, "_plugins", None)
        monkeypatch.setattr(reg, "shadowed", [])
    yield
    for name in [m for m in sys.modules if m.startswith("refbench_plugin_demo")]:
        del sys.modules[name]


def figure_texts(monkeypatch: pytest.MonkeyPatch, module: Any) -> list[str]:
    """Every text of every figure ``module.save_figure`` saves from now on (the figure is
    still written): what a reader of the saved image would see."""
    texts: list[str] = []
    original = module.save_figure

    def keep(fig: Any, out: Any, **kw: Any) -> None:
        from matplotlib.text import Text

        texts.extend(t.get_text() for t in fig.findobj(Text))
        original(fig, out, **kw)

    monkeypatch.setattr(module, "save_figure", keep)
    return texts

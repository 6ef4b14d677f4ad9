"""Progress bars (issue 51): a text bar outside a notebook and in a kernel without
``ipywidgets`` (no tqdm warning about ``IProgress``), the notebook widget with it."""

from __future__ import annotations

import io
import warnings

import pytest

from refbench.core import progress


def test_a_text_bar_outside_a_kernel_and_in_one_without_widgets(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tqdm.notebook import tqdm as notebook_tqdm
    from tqdm.std import tqdm as text_tqdm

    assert progress.bar_class() is text_tqdm  # pytest is no kernel
    monkeypatch.setattr(progress, "in_kernel", lambda: True)
    monkeypatch.setattr(progress, "has_widgets", lambda: False)
    out = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # tqdm.auto would warn "IProgress not found" here
        with progress.progress_bar(total=4, desc="run", file=out, ascii=True) as bar:
            bar.update(4)
    assert type(bar) is text_tqdm
    assert "run: 100%|##########| 4/4" in out.getvalue()
    monkeypatch.setattr(progress, "has_widgets", lambda: True)
    assert progress.bar_class() is notebook_tqdm


def test_a_kernel_is_told_apart_from_a_console(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    class ZMQInteractiveShell:
        pass

    fake = types.ModuleType("IPython")
    fake.get_ipython = ZMQInteractiveShell  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", fake)
    monkeypatch.setitem(sys.modules, "ipykernel.zmqshell", types.ModuleType("zmqshell"))
    for key in [k for k in __import__("os").environ if k == "QT_API" or k.startswith("SPYDER")]:
        monkeypatch.delenv(key)
    assert progress.in_kernel()
    monkeypatch.setenv("QT_API", "pyqt5")
    assert not progress.in_kernel()
    monkeypatch.delitem(sys.modules, "ipykernel.zmqshell")
    monkeypatch.delenv("QT_API")
    assert not progress.in_kernel()

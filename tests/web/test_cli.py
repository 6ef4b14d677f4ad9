"""``refbench serve``: help, bad options, and where it binds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import FILES


def test_help_has_an_example(cli: Any) -> None:
    out = cli("serve", "--help")
    assert out.returncode == 0 and "Examples: refbench serve" in out.stdout
    assert "--tne-model" in out.stdout and "127.0.0.1" in out.stdout


def test_missing_tne_model_is_one_error_line(cli: Any, tmp_path: Path) -> None:
    out = cli("serve", str(FILES["gap"]), "--tne-model", str(tmp_path / "none"),
              "--store", str(tmp_path / "s.sqlite"))
    assert out.returncode == 2 and out.stderr.startswith("error E100:")
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("host, warns", [("127.0.0.1", False), ("0.0.0.0", True)])
def test_binds_to_loopback_unless_told(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str], host: str,
                                       warns: bool) -> None:
    import werkzeug.serving

    from refbench.web.serve import serve_app

    seen: dict[str, Any] = {}
    monkeypatch.setattr(werkzeug.serving, "run_simple",
                        lambda h, p, app, **kw: seen.update(host=h, port=p, app=app))
    serve_app([FILES["gap"], tmp_path / "missing.tsv"], run_dirs=[], store=tmp_path / "s.sqlite",
              index_dir=tmp_path / "index", tne_model=None, host=host, port=8123, warm=True)
    err = capsys.readouterr().err
    assert seen["host"] == host and seen["port"] == 8123
    assert ("warning: serving on 0.0.0.0" in err) == warns
    assert "not shown:" in err and "missing.tsv" in err
    assert "open http://" in err and (tmp_path / "index").is_dir()

"""``refbench serve``: help, bad options, and where it binds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import FILES


def test_help_has_an_example(cli: Any) -> None:
    out = cli("serve", "--help")
    assert out.returncode == 0 and "Examples:\n    refbench serve" in out.stdout
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
              index_dir=tmp_path / "index", host=host, port=8123, warm=True)
    err = capsys.readouterr().err
    assert seen["host"] == host and seen["port"] == 8123
    assert ("warning: serving on 0.0.0.0" in err) == warns
    assert "not shown:" in err and "missing.tsv" in err
    assert "open http://" in err and (tmp_path / "index").is_dir()


def test_studies_mount_on_the_app(cli: Any, tmp_path: Path) -> None:
    """``refbench serve --study``: the human-study blueprint runs inside the full app."""
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig
    from refbench.web.serve import study_blueprints
    from refbench.web.study.server import links

    study = tmp_path / "kv.sqlite"
    out = cli("study", "create", "kitmus-validation", "--data", str(FILES["kitmus"]), "--n", "2",
              "--gold-checks", "1",
              "--out", str(study))
    assert out.returncode == 0, out.stderr
    app = create_app(ServeConfig(data=[FILES["gap"]], store=tmp_path / "s.sqlite",
                                 index_dir=tmp_path / "index"),
                     extra_blueprints=study_blueprints([study]))
    client = app.test_client()
    urls = [url for _, url in links(study, "http://localhost/study")]
    assert urls and any("/admin/" in u for u in urls)
    for url in urls:
        resp = client.get(url.removeprefix("http://localhost"))
        assert resp.status_code == 200, url
        assert "Content-Security-Policy" in resp.headers
    assert client.get("/study/a/not-a-token/").status_code == 404
    assert client.get("/").status_code == 200  # the datasets page is still there


def test_runs_takes_every_folder_up_to_the_next_option(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    """Issue 38, defect 11: the README's ``serve kitmus-suite --runs runs/first runs/emb``
    gives both folders to ``--runs``; the second one is not taken for a dataset."""
    from click.testing import CliRunner

    import refbench.web.serve
    from refbench.cli import app

    seen: dict[str, Any] = {}
    monkeypatch.setattr(refbench.web.serve, "serve_app",
                        lambda data, **kw: seen.update(data=data, **kw))
    first, emb = tmp_path / "first", tmp_path / "emb"
    first.mkdir()
    emb.mkdir()
    result = CliRunner().invoke(app, ["serve", str(FILES["gap"]), "--runs", str(first),
                                      str(emb), "--port", "8123"])
    assert result.exit_code == 0, result.output
    assert seen["data"] == [FILES["gap"]] and seen["run_dirs"] == [first, emb]
    assert seen["port"] == 8123
    result = CliRunner().invoke(app, ["serve", "--runs", str(first), "--runs", str(emb),
                                      str(FILES["gap"])])
    assert result.exit_code == 0, result.output
    assert seen["run_dirs"] == [first, emb, FILES["gap"]]  # everything after --runs is a run


def test_spread_runs() -> None:
    from refbench.cli.serve import spread_runs

    assert spread_runs(["s", "--runs", "a", "b", "--port", "1", "--", "--runs"]) == \
        ["s", "--runs", "a", "--runs", "b", "--port", "1", "--", "--runs"]
    assert spread_runs(["--runs=a", "b"]) == ["--runs=a", "--runs", "b"]

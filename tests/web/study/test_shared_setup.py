"""Issue 48's twin in the web app: ``refbench serve`` and ``refbench study serve`` set up their
Flask apps in one place (:func:`refbench.web.guard.setup_app`, :func:`~refbench.web.guard.mount`),
so a study page sends the same security headers whichever server mounts it (the study server
used to send no ``X-Frame-Options`` and another Content-Security-Policy)."""

from __future__ import annotations

from pathlib import Path

from tests.web.conftest import FILES

SECURITY = ("Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy",
            "X-Frame-Options")


def test_both_servers_send_one_set_of_security_headers(ae_study: Path, tmp_path: Path) -> None:
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig
    from refbench.web.serve import study_blueprints
    from refbench.web.study.server import create_app as create_study_app
    from refbench.web.study.server import links

    alone = create_study_app(ae_study).test_client()
    full = create_app(ServeConfig(data=[FILES["gap"]], store=tmp_path / "s.sqlite",
                                  index_dir=tmp_path / "index"),
                      extra_blueprints=study_blueprints([ae_study])).test_client()
    page = next(u for _, u in links(ae_study, "") if "/a/" in u)
    answers = {"study server, annotator page": alone.get(page),
               "study server, no such page": alone.get("/a/not-a-token/"),
               "study server, home": alone.get("/"),
               "data app, annotator page": full.get(f"/study{page}"),
               "data app, home": full.get("/"),
               "data app, no such page": full.get("/no-such-page")}
    assert answers["study server, annotator page"].status_code == 200
    assert answers["data app, annotator page"].status_code == 200
    seen = {name: tuple(r.headers.get(k) for k in SECURITY) for name, r in answers.items()}
    assert len(set(seen.values())) == 1, seen
    csp, nosniff, referrer, frame = next(iter(seen.values()))
    assert frame == "DENY" and nosniff == "nosniff" and referrer == "no-referrer"
    assert "frame-ancestors 'none'" in (csp or "") and "script-src 'self'" in (csp or "")
    for name in ("study server, annotator page", "data app, annotator page"):
        assert answers[name].headers["Cache-Control"] == "no-store", name  # tokens in URLs

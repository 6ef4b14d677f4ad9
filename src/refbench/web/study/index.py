"""``/study/``: the page that lists every study mounted on an app (its kind, items, annotators
and progress) and lets whoever holds a study's admin token open its admin page.

Each study blueprint announces itself when an app registers it (:func:`announce`, a Flask
``record`` callback), and the first one also registers this index under ``/study``. So the
index appears wherever studies are mounted (``refbench serve --study``, ``refbench study
serve``) without the app having to know about it, and it lists exactly the studies mounted
there. The page never shows a token: the admin link is given only to someone who types (or
pastes) the admin token or link, and a wrong one gets a 403 and the page again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    current_app,
    has_request_context,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.blueprints import BlueprintSetupState

from refbench.studyfile.db import StudyStore

INDEX = "study_index"
PREFIX = "/study"
_TOKEN = re.compile(r"[A-Za-z0-9_-]{8,128}")


@dataclass(frozen=True)
class Mounted:
    """One study blueprint as an app registered it."""

    path: Path
    blueprint: str  # the blueprint's name, for url_for
    prefix: str  # its URL prefix ("" when mounted at the root)

    @property
    def name(self) -> str:
        return self.path.stem


def mounted(app: Any) -> list[Mounted]:
    """The studies registered on ``app`` so far (a Flask app, or its sansio base)."""
    found: list[Mounted] = app.extensions.setdefault("refbench_studies", [])
    return found


def announce(path: Path, state: BlueprintSetupState) -> None:
    """Record a study blueprint on the app registering it; mount the index with the first."""
    app = state.app
    mounted(app).append(Mounted(path, state.name, state.url_prefix or ""))
    if INDEX not in app.blueprints:
        app.register_blueprint(make_index_blueprint(), url_prefix=PREFIX)


def summary(study: Mounted) -> dict[str, Any]:
    """What the index shows of one study: kind, counts and progress (never a token)."""
    from refbench.studies.report import progress

    with StudyStore(study.path) as st:
        meta = st.meta()
        people = progress(st)
        n_items = len(st.items())
    done = sum(p["complete"] for p in people)
    assigned = sum(p["assigned"] for p in people)
    last = max((p["last_answer"] for p in people if p["last_answer"]), default=None)
    return {"name": study.name, "kind": meta["kind"], "n_items": n_items,
            "annotators": len(people), "done": done, "assigned": assigned,
            "finished": sum(p["complete"] == p["assigned"] for p in people),
            "last_answer": last, "created": meta.get("created", ""),
            "percent": round(100 * done / assigned) if assigned else 0}


def admin_token(text: str) -> str:
    """The token in what was typed: the token itself, or an admin link that holds it."""
    text = text.strip()
    m = re.search(r"/admin/([^/?#\s]+)", text)
    token = m.group(1) if m else text
    return token if _TOKEN.fullmatch(token) else ""


def make_index_blueprint() -> Blueprint:
    from refbench.web.guard import STUDY_HEADERS, add_headers

    bp = Blueprint(INDEX, __name__, template_folder="templates", static_folder="static",
                   static_url_path="/index-static")

    add_headers(bp, STUDY_HEADERS)  # in whichever app mounts it (tokens: never cached)

    @bp.app_context_processor
    def _link() -> dict[str, Any]:
        """Every page of the app may link to the index (the home page does)."""
        if not has_request_context():
            return {}
        return {"study_index_url": url_for(f"{INDEX}.index"),
                "study_count": len(mounted(current_app))}

    def page(error: str = "", chosen: str = "", status: int = 200) -> tuple[str, int]:
        studies = [(m, summary(m)) for m in mounted(current_app)]
        return render_template("study/index.html", studies=studies, error=error,
                               chosen=chosen, bp=INDEX, kind=None), status

    @bp.get("/")
    def index() -> tuple[str, int]:
        return page()

    @bp.post("/admin")
    def open_admin() -> Any:
        """Check the token, then go to the admin page. The page's script sends the form with
        fetch and asks for JSON (a browser may mark a plain form post from a no-referrer page
        as coming from origin "null"); without the script the form posts as usual."""
        wants_json = request.accept_mimetypes.best == "application/json"
        name = request.form.get("study", "")
        study = next((m for m in mounted(current_app) if m.name == name), None)
        token = admin_token(request.form.get("token", ""))
        error, status = "", 200
        if study is None:
            error, status = "Choose one of the studies.", 400
        else:
            with StudyStore(study.path) as st:
                who = st.by_token(token) if token else None
            if who is None or who.role != "admin":
                error, status = (f"That is not the admin token of {study.name}. The admin link "
                                 "was printed when the server started; paste it or its last "
                                 "part."), 403
        if error:
            if wants_json:
                return jsonify({"ok": False, "error": error}), status
            return page(error, chosen=name if study else "", status=status)
        assert study is not None
        url = url_for(f"{study.blueprint}.admin", token=token)
        return jsonify({"ok": True, "url": url}) if wants_json else redirect(url, code=303)

    return bp

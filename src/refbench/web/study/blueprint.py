"""The study web UI as a Flask blueprint: annotator pages (a token in the URL), a JSON save
endpoint used by the page's script, and an admin page (its own token).

``make_study_blueprint(path)`` holds no global state, so any Flask app can mount one or several
studies (``refbench serve --study``) and ``refbench study serve`` mounts it in a minimal app.
Pages work without JavaScript (plain forms, post then redirect); the static script adds
keyboard shortcuts and saves each answer the moment it is given. An annotator's token reaches
only their own assignments and answers; a wrong token is a 404, like any unknown page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.exceptions import HTTPException

from refbench.studies.kinds import get_kind
from refbench.studyfile.db import Annotator, StudyStore
from refbench.studyfile.kinds import AnswerError, StudyKind
from refbench.web.guard import STUDY_HEADERS, add_headers
from refbench.web.study.index import announce
from refbench.web.templating import with_task_templates


def make_study_blueprint(study_path: str | Path, *, name: str = "study") -> Blueprint:
    path = Path(study_path)
    with StudyStore(path) as st:  # fails early on a missing or foreign file
        meta = st.meta()
        items = {it.id: it for it in st.items()}  # items never change once a study exists
    kind: StudyKind = get_kind(meta["kind"], meta)
    bp = Blueprint(name, __name__, template_folder="templates", static_folder="static",
                   static_url_path="/study-static")  # never shadows a host app's /static
    bp.record(lambda state: announce(path, state))  # listed on /study/ wherever it is mounted
    bp.record_once(lambda state: with_task_templates(state.app))  # the study types' pages

    def store() -> StudyStore:
        if "study_store" not in g:
            g.study_store = StudyStore(path)
        st: StudyStore = g.study_store
        return st

    @bp.teardown_request
    def _close(exc: BaseException | None) -> None:
        st = g.pop("study_store", None)
        if st is not None:
            st.close()

    add_headers(bp, STUDY_HEADERS)  # in whichever app mounts it (tokens: never cached)

    def annotator(token: str, role: str = "annotator") -> Annotator:
        a = store().by_token(token)
        if a is None or a.role != role:
            abort(404)
        return a

    def summary(a: Annotator) -> dict[str, Any]:
        st = store()
        assigned = st.assignments(a.id)
        given = st.answers_of(a.id)
        done = [kind.is_complete(items[i], given.get(i, {})) for _, i, _ in assigned]
        first_open = next((k + 1 for k, d in enumerate(done) if not d), None)
        return {"total": len(done), "done": sum(done), "first_open": first_open,
                "done_flags": done}

    def context(a: Annotator, token: str, **extra: Any) -> dict[str, Any]:
        return {"kind": kind, "meta": meta, "who": a.name, "token": token, "bp": name,
                "progress": summary(a), **extra}

    @bp.get("/a/<token>/")
    def home(token: str) -> str:
        a = annotator(token)
        return render_template("study/home.html", **context(a, token))

    def load(a: Annotator, pos: int) -> tuple[Any, Any, dict[str, Any]]:
        assigned = store().assignments(a.id)
        if not 1 <= pos <= len(assigned):
            abort(404)
        _, item_id, options = assigned[pos - 1]
        item = items[item_id]
        return item, options, store().answers_of(a.id, item_id).get(item_id, {})

    def render_item(a: Annotator, token: str, pos: int, error: str = "",
                    status: int = 200) -> tuple[str, int]:
        item, options, answers = load(a, pos)
        args = {k: str(v) for k, v in request.args.items()}
        page = kind.page(item, options, answers, args)
        total = len(store().assignments(a.id))
        return render_template(kind.template, **context(
            a, token, item=item, page=page, pos=pos, total=total, error=error,
            complete=kind.is_complete(item, answers),
            api=url_for(f"{name}.save", token=token, pos=pos))), status

    @bp.get("/a/<token>/<int:pos>")
    def item_page(token: str, pos: int) -> tuple[str, int]:
        return render_item(annotator(token), token, pos)

    def next_url(token: str, pos: int, item: Any, unit: str, answers: dict[str, Any]) -> str:
        args = kind.after_save(item, unit, answers)
        if args is not None:
            return url_for(f"{name}.item_page", token=token, pos=pos, **args)  # type: ignore[arg-type]
        a = annotator(token)
        if pos < len(store().assignments(a.id)):
            return url_for(f"{name}.item_page", token=token, pos=pos + 1)
        return url_for(f"{name}.finish", token=token)

    def save_fields(a: Annotator, pos: int, fields: dict[str, str]
                    ) -> tuple[Any, str, dict[str, Any], list[str], int]:
        item, options, answers = load(a, pos)
        unit, raw = kind.form_answer(item, fields)
        value, warnings = kind.clean(item, unit, raw, answers, options)
        revision = store().save_answer(a.id, item.id, unit, value)
        answers = {**answers, unit: value}
        return item, unit, answers, warnings, revision

    @bp.post("/a/<token>/<int:pos>")
    def submit(token: str, pos: int) -> Any:
        a = annotator(token)
        fields = {k: v for k, v in request.form.items()}
        try:
            item, unit, answers, _, _ = save_fields(a, pos, fields)
        except AnswerError as exc:
            return render_item(a, token, pos, error=str(exc), status=400)
        return redirect(next_url(token, pos, item, unit, answers), code=303)

    @bp.post("/a/<token>/<int:pos>/answer")
    def save(token: str, pos: int) -> Any:
        a = annotator(token)
        body = request.get_json(silent=True)
        if not isinstance(body, dict) or not isinstance(body.get("fields"), dict):
            return jsonify({"ok": False, "error": "send {\"fields\": {...}} as JSON"}), 400
        fields = {str(k): str(v) for k, v in body["fields"].items()}
        try:
            item, unit, answers, warnings, revision = save_fields(a, pos, fields)
        except AnswerError as exc:
            return jsonify({"ok": False, "error": str(exc)}), 400
        done = summary(a)  # the header's progress bar moves as soon as an item is done
        return jsonify({"ok": True, "revision": revision, "warnings": warnings,
                        "complete": kind.is_complete(item, answers),
                        "progress": {"done": done["done"], "total": done["total"]},
                        "next": next_url(token, pos, item, unit, answers)})

    @bp.get("/a/<token>/done")
    def finish(token: str) -> str:
        a = annotator(token)
        return render_template("study/done.html", **context(a, token))

    @bp.get("/admin/<token>/")
    def admin(token: str) -> str:
        from refbench.studies.report import study_agreement

        a = annotator(token, role="admin")
        report = study_agreement(path)
        links = [(x.name, url_for(f"{name}.home", token=x.token, _external=True))
                 for x in store().annotators()]
        review = None
        if kind.reviewable:
            from refbench.studies.review import review_table

            review = review_table(store(), request.args)
        return render_template("study/admin.html", kind=kind, meta=meta, report=report,
                               links=links, token=token, bp=name, who=a.name, review=review)

    @bp.get("/admin/<token>/review.csv")
    def review_csv(token: str) -> Response:
        """The review table's rows under its filters, as the export's CSV."""
        from refbench.studies.export import rows, to_csv
        from refbench.studies.review import filtered

        annotator(token, role="admin")
        body = to_csv(filtered(rows(store()), request.args))
        resp = Response(body, mimetype="text/csv")
        resp.headers["Content-Disposition"] = "attachment; filename=review.csv"
        return resp

    @bp.get("/admin/<token>/export.<fmt>")
    def download(token: str, fmt: str) -> Response:
        import json

        from refbench.studies.export import rows, to_csv, to_json

        annotator(token, role="admin")
        if fmt == "csv":
            body, mime = to_csv(rows(store())), "text/csv"
        elif fmt == "json":
            body, mime = json.dumps(to_json(store()), ensure_ascii=False), "application/json"
        else:
            abort(404)
        resp = Response(body, mimetype=mime)
        resp.headers["Content-Disposition"] = f"attachment; filename=study.{fmt}"
        return resp

    @bp.errorhandler(HTTPException)
    def _error(exc: HTTPException) -> tuple[str, int]:
        return render_template("study/error.html", code=exc.code,
                               message=exc.description if exc.code != 404 else
                               "No such page."), exc.code or 500

    return bp

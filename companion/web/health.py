"""`GET /healthz`: the health report for monitoring (200 when nothing is broken, else 503).

The full report names the last dice, the dealer, the prevalent wind, the data folder and the
disk: it goes to the Pi itself (`companion doctor`, a monitor on the Pi, the Pi's own screen)
and the host. Anyone else gets only `{"ok": true|false}` with the same status.
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify

from companion.web.guard import current_viewer, may_see_health

health = Blueprint("health", __name__)


@health.get("/healthz")
def healthz():
    from companion.health import live_report

    report = live_report(current_app.extensions["companion"])
    body = report.to_json() if may_see_health(current_viewer()) else {"ok": report.ok}
    resp = jsonify(body)
    resp.headers["Cache-Control"] = "no-store"
    return resp, 200 if report.ok else 503

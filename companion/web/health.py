"""`GET /healthz`: the health report for monitoring (200 when nothing is broken, else 503)."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify

health = Blueprint("health", __name__)


@health.get("/healthz")
def healthz():
    from companion.health import live_report

    report = live_report(current_app.extensions["companion"])
    return jsonify(report.to_json()), 200 if report.ok else 503

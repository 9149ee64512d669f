"""JSON API: the same state object the phones render, and the game log."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from companion.services import Services

api = Blueprint("api", __name__)


def services() -> Services:
    return current_app.extensions["companion"]


@api.get("/api/state")
def get_state():
    state = services().table.state
    return jsonify(state.to_json() if state else None)


@api.get("/api/events")
def get_events():
    after = request.args.get("after", default=0, type=int)
    table = services().table
    return jsonify([r.to_json() for r in table.records() if r.id > after])

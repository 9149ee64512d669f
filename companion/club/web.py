"""The hub's pages and API (Flask): the projector, a page per player, the tables and standings as JSON.

GET /                     the projector: every table live (SSE)
GET /players/<name>       a player's phone page: their table now, their games and place
GET /api/tables           [{"table","last_seq","variant","hand","round","east","scores","game_over",…}]
GET /api/tables/stream    the same list as Server-Sent Events ("tables"), after every change;
                          ?changes=1: the list once, then only the rows that changed ("rows")
GET /api/tables/<id>      one table: its state as the table's own /api/state shows it, warnings
GET /api/tables/<id>/events?after=N   the table's events the hub holds, as the table's /api/events
GET /api/players          standings across tables and games
GET /referee, /api/tournament…  the tournament (companion/club/referee.py)
GET /healthz[?delays=N]   the hub's link to the broker, tables, events stored, delays (of the last N)
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator

from flask import Flask, Response, abort, jsonify, render_template, request

from companion.club.hub import ClubHub

#: seconds between keep-alive comments on an idle stream (a dead projector link is noticed)
KEEPALIVE = 15.0


def create_hub_app(hub: ClubHub, referee=None) -> Flask:
    """The hub's app; with a `Referee` (companion/club/referee.py) also the tournament's pages and API."""
    app = Flask(__name__, template_folder="templates")
    app.json.sort_keys = False
    app.secret_key = secrets.token_bytes(32)  # the referee's login lasts until the hub restarts
    if referee is not None:
        from companion.club.referee import referee_blueprint

        app.register_blueprint(referee_blueprint(referee))

    @app.get("/")
    def projector():
        return render_template("projector.html")

    @app.get("/players/<name>")
    def player_page(name: str):
        return render_template("player.html", name=name)

    @app.get("/api/tables")
    def tables():
        return jsonify(hub.summaries())

    @app.get("/api/tables/stream")
    def tables_stream():
        """The whole list ("tables") after every change; with ?changes=1 the whole list once, then
        only the rows that changed ("rows"): 418 bytes a table, so at 500 tables the difference
        between 0.4 KB and 209 KB a change (docs/club.md)."""
        changes = request.args.get("changes") == "1"

        def generate() -> Iterator[bytes]:
            yield b"retry: 2000\n\n"
            version, sent = -1, {}
            while not hub._stop.is_set():
                now = hub.wait_change(version, KEEPALIVE)
                if now == version:
                    yield b": keep-alive\n\n"
                    continue
                version = now
                rows = {r["table"]: json.dumps(r) for r in hub.summaries()}
                if changes and sent:
                    changed = [text for table, text in rows.items() if sent.get(table) != text]
                    if changed:
                        yield f"event: rows\ndata: [{','.join(changed)}]\n\n".encode()
                else:
                    yield f"event: tables\ndata: [{','.join(rows.values())}]\n\n".encode()
                sent = rows

        return Response(generate(), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    @app.get("/api/tables/<table>")
    def table(table: str):
        found = hub.table_state(table)
        if found is None:
            abort(404, f"no table {table!r} has sent anything to this hub")
        return jsonify(found)

    @app.get("/api/tables/<table>/events")
    def table_events(table: str):
        raw = request.args.get("after", "0")
        if not raw.isdigit():
            abort(400, "after must be an event number")
        if hub.table_state(table) is None:
            abort(404, f"no table {table!r} has sent anything to this hub")
        rows = hub.read_rows(table, int(raw))
        # as the table's /api/events gives them: the record's id, game and time, then the stored event
        # (read as JSON, not as an event: one this hub's version cannot read is still shown)
        return jsonify([{"id": seq, "game": game, "at": at, **json.loads(payload)} for seq, game, at, payload in rows])

    @app.get("/api/players")
    def players():
        return jsonify(hub.standings())

    @app.get("/healthz")
    def healthz():
        raw = request.args.get("delays", "")
        health = hub.health(int(raw) if raw.isdigit() and int(raw) > 0 else None)
        return jsonify(health), 200 if health["ok"] else 503

    return app

"""The hub's tournament mode: the referee's book (players, tables, sessions with their seating and
clock, penalties), kept in the hub's data folder, and its pages and API.

The rules of the house are the pure functions of `companion.club.tournament`; this module keeps
the book (tournament.json, written atomically), and reads each session's results from the tables'
games the hub holds: a session's game at a table is the latest game started there after the
session was seated, with the four seated players; its hands count up to the end of time (seed 004).
Changes need the referee code (`companion hub --referee-code`, else made up and kept in the data
folder): a phone or laptop logs in once on /referee, a script sends it as `X-Referee-Code`.
"""

from __future__ import annotations

import hmac
import os
import secrets
import threading
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
from flask import Blueprint, Response, jsonify, redirect, render_template, request, session

from companion.club import tournament as tm
from companion.club.hub import ClubHub
from companion.game.events import GameStarted
from companion.game.fold import fold

REFEREE_HEADER = "X-Referee-Code"


class Session(msgspec.Struct, kw_only=True):
    number: int
    created: str  # UTC ISO: games started at the tables after this belong to the session
    minutes: float
    warning_minutes: float
    method: str
    seating: dict[str, list[str]]
    repeats: int = 0
    started: str | None = None


class Penalty(msgspec.Struct, kw_only=True):
    player: str
    points: int
    reason: str
    at: str


class Book(msgspec.Struct, kw_only=True):
    name: str
    players: list[str]
    tables: list[str]
    sessions: list[Session] = msgspec.field(default_factory=list)
    penalties: list[Penalty] = msgspec.field(default_factory=list)
    ema_ids: dict[str, str] = msgspec.field(default_factory=dict)


def _now() -> datetime:
    return datetime.now(UTC)


class Referee:
    """The tournament book of one hub; thread-safe."""

    def __init__(self, hub: ClubHub, data_dir: Path, code: str | None = None) -> None:
        self.hub = hub
        self.path = Path(data_dir) / "tournament.json"
        self._lock = threading.Lock()
        self.book: Book | None = None
        if self.path.is_file():
            self.book = msgspec.json.decode(self.path.read_bytes(), type=Book)
        code_file = Path(data_dir) / "referee-code"
        if code:
            self.code = code
        elif code_file.is_file():
            self.code = code_file.read_text().strip()
        else:
            self.code = secrets.token_hex(4).upper()
            fd = os.open(code_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(self.code + "\n")

    def _save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "wb") as f:
            f.write(msgspec.json.encode(self.book))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    # --- changes (the referee's) ----------------------------------------------------------------------
    def create(self, name: str, players: list[str], tables: list[str], ema_ids: dict[str, str] | None = None) -> Book:
        players = [p.strip() for p in players if p.strip()]
        tables = [t.strip() for t in tables if t.strip()]
        if not name.strip():
            raise tm.TournamentError("the tournament needs a name")
        if len(players) < 4 or len(players) % 4:
            raise tm.TournamentError(f"{len(players)} players: a tournament needs a multiple of four")
        if len(set(players)) != len(players) or len(set(tables)) != len(tables):
            raise tm.TournamentError("a player or table is named twice")
        if len(tables) < len(players) // 4:
            raise tm.TournamentError(f"{len(players) // 4} tables are needed, {len(tables)} given")
        with self._lock:
            if self.book is not None and self.book.sessions:
                raise tm.TournamentError("a tournament with sessions is under way; it cannot be replaced")
            self.book = Book(name=name.strip(), players=players, tables=tables, ema_ids=dict(ema_ids or {}))
            self._save()
            return self.book

    def new_session(self, method: str, minutes: float, warning_minutes: float, *,
                    groups: list[list[str]] | None = None, seed: int | None = None) -> Session:
        with self._lock:
            book = self._need_book()
            if not 5 <= minutes <= 600 or not 0 <= warning_minutes < minutes:
                raise tm.TournamentError("a session lasts 5-600 minutes, its warning less than that")
            before = tm.met(s.seating for s in book.sessions)
            if method == "random":
                seating = tm.random_seating(book.players, book.tables, seed if seed is not None else
                                            secrets.randbits(32))
            elif method == "swiss":
                ranked = [r.player for r in self._standings(book)]
                seating = tm.swiss_seating(ranked, book.tables, before)
            elif method == "fixed":
                seating = tm.fixed_seating(groups or [], book.tables, book.players)
            else:
                raise tm.TournamentError(f"seating {method!r}: random, swiss or fixed")
            s = Session(number=len(book.sessions) + 1, created=_now().isoformat(), minutes=minutes,
                        warning_minutes=warning_minutes, method=method, seating=seating,
                        repeats=tm.repeats(seating, before))
            book.sessions.append(s)
            self._save()
            return s

    def start(self, number: int) -> Session:
        with self._lock:
            s = self._session(number)
            if s.started is not None:
                raise tm.TournamentError(f"session {number} was started at {s.started}")
            s.started = _now().isoformat()
            self._save()
            return s

    def penalty(self, player: str, points: int, reason: str) -> Penalty:
        with self._lock:
            book = self._need_book()
            if player not in book.players:
                raise tm.TournamentError(f"no player {player!r} in the tournament")
            if not reason.strip() or points == 0:
                raise tm.TournamentError("a penalty has points and a reason")
            p = Penalty(player=player, points=points, reason=reason.strip(), at=_now().isoformat())
            book.penalties.append(p)
            self._save()
            return p

    def _need_book(self) -> Book:
        if self.book is None:
            raise tm.TournamentError("no tournament yet: the referee creates one first")
        return self.book

    def _session(self, number: int) -> Session:
        book = self._need_book()
        if not 1 <= number <= len(book.sessions):
            raise tm.TournamentError(f"no session {number}")
        return book.sessions[number - 1]

    # --- reading -------------------------------------------------------------------------------------
    def session_results(self, s: Session) -> tuple[dict[str, dict[str, int]], list[str]]:
        """Each table's session scores, and what is missing (a table with no game of the session)."""
        clock = tm.Clock(datetime.fromisoformat(s.started) if s.started else None, s.minutes, s.warning_minutes)
        created = datetime.fromisoformat(s.created)
        results, missing = {}, []
        with self.hub._lock:
            views = {t: self.hub.tables.get(t) for t in s.seating}
            found = {}
            for table, seated in s.seating.items():
                view = views[table]
                games = [] if view is None else [
                    recs for recs in view.by_game.values()
                    if recs and isinstance(recs[0].event, GameStarted) and recs[0].at >= created
                    and set(recs[0].event.players) == set(seated)]
                found[table] = games[-1] if games else None
        for table, seated in s.seating.items():
            recs = found[table]
            if recs is None:
                missing.append(table)
                results[table] = {p: 0 for p in seated}
                continue
            state = fold(recs)
            at = {r.id: r.at for r in recs}
            hands = [(at[h["event"]], h.get("deltas") or {}) for h in state.history if h["event"] in at]
            results[table] = tm.session_scores(seated, hands, clock.ends)
        return results, missing

    def _standings(self, book: Book) -> list[tm.Standing]:
        sessions = [self.session_results(s)[0] for s in book.sessions if s.started]
        fines: dict[str, int] = {}
        for p in book.penalties:
            fines[p.player] = fines.get(p.player, 0) + p.points
        return tm.rank(book.players, sessions, fines)

    def view(self) -> dict[str, Any] | None:
        book = self.book
        if book is None:
            return None
        now = _now()
        sessions = []
        for s in book.sessions:
            clock = tm.Clock(datetime.fromisoformat(s.started) if s.started else None, s.minutes, s.warning_minutes)
            results, missing = self.session_results(s) if s.started else ({}, [])
            sessions.append({**msgspec.to_builtins(s), "clock": clock.at(now), "results": results,
                             "no_game_yet": missing})
        return {"name": book.name, "players": book.players, "tables": book.tables, "sessions": sessions,
                "penalties": msgspec.to_builtins(book.penalties),
                "ranking": [asdict(r) for r in self._standings(book)]}

    def csv(self) -> str:
        book = self._need_book()
        return tm.ema_csv(self._standings(book), book.ema_ids)

    def is_referee(self) -> bool:
        given = request.headers.get(REFEREE_HEADER) or ""
        return bool(session.get("referee")) or (bool(given) and hmac.compare_digest(given, self.code))


def referee_blueprint(ref: Referee) -> Blueprint:
    bp = Blueprint("referee", __name__)

    def from_page() -> bool:
        """A form on /referee (answered with the page again), not a script (answered in JSON)."""
        return request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data")

    def body() -> dict:
        if not from_page():
            if not request.get_data():
                return {}
            data = request.get_json(force=True, silent=True)
            if not isinstance(data, dict):
                raise tm.TournamentError("the body must be a JSON object")
            return data
        return request.form.to_dict()

    def need_referee():
        if not ref.is_referee():
            return jsonify({"error": "referee_only", "message": "only the referee (logged in on /referee) may "
                            f"change the tournament; scripts send {REFEREE_HEADER}"}), 403
        return None

    def done(result: Any, status: int = 200):
        if from_page():
            return redirect("/referee")
        return jsonify(result), status

    @bp.errorhandler(tm.TournamentError)
    def refused(e: tm.TournamentError):
        if from_page():
            return render_template("referee.html", book=ref.view(), error=str(e), referee=ref.is_referee()), 400
        return jsonify({"error": "refused", "message": str(e)}), 400

    @bp.get("/referee")
    def page():
        return render_template("referee.html", book=ref.view(), error=None, referee=ref.is_referee())

    @bp.post("/referee/login")
    def login():
        code = request.form.get("code", "")
        if hmac.compare_digest(code.strip().upper(), ref.code.upper()):
            session["referee"] = True
            return redirect("/referee")
        return render_template("referee.html", book=ref.view(), error="wrong referee code", referee=False), 403

    @bp.post("/referee/logout")
    def logout():
        session.pop("referee", None)
        return redirect("/referee")

    @bp.get("/api/tournament")
    def get_tournament():
        return jsonify(ref.view())

    @bp.get("/api/tournament/results.csv")
    def results_csv():
        return Response(ref.csv(), mimetype="text/csv",
                        headers={"Content-Disposition": "attachment; filename=results.csv"})

    @bp.post("/api/tournament")
    def create():
        if (denied := need_referee()) is not None:
            return denied
        b = body()
        players = b.get("players", [])
        tables = b.get("tables", [])
        players = players.splitlines() if isinstance(players, str) else list(players)
        tables = tables.replace(",", " ").split() if isinstance(tables, str) else [str(t) for t in tables]
        book = ref.create(str(b.get("name", "")), players, tables, b.get("ema_ids") or {})
        return done(msgspec.to_builtins(book), 201)

    @bp.post("/api/tournament/sessions")
    def new_session():
        if (denied := need_referee()) is not None:
            return denied
        b = body()
        groups = b.get("groups")
        if isinstance(groups, str):  # a form's textarea: one table a line, players by commas
            groups = [[p.strip() for p in line.split(",")] for line in groups.splitlines() if line.strip()]
        try:
            minutes, warning = float(b.get("minutes", 90)), float(b.get("warning_minutes", 10))
            seed = int(b["seed"]) if str(b.get("seed", "")).strip() else None
        except (TypeError, ValueError):
            raise tm.TournamentError("minutes, warning_minutes and seed are numbers") from None
        s = ref.new_session(str(b.get("seating", "random")), minutes, warning, groups=groups, seed=seed)
        return done(msgspec.to_builtins(s), 201)

    @bp.post("/api/tournament/sessions/<int:number>/start")
    def start(number: int):
        if (denied := need_referee()) is not None:
            return denied
        return done(msgspec.to_builtins(ref.start(number)))

    @bp.post("/api/tournament/penalties")
    def penalty():
        if (denied := need_referee()) is not None:
            return denied
        b = body()
        try:
            points = int(b.get("points", 0))
        except (TypeError, ValueError):
            raise tm.TournamentError("points is a whole number") from None
        return done(msgspec.to_builtins(ref.penalty(str(b.get("player", "")), points, str(b.get("reason", "")))), 201)

    return bp

"""Request guards: the viewer's role from the session, read/write/host checks, CSRF, security headers.

Routes stay short: a route calls `require_write()` (or `require_read()`, `require_host()`) and
gets the `Viewer`; every unsafe request is checked for a single-use CSRF token before any
route runs (see `access.py` for the model).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from flask import Flask, current_app, g, request, session
from flask_babel import gettext as _

from companion.services import Services
from companion.web.access import AttemptLimiter, CsrfTokens, Sessions, TableAccess, Viewer, is_loopback
from companion.web.errors import WebError
from companion.web.seats import seat_book

CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


@dataclass
class WebContext:
    """What the web layer keeps for the app's lifetime (app.extensions["companion_web"])."""

    services: Services
    access: TableAccess
    csrf: CsrfTokens
    limiter: AttemptLimiter
    broker: object  # push.PushBroker (import cycle avoided)
    sessions: Sessions


def web() -> WebContext:
    return current_app.extensions["companion_web"]


def services() -> Services:
    return web().services


def session_id() -> str:
    sid = session.get("sid")
    if not sid:
        sid = session["sid"] = secrets.token_urlsafe(18)
        session.permanent = True
    return sid


def current_viewer() -> Viewer:
    if "viewer" in g:
        return g.viewer
    access = web().access
    sid = session_id()
    role = session.get("role", "anonymous")
    if role not in ("spectator", "player", "host") or session.get("epoch") != _epoch(
            access, role, bool(session.get("with_code"))) or not web().sessions.valid(sid):
        role = "anonymous"  # joined with a code that has since been changed, left, or joined too long ago
    player = name = None
    state = services().table.state
    if role in ("player", "host") and state is not None:
        p = session.get("player")
        # the claim holds while that player has the name they had when the phone took the seat
        # ... and while no other phone has taken that seat since (web/seats.py)
        if isinstance(p, int) and 0 <= p < len(state.players) and state.players[p] == session.get("pname") \
                and seat_book().holds(p, state.players[p], session.get("claim")):
            player, name = p, state.players[p]
    g.viewer = Viewer(role=role, sid=sid, player=player, name=name)
    return g.viewer


def _epoch(access: TableAccess, role: str, with_code: bool) -> str:
    """Spectators who joined with the table code lose it with the code, like players."""
    return access.epoch("player" if role == "spectator" and with_code else role)


def sign_in(role: str, *, with_code: bool = True) -> None:
    """Start a table session: a new session id (no fixation), the role and the code's epoch."""
    access = web().access
    old = session.get("sid")
    if old and web().sessions.end(old):  # a phone that joins again is one session, not two
        web().csrf.forget(old)
    session.clear()
    session["sid"] = secrets.token_urlsafe(18)
    session.permanent = True
    session["role"] = role
    session["with_code"] = with_code
    session["epoch"] = _epoch(access, role, with_code)
    g.pop("viewer", None)
    web().sessions.start(session["sid"], role)
    g.fresh_csrf = web().csrf.issue(session["sid"], joined=True)  # tokens of the old session id are void


def claim_seat(player: int, name: str) -> str:
    """This phone holds `player`'s seat (under `name`); the claim's id, which the seat book keeps."""
    claim = secrets.token_urlsafe(9)
    session["player"] = player
    session["pname"] = name
    session["claim"] = claim
    seat_book().claim(player, name, claim)
    g.pop("viewer", None)
    return claim


def sign_out() -> None:
    """End this phone's session on the server too: a copy of its cookie no longer counts."""
    ended = session.get("sid")
    seat, claim = session.get("player"), session.get("claim")
    if isinstance(seat, int) and isinstance(claim, str):
        seat_book().release(seat, claim)  # a phone that leaves frees its seat
    session.clear()
    g.pop("viewer", None)
    if ended:
        web().sessions.end(ended)
        web().csrf.forget(ended)
        web().broker.end_session(ended)  # its open streams (a joined phone's right) end with it
    g.fresh_csrf = web().csrf.issue(session_id())


def is_joined(viewer: Viewer) -> bool:
    """Joined with a code (player, host, or a spectator who typed the table code), or the Pi's own
    screen: who gets a live stream and the camera view without `spectator_streams`."""
    if viewer.role in ("player", "host"):
        return True
    if viewer.role == "spectator" and session.get("with_code"):
        return True
    return is_loopback(request.remote_addr)


def may_stream(viewer: Viewer) -> bool:
    """Whether this page may open a live stream at all (else it fetches the state now and then)."""
    return is_joined(viewer) or services().settings.server.spectator_streams > 0


def may_see_health(viewer: Viewer) -> bool:
    """The full health report (dice, dealer, data folder, disk) is the host's and the Pi's own."""
    return viewer.is_host or is_loopback(request.remote_addr)


def can_read(viewer: Viewer) -> bool:
    if viewer.role in ("player", "host"):
        return True
    if not services().settings.server.require_code_for_reads:
        return True
    return viewer.role == "spectator" and bool(session.get("with_code"))


def require_read() -> Viewer:
    viewer = current_viewer()
    if not can_read(viewer):
        raise WebError(401, "join_first", _("Join the table with its code to watch."))
    return viewer


def read_right(viewer: Viewer) -> Callable[[], bool]:
    """Whether `viewer`'s session may still read, for its event stream to ask long after the request.

    A joined session's stream ends when the session does: a new code, "Leave" (also from another
    copy of the cookie), or its end of life. Between changes this is two integer comparisons and
    a clock reading, so a stream can ask before every message. An anonymous watcher's stream
    (only where reads are open) never loses the right.
    """
    if viewer.role == "anonymous":
        return lambda: True
    access, sessions = web().access, web().sessions
    role, with_code, epoch, sid = viewer.role, bool(session.get("with_code")), session.get("epoch"), viewer.sid
    ends = sessions.ends_at(sid) or 0.0
    checked: tuple[int, int] | None = None  # the generations the session was last found valid in

    def may_read() -> bool:
        nonlocal checked
        if time.time() >= ends:
            return False
        generations = (access.generation, sessions.generation)  # read first: a later change is seen next time
        if generations != checked:
            if _epoch(access, role, with_code) != epoch or not sessions.valid(sid):
                return False
            checked = generations
        return True

    return may_read


def require_write() -> Viewer:
    viewer = current_viewer()
    if not viewer.can_write:
        if viewer.role == "spectator":
            raise WebError(403, "read_only", _("Spectators can watch but not change anything."))
        raise WebError(401, "join_first", _("Join the table with its code first."))
    return viewer


def require_host() -> Viewer:
    viewer = require_write()
    if not viewer.is_host:
        raise WebError(403, "host_only", _("Only the host can do that (join with the host code)."))
    return viewer


def shows_code(viewer: Viewer) -> bool:
    """The join QR code and table code are shown to joined players and on the Pi's own screen."""
    if viewer.can_write:
        return True
    return services().settings.server.local_screen_shows_code and is_loopback(request.remote_addr)


def csrf_token() -> str:
    """A fresh single-use token for this session (for a page's meta tag or a form)."""
    sid = session_id()
    return web().csrf.issue(sid, joined=web().sessions.valid(sid))


def _same_origin() -> bool:
    """A browser's Origin (or Referer) must name this server; tools that send neither are let through."""
    origin = request.headers.get("Origin") or request.headers.get("Referer")
    if not origin or origin == "null":
        return origin is None
    return urlsplit(origin).netloc == request.host


def check_origin() -> None:
    if not _same_origin():
        raise WebError(403, "cross_origin", _("Requests from other sites are refused."))


def check_csrf() -> None:
    if request.method not in UNSAFE_METHODS:
        return
    check_origin()
    token = request.headers.get(CSRF_HEADER) or (request.form.get(CSRF_FIELD) if request.mimetype in (
        "application/x-www-form-urlencoded", "multipart/form-data") else None)
    sid = session.get("sid", "")
    ok = web().csrf.consume(sid, token or "")
    g.fresh_csrf = csrf_token()  # the next write's token, also after a refusal
    if not ok:
        raise WebError(403, "csrf", _("This page's security token has expired or was already used; try again."))


SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",  # other sites never see our addresses; ours keep Origin
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}


def install(app: Flask) -> None:
    app.before_request(check_csrf)
    app.jinja_env.globals["csrf_token"] = csrf_token  # one fresh token per form on a page

    @app.after_request
    def _headers(resp):
        for k, v in SECURITY_HEADERS.items():
            resp.headers.setdefault(k, v)
        fresh = g.get("fresh_csrf")
        if fresh:
            resp.headers[CSRF_HEADER] = fresh
        if request.path.startswith("/api/") and "Cache-Control" not in resp.headers:
            resp.headers["Cache-Control"] = "no-store"
        return resp

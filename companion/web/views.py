"""The pages: join, seat view (phone), table view (tablet/TV), history, settings; plus the
wall diagram and QR code as SVG, the PWA manifest and service worker.

Pages are rendered with the state as it is now (embedded as JSON) and then kept live by
`static/app.js` from the SSE stream; the wall diagram is always drawn here, in Python, from the
same geometry as the CLI (`wallsvg.py`).
"""

from __future__ import annotations

import io
from pathlib import Path
from urllib.parse import urlsplit

import segno
from flask import Blueprint, Response, current_app, redirect, render_template, request, send_from_directory, session, url_for
from flask_babel import gettext as _

from companion.errors import CompanionError
from companion.rules.seats import WINDS
from companion.web.access import Viewer
from companion.web.bodies import JoinBody, idempotency_key
from companion.web.errors import WebError
from companion.web.guard import (
    can_read,
    csrf_token,
    current_viewer,
    may_stream,
    require_host,
    require_read,
    require_write,
    services,
    shows_code,
    sign_out,
    web,
)
from companion.web.i18n import LANGUAGES, client_strings, error_message, select_locale
from companion.web.joining import join, take_seat
from companion.web.seats import seat_book
from companion.web.wallsvg import legend, wall_svg
from companion.web.writes import game_write

views = Blueprint("views", __name__)


def join_url(code: str | None = None) -> str:
    """The link in the QR code: the code rides in the fragment, which browsers never send to a server."""
    base = public_base_url()
    return f"{base}/join" + (f"#code={code}" if code else "")


def public_base_url() -> str:
    """Where phones reach the dashboard (`address.public_base`): never 127.0.0.1 on the table's own screen."""
    from companion.web import address
    configured = services().settings.server.public_url or current_app.config.get("COMPANION_PUBLIC_URL") or ""
    return address.public_base(request.host_url, configured)


def page(template: str, **context):
    """Render a page with what every page needs: the viewer, the state, a CSRF token, the words for the script."""
    viewer = current_viewer()
    state = services().table.state
    readable = can_read(viewer)
    status = context.pop("status", 200)
    context.setdefault("page_name", template.removesuffix(".html"))
    context.setdefault("viewer_wind", "E")
    context.setdefault("seats_taken", seat_book().taken(state.players) if state else {})
    context.setdefault("lost_seat", _lost_seat(viewer, state))
    body = render_template(
        # the state for the script only to a session that may read it (scores and history are
        # the table's own where reads need the code; the join page still names the seats)
        template, viewer=viewer, state=state, state_json=services().table.state_json() if state and readable else None,
        csrf=csrf_token(), strings=client_strings(), can_read=readable,
        show_code=shows_code(viewer), live=may_stream(viewer), **context)
    return body, status


def _lost_seat(viewer: Viewer, state) -> str | None:
    """The name of the player whose seat this phone held until another phone took it over."""
    p = session.get("player")
    if viewer.player is not None or state is None or not isinstance(p, int) or not 0 <= p < len(state.players):
        return None
    lost = seat_book().lost(p, state.players[p], session.get("pname"), session.get("claim"))
    return session.get("pname") or state.players[p] if lost else None


def _viewer_wind(viewer: Viewer) -> str:
    state = services().table.state
    if viewer.player is not None and state is not None:
        return state.seat_wind(viewer.player)
    return "E"


@views.get("/")
def index():
    viewer = current_viewer()
    if viewer.can_write or (viewer.role == "spectator" and can_read(viewer)):
        return redirect(url_for("views.seat"))
    return redirect(url_for("views.join_page"))


# --- joining ---------------------------------------------------------------------------------------

@views.get("/join")
def join_page():
    return page("join.html")


@views.post("/join")
def join_form():
    form = request.form
    player = form.get("player") or None
    try:
        join(JoinBody(role=form.get("role", "player"), code=form.get("code", ""),  # type: ignore[arg-type]
                               player=player, name=form.get("name") or None, take_over=bool(form.get("take_over"))))
    except WebError as e:  # its headers too: a 429 says when to try again (Retry-After)
        return *page("join.html", error=e.message, status=e.status, form=form), e.headers
    except (CompanionError, ValueError) as e:
        return page("join.html", error=error_message(e), status=400, form=form)
    # after joining, nothing secret is in the address: the page is plain /seat
    return redirect(url_for("views.seat"), 303)


@views.post("/seat")
@game_write
def seat_form():
    require_write()
    try:
        take_seat(request.form.get("player", ""), request.form.get("name") or None, bool(request.form.get("take_over")))
    except WebError as e:
        return page("seat.html", error=e.message, status=e.status, viewer_wind=_viewer_wind(current_viewer()))
    return redirect(url_for("views.seat"), 303)


@views.post("/leave")
def leave():
    lang = session.get("lang")
    sign_out()
    if lang:
        session["lang"] = lang
    return redirect(url_for("views.join_page"), 303)


@views.post("/lang")
def set_language():
    lang = request.form.get("lang", "")
    if lang not in LANGUAGES:
        raise WebError(400, "bad_request", _("Unknown language."))
    session["lang"] = lang
    return redirect(_local_path(request.form.get("next")) or url_for("views.index"), 303)


def _local_path(target: str | None) -> str | None:
    """Only a path on this server (no open redirect): no scheme or host, no backslash (browsers
    read `/\\host` as `//host`), no control characters or spaces (a line break in a Location
    header is refused by the server: it was a 500)."""
    if not target or not target.startswith("/") or target.startswith("//"):
        return None
    if "\\" in target or any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in target):
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return None
    return target


# --- the views -----------------------------------------------------------------------------------

def _readable_page(template: str, **context):
    viewer = current_viewer()
    if not can_read(viewer):
        return redirect(url_for("views.join_page"))
    return page(template, **context)


@views.get("/seat")
def seat():
    viewer = current_viewer()
    if not can_read(viewer):
        return redirect(url_for("views.join_page"))
    wind = request.args.get("view") if viewer.player is None else None
    wind = wind if wind in WINDS else _viewer_wind(viewer)
    state = services().table.state
    return page("seat.html", viewer_wind=wind,
                wall=wall_svg(state, wind, you=viewer.player) if state else "", legend=legend())


@views.get("/table")
def table_view():
    viewer = current_viewer()
    if not can_read(viewer):
        return redirect(url_for("views.join_page"))
    # the screen stands beside one player's chair (chosen on the screen, kept by its browser):
    # the wall is drawn from that player's seat wind now, so it stays put as the dealer changes
    # (until chosen: a seated phone's own chair, else the first-hand East's)
    raw = request.args.get("side")
    side = int(raw) if raw in ("0", "1", "2", "3") else viewer.player if viewer.player is not None else 0
    state = services().table.state
    wind = state.seat_wind(side) if state else "E"
    dice = services().find("dice")
    return page("table.html", viewer_wind=wind, side=side, wall=wall_svg(state, wind) if state else "", legend=legend(),
                can_roll=callable(getattr(dice, "press_roll", None)),
                table_code=web().access.table_code if shows_code(viewer) else None,
                join_link=join_url() if shows_code(viewer) else None)


@views.get("/history")
def history():
    return _readable_page("history.html")


@views.get("/settings")
def settings_page():
    viewer = current_viewer()
    if not can_read(viewer):
        return redirect(url_for("views.join_page"))
    from companion.web.api import list_games, list_variants
    from companion.web.samples import summary
    return page("settings.html", variants=list_variants() if viewer.is_host else [],
                table_code=web().access.table_code if shows_code(viewer) else None,
                host_code_hint=viewer.is_host, samples=summary() if viewer.is_host else None,
                games=list_games() if viewer.is_host else [])


@views.post("/settings/game")
@game_write
def new_game_form():
    require_host()
    from companion.web.api import list_variants, start_new_game
    players = [request.form.get(f"player{i}", "") for i in range(4)]
    try:
        if request.form.get("confirm") != "yes":  # one tap never ends a game being played
            raise WebError(400, "confirm", _("Tick the box to start a new game: the current game is kept, and "
                                             "can be reopened under “Previous games”."))
        start_new_game(request.form.get("variant", ""), players, key=idempotency_key())
    except (WebError, CompanionError) as e:
        message = e.message if isinstance(e, WebError) else error_message(e)
        return page("settings.html", variants=list_variants(), error=message, status=400,  # what was typed, kept
                    table_code=web().access.table_code, host_code_hint=True,
                    typed=players, typed_variant=request.form.get("variant", ""))
    return redirect(url_for("views.seat"), 303)


@views.post("/settings/host-code")
@game_write(versioned=False)  # a double tap makes one new code
def new_host_code_form():
    """A new host code, after the host ticked the box that says what it does."""
    require_host()
    from companion.web.api import change_host_code, list_variants
    from companion.web.samples import summary
    if request.form.get("confirm") != "yes":
        raise WebError(400, "confirm", _("Tick the box to confirm: every other host phone must join again."))
    code = change_host_code()
    # shown once, on this page only (never in an address): the host writes it down
    return page("settings.html", variants=list_variants(), table_code=web().access.table_code,
                host_code_hint=True, samples=summary(), new_host_code=code)


@views.post("/settings/code")
@game_write(versioned=False)  # a double tap makes one new code
def new_code_form():
    require_host()
    if request.form.get("confirm") != "yes":  # one tap never signs every phone out
        raise WebError(400, "confirm", _("Tick the box to confirm: every phone must join again with the new code."))
    try:
        web().access.new_table_code()
    except CompanionError as e:
        raise WebError(409, "refused", error_message(e)) from None
    return redirect(url_for("views.settings_page"), 303)


@views.post("/settings/games/<int:game>/reopen")
@game_write
def reopen_game_form(game: int):
    """Play on an earlier game (the host): the game left is kept, to be reopened in its turn."""
    require_host()
    from companion.web.api import reopen_game
    reopen_game(game)
    return redirect(url_for("views.seat"), 303)


# --- pictures ----------------------------------------------------------------------------------------

@views.get("/wall.svg")
def wall():
    """The wall diagram from `view`'s seat wind, or from where player `seat` sits (a table screen
    beside that player's chair), default this phone's own seat: both follow the winds as the
    dealer changes, since they are worked out from the state at each request."""
    viewer = require_read()
    state = services().table.require_state()
    side = request.args.get("seat")
    if side is not None:
        if side not in ("0", "1", "2", "3"):
            raise WebError(400, "bad_request", _("seat must be one of 0, 1, 2, 3"))
        wind = state.seat_wind(int(side))
    else:
        wind = request.args.get("view") or _viewer_wind(viewer)
    if wind not in WINDS:
        raise WebError(400, "bad_request", _("view must be one of E, S, W, N"))
    return Response(str(wall_svg(state, wind, you=viewer.player)), mimetype="image/svg+xml",
                    headers={"Cache-Control": "no-store"})


@views.get("/qr.svg")
def qr():
    """The join QR code (link with the table code), only where the code may be shown."""
    if not shows_code(current_viewer()):
        raise WebError(403, "forbidden", _("Only players at the table can see the table code."))
    out = io.BytesIO()
    segno.make(join_url(web().access.table_code), error="m").save(
        out, kind="svg", scale=6, border=2, title=_("Scan to join the table"), svgclass="qr", lineclass=None)
    return Response(out.getvalue(), mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})


# --- the installable app -------------------------------------------------------------------------

@views.get("/manifest.webmanifest")
def manifest():
    data = {
        "name": _("Mahjong table companion"),
        "short_name": _("Mahjong"),
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "background_color": "#ffffff",
        "theme_color": "#0b5394",
        "lang": select_locale(),
        "icons": [
            {"src": "/static/icons/icon-192.png", "sizes": "192x192", "type": "image/png"},
            {"src": "/static/icons/icon-512.png", "sizes": "512x512", "type": "image/png"},
            {"src": "/static/icons/icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any"},
        ],
    }
    resp = current_app.response_class(current_app.json.dumps(data), mimetype="application/manifest+json")
    return resp


@views.get("/sw.js")
def service_worker():
    """Served from the root so that it controls every page (a worker's scope is its own folder)."""
    resp = send_from_directory(Path(current_app.root_path) / "static", "sw.js", mimetype="text/javascript")
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["Service-Worker-Allowed"] = "/"
    return resp


@views.get("/offline")
def offline():
    """The shell the service worker keeps for when the companion cannot be reached."""
    return render_template("offline.html", strings=client_strings())

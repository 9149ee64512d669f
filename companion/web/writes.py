"""One mechanism for every write that changes the game: `If-Match` and `Idempotency-Key`.

A route that changes the game is decorated with `@game_write` (checked by
tests/integration/test_web_writes.py for every POST route but a few named exemptions):

* **Versions.** The state's version is the id of the game log's last record (`Table.version`;
  it only grows, also across restarts and new games). `GET /api/state`, every pushed state
  (`"version"`) and every answer to a write carry it; answers have `ETag: "N"`.
* **If-Match.** A write sent with `If-Match: "N"` (a form: field `if_match`) is made only if
  the version is still N; otherwise it is refused with 412 and a body saying what was recorded
  in between and by whom (``{"error": "state_changed", "version", "since", "message"}``), and
  nothing changes. Without If-Match (scripts, the CLI) the write is made on the state as it is.
  The check and the write are one step: both run under the table's lock, so of two phones
  sending the same hand on the same version exactly one is recorded.
* **Idempotency-Key.** A request whose key was answered before (a double tap, a retry after a
  timeout) gets that answer again and changes nothing; a key the game log holds (a retry after
  a restart of the companion) is answered by the route from the log's record, whatever its
  If-Match. The same key on another request is refused (422). A form sends the key as field
  `idempotency_key`.

Who made each write is kept in memory (record id -> the phone's player or role) to word the
412: after a restart an earlier write is told as "someone's".
"""

from __future__ import annotations

import functools
import hashlib
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from flask import Flask, current_app, jsonify, make_response, render_template, request, session
from flask_babel import gettext as _
from markupsafe import Markup

from companion.game.events import (
    Corrected,
    DiceAssigned,
    DiceThrown,
    GameResumed,
    GameStarted,
    HandDrawn,
    HandWon,
    PlayerRenamed,
    Recorded,
    Undone,
    WallBroken,
)
from companion.web.bodies import idempotency_key
from companion.web.errors import WebError
from companion.web.guard import current_viewer, services

#: form fields standing in for the headers when a page's form (not the script) posts
IF_MATCH_FIELD = "if_match"
KEY_FIELD = "idempotency_key"
#: answers kept for retries (a phone retries within minutes; the log answers older retries)
KEPT_REPLIES = 2048
KEPT_WRITERS = 4096
#: how many of the changes in between a 412 lists
SINCE_LIMIT = 20
_ETAG = re.compile(r'\s*(?:W/)?"?(\d{1,18})"?\s*')
_FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")


@dataclass(frozen=True)
class _Reply:
    fingerprint: str
    status: int
    body: bytes
    mimetype: str
    headers: tuple[tuple[str, str], ...]
    #: the sessions it is given again to (none named: any); an answer that holds a new code only
    #: to its phone, under the session before or after the write (a new host code signs in anew)
    sessions: frozenset[str] = frozenset()


class WriteBook:
    """The answers given to keyed writes, and who made each record (both bounded, in memory)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.replies: OrderedDict[str, _Reply] = OrderedDict()
        self.writers: OrderedDict[int, str] = OrderedDict()

    def reply(self, key: str) -> _Reply | None:
        with self._lock:
            return self.replies.get(key)

    def keep(self, key: str, reply: _Reply) -> None:
        with self._lock:
            self.replies[key] = reply
            while len(self.replies) > KEPT_REPLIES:
                self.replies.popitem(last=False)

    def wrote(self, ids: list[int], who: str) -> None:
        with self._lock:
            for i in ids:
                self.writers[i] = who
            while len(self.writers) > KEPT_WRITERS:
                self.writers.popitem(last=False)

    def writer(self, record_id: int) -> str | None:
        with self._lock:
            return self.writers.get(record_id)


def book() -> WriteBook:
    return current_app.extensions.setdefault("companion_writes", WriteBook())


def etag(version: int) -> str:
    return f'"{version}"'


def if_match() -> set[int] | None:
    """The versions the request was made on (None: no If-Match; an empty set stands for `*`)."""
    raw = request.headers.get("If-Match")
    if raw is None and request.mimetype in _FORMS and not request.path.startswith("/api/"):  # a page's form
        raw = request.form.get(IF_MATCH_FIELD) or None
    if raw is None:
        return None
    if raw.strip() == "*":
        return set()
    versions = set()
    for part in raw.split(","):
        found = _ETAG.fullmatch(part)
        if not found:
            raise WebError(400, "bad_request", _("If-Match must name a state version, such as \"12\"."))
        versions.add(int(found.group(1)))
    return versions


def _fingerprint() -> str:
    """What a key stands for: the same key must come with the same request."""
    h = hashlib.sha256()
    h.update(f"{request.method} {request.path}\n".encode())
    if request.mimetype in _FORMS:
        h.update(repr(sorted((k, v) for k, v in request.form.items(multi=True)
                             if k not in ("csrf_token", IF_MATCH_FIELD, KEY_FIELD))).encode())
    else:
        h.update(request.get_data(cache=True))
    return h.hexdigest()


def game_write(view: Callable | None = None, *, versioned: bool = True):
    """Decorate a route that writes: If-Match (unless `versioned=False`: a write that does not
    depend on the game, such as a new table code) and Idempotency-Key, as the module says."""
    def decorate(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            table = services().table
            key = idempotency_key()
            expected = if_match() if versioned else None
            fingerprint = _fingerprint() if key is not None else ""  # before the route (it may sign in anew)
            sid = session.get("sid", "")
            with table.lock:
                if key is not None:
                    earlier = book().reply(key)
                    if earlier is not None:
                        if earlier.fingerprint != fingerprint or (earlier.sessions and sid not in earlier.sessions):
                            raise WebError(409, "key_reused", _("This Idempotency-Key was used for another "
                                                                "request; send a new key."))
                        resp = make_response(earlier.body, earlier.status)
                        resp.mimetype = earlier.mimetype
                        for k, v in earlier.headers:
                            resp.headers[k] = v
                        resp.headers["Idempotent-Replayed"] = "true"
                        return resp
                before = table.version
                if expected and before not in expected and not (key is not None and table.knows_key(key)):
                    return state_changed(min(expected), before)
                resp = make_response(fn(*args, **kwargs))
                after = table.version
                if after != before:
                    viewer = current_viewer()
                    book().wrote([r.id for r in table.records() if r.id > before], viewer.name or viewer.role)
                resp.headers["ETag"] = etag(after)
                if key is not None and 200 <= resp.status_code < 400:
                    kept = tuple((k, v) for k, v in resp.headers.items() if k in ("ETag", "Location"))
                    own = frozenset() if versioned else frozenset({sid, session.get("sid", "")})
                    book().keep(key, _Reply(fingerprint, resp.status_code, resp.get_data(), resp.mimetype, kept, own))
                return resp
        wrapper.game_write = {"versioned": versioned}  # type: ignore[attr-defined]
        return wrapper
    return decorate(view) if view is not None else decorate


def write_fields(versioned: bool = True) -> Markup:
    """Hidden fields for a page's form that writes: a key of its own (one per form shown, so that
    a double submit, or the browser sending it again, is one write) and, unless `versioned` is
    False, the version the page was drawn on (If-Match)."""
    fields = f'<input type="hidden" name="{KEY_FIELD}" value="{secrets.token_hex(16)}">'
    if versioned:
        fields += f'<input type="hidden" name="{IF_MATCH_FIELD}" value="{services().table.version}">'
    return Markup(fields)


def install(app: Flask) -> None:
    app.jinja_env.globals["write_fields"] = write_fields


# --- the refusal -----------------------------------------------------------------------------------

def state_changed(made_on: int, version: int):
    """412: what was recorded after version `made_on`, in the phone's language; nothing changed."""
    since = [describe(r) for r in services().table.store.events(after=made_on, limit=SINCE_LIMIT)]
    if len(since) == 1:
        message = _("Already recorded by %(who)s: %(what)s. Nothing of yours was recorded; the page now shows the "
                    "game as it is.", who=since[0]["who"], what=since[0]["what"])
    elif since:
        message = _("Recorded meanwhile: %(changes)s. Nothing of yours was recorded; the page now shows the game "
                    "as it is.", changes="; ".join(f"{s['what']} ({s['who']})" for s in since))
    else:
        message = _("The game has changed since this page showed it. Nothing was recorded; the page now shows "
                    "the game as it is.")
    body = {"error": "state_changed", "version": version, "since": since, "message": message}
    if request.path.startswith("/api/") or request.mimetype == "application/json":
        resp = jsonify(body)
    else:
        resp = make_response(render_template("error.html", status=412, message=message))
    resp.status_code = 412
    resp.headers["ETag"] = etag(version)
    return resp


def describe(record: Recorded) -> dict:
    """One record as a 412 tells it: who made it and what it was, in words."""
    ev = record.event
    state = services().table.state
    players = list(state.players) if state is not None else []
    name = lambda i: players[i] if i is not None and 0 <= i < len(players) else str(i)  # noqa: E731
    who = book().writer(record.id)
    if who is None:
        source = getattr(ev, "source", None)
        who = {"camera": _("the camera"), "box": _("the dice box"), "sim": _("the dice box")}.get(
            source or "", _("someone"))
    elif who in ("host", "player", "spectator"):
        who = _("the host") if who == "host" else _("another phone")
    if isinstance(ev, HandDrawn):
        what = _("a draw")
    elif isinstance(ev, HandWon):
        winners = ", ".join(name(w) for w in [ev.winner, *(a.winner for a in ev.also)])
        what = (_("%(winner)s won (self-drawn)", winner=winners) if ev.discarder is None
                else _("%(winner)s won from %(from)s", winner=winners, **{"from": name(ev.discarder)}))
    elif isinstance(ev, DiceThrown):
        what = _("dice %(faces)s", faces=" + ".join(str(f) for f in ev.faces))
    elif isinstance(ev, Undone):
        what = _("an undo of #%(id)s", id=ev.target)
    elif isinstance(ev, Corrected):
        what = _("a correction of #%(id)s", id=ev.target)
    elif isinstance(ev, GameStarted):
        what = _("a new game")
    elif isinstance(ev, WallBroken):
        what = _("the break")
    elif isinstance(ev, DiceAssigned):
        what = _("a roll counted as the throw")
    elif isinstance(ev, PlayerRenamed):
        what = _("a new name: %(name)s", name=ev.name)
    elif isinstance(ev, GameResumed):
        what = _("an earlier game reopened")
    else:
        what = type(ev).__struct_config__.tag
    return {"event": record.id, "type": type(ev).__struct_config__.tag, "who": who, "what": what}

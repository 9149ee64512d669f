"""Joining the table: the code, the role, the seat and the player's name.

A phone belongs to a player by index (0..3, the first-hand seat) *and* name: the claim holds
while that player still has that name, so a new game with the same friends in the same seats
keeps every phone in its seat, and a new game with other players asks each phone again.
A name can be changed at any time: the rename is an event of the game (`PlayerRenamed`), which
goes on as it was. A seat is held by one phone at a time (`seats.py`): taking a taken seat must be
confirmed (`take_over`), and the phone that loses it is told.
"""

from __future__ import annotations

import re

from flask import request, session
from flask_babel import gettext as _

from companion.errors import GameRuleError
from companion.game.events import PlayerRenamed
from companion.table import check_players
from companion.web.access import Viewer
from companion.web.bodies import JoinBody, PlayerRef, field_label
from companion.web.errors import WebError
from companion.web.guard import claim_seat, current_viewer, services, sign_in, web
from companion.web.i18n import error_message
from companion.web.seats import seat_book

#: a seat number in a string ("2" from a form); not str.isdigit(), which takes "٣" and "²" too
_SEAT_NUMBER = re.compile(r"[0-9]{1,9}")


def resolve_player(ref: PlayerRef, what: str = "player", *, before: int | None = None) -> int:
    """A player index from an index, a name or a seat wind (as seated just before event `before`,
    else now); 400 naming the players otherwise."""
    table = services().table
    try:
        if isinstance(ref, str) and _SEAT_NUMBER.fullmatch(ref.strip()):
            ref = int(ref.strip())
        return table.player_index(ref, before=before)
    except GameRuleError:
        players = ", ".join(table.require_state().players)
        raise WebError(400, "unknown_player", _("%(what)s: there is no player “%(ref)s” at this table (players: %(players)s)",
                                                what=field_label(what), ref=ref, players=players)) from None


def client_address() -> str:
    """The client's address: the peer's, or behind `server.trusted_proxies` the one they saw (ProxyFix)."""
    return request.remote_addr or "unknown"


def check_code(code: str) -> str:
    """The role the code gives; 429 while this address has had too many wrong codes (never for
    another address's: a crowd of wrong guessers cannot lock out a phone that types it right)."""
    limiter = web().limiter
    address = client_address()
    wait = limiter.retry_after(address)
    if wait:
        raise WebError(429, "too_many_attempts",
                       _("Too many wrong codes. Wait %(seconds)d seconds and try again.", seconds=wait),
                       headers={"Retry-After": str(wait)})
    if not code.strip():  # nothing typed is no wrong guess: no strike against the address
        raise WebError(403, "wrong_code", _("Enter the table code."))
    role = web().access.role_for(code)
    if role is None:
        limiter.failed(address)
        raise WebError(403, "wrong_code", _("That is not this table's code."))
    limiter.succeeded(address)
    return role


def join(body: JoinBody) -> Viewer:
    """Join as a spectator (no code needed unless reads need it), a player or the host.

    Everything that can refuse (the code, the seat, the name) is checked before the session
    changes: a refused join leaves the phone as it was.
    """
    settings = services().settings.server
    lang = session.get("lang")
    if body.role == "spectator":
        with_code = bool(body.code)
        if with_code or settings.require_code_for_reads:
            check_code(body.code)
        sign_in("spectator", with_code=with_code)
    else:
        role = check_code(body.code)
        if body.role == "host" and role != "host":
            raise WebError(403, "wrong_code", _("That is the table code, not the host code."))
        if body.player is None:
            sign_in(role)  # the host code also makes a player
        else:
            # the table's lock, which a write (companion/web/writes.py) holds around its route: one order of locks
            with services().table.lock:
                player, old, holder = _check_seat(body.player, body.name, body.take_over)
                sign_in(role)
                _claim(player, old, body.name, holder)
    if lang:
        session["lang"] = lang
    return current_viewer()


def take_seat(ref: PlayerRef, name: str | None, take_over: bool = False) -> int:
    """This phone belongs to player `ref`, optionally renaming them; a seat another phone holds
    only with `take_over` (409 `seat_taken` otherwise, and nothing changes)."""
    with services().table.lock:
        player, old, holder = _check_seat(ref, name, take_over)
        _claim(player, old, name, holder)
    return player


def _check_seat(ref: PlayerRef, name: str | None, take_over: bool) -> tuple[int, str, dict | None]:
    """(the player, their name now, the claim of the phone holding the seat): everything that can
    refuse, checked before anything changes (a rename is tried on the game, not recorded); the
    caller holds the table's lock."""
    table = services().table
    player = resolve_player(ref, "seat")
    state = table.require_state()
    current = state.players[player]
    holder = seat_book().holder(player, current)
    mine = holder is not None and holder["claim"] == session.get("claim") and session.get("player") == player
    if holder is not None and not mine and not take_over:
        raise WebError(409, "seat_taken", _("%(player)s's seat is taken by another phone. To sit there, tick “Take "
                                            "over the seat”: that phone will be told and loses the seat.",
                                            player=current))
    name = name.strip() if name else None
    if name and name != current:
        players = list(state.players)
        players[player] = name
        try:
            check_players(players)
        except GameRuleError as e:
            raise WebError(400, "bad_name", error_message(e)) from None
    return player, current, (None if mine else holder)


def _claim(player: int, old: str, name: str | None, holder: dict | None) -> None:
    """Record the rename (an event of the game, which goes on), take the seat, tell the phone that lost it."""
    table = services().table
    name = name.strip() if name else None
    if name and name != old:
        try:
            table.record(PlayerRenamed(player=player, name=name))
        except GameRuleError as e:
            raise WebError(400, "bad_name", error_message(e)) from None
        seat_book().renamed(player, old, name)
    now = table.require_state().players[player]
    claim = claim_seat(player, now)
    if holder is not None:  # that phone's page sees another claim on its seat: it has lost it
        seat_book().took_over(player, holder["claim"])
        table.hub.publish("seat", {"player": player, "name": now, "claim": claim})


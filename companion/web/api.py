"""JSON API: the state phones render, the game log, and every write the dashboard makes.

Documented in `static/openapi.yaml` (served at /api/openapi.yaml). Writes need a table session
(POST /api/join with the table code) and a single-use CSRF token in the `X-CSRF-Token` header;
each response to a write carries the next token in the same header. An optional
`Idempotency-Key` header makes a retried write count once. Errors are JSON:
``{"error": {"code", "message"}}`` with a 4xx status; nothing is changed by a refused request.
"""

from __future__ import annotations

import re
from pathlib import Path

from flask import Blueprint, current_app, jsonify, request, send_from_directory, session
from flask_babel import gettext as _

from companion.errors import CompanionError, GameRuleError, NothingToUndo
from companion.game.events import (
    SCORE_LIMIT,
    Adjustment,
    AlsoWon,
    Corrected,
    DiceThrown,
    GameEnded,
    HandDrawn,
    HandWon,
    Penalty,
    Recorded,
    Redeal,
    ScoredHand,
    SeatsChosen,
    Undone,
)
from companion.hardware.dice.rolls import camera_echo
from companion.rules.variant import builtin_names, load_variant
from companion.table import check_players
from companion.web.bodies import (
    AdjustmentBody,
    DiceBody,
    EndBody,
    HandBody,
    JoinBody,
    NewGameBody,
    PenaltyBody,
    RedealBody,
    SeatBody,
    SeatsBody,
    UndoBody,
    field_label,
    idempotency_key,
    read_json,
)
from companion.web.errors import WebError
from companion.web.guard import (
    csrf_token,
    current_viewer,
    require_host,
    require_read,
    require_write,
    services,
    shows_code,
    sign_out,
    web,
)
from companion.web.i18n import error_message
from companion.web.joining import join, resolve_player, take_seat
from companion.web.scoring import label_photos
from companion.web.writes import etag, game_write

api = Blueprint("api", __name__)

_VARIANT_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
#: `?after=`: a whole number (negative: every event), ASCII digits only, short enough for int()
_EVENT_ID = re.compile(r"-?[0-9]{1,18}")
#: the most events one page of `GET /api/events?limit=` holds (the History view reads the log in pages)
EVENTS_PAGE_MAX = 1000


def session_json() -> dict:
    viewer = current_viewer()
    return {"role": viewer.role, "player": viewer.player, "name": viewer.name,
            "can_write": viewer.can_write, "is_host": viewer.is_host, "lang": session.get("lang")}


def written(record: Recorded, status: int = 201):
    return jsonify({"record": record.to_json(), "state": services().table.state_json()}), status


# --- reading ---------------------------------------------------------------------------------------

@api.get("/api/state")
def get_state():
    require_read()
    table = services().table
    with table.lock:  # the version and the state it names, read together
        state, version = table.state_json(), table.version
    resp = jsonify(state)
    resp.headers["ETag"] = etag(version)
    return resp


@api.get("/api/events")
def get_events():
    require_read()
    raw = request.args.get("after", "")
    if raw and not _EVENT_ID.fullmatch(raw):
        raise WebError(400, "bad_request", _("after must be an event number"))
    after = int(raw) if raw else 0
    before = _number_arg("before", 1, 10**18 - 1)
    limit = _number_arg("limit", 1, EVENTS_PAGE_MAX)
    return jsonify([r.to_json() for r in services().table.records_between(after, before, limit)])


def _number_arg(name: str, low: int, high: int) -> int | None:
    raw = request.args.get(name, "")
    if not raw:
        return None
    if not _EVENT_ID.fullmatch(raw) or not low <= int(raw) <= high:
        raise WebError(400, "bad_request", _("%(field)s: must be between %(low)s and %(high)s",
                                             field=name, low=low, high=high))
    return int(raw)


@api.get("/api/status")
def get_status():
    require_read()
    dice = services().find("dice")
    return jsonify({"links": services().hub.status, "can_roll": callable(getattr(dice, "press_roll", None)),
                    "streams": web().broker.open_streams})


@api.get("/api/variants")
def get_variants():
    require_read()
    return jsonify(list_variants())


@api.get("/api/openapi.yaml")
def openapi():
    return send_from_directory(Path(current_app.root_path) / "static", "openapi.yaml", mimetype="application/yaml")


# --- the session -------------------------------------------------------------------------------

@api.get("/api/session")
def get_session():
    """Who this phone is, and a fresh CSRF token for its next write."""
    return jsonify({**session_json(), "csrf_token": csrf_token()})


@api.post("/api/join")
def post_join():
    join(read_json(JoinBody))
    return jsonify(session_json())


@api.post("/api/leave")
def post_leave():
    sign_out()
    return jsonify(session_json())


@api.post("/api/seat")
@game_write
def post_seat():
    require_write()
    body = read_json(SeatBody)
    take_seat(body.player, body.name, body.take_over)
    return jsonify(session_json())


# --- the game --------------------------------------------------------------------------------------

def hand_event(body: HandBody, *, before: int | None = None) -> HandWon | HandDrawn:
    """The event for a hand's result; seat winds name the players as seated now, or for a
    correction (`before` = the corrected event) as seated in that hand."""
    one = lambda ref, what: resolve_player(ref, what, before=before)  # noqa: E731
    players = lambda refs, what: sorted({one(r, what) for r in refs})  # noqa: E731
    if body.result == "draw":
        return HandDrawn(ready=players(body.ready, "ready"), riichi=players(body.riichi, "riichi"))
    return HandWon(
        winner=one(body.winner, "winner"),
        discarder=one(body.from_, "from") if body.from_ is not None else None,
        value=body.value, fu=body.fu,
        hand_scores=hand_scores(body.hand_scores, before=before),
        riichi=players(body.riichi, "riichi"),
        also=[AlsoWon(winner=one(a.winner, "also"), value=a.value, fu=a.fu) for a in body.also],
        scored=[ScoredHand(player=one(h.player, "scored"), hand=h.hand, photo=h.photo, tiles=h.tiles)
                for h in body.scored],
    )


def hand_scores(given: dict[str, int], *, before: int | None = None) -> dict[int, int]:
    """Hand scores by player index; one player named twice ("1" and "S") is refused, not half dropped."""
    scores: dict[int, int] = {}
    for ref, value in given.items():
        player = resolve_player(ref, "hand_scores", before=before)
        if player in scores:
            raise WebError(400, "bad_request", _("%(field)s: player “%(ref)s” is named twice", field=field_label("hand_scores"), ref=ref))
        scores[player] = value
    return scores


@api.post("/api/hands")
@game_write
def post_hand():
    """Record a hand's result: who won and from whom (or self-drawn), or a draw."""
    require_write()
    event = hand_event(read_json(HandBody))
    record = services().table.record(event, key=idempotency_key())
    label_photos(record)  # the players' corrections make the kept photos labelled data
    return written(record)


@api.post("/api/dice")
@game_write
def post_dice():
    """Dice typed on a phone (R17, R19); cocked dice (R18) have face 0 and are listed in `cocked`."""
    require_write()
    body = read_json(DiceBody)
    table = services().table
    if not body.cocked:
        echo = camera_echo(table, body.faces)
        if echo is not None:  # the camera has just read these very dice: the same throw, not the next
            return written(echo, 200)
    event = DiceThrown(faces=body.faces, cocked=body.cocked, source="phone")
    return written(table.record(event, key=idempotency_key()))


@api.post("/api/dice/roll")
@game_write
def post_roll():
    """Press the virtual dice box's roll button (simulation only)."""
    require_write()
    press = getattr(services().find("dice"), "press_roll", None)
    if not callable(press):
        raise WebError(404, "no_virtual_dice", _("There is no virtual dice box to roll."))
    press()
    return jsonify({"rolled": True}), 202


@api.post("/api/rolls/<int:event_id>/discard")
@game_write
def post_discard_roll(event_id: int):
    """Discard a roll that came when no throw was expected (an undo of that roll)."""
    require_write()
    key = idempotency_key()
    _unassigned_roll(event_id, key)
    return written(services().table.record(Undone(target=event_id), key=key))


@api.post("/api/rolls/<int:event_id>/assign")
@game_write
def post_assign_roll(event_id: int):
    """Count a roll that came when no throw was expected as the throw the game expects now."""
    require_write()
    key = idempotency_key()
    _unassigned_roll(event_id, key)
    return written(services().table.assign_roll(event_id, key=key))


def _unassigned_roll(event_id: int, key: str | None) -> None:
    """404 unless `event_id` is a roll waiting to be assigned or discarded; a retried request
    (its key already recorded) goes on, so that the record answers it as the first time."""
    table = services().table
    state = table.require_state()
    if any(r["event"] == event_id for r in state.unassigned) or (key is not None and table.knows_key(key)):
        return
    raise WebError(404, "not_found", _("Event %(id)d is not an unassigned roll.", id=event_id))


@api.post("/api/undo")
@game_write
def post_undo():
    """Undo an event by id, or the latest event that still counts."""
    require_write()
    body = read_json(UndoBody)
    try:
        return written(services().table.undo(body.target, key=idempotency_key()))
    except NothingToUndo:
        raise WebError(409, "refused", _("There is nothing to undo.")) from None


@api.post("/api/events/<int:event_id>/correct")
@game_write
def post_correct(event_id: int):
    """Replace an earlier result (by a result) or throw (by a throw); everything after it is derived again."""
    require_write()
    table = services().table
    target = next((r for r in table.records() if r.id == event_id), None)
    if target is None:
        raise WebError(404, "not_found", _("Event %(id)d is not part of this game.", id=event_id))
    if isinstance(target.event, (HandWon, HandDrawn)):
        event = hand_event(read_json(HandBody), before=event_id)
    elif isinstance(target.event, DiceThrown):
        body = read_json(DiceBody)
        event = DiceThrown(faces=body.faces, cocked=body.cocked, source="phone")
    else:
        raise WebError(409, "refused", _("Only results and dice can be corrected; undo anything else."))
    return written(table.record(Corrected(target=event_id, event=event), key=idempotency_key()))


# --- a whole game: seats, a misdeal, penalties, the end (docs/game.md) -------------------------------

def _reason(text: str) -> str:
    if len(text) > 200:
        raise WebError(400, "bad_request", _("%(field)s: at most 200 characters", field=field_label("reason")))
    return text.strip()


def _points(value: int, what: str) -> int:
    if not -SCORE_LIMIT <= value <= SCORE_LIMIT:
        raise WebError(400, "bad_request", _("%(field)s: %(value)s is out of range", field=field_label(what),
                                             value=value))
    return value


@api.post("/api/redeal")
@game_write
def post_redeal():
    """A misdeal (R25/R26): the break and the throws of the hand in play are cleared; East and the counters stay."""
    require_write()
    body = read_json(RedealBody)
    return written(services().table.record(Redeal(reason=_reason(body.reason)), key=idempotency_key()))


@api.post("/api/penalties")
@game_write
def post_penalty():
    """A player pays a penalty, shared equally by the other three (seed 004)."""
    require_write()
    body = read_json(PenaltyBody)
    if _points(body.points, "points") <= 0:
        raise WebError(400, "bad_request", _("%(field)s: more than 0", field=field_label("points")))
    event = Penalty(player=resolve_player(body.player, "player"), points=body.points, reason=_reason(body.reason))
    return written(services().table.record(event, key=idempotency_key()))


@api.post("/api/adjustments")
@game_write
def post_adjustment():
    """Points moved by agreement; they must sum to zero."""
    require_write()
    body = read_json(AdjustmentBody)
    deltas: dict[int, int] = {}
    for ref, value in body.deltas.items():
        deltas[resolve_player(ref, "deltas")] = deltas.get(resolve_player(ref, "deltas"), 0) + _points(value, "deltas")
    event = Adjustment(deltas=deltas, reason=_reason(body.reason))
    return written(services().table.record(event, key=idempotency_key()))


@api.post("/api/end")
@game_write
def post_end():
    """End the game now (by time or agreement): the hand in play is not scored (seed 004)."""
    require_write()
    body = read_json(EndBody)
    return written(services().table.record(GameEnded(how=body.how, reason=_reason(body.reason)),
                                           key=idempotency_key()))


@api.post("/api/seats")
@game_write
def post_seats():
    """Before hand 1: who sits where (wind tiles drawn, seed 004), or who is the first East."""
    require_write()
    body = read_json(SeatsBody)
    if body.order is not None:
        event = SeatsChosen(order=[resolve_player(p, "seats") for p in body.order], how="drawn")
    else:
        east = resolve_player(body.first_east, "first_east")
        event = SeatsChosen(order=[(east + k) % 4 for k in range(4)], how="typed")
    return written(services().table.record(event, key=idempotency_key()))


# --- the host ----------------------------------------------------------------------------------

def _house_names() -> set[str]:
    """The club's own variants (house rules in the variant folders), by the names a request may use."""
    return {p.stem for d in services().settings.variant_dirs if d.is_dir()
            for p in d.glob("*.toml") if _VARIANT_NAME.fullmatch(p.stem)}


def list_variants() -> list[dict]:
    dirs = services().settings.variant_dirs
    names = set(builtin_names())
    house = _house_names()
    out = []
    for name in sorted(names | house):
        entry = {"name": name, "house_rules": name in house}
        try:
            v = load_variant(name, dirs)
            entry.update(title=v.title, rounds=len(v.rounds.winds), tiles=v.tiles.total)
        except CompanionError as e:
            entry.update(title=name, error=error_message(e))
        out.append(entry)
    return out


def start_new_game(variant_name: str, players: list[str], *, key: str | None = None) -> Recorded:
    # a name only: never a path from a request (house rules live in <data_dir>/variants)
    if not _VARIANT_NAME.fullmatch(variant_name):
        raise WebError(400, "bad_variant", _("Choose a variant by name."))
    known = sorted(set(builtin_names()) | _house_names())
    if variant_name not in known:
        raise WebError(422, "bad_variant", _("Unknown variant %(name)s; known: %(known)s.", name=variant_name,
                                             known=", ".join(known)))
    variant = load_variant(variant_name, services().settings.variant_dirs)
    try:
        names = check_players(players)
    except GameRuleError as e:
        raise WebError(400, "bad_players", error_message(e)) from None
    return services().table.start_game(variant, names, key=key)


@api.post("/api/games")
@game_write
def post_game():
    """Start a new game (host only); the old game stays in the log."""
    require_host()
    body = read_json(NewGameBody)
    return written(start_new_game(body.variant, body.players, key=idempotency_key()))


#: earlier games listed for the host (the newest first)
GAMES_LISTED = 20


def list_games(limit: int = GAMES_LISTED) -> list[dict]:
    """The latest games in the log, newest first, each as it stands (the current one marked): a
    new game never deletes one, and any can be reopened."""
    from companion.game.fold import fold

    table = services().table
    state = table.state
    current = state.game if state is not None else None
    out = []
    for game in reversed(table.store.games()[-limit:]):
        records = table.records() if game == current else table.store.events(game)
        try:
            folded = state if game == current else fold(records)
        except CompanionError:  # a log that cannot be read as a game is not offered
            continue
        assert folded is not None
        out.append({"game": game, "current": game == current, "variant": folded.variant.name,
                    "title": folded.variant.title, "players": list(folded.players),
                    "scores": list(folded.scores), "hand": folded.hand, "game_over": folded.game_over,
                    "started": records[0].at.isoformat(), "last_played": records[-1].at.isoformat()})
    return out


def reopen_game(game: int) -> Recorded:
    try:
        return services().table.reopen(game, key=idempotency_key())
    except GameRuleError as e:
        raise WebError(409, "refused", error_message(e)) from None


@api.get("/api/games")
def get_games():
    """The latest games, newest first (host only: the table's own record of who played)."""
    require_host()
    return jsonify(list_games())


@api.post("/api/games/<int:game>/reopen")
@game_write
def post_reopen_game(game: int):
    """Play on an earlier game (host only); the game left is kept, to be reopened in its turn."""
    require_host()
    return written(reopen_game(game))


@api.post("/api/table-code")
@game_write(versioned=False)  # a double tap makes one new code; the game's version has no say
def post_table_code():
    """A new table code (host only): every phone that joined with the old code must join again."""
    require_host()
    try:
        code = web().access.new_table_code()
    except CompanionError as e:
        raise WebError(409, "refused", error_message(e)) from None
    return jsonify({"code": code})


def change_host_code() -> str:
    """A new host code: every other host phone must join again; this one stays the host (in its seat)."""
    from companion.web.guard import claim_seat, sign_in
    viewer = require_host()
    try:
        code = web().access.new_host_code()
    except CompanionError as e:
        raise WebError(409, "refused", error_message(e)) from None
    seat = (viewer.player, viewer.name)
    sign_in("host")  # a new session under the new code; the old ones (copies included) end
    web().sessions.end_role("host", keep=session["sid"])
    if seat[0] is not None:
        claim_seat(*seat)
    return code


@api.post("/api/host-code")
@game_write(versioned=False)  # a double tap makes one new code
def post_host_code():
    """A new host code (host only, with `{"confirm": true}`): shown once, in this answer."""
    require_host()
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or body.get("confirm") is not True:
        raise WebError(400, "confirm", _("Send {\"confirm\": true}: every other host phone must join again."))
    return jsonify({"code": change_host_code(), **session_json()})


@api.get("/api/table-code")
def get_table_code():
    """The table code and join link, for phones that may show it (players, the Pi's own screen)."""
    if not shows_code(current_viewer()):
        raise WebError(403, "forbidden", _("Only players at the table can see the table code."))
    from companion.web.views import join_url
    code = web().access.table_code
    return jsonify({"code": code, "url": join_url(code)})

"""Request bodies: JSON turned into typed structs, or a clear 4xx naming what is wrong.

Routes get a validated struct and stay a few lines long. Players can be named by index
(0..3, the first-hand seat), by name, or by their current seat wind letter. What is wrong
with a body is said in the phone's language: msgspec's English ("Expected `int | null`, got
`float` - at `$.value`") is read back into a template ("value: a whole number, not a
fraction"), and the checks msgspec cannot express live in each body's `check()`.
"""

from __future__ import annotations

import re
from typing import Any, Literal, TypeVar

import msgspec
from flask import request
from flask_babel import gettext as _
from flask_babel import lazy_gettext

from companion.game.events import SCORE_LIMIT
from companion.validation import choices, split
from companion.web.errors import WebError

T = TypeVar("T")
PlayerRef = int | str

IDEMPOTENCY_HEADER = "Idempotency-Key"
_KEY = re.compile(r"[A-Za-z0-9_-]{8,64}")


#: the bodies' fields as a phone's forms call them (a field not here is named as it is sent)
FIELD_LABELS = {
    "result": lazy_gettext("result"), "winner": lazy_gettext("winner"), "from": lazy_gettext("from whom"),
    "value": lazy_gettext("value"), "fu": lazy_gettext("fu"), "hand_scores": lazy_gettext("hand scores"),
    "riichi": lazy_gettext("declared riichi"), "ready": lazy_gettext("ready (tenpai)"),
    "faces": lazy_gettext("dice"), "cocked": lazy_gettext("cocked dice"), "player": lazy_gettext("player"),
    "seat": lazy_gettext("seat"), "name": lazy_gettext("name"), "role": lazy_gettext("role"), "code": lazy_gettext("table code"),
    "target": lazy_gettext("event to undo"), "variant": lazy_gettext("variant"), "players": lazy_gettext("players"),
    "also": lazy_gettext("also won on this discard"), "scored": lazy_gettext("scored hand"),
    "points": lazy_gettext("points"), "reason": lazy_gettext("reason"), "deltas": lazy_gettext("points moved"),
    "seats": lazy_gettext("seats"), "first_east": lazy_gettext("first East"), "how": lazy_gettext("how it ended"),
}
#: msgspec's JSON type names in a player's words
_KINDS = {"int": lazy_gettext("a whole number"), "float": lazy_gettext("a number"), "str": lazy_gettext("text"),
          "bool": lazy_gettext("true or false"), "array": lazy_gettext("a list"),
          "object": lazy_gettext("named values (a JSON object)"), "null": lazy_gettext("nothing (null)")}


def field_label(name: str) -> str:
    """A body field (or a path into one: `hand_scores[...]`, `faces[1]`) as the phone names it."""
    head = re.split(r"[.\[]", name, maxsplit=1)[0]
    return str(FIELD_LABELS.get(head, head))


def _kinds(names: str) -> str:
    words = [str(_KINDS.get(k.strip(), k.strip())) for k in names.split("|")]
    return _(" or ").join(words) if len(words) > 1 else words[0]


def explain(err: msgspec.ValidationError, type_: type) -> str:
    """What is wrong with a body, in the phone's language (msgspec's English where it is unknown)."""
    msg, path = split(err)
    field = field_label(path) if path else ""
    if found := re.fullmatch(r"Object contains unknown field `(.+)`", msg):
        return _("%(field)s: there is no such field here", field=found.group(1))
    if found := re.fullmatch(r"Object missing required field `(.+)`", msg):
        return _("%(field)s: missing", field=field_label(found.group(1)))
    if found := re.fullmatch(r"Expected `(.+)`, got `(.+)`", msg):
        expected, got = found.groups()
        if got == "float" and expected.split(" | ")[0] == "int":  # e.g. a hand value of 2.5 typed on a phone
            text = _("a whole number, not a fraction")
        else:
            text = _("%(expected)s is needed, not %(got)s", expected=_kinds(expected), got=_kinds(got))
        return _("%(field)s: %(text)s", field=field, text=text) if field else text
    if found := re.fullmatch(r"Invalid enum value '?(.*?)'?", msg):
        allowed = choices(type_, path) or []
        return _("%(field)s: “%(value)s” is not one of %(choices)s", field=field, value=found.group(1),
                 choices=", ".join(allowed))
    return _("%(field)s: %(text)s", field=field, text=msg) if field else msg


class BodyError(ValueError):
    """A body that msgspec decoded but that cannot be (a win without a winner); its message is translated."""


class Body(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    def check(self) -> None:
        """Raise BodyError (a translated message) for what the field types cannot say."""


class JoinBody(Body):
    role: Literal["player", "spectator", "host"] = "player"
    code: str = ""
    #: the player this phone belongs to: index 0..3, name or current seat wind
    player: PlayerRef | None = None
    #: a new name for that player (an event of the game: it goes on as it was)
    name: str | None = None
    #: take the seat although another phone holds it (that phone is told and loses it)
    take_over: bool = False


class SeatBody(Body):
    player: PlayerRef
    name: str | None = None
    take_over: bool = False


class AlsoBody(Body):
    """Another player who won on the same discard (where the variant lets several win, seed 002)."""

    winner: PlayerRef
    value: int | None = None
    fu: int | None = None


class ScoredBody(Body):
    """A hand scored on a phone (`POST /api/score`) kept with the result: whose, the hand as
    marked and corrected, and the kept photo's name with its tiles as corrected."""

    player: PlayerRef
    hand: dict[str, Any]
    photo: str | None = None
    tiles: list[str] | None = None

    def check(self) -> None:
        from companion.scoring.hand import BadHand, parse_hand
        from companion.scoring.kept import NAME

        try:
            parse_hand(self.hand)
        except BadHand as e:
            raise BodyError(_("%(field)s: %(text)s", field=field_label("scored"), text=str(e))) from None
        if self.photo is not None and not NAME.fullmatch(self.photo):
            raise BodyError(_("%(field)s: no such photo", field=field_label("scored")))
        if self.tiles is not None and (len(self.tiles) > 64 or any(len(t) > 4 for t in self.tiles)):
            raise BodyError(_("%(field)s: the photo's tiles are tile codes", field=field_label("scored")))


class HandBody(Body):
    """A hand's result: "win" (winner, optional discarder = "from", value …) or "draw"."""

    result: Literal["win", "draw"]
    winner: PlayerRef | None = None
    #: the discarder of the winning tile; null or absent: self-drawn
    from_: PlayerRef | None = msgspec.field(default=None, name="from")
    value: int | None = None
    fu: int | None = None
    hand_scores: dict[str, int] = msgspec.field(default_factory=dict)
    riichi: list[PlayerRef] = msgspec.field(default_factory=list)
    ready: list[PlayerRef] = msgspec.field(default_factory=list)
    also: list[AlsoBody] = msgspec.field(default_factory=list)
    #: hands scored on the phones (the winner's; classical: losers' too), kept with the result
    scored: list[ScoredBody] = msgspec.field(default_factory=list)

    def check(self) -> None:
        for s in self.scored:
            s.check()
        if self.result == "draw" and self.scored:
            raise BodyError(_("%(field)s: a draw has no winning hand", field=field_label("scored")))
        if self.result == "win" and self.winner is None:
            raise BodyError(_("%(field)s: a win needs a winner", field=field_label("winner")))
        if self.result == "draw" and (self.winner is not None or self.from_ is not None or self.also):
            raise BodyError(_("%(field)s: a draw has no winner", field=field_label("winner")))
        values = [("value", self.value), ("fu", self.fu)]
        values += [("also", v) for a in self.also for v in (a.value, a.fu)]
        for name, v in values:
            if v is not None and not -SCORE_LIMIT <= v <= SCORE_LIMIT:
                raise BodyError(_("%(field)s: must be between %(low)s and %(high)s", field=field_label(name),
                                  low=-SCORE_LIMIT, high=SCORE_LIMIT))
        for k, v in self.hand_scores.items():
            if not -SCORE_LIMIT <= v <= SCORE_LIMIT:
                raise BodyError(_("%(field)s: “%(player)s”: must be between %(low)s and %(high)s",
                                  field=field_label("hand_scores"), player=k, low=-SCORE_LIMIT, high=SCORE_LIMIT))


class DiceBody(Body):
    faces: list[int]
    #: indices of dice that landed cocked or outside the walls (R18); their face is 0
    cocked: list[int] = msgspec.field(default_factory=list)

    def check(self) -> None:
        if not 1 <= len(self.faces) <= 3:
            raise BodyError(_("%(field)s: one to three dice", field=field_label("faces")))


class UndoBody(Body):
    #: the event to undo; absent: the latest event that still counts
    target: int | None = None


class RedealBody(Body):
    """A misdeal (R25/R26): new throws for the hand in play."""

    reason: str = ""


class PenaltyBody(Body):
    """`player` pays `points`, shared equally by the other three (seed 004)."""

    player: PlayerRef
    points: int
    reason: str = ""


class AdjustmentBody(Body):
    """Points moved by agreement, by player (index, name or seat wind); they must sum to zero."""

    deltas: dict[str, int]
    reason: str = ""


class EndBody(Body):
    """End the game now: the hand in play is not scored (seed 004)."""

    how: Literal["time", "agreement"] = "agreement"
    reason: str = ""


class SeatsBody(Body):
    """Before hand 1: the players at E, S, W, N (`order`, a draw of wind tiles), or the first East
    alone (`first_east`; the others keep their places)."""

    order: list[PlayerRef] | None = None
    first_east: PlayerRef | None = None

    def check(self) -> None:
        if (self.order is None) == (self.first_east is None):
            raise BodyError(_("%(field)s: give the seats or the first East", field=field_label("seats")))
        if self.order is not None and len(self.order) != 4:
            raise BodyError(_("%(field)s: name the four players, East first", field=field_label("seats")))


class NewGameBody(Body):
    variant: str
    players: list[str]


def read_json(type_: type[T]) -> T:
    """The request's JSON body as `type_`; 415 if it is not JSON, 400 naming the bad field.

    No body at all stands for `{}` whatever its Content-Type (an undo of the latest event needs
    nothing more than the request itself)."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        raw = b"{}"
    elif request.mimetype != "application/json":
        raise WebError(415, "unsupported_media_type", _("Send the request body as JSON (Content-Type: application/json)."))
    try:
        body = msgspec.json.decode(raw, type=type_)
    except msgspec.ValidationError as e:
        raise WebError(400, "bad_request", explain(e, type_)) from None
    except (msgspec.DecodeError, UnicodeDecodeError) as e:  # JSON is UTF-8: other bytes are malformed too
        raise WebError(400, "malformed_json", _("The request body is not valid JSON: %(error)s", error=str(e))) from None
    try:
        body.check()
    except BodyError as e:
        raise WebError(400, "bad_request", str(e)) from None
    return body


def idempotency_key() -> str | None:
    """A client's key for one action: a retried request with the same key is recorded once
    (`companion/web/writes.py` answers it again)."""
    key = request.headers.get(IDEMPOTENCY_HEADER)
    if key is None and request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data") \
            and not request.path.startswith("/api/"):
        key = request.form.get("idempotency_key") or None  # a page's form: one key per form shown
    if key is None:
        return None
    if not _KEY.fullmatch(key):
        raise WebError(400, "bad_request", _("Idempotency-Key must be 8 to 64 letters, digits, '-' or '_'."))
    return "web:" + key

"""Request bodies: JSON turned into typed structs, or a clear 4xx naming what is wrong.

Routes get a validated struct and stay a few lines long. Players can be named by index
(0..3, the first-hand seat), by name, or by their current seat wind letter.
"""

from __future__ import annotations

import re
from typing import Literal, TypeVar

import msgspec
from flask import request
from flask_babel import gettext as _

from companion.validation import explain
from companion.web.errors import WebError

T = TypeVar("T")
PlayerRef = int | str

IDEMPOTENCY_HEADER = "Idempotency-Key"
_KEY = re.compile(r"[A-Za-z0-9_-]{8,64}")
#: bound on a hand's value, fu and hand scores: far above any real hand, far below overflow
SCORE_LIMIT = 1_000_000


class Body(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class JoinBody(Body):
    role: Literal["player", "spectator", "host"] = "player"
    code: str = ""
    #: the player this phone belongs to: index 0..3, name or current seat wind
    player: PlayerRef | None = None
    #: a new name for that player (only before the first hand of a game)
    name: str | None = None


class SeatBody(Body):
    player: PlayerRef
    name: str | None = None


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

    def __post_init__(self) -> None:
        if self.result == "win" and self.winner is None:
            raise ValueError("a win needs a winner")
        if self.result == "draw" and (self.winner is not None or self.from_ is not None):
            raise ValueError("a draw has no winner")
        for name, v in (("value", self.value), ("fu", self.fu)):
            if v is not None and not -SCORE_LIMIT <= v <= SCORE_LIMIT:
                raise ValueError(f"{name} must be between -{SCORE_LIMIT} and {SCORE_LIMIT}")
        for k, v in self.hand_scores.items():
            if not -SCORE_LIMIT <= v <= SCORE_LIMIT:
                raise ValueError(f"hand_scores: {k!r}: a hand score must be between -{SCORE_LIMIT} and {SCORE_LIMIT}")


class DiceBody(Body):
    faces: list[int]
    #: indices of dice that landed cocked or outside the walls (R18); their face is 0
    cocked: list[int] = msgspec.field(default_factory=list)

    def __post_init__(self) -> None:
        if not 1 <= len(self.faces) <= 3:
            raise ValueError("faces: one to three dice")


class UndoBody(Body):
    #: the event to undo; absent: the latest event that still counts
    target: int | None = None


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
        return msgspec.json.decode(raw, type=type_)
    except msgspec.ValidationError as e:
        raise WebError(400, "bad_request", explain(e, type_)) from None
    except (msgspec.DecodeError, UnicodeDecodeError) as e:  # JSON is UTF-8: other bytes are malformed too
        raise WebError(400, "malformed_json", _("The request body is not valid JSON: %(error)s", error=str(e))) from None


def idempotency_key() -> str | None:
    """A client's key for one action: a retried request with the same key is recorded once."""
    key = request.headers.get(IDEMPOTENCY_HEADER)
    if key is None:
        return None
    if not _KEY.fullmatch(key):
        raise WebError(400, "bad_request", _("Idempotency-Key must be 8 to 64 letters, digits, '-' or '_'."))
    return "web:" + key

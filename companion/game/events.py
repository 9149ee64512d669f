"""The facts a game is made of. The log of these events is the game; the state is derived.

Events are msgspec structs tagged by `type`, so a stored payload decodes back into the
right class and is validated on the way. Players are referred to by their index 0..3,
the seat they had in the first hand (0 began as East): a player's wind changes from
hand to hand, the player does not. Ids and times belong to the stored record, not to
the event.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec

from companion.rules.seats import Wind
from companion.rules.variant import Variant

#: bound on a hand's value, fu and hand scores as players enter them (web API, `replay`): far
#: above any real hand, far below overflow
SCORE_LIMIT = 1_000_000

#: where dice came from: the dice box over serial, a phone, the camera, the simulator, typed in
DiceSource = Literal["serial", "phone", "camera", "sim", "manual"]


class Event(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    """Base of every game event."""


class GameStarted(Event, tag="game_started"):
    """A new game: the variant (a full copy, so later edits of the file do not change it) and the players."""

    variant: Variant
    #: names in first-hand seat order: East, South, West, North
    players: list[str]


class DiceThrown(Event, tag="dice"):
    """A throw of the dice (R17, R19). With `cocked` dice the throw is not complete (R18)."""

    faces: list[int]
    source: DiceSource = "manual"
    #: indices of dice that landed cocked or outside the walls and must be thrown again (R18)
    cocked: list[int] = msgspec.field(default_factory=list)
    #: serial dice box: its boot id and sequence number (each recorded once)
    boot_id: str | None = None
    seq: int | None = None


class DiceAssigned(Event, tag="dice_assigned"):
    """A player counts an unassigned roll (one that came when no throw was due) as the throw due now.

    Discarding such a roll is an undo of it; assigning it moves it out of `unassigned_rolls`.
    """

    #: id of the DiceThrown event that is waiting in `unassigned_rolls`
    roll: int


class WallBroken(Event, tag="wall_broken"):
    """Where the wall was actually broken, as the camera saw it or a player confirmed it."""

    seat: Wind
    stack: int
    source: str = "manual"


class AlsoWon(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    """Another player who won on the same discard (seed 002; `claims.several_winners`)."""

    winner: int
    value: int | None = None
    fu: int | None = None


class ScoredHand(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    """A hand scored on a phone before the result was recorded (docs/scoring.md): the hand as the
    players marked and corrected it, and the kept photo it was read from (labelled data in the
    data folder, `companion.scoring.kept`). Only kept with the result: it never changes a score."""

    #: whose hand: the winner, or (classical) a loser scoring their own
    player: int
    #: the hand in JSON form (companion.scoring.hand)
    hand: dict[str, Any]
    #: the kept photo's name, if the hand was read from one
    photo: str | None = None
    #: every tile of the photo as corrected, in the order read
    tiles: list[str] | None = None


class HandWon(Event, tag="hand_won"):
    winner: int
    #: the player who discarded the winning tile; None when self-drawn
    discarder: int | None = None
    #: points / fan / han / faan, as the variant counts; None: not scored
    value: int | None = None
    fu: int | None = None
    #: classical: the losers' own hand scores, for settling among themselves
    hand_scores: dict[int, int] = msgspec.field(default_factory=dict)
    #: riichi: players who declared riichi this hand
    riichi: list[int] = msgspec.field(default_factory=list)
    #: the others who won on the same discard, where the variant lets several win (seed 002)
    also: list[AlsoWon] = msgspec.field(default_factory=list)
    #: hands scored on the phones for this result (absent in older logs)
    scored: list[ScoredHand] = msgspec.field(default_factory=list)


class HandDrawn(Event, tag="hand_drawn"):
    """A hand that ended with no mahjong (a draw, washout)."""

    #: riichi: players tenpai at the exhaustive draw (decides noten payments and dealer repeat)
    ready: list[int] = msgspec.field(default_factory=list)
    riichi: list[int] = msgspec.field(default_factory=list)


class PlayerRenamed(Event, tag="player_renamed"):
    """A player takes another name (typed on their phone, say, once the game is under way): an
    event of its own, so that a rename never restarts the game and the log says when it happened."""

    #: the player by index (their first-hand seat), as everywhere
    player: int
    name: str


class GameResumed(Event, tag="game_resumed"):
    """An earlier game is played on: the host reopened it. The current game is the one written
    to last, so this makes it current again (a new game never deletes the one before)."""


#: a reason given with a penalty, an adjustment, a redeal or the end of a game: short, for the log
Reason = Annotated[str, msgspec.Meta(max_length=200)]


class Redeal(Event, tag="redeal"):
    """A misdeal (R25/R26): the break and the throws of the hand in play are cleared and new
    throws are due; East, the counters and the scores stay as they were."""

    reason: Reason = ""


class Penalty(Event, tag="penalty"):
    """`player` pays `points`, shared equally by the other three (seed 004: a wrong number of
    tiles, a false mahjong)."""

    player: int
    points: Annotated[int, msgspec.Meta(gt=0, le=SCORE_LIMIT)]
    reason: Reason = ""


class Adjustment(Event, tag="adjustment"):
    """Scores moved by agreement (a payment settled wrongly, a house penalty): points by player
    index; they must sum to zero, as every hand's payments do."""

    deltas: dict[int, Annotated[int, msgspec.Meta(ge=-SCORE_LIMIT, le=SCORE_LIMIT)]]
    reason: Reason = ""


class GameEnded(Event, tag="game_ended"):
    """The game ends before its last round (seed 004: a tournament's time limit; or by agreement):
    the hand in play is not scored, the scores are those before it."""

    how: Literal["time", "agreement"] = "agreement"
    reason: Reason = ""


class SeatsChosen(Event, tag="seats"):
    """Who sits where for the first hand, before it begins: `order[k]` is the player (by index as
    it stands) at wind k (E, S, W, N). From then on players are indexed by these seats."""

    order: list[int]
    #: "typed": seats as entered; "drawn": wind tiles drawn (seed 004); "dice": a throw decided
    how: Literal["typed", "drawn", "dice"] = "typed"


Correctable = DiceThrown | WallBroken | HandWon | HandDrawn | Penalty | Adjustment


class Undone(Event, tag="undo"):
    """Cancels an earlier event (an undo of an undo brings the event back)."""

    target: int


class Corrected(Event, tag="correct"):
    """Replaces an earlier event with a corrected one; everything after it is derived again."""

    target: int
    event: Correctable


GameEvent = (GameStarted | DiceThrown | DiceAssigned | WallBroken | HandWon | HandDrawn | Undone | Corrected
             | PlayerRenamed | GameResumed | Redeal | Penalty | Adjustment | GameEnded | SeatsChosen)


class Recorded(msgspec.Struct, frozen=True, kw_only=True):
    """An event as stored: its id in the log, the game it belongs to, and when it was written."""

    id: int
    game: int
    at: datetime
    event: GameEvent

    @property
    def type(self) -> str:
        return type(self.event).__struct_config__.tag  # type: ignore[return-value]

    def to_json(self) -> dict:
        return {"id": self.id, "game": self.game, "at": self.at.isoformat(), **msgspec.to_builtins(self.event)}


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(GameEvent)


def encode(event: Event) -> bytes:
    return _encoder.encode(event)


def decode(payload: bytes | str) -> GameEvent:
    return _decoder.decode(payload)


def from_json(data: dict) -> GameEvent:
    """An event from a JSON object (e.g. an API body); msgspec.ValidationError names the bad field."""
    return msgspec.convert(data, GameEvent)

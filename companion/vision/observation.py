"""What one picture of the table shows, in the game's terms: the typed result of `scene.analyse()`.

Its JSON (`Observation.to_json()`) is what `companion observe --json` prints, what the watcher
publishes on the hub's "observation" topic (the live view's overlay draws it) and what a camera
sample keeps as "read". Fields that a reading may lack (a note, where the East marker lies) are
`UNSET` and left out of the JSON, as they always were. Positions on the walls follow the position
contract: [seat wind, stack number from that wall's right end] (`rules.wall.Stack`).
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

#: a stack of the walls as [seat wind, stack number] (`rules.wall.Stack.to_json()`)
StackAt = tuple[str, int]


class DieSeen(msgspec.Struct, kw_only=True):
    """A die read: its face (the one up; for a cocked die the reader's best guess), its box in
    the picture's pixels, whether it is cocked (R18) and how sure the face reader is of the face."""

    face: int
    box: list[float]
    cocked: bool
    face_p: float


class TileSeen(msgspec.Struct, kw_only=True):
    """A face-up tile: its name, its box in the picture's pixels, the recogniser's score."""

    tile: str
    box: list[float]
    score: float


class SeatWall(msgspec.Struct, kw_only=True):
    """One seat's wall: stack numbers standing, whole or half (one tile left), the runs of stacks
    missing ([first, last]), the splits (after stack k) and stacks something lies over."""

    side: str
    standing: list[int]
    count: int
    gaps: list[list[int]]
    splits: list[int]
    half: list[int]
    hidden: list[int]


class Walls(msgspec.Struct, kw_only=True):
    """The four walls: each seat's, the break (R19), the loose tiles on the dead wall (R20) and the
    tiles left in the live wall; what lies under a hand, and how long the walls look when that is
    not what the variant builds."""

    seats: dict[str, SeatWall]
    break_: StackAt | None = msgspec.field(name="break")
    loose: list[StackAt]
    live_tiles: int | None
    hidden: list[StackAt] | UnsetType = UNSET
    stacks_seen: int | UnsetType = UNSET
    note: str | UnsetType = UNSET

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = _builtins(self)
        # the note came before "stacks_seen" when a hand made it, after when only the length did
        return _ordered(out, [*_head(out, "seats", "break", "loose", "live_tiles", "hidden"),
                              *(("note", "stacks_seen") if "hidden" in out else ("stacks_seen", "note"))])


class EastMarkerAt(msgspec.Struct, kw_only=True):
    """Where the East marker lies: the side of the table, the kind (dealer button or wind box)
    and its middle in the picture's pixels."""

    side: str
    kind: str
    px: list[float]


class WindDiscAt(msgspec.Struct, kw_only=True):
    """Where the wind disc lies (its middle in pixels) and how sure the reader is of its letter."""

    px: list[float]
    score: float


class Observation(msgspec.Struct, kw_only=True):
    """Everything `companion observe` reports about one image.

    `walls`, `east_marker` (the seat wind of the side it lies at) and `wind_shown` are None
    without a calibration or colour; `seq` and `size` are set by the watcher for a camera frame.
    """

    image: str
    ms: float
    calibrated: bool
    walls: Walls | None
    dice: list[DieSeen]
    east_marker: str | None
    wind_shown: str | None
    tiles: list[TileSeen] = msgspec.field(default_factory=list)
    calibration_note: str | UnsetType = UNSET
    east_marker_at: EastMarkerAt | UnsetType = UNSET
    wind_at: WindDiscAt | UnsetType = UNSET
    note: str | UnsetType = UNSET
    tiles_note: str | UnsetType = UNSET
    seq: int | UnsetType = UNSET
    size: list[int] | UnsetType = UNSET

    def to_json(self) -> dict[str, Any]:
        """The observation as the JSON it has always been, keys in the same order."""
        out: dict[str, Any] = _builtins(self)
        if self.walls is not None:
            out["walls"] = self.walls.to_json()
        middle = (("walls", "dice", "east_marker", "wind_shown", "east_marker_at", "wind_at", "note")
                  if self.calibrated else
                  ("walls", "east_marker", "wind_shown", "calibration_note", "dice", "note"))
        return _ordered(out, ["image", "ms", "calibrated", *middle, "tiles", "tiles_note", "seq", "size"])

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Observation:
        """An observation from its JSON (a kept sample's "read"); a malformed one raises
        `msgspec.ValidationError` naming the field."""
        return msgspec.convert(data, cls)


def _builtins(struct: msgspec.Struct) -> dict[str, Any]:
    """As JSON reads back: lists, not tuples (a stack is [seat, number], as it always was)."""
    return msgspec.json.decode(msgspec.json.encode(struct, enc_hook=_plain))


def _plain(value: Any) -> Any:
    """numpy's float64 (a float to json, not to msgspec) as the float it is."""
    if isinstance(value, float):
        return float(value)
    raise NotImplementedError(f"{type(value).__name__} in an observation")


def _head(out: dict[str, Any], *keys: str) -> list[str]:
    return [k for k in keys if k in out]


def _ordered(out: dict[str, Any], keys: list[str]) -> dict[str, Any]:
    missing = set(out) - set(keys)
    assert not missing, f"keys without a place in the JSON: {missing}"
    return {k: out[k] for k in keys if k in out}

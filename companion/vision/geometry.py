"""Where things lie on the table, in the table frame of `markers_spec` (centimetres, seen from above).

The camera sees fixed table **sides** ("bottom", "right", "top", "left"); which seat wind sits at
a side changes as the dealer rotates (R11). The one setting that ties them together is the side
where the player who began as East (player 0) sits, `first_east_side`. From there:

* players sit in turn order E, S, W, N anticlockwise round the table seen from above
  (South on East's right, R23) or, for compass seating (seed 003), clockwise;
* player p has seat wind WINDS[(p - dealer) % 4] this hand (`GameState.dealer`).

A wall is named by the seat wind of the player behind it and its stacks are numbered from that
wall's right end as seen by that player (the position contract of `companion.rules.wall`). The
four walls are laid out centred on the square, each `stacks * tile.width` long; `WallFrame`
gives, for a side, the unit vector from stack 1 towards stack N and the inward normal, so that
"stack k" is a point on the table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.rules.seats import WINDS

#: sides of the table seen from above, anticlockwise (y grows downwards, as in images)
SIDES: tuple[str, ...] = ("bottom", "right", "top", "left")


@dataclass(frozen=True)
class TileSize:
    """A tile lying face down in the wall: width along the wall, depth across it, thickness."""

    width: float = 2.2
    depth: float = 2.9
    height: float = 1.6


@dataclass(frozen=True)
class WallFrame:
    """The direction of a side's wall: stack 1 → N along `u`; `inward` points to the table centre."""

    side: str
    u: tuple[float, float]
    inward: tuple[float, float]


# Seen from above with y down: the bottom player's right hand is +x, so stack 1 is at the right
# end and the count runs towards -x; each wall's count continues on the next side clockwise (R19).
WALL_FRAMES: dict[str, WallFrame] = {
    "bottom": WallFrame("bottom", (-1.0, 0.0), (0.0, -1.0)),
    "left": WallFrame("left", (0.0, -1.0), (1.0, 0.0)),
    "top": WallFrame("top", (1.0, 0.0), (0.0, 1.0)),
    "right": WallFrame("right", (0.0, 1.0), (-1.0, 0.0)),
}

#: gap left between the end of one wall and the side of the next at each corner (cm)
CORNER_GAP_CM = 0.4


def side_of_player(player: int, first_east_side: str, seating: str = "anticlockwise") -> str:
    """The table side where `player` (0 = began as East) sits, for the whole game."""
    start = SIDES.index(first_east_side)
    step = 1 if seating == "anticlockwise" else -1
    return SIDES[(start + step * player) % 4]


def seat_sides(dealer: int, first_east_side: str, seating: str = "anticlockwise") -> dict[str, str]:
    """Seat wind -> table side for the hand in which player `dealer` is East (R11)."""
    return {w: side_of_player((dealer + i) % 4, first_east_side, seating) for i, w in enumerate(WINDS)}


def side_seats(dealer: int, first_east_side: str, seating: str = "anticlockwise") -> dict[str, str]:
    """Table side -> seat wind (the inverse of `seat_sides`)."""
    return {side: w for w, side in seat_sides(dealer, first_east_side, seating).items()}


@dataclass(frozen=True)
class TableLayout:
    """The square of walls on a table: centre, stacks per wall, tile size (all in cm)."""

    table_size: tuple[float, float]
    stacks: int
    tile: TileSize = TileSize()

    @property
    def centre(self) -> tuple[float, float]:
        return (self.table_size[0] / 2, self.table_size[1] / 2)

    @property
    def half_length(self) -> float:
        return self.stacks * self.tile.width / 2

    @property
    def inner(self) -> float:
        """Distance from the centre to each wall's inner edge: the walls meet without overlapping."""
        return self.half_length + CORNER_GAP_CM

    def stack_centre(self, side: str, k: float) -> np.ndarray:
        """Table point of the middle of stack k (1-based, may be fractional) of the wall on `side`."""
        f = WALL_FRAMES[side]
        c = np.array(self.centre)
        u, n = np.array(f.u), np.array(f.inward)
        return c - n * (self.inner + self.tile.depth / 2) + u * ((k - (self.stacks + 1) / 2) * self.tile.width)

    def side_of_point(self, x: float, y: float) -> str:
        """The table side a point lies towards (which player's area it is in)."""
        cx, cy = self.centre
        dx, dy = x - cx, y - cy
        if abs(dx) > abs(dy):
            return "right" if dx > 0 else "left"
        return "bottom" if dy > 0 else "top"

    def inside_walls(self, x: float, y: float, margin: float = 0.0) -> bool:
        """Is the point inside the square enclosed by the walls (R18: dice must land there)?"""
        cx, cy = self.centre
        r = self.inner - margin
        return abs(x - cx) < r and abs(y - cy) < r

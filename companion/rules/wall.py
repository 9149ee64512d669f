"""The square of walls and where the dice say it must be broken.

Position contract (used by every interface): a stack is named by the seat whose wall
it is and its number 1..N counted from **that wall's right end as seen by the player
sitting behind it**. Walking along a wall from stack 1 to stack N and on to stack 1 of
the next wall goes clockwise round the square seen from above: R19's count "from the
right end, on past the end onto the wall of the neighbour on his left" is exactly that
walk, and the live wall "disappears clockwise" (R23).

Internally every stack has a ring index 0..4N-1 in that clockwise walk starting at
East's stack 1, so "the 7 stacks right of the break" is just index arithmetic, also
when the dead wall turns a corner onto the next wall.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from companion.errors import DiceError
from companion.rules.seats import WINDS, Wind, wind_index
from companion.rules.variant import Variant

Layer = Literal["top", "bottom"]
LAYERS: tuple[Layer, Layer] = ("top", "bottom")


@dataclass(frozen=True, order=True)
class Stack:
    """A stack of two tiles: the seat whose wall it is, and its number from that wall's right end."""

    seat: Wind
    stack: int

    def to_json(self) -> list:
        return [self.seat, self.stack]

    def __str__(self) -> str:
        return f"{self.seat}{self.stack}"


@dataclass(frozen=True)
class TilePlace:
    """One tile of the built wall: its stack and whether it was the top or bottom tile."""

    seat: Wind
    stack: int
    layer: Layer

    def to_json(self) -> dict:
        return {"seat": self.seat, "stack": self.stack, "layer": self.layer}


class Square:
    """The four walls of N stacks as a clockwise ring of stacks."""

    def __init__(self, stacks_per_wall: int, seating: str = "anticlockwise") -> None:
        self.n = stacks_per_wall
        # Clockwise from East's wall. Anticlockwise seating (South on East's right) puts
        # North's wall next: East's left-hand neighbour (R19). Compass seating mirrors it.
        self.clockwise: tuple[Wind, ...] = ("E", "N", "W", "S") if seating == "anticlockwise" else ("E", "S", "W", "N")

    @classmethod
    def for_variant(cls, variant: Variant) -> Square:
        return cls(variant.stacks_per_wall, variant.seating.direction)

    @property
    def size(self) -> int:
        return 4 * self.n

    def index(self, seat: str, stack: int) -> int:
        if not 1 <= stack <= self.n:
            raise ValueError(f"stack {stack} is outside 1..{self.n}")
        return self.clockwise.index(seat) * self.n + stack - 1  # type: ignore[arg-type]

    def stack_at(self, index: int) -> Stack:
        index %= self.size
        return Stack(self.clockwise[index // self.n], index % self.n + 1)

    def left_neighbour(self, seat: str) -> Wind:
        """The seat on `seat`'s left: whose wall a count from the right end runs onto (R19)."""
        return self.clockwise[(self.clockwise.index(seat) + 1) % 4]  # type: ignore[arg-type]

    def right_neighbour(self, seat: str) -> Wind:
        return self.clockwise[(self.clockwise.index(seat) - 1) % 4]  # type: ignore[arg-type]

    def all_stacks(self) -> list[Stack]:
        return [self.stack_at(i) for i in range(self.size)]

    def grid(self, viewer: str = "E") -> dict[Stack, tuple[int, int]]:
        """Where each stack is drawn in an (N+2)×(N+2) grid, `viewer`'s wall along the bottom.

        Columns run left to right, rows top to bottom, as seen by the viewer. Walking
        clockwise from the viewer's stack 1 (bottom right) goes along the bottom row
        leftwards, up the left column, along the top row and down the right column.
        """
        n = self.n
        start = self.clockwise.index(viewer)  # type: ignore[arg-type]
        cells: dict[Stack, tuple[int, int]] = {}
        for side in range(4):
            seat = self.clockwise[(start + side) % 4]
            for k in range(1, n + 1):
                cells[Stack(seat, k)] = [
                    (n + 1 - k, n + 1),  # bottom row, right to left
                    (0, n + 1 - k),  # left column, bottom to top
                    (k, 0),  # top row, left to right
                    (n + 1, k),  # right column, top to bottom
                ][side]
        return cells


@dataclass(frozen=True)
class LooseTile:
    """A loose tile: where it lies (on top of a dead-wall stack, or in the wall), its layer and draw order."""

    seat: Wind
    stack: int
    layer: Layer  # the layer it had in its own stack: R19 "the former top tile"
    draw_order: int
    lying: Literal["on_wall", "in_wall"] = "on_wall"

    def to_json(self) -> dict:
        return {"seat": self.seat, "stack": self.stack, "layer": self.layer, "draw_order": self.draw_order, "lying": self.lying}


@dataclass(frozen=True)
class DealPick:
    to: Wind
    tile: TilePlace

    def to_json(self) -> dict:
        return {"to": self.to, **self.tile.to_json()}


@dataclass(frozen=True)
class Break:
    """Everything the dice decide about one hand's wall."""

    variant: str
    throws: tuple[tuple[int, ...], ...]
    #: whose wall the dice chose (R17) — the breaker, who throws next in two-throw variants
    chosen_wall: Wind
    #: how many stacks were counted (R19)
    count: int
    #: where the count ends: the lifted stack (R19) or the last stack before the split (riichi)
    at: Stack
    style: str
    #: the end of the chosen wall the count starts from (R19: "right"; seed 003: "left")
    count_from: str
    #: dead-wall stacks from the break outwards (R20)
    dead_wall: tuple[Stack, ...]
    loose: tuple[LooseTile, ...]
    deal_start: Stack
    deal: tuple[DealPick, ...]
    #: every replacement tile in the order it is drawn, by where it stood in the built wall (R21)
    replacement_order: tuple[TilePlace, ...]
    #: the live wall after the deal, in drawing order
    live: tuple[TilePlace, ...]
    dora_indicator: TilePlace | None
    #: ring bookkeeping for loose_after()
    _square: Square = field(repr=False, compare=False)
    _loose_at: tuple[int, int] = field(repr=False, compare=False, default=(0, 0))

    @property
    def wall(self) -> Wind:
        return self.at.seat

    @property
    def stack(self) -> int:
        return self.at.stack

    @property
    def stack_from_left(self) -> int:
        """The break's stack counted from its wall's left end, as a variant that counts the break
        from the left (seed 003: "von links nach rechts") has its players count; `stack` counts
        from the right end, as every position here does."""
        return self._square.n + 1 - self.at.stack

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(t) for t in self.throws)

    @property
    def live_after_deal(self) -> int:
        return len(self.live)

    @property
    def kong_box(self) -> int:
        """Tiles in the dead wall, loose tiles included (R22: 16 in classical rules)."""
        return 2 * len(self.dead_wall) + (2 if self.style == "lift" else 0)

    def hands(self) -> dict[Wind, list[TilePlace]]:
        dealt: dict[Wind, list[TilePlace]] = {w: [] for w in WINDS}
        for pick in self.deal:
            dealt[pick.to].append(pick.tile)
        return dealt

    def loose_after(self, drawn: int) -> list[LooseTile]:
        """Where the loose tiles lie after `drawn` replacement draws (R21, lift style only).

        When both loose tiles are used, the kong box stack nearest the break is lifted and its
        tiles laid on the remaining dead-wall stacks as before, the former top tile farther out.
        """
        if self.style != "lift":
            return []
        order = self.replacement_order
        if drawn >= len(order):
            return []
        pair_start = drawn - drawn % 2
        lifted = pair_start // 2  # dead-wall stacks lifted so far (0: the break stack itself)
        remaining = len(self.dead_wall) - lifted
        top_at, bottom_at = self._loose_at
        top_at, bottom_at = min(top_at, remaining), min(bottom_at, remaining)
        if top_at == bottom_at and remaining > 1:  # both clamped onto the last stack: spread them
            if top_at > 1:
                bottom_at = top_at - 1
            else:
                top_at = 2
        tiles = []
        for i in range(pair_start, pair_start + 2):
            if i < drawn:
                continue
            place = order[i]
            offset = top_at if place.layer == "top" else bottom_at
            if remaining <= 0:
                lies = Stack(place.seat, place.stack)  # nothing left to lie on: it lies where it stood
            else:
                lies = self.dead_wall[lifted + offset - 1]
            tiles.append(LooseTile(lies.seat, lies.stack, place.layer, i + 1))
        return tiles

    def to_json(self) -> dict:
        return {
            "variant": self.variant,
            "dice": [list(t) for t in self.throws],
            "totals": list(self.totals),
            "chosen_wall": self.chosen_wall,
            "count": self.count,
            "wall": self.wall,
            "stack": self.stack,
            "style": self.style,
            "dead_wall": [s.to_json() for s in self.dead_wall],
            "loose": [t.to_json() for t in self.loose],
            "deal_start": self.deal_start.to_json(),
            "deal": [p.to_json() for p in self.deal],
            "replacement_order": [t.to_json() for t in self.replacement_order],
            "dora_indicator": self.dora_indicator.to_json() if self.dora_indicator else None,
            "live_after_deal": self.live_after_deal,
            "kong_box": self.kong_box,
        }


# --- the broken wall's shape (R19–R24) -----------------------------------------------------------


@dataclass(frozen=True)
class WallShape:
    """What a variant's rules say about the shape of the broken wall, on the clockwise ring: the
    one place this arithmetic is written (`break_wall`, the camera's `find_break`, the renderer).

    `back`: the way the dead wall runs from the break along the ring (R20: "right" is towards
    stack 1, -1); `lift`: the break lifts a stack out (R19) rather than splitting the wall;
    `loose_on_top`: the loose tiles lie on top of the dead wall (R20), on its `loose_laid`
    stacks counted from the break; `take`: stacks a seat takes at once in the deal, `deal_stacks`:
    stacks the whole deal takes (R24)."""

    size: int
    back: int
    lift: bool
    dead_stacks: int
    loose_on_top: bool
    loose_laid: tuple[int, int]
    take: int
    deal_stacks: int

    @classmethod
    def of(cls, variant: Variant) -> WallShape:
        blocks = variant.deal.blocks
        return cls(size=4 * variant.stacks_per_wall,
                   back=-1 if variant.dead_wall.side == "right" else 1,
                   lift=variant.break_.style == "lift",
                   dead_stacks=variant.dead_wall.stacks,
                   loose_on_top=variant.replacement.source == "loose",
                   loose_laid=(variant.replacement.loose_top_at, variant.replacement.loose_bottom_at),
                   take=max(1, blocks[0] // 2) if blocks else 1,
                   deal_stacks=4 * sum(blocks) // 2)

    @property
    def ahead(self) -> int:
        """The way the deal and the live wall run from the break (R20: away from the dead wall)."""
        return -self.back

    def dead_wall(self, at: int) -> list[int]:
        """Ring indices of the dead wall for a break at `at`, nearest the break first (R20): beside
        the lifted stack, or from the split's stack on (split style: it is the dead wall's first)."""
        first = 1 if self.lift else 0
        return [(at + self.back * k) % self.size for k in range(first, first + self.dead_stacks)]


# --- the dice -----------------------------------------------------------------------------------


def check_throws(variant: Variant, throws: Sequence[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
    """Validate the throws a variant needs; DiceError with a player's explanation otherwise."""
    want, per = len(variant.dice.throws), variant.dice.dice
    if len(throws) != want:
        who = " then ".join(variant.dice.throws)
        raise DiceError(f"{variant.title} takes {want} throw{'s' * (want > 1)} ({who}), got {len(throws)}")
    checked = []
    for i, throw in enumerate(throws, 1):
        if len(throw) != per:
            raise DiceError(f"throw {i} has {len(throw)} dice; {variant.title} throws {per} dice")
        for face in throw:
            if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= 6:
                raise DiceError(f"throw {i}: a die shows 1 to 6, not {face!r}")
        checked.append(tuple(throw))
    return tuple(checked)


def chosen_wall(variant: Variant, total: int) -> Wind:
    """R17: count the walls from the dealer's own (= 1) in turn order: 5 and 9 are East's own."""
    step = (total - 1) % 4
    if variant.dice.wall_count == "reverse_turn_order":
        step = -step
    return WINDS[step % 4]


def stacks_counted(variant: Variant, throws: Sequence[Sequence[int]]) -> int:
    """R19: the breaker counts the sum of both throws (or one throw alone, as the variant says)."""
    totals = [sum(t) for t in throws]
    return {"sum": sum(totals), "last": totals[-1], "first": totals[0]}[variant.dice.stacks_by]


def thrower(variant: Variant, index: int, throws_so_far: Sequence[Sequence[int]]) -> Wind | None:
    """Seat that makes throw `index` (0-based) given the throws before it; None if not yet known."""
    role = variant.dice.throws[index]
    if role == "dealer":
        return "E"
    wall_by = variant.dice.wall_by - 1
    if len(throws_so_far) <= wall_by:
        return None
    return chosen_wall(variant, sum(throws_so_far[wall_by]))


def locate_break(variant: Variant, throws: Sequence[Sequence[int]]) -> tuple[Wind, int, Stack]:
    """The chosen wall, the count and the stack where it ends — the break without the deal."""
    throws = check_throws(variant, throws)
    sq = Square.for_variant(variant)
    wall = chosen_wall(variant, sum(throws[variant.dice.wall_by - 1]))
    count = stacks_counted(variant, throws)
    return wall, count, sq.stack_at(_count_to(variant, sq, wall, count))


def _count_to(variant: Variant, sq: Square, wall: Wind, count: int) -> int:
    """R19: count from the chosen end; running past the end goes on along the next wall."""
    n = sq.n
    step = 1 if variant.break_.count_from == "right" else -1  # +1 = clockwise
    first = sq.index(wall, 1 if step == 1 else n)
    if variant.break_.overflow == "next_wall":
        return (first + step * (count - 1)) % sq.size
    within = (count - 1) % n  # "same_wall": start again at the same end of the same wall
    return sq.index(wall, within + 1 if step == 1 else n - within)


def break_wall(variant: Variant, throws: Sequence[Sequence[int]]) -> Break:
    """Where to break the wall, the dead wall, the loose tiles and the whole deal, from the dice."""
    throws = check_throws(variant, throws)
    sq = Square.for_variant(variant)
    wall = chosen_wall(variant, sum(throws[variant.dice.wall_by - 1]))
    count = stacks_counted(variant, throws)
    at = _count_to(variant, sq, wall, count)

    # R20: the dead wall lies on one side of the break, the deal goes the other way.
    shape = WallShape.of(variant)
    ahead = shape.ahead
    # lift: the counted stack is lifted out, the dead wall starts beside the gap; split: the wall
    # is split after the counted stack, which belongs to the dead wall
    dead = shape.dead_wall(at)
    live_first = (at + ahead) % sq.size
    n_live_stacks = sq.size - len(dead) - (1 if shape.lift else 0)

    live_tiles = []
    for k in range(n_live_stacks):
        s = sq.stack_at(live_first + ahead * k)
        live_tiles.extend(TilePlace(s.seat, s.stack, layer) for layer in LAYERS)

    deal, used = _deal(variant, live_tiles)
    live = tuple(t for i, t in enumerate(live_tiles) if i not in used)

    dead_stacks = tuple(sq.stack_at(i) for i in dead)
    replacement, loose = _replacements(variant, sq, at, dead_stacks, live)
    indicator = None
    if variant.dead_wall.indicator_at:
        s = dead_stacks[variant.dead_wall.indicator_at - 1]
        indicator = TilePlace(s.seat, s.stack, "top")

    return Break(
        variant=variant.name,
        throws=throws,
        chosen_wall=wall,
        count=count,
        at=sq.stack_at(at),
        style=variant.break_.style,
        count_from=variant.break_.count_from,
        dead_wall=dead_stacks,
        loose=loose,
        deal_start=sq.stack_at(live_first),
        deal=tuple(deal),
        replacement_order=replacement,
        live=live,
        dora_indicator=indicator,
        _square=sq,
        _loose_at=(variant.replacement.loose_top_at, variant.replacement.loose_bottom_at),
    )


def _deal(variant: Variant, live_tiles: list[TilePlace]) -> tuple[list[DealPick], set[int]]:
    """R24: blocks in turn order from East, then the last pass (optionally in a set pick order)."""
    picks: list[DealPick] = []
    pos = 0
    for block in variant.deal.blocks:
        for seat in WINDS:
            for _ in range(block):
                picks.append(DealPick(seat, live_tiles[pos]))
                pos += 1
    final = variant.deal.final
    order = variant.deal.final_picks
    if order is None:  # in turn order, each seat its tiles in a row
        order, k = [], 1
        for count in final:
            order.append(list(range(k, k + count)))
            k += count
    taken = [(tile_no, seat) for seat, numbers in zip(WINDS, order) for tile_no in numbers]
    # Seats take in turn order; within the last pass a seat's picks are in the order listed.
    for tile_no, seat in taken:
        picks.append(DealPick(seat, live_tiles[pos + tile_no - 1]))
    used = set(range(pos + sum(final)))
    return picks, used


#: a hand has at most four kongs (there are four of each tile); a fifth is never declared
MAX_KONGS = 4


def loose_pair_order(variant: Variant) -> tuple[Layer, Layer]:
    """Which of the two loose tiles is drawn first, by the layer it had (R21: in most variants the
    one farther from the break, the former top tile)."""
    rep = variant.replacement
    top_farther = rep.loose_top_at > rep.loose_bottom_at
    return ("top", "bottom") if top_farther == (rep.first == "farther") else ("bottom", "top")


def _replacements(
    variant: Variant, sq: Square, at: int, dead: tuple[Stack, ...], live: tuple[TilePlace, ...]
) -> tuple[tuple[TilePlace, ...], tuple[LooseTile, ...]]:
    """Every replacement tile in draw order, and where the first loose tiles lie (R19–R22)."""
    source = variant.replacement.source
    if source == "loose":
        rep = variant.replacement
        lifted = sq.stack_at(at)
        places = {"top": dead[rep.loose_top_at - 1], "bottom": dead[rep.loose_bottom_at - 1]}
        pair_order = loose_pair_order(variant)
        order = [TilePlace(lifted.seat, lifted.stack, layer) for layer in pair_order]
        # R21: then the kong-box stack nearest the break is lifted, and so on outwards.
        for s in dead:
            order.extend(TilePlace(s.seat, s.stack, layer) for layer in pair_order)
        loose = tuple(
            LooseTile(places[layer].seat, places[layer].stack, layer, i + 1) for i, layer in enumerate(pair_order)
        )
        return tuple(order), loose
    if source == "dead_wall":  # riichi rinshan: the stacks nearest the split, top tile first
        order = [TilePlace(s.seat, s.stack, layer) for s in dead for layer in LAYERS]
        rinshan = tuple(order[:MAX_KONGS])
        loose = tuple(LooseTile(t.seat, t.stack, t.layer, i + 1, "in_wall") for i, t in enumerate(rinshan))
        if variant.dead_wall.keep_size:
            # the live wall's last tile joins the dead wall after each kong, so these four are all
            # the replacements there are, and the dora indicators beyond them are never drawn
            return rinshan, loose
        return tuple(order), loose
    # "live_end": seed 004 "drawing any replacement tiles from the back end of the Wall": its last
    # stack first; top tile before bottom is the usual way of taking a stack (the seed says no more)
    stacks: list[tuple[Wind, int]] = []
    for t in reversed(live):
        if (t.seat, t.stack) not in stacks:
            stacks.append((t.seat, t.stack))
    remaining = set(live)
    order = [TilePlace(s, k, layer) for s, k in stacks for layer in LAYERS if TilePlace(s, k, layer) in remaining]
    loose = tuple(LooseTile(t.seat, t.stack, t.layer, i + 1, "in_wall") for i, t in enumerate(order[:2]))
    return tuple(order), loose


def position_of(square: Square, seat: str, stack: int) -> Stack:
    """Validate a position given by a player or a camera."""
    if seat not in WINDS:
        raise ValueError(f"not a seat: {seat!r}")
    wind_index(seat)
    square.index(seat, stack)
    return Stack(seat, stack)  # type: ignore[arg-type]

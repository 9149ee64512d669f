"""Hong Kong scoring: a faan table (RULES.md "Riichi and Hong Kong"), table-driven.

Common club play: 3 faan to win, 13 faan the limit, and a table turning faan into points (the
variant's `[settlement] faan_points`, whose last entry is the limit's). Every faan value and the
list of limit hands in force are the variant's `[scoring]` data. Patterns and values follow the
published per-pattern cases of `hk-mahjong-hand-calculation` (MIT): chicken hand 0, all chows 1,
all pungs 3, half flush 3, full flush 7, little three dragons 5 (its two dragon pungs not counted
again), a dragon pung 1, seat / prevailing wind pung 1 each, mixed terminals 1, self-drawn 1,
concealed 1, robbing a kong 1, last tile 1, on a kong's replacement +1, own flower or season 1
each, a whole set of four 2, seven bonus tiles 3; limit hands score the limit.

`total` is the points for the faan (the settlement's table); the items are in faan.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from companion.errors import VariantError
from companion.rules.variant import HongKongSettlement, Variant
from companion.scoring import rules_of
from companion.scoring.hand import Hand
from companion.scoring.result import Item, Score
from companion.scoring.shapes import (
    DRAGONS,
    WIND_TILE,
    WINDS,
    Set,
    arrangements,
    is_honour,
    is_major,
    is_terminal,
    nine_gates,
    suit,
    thirteen_orphans,
)

Faan = Annotated[int, msgspec.Meta(ge=0)]

LimitHand = Literal[
    "heavenly_hand", "earthly_hand", "thirteen_orphans", "nine_gates", "all_honours", "all_terminals", "all_kongs",
    "great_dragons", "great_winds", "small_winds", "concealed_pungs_self_drawn", "eight_flowers",
]
LIMIT_NAMES: dict[str, tuple[str, str]] = {
    "heavenly_hand": ("Heavenly hand", "天糊"),
    "earthly_hand": ("Earthly hand", "地糊"),
    "thirteen_orphans": ("Thirteen orphans", "十三幺"),
    "nine_gates": ("Nine gates", "九子連環"),
    "all_honours": ("All honours", "字一色"),
    "all_terminals": ("All terminals", "清么九"),
    "all_kongs": ("Four kongs", "十八羅漢"),
    "great_dragons": ("Great dragons", "大三元"),
    "great_winds": ("Great winds", "大四喜"),
    "small_winds": ("Small winds", "小四喜"),
    "concealed_pungs_self_drawn": ("All concealed pungs, self-drawn", "坎坎糊"),
    "eight_flowers": ("All eight flowers and seasons", "八仙過海"),
}


class FaanTable(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    all_chows: Faan = 1
    all_pungs: Faan = 3
    half_flush: Faan = 3
    full_flush: Faan = 7
    little_three_dragons: Faan = 5
    dragon_pung: Faan = 1
    seat_wind_pung: Faan = 1
    prevalent_wind_pung: Faan = 1
    mixed_terminals: Faan = 1
    self_drawn: Faan = 1
    concealed: Faan = 1
    robbing_kong: Faan = 1
    last_tile: Faan = 1
    #: won on a kong's replacement tile, on top of self-drawn
    replacement: Faan = 1
    own_bonus_tile: Faan = 1
    #: all four flowers, or all four seasons (the own tile of that set not counted again)
    bonus_set: Faan = 2
    #: seven of the eight bonus tiles (instead of the above)
    seven_bonus_tiles: Faan = 3
    #: a hand without bonus tiles (some clubs: 1)
    no_bonus_tiles: Faan = 0


class HongKongRules(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A variant's `[scoring]` table for the Hong Kong system."""

    #: the most faan a hand counts (limit hands score it)
    limit_faan: Annotated[int, msgspec.Meta(ge=1)] = 13
    limit_hands: list[LimitHand] = msgspec.field(default_factory=lambda: list(LIMIT_NAMES))
    faan: FaanTable = msgspec.field(default_factory=FaanTable)


def _settlement(variant: Variant) -> HongKongSettlement:
    spec = variant.settlement
    return spec if isinstance(spec, HongKongSettlement) else HongKongSettlement()


def check(variant: Variant) -> None:
    rules = rules_of(variant, HongKongRules)
    points = _settlement(variant).faan_points
    if rules.limit_faan > len(points) - 1:
        raise VariantError(f"variant {variant.name!r}: scoring.limit_faan: {rules.limit_faan} faan has no entry in "
                           f"settlement.faan_points (it lists 0 to {len(points) - 1} faan)")


def _points(variant: Variant, faan: int) -> int:
    table = _settlement(variant).faan_points
    return table[min(faan, len(table) - 1)]


class _Faan:
    def __init__(self) -> None:
        self.items: list[Item] = []

    def add(self, key: str, name: str, native: str, value: int, count: int = 1) -> None:
        if value > 0 and count > 0:
            self.items.append(Item(key=key, name=name, value=value * count, unit="faan", count=count, native=native))

    @property
    def total(self) -> int:
        return sum(i.value for i in self.items)


def _limit(hand: Hand, sets: list[Set] | None, rules: HongKongRules) -> str | None:
    tiles = list(hand.counts().elements())
    for key in rules.limit_hands:
        hit = False
        if key == "thirteen_orphans":
            hit = thirteen_orphans(hand)
        elif key == "nine_gates":
            hit = nine_gates(hand)
        elif key == "eight_flowers":  # wins whatever the tiles (the source's 八仙過海)
            hit = len(hand.flowers) == 8
        elif sets is None:  # the others need four sets and a pair
            continue
        elif key == "heavenly_hand":
            hit = hand.heavenly and hand.seat_wind == "E"
        elif key == "earthly_hand":
            hit = hand.earthly and hand.seat_wind != "E"
        elif key == "all_honours":
            hit = all(is_honour(c) for c in tiles)
        elif key == "all_terminals":
            hit = all(is_terminal(c) for c in tiles)
        elif key == "all_kongs":
            hit = sum(1 for s in sets if s.kind == "kong") == 4
        elif key == "great_dragons":
            hit = sum(1 for s in sets if s.triplet and s.tile in DRAGONS) == 3
        elif key == "great_winds":
            hit = sum(1 for s in sets if s.triplet and s.tile in WINDS) == 4
        elif key == "small_winds":
            hit = (sum(1 for s in sets if s.triplet and s.tile in WINDS) == 3
                   and any(s.kind == "pair" and s.tile in WINDS for s in sets))
        elif key == "concealed_pungs_self_drawn":
            hit = hand.self_drawn and sum(1 for s in sets if s.triplet and s.concealed) == 4
        if hit:
            return key
    return None


def _faan(hand: Hand, sets: list[Set], rules: HongKongRules) -> _Faan:
    f, t = rules.faan, _Faan()
    seat, prevalent = WIND_TILE[hand.seat_wind], WIND_TILE[hand.prevalent_wind]
    chows = sum(1 for s in sets if s.kind == "chow")
    if chows == 4:
        t.add("all_chows", "all chows", "平糊", f.all_chows)
    elif chows == 0:
        t.add("all_pungs", "all pungs", "對對糊", f.all_pungs)
    tiles = [c for s in sets for c in s.tiles]
    suits = {suit(c) for c in tiles} - {"z"}
    if len(suits) == 1:
        if any(is_honour(c) for c in tiles):
            t.add("half_flush", "half flush", "混一色", f.half_flush)
        else:
            t.add("full_flush", "full flush", "清一色", f.full_flush)
    if all(is_major(c) for c in tiles) and any(is_honour(c) for c in tiles) and any(is_terminal(c) for c in tiles):
        t.add("mixed_terminals", "mixed terminals", "花么九", f.mixed_terminals)
    dragon_pungs = sum(1 for s in sets if s.triplet and s.tile in DRAGONS)
    if dragon_pungs == 2 and any(s.kind == "pair" and s.tile in DRAGONS for s in sets):
        t.add("little_three_dragons", "little three dragons", "小三元", f.little_three_dragons)
    else:
        t.add("dragon_pung", "pung of dragons", "番子", f.dragon_pung, dragon_pungs)
    if any(s.triplet and s.tile == seat for s in sets):
        t.add("seat_wind_pung", "pung of seat wind", "門風", f.seat_wind_pung)
    if any(s.triplet and s.tile == prevalent for s in sets):
        t.add("prevalent_wind_pung", "pung of prevailing wind", "圈風", f.prevalent_wind_pung)
    if hand.self_drawn:
        t.add("self_drawn", "self-drawn", "自摸", f.self_drawn)
    if hand.concealed_hand:
        t.add("concealed", "concealed hand", "門前清", f.concealed)
    if hand.robbing_kong:
        t.add("robbing_kong", "robbing a kong", "搶槓", f.robbing_kong)
    if hand.last_tile:
        t.add("last_tile", "the last tile", "海底撈月", f.last_tile)
    if hand.replacement:
        t.add("replacement", "won on a kong's replacement tile", "槓上開花", f.replacement)
    _bonus(t, hand, f)
    return t


def _bonus(t: _Faan, hand: Hand, f: FaanTable) -> None:
    bonus = set(hand.flowers)
    if len(bonus) == 7:
        t.add("seven_bonus_tiles", "seven flowers and seasons", "七花", f.seven_bonus_tiles)
        return
    if not bonus:
        t.add("no_bonus_tiles", "no flowers", "無花", f.no_bonus_tiles)
        return
    n = "ESWN".index(hand.seat_wind) + 1
    for group, own, name in ((("1f", "2f", "3f", "4f"), f"{n}f", "flowers"),
                             (("5f", "6f", "7f", "8f"), f"{n + 4}f", "seasons")):
        if set(group) <= bonus:
            t.add(f"all_{name}", f"all four {name}", "一台花", f.bonus_set)
        elif own in bonus:
            t.add("own_bonus_tile", "own flower or season", "正花", f.own_bonus_tile)


def score(hand: Hand, variant: Variant) -> Score:
    rules = rules_of(variant, HongKongRules)
    minimum = _settlement(variant).min_faan
    if hand.winning_tile is None:
        return Score.invalid("Hong Kong scores only the winning hand", "hongkong")
    readings = list(arrangements(hand))
    key = None
    if not readings:
        key = _limit(hand, None, rules)
        if key is None:
            return Score.invalid("not a winning hand: the tiles make no four sets and a pair", "hongkong")
    best: _Faan | None = None
    for sets in readings:
        key = _limit(hand, sets, rules)
        if key is not None:
            break
        t = _faan(hand, sets, rules)
        if best is None or t.total > best.total:
            best = t
    if key is not None:
        name, native = LIMIT_NAMES[key]
        faan = rules.limit_faan
        items = [Item(key=key, name=name, value=faan, unit="faan", native=native)]
        return Score(valid=True, system="hongkong", total=_points(variant, faan), items=items, limit=key,
                     payments=_payments(variant, faan))
    assert best is not None
    faan = min(best.total, rules.limit_faan)
    result = Score(valid=faan >= minimum, system="hongkong", total=_points(variant, faan), items=best.items,
                   limit="limit" if best.total >= rules.limit_faan else None, payments=_payments(variant, faan))
    if faan < minimum:
        result.reason = f"below the minimum: {faan} faan, a win needs {minimum}"
    return result


def faan_of(result: Score) -> int:
    """The faan a result counts (the limit's when a limit hand): what the settlement takes."""
    return result.payments["faan"] if result.payments else 0


def _payments(variant: Variant, faan: int) -> dict[str, int]:
    """The faan counted and the points each payer owes (the settlement's rule: a discarder pays
    double ("half") or all ("full"), self-drawn everyone double; East's factor aside)."""
    spec = _settlement(variant)
    base = _points(variant, faan)
    if spec.discard == "full":
        return {"faan": faan, "discarder": 6 * base, "others": 0, "self_drawn_each": 2 * base}
    return {"faan": faan, "discarder": 2 * base, "others": base, "self_drawn_each": 2 * base}

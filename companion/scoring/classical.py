"""Classical scoring (seeds 000/001: Millington's rules 112-122, RULES.md "Scoring"), table-driven.

Every number is the variant's `[scoring]` data, not code: basic points for sets, pairs and bonus
tiles (R114, every hand), the winner's points (R115), doubles for every hand (R116) and for the
winner only (R117), the limit (R118) and the special limit hands in force (R121-122). The German
home rules (seed 003) are the same machinery with their own tables (companion.scoring.german).

Points first, then the doubles (R112: 1 double ×2, 2 ×4 …), then the limit. Losing hands are
scored too (`winning_tile` null: the losers settle among themselves, R107-109): their sets,
bonus tiles and the doubles of R116, never the winner's items.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from companion.rules.variant import Variant
from companion.scoring import rules_of
from companion.scoring.hand import Hand, normal
from companion.scoring.result import Item, Score
from companion.scoring.shapes import (
    DRAGONS,
    GREEN,
    WIND_TILE,
    WINDS,
    Set,
    arrangements,
    is_honour,
    is_major,
    is_terminal,
    losing_sets,
    nine_gates,
    suit,
    thirteen_orphans,
    waits,
    wriggling_snake,
)

Count = Annotated[int, msgspec.Meta(ge=0)]
#: [exposed, concealed] points, or [pung, kong] doubles
Pair = Annotated[list[Count], msgspec.Meta(min_length=2, max_length=2)]

#: R121-122: the special limit hands this scorer can recognise from a hand
LimitHand = Literal[
    "heavens_blessing", "earths_blessing", "thirteen_orphans", "nine_gates", "all_honours", "all_terminals",
    "four_kongs", "four_concealed_pungs", "imperial_jade", "plum_blossom", "moon_from_sea", "scratching_pole",
    "three_great_scholars", "four_blessings", "concealed_clear_suit", "wriggling_snake",
]
LIMIT_NAMES: dict[str, str] = {
    "heavens_blessing": "Heaven's blessing",
    "earths_blessing": "Earth's blessing",
    "thirteen_orphans": "Thirteen unique wonders",
    "nine_gates": "Nine gates",
    "all_honours": "All honours",
    "all_terminals": "Heads and tails",
    "four_kongs": "Four kongs",
    "four_concealed_pungs": "Buried treasure",
    "imperial_jade": "Imperial jade",
    "plum_blossom": "Gathering the plum blossom from the roof",
    "moon_from_sea": "Catching the moon from the bottom of the sea",
    "scratching_pole": "Scratching a carrying pole",
    "three_great_scholars": "Three great scholars",
    "four_blessings": "Four blessings o'er the door",
    "concealed_clear_suit": "Concealed clear suit",
    "wriggling_snake": "Wriggling snake",
}


class _Table(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class Points(_Table):
    """R114: basic points every hand scores. Sets as [exposed, concealed]."""

    bonus_tile: Count = 4
    pung_minor: Pair = msgspec.field(default_factory=lambda: [2, 4])
    pung_major: Pair = msgspec.field(default_factory=lambda: [4, 8])
    kong_minor: Pair = msgspec.field(default_factory=lambda: [8, 16])
    kong_major: Pair = msgspec.field(default_factory=lambda: [16, 32])
    pair_dragon: Count = 2
    pair_own_wind: Count = 2
    pair_prevalent_wind: Count = 2
    #: a pair of one's own wind that is also the prevailing wind (instead of the two above)
    pair_own_prevalent_wind: Count = 4


class WinnerPoints(_Table):
    """R115: points for the winner only."""

    mahjong: Count = 10
    #: the winning tile drawn from the wall
    self_drawn: Count = 2
    #: filling the only place: one tile kind alone could complete the hand
    only_place: Count = 2
    #: fishing the eyes: the winning tile completes a pair of minor / of major tiles
    pair_minor: Count = 2
    pair_major: Count = 4
    #: German "Handspiel (keine Rufe)": nothing claimed, the winning tile drawn
    concealed_self_drawn: Count = 0
    #: the last tile of the wall, drawn / discarded
    last_tile: Count = 0
    last_discard: Count = 0
    robbing_kong: Count = 0
    #: German "Chowspiel" (four chows) / "Pungspiel" (no chow)
    all_chows: Count = 0
    no_chows: Count = 0


class Doubles(_Table):
    """R116: doubles every hand scores. Sets as [pung, kong]."""

    dragon_set: Pair = msgspec.field(default_factory=lambda: [1, 1])
    own_wind_set: Pair = msgspec.field(default_factory=lambda: [1, 1])
    prevalent_wind_set: Pair = msgspec.field(default_factory=lambda: [1, 1])
    #: a set of the wind that is both one's own and the prevailing one (instead of the two above)
    own_prevalent_wind_set: Pair = msgspec.field(default_factory=lambda: [2, 2])
    other_wind_set: Pair = msgspec.field(default_factory=lambda: [0, 0])
    suit_set: Pair = msgspec.field(default_factory=lambda: [0, 0])
    #: own flower and own season together (flower/season number = seat: E 1, S 2, W 3, N 4)
    own_flower_and_season: Count = 1
    #: each own flower or own season by itself (German)
    own_bonus_tile: Count = 0
    all_flowers: Count = 1
    all_seasons: Count = 1
    little_three_dragons: Count = 1
    big_three_dragons: Count = 2
    little_four_winds: Count = 1
    big_four_winds: Count = 2
    three_concealed_pungs: Count = 1


class WinnerDoubles(_Table):
    """R117: doubles for the winner only."""

    no_chows: Count = 1
    #: only chows and a worthless pair: no points from sets or the pair (bonus tiles aside)
    no_score: Count = 1
    #: no exposed set (concealed kongs allowed), won on a discard / self-drawn
    concealed_discard: Count = 1
    concealed_self_drawn: Count = 1
    #: one suit with honours, by how many of the four sets are of the suit (0..4)
    half_flush: Annotated[list[Count], msgspec.Meta(min_length=5, max_length=5)] = msgspec.field(
        default_factory=lambda: [0, 1, 1, 1, 1])
    full_flush: Count = 3
    all_majors: Count = 1
    replacement: Count = 1
    last_tile: Count = 1
    last_discard: Count = 0
    robbing_kong: Count = 1
    original_call: Count = 1


class ClassicalRules(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A variant's `[scoring]` table for the classical and German systems."""

    #: R118: a hand above the limit counts the limit (every hand, the losers' too)
    limit: Annotated[int, msgspec.Meta(ge=1)] = 1000
    #: R121-122: the special limit hands in force (they score the limit)
    limit_hands: list[LimitHand] = msgspec.field(default_factory=lambda: list(LIMIT_NAMES))
    points: Points = msgspec.field(default_factory=Points)
    winner_points: WinnerPoints = msgspec.field(default_factory=WinnerPoints)
    doubles: Doubles = msgspec.field(default_factory=Doubles)
    winner_doubles: WinnerDoubles = msgspec.field(default_factory=WinnerDoubles)


def check(variant: Variant) -> None:
    rules_of(variant, ClassicalRules)


def score(hand: Hand, variant: Variant) -> Score:
    return score_with(hand, rules_of(variant, ClassicalRules), "classical")


# --- the scorer ---------------------------------------------------------------------------------

class _Tally:
    """Items as they are found; the same key again adds to its count."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], Item] = {}

    def add(self, key: str, name: str, value: int, unit: str) -> None:
        if value <= 0:
            return
        if (key, unit) in self.items:
            item = self.items[key, unit]
            item.value += value
            item.count += 1
        else:
            self.items[key, unit] = Item(key=key, name=name, value=value, unit=unit)

    def total(self, unit: str) -> int:
        return sum(i.value for i in self.items.values() if i.unit == unit)


_SET_WORD = {"pung": "pung", "kong": "kong"}


def _set_points(t: _Tally, s: Set, rules: ClassicalRules, seat: str, prevalent: str) -> None:
    p = rules.points
    if s.kind == "chow":
        return
    if s.kind == "pair":
        own, prev = s.tile == seat, s.tile == prevalent
        if s.tile in DRAGONS:
            t.add("pair_of_dragons", "pair of dragons", p.pair_dragon, "points")
        elif own and prev:
            t.add("pair_of_own_prevalent_wind", "pair of own and prevailing wind", p.pair_own_prevalent_wind, "points")
        elif own:
            t.add("pair_of_own_wind", "pair of own wind", p.pair_own_wind, "points")
        elif prev:
            t.add("pair_of_prevalent_wind", "pair of prevailing wind", p.pair_prevalent_wind, "points")
        return
    grade = "major" if is_major(s.tile) else "minor"
    table = getattr(p, f"{s.kind}_{grade}")
    how = "concealed" if s.concealed else "exposed"
    t.add(f"{s.kind}_{grade}_{how}", f"{how} {s.kind} of {grade} tiles", table[1 if s.concealed else 0], "points")


def _set_doubles(t: _Tally, s: Set, rules: ClassicalRules, seat: str, prevalent: str) -> None:
    if not s.triplet:
        return
    d = rules.doubles
    k = 1 if s.kind == "kong" else 0
    word = _SET_WORD[s.kind]
    if s.tile in DRAGONS:
        t.add(f"{word}_of_dragons", f"{word} of dragons", d.dragon_set[k], "doubles")
    elif s.tile in WINDS:
        own, prev = s.tile == seat, s.tile == prevalent
        if own and prev:
            t.add(f"{word}_of_own_prevalent_wind", f"{word} of own and prevailing wind", d.own_prevalent_wind_set[k],
                  "doubles")
        elif own:
            t.add(f"{word}_of_own_wind", f"{word} of own wind", d.own_wind_set[k], "doubles")
        elif prev:
            t.add(f"{word}_of_prevalent_wind", f"{word} of prevailing wind", d.prevalent_wind_set[k], "doubles")
        else:
            t.add(f"{word}_of_other_wind", f"{word} of another wind", d.other_wind_set[k], "doubles")
    else:
        t.add(f"{word}_of_suit_tiles", f"{word} of suit tiles", d.suit_set[k], "doubles")


def _every_hand(t: _Tally, sets: list[Set], hand: Hand, rules: ClassicalRules) -> None:
    """R114 and R116: what every hand scores, winner or not."""
    seat, prevalent = WIND_TILE[hand.seat_wind], WIND_TILE[hand.prevalent_wind]
    p, d = rules.points, rules.doubles
    for _ in hand.flowers:
        t.add("bonus_tile", "flower or season", p.bonus_tile, "points")
    for s in sets:
        _set_points(t, s, rules, seat, prevalent)
        _set_doubles(t, s, rules, seat, prevalent)
    number = "ESWN".index(hand.seat_wind) + 1
    own = {f"{number}f", f"{number + 4}f"}
    bonus = set(hand.flowers)
    if own <= bonus:
        t.add("own_flower_and_season", "own flower and own season", d.own_flower_and_season, "doubles")
    for _code in sorted(own & bonus):
        t.add("own_bonus_tile", "own flower or season", d.own_bonus_tile, "doubles")
    if {"1f", "2f", "3f", "4f"} <= bonus:
        t.add("all_flowers", "all four flowers", d.all_flowers, "doubles")
    if {"5f", "6f", "7f", "8f"} <= bonus:
        t.add("all_seasons", "all four seasons", d.all_seasons, "doubles")
    dragon_sets = sum(1 for s in sets if s.triplet and s.tile in DRAGONS)
    dragon_pair = any(s.kind == "pair" and s.tile in DRAGONS for s in sets)
    wind_sets = sum(1 for s in sets if s.triplet and s.tile in WINDS)
    wind_pair = any(s.kind == "pair" and s.tile in WINDS for s in sets)
    if dragon_sets == 3:
        t.add("big_three_dragons", "big three dragons", d.big_three_dragons, "doubles")
    elif dragon_sets == 2 and dragon_pair:
        t.add("little_three_dragons", "little three dragons", d.little_three_dragons, "doubles")
    if wind_sets == 4:
        t.add("big_four_winds", "big four winds", d.big_four_winds, "doubles")
    elif wind_sets == 3 and wind_pair:
        t.add("little_four_winds", "little four winds", d.little_four_winds, "doubles")
    if sum(1 for s in sets if s.triplet and s.concealed) >= 3:
        t.add("three_concealed_pungs", "three concealed pungs", d.three_concealed_pungs, "doubles")


def _winner(t: _Tally, sets: list[Set], hand: Hand, rules: ClassicalRules, only_place: bool) -> None:
    """R115 and R117: what only the winner scores."""
    wp, wd = rules.winner_points, rules.winner_doubles
    t.add("mahjong", "going out (mahjong)", wp.mahjong, "points")
    if hand.self_drawn:
        t.add("self_drawn", "winning tile drawn from the wall", wp.self_drawn, "points")
    if only_place:
        t.add("only_place", "filling the only place", wp.only_place, "points")
    pair = next(s for s in sets if s.kind == "pair")
    if pair.completed:
        if is_major(pair.tile):
            t.add("fishing_the_eyes_major", "fishing the eyes (major pair)", wp.pair_major, "points")
        else:
            t.add("fishing_the_eyes_minor", "fishing the eyes (minor pair)", wp.pair_minor, "points")
    concealed = all(s.concealed or s.completed for s in sets)
    chows = sum(1 for s in sets if s.kind == "chow")
    if concealed and hand.self_drawn:
        t.add("concealed_self_drawn", "fully concealed, self-drawn", wp.concealed_self_drawn, "points")
    if hand.last_tile and hand.self_drawn:
        t.add("last_tile", "the last tile of the wall", wp.last_tile, "points")
    if hand.last_tile and not hand.self_drawn:
        t.add("last_discard", "the last discard", wp.last_discard, "points")
    if hand.robbing_kong:
        t.add("robbing_kong", "robbing a kong", wp.robbing_kong, "points")
    if chows == 4:
        t.add("all_chows", "all chows", wp.all_chows, "points")
    if chows == 0:
        t.add("no_chows", "no chows", wp.no_chows, "points")
    # doubles, winner only
    if chows == 0:
        t.add("no_chows", "no chows", wd.no_chows, "doubles")
    scoring = _Tally()
    for s in sets:
        _set_points(scoring, s, rules, WIND_TILE[hand.seat_wind], WIND_TILE[hand.prevalent_wind])
    if not scoring.total("points"):
        t.add("no_score", "no score (only chows and a worthless pair)", wd.no_score, "doubles")
    if concealed:
        if hand.self_drawn:
            t.add("fully_concealed", "fully concealed hand", wd.concealed_self_drawn, "doubles")
        else:
            t.add("fully_concealed", "fully concealed hand", wd.concealed_discard, "doubles")
    tiles = [c for s in sets for c in s.tiles]
    suits = {suit(c) for c in tiles} - {"z"}
    if len(suits) == 1:
        if any(is_honour(c) for c in tiles):
            n = sum(1 for s in sets if s.kind != "pair" and not is_honour(s.tile))
            t.add("one_suit_with_honours", "one suit with honours", wd.half_flush[n], "doubles")
        else:
            t.add("one_suit_only", "one suit only", wd.full_flush, "doubles")
    if all(is_major(c) for c in tiles):
        t.add("all_majors", "all major tiles", wd.all_majors, "doubles")
    if hand.replacement:
        t.add("replacement", "winning with a loose tile", wd.replacement, "doubles")
    if hand.last_tile and hand.self_drawn:
        t.add("last_tile", "the last tile of the wall", wd.last_tile, "doubles")
    if hand.last_tile and not hand.self_drawn:
        t.add("last_discard", "the last discard", wd.last_discard, "doubles")
    if hand.robbing_kong:
        t.add("robbing_kong", "robbing a kong", wd.robbing_kong, "doubles")
    if hand.original_call:
        t.add("original_call", "completing an original call", wd.original_call, "doubles")


def _limit_hand(hand: Hand, sets: list[Set] | None, rules: ClassicalRules) -> str | None:
    """The first special limit hand in force that the hand is (R121-122); `sets` None: no
    standard reading (only the special shapes can apply)."""
    win = normal(hand.winning_tile) if hand.winning_tile else ""
    tiles = list(hand.counts().elements())
    one_suit = len({suit(c) for c in tiles}) == 1 and not is_honour(tiles[0])
    for key in rules.limit_hands:
        hit = False
        if key == "thirteen_orphans":
            hit = thirteen_orphans(hand)
        elif key == "nine_gates":
            hit = nine_gates(hand)
        elif key == "wriggling_snake":
            hit = wriggling_snake(hand)
        elif sets is None:  # the others need four sets and a pair
            continue
        elif key == "heavens_blessing":
            hit = hand.heavenly and hand.seat_wind == "E"
        elif key == "earths_blessing":
            hit = hand.earthly and hand.seat_wind != "E"
        elif key == "plum_blossom":
            hit = hand.replacement and win == "5p"
        elif key == "moon_from_sea":
            hit = hand.last_tile and hand.self_drawn and win == "1p"
        elif key == "scratching_pole":
            hit = hand.robbing_kong and win == "2s"
        elif key == "all_honours":
            hit = all(is_honour(c) for c in tiles)
        elif key == "all_terminals":
            hit = all(is_terminal(c) for c in tiles)
        elif key == "four_kongs":
            hit = sum(1 for s in sets if s.kind == "kong") == 4
        elif key == "four_concealed_pungs":
            hit = sum(1 for s in sets if s.triplet and s.concealed) == 4
        elif key == "imperial_jade":
            hit = set(tiles) <= GREEN
        elif key == "three_great_scholars":
            hit = (sum(1 for s in sets if s.triplet and s.tile in DRAGONS) == 3
                   and not any(s.kind == "chow" for s in sets))
        elif key == "four_blessings":
            hit = sum(1 for s in sets if s.triplet and s.tile in WINDS) == 4
        elif key == "concealed_clear_suit":
            hit = one_suit and all(s.concealed or s.completed for s in sets)
        if hit:
            return key
    return None


def _finish(t: _Tally, rules: ClassicalRules, system: str) -> Score:
    points = t.total("points")
    doubles = t.total("doubles")
    raw = points * 2**doubles
    total = min(raw, rules.limit)
    items = sorted(t.items.values(), key=lambda i: i.unit != "points")  # points, then doubles, each as found
    return Score(valid=True, system=system, total=total, items=items,
                 limit="limit" if raw > rules.limit else None)


def score_with(hand: Hand, rules: ClassicalRules, system: str) -> Score:
    """Score a hand under a classical-style table (`system` names it in the result)."""
    if hand.winning_tile is None:
        sets, pairs = losing_sets(hand)
        options = []
        for pair in [None, *pairs]:
            t = _Tally()
            _every_hand(t, sets + ([pair] if pair else []), hand, rules)
            options.append(_finish(t, rules, system))
        return max(options, key=lambda r: r.total)
    readings = list(arrangements(hand))
    if not readings:
        key = _limit_hand(hand, None, rules)
        if key is None:
            return Score.invalid("not a winning hand: the tiles make no four sets and a pair", system)
        return _limit_score(key, rules, system)
    only_place = len(waits(hand)) == 1
    best: Score | None = None
    for sets in readings:
        key = _limit_hand(hand, sets, rules)
        if key is not None:
            return _limit_score(key, rules, system)
        t = _Tally()
        _every_hand(t, sets, hand, rules)
        _winner(t, sets, hand, rules, only_place)
        result = _finish(t, rules, system)
        if best is None or result.total > best.total:
            best = result
    assert best is not None
    return best


def _limit_score(key: str, rules: ClassicalRules, system: str) -> Score:
    item = Item(key=key, name=LIMIT_NAMES[key], value=rules.limit, unit="limit")
    return Score(valid=True, system=system, total=rules.limit, items=[item], limit=key)

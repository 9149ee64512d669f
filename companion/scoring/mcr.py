"""MCR (Mahjong Competition Rules, seed 004): a thin adapter over PyMahjongGB.

PyMahjongGB implements the 81 fans with the non-repeat principles; this module only turns our
hand into its arguments, names each fan in English with a stable key (the Chinese name kept),
applies the minimum (RULES.md "MCR": 8 fans not counting flowers, flowers 1 fan each) and says
who pays (discarder base + fans, the others base; self-drawn: everyone base + fans).
"""

from __future__ import annotations

import msgspec

from companion.errors import VariantError
from companion.rules.variant import McrSettlement, Variant
from companion.scoring.hand import Hand, Meld, normal
from companion.scoring.result import Item, Score

#: the fan table of the rule book: Chinese name -> (key, English name, fans). The library names
#: each fan in Chinese; the English names are the rule book's (PyMahjongGB's, where they agree).
FANS: dict[str, tuple[str, str, int]] = {
    "大四喜": ("big_four_winds", "Big Four Winds", 88),
    "大三元": ("big_three_dragons", "Big Three Dragons", 88),
    "绿一色": ("all_green", "All Green", 88),
    "九莲宝灯": ("nine_gates", "Nine Gates", 88),
    "四杠": ("four_kongs", "Four Kongs", 88),
    "连七对": ("seven_shifted_pairs", "Seven Shifted Pairs", 88),
    "十三幺": ("thirteen_orphans", "Thirteen Orphans", 88),
    "清幺九": ("all_terminals", "All Terminals", 64),
    "小四喜": ("little_four_winds", "Little Four Winds", 64),
    "小三元": ("little_three_dragons", "Little Three Dragons", 64),
    "字一色": ("all_honors", "All Honors", 64),
    "四暗刻": ("four_concealed_pungs", "Four Concealed Pungs", 64),
    "一色双龙会": ("pure_terminal_chows", "Pure Terminal Chows", 64),
    "一色四同顺": ("quadruple_chow", "Quadruple Chow", 48),
    "一色四节高": ("four_pure_shifted_pungs", "Four Pure Shifted Pungs", 48),
    "一色四步高": ("four_pure_shifted_chows", "Four Pure Shifted Chows", 32),
    "三杠": ("three_kongs", "Three Kongs", 32),
    "混幺九": ("all_terminals_and_honors", "All Terminals and Honors", 32),
    "七对": ("seven_pairs", "Seven Pairs", 24),
    "七星不靠": ("greater_honors_and_knitted_tiles", "Greater Honors and Knitted Tiles", 24),
    "全双刻": ("all_even_pungs", "All Even Pungs", 24),
    "清一色": ("full_flush", "Full Flush", 24),
    "一色三同顺": ("pure_triple_chow", "Pure Triple Chow", 24),
    "一色三节高": ("pure_shifted_pungs", "Pure Shifted Pungs", 24),
    "全大": ("upper_tiles", "Upper Tiles", 24),
    "全中": ("middle_tiles", "Middle Tiles", 24),
    "全小": ("lower_tiles", "Lower Tiles", 24),
    "清龙": ("pure_straight", "Pure Straight", 16),
    "三色双龙会": ("three_suited_terminal_chows", "Three-Suited Terminal Chows", 16),
    "一色三步高": ("pure_shifted_chows", "Pure Shifted Chows", 16),
    "全带五": ("all_fives", "All Fives", 16),
    "三同刻": ("triple_pung", "Triple Pung", 16),
    "三暗刻": ("three_concealed_pungs", "Three Concealed Pungs", 16),
    "全不靠": ("lesser_honors_and_knitted_tiles", "Lesser Honors and Knitted Tiles", 12),
    "组合龙": ("knitted_straight", "Knitted Straight", 12),
    "大于五": ("upper_four", "Upper Four", 12),
    "小于五": ("lower_four", "Lower Four", 12),
    "三风刻": ("big_three_winds", "Big Three Winds", 12),
    "花龙": ("mixed_straight", "Mixed Straight", 8),
    "推不倒": ("reversible_tiles", "Reversible Tiles", 8),
    "三色三同顺": ("mixed_triple_chow", "Mixed Triple Chow", 8),
    "三色三节高": ("mixed_shifted_pungs", "Mixed Shifted Pungs", 8),
    "无番和": ("chicken_hand", "Chicken Hand", 8),
    "妙手回春": ("last_tile_draw", "Last Tile Draw", 8),
    "海底捞月": ("last_tile_claim", "Last Tile Claim", 8),
    "杠上开花": ("out_with_replacement_tile", "Out with Replacement Tile", 8),
    "抢杠和": ("robbing_the_kong", "Robbing the Kong", 8),
    "碰碰和": ("all_pungs", "All Pungs", 6),
    "混一色": ("half_flush", "Half Flush", 6),
    "三色三步高": ("mixed_shifted_chows", "Mixed Shifted Chows", 6),
    "五门齐": ("all_types", "All Types", 6),
    "全求人": ("melded_hand", "Melded Hand", 6),
    "双暗杠": ("two_concealed_kongs", "Two Concealed Kongs", 6),
    "双箭刻": ("two_dragon_pungs", "Two Dragon Pungs", 6),
    "全带幺": ("outside_hand", "Outside Hand", 4),
    "不求人": ("fully_concealed_hand", "Fully Concealed Hand", 4),
    "双明杠": ("two_melded_kongs", "Two Melded Kongs", 4),
    "和绝张": ("last_tile", "Last Tile", 4),
    "箭刻": ("dragon_pung", "Dragon Pung", 2),
    "圈风刻": ("prevalent_wind", "Prevalent Wind", 2),
    "门风刻": ("seat_wind", "Seat Wind", 2),
    "门前清": ("concealed_hand", "Concealed Hand", 2),
    "平和": ("all_chows", "All Chows", 2),
    "四归一": ("tile_hog", "Tile Hog", 2),
    "双同刻": ("double_pung", "Double Pung", 2),
    "双暗刻": ("two_concealed_pungs", "Two Concealed Pungs", 2),
    "暗杠": ("concealed_kong", "Concealed Kong", 2),
    "断幺": ("all_simples", "All Simples", 2),
    "一般高": ("pure_double_chow", "Pure Double Chow", 1),
    "喜相逢": ("mixed_double_chow", "Mixed Double Chow", 1),
    "连六": ("short_straight", "Short Straight", 1),
    "老少副": ("two_terminal_chows", "Two Terminal Chows", 1),
    "幺九刻": ("pung_of_terminals_or_honors", "Pung of Terminals or Honors", 1),
    "明杠": ("melded_kong", "Melded Kong", 1),
    "缺一门": ("one_voided_suit", "One Voided Suit", 1),
    "无字": ("no_honors", "No Honors", 1),
    "独听・边张": ("edge_wait", "Edge Wait", 1),
    "独听・嵌张": ("closed_wait", "Closed Wait", 1),
    "独听・单钓": ("single_wait", "Single Wait", 1),
    "自摸": ("self_drawn", "Self-Drawn", 1),
    "花牌": ("flower_tiles", "Flower Tiles", 1),
    # one melded and one concealed kong: 5 fans (a later ruling the library follows)
    "明暗杠": ("concealed_and_melded_kong", "Concealed Kong and Melded Kong", 5),
}

_SUIT = {"m": "W", "p": "B", "s": "T"}
#: our honour codes 1z-7z (E, S, W, N, White, Green, Red) -> the library's (F1-F4, J3 white, J2 green, J1 red)
_HONOUR = {"1z": "F1", "2z": "F2", "3z": "F3", "4z": "F4", "5z": "J3", "6z": "J2", "7z": "J1"}
_WIND = {"E": 0, "S": 1, "W": 2, "N": 3}
_LIBRARY_ERRORS = {
    "ERROR_NOT_WIN": "not a winning hand",
    "ERROR_WRONG_TILES_COUNT": "the wrong number of tiles",
    "ERROR_TILE_COUNT_GREATER_THAN_4": "more than four of a tile",
    "ERROR_INVALID_HAND": "not a valid hand",
    "ERROR_INVALID_HAND_OR_PACK": "not a valid hand",
}


class McrRules(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """`[scoring]` settings of an MCR variant (the minimum itself is settlement.min_fan)."""

    #: fans per flower or season (0: bonus tiles are not scored)
    flower_fan: int = 1


def _code(tile: str) -> str:
    t = normal(tile)
    return _SUIT[t[1]] + t[0] if t[1] in _SUIT else _HONOUR[t]


def _pack(meld: Meld) -> tuple[str, str, int]:
    kind = meld.kind
    if kind == "chow":
        middle = sorted(normal(t) for t in meld.tiles)[1]
        return ("CHI", _code(middle), 2)  # which tile was claimed does not change the fans
    # offer 0 marks a concealed kong; for exposed sets any other seat gives the same fans
    return ("GANG" if kind == "kong" else "PENG", _code(meld.tiles[0]), 0 if meld.concealed else 1)


def _rules(variant: Variant) -> McrRules:
    from companion.scoring import rules_of

    rules = rules_of(variant, McrRules)
    if rules.flower_fan < 0:
        raise VariantError(f"variant {variant.name!r}: scoring.flower_fan: must be 0 or more")
    return rules


def check(variant: Variant) -> None:
    _rules(variant)


def _settlement(variant: Variant) -> McrSettlement:
    s = variant.settlement
    return s if isinstance(s, McrSettlement) else McrSettlement()


def fans(hand: Hand, flower_count: int = 0) -> tuple[tuple[int, int, str, str], ...]:
    """The library's verbose answer (fan value, count, Chinese name, English name); TypeError
    with the library's code if the hand does not win."""
    from MahjongGB import MahjongFanCalculator

    assert hand.winning_tile is not None
    about_kong = hand.replacement if hand.self_drawn else hand.robbing_kong
    return MahjongFanCalculator(
        tuple(_pack(m) for m in hand.melds), tuple(_code(t) for t in hand.concealed), _code(hand.winning_tile),
        flower_count, hand.self_drawn, hand.fourth_tile, about_kong, hand.last_tile,
        _WIND[hand.seat_wind], _WIND[hand.prevalent_wind], verbose=True,
    )


def score(hand: Hand, variant: Variant) -> Score:
    """Fans of a winning hand; valid only with at least `min_fan` fans besides flowers."""
    rules = _rules(variant)
    settle = _settlement(variant)
    if not hand.winning:
        return Score.invalid("a losing hand scores nothing in MCR", "mcr")
    if hand.robbing_kong and hand.self_drawn:
        return Score.invalid("robbing a kong is a win on another player's tile, not self-drawn", "mcr")
    if hand.replacement and not hand.self_drawn:
        return Score.invalid("a replacement tile is drawn by the winner: set self_drawn", "mcr")
    if hand.replacement and not any(m.kind == "kong" for m in hand.melds):
        return Score.invalid("out with a replacement tile needs a kong in the hand (a flower's replacement "
                             "counts as self-drawn only)", "mcr")
    if hand.robbing_kong and hand.counts()[normal(hand.winning_tile)] > 1:
        return Score.invalid("robbing a kong: the robbed tile cannot also be in the winner's hand", "mcr")
    try:
        found = fans(hand)
    except TypeError as e:
        why = _LIBRARY_ERRORS.get(str(e), str(e))
        return Score.invalid(f"{why} (MCR)", "mcr")
    items = []
    for value, count, native, english in found:
        key, name, _ = FANS.get(native, (english.lower().replace(" ", "_").replace("-", "_"), english, value))
        items.append(Item(key=key, name=name, value=value * count, unit="fan", count=count, native=native))
    base = sum(i.value for i in items)
    if hand.flowers and rules.flower_fan:
        n = len(hand.flowers)
        items.append(Item(key="flower_tiles", name="Flower Tiles", value=n * rules.flower_fan, unit="fan",
                          count=n, native="花牌"))
    total = sum(i.value for i in items)
    if base < settle.min_fan:
        return Score(valid=False, reason=f"{base} fans without flowers: below the minimum of {settle.min_fan}",
                     system="mcr", total=total, items=items)
    if hand.self_drawn:
        payments = {"each": settle.base + total, "winner": 3 * (settle.base + total)}
    else:
        payments = {"discarder": settle.base + total, "others": settle.base,
                    "winner": 3 * settle.base + total}
    return Score(valid=True, system="mcr", total=total, items=items, payments=payments)

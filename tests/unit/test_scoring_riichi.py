"""Riichi scoring against published known answers (RULES.md "Riichi and Hong Kong").

- scoring_cases/riichi_mahjong_lib.json: the han, fu and yaku count of the hands in the mahjong
  library's own test suite (cited per case), scored through our hand format and adapter.
- The payment tables of the EMA riichi rules (2016, §4.1.3 "Scoring tables"; the same figures are
  in the WRC rules): points per han and fu, dealer or not, ron or tsumo, with honba and sticks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.errors import VariantError
from companion.rules.variant import load_variant, parse_variant
from companion.scoring import check_variant, score_obj
from companion.scoring.hand import normal, tiles_from_text

CASES = json.loads((Path(__file__).with_name("scoring_cases") / "riichi_mahjong_lib.json").read_text())

RIICHI = load_variant("riichi")


def variant_with(**scoring):
    data = RIICHI.to_dict()
    data["scoring"] = scoring
    return parse_variant(data, "test")


#: the library's defaults the test suite ran with: no open tanyao, no red fives, no kiriage
LIB_DEFAULTS = {"open_tanyao": False, "red_fives": False, "kiriage_mangan": False}
VARIANTS = {flag: variant_with(**dict(LIB_DEFAULTS, open_tanyao=flag)) for flag in (False, True)}


def case_hand(case: dict) -> dict:
    pool = tiles_from_text(case["tiles"])
    melds = []
    for text in case.get("melds", []):
        kind, ts = text.split()
        ts = tiles_from_text(ts)
        for t in ts:
            if t in pool:  # a kong's fourth tile may be missing from the test's tiles
                pool.remove(t)
        melds.append({"tiles": ts, "concealed": kind == "ankan"})
    pool.remove(case["win"])
    config = case.get("config", {})
    held = {normal(t) for t in tiles_from_text(case["tiles"])}
    absent = [w for w, code in zip("NWSE", ("4z", "3z", "2z", "1z")) if code not in held]
    return {
        "variant": "riichi", "concealed": pool, "melds": melds, "winning_tile": case["win"],
        "self_drawn": config.get("is_tsumo", False), "riichi": config.get("is_riichi", False),
        "ippatsu": config.get("is_ippatsu", False), "double_riichi": config.get("is_daburu_riichi", False),
        "seat_wind": config.get("player_wind", absent[0]), "prevalent_wind": config.get("round_wind", absent[0]),
        "dora_indicators": case.get("dora", []),
    }


@pytest.mark.parametrize("case", CASES["cases"], ids=[c["test"] for c in CASES["cases"]])
def test_library_suite_hand(case):
    variant = VARIANTS[case.get("config", {}).get("has_open_tanyao", False)]
    score = score_obj(case_hand(case), variant)
    if case.get("han") == 0:
        assert not score.valid and score.reason == "no yaku"
        return
    assert score.valid, score.reason
    assert score.fu == case["fu"]
    if "han" in case:
        assert score.han == case["han"]
    if "yaku" in case:
        assert len(score.yaku) == case["yaku"]
    assert score.han == sum(i.value for i in score.items if i.unit == "han")


def test_enough_known_answers():
    assert len(CASES["cases"]) >= 50


# --- payments: EMA rules 2016 §4.1.3 scoring tables ------------------------------------------------

TANYAO_PINFU = {"variant": "riichi", "concealed": tiles_from_text("234567s23456m22p"), "winning_tile": "7m"}


@pytest.mark.parametrize("seat,flags,han,fu,total,payments", [
    # riichi tanyao pinfu: 3 han 30 fu. Non-dealer ron 3900, dealer ron 5800 (EMA table)
    ("S", {"riichi": True}, 3, 30, 3900, {"ron": 3900}),
    ("E", {"riichi": True}, 3, 30, 5800, {"ron": 5800}),
    # tanyao pinfu menzen tsumo: 3 han 20 fu. Non-dealer 700/1300, dealer 1300 all
    ("S", {"self_drawn": True}, 3, 20, 2700, {"dealer": 1300, "others": 700}),
    ("E", {"self_drawn": True}, 3, 20, 3900, {"each": 1300}),
    # riichi tsumo tanyao pinfu: 4 han 20 fu. Non-dealer 1300/2600, dealer 2600 all
    ("S", {"self_drawn": True, "riichi": True}, 4, 20, 5200, {"dealer": 2600, "others": 1300}),
    # + ippatsu: 5 han, mangan: non-dealer 2000/4000 = 8000, dealer 4000 all = 12000
    ("S", {"self_drawn": True, "riichi": True, "ippatsu": True}, 5, 20, 8000, {"dealer": 4000, "others": 2000}),
    ("E", {"self_drawn": True, "riichi": True, "ippatsu": True}, 5, 20, 12000, {"each": 4000}),
])
def test_payment_table(seat, flags, han, fu, total, payments):
    s = score_obj(dict(TANYAO_PINFU, seat_wind=seat, prevalent_wind="S" if seat == "E" else "E", **flags), RIICHI)
    assert (s.han, s.fu, s.total) == (han, fu, total)
    assert {k: v for k, v in s.payments.items() if k not in ("honba", "sticks", "winner")} == payments


def test_honba_and_sticks_go_to_the_winner():
    """EMA 3.4.10: each counter adds 300 to a ron (100 from each on a tsumo); riichi sticks go to the winner."""
    s = score_obj(dict(TANYAO_PINFU, seat_wind="S", riichi=True, honba=2, riichi_sticks=3), RIICHI)
    assert s.total == 3900
    assert (s.payments["honba"], s.payments["sticks"], s.payments["winner"]) == (600, 3000, 7500)
    s = score_obj(dict(TANYAO_PINFU, seat_wind="S", self_drawn=True, honba=1), RIICHI)
    assert (s.payments["honba"], s.payments["winner"]) == (300, 3000)


def test_kiriage_mangan_setting():
    """4 han 30 fu is 7700 (non-dealer ron) by the table, 8000 where kiriage mangan is played."""
    four = dict(TANYAO_PINFU, seat_wind="S", riichi=True, dora_indicators=["6m"])  # dora 7m: the winning tile
    plain = score_obj(four, variant_with(kiriage_mangan=False))
    assert (plain.han, plain.fu, plain.total) == (4, 30, 7700)
    assert score_obj(four, variant_with(kiriage_mangan=True)).total == 8000
    assert score_obj(four, RIICHI).total == 7700  # the built-in riichi variant: settlement kiriage_mangan false


def test_red_fives_setting():
    hand = dict(TANYAO_PINFU, seat_wind="S", riichi=True, concealed=tiles_from_text("234067s23456m22p"))
    with_red = score_obj(hand, RIICHI)
    assert "aka_dora" in {i.key for i in with_red.items} and with_red.han == 4
    without = score_obj(hand, variant_with(red_fives=False))
    assert without.han == 3


def test_ura_dora_counts_only_with_riichi_and_double_riichi_replaces_riichi():
    hand = dict(TANYAO_PINFU, seat_wind="S", ura_indicators=["1p"])
    assert "ura_dora" not in {i.key for i in score_obj(hand, RIICHI).items}
    s = score_obj(dict(hand, riichi=True), RIICHI)
    assert [i.value for i in s.items if i.key == "ura_dora"] == [2]
    s = score_obj(dict(hand, riichi=True, double_riichi=True), RIICHI)
    keys = {i.key for i in s.items}
    assert "daburu_riichi" in keys and "riichi" not in keys


def test_special_wins():
    """Haitei/houtei, rinshan (needs a kong), chankan, tenhou (dealer), chiihou (non-dealer)."""
    assert "haitei" in {i.key for i in score_obj(dict(TANYAO_PINFU, self_drawn=True, last_tile=True), RIICHI).items}
    assert "houtei" in {i.key for i in score_obj(dict(TANYAO_PINFU, last_tile=True), RIICHI).items}
    assert "chankan" in {i.key for i in score_obj(dict(TANYAO_PINFU, robbing_kong=True), RIICHI).items}
    kong = {"variant": "riichi", "melds": [{"tiles": ["8p"] * 4, "concealed": True}],
            "concealed": tiles_from_text("234567s456m2p"), "winning_tile": "2p", "self_drawn": True,
            "replacement": True}
    assert "rinshan" in {i.key for i in score_obj(kong, RIICHI).items}
    no_kong = dict(kong, melds=[], concealed=tiles_from_text("234567s456m888p2p"))
    assert not score_obj(no_kong, RIICHI).valid
    tenhou = score_obj(dict(TANYAO_PINFU, self_drawn=True, heavenly=True, seat_wind="E"), RIICHI)
    assert tenhou.limit == "yakuman" and tenhou.total == 48000
    chiihou = score_obj(dict(TANYAO_PINFU, self_drawn=True, earthly=True, seat_wind="S"), RIICHI)
    assert "chiihou" in {i.key for i in chiihou.items} and chiihou.total == 32000
    assert "dealer's win" in score_obj(dict(TANYAO_PINFU, self_drawn=True, heavenly=True, seat_wind="S"),
                                       RIICHI).reason


def test_bad_settings_are_named():
    with pytest.raises(VariantError, match=r"scoring.kazoe: Invalid enum value 'always' \(one of: limited, none, sanbaiman\)"):
        check_variant(variant_with(kazoe="always"))
    with pytest.raises(VariantError, match="unknown field `open_tanyo`"):
        check_variant(variant_with(open_tanyo=True))


def test_flowers_and_losing_hands_are_refused():
    assert "without flowers" in score_obj(dict(TANYAO_PINFU, flowers=["1f"]), RIICHI).reason
    assert "losing hand" in score_obj(dict(TANYAO_PINFU, winning_tile=None,
                                           concealed=tiles_from_text("234567s23456m22p")), RIICHI).reason

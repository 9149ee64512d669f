"""Hong Kong scoring against the published per-pattern cases of hk-mahjong-hand-calculation (MIT): the
faan each pattern adds, the 3-faan minimum, the 13-faan limit and the points table as settings."""

from __future__ import annotations

import pytest
from scoring_table_cases import cases, json_hand

from companion.errors import VariantError
from companion.rules.variant import load_variant
from companion.scoring import check_variant, parse_hand, score_hand, score_obj
from companion.scoring.hongkong import faan_of

HONGKONG = load_variant("hongkong")
CASES = cases("hongkong")
BASE = {"concealed": "1s1s1s 5s5s5s 7s9s 4z4z", "melds": ["3z3z3z"], "winning_tile": "8s"}  # 混一色, 3 faan


@pytest.mark.parametrize("case", CASES)
def test_known_answer(case):
    result = score_hand(parse_hand(json_hand(case["hand"])), HONGKONG)
    assert result.system == "hongkong"
    assert faan_of(result) == case["faan"]
    assert sum(i.value for i in result.items) == min(case["faan"], 13) or result.limit
    assert result.valid is case.get("valid", True), result.reason
    if "total" in case:
        assert result.total == case["total"]
    assert result.limit == case.get("limit")


def test_below_the_minimum_says_so():
    result = score_obj(json_hand({"concealed": "1p1p1p 4p4p4p 2m3m4m 6p", "melds": ["1s1s1s"],
                                  "winning_tile": "6p"}), HONGKONG)
    assert not result.valid and result.reason == "below the minimum: 0 faan, a win needs 3"


def test_items_carry_the_standard_names():
    result = score_hand(parse_hand(json_hand(BASE | {"self_drawn": True})), HONGKONG)
    assert [(i.key, i.value, i.native) for i in result.items] == [("half_flush", 3, "混一色"), ("self_drawn", 1, "自摸")]
    assert result.payments == {"faan": 4, "discarder": 32, "others": 16, "self_drawn_each": 32}


def test_losing_hand_is_not_scored():
    result = score_obj(json_hand({"concealed": "1s1s1s 5s5s5s 7s9s 4z4z", "melds": ["3z3z3z"]}), HONGKONG)
    assert not result.valid and "winning hand" in result.reason


def _club(tmp_path, body: str):
    path = tmp_path / "club.toml"
    path.write_text('extends = "hongkong"\nname = "club"\ntitle = "Our club"\n' + body)
    return load_variant(str(path))


def test_house_rule_no_flowers_faan(tmp_path):
    """無花 (a hand without flowers) +1: off by default, the source's enableBonusFaanDueToZeroExtraTile: 3 + 1."""
    hand = parse_hand(json_hand(BASE))
    assert faan_of(score_hand(hand, HONGKONG)) == 3
    assert faan_of(score_hand(hand, _club(tmp_path, "[scoring.faan]\nno_bonus_tiles = 1\n"))) == 4


def test_house_rule_minimum_limit_and_points(tmp_path):
    club = _club(tmp_path, "[settlement]\nmin_faan = 0\nfaan_points = [1, 2, 4, 8, 16, 32, 64, 128, 256]\n"
                           "[scoring]\nlimit_faan = 8\n")
    chicken = parse_hand(json_hand({"concealed": "1p1p1p 4p4p4p 2m3m4m 6p", "melds": ["1s1s1s"], "winning_tile": "6p"}))
    assert score_hand(chicken, club).valid and score_hand(chicken, club).total == 1
    flush = parse_hand(json_hand({"concealed": "3m3m3m 5m5m5m 7m7m 9m9m", "melds": ["1m1m1m"], "winning_tile": "9m"}))
    result = score_hand(flush, club)  # 10 faan, capped at the club's 8
    assert (faan_of(result), result.total, result.limit) == (8, 256, "limit")


def test_limit_beyond_the_points_table_is_refused(tmp_path):
    with pytest.raises(VariantError, match=r"scoring\.limit_faan"):
        check_variant(_club(tmp_path, "[scoring]\nlimit_faan = 20\n"))

"""Classical scoring (seeds 000/001, Millington R112-R122) against hands worked by hand from the rules,
losers' hands included, and a club's house rule changing a number of the table, not the code."""

from __future__ import annotations

import pytest
from scoring_table_cases import FIXTURES, cases, json_hand

from companion.errors import VariantError
from companion.rules.variant import load_variant
from companion.scoring import check_variant, parse_hand, score_hand, score_obj

CLASSICAL = load_variant("classical")
CASES = cases("classical")


def test_enough_known_answers():
    assert len(CASES) >= 25


@pytest.mark.parametrize("case", CASES)
def test_known_answer(case):
    """Each hand under the classical tables, or under a house-rule file of tests/fixtures/scoring/variants."""
    variant = load_variant(str(FIXTURES / "variants" / f"{case['variant']}.toml")) if "variant" in case else CLASSICAL
    result = score_hand(parse_hand(json_hand(case["hand"])), variant)
    assert result.valid, result.reason
    assert result.system == "classical"
    assert result.total == case["total"], case["working"]
    assert result.limit == case.get("limit")


def test_items_name_the_reasons():
    """The little-three-dragons hand (R116): its doubles are listed by stable key, in English."""
    case = next(c.values[0] for c in CASES if c.id == "little-three-dragons")
    result = score_hand(parse_hand(json_hand(case["hand"])), CLASSICAL)
    items = {(i.key, i.unit): i for i in result.items}
    assert items["pung_of_dragons", "doubles"].value == 2 and items["pung_of_dragons", "doubles"].count == 2
    assert items["little_three_dragons", "doubles"].name == "little three dragons"
    assert items["mahjong", "points"].value == 10
    points = sum(i.value for i in result.items if i.unit == "points")
    doubles = sum(i.value for i in result.items if i.unit == "doubles")
    assert points * 2**doubles == result.total


def test_not_a_winning_shape_gets_a_reason():
    hand = json_hand({"concealed": "1m2m4m 5p6p7p 3s4s5s 6s7s8s 9m", "winning_tile": "9m"})
    result = score_obj(hand, CLASSICAL)
    assert not result.valid and "not a winning hand" in result.reason


def test_a_blessing_needs_a_winning_shape():
    """Heaven's blessing (R121) is East out on the deal: with tiles that do not win, no limit."""
    hand = json_hand({"concealed": "1m2m4m 5p6p7p 3s4s5s 6s7s8s 9m", "winning_tile": "9m", "heavenly": True,
                      "self_drawn": True})
    assert not score_obj(hand, CLASSICAL).valid


@pytest.mark.parametrize("name", ["classical", "german", "hongkong"])
def test_builtin_tables_pass_the_check(name):
    assert check_variant(load_variant(name)) == name


def test_a_hand_that_cannot_exist_gets_a_reason():
    result = score_obj({"concealed": ["1m"] * 5 + ["2m"] * 8, "winning_tile": "3m"}, CLASSICAL)
    assert not result.valid and "four of each" in result.reason


def test_house_rule_changes_a_number(tmp_path):
    """A club that pays 20 for going out (RULES.md R115: "some books give 20") writes one number."""
    club = tmp_path / "club.toml"
    club.write_text('extends = "classical"\nname = "club"\ntitle = "Our club"\n'
                    "[scoring.winner_points]\nmahjong = 20\n")
    hand = parse_hand(json_hand({"concealed": "2m3m4m 5p6p7p 3s4s5s 6s7s8s 9m", "winning_tile": "9m",
                                 "seat_wind": "S"}))
    assert score_hand(hand, CLASSICAL).total == 64  # (10 + 2 + 4) x 4
    assert score_hand(hand, load_variant(str(club))).total == 104  # (20 + 2 + 4) x 4


def test_house_rule_limit_hands_in_force(tmp_path):
    """A club without Imperial jade scores the hand by its points (R121-122: the variant names them)."""
    club = tmp_path / "club.toml"
    club.write_text('extends = "classical"\nname = "club"\ntitle = "Our club"\n'
                    '[scoring]\nlimit_hands = ["thirteen_orphans"]\n')
    hand = parse_hand(json_hand({"concealed": "2s3s4s 2s3s4s 8s8s 6s6s", "melds": ["6z6z6z"],
                                 "winning_tile": "6s", "seat_wind": "S"}))
    assert score_hand(hand, CLASSICAL).limit == "imperial_jade"
    result = score_hand(hand, load_variant(str(club)))
    # exposed green pung 4 + exposed 6s pung 2 + 10 = 16; dragon pung 1 + one suit with honours 1: 64
    assert (result.total, result.limit) == (64, None)


def test_bad_table_is_refused_naming_the_field(tmp_path):
    club = tmp_path / "club.toml"
    club.write_text('extends = "classical"\nname = "club"\ntitle = "Our club"\n'
                    '[scoring.doubles]\ndragon_set = [1]\n')
    with pytest.raises(VariantError, match=r"scoring(: |\.)doubles\.dragon_set"):
        check_variant(load_variant(str(club)))
    club.write_text('extends = "classical"\nname = "club"\ntitle = "Our club"\n'
                    '[scoring]\nlimit_hands = ["royal_flush"]\n')
    with pytest.raises(VariantError, match=r"scoring(: |\.)limit_hands"):
        check_variant(load_variant(str(club)))

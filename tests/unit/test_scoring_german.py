"""German home rules (seed 003) under the TU Chemnitz / DMJL tables of german.toml: the known-answer
hands, and the same machinery as classical with other numbers (data, not code)."""

from __future__ import annotations

import pytest
from scoring_table_cases import cases, json_hand

from companion.rules.variant import load_variant
from companion.scoring import parse_hand, score_hand

GERMAN = load_variant("german")
CASES = cases("german")


@pytest.mark.parametrize("case", CASES)
def test_known_answer(case):
    result = score_hand(parse_hand(json_hand(case["hand"])), GERMAN)
    assert result.valid, result.reason
    assert result.system == "german"
    assert result.total == case["total"], case["working"]
    assert result.limit == case.get("limit")


def test_the_pages_figure_without_the_limit(tmp_path):
    """TU Chemnitz's own example is worth 35840 before any limit; with their suggested 5000, 5000."""
    case = next(c.values[0] for c in CASES if c.id == "tu-chemnitz-limit-example")
    hand = parse_hand(json_hand(case["hand"]))
    for limit, want in ((10**9, case["unlimited"]), (5000, 5000)):
        club = tmp_path / f"club{limit}.toml"
        club.write_text(f'extends = "german"\nname = "club"\ntitle = "Our club"\n[scoring]\nlimit = {limit}\n')
        assert score_hand(hand, load_variant(str(club))).total == want


def test_same_hand_other_tables():
    """One hand, two tables: classical pays 10 for going out and doubles a dragon pung alike whether
    pung or kong; the German table pays 20 and doubles a dragon kong twice."""
    hand = parse_hand(json_hand({"concealed": "2p3p4p 5s6s7s 8m8m8m 9p", "melds": ["6z6z6z6z"],
                                 "winning_tile": "9p", "seat_wind": "S"}))
    # classical: 10 + dragon kong exposed 16 + 8m pung concealed 4 + only place 2 + fishing the eyes,
    # major pair 4 = 36; 1 double: 72
    assert score_hand(hand, load_variant("classical")).total == 72
    # German: 20 + 16 + 4 + einzig möglicher Stein 10 = 50; Drachenkong 2 doubles: 200
    assert score_hand(hand, GERMAN).total == 200

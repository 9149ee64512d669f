"""The one-line notation of `companion replay`: what a line means, and lines that say nothing clear."""

import pytest

from companion.game.events import DiceThrown, HandDrawn, HandWon
from companion.game.notation import NotationError, parse_line

PLAYERS = ["Ann", "Bob", "Cy", "Di"]


def player(name: str) -> int:
    return [p.lower() for p in PLAYERS].index(name.lower())


def test_a_player_named_twice_declares_riichi_once():
    # one riichi stick per declaration; the dashboard's API takes each player once too
    assert parse_line("draw riichi=Bob,Bob ready=Bob,bob", player) == HandDrawn(ready=[1], riichi=[1])
    assert parse_line("win Bob from Cy 3/30 riichi=Bob,BOB", player).riichi == [1]


@pytest.mark.parametrize("line, message", [
    ("win Ann 10 bob=1 BOB=20", "given twice"),  # not the last one silently
    ("dice 3,4 cocked=x", "cocked=x"),             # a mistyped cocked die is not a clean throw (R18)
    ("dice 3,4 foo=1", "foo=1"),
])
def test_a_line_that_says_two_things_or_an_unknown_one_is_refused(line, message):
    with pytest.raises(NotationError, match=message):
        parse_line(line, player)


def test_a_cocked_die_is_named_by_its_place():
    assert parse_line("dice 3,0 cocked=2", player) == DiceThrown(faces=[3, 0], cocked=[1], source="manual")
    assert isinstance(parse_line("win Ann 32 Bob=8 Cy=4", player), HandWon)

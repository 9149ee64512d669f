"""Several players winning on one discard (seed 002: "Il est possible pour plusieurs joueurs de
gagner avec le même écart"), where a variant's `claims.several_winners` allows it."""

import msgspec
import pytest

from companion.errors import GameRuleError
from companion.game.events import AlsoWon, HandWon
from companion.game.notation import parse_line
from companion.hub import Hub
from companion.rules.variant import ClaimsSpec, load_variant, parse_variant
from companion.storage import EventStore
from companion.table import Table

ANN, BOB, CAT, DAN = range(4)


def table_for(name: str, several: bool = True) -> Table:
    variant = msgspec.structs.replace(load_variant(name), claims=ClaimsSpec(several_winners=several))
    t = Table(EventStore(":memory:"), Hub())
    t.start_game(variant, ["Ann", "Bob", "Cat", "Dan"])
    return t


def test_no_built_in_variant_lets_several_win_and_a_house_rule_can():
    for name in ("classical", "german", "mcr", "riichi", "hongkong"):
        assert load_variant(name).claims.several_winners is False
    house = parse_variant({**load_variant("classical").to_dict(), "claims": {"several_winners": True}})
    assert house.claims.several_winners is True


def test_each_winner_is_paid_by_the_players_who_did_not_win():
    """Classical: every loser pays each winner that winner's score, East double (R-rules' payments,
    each win settled as if alone); the winners do not pay each other."""
    t = table_for("classical")
    t.record(HandWon(winner=BOB, discarder=ANN, value=16, also=[AlsoWon(winner=CAT, value=8)]))
    s = t.state
    # Ann (East) pays Bob 2 × 16 and Cat 2 × 8; Dan pays Bob 16 and Cat 8
    assert s.scores == [-48, 48, 24, -24]
    h = s.history[-1]
    assert h["winner"] == "Bob" and h["also"] == [{"winner": "Cat", "value": 8, "fu": None}]
    assert s.east == "Bob"  # East did not win: the seat passes (R11)


def test_east_keeps_the_seat_when_east_is_one_of_the_winners():
    t = table_for("classical")
    t.record(HandWon(winner=BOB, discarder=CAT, value=8, also=[AlsoWon(winner=ANN, value=8)]))
    assert t.state.east == "Ann" and t.state.rotation.counter == 1  # R11: East won, keeps the title


def test_riichi_sticks_and_honba_go_to_the_winner_next_in_turn_after_the_discarder():
    """Double ron: the discarder pays each winner; the sticks on the table and the honba go to the
    winner nearest in turn order, however the players listed them."""
    t = table_for("riichi")
    # hand 1 (Ann deals): Bob's 1 han 30 fu ron on Ann (1000) takes Cat's riichi stick too
    t.record(HandWon(winner=BOB, discarder=ANN, value=1, fu=30, riichi=[CAT]))
    before = [25000 - 1000, 25000 + 1000 + 1000, 25000 - 1000, 25000]
    # hand 2 (Bob deals): Dan (2 han 30 fu, 2000) and Cat (1 han 30 fu, 1000) both ron on Ann, and
    # Cat had declared riichi again. After Ann come Bob, Cat, Dan: Cat is nearer, so Cat takes the stick
    t.record(HandWon(winner=DAN, discarder=ANN, value=2, fu=30, riichi=[CAT],
                     also=[AlsoWon(winner=CAT, value=1, fu=30)]))
    s = t.state
    assert s.scores == [before[0] - 2000 - 1000, before[1], before[2] - 1000 + 1000 + 1000, before[3] + 2000]
    assert s.pot == 0


def test_several_winners_are_refused_where_the_rules_give_the_tile_to_one():
    t = table_for("classical", several=False)
    with pytest.raises(GameRuleError, match="only one player can win on a discard under these rules"):
        t.record(HandWon(winner=BOB, discarder=ANN, value=8, also=[AlsoWon(winner=CAT, value=8)]))
    assert t.state.history == []


@pytest.mark.parametrize("event, words", [
    (HandWon(winner=BOB, value=8, also=[AlsoWon(winner=CAT, value=8)]), "only on a discard"),
    (HandWon(winner=BOB, discarder=ANN, value=8, also=[AlsoWon(winner=ANN, value=8)]), "their own discard"),
    (HandWon(winner=BOB, discarder=ANN, value=8, also=[AlsoWon(winner=BOB, value=8)]), "Bob is named twice"),
    (HandWon(winner=BOB, discarder=ANN, value=8, also=[AlsoWon(winner=CAT), AlsoWon(winner=CAT)]), "Cat is named twice"),
])
def test_impossible_sets_of_winners_are_refused_and_change_nothing(event, words):
    t = table_for("classical")
    with pytest.raises(GameRuleError, match=words):
        t.record(event)
    assert t.state.history == [] and t.state.scores == [0, 0, 0, 0]


def test_the_notation_names_the_others_with_their_values():
    names = {"ann": ANN, "bob": BOB, "cat": CAT, "dan": DAN}
    ev = parse_line("win Bob from Ann 16 also=Cat:8,Dan", lambda n: names[n.lower()])
    assert ev.also == [AlsoWon(winner=CAT, value=8), AlsoWon(winner=DAN)]
    ev = parse_line("win Bob from Ann 3han30fu also=Cat:mangan", lambda n: names[n.lower()])
    assert ev.also == [AlsoWon(winner=CAT, value=5)]

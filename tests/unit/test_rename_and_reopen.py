"""A rename is an event of its own (never a restart of the game); a new game never deletes the one
before: it can be reopened and played on."""

from __future__ import annotations

import pytest

from companion.errors import GameRuleError
from companion.game.events import GameResumed, HandWon, PlayerRenamed, decode, encode
from companion.game.fold import fold
from companion.rules.variant import load_variant
from companion.storage import EventStore
from companion.table import Table


@pytest.fixture
def table(tmp_path):
    store = EventStore(tmp_path / "log.sqlite")
    t = Table(store)
    t.start_game(load_variant("classical"), ["Ann", "Bob", "Cat", "Dan"])
    yield t
    store.close()


def test_a_rename_keeps_the_game_seat_and_score(table):
    game = table.state.game
    table.record(HandWon(winner=1, discarder=0, value=8))
    score = table.state.scores[1]
    table.record(PlayerRenamed(player=1, name="Robert"))
    state = table.state
    assert state.game == game and state.hand == 2 and state.players == ["Ann", "Robert", "Cat", "Dan"]
    assert state.scores[1] == score and state.history[-1]["winner"] == "Bob"  # the hand as it was played
    assert fold(table.records()).players == state.players  # the pure fold agrees
    table.undo()  # a rename is undone like any event
    assert table.state.players[1] == "Bob" and table.state.hand == 2


@pytest.mark.parametrize("name", ["Ann", "ann", "E", "3", "", "x" * 41])
def test_a_rename_is_checked_as_new_names_are(table, name):
    with pytest.raises(GameRuleError):
        table.record(PlayerRenamed(player=1, name=name))
    assert table.state.players[1] == "Bob" and len(table.records()) == 1


def test_old_logs_still_fold_and_the_new_events_round_trip():
    for event in (PlayerRenamed(player=2, name="Cat"), GameResumed()):
        assert decode(encode(event)) == event


def test_a_new_game_keeps_the_old_one_which_can_be_reopened(table, tmp_path):
    first = table.state.game
    table.record(HandWon(winner=2, discarder=0))
    table.start_game(load_variant("riichi"), ["Eve", "Fay", "Gil", "Hal"])
    second = table.state.game
    assert second != first and table.store.games() == [first, second]
    table.reopen(first)
    assert table.state.game == first and table.state.hand == 2 and table.state.players[0] == "Ann"
    table.undo()  # the latest event that counts is the hand, not the reopening
    assert table.state.hand == 1
    # the companion started again goes on with the game played last
    again = Table(table.store)
    assert again.state.game == first and again.state.hand == 1
    with pytest.raises(GameRuleError):
        table.reopen(first)  # it is the game being played
    with pytest.raises(GameRuleError):
        table.reopen(9999)
    retried = table.reopen(second, key="k1")
    assert table.reopen(second, key="k1") == retried  # a retry changes nothing
    assert table.state.game == second and table.state.variant.name == "riichi"

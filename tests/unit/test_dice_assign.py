"""Rolls that came when no throw was due: kept for players to assign (DiceAssigned) or discard (undo)."""

import pytest

from companion.errors import GameRuleError
from companion.game.events import DiceAssigned, DiceThrown, HandDrawn
from companion.hub import Hub
from companion.rules.variant import load_variant
from companion.storage import EventStore
from companion.table import Table


@pytest.fixture
def table():
    t = Table(EventStore(":memory:"), Hub())
    t.start_game(load_variant("classical"), ["Ann", "Bob", "Cat", "Dan"])
    return t


def broken_wall_with_a_stray_roll(table, faces=(2, 5), **kw):
    table.record(DiceThrown(faces=[3, 4], source="phone"))
    table.record(DiceThrown(faces=[5, 6], source="phone"))  # R17, R19: the break is done
    return table.record(DiceThrown(faces=list(faces), source="serial", boot_id="b", seq=9, **kw))


def test_an_assigned_roll_becomes_east_throw_of_the_next_hand(table):
    stray = broken_wall_with_a_stray_roll(table)
    with pytest.raises(GameRuleError, match="no throw is due"):
        table.assign_roll(stray.id)  # the wall is broken: nothing to assign it to yet
    table.record(HandDrawn())  # a new hand: East's throw is due (R17)
    table.assign_roll(stray.id)
    s = table.state
    assert s.unassigned == []
    assert s.throws == [[2, 5]] and s.throw_events == [stray.id]
    assert s.expected_throw()["index"] == 2


def test_undoing_an_assignment_puts_the_roll_back(table):
    stray = broken_wall_with_a_stray_roll(table)
    table.record(HandDrawn())
    assigned = table.assign_roll(stray.id)
    table.undo(assigned.id)
    s = table.state
    assert [u["event"] for u in s.unassigned] == [stray.id] and s.throws == []


def test_only_an_unassigned_roll_can_be_assigned_and_only_once(table):
    stray = broken_wall_with_a_stray_roll(table)
    table.record(HandDrawn())
    with pytest.raises(GameRuleError, match="not an unassigned roll"):
        table.record(DiceAssigned(roll=2))  # East's counted throw of the first hand
    table.assign_roll(stray.id)
    before = len(table.records())
    with pytest.raises(GameRuleError, match="not an unassigned roll"):
        table.assign_roll(stray.id)
    assert len(table.records()) == before  # refused: nothing written


def test_a_discarded_roll_cannot_be_assigned(table):
    stray = broken_wall_with_a_stray_roll(table)
    table.record(HandDrawn())
    table.undo(stray.id)
    with pytest.raises(GameRuleError, match="not an unassigned roll"):
        table.assign_roll(stray.id)


def test_an_assigned_cocked_roll_still_waits_for_its_rethrow(table):
    # R18: the die that landed cocked must be thrown again, however late the roll is counted
    stray = broken_wall_with_a_stray_roll(table, faces=(4, 0), cocked=[1])
    assert table.state.unassigned[0]["cocked"] == [1]
    table.record(HandDrawn())
    table.assign_roll(stray.id)
    assert table.state.expected_throw()["rethrow"] == [1]
    table.record(DiceThrown(faces=[6], source="serial", boot_id="b", seq=10))
    assert table.state.throws == [[4, 6]]

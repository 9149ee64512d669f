"""R18: a throw's cocked dice are stored as meant: each die once, only dice that were thrown."""

import pytest

from companion.errors import DiceError
from companion.game.events import Corrected, DiceThrown
from companion.hub import Hub
from companion.rules.variant import load_variant
from companion.storage import EventStore
from companion.table import Table


@pytest.fixture
def table():
    t = Table(EventStore(":memory:"), Hub())
    t.start_game(load_variant("classical"), ["Ann", "Bob", "Cat", "Dan"])
    return t


def test_a_cocked_die_listed_again_and_again_is_refused_not_stored_as_sent(table):
    before = len(table.records())
    with pytest.raises(DiceError, match="cocked die 1 is listed more than once"):
        table.record(DiceThrown(faces=[0, 2], cocked=[0, 0, 0, 0, 0], source="phone"))
    assert len(table.records()) == before and len(table.store.events()) == before


def test_a_correction_to_such_a_throw_is_refused_too(table):
    d = table.record(DiceThrown(faces=[3, 4]))
    with pytest.raises(DiceError, match="listed more than once"):
        table.record(Corrected(target=d.id, event=DiceThrown(faces=[0, 4], cocked=[0, 0])))


def test_a_log_that_already_holds_repeated_cocked_dice_folds_as_before(tmp_path):
    """Nothing recorded before is lost: an old event with [0, 0] still reads as die 1 cocked."""
    path = tmp_path / "games.sqlite3"
    with EventStore(path) as store:
        t = Table(store, Hub())
        t.start_game(load_variant("classical"), ["Ann", "Bob", "Cat", "Dan"])
        store.append(DiceThrown(faces=[0, 2], cocked=[0, 0], source="phone"), game=t.state.game)
    with EventStore(path) as store:
        state = Table(store, Hub()).state
        assert state.expected_throw()["rethrow"] == [0]

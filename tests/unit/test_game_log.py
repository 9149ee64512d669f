"""The game as an event log: dice, undo, correction, and bad input that changes nothing."""

import pytest

from companion.errors import DiceError, GameRuleError
from companion.game.events import Corrected, DiceThrown, HandDrawn, HandWon, Undone, WallBroken
from companion.hub import Hub
from companion.rules.variant import load_variant
from companion.storage import EventStore, StorageError
from companion.table import Table


@pytest.fixture
def table():
    t = Table(EventStore(":memory:"), Hub())
    t.start_game(load_variant("classical"), ["Ann", "Bob", "Cat", "Dan"])
    return t


def test_east_throws_then_the_breaker_and_the_break_follows(table):
    # R17 then R19: East's throw chooses the breaker, whose throw completes the count.
    assert table.state.expected_throw() == {"index": 1, "of": 2, "by": "E", "rethrow": []}
    table.record(DiceThrown(faces=[3, 4], source="phone"))
    assert table.state.expected_throw()["by"] == "W"  # 7 → West (R17)
    table.record(DiceThrown(faces=[5, 6], source="phone"))
    s = table.state
    assert s.phase == "play" and s.expected_throw() is None
    assert (s.brk.wall, s.brk.stack) == ("W", 18)
    assert s.to_json()["break"]["deal_start"] == ["S", 1]
    assert [t["source"] for t in s.to_json()["throws"]] == ["phone", "phone"]


def test_r18_a_cocked_die_is_thrown_again_and_only_it(table):
    # R18: "a die that lands cocked or outside is thrown again."
    table.record(DiceThrown(faces=[3, 0], cocked=[1], source="camera"))
    s = table.state
    assert s.expected_throw() == {"index": 1, "of": 2, "by": "E", "rethrow": [1]}
    assert s.throws == []
    table.record(DiceThrown(faces=[4], source="camera"))  # the re-thrown die alone
    assert table.state.throws == [[3, 4]]


def test_a_roll_when_none_is_expected_is_kept_unassigned_not_dropped(table):
    for faces in ([3, 4], [5, 6], [1, 2]):
        table.record(DiceThrown(faces=faces, source="serial", boot_id="b1", seq=len(faces)))
    s = table.state
    assert [r["faces"] for r in s.unassigned] == [[1, 2]]
    table.undo(s.unassigned[0]["event"])  # a player discards it
    assert table.state.unassigned == []


@pytest.mark.parametrize("faces", [[0, 4], [7, 1], [3], [1, 2, 3]])
def test_impossible_dice_are_refused_and_not_written(table, faces):
    before = len(table.records())
    with pytest.raises(DiceError):
        table.record(DiceThrown(faces=faces))
    assert len(table.records()) == before
    assert len(table.store.events(table.state.game)) == before


def test_a_repeated_key_is_recorded_once(table):
    first = table.record(DiceThrown(faces=[3, 4], source="serial", boot_id="x", seq=7), key="dice:x:7")
    again = table.record(DiceThrown(faces=[3, 4], source="serial", boot_id="x", seq=7), key="dice:x:7")
    assert again.id == first.id
    assert table.state.throws == [[3, 4]]


def test_a_key_from_another_request_or_game_is_refused(table):
    table.record(HandDrawn(), key="tap-1")
    with pytest.raises(GameRuleError, match="another request"):
        table.record(Undone(target=2), key="tap-1")
    table.start_game(load_variant("classical"), ["Ann", "Bob", "Cat", "Dan"])
    with pytest.raises(GameRuleError, match="another request"):
        table.record(HandDrawn(), key="tap-1")
    assert table.state.history == []


def test_undo_of_a_past_result_rederives_everything_after_it(table):
    bob_wins = table.record(HandWon(winner=1, value=10))  # Bob wins: Ann loses East
    table.record(HandWon(winner=2, value=10))  # Cat wins: Bob loses East
    assert table.state.east == "Cat"
    table.undo(bob_wins.id)
    s = table.state
    # only Cat's win counts now: it was Ann's hand, so the title passes once, to Bob
    assert s.east == "Bob" and s.hand == 2
    assert s.scores[2] == 10 * 2 + 10 + 10
    table.undo(table.records()[-1].id)  # undo the undo
    assert table.state.east == "Cat"


def test_correcting_a_past_result_rederives_the_rest(table):
    first = table.record(HandWon(winner=1, discarder=0, value=10))
    table.record(HandDrawn())
    assert table.state.east == "Bob"
    table.correct(first.id, HandWon(winner=0, value=10))  # it was actually Ann (East) who won
    s = table.state
    assert s.east == "Ann" and s.scores[0] == 60 and s.hand == 3


def test_a_correction_that_makes_later_events_impossible_sets_them_aside(table):
    results = [table.record(HandWon(winner=(table.state.dealer + 1) % 4)) for _ in range(15)]
    last = table.record(HandWon(winner=0))  # D's title passes: the game ends after 16 title changes
    assert table.state.game_over
    table.correct(results[0].id, HandDrawn())  # East kept the title in hand 1: the game is not over now
    s = table.state
    assert not s.game_over
    assert s.ignored == []
    # the other way round: an earlier extra hand would make the last result follow game over
    table.correct(results[0].id, HandWon(winner=1))
    assert table.state.game_over and not table.state.ignored
    assert last.id in table.state.applied


def test_undo_and_correction_must_point_at_this_game(table):
    with pytest.raises(GameRuleError, match="not part of this game"):
        table.record(Undone(target=999))
    with pytest.raises(GameRuleError, match="start of a game"):
        table.record(Undone(target=table.state.game))
    d = table.record(DiceThrown(faces=[1, 1]))
    with pytest.raises(GameRuleError, match="same kind"):
        table.record(Corrected(target=d.id, event=HandDrawn()))


def test_a_cocked_die_that_was_not_thrown_is_named_as_players_count(table):
    """The event counts dice from 0; the refusal counts them as players do, from 1, and names only the stray one."""
    before = len(table.records())
    with pytest.raises(DiceError) as e:
        table.record(DiceThrown(faces=[0, 4], cocked=[0, 5]))
    assert str(e.value) == "cocked die 6 is not one of the 2 dice thrown"
    assert len(table.records()) == before


def test_a_correction_the_game_would_refuse_is_refused_and_changes_nothing(table):
    dice = table.record(DiceThrown(faces=[3, 4]))
    table.record(DiceThrown(faces=[5, 6]))
    win = table.record(HandWon(winner=1, discarder=0, value=10))
    before = (len(table.records()), table.state.to_json())
    with pytest.raises(DiceError, match="1 to 6"):
        table.correct(dice.id, DiceThrown(faces=[7, 1]))
    with pytest.raises(GameRuleError, match="own discard"):
        table.correct(win.id, HandWon(winner=1, discarder=1, value=10))
    assert (len(table.records()), table.state.to_json()) == before


def test_an_event_is_undone_once_and_an_undo_of_the_undo_revives_it(table):
    win = table.record(HandWon(winner=1, value=10))
    undo = table.undo(win.id)
    with pytest.raises(GameRuleError, match="already undone"):
        table.undo(win.id)
    with pytest.raises(GameRuleError, match="already undone"):
        table.correct(win.id, HandWon(winner=2, value=10))
    table.undo(undo.id)
    assert table.state.east == "Bob" and win.id in table.state.applied


def test_nonsense_results_are_refused(table):
    with pytest.raises(GameRuleError, match="own discard"):
        table.record(HandWon(winner=1, discarder=1))
    with pytest.raises(GameRuleError, match="no player"):
        table.record(HandWon(winner=5))
    assert table.state.history == []


def test_observed_break_is_checked_against_the_dice(table):
    table.record(DiceThrown(faces=[3, 4]))
    table.record(DiceThrown(faces=[5, 6]))
    table.record(WallBroken(seat="W", stack=17, source="camera"))
    assert table.state.break_check() == {"expected": ["W", 18], "observed": ["W", 17], "ok": False}
    with pytest.raises(GameRuleError):
        table.record(WallBroken(seat="W", stack=19))


def test_the_table_resumes_from_the_log(tmp_path):
    path = tmp_path / "games.sqlite3"
    with EventStore(path) as store:
        t = Table(store, Hub())
        t.start_game(load_variant("mcr"), ["A", "B", "C", "D"])
        t.record(HandWon(winner=2, discarder=1, value=8))
        t.record(DiceThrown(faces=[2, 2]))
    with EventStore(path) as store:
        s = Table(store, Hub()).state
    assert s.east == "B" and s.scores == [-8, -16, 32, -8] and s.throws == [[2, 2]]


def test_subscribers_hear_every_accepted_event_and_nothing_else(table):
    heard = []
    table.hub.subscribe(lambda m: heard.append(m.data["event"]["type"]), {"state"})
    table.record(DiceThrown(faces=[1, 2]))
    with pytest.raises(DiceError):
        table.record(DiceThrown(faces=[9, 9]))
    assert heard == ["dice"]


def _log_with_hands(path, hands=400):
    with EventStore(path) as store:
        t = Table(store, Hub())
        t.start_game(load_variant("classical"), ["A", "B", "C", "D"])
        for _ in range(hands):
            t.record(HandDrawn())  # R11: East keeps the title on a draw, so the game goes on


def test_a_damaged_page_in_the_log_is_a_storage_error_not_a_crash(tmp_path):
    path = tmp_path / "games.sqlite3"
    _log_with_hands(path)
    data = bytearray(path.read_bytes())
    assert len(data) > 12 * 4096
    data[10 * 4096:11 * 4096] = b"\x13" * 4096  # a page of events overwritten (past the tables' first pages)
    path.write_bytes(bytes(data))
    with pytest.raises(StorageError, match="cannot .* the game log .*malformed"):
        with EventStore(path) as store:
            Table(store, Hub())


def test_a_database_of_something_else_or_of_a_newer_version_is_refused(tmp_path):
    import sqlite3

    other = tmp_path / "other.sqlite3"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE notes (t TEXT)")
    con.execute("PRAGMA user_version=1")
    con.commit()
    con.close()
    with pytest.raises(StorageError, match="no such table: events"):
        EventStore(other)
    newer = tmp_path / "games.sqlite3"
    _log_with_hands(newer, hands=1)
    con = sqlite3.connect(newer)
    con.execute("PRAGMA user_version=99")
    con.commit()
    con.close()
    with pytest.raises(StorageError, match="newer version"):
        EventStore(newer)


def test_the_seats_of_an_old_hand_are_those_it_has_now_after_a_later_undo(table):
    # R11: who was East in a hand follows from the results that still count before it
    first = table.record(HandWon(winner=1, discarder=0, value=10))  # Bob wins: East passes to Bob
    second = table.record(HandWon(winner=2, discarder=1, value=10))
    assert table.player_index("E", before=second.id) == 1  # Bob was East in that hand
    table.undo(first.id)  # the first hand never counted: the second was played with Ann as East
    assert table.state.history[0]["east"] == "Ann"
    assert table.player_index("E", before=second.id) == 0


def test_a_full_disk_at_opening_is_named(tmp_path, monkeypatch):
    """SQLite says only "disk I/O error" when the disk is full: the message says what it is."""
    import sqlite3
    from collections import namedtuple

    import companion.storage.sqlite as store_module

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(store_module.sqlite3, "connect", full)
    monkeypatch.setattr(store_module.shutil, "disk_usage",
                        lambda path: namedtuple("usage", "total used free")(2**30, 2**30 - 4096, 4096))
    with pytest.raises(StorageError, match=r"disk I/O error \(the disk is full: 4 KiB free; make room"):
        EventStore(tmp_path / "games.sqlite3")
    monkeypatch.undo()  # the disk as it is: plenty of room
    monkeypatch.setattr(store_module.sqlite3, "connect", full)
    with pytest.raises(StorageError) as e:
        EventStore(tmp_path / "games.sqlite3")
    assert "disk is full" not in str(e.value)  # plenty of room: an I/O error is not blamed on it

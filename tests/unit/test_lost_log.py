"""A game log cut to 0 bytes (or gone) where a game was recorded is refused, not taken for a fresh
install; `doctor` says so and how to recover. The data folder remembers the latest event id
beside the log (`games.sqlite3.last-event`)."""

import pytest

from companion.config import load_settings
from companion.game.events import DiceThrown, GameStarted
from companion.health import check_database
from companion.rules.variant import load_variant
from companion.storage import EventStore, StorageError
from companion.storage.sqlite import MARK_EVERY, marker_path


def a_game(path, throws=3):
    with EventStore(path) as store:
        game, _ = store.append(GameStarted(variant=load_variant("classical"), players=["A", "B", "C", "D"]))
        for _ in range(throws):
            last, _ = store.append(DiceThrown(faces=[3, 4]), game=game.game)
    return last.id


def test_the_marker_follows_the_log(tmp_path):
    path = tmp_path / "games.sqlite3"
    first = a_game(path, throws=MARK_EVERY + 5)
    assert int(marker_path(path).read_text()) >= first - MARK_EVERY  # kept within MARK_EVERY events
    with EventStore(path):
        pass
    assert int(marker_path(path).read_text()) == first  # exact at each start


def test_a_log_cut_to_zero_bytes_is_refused_with_the_reason(tmp_path):
    path = tmp_path / "games.sqlite3"
    last = a_game(path)
    path.write_bytes(b"")
    with pytest.raises(StorageError) as e:
        EventStore(path)
    assert f"the game log {path} is empty (0 bytes), but games.sqlite3.last-event beside it says events up to " \
           f"{last} were recorded" in str(e.value)
    assert "docs/recovery.md" in str(e.value)
    assert path.stat().st_size == 0  # nothing was started over it


def test_a_deleted_log_is_refused_too_and_a_wal_beside_it_is_named(tmp_path):
    path = tmp_path / "games.sqlite3"
    a_game(path)
    path.unlink()
    (tmp_path / "games.sqlite3-wal").write_bytes(b"x" * 4096)
    with pytest.raises(StorageError, match=r"is missing.*write-ahead log games.sqlite3-wal \(4096 bytes\)"):
        EventStore(path)
    assert not path.exists()


def test_doctor_says_it_and_how_to_recover(tmp_path):
    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path)})
    a_game(settings.db_path)
    settings.db_path.write_bytes(b"")
    (tmp_path / "games.sqlite3-wal").write_bytes(b"x" * 100)
    check = check_database(settings)
    assert check.level == "fail"
    assert "empty (0 bytes)" in check.summary and "from a backup or from the write-ahead log" in check.summary


def test_moving_the_marker_away_starts_a_new_log_on_purpose(tmp_path):
    path = tmp_path / "games.sqlite3"
    a_game(path)
    path.write_bytes(b"")
    marker_path(path).rename(tmp_path / "old.last-event")
    with EventStore(path) as store:
        assert store.events() == []


def test_a_log_from_before_the_marker_opens_as_it_was_and_gains_one(tmp_path):
    """Nothing recorded before is lost: an existing log without a marker opens, every event read."""
    path = tmp_path / "games.sqlite3"
    last = a_game(path)
    marker_path(path).unlink()
    with EventStore(path) as store:
        assert [r.id for r in store.events()][-1] == last and len(store.events()) == 4
    assert int(marker_path(path).read_text()) == last

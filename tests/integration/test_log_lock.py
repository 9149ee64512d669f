"""The game log is locked on itself: deleting or moving `companion.lock` lets no second companion write it."""

import json
import subprocess
import sys
import urllib.request

import pytest

from companion.storage.lock import DataDirLock

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from test_run import start  # noqa: E402


@pytest.mark.parametrize("how", ["deleted", "moved"])
def test_a_second_companion_is_refused_when_the_lock_file_is_gone(tmp_path, how):
    first, url = start(tmp_path)
    try:
        lock_file = tmp_path / "companion.lock"
        if how == "deleted":
            lock_file.unlink()
        else:
            lock_file.rename(tmp_path / "elsewhere.lock")
        assert DataDirLock(tmp_path, tmp_path / "games.sqlite3").holder() is not None  # doctor sees it too
        second = subprocess.run([sys.executable, "-m", "companion", "run", "--host", "127.0.0.1", "--port", "0",
                                 "--data-dir", str(tmp_path)], capture_output=True, text=True, timeout=60)
        assert second.returncode == 1 and "Traceback" not in second.stderr
        assert f"another companion is writing the game log {tmp_path / 'games.sqlite3'}" in second.stderr
        with urllib.request.urlopen(f"{url}/api/state", timeout=10) as r:
            assert json.load(r)["hand"] == 1  # the first goes on
    finally:
        first.kill()
        first.communicate(timeout=20)
    lock = DataDirLock(tmp_path, tmp_path / "games.sqlite3")
    lock.acquire()  # the kernel released both locks with the process
    lock.release()


def test_the_log_lock_is_released_and_a_read_only_log_is_left_to_the_store_to_refuse(tmp_path):
    log = tmp_path / "games.sqlite3"
    lock = DataDirLock(tmp_path, log)
    lock.acquire()
    assert log.exists() and log.stat().st_size == 0  # an empty file: SQLite makes the log in it
    lock.release()
    log.chmod(0o444)
    other = DataDirLock(tmp_path, log)
    other.acquire()  # not refused here: EventStore says the log cannot be written, with the reason
    other.release()

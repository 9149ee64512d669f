"""A write the disk refuses folds the write-ahead log into the log and is tried once more.

On a small card the WAL (folded in only every 1,000 pages, and never after a failed commit)
grows until the card is full, and then every later write failed too. Here the limit is the
process's file size limit (no small disk needed): the WAL hits it after a few dozen events."""

import subprocess
import sys
import textwrap

import pytest

resource = pytest.importorskip("resource")

SCRIPT = textwrap.dedent("""
    import resource, signal, sys
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead of killing
    from companion.game.events import DiceThrown, GameStarted
    from companion.rules.variant import load_variant
    from companion.storage import EventStore, StorageError
    store = EventStore(sys.argv[1] + "/games.sqlite3")
    game, _ = store.append(GameStarted(variant=load_variant("classical"), players=list("ABCD")))
    resource.setrlimit(resource.RLIMIT_FSIZE, (512 * 1024, 512 * 1024))
    ok = failed = 0
    for _ in range(300):
        try:
            store.append(DiceThrown(faces=[3, 4]), game=game.game)
            ok += 1
        except StorageError:
            failed += 1
    store.close()
    print(ok, failed)
""")


def test_writes_go_on_when_the_write_ahead_log_is_what_fills_the_disk(tmp_path):
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    ok, failed = map(int, out.stdout.split())
    assert (ok, failed) == (300, 0)
    from companion.storage import EventStore

    with EventStore(tmp_path / "games.sqlite3") as store:
        assert len(store.events()) == 301  # every acknowledged event is in the log

"""The game log survives kill -9: every acknowledged event is there and every restart reads a consistent game."""

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from companion.game.fold import fold
from companion.hub import Hub
from companion.storage import EventStore
from companion.table import Table

WRITER = Path(__file__).parent / "helpers" / "crash_writer.py"


def test_sigkill_while_appending_loses_nothing_acknowledged(tmp_path):
    db = tmp_path / "games.sqlite3"
    rng = random.Random(2024)
    acknowledged: list[int] = []
    for round_no in range(12):
        proc = subprocess.Popen([sys.executable, str(WRITER), str(db), str(round_no)],
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.05, 0.4))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate(timeout=30)
        acknowledged += [int(line) for line in out.split() if line.isdigit()]
        assert proc.returncode == -signal.SIGKILL

        with EventStore(db) as store:
            assert store.integrity_check() == "ok"
            ids = {r.id for r in store.events()}
            missing = set(acknowledged) - ids
            assert not missing, f"acknowledged events lost after kill {round_no}: {sorted(missing)[:5]}"
            for game in store.games():  # every game folds from its own log
                state = fold(store.events(game))
                assert state.ignored == []
                assert len(state.history) + len(state.unassigned) + len(state.throws) <= len(store.events(game))
            table = Table(store, Hub())  # and the companion resumes the latest one
            assert table.state is not None
    assert len(acknowledged) > 100  # the writer really was writing when it was killed

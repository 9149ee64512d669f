"""`companion bench long-game` runs end to end on a short game (the real figures come from running it
with --events 5000; docs/performance.md)."""

from __future__ import annotations

import re

from click.testing import CliRunner

from companion.cli import main
from companion.game.fold import fold
from companion.storage import EventStore


def test_bench_long_game_builds_the_log_and_reports_each_figure(tmp_path):
    folder = tmp_path / "long"
    result = CliRunner().invoke(main, ["bench", "long-game", "--events", "300", "--results", "3", "--keep", str(folder)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert re.search(r"^\s+300\s+\d+\s+[\d.]+ms\s+[\d.]+ms\s+[\d.]+ms\s+[\d.]+\s+\d+\s+\d+$", out, re.M), out
    assert re.search(r"all 299 writes: p50 [\d.]+ ms, p99 [\d.]+ ms", out)
    assert "undo:" in out and "throw:" in out and "the first hand corrected at the end" in out
    assert re.search(r"companion run \(camera off\) on the 30\d-event log, 3 results posted: RSS [\d.]+ MiB", out)
    assert re.search(r"pushed \d+ B per event \(3 received\)", out)
    # the log it built is a game the fold reads as it was written: nothing the bench did was refused
    with EventStore(folder / "games.sqlite3") as store:
        records = store.events(store.latest_game())
    assert len(records) == 300 + 1 + 3 and not fold(records).ignored


def test_bench_long_game_refuses_a_folder_with_a_log(tmp_path):
    (tmp_path / "games.sqlite3").write_bytes(b"")
    result = CliRunner().invoke(main, ["bench", "long-game", "--events", "20", "--no-server", "--keep", str(tmp_path)])
    assert result.exit_code != 0 and "already holds a game log" in result.output

"""`companion run` and `dice-sim` stop on every SIGTERM/SIGINT, wherever in the main loop it lands.

The real start-stop loop of `companion bench stop`, fewer times (the 1,000-try figure is the
benchmark's). A hang (the old handler set an Event the main thread was waiting on) shows as a
process still running long after its signal (stop_bench.HANG_S); the 2 s goal is the benchmark's.
"""

import random
import signal

import pytest

from companion.cli.stop_bench import one_try


@pytest.mark.parametrize("command", ["run", "dice-sim"])
def test_every_signal_stops_the_command(command):
    rng = random.Random(42)
    tries = [one_try(command, (signal.SIGTERM, signal.SIGINT)[i % 2], 15.0, rng) for i in range(6)]
    assert all(t.seconds is not None and t.returncode == 0 for t in tries), tries

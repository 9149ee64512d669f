"""`companion bench stop`: start `companion run` and `dice-sim` for real and stop them with a signal.

Each try starts the command, waits until it says it is ready, waits a random moment (so the
signal lands anywhere in the main loop), sends SIGTERM or SIGINT in turn and times the exit.
The goal is the limit (2 s: systemd's patience is longer, a person's at a terminal is not); a
try still running after HANG_S counts as a hang, is killed, and the run goes on. Prints the
figures: how many stopped within the limit, how many hung, and the times.
"""

from __future__ import annotations

import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import click

#: a try still running this long after its signal is taken for hung
HANG_S = 30.0

#: what each command prints once its signal handlers are in place and its main loop runs
READY = {"run": "Press Ctrl+C to stop.", "dice-sim": "Connect with"}


@dataclass
class Try:
    command: str
    signal: str
    seconds: float | None  # None: still running at the limit (killed)
    returncode: int | None
    stderr: str = ""  # its end, when it failed


def argv(command: str, data_dir: str) -> list[str]:
    if command == "run":
        return [sys.executable, "-m", "companion", "run", "--host", "127.0.0.1", "--port", "0",
                "--data-dir", data_dir]
    return [sys.executable, "-m", "companion", "dice-sim", "--tcp", "0"]


def one_try(command: str, sig: int, limit: float, rng: random.Random) -> Try:
    """Start `command`, signal it at a random moment after it is ready, time its end."""
    with tempfile.TemporaryDirectory(prefix="stop-bench-") as data_dir:
        # faulthandler: a hung try is sent SIGABRT, and every thread's stack says where it hangs
        proc = subprocess.Popen(argv(command, data_dir), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONFAULTHANDLER": "1"})
        try:
            for line in proc.stdout:  # type: ignore[union-attr]
                if READY[command] in line:
                    break
            else:
                raise click.ClickException(f"{command} ended before it was ready (exit {proc.wait()})")
            time.sleep(rng.uniform(0.0, 0.6))  # anywhere in the main loop's wait
            t0 = time.monotonic()
            proc.send_signal(sig)
            err = ""
            try:
                _, err = proc.communicate(timeout=max(limit, HANG_S))
                took: float | None = time.monotonic() - t0
            except subprocess.TimeoutExpired:
                took = None
                proc.send_signal(signal.SIGABRT)
                try:
                    _, err = proc.communicate(timeout=10)
                except subprocess.TimeoutExpired:
                    pass
            return Try(command, signal.Signals(sig).name, took, proc.returncode,
                       "" if proc.returncode == 0 else (err or "")[-400 if took is not None else -6000:])
        finally:
            if proc.poll() is None:
                proc.kill()  # a hung one ignores SIGTERM: its handler is what hangs
                proc.communicate()


def summary(tries: list[Try], limit: float) -> str:
    """One line per command and signal: tries, stopped within the limit, p50/p99/max seconds."""
    lines = []
    for command in sorted({t.command for t in tries}):
        for sig in ("SIGTERM", "SIGINT"):
            mine = [t for t in tries if t.command == command and t.signal == sig]
            if not mine:
                continue
            ok = [t.seconds for t in mine if t.seconds is not None and t.seconds <= limit and t.returncode == 0]
            hung = sum(t.seconds is None for t in mine)
            times = sorted(t.seconds for t in mine if t.seconds is not None)
            p = (lambda q: times[min(len(times) - 1, int(q * len(times)))]) if times else (lambda q: float("nan"))  # noqa: B023 (used at once)
            lines.append(f"{command:8} {sig:7} stopped within {limit:g} s: {len(ok)} of {len(mine)}, hung: {hung}   "
                         f"p50 {p(0.5):.3f} s  p99 {p(0.99):.3f} s  max {max(times, default=float('nan')):.3f} s"
                         + (f"  mean {statistics.fmean(times):.3f} s" if times else ""))
    return "\n".join(lines)


@click.command("stop")
@click.option("--runs", type=click.IntRange(1), default=100, show_default=True,
              help="Tries per command (signals alternate SIGTERM, SIGINT).")
@click.option("--command", "commands", type=click.Choice(["run", "dice-sim"]), multiple=True,
              help="Which command to try  [default: both]")
@click.option("--limit", type=click.FloatRange(0.1), default=2.0, show_default=True,
              help="Seconds a stop may take.")
@click.option("--jobs", type=click.IntRange(1), default=max(1, (os.cpu_count() or 2) // 2), show_default=True,
              help="Tries run side by side.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for the moments the signals land.")
def stop_bench(runs: int, commands: tuple[str, ...], limit: float, jobs: int, seed: int) -> None:
    """Stop `companion run` and `dice-sim` RUNS times each with SIGTERM/SIGINT; exit 1 on any hang."""
    plan = [(c, (signal.SIGTERM, signal.SIGINT)[i % 2], seed * 1_000_003 + n)
            for n, (c, i) in enumerate((c, i) for c in (commands or ("run", "dice-sim")) for i in range(runs))]
    t0 = time.monotonic()
    with ThreadPoolExecutor(jobs) as pool:
        tries = list(pool.map(lambda p: one_try(p[0], p[1], limit, random.Random(p[2])), plan))
    click.echo(summary(tries, limit))
    click.echo(f"({len(tries)} tries, {jobs} side by side, {time.monotonic() - t0:.0f} s)")
    hung = [t for t in tries if t.seconds is None or t.seconds > limit or t.returncode != 0]
    for t in hung[:5]:
        click.echo(f"failed: {t.command} {t.signal}: " + ("still running (killed)" if t.seconds is None else
                   f"exit {t.returncode} after {t.seconds:.3f} s") + (f"\n  {t.stderr.strip()}" if t.stderr else ""))
    raise SystemExit(1 if hung else 0)

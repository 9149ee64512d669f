"""`companion bench dice`: roll → game-log latency and reader throughput over a pty, measured.

Latency: the virtual dice box (real firmware logic) on a pty, the real reader, the real game
log (SQLite, WAL, synchronous=FULL, in a temporary directory). For each press the clock
starts when the box writes its ROLL line and stops when the roll is in the log (the table's
"state" message). Throughput: a writer blasts framed lines into a pty as fast as the reader
takes them: once lines that need no game write (ROLLING), once distinct ROLLs (each one a
durable write).
"""

from __future__ import annotations

import os
import platform
import statistics
import tempfile
import threading
import time
from pathlib import Path

import click

from companion.cli.common import emit_json


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def _new_table(directory: Path):
    from companion.hub import Hub
    from companion.rules.variant import load_variant
    from companion.storage import EventStore
    from companion.table import Table

    table = Table(EventStore(directory / "games.sqlite3"), Hub())
    table.start_game(load_variant("classical"))
    return table


def measure_latency(rolls: int, directory: Path, progress) -> dict:
    from companion.hardware.dice.link import DiceLink
    from companion.hardware.dice.sim import PtyTransport, VirtualDiceBox

    table = _new_table(directory)
    box = VirtualDiceBox(roll_ms=20)
    transport = PtyTransport(box, link=directory / "dicebox")
    link = DiceLink(transport.url, table, kind="sim", source="sim", press_roll=box.press_roll)
    sent: dict[int, float] = {}
    recorded: dict[int, float] = {}
    done = threading.Condition()

    def on_wire(direction: str, line: bytes) -> None:
        if direction == "box" and line.startswith(b"$ROLL,"):
            seq = int(line.split(b",")[2])
            sent.setdefault(seq, time.perf_counter())

    def on_state(msg) -> None:
        event = msg.data["event"]
        if event.get("type") == "dice":
            with done:
                recorded[event["seq"]] = time.perf_counter()
                done.notify_all()

    box.listeners.append(on_wire)
    table.hub.subscribe(on_state, {"state"})
    box.start()
    transport.start()
    link.start()
    try:
        deadline = time.monotonic() + 10
        while link.status["firmware"] is None and time.monotonic() < deadline:
            time.sleep(0.01)
        for i in range(1, rolls + 1):
            link.press_roll()
            with done:
                if not done.wait_for(lambda: len(recorded) >= i, timeout=10):  # noqa: B023 (waited on at once)
                    raise click.ClickException(f"roll {i} was not recorded within 10 s")
            if i % 50 == 0:
                progress(f"  {i}/{rolls} rolls")
    finally:
        link.stop()
        transport.stop()
        box.stop()
        table.store.close()
    ms = [(recorded[s] - sent[s]) * 1000 for s in recorded if s in sent]
    return {"rolls": len(ms), "p50_ms": round(statistics.median(ms), 2), "p99_ms": round(_percentile(ms, 99), 2),
            "max_ms": round(max(ms), 2), "mean_ms": round(statistics.fmean(ms), 2)}


def measure_throughput(lines: list[bytes], directory: Path, count_key: str) -> dict:
    """Write `lines` into a raw pty as fast as the reader takes them; time until all are handled."""
    import tty

    from companion.hardware.dice.link import DiceLink

    table = _new_table(directory)
    master, slave = os.openpty()
    tty.setraw(slave)
    link = DiceLink(os.ttyname(slave), table, ping_interval=60)
    link.start()
    try:
        deadline = time.monotonic() + 10
        while not link.status["connected"] and time.monotonic() < deadline:
            time.sleep(0.01)
        data = b"".join(lines)
        start = time.perf_counter()
        view = memoryview(data)
        while view:  # the pty buffer is small: write as the reader drains it (its ACKs are not read)
            n = os.write(master, view[:4096])
            view = view[n:]
        deadline = time.monotonic() + 120
        target = len(lines)
        while link.status[count_key] < target and time.monotonic() < deadline:
            time.sleep(0.002)
        elapsed = time.perf_counter() - start
        handled = link.status[count_key]
    finally:
        link.stop()
        os.close(master)
        os.close(slave)
        table.store.close()
    return {"lines": handled, "seconds": round(elapsed, 3), "lines_per_s": round(handled / elapsed),
            "kbytes_per_s": round(len(data) / elapsed / 1000, 1)}


@click.command("dice")
@click.option("--rolls", type=click.IntRange(10, 10_000), default=200, show_default=True,
              help="Rolls for the latency figures.")
@click.option("--lines", "n_lines", type=click.IntRange(100, 1_000_000), default=20_000, show_default=True,
              help="Lines for the reader throughput.")
@click.option("--roll-lines", type=click.IntRange(10, 10_000), default=300, show_default=True,
              help="Distinct ROLL lines (each a durable write) for the recording throughput.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def dice(rolls: int, n_lines: int, roll_lines: int, as_json: bool) -> None:
    """Roll → game log latency (p50/p99) and reader throughput over a pty."""
    if not hasattr(os, "openpty"):
        raise click.ClickException("this benchmark needs pseudo-terminals (Linux, macOS)")
    from companion.hardware.dice.protocol import frame

    say = (lambda s: None) if as_json else click.echo
    with tempfile.TemporaryDirectory(prefix="companion-bench-") as tmp:
        root = Path(tmp)
        for name in ("latency", "lines", "rolls"):
            (root / name).mkdir()
        say(f"Latency: {rolls} presses on the virtual dice box, ROLL line → event in the game log …")
        latency = measure_latency(rolls, root / "latency", say)
        say(f"Reader throughput: {n_lines} ROLLING lines through a pty …")
        plain = measure_throughput([frame("ROLLING", "bench", i) for i in range(n_lines)], root / "lines", "lines")
        say(f"Recording throughput: {roll_lines} distinct ROLL lines, each written to the log …")
        rolls_tp = measure_throughput([frame("ROLL", "bench", i, i % 6 + 1, (i // 6) % 6 + 1)
                                       for i in range(1, roll_lines + 1)], root / "rolls", "rolls_recorded")
    figures = {"latency": latency, "reader": plain, "recording": rolls_tp,
               "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                           "platform": platform.platform(terse=True)}}
    if as_json:
        emit_json(figures)
        return
    click.echo("")
    click.echo(f"roll → event in the game log: p50 {latency['p50_ms']} ms, p99 {latency['p99_ms']} ms, "
               f"max {latency['max_ms']} ms  ({latency['rolls']} rolls)")
    click.echo(f"reader throughput: {plain['lines_per_s']} lines/s ({plain['kbytes_per_s']} kB/s; "
               f"a 115200-baud line carries 11.5 kB/s)")
    click.echo(f"rolls recorded: {rolls_tp['lines_per_s']} rolls/s (each a durable SQLite write)")
    click.echo(f"machine: Python {figures['machine']['python']}, {figures['machine']['cpus']} CPUs, "
               f"{figures['machine']['platform']}")

"""`companion bench club`: N simulated tables publish through one Mosquitto into one hub.

Starts a Mosquitto of its own on 127.0.0.1 (or uses --broker) and a real `companion hub` in a
child process. The tables run in this process, each as the companion runs it: its own SQLite game
log, the game, and the club publisher (only the camera, dice box and phones are left out); they
play whole hands (dice, results, now and then an undo) and start a new game when one ends.

Two phases:
  catch-up  every table's log already holds --backlog events written while the broker was away;
            all publishers start at once: how many events per second the hub stores, folds and
            acknowledges, and how long until it holds everything (each event once, checked);
  steady    every table writes --rate events a second for --seconds: the delay from the table's
            write to the moment the hub's API shows it (read from the hub's own SSE stream of
            /api/tables, as the projector reads it), p50/p99/max, and whether the hub kept up.
The hub's resident memory (RSS, peak) and CPU time are read from /proc. Tables, broker and hub
share this machine's cores, so the figures include the tables' own work.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import click

from companion.club.broker import LocalMosquitto, free_port
from companion.club.publisher import ClubPublisher
from companion.config import ClubSettings
from companion.game.events import DiceThrown, HandDrawn, HandWon
from companion.hub import Hub
from companion.rules.variant import load_variant
from companion.storage import EventStore
from companion.table import Table
from companion.web.loadbench import _percentile, _rss_kib


class SimTable:
    """One table: its game log, its game, its publisher; `step()` records the next event."""

    def __init__(self, folder: Path, table_id: str, broker: str, variant) -> None:
        self.table_id = table_id
        self.store = EventStore(folder / "games.sqlite3")
        self.bus = Hub()
        self.table = Table(self.store, self.bus)
        self.variant = variant
        self.rng = random.Random(table_id)
        self.players = [f"{table_id}-{n}" for n in ("Ann", "Bob", "Cat", "Dan")]
        self.table.start_game(variant, self.players)
        self.publisher = ClubPublisher(self.store, self.bus, ClubSettings(broker=broker, table_id=table_id))
        self.written: dict[int, float] = {}  # seq -> when the table wrote it (Unix seconds)

    def step(self) -> None:
        state = self.table.state
        if state.game_over:
            rec = self.table.start_game(self.variant, self.players)
        elif state.expected_throw():
            rec = self.table.record(DiceThrown(faces=[self.rng.randint(1, 6) for _ in range(2)], source="sim"))
        elif self.rng.random() < 0.15:
            rec = self.table.record(HandDrawn())
        else:
            rec = self.table.record(HandWon(winner=self.rng.randrange(4), value=self.rng.randrange(8, 80, 2)))
        self.written[rec.id] = rec.at.timestamp()

    def close(self) -> None:
        self.publisher.stop()
        self.store.close()


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


class Watcher(threading.Thread):
    """Reads the hub's SSE stream of /api/tables; for each table's newly shown seq, the delay since
    the table wrote it."""

    def __init__(self, url: str, tables: dict[str, SimTable]) -> None:
        super().__init__(daemon=True, name="sse-watcher")
        self.url, self.tables = url, tables
        self.shown: dict[str, int] = {t: 0 for t in tables}
        self.delays: list[float] = []
        self.measuring = False
        self.changed = threading.Condition()

    def run(self) -> None:
        with urllib.request.urlopen(self.url, timeout=120) as stream:
            data = []
            for raw in stream:
                line = raw.decode().rstrip("\n")
                if line.startswith("data: "):
                    data.append(line[6:])
                elif not line and data:
                    self._seen(json.loads("".join(data)), time.time())
                    data = []

    def _seen(self, rows: list[dict], now: float) -> None:
        with self.changed:
            for row in rows:
                t, seq = row["table"], row["last_seq"]
                before = self.shown.get(t, 0)
                if seq > before and t in self.tables:
                    if self.measuring:
                        written = self.tables[t].written
                        self.delays.extend(now - written[s] for s in range(before + 1, seq + 1) if s in written)
                    self.shown[t] = seq
            self.changed.notify_all()

    def wait_all(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self.changed:
            return self.changed.wait_for(lambda: all(self.shown[t] >= s.store.last_id()
                                                     for t, s in self.tables.items()),
                                         max(0.0, deadline - time.monotonic()))


@click.command("club")
@click.option("--tables", "count", type=click.IntRange(1, 1000), default=50, show_default=True)
@click.option("--backlog", type=click.IntRange(0, 100_000), default=200, show_default=True,
              help="Events in each table's log before its publisher starts (the catch-up phase).")
@click.option("--rate", type=click.FloatRange(0.01, 100), default=1.0, show_default=True,
              help="Events a second each table writes in the steady phase (a real table: ~0.05).")
@click.option("--seconds", type=click.FloatRange(1, 3600), default=20.0, show_default=True,
              help="Length of the steady phase.")
@click.option("--broker", default=None, metavar="mqtt://HOST:PORT", help="Use this broker, not one of our own.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def club_bench(count, backlog, rate, seconds, broker, as_json):
    """N tables through one Mosquitto into one hub: events/s, write-to-API delay, hub memory."""
    # a SIGTERM ends the benchmark as Ctrl+C does: the hub, the broker and the temp files go with it
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:  # each table holds its log (3 files) and a socket open: 500 tables need more than 1024
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 16 * count + 256)), hard))
    except (ImportError, ValueError, OSError):
        pass
    work = Path(tempfile.mkdtemp(prefix="companion-bench-club-"))
    mosq = None if broker else LocalMosquitto(max_queued=1_000_000).start()
    url = broker or mosq.url
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    hub = subprocess.Popen([sys.executable, "-m", "companion", "hub", "--broker", url, "--host", "127.0.0.1",
                            "--port", str(port), "--data-dir", str(work / "hub")],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    base = f"http://127.0.0.1:{port}"
    variant = load_variant("classical", [])
    tables: dict[str, SimTable] = {}
    figures: dict = {"tables": count, "broker": "own Mosquitto" if mosq else url}
    try:
        _wait_healthy(base)
        click.echo(f"{count} tables, writing their backlog of {backlog} events each …", err=True)
        for i in range(1, count + 1):
            t = tables[str(i)] = SimTable(work / f"table-{i}", str(i), url, variant)
            for _ in range(backlog):
                t.step()
        watcher = Watcher(f"{base}/api/tables/stream", tables)
        watcher.start()
        total = sum(t.store.last_id() for t in tables.values())
        cpu0, t0 = _cpu_seconds(hub.pid), time.monotonic()
        for t in tables.values():
            t.publisher.start()
        if not watcher.wait_all(600):
            raise click.ClickException("the hub did not catch up within 10 minutes")
        took = time.monotonic() - t0
        figures["catch_up"] = {"events": total, "seconds": round(took, 2), "events_per_s": round(total / took),
                               "hub_cpu_s": round(_cpu_seconds(hub.pid) - cpu0, 1), "hub_rss_kib": _rss_kib(hub.pid)}
        click.echo(f"steady: {rate:g} events/s at each table for {seconds:g} s …", err=True)
        watcher.measuring = True
        stop = threading.Event()
        writers = [threading.Thread(target=_write_steadily, args=(t, rate, seconds, stop), daemon=True)
                   for t in tables.values()]
        cpu0, t0 = _cpu_seconds(hub.pid), time.monotonic()
        for w in writers:
            w.start()
        for w in writers:
            w.join()
        written = sum(t.store.last_id() for t in tables.values()) - total
        kept_up = watcher.wait_all(60)
        took = time.monotonic() - t0
        delays = sorted(watcher.delays)
        figures["steady"] = {
            "events": written, "offered_events_per_s": round(count * rate, 1),
            "held_events_per_s": round(written / took, 1), "kept_up": kept_up, "measured": len(delays),
            "delay_ms": {"p50": round(_percentile(delays, 50) * 1000, 1),
                         "p99": round(_percentile(delays, 99) * 1000, 1),
                         "max": round(delays[-1] * 1000, 1) if delays else None},
            "hub_cpu_s": round(_cpu_seconds(hub.pid) - cpu0, 1), "hub_rss_kib": _rss_kib(hub.pid)}
        health = json.load(urllib.request.urlopen(f"{base}/healthz?delays={written}", timeout=10))
        figures["hub"] = {k: health[k] for k in ("events", "duplicates", "acks", "tables", "delay_ms")}
        check = json.load(urllib.request.urlopen(f"{base}/api/tables", timeout=10))
        figures["every_event_once"] = all(r["last_seq"] == tables[r["table"]].store.last_id() for r in check) \
            and health["events"] == sum(t.store.last_id() for t in tables.values())
    finally:
        for t in tables.values():
            t.close()
        hub.terminate()
        try:
            hub.wait(timeout=15)
        except subprocess.TimeoutExpired:
            hub.kill()
        if mosq:
            mosq.close()
        shutil.rmtree(work, ignore_errors=True)
    if as_json:
        click.echo(json.dumps(figures, indent=2))
        return
    c, s = figures["catch_up"], figures["steady"]
    click.echo(f"catch-up: {c['events']} events from {count} tables in {c['seconds']} s = {c['events_per_s']} events/s "
               f"stored, folded and acknowledged (hub CPU {c['hub_cpu_s']} s; RSS {c['hub_rss_kib'].get('VmRSS', 0) // 1024} MiB)")
    click.echo(f"steady:   {s['events']} events offered at {s['offered_events_per_s']}/s, held {s['held_events_per_s']}/s, "
               f"kept up: {s['kept_up']}; write -> hub API delay p50 {s['delay_ms']['p50']} ms, "
               f"p99 {s['delay_ms']['p99']} ms, max {s['delay_ms']['max']} ms ({s['measured']} events)")
    click.echo(f"hub:      RSS {s['hub_rss_kib'].get('VmRSS', 0) // 1024} MiB, peak {s['hub_rss_kib'].get('VmHWM', 0) // 1024} "
               f"MiB; every event once: {figures['every_event_once']} (duplicates ignored: {figures['hub']['duplicates']})")
    parts = figures["hub"]["delay_ms"]
    if parts:
        click.echo("where the steady phase's delay is (p50/p99 ms): " + ", ".join(
            f"{name} {v['p50']}/{v['p99']}" for name, v in parts.items()) +
            " (table: write -> sent; transit: sent -> heard by the hub; hub: heard -> shown)")
    click.echo(f"machine:  {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end")


def _write_steadily(t: SimTable, rate: float, seconds: float, stop: threading.Event) -> None:
    period = 1.0 / rate
    start = time.monotonic() + t.rng.random() * period  # the tables out of step with each other
    n = 0
    while not stop.is_set():
        due = start + n * period
        if due - start > seconds:
            return
        wait = due - time.monotonic()
        if wait > 0:
            stop.wait(wait)
        t.step()
        n += 1


def _wait_healthy(base: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if json.load(urllib.request.urlopen(f"{base}/healthz", timeout=2)).get("connected"):
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise click.ClickException("the hub did not start (or did not reach the broker) within 30 s")

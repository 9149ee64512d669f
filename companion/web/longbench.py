"""`companion bench long-game`: a game of thousands of events (several evenings on one log).

Builds the log through the real `Table` and game log on disk (SQLite, synchronous=FULL, as
`companion run` writes it): throws, results, now and then a wall break, an undo of the latest
event and a correction of an earlier hand's value. Every write is timed (try, fold, write, push
to the hub); every state message is measured as a phone's stream carries it (SSE bytes). At
marks along the way it prints the write times of the last stretch, this process's memory and
the bytes a phone is sent per event, so that growth with the game's length shows. Then, unless
--no-server, it starts a real `companion run` on that log, posts results through the API with a
phone's stream open, and prints the server's memory, the POST round trip and the bytes pushed.
"""

from __future__ import annotations

import json
import os
import random
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import click

from companion.game.events import Corrected, DiceThrown, HandWon, WallBroken
from companion.hub import Hub
from companion.rules.variant import load_variant
from companion.storage import EventStore
from companion.table import Table
from companion.web.loadbench import CODE, _percentile, _rss_kib, start_server
from companion.web.push import sse

PLAYERS = ["Ann", "Bob", "Cat", "Dan"]


def _ms(values: list[float]) -> dict[str, float]:
    ms = [v * 1000 for v in values]
    return {"p50": _percentile(ms, 50), "p99": _percentile(ms, 99), "max": max(ms) if ms else float("nan"),
            "n": len(ms)}


def _mib(kib: int) -> float:
    return kib / 1024


class LongGame:
    """Writes one long game through a Table, timing each write and sizing each state pushed."""

    def __init__(self, data_dir: Path, variant: str, seed: int) -> None:
        self.store = EventStore(data_dir / "games.sqlite3")
        self.hub = Hub()
        self.table = Table(self.store, self.hub)
        self.rng = random.Random(seed)
        self.pushed: list[int] = []  # SSE bytes of each state message, as a phone's stream carries it
        self.hub.subscribe(lambda m: self.pushed.append(len(sse(m.topic, m.data, m.id))), {"state"})
        self.times: dict[str, list[float]] = {"throw": [], "result": [], "break": [], "undo": [], "correct": []}
        self.order: list[float] = []  # every write's time, in order
        self.table.start_game(load_variant(variant), PLAYERS)

    @property
    def events(self) -> int:
        return len(self.table.records())

    def _timed(self, kind: str, write) -> None:
        start = time.perf_counter()
        write()
        took = time.perf_counter() - start
        self.times[kind].append(took)
        self.order.append(took)

    def step(self) -> None:
        """One more write, as a table makes them: mostly throws and results, sometimes a break seen,
        an undo of the latest event, or an earlier hand's value corrected."""
        t, rng = self.table, self.rng
        state = t.state
        roll = rng.random()
        if roll < 0.03 and state.applied:
            self._timed("undo", lambda: t.undo())
        elif roll < 0.04 and state.history:
            # a value typed wrong some hands ago (the winner stays, so the game goes on as it was)
            h = state.history[rng.randrange(max(0, len(state.history) - 40), len(state.history))]
            winner = state.players.index(h["winner"]) if h["winner"] else None
            if winner is not None:
                discarder = state.players.index(h["from"]) if h["from"] else None
                event = HandWon(winner=winner, discarder=discarder, value=rng.randint(8, 64))
                self._timed("correct", lambda: t.record(Corrected(target=h["event"], event=event)))
        elif state.expected_throw() is not None:
            n = state.variant.dice.dice
            faces = [rng.randint(1, 6) for _ in range(n)]
            self._timed("throw", lambda: t.record(DiceThrown(faces=faces, source="serial")))
        elif roll < 0.10 and state.observed_break is None and state.brk is not None:
            brk = state.brk
            self._timed("break", lambda: t.record(WallBroken(seat=brk.wall, stack=brk.stack, source="camera")))
        else:
            # East wins (R11: keeps the seat), self-drawn or on another's discard: the game never ends
            east = state.dealer
            discarder = rng.choice([None, (east + 1) % 4, (east + 2) % 4, (east + 3) % 4])
            event = HandWon(winner=east, discarder=discarder, value=rng.randint(8, 64))
            self._timed("result", lambda: t.record(event))

    def mark(self, since: int) -> dict:
        rss = _rss_kib(os.getpid())
        window = self.order[since:]
        return {"events": self.events, "hands": len(self.table.state.history), **_ms(window),
                "rss_mib": _mib(rss.get("VmRSS", 0)), "peak_rss_mib": _mib(rss.get("VmHWM", 0)),
                "pushed_bytes": statistics.fmean(self.pushed[-50:]), "backlog_kib": self.hub.backlog_bytes / 1024}


def build(data_dir: Path, events: int, variant: str, seed: int, marks: list[int], echo=click.echo) -> dict:
    game = LongGame(data_dir, variant, seed)
    rows, since = [], 0
    echo(f"{'events':>7} {'hands':>6} {'write p50':>10} {'p99':>8} {'max':>8} {'RSS MiB':>8} "
         f"{'pushed B/event':>15} {'hub backlog KiB':>16}")
    for target in sorted({*(m for m in marks if m < events), events}):
        while game.events < target:
            game.step()
        row = game.mark(since)
        since = len(game.order)
        rows.append(row)
        echo(f"{row['events']:>7} {row['hands']:>6} {row['p50']:>8.2f}ms {row['p99']:>6.2f}ms {row['max']:>6.1f}ms "
             f"{row['rss_mib']:>8.1f} {row['pushed_bytes']:>15.0f} {row['backlog_kib']:>16.0f}")
    # the worst case: the game's first hand corrected, everything after it derived again
    first = game.table.state.history[0]
    event = HandWon(winner=PLAYERS.index(first["winner"]), value=99,
                    discarder=PLAYERS.index(first["from"]) if first["from"] else None)
    start = time.perf_counter()
    game.table.record(Corrected(target=first["event"], event=event))
    oldest_ms = (time.perf_counter() - start) * 1000
    echo(f"the first hand corrected at the end (the whole game derived again): {oldest_ms:.1f} ms")
    result = {"events": game.events, "hands": len(game.table.state.history), "marks": rows, "oldest_correction_ms": oldest_ms,
              "write_ms": _ms(game.order), "by_kind_ms": {k: _ms(v) for k, v in game.times.items() if v},
              "pushed_bytes": {"first": game.pushed[1] if len(game.pushed) > 1 else None,
                               "last": game.pushed[-1], "max": max(game.pushed)}}
    game.store.close()
    return result


def serve(data_dir: Path, results: int, camera: str, echo=click.echo) -> dict:
    """A real `companion run` on the long log: results posted with one phone's stream open."""
    from companion.web.client import DashboardClient

    proc, base = start_server(data_dir, threads=16, extra=f'[camera]\nsource = "{camera}"\n')
    try:
        echo(f"companion run on the log: pid {proc.pid}, RSS at start {_mib(_rss_kib(proc.pid).get('VmRSS', 0)):.1f} MiB")
        phone = DashboardClient(base, timeout=60)
        joined = phone.join(CODE, player=0)
        if joined.status != 200:
            raise click.ClickException(f"the bench phone could not join: {joined.status} {joined.data}")
        stream = phone.stream().open(timeout=60)
        sizes: list[int] = []
        first = threading.Event()

        def read() -> None:
            try:
                for ev in stream:
                    if ev.event == "state":
                        if ev.data.get("event"):
                            sizes.append(len(sse(ev.event, ev.data, ev.id)))
                        first.set()
            except (OSError, AttributeError, ValueError):  # hung up by the bench at the end
                pass

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        first.wait(60)
        posts = []
        for i in range(results):
            start = time.perf_counter()
            resp = phone.post("/api/hands", {"result": "win", "winner": "E", "value": 10 + i})
            posts.append(time.perf_counter() - start)
            if resp.status != 201:
                raise click.ClickException(f"posting a result failed: {resp.status} {resp.data}")
        deadline = time.monotonic() + 15
        while len(sizes) < results and time.monotonic() < deadline:
            time.sleep(0.05)
        state = phone.request("GET", "/api/state")
        page = phone.request("GET", "/api/events?limit=200")
        rss = _rss_kib(proc.pid)
        stream.close()
        return {"results": results, "post_ms": _ms(posts), "pushed_bytes": statistics.fmean(sizes) if sizes else None,
                "received": len(sizes), "state_bytes": len(json.dumps(state.data, separators=(",", ":"))),
                "events_page_bytes": len(json.dumps(page.data, separators=(",", ":"))),
                "rss_mib": _mib(rss.get("VmRSS", 0)), "peak_rss_mib": _mib(rss.get("VmHWM", 0))}
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


@click.command("long-game")
@click.option("--events", type=click.IntRange(10, 100_000), default=5000, show_default=True,
              help="Events in the game's log.")
@click.option("--variant", default="classical", show_default=True, help="Built-in variant played.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the dice, results and mistakes.")
@click.option("--server/--no-server", default=True, show_default=True,
              help="Then run `companion run` on the log and post results through the API.")
@click.option("--results", type=click.IntRange(1, 1000), default=100, show_default=True,
              help="Results posted to the server.")
@click.option("--camera", type=click.Choice(["off", "sim"]), default="off", show_default=True,
              help="The server's camera: off measures the game alone; sim adds the simulated camera and "
                   "the table watcher (their memory does not depend on the game's length).")
@click.option("--keep", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Build the log in this (new or empty) folder and keep it.")
def long_game(events: int, variant: str, seed: int, server: bool, results: int, camera: str,
              keep: Path | None) -> None:
    """Write time, memory and the bytes pushed per event as a game's log grows to --events."""
    marks = [500, 1000, 2000, 3000, 4000, 5000, 10000, 20000, 50000]
    with tempfile.TemporaryDirectory(prefix="companion-long-") as tmp:
        folder = keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        if (folder / "games.sqlite3").exists():
            raise click.ClickException(f"{folder} already holds a game log; give a new folder")
        click.echo(f"building a game of {events} events ({variant}, seed {seed}) through the Table and the game log")
        r = build(folder, events, variant, seed, marks)
        w = r["write_ms"]
        click.echo(f"all {w['n']} writes: p50 {w['p50']:.2f} ms, p99 {w['p99']:.2f} ms, max {w['max']:.1f} ms")
        for kind, k in r["by_kind_ms"].items():
            click.echo(f"  {kind:>8}: {k['n']:>5} writes, p50 {k['p50']:.2f} ms, p99 {k['p99']:.2f} ms, max {k['max']:.1f} ms")
        p = r["pushed_bytes"]
        click.echo(f"state pushed per event: {p['first']} B after the first event, {p['last']} B after the last "
                   f"(largest {p['max']} B); {r['hands']} hands in the log")
        if server:
            s = serve(folder, results, camera)
            click.echo(f"companion run (camera {camera}) on the {r['events']}-event log, {s['results']} results posted: "
                       f"RSS {s['rss_mib']:.1f} MiB (peak {s['peak_rss_mib']:.1f} MiB); POST /api/hands p50 "
                       f"{s['post_ms']['p50']:.1f} ms, p99 {s['post_ms']['p99']:.1f} ms; pushed "
                       f"{s['pushed_bytes']:.0f} B per event ({s['received']} received); GET /api/state "
                       f"{s['state_bytes']} B; GET /api/events?limit=200 {s['events_page_bytes']} B")

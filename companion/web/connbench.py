"""`companion bench connections`: a stranger holds 1,000 idle or slow connections; how fast is a player answered?

Starts a real `companion run` (waitress) in a child process on a temporary data directory, on
127.0.0.1 only. A player joins; their `GET /api/state` (a new connection each time, as a phone
that wakes up) is timed first on a quiet server, then while a "stranger" keeps `--idle`
connections open that send nothing and `--slow` connections whose request never ends (a header
line every few seconds, a "slow loris"). Whatever the server closes, the stranger opens again at
once, for `--hold` seconds (past the server's 30 s idle deadline, so its clean-up is inside the
measurement). Prints p50/p99/max of the player's answer times, how many of the stranger's
connections the server closed, and the server's memory. Everything runs on this machine's cores.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import click

from companion.web.client import DashboardClient
from companion.web.loadbench import CODE, _percentile, _rss_kib, start_server
from companion.web.server import raise_file_limit


class Stranger:
    """Idle and slow connections to one port, opened again whenever the server closes one."""

    def __init__(self, port: int, idle: int, slow: int, trickle_s: float = 5.0) -> None:
        self.port = port
        self.trickle_s = trickle_s
        self.selector = selectors.DefaultSelector()
        self.closed_by_server = 0
        self.refused = 0
        self._next_trickle = time.monotonic() + trickle_s
        for _ in range(idle):
            self._open("idle")
        for _ in range(slow):
            self._open("slow")

    def _open(self, kind: str) -> None:
        try:
            s = socket.create_connection(("127.0.0.1", self.port), timeout=5)
        except OSError:
            self.refused += 1
            return
        s.setblocking(False)
        if kind == "slow":
            s.send(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        self.selector.register(s, selectors.EVENT_READ, kind)

    @property
    def open(self) -> int:
        return len(self.selector.get_map())

    def tend(self, timeout: float) -> None:
        """Notice the connections the server closed and open them again; trickle the slow ones."""
        for key, _ in self.selector.select(timeout):
            s = key.fileobj
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if not data:  # closed by the server: the stranger comes straight back
                self.selector.unregister(s)
                s.close()
                self.closed_by_server += 1
                self._open(key.data)
        now = time.monotonic()
        if now >= self._next_trickle:
            self._next_trickle = now + self.trickle_s
            for key in list(self.selector.get_map().values()):
                if key.data == "slow":
                    try:
                        key.fileobj.send(b"X-Still-Coming: 1\r\n")
                    except OSError:
                        pass

    def close(self) -> None:
        for key in list(self.selector.get_map().values()):
            self.selector.unregister(key.fileobj)
            key.fileobj.close()


def _spilled_bytes(pid: int) -> int:
    """Bytes in the server's deleted temporary files: where waitress spills answers it holds past 1 MiB."""
    total = 0
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}").endswith("(deleted)"):
                    total += os.stat(f"/proc/{pid}/fd/{fd}").st_size
            except OSError:
                pass
    except OSError:
        pass
    return total


def _unread_stream(base: str, port: int) -> socket.socket:
    """A joined phone's live stream that is never read (a phone gone to sleep mid-stream, or a stranger
    with the code): a socket with a 4 KiB receive buffer that takes nothing."""
    phone = DashboardClient(base)
    if phone.join(CODE).status != 200:
        raise click.ClickException("a phone could not join")
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    s.sendall(f"GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {phone.cookie}\r\n\r\n".encode())
    return s


def _timed_get(base: str, cookie: str | None, timeout: float) -> float:
    client = DashboardClient(base, timeout=timeout)
    client.cookie = cookie
    start = time.perf_counter()
    r = client.get("/api/state")
    elapsed = time.perf_counter() - start
    if r.status != 200:
        raise click.ClickException(f"the player's GET /api/state answered {r.status}")
    return elapsed


def run_benchmark(idle: int, slow: int, hold: float, every: float, threads: int, settle: float = 15.0,
                  unread: int = 0, echo=click.echo) -> dict:
    raise_file_limit(idle + slow + 256)
    with tempfile.TemporaryDirectory(prefix="companion-bench-") as tmp:
        proc, base = start_server(Path(tmp), threads)
        stranger = None
        try:
            player = DashboardClient(base)
            if player.join(CODE).status != 200:
                raise click.ClickException("the player could not join")
            time.sleep(settle)  # the companion loads its models and starts its devices first
            quiet = []
            until = time.monotonic() + 10
            while time.monotonic() < until:  # the same cadence, without the stranger
                quiet.append(_timed_get(base, player.cookie, 10))
                time.sleep(every)
            rss_quiet = _rss_kib(proc.pid).get("VmRSS", 0) / 1024
            port = int(base.rsplit(":", 1)[1])
            readers = [_unread_stream(base, port) for _ in range(unread)]
            t0 = time.perf_counter()
            stranger = Stranger(port, idle, slow)
            echo(f"stranger: {stranger.open} connections open in {time.perf_counter() - t0:.2f} s "
                 f"({idle} idle, {slow} slow; {stranger.refused} refused)")
            busy, timeouts, results, spilled = [], 0, 0, 0
            streams = []  # (seconds since the start, live streams the server holds)
            start = time.monotonic()
            deadline = start + hold
            next_get = next_post = start
            while time.monotonic() < deadline:
                stranger.tend(min(0.2, max(0.0, next_get - time.monotonic())))
                now = time.monotonic()
                if now >= next_get:
                    try:
                        busy.append(_timed_get(base, player.cookie, 30))
                    except (OSError, TimeoutError):
                        timeouts += 1
                    next_get = time.monotonic() + every
                if readers and now >= next_post:  # results, so that the unread streams have states to take
                    next_post = now + 0.25
                    # East wins self-drawn: East keeps the seat (R11), so the game never ends mid-benchmark
                    if player.post("/api/hands", {"result": "win", "winner": "E", "value": 10}).status == 201:
                        results += 1
                    status = player.get("/api/status")
                    if status.status == 200:
                        streams.append((now - start, status.data.get("streams")))
                    spilled = max(spilled, _spilled_bytes(proc.pid))
            rss = _rss_kib(proc.pid)
            for r in readers:
                r.close()
            still_open = stranger.open
        finally:
            if stranger is not None:
                stranger.close()
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
    ms = lambda xs, q: _percentile([x * 1000 for x in xs], q)  # noqa: E731
    return {
        "idle": idle, "slow": slow, "hold_s": hold, "threads": threads,
        "quiet_ms": {"p50": ms(quiet, 50), "p99": ms(quiet, 99), "max": max(quiet) * 1000},
        "busy_ms": {"p50": ms(busy, 50), "p99": ms(busy, 99), "max": max(busy) * 1000 if busy else float("nan")},
        "gets": len(busy), "get_timeouts": timeouts,
        "closed_by_server": stranger.closed_by_server, "refused": stranger.refused, "still_open": still_open,
        "server_rss_mib": rss.get("VmRSS", 0) / 1024, "server_peak_rss_mib": rss.get("VmHWM", 0) / 1024,
        "server_rss_quiet_mib": rss_quiet,
        "unread": unread, "results": results, "streams": streams, "spilled_mib": spilled / 2**20,
    }


@click.command("connections")
@click.option("--idle", type=click.IntRange(0, 20000), default=500, show_default=True,
              help="The stranger's connections that send nothing.")
@click.option("--slow", type=click.IntRange(0, 20000), default=500, show_default=True,
              help="The stranger's connections whose request never ends (a header line every 5 s).")
@click.option("--hold", type=click.FloatRange(1, 3600), default=75.0, show_default=True,
              help="Seconds the stranger keeps them open (reopening what the server closes).")
@click.option("--every", type=click.FloatRange(0.05, 60), default=0.5, show_default=True,
              help="Seconds between the player's requests.")
@click.option("--threads", type=click.IntRange(4, 1024), default=64, show_default=True, help="Server threads.")
@click.option("--settle", type=click.FloatRange(0, 600), default=15.0, show_default=True,
              help="Seconds the server is left to start (models, devices) before anything is timed.")
@click.option("--unread", type=click.IntRange(0, 1000), default=0, show_default=True,
              help="Joined phones whose live stream is never read, while 4 results a second are posted.")
def connections(idle: int, slow: int, hold: float, every: float, threads: int, settle: float, unread: int) -> None:
    """A player's GET while a stranger holds idle and slow connections (127.0.0.1 only)."""
    r = run_benchmark(idle, slow, hold, every, threads, settle, unread)
    click.echo(f"player's GET /api/state, quiet server (10 s): p50 {r['quiet_ms']['p50']:.1f} ms, "
               f"p99 {r['quiet_ms']['p99']:.1f} ms, max {r['quiet_ms']['max']:.1f} ms")
    click.echo(f"player's GET /api/state beside {r['idle']} idle + {r['slow']} slow connections for {r['hold_s']:.0f} s: "
               f"{r['gets']} answered, {r['get_timeouts']} not answered; p50 {r['busy_ms']['p50']:.1f} ms, "
               f"p99 {r['busy_ms']['p99']:.1f} ms, max {r['busy_ms']['max']:.1f} ms")
    click.echo(f"the server closed {r['closed_by_server']} of the stranger's connections (each reopened at once); "
               f"{r['refused']} refused; {r['still_open']} open at the end")
    click.echo(f"server RSS {r['server_rss_mib']:.1f} MiB (quiet {r['server_rss_quiet_mib']:.1f} MiB, "
               f"peak {r['server_peak_rss_mib']:.1f} MiB) with {r['threads']} threads")
    if r["unread"]:
        gone = next((t for t, n in r["streams"] if n == 0), None)
        click.echo(f"{r['unread']} unread live streams, {r['results']} results posted: streams held "
                   + ", ".join(f"{n} at {t:.0f} s" for t, n in r["streams"][::10])
                   + (f"; all closed by {gone:.0f} s" if gone is not None else "; not all closed")
                   + f"; at most {r['spilled_mib']:.1f} MiB spilled to temporary files")
    click.echo(f"load average of this machine: {os.getloadavg()[0]:.1f} (the player, the stranger and the server share it)")
    if r["get_timeouts"] or r["busy_ms"]["max"] > 1000:
        raise SystemExit(1)

"""`companion bench web`: N simulated phones hold event streams while results are posted.

Starts a real `companion run` (waitress) in a child process on a temporary data directory,
opens N Server-Sent Events streams (one thread each, like N phones), then records hand results
through the JSON API one after another. For every result and every phone it measures the time
from just before the POST to the moment that phone has parsed the state carrying the result,
and prints p50/p99/max of those latencies with the server's resident memory (RSS, peak RSS).
Phones and server share this machine's cores, so the figures include the phones' own work.
"""

from __future__ import annotations

import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import click

from companion.web.client import DashboardClient

CODE = "BENCH2345"


def _rss_kib(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak) of a process, from /proc (Linux, as on the Pi)."""
    out = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0])
    except OSError:
        pass
    return out


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = max(0, min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1)))))
    return ordered[k]


def start_server(data_dir: Path, threads: int, extra: str = "") -> tuple[subprocess.Popen, str]:
    """`companion run` on `data_dir`; `extra`: more TOML for its configuration (other sections)."""
    config = data_dir / "bench.toml"
    config.write_text(
        f'data_dir = "{data_dir.as_posix()}"\n[server]\nhost = "127.0.0.1"\nport = 0\nthreads = {threads}\n'
        f'table_code = "{CODE}"\n{extra}', encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    proc = subprocess.Popen([sys.executable, "-m", "companion", "run", "--config", str(config)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    deadline = time.monotonic() + 60
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        m = re.search(r"Dashboard: (http://\S+?):(\d+)/", line)
        if m:
            threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()  # keep the pipe drained
            return proc, f"http://127.0.0.1:{m.group(2)}"
    proc.kill()
    raise click.ClickException("the companion did not start")


class Phone(threading.Thread):
    """One phone: an event stream, noting when each recorded event's state arrived."""

    def __init__(self, base: str, received: dict[int, dict[int, float]], lock: threading.Lock, ready: threading.Barrier,
                 index: int) -> None:
        super().__init__(daemon=True, name=f"phone-{index}")
        self.client = DashboardClient(base, timeout=60)
        self.received, self.lock, self.ready, self.index = received, lock, ready, index
        self.error: str | None = None
        self.stream = None

    def run(self) -> None:
        try:
            self.stream = self.client.stream().open(timeout=60)
            first = True
            for ev in self.stream:
                now = time.perf_counter()
                if ev.event == "state" and first:
                    first = False
                    self.ready.wait()
                if ev.event == "state" and ev.data.get("event"):
                    with self.lock:
                        self.received.setdefault(ev.data["event"]["id"], {})[self.index] = now
        except Exception as e:  # a phone that fails is reported, not hidden
            self.error = f"{type(e).__name__}: {e}"
            try:
                self.ready.abort()
            except threading.BrokenBarrierError:
                pass


def run_benchmark(phones: int, results: int, interval: float, threads: int | None, echo=click.echo) -> dict:
    threads = threads or phones + 16
    with tempfile.TemporaryDirectory(prefix="companion-bench-") as tmp:
        proc, base = start_server(Path(tmp), threads)
        try:
            echo(f"server pid {proc.pid} at {base}, {threads} threads; RSS idle {_rss_kib(proc.pid).get('VmRSS', 0) / 1024:.1f} MiB")
            received: dict[int, dict[int, float]] = {}
            lock = threading.Lock()
            ready = threading.Barrier(phones + 1)
            crowd = [Phone(base, received, lock, ready, i) for i in range(phones)]
            t0 = time.perf_counter()
            for p in crowd:
                p.start()
            try:
                ready.wait(timeout=120)
            except threading.BrokenBarrierError:
                errors = [p.error for p in crowd if p.error]
                raise click.ClickException(f"phones could not connect: {errors[:3]}") from None
            echo(f"{phones} phones connected in {time.perf_counter() - t0:.2f} s; "
                 f"RSS {_rss_kib(proc.pid).get('VmRSS', 0) / 1024:.1f} MiB")

            player = DashboardClient(base)
            joined = player.join(CODE, player=0)
            if joined.status != 200:
                raise click.ClickException(f"join failed: {joined.status} {joined.data}")
            sent: dict[int, float] = {}
            post_times = []
            for i in range(results):
                start = time.perf_counter()
                # East wins self-drawn: East keeps the seat (R11), so the game never ends mid-benchmark
                resp = player.post("/api/hands", {"result": "win", "winner": "E", "value": 10 + i})
                post_times.append(time.perf_counter() - start)
                if resp.status != 201:
                    raise click.ClickException(f"posting a result failed: {resp.status} {resp.data}")
                sent[resp.data["record"]["id"]] = start
                time.sleep(interval)
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                with lock:
                    if all(len(received.get(i, {})) == phones for i in sent):
                        break
                time.sleep(0.05)
            rss = _rss_kib(proc.pid)
            latencies, missing = [], 0
            with lock:
                for event_id, t_sent in sent.items():
                    got = received.get(event_id, {})
                    missing += phones - len(got)
                    latencies.extend((t - t_sent) * 1000 for t in got.values())
            errors = [p.error for p in crowd if p.error]
            for p in crowd:
                if p.stream:
                    p.stream.close()
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
    return {
        "phones": phones, "results": results, "threads": threads,
        "deliveries": len(latencies), "missing": missing, "phone_errors": len(errors),
        "latency_ms": {"p50": _percentile(latencies, 50), "p99": _percentile(latencies, 99),
                       "max": max(latencies) if latencies else float("nan"),
                       "mean": statistics.fmean(latencies) if latencies else float("nan")},
        "post_ms": {"p50": _percentile([t * 1000 for t in post_times], 50),
                    "max": max(post_times) * 1000 if post_times else float("nan")},
        "server_rss_mib": rss.get("VmRSS", 0) / 1024, "server_peak_rss_mib": rss.get("VmHWM", 0) / 1024,
    }


@click.command("web")
@click.option("--phones", type=click.IntRange(1, 2000), default=100, show_default=True, help="Simulated phones holding event streams.")
@click.option("--results", type=click.IntRange(1, 10000), default=20, show_default=True, help="Hand results to post.")
@click.option("--interval", type=click.FloatRange(0, 60), default=0.2, show_default=True, help="Seconds between results.")
@click.option("--threads", type=click.IntRange(1, 4096), default=None, help="Server threads  [default: phones + 16]")
def web(phones: int, results: int, interval: float, threads: int | None) -> None:
    """Update latency to N phones (SSE) while results are posted, and the server's memory."""
    if phones < 1 or results < 1:
        raise click.BadParameter("phones and results must be at least 1")
    r = run_benchmark(phones, results, interval, threads)
    lat = r["latency_ms"]
    click.echo(f"{r['phones']} phones x {r['results']} results: {r['deliveries']} updates delivered, "
               f"{r['missing']} missing, {r['phone_errors']} phone errors")
    click.echo(f"update latency (POST sent -> phone parsed the state): p50 {lat['p50']:.1f} ms, "
               f"p99 {lat['p99']:.1f} ms, max {lat['max']:.1f} ms")
    click.echo(f"POST /api/hands round trip: p50 {r['post_ms']['p50']:.1f} ms, max {r['post_ms']['max']:.1f} ms")
    click.echo(f"server RSS {r['server_rss_mib']:.1f} MiB (peak {r['server_peak_rss_mib']:.1f} MiB) "
               f"with {r['threads']} threads")
    if r["missing"] or r["phone_errors"]:
        raise SystemExit(1)

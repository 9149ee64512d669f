"""`companion run` starts on defaults, serves the state, and stops cleanly on SIGINT/SIGTERM."""

import json
import re
import signal
import subprocess
import sys
import urllib.request

import pytest


def start(tmp_path, *args):
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--host", "127.0.0.1", "--port", "0", "--data-dir",
         str(tmp_path), *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    line = proc.stdout.readline()
    m = re.search(r"http://([\d.]+):(\d+)/", line)
    assert m, f"no dashboard URL in {line!r}: {proc.stderr.read() if proc.poll() is not None else ''}"
    return proc, f"http://{m[1]}:{m[2]}"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_run_serves_the_state_and_stops_on_a_signal(tmp_path, sig):
    proc, url = start(tmp_path, "--variant", "riichi")
    try:
        with urllib.request.urlopen(f"{url}/api/state", timeout=10) as r:
            state = json.load(r)
        assert state["variant"]["name"] == "riichi" and state["east"] == "East" and state["hand"] == 1
    finally:
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "Stopped." in out
    assert (tmp_path / "games.sqlite3").exists()


def test_run_resumes_the_game_after_a_restart(tmp_path):
    from companion.game.events import HandWon
    from companion.hub import Hub
    from companion.storage import EventStore
    from companion.table import Table

    proc, _ = start(tmp_path)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=20)
    with EventStore(tmp_path / "games.sqlite3") as store:
        Table(store, Hub()).record(HandWon(winner=1, value=8))
    proc, url = start(tmp_path)
    try:
        with urllib.request.urlopen(f"{url}/api/state", timeout=10) as r:
            assert json.load(r)["east"] == "South"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)


def test_a_second_companion_on_the_same_game_log_is_refused_and_the_first_goes_on(tmp_path):
    first, url = start(tmp_path)
    try:
        second = subprocess.run([sys.executable, "-m", "companion", "run", "--host", "127.0.0.1", "--port", "0",
                                 "--data-dir", str(tmp_path)], capture_output=True, text=True, timeout=60)
        assert second.returncode == 1 and "Traceback" not in second.stderr
        assert f"another companion is running on {tmp_path} (process {first.pid})" in second.stderr
        with urllib.request.urlopen(f"{url}/api/state", timeout=10) as r:
            assert json.load(r)["hand"] == 1
    finally:
        first.kill()  # kill -9: the lock goes with the process
        first.communicate(timeout=20)
    again, url = start(tmp_path)  # so the next start is not kept out by the file left behind
    again.send_signal(signal.SIGTERM)
    again.communicate(timeout=20)
    assert again.returncode == 0


def test_run_refuses_a_bad_config_file_with_a_clear_message(tmp_path):
    cfg = tmp_path / "companion.toml"
    cfg.write_text("[server]\nport = 99999\n")
    r = subprocess.run([sys.executable, "-m", "companion", "run", "--config", str(cfg), "--data-dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode != 0
    assert "server" in r.stderr and "port must be between 1 and 65535" in r.stderr


def test_a_signal_while_the_services_are_built_stops_the_companion_cleanly(tmp_path, monkeypatch):
    """Ctrl+C in the first second (while devices are claimed and threads started) used to raise
    KeyboardInterrupt in the middle of that ("Aborted!", exit 1, the lock and threads left to the
    exit); now it is noted, and the companion stops as soon as it has started."""
    import os

    from click.testing import CliRunner

    import companion.services as services_module
    from companion.cli import main

    built = []
    real = services_module.build_services

    def build_and_be_interrupted(settings):
        os.kill(os.getpid(), signal.SIGINT)  # the handler runs here, between two bytecodes
        built.append(real(settings))
        return built[-1]

    monkeypatch.setattr(services_module, "build_services", build_and_be_interrupted)
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        r = CliRunner().invoke(main, ["run", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(tmp_path)])
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    assert r.exit_code == 0, r.output
    assert "Stopping …" in r.output and "Stopped." in r.output and "Press Ctrl+C" not in r.output
    assert len(built) == 1  # built whole, then stopped
    from companion.storage.lock import DataDirLock

    lock = DataDirLock(tmp_path)
    lock.acquire()  # released: a companion may start again
    lock.release()

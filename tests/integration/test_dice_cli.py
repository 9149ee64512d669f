"""The dice as a user meets them: `companion run` on the virtual box, and `companion dice-sim`."""

import json
import re
import signal
import subprocess
import sys
import time
import urllib.request

from companion.config import load_settings
from companion.services import build_services


def wait_for(cond, timeout=15.0, what="condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = cond()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_the_default_services_run_the_virtual_box_through_the_reader_and_the_dashboard_can_press_roll(tmp_path):
    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path), "dice": {"sim_roll_ms": 30}})
    services = build_services(settings)
    services.start()
    try:
        dice = services.find("dice")
        assert services.find("dice-box") is not None
        wait_for(lambda: services.hub.status.get("dice", {}).get("firmware"), what="the box's HELLO")
        dice.press_roll()
        record = wait_for(lambda: [r for r in services.table.records() if r.type == "dice"], what="the roll")[0]
        ev = record.to_json()
        assert ev["source"] == "sim" and ev["seq"] == 1 and len(ev["faces"]) == 2 and ev["boot_id"]
        # the link counts the roll just after the table has recorded it: wait for the status to say so
        status = wait_for(lambda: (services.hub.status["dice"] if services.hub.status["dice"].get("rolls_recorded")
                                   else None), what="the status to count the roll")
        assert status["kind"] == "sim" and status["connected"] and status["rolls_recorded"] == 1
        assert services.table.state.throws == [ev["faces"]]  # East's throw (R17)
    finally:
        services.stop()


def companion(*args, **kw):
    return subprocess.Popen([sys.executable, "-m", "companion", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def test_companion_run_reads_rolls_from_dice_sim_over_tcp(tmp_path):
    sim = companion("dice-sim", "--tcp", "0", "--roll-ms", "30", "--seed", "5", stdin=subprocess.PIPE)
    run = None
    try:
        first = sim.stdout.readline()
        m = re.search(r"on (socket://[\d.]+:\d+)", first)
        assert m, first + (sim.stderr.read() if sim.poll() is not None else "")
        run = companion("run", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(tmp_path), "--dice", m[1])
        url = re.search(r"http://[\d.:]+", run.stdout.readline())[0]

        def dice_events():
            with urllib.request.urlopen(f"{url}/api/events", timeout=5) as r:
                return [e for e in json.load(r) if e["type"] == "dice"]

        def connected():
            sim.stdin.write("r\n")  # press ROLL once the reader is there (earlier presses also count)
            sim.stdin.flush()
            return dice_events()

        events = wait_for(connected, what="a roll in /api/events")
        e = events[0]
        assert e["source"] == "serial" and isinstance(e["boot_id"], str) and e["seq"] >= 1
        assert all(1 <= f <= 6 for f in e["faces"])
        # one read for both sides: presses still queued may record another roll between two reads
        recorded = dice_events()
        assert len({(x["boot_id"], x["seq"]) for x in recorded}) == len(recorded)
    finally:
        for p in (run, sim):
            if p is not None:
                p.send_signal(signal.SIGTERM)
                p.communicate(timeout=20)
    assert sim.returncode == 0 and run.returncode == 0


def test_dice_sim_prints_its_pty_and_rolls_on_r(tmp_path):
    import serial

    from companion.hardware.dice.protocol import Roll, frame, parse

    sim = companion("dice-sim", "--roll-ms", "30", "--link", str(tmp_path / "box"), stdin=subprocess.PIPE)
    try:
        first = sim.stdout.readline()
        assert str(tmp_path / "box") in first
        with serial.serial_for_url(str(tmp_path / "box"), baudrate=115200, timeout=0.2) as port:
            sim.stdin.write("r\n")
            sim.stdin.flush()
            deadline, roll = time.monotonic() + 10, None
            while roll is None and time.monotonic() < deadline:
                for line in port.readlines():
                    if line.startswith(b"$ROLL,"):
                        roll = parse(line)
            assert isinstance(roll, Roll)
            port.write(frame("ACK", roll.boot_id, roll.seq))
            time.sleep(0.2)
    finally:
        sim.stdin.write("q\n")
        sim.stdin.flush()
        out, err = sim.communicate(timeout=20)
    assert sim.returncode == 0, err
    faces = " ".join(map(str, roll.faces))
    assert f"rolled {faces}   (boot {roll.boot_id}, seq {roll.seq})" in out
    assert f"acknowledged by the host (seq {roll.seq})" in out
    assert not (tmp_path / "box").exists()  # the symlink is removed on exit


def test_the_dice_benchmark_prints_measured_figures():
    r = subprocess.run([sys.executable, "-m", "companion", "bench", "dice", "--rolls", "10", "--lines", "200",
                        "--roll-lines", "10", "--json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    figures = json.loads(r.stdout)
    assert figures["latency"]["rolls"] == 10
    assert 0 < figures["latency"]["p50_ms"] <= figures["latency"]["p99_ms"]
    assert figures["reader"]["lines"] == 200 and figures["recording"]["lines"] == 10

"""Broker logins per table (`companion club-accounts`) on a real Mosquitto: each table publishes
only as itself, anonymous clients are refused, and the hub still gets everything."""

from __future__ import annotations

import time

import paho.mqtt.client as mqtt
import pytest
from click.testing import CliRunner
from test_club import FakeTable, settle

from companion.cli import main
from companion.club import protocol as p
from companion.club.accounts import parse_tables, password_line
from companion.club.broker import LocalMosquitto, free_port, mosquitto_binary
from companion.club.hub import ClubHub
from companion.config import load_settings

pytestmark = pytest.mark.skipif(mosquitto_binary() is None,
                                reason="needs Mosquitto (Debian: apt install mosquitto); .ci/run installs it")


def test_table_lists():
    assert parse_tables("1-3,7") == ["1", "2", "3", "7"]
    assert parse_tables("A1, A2,A1") == ["A1", "A2"]
    for bad in ("", "3-1", "a/b", "hub"):
        with pytest.raises(ValueError):
            parse_tables(bad)


def test_password_lines_are_mosquitto_2_hashes():
    line = password_line("1", "secret", salt=b"0123456789ab")
    user, _, rest = line.partition(":")
    assert user == "1" and rest.startswith("$7$101$") and "secret" not in line


def test_each_table_publishes_only_as_itself(tmp_path):
    port = free_port()
    out = tmp_path / "accounts"
    r = CliRunner().invoke(main, ["club-accounts", "--tables", "1-2", "--broker", f"mqtt://127.0.0.1:{port}",
                                  "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert (out / "club.passwd").stat().st_mode & 0o077 == 0
    hub_pw = dict(line.split("=", 1) for line in (out / "hub.env").read_text().split())
    extra = ["allow_anonymous false", f"password_file {out / 'club.passwd'}", f"acl_file {out / 'club.acl'}"]
    with LocalMosquitto(port, extra=extra) as broker:
        hub = ClubHub(broker.url, tmp_path / "hub", username="hub", password=hub_pw["COMPANION_HUB_PASSWORD"])
        hub.start()
        tables = []
        try:
            for t in ("1", "2"):
                settings = load_settings(out / "tables" / f"{t}.toml", env={}).club
                table = FakeTable(tmp_path / f"t{t}", t, broker.url)
                table.publisher = None
                from companion.club.publisher import ClubPublisher

                table.publisher = ClubPublisher(table.store, table.bus, settings)
                table.publisher.start()
                tables.append(table)
                table.play(2)
            settle(hub, *tables)

            # table 2's login writing on table 1's topic: the broker drops it, the hub never sees it
            one_pw = load_settings(out / "tables" / "2.toml", env={}).club.password
            rogue = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="rogue")
            rogue.username_pw_set("2", one_pw)
            rogue.connect("127.0.0.1", port)
            rogue.loop_start()
            last = tables[0].store.last_id()
            rogue.publish(p.events_topic("1"), p.encode(p.EventMessage(
                table="1", seq=last + 1, prev=last, game=1, at="2026-01-01T00:00:00+00:00",
                event=p.msgspec.Raw(b'{"type":"hand_drawn"}'))), qos=1).wait_for_publish(5)
            tables[0].play(1)  # its own next event comes after the rogue one would have
            settle(hub, *tables)
            assert hub.tables["1"].gaps == 0
            rogue.loop_stop()
            rogue.disconnect()

            # no login: refused, and the publisher says why
            anonymous = FakeTable(tmp_path / "t3", "3", broker.url).connect()
            tables.append(anonymous)
            deadline = time.monotonic() + 10
            while "refused" not in (anonymous.publisher.status().get("error") or ""):
                assert time.monotonic() < deadline, anonymous.publisher.status()
                time.sleep(0.05)
            assert "3" not in hub.tables
        finally:
            for t in tables:
                t.close()
            hub.stop()


@pytest.mark.skipif(__import__("shutil").which("systemd-analyze") is None,
                    reason="systemd-analyze not installed (CI installs it)")
def test_the_hub_unit_passes_systemd_analyze_verify(tmp_path):
    """deploy/companion-hub.service, verified as the companion's own unit is: in a root holding the
    system's units, an executable where ExecStart points and the environment file it reads."""
    import shutil
    import subprocess
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    root = tmp_path / "root"
    shutil.copytree("/usr/lib/systemd/system", root / "usr/lib/systemd/system", symlinks=True)
    unit = root / "etc/systemd/system/companion-hub.service"
    unit.parent.mkdir(parents=True)
    shutil.copy(repo / "deploy/companion-hub.service", unit)
    exe = root / "opt/companion/venv/bin/companion"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    (root / "etc/companion").mkdir(parents=True)
    (root / "etc/companion/hub.env").write_text("COMPANION_HUB_USERNAME=hub\n")
    r = subprocess.run(["systemd-analyze", f"--root={root}", "verify", "/etc/systemd/system/companion-hub.service"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr.strip() == "", r.stderr
    text = unit.read_text().splitlines()
    assert any(line.startswith("ExecStart=") and " hub --broker mqtt://127.0.0.1:1883" in line for line in text)
    for line in ("EnvironmentFile=/etc/companion/hub.env", "StateDirectory=companion-hub", "Restart=on-failure",
                 "NoNewPrivileges=yes", "ProtectSystem=strict"):
        assert line in text, line

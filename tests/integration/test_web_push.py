"""Live updates over a real waitress server: snapshot, push, resume by last id, warnings, limits."""

from __future__ import annotations

import threading
import time

import pytest

from companion.config import load_settings
from companion.services import build_services
from companion.web.client import DashboardClient
from companion.web.server import add_dashboard

CODE = "PUSH22"


@pytest.fixture
def server(tmp_path):
    settings = load_settings(env={}, overrides={
        "data_dir": str(tmp_path), "server": {"host": "127.0.0.1", "port": 0, "table_code": CODE, "threads": 13}})
    services = build_services(settings)
    web = add_dashboard(services)
    services.start()
    yield services, f"http://127.0.0.1:{web.port}"
    services.stop()


def read_until(stream, predicate, timeout=5.0):
    """Events from `stream` until one satisfies `predicate` (read in a thread, bounded in time)."""
    seen, found = [], threading.Event()

    def reader():
        for ev in stream:
            seen.append(ev)
            if predicate(ev):
                found.set()
                return

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    assert found.wait(timeout), f"not seen in {timeout}s: {[(e.event, e.id) for e in seen]}"
    return seen


def test_stream_starts_with_the_whole_state_and_pushes_each_result(server):
    services, base = server
    phone = DashboardClient(base)
    stream = phone.stream().open()
    try:
        first = read_until(stream, lambda e: e.event == "state")
        assert first[-1].data["state"]["game"] == services.table.state.game
        player = DashboardClient(base)
        player.join(CODE)
        start = time.monotonic()
        record = player.post("/api/hands", {"result": "win", "winner": "S", "from": "E"}).data["record"]
        seen = read_until(stream, lambda e: e.event == "state" and (e.data.get("event") or {}).get("id") == record["id"])
        assert time.monotonic() - start < 2.0
        assert seen[-1].data["state"]["history"][-1]["winner"] == "South"
    finally:
        stream.close()


def test_resume_from_last_id_gets_what_was_missed(server):
    services, base = server
    player = DashboardClient(base)
    player.join(CODE)
    phone = DashboardClient(base)
    stream = phone.stream().open()
    read_until(stream, lambda e: e.event == "state")
    stream.close()
    last = stream.last_id
    services.hub.warn("rethrow", "throw the cocked die again")
    r1 = player.post("/api/hands", {"result": "draw"}).data["record"]["id"]
    r2 = player.post("/api/hands", {"result": "draw"}).data["record"]["id"]
    resumed = phone.stream(last).open()
    try:
        seen = read_until(resumed, lambda e: e.event == "state")
        kinds = [e.event for e in seen]
        assert "warning" in kinds  # warnings missed while asleep arrive too
        assert seen[-1].data["event"]["id"] == r2  # only the latest full state, not every one
        assert all((e.data.get("event") or {}).get("id") != r1 for e in seen if e.event == "state")
    finally:
        resumed.close()


def test_resume_from_an_unknown_id_gets_the_whole_state(server):
    services, base = server
    stream = DashboardClient(base).stream(last_id=10**9).open()  # e.g. an id from before a restart
    try:
        seen = read_until(stream, lambda e: e.event == "state")
        assert seen[-1].data["event"] is None and seen[-1].data["state"]["game"] == services.table.state.game
    finally:
        stream.close()


def test_warnings_and_link_status_reach_every_phone(server):
    services, base = server
    phones = [DashboardClient(base).stream().open() for _ in range(3)]
    try:
        for s in phones:
            read_until(s, lambda e: e.event == "state")
        services.hub.set_status("dice", {"kind": "sim", "connected": True})
        services.hub.warn("wrong_break", "the break should be at South's 16th stack — you broke at the 15th",
                          expected=["S", 16], observed=["S", 15])
        for s in phones:
            seen = read_until(s, lambda e: e.event == "warning")
            assert seen[-1].data["code"] == "wrong_break" and "16th" in seen[-1].data["message"]
            assert any(e.event == "status" and e.data.get("dice", {}).get("connected") for e in seen)
    finally:
        for s in phones:
            s.close()


def test_a_refused_dice_roll_is_explained_in_each_phones_language(server):
    """The reason travels as the engine's template; each stream fills it in in its phone's language."""
    from companion.hardware.dice.rolls import record_roll

    services, base = server
    german, english = DashboardClient(base, language="de").stream().open(), DashboardClient(base).stream().open()
    try:
        for s in (german, english):
            read_until(s, lambda e: e.event == "state")
        outcome = record_roll(services.table, [3, 4, 5], source="sim")  # a classical game throws two dice
        assert outcome.status == "refused"
        said = {}
        for name, s in (("de", german), ("en", english)):
            said[name] = read_until(s, lambda e: e.event == "warning")[-1].data
        assert said["en"]["reason"] == outcome.reason and said["en"]["message"].endswith(outcome.reason)
        assert said["de"]["code"] == "dice_refused" and said["de"]["faces"] == [3, 4, 5]
        assert said["de"]["reason"] != outcome.reason and "Würfel" in said["de"]["reason"], said["de"]["reason"]
        assert said["de"]["message"] == said["en"]["message"]  # the English text stays for the logs and lamps
    finally:
        german.close()
        english.close()


def test_too_many_streams_are_refused_with_retry_after(server):
    services, base = server
    limit = services.find("web").app.extensions["companion_web"].broker.max_streams
    streams = [DashboardClient(base).stream().open() for _ in range(limit)]
    try:
        with pytest.raises(ConnectionError, match="503"):
            DashboardClient(base).stream().open()
        assert DashboardClient(base).get("/api/state").status == 200  # ordinary requests still served
    finally:
        for s in streams:
            s.close()


def test_stopping_the_server_ends_the_streams(tmp_path):
    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path), "server": {"table_code": CODE, "threads": 6}})
    services = build_services(settings)
    web = add_dashboard(services, "127.0.0.1", 0)
    services.start()
    stream = DashboardClient(f"http://127.0.0.1:{web.port}").stream().open(timeout=10)
    read_until(stream, lambda e: e.event == "state")
    ended = threading.Event()
    threading.Thread(target=lambda: (list(stream), ended.set()), daemon=True).start()
    start = time.monotonic()
    services.stop()
    assert ended.wait(5) and time.monotonic() - start < 5


def test_a_phone_that_hangs_up_frees_its_stream_within_seconds(server):
    services, base = server
    broker = services.find("web").app.extensions["companion_web"].broker
    stream = DashboardClient(base).stream().open()
    read_until(stream, lambda e: e.event == "state")
    assert broker.open_streams == 1
    stream.close()
    deadline = time.monotonic() + 5
    while broker.open_streams and time.monotonic() < deadline:
        time.sleep(0.05)
    assert broker.open_streams == 0  # long before the 15 s keep-alive would have found out


def read_to_end(stream, timeout=5.0):
    """Every event until the server ends `stream`; fails if it is still open after `timeout`."""
    seen, ended = [], threading.Event()

    def reader():
        try:
            for ev in stream:
                seen.append(ev)
        except Exception:  # noqa: BLE001 - closed under the reader by the test, not ended by the server
            return
        ended.set()

    threading.Thread(target=reader, daemon=True).start()
    assert ended.wait(timeout), f"still open after {timeout}s: {[(e.event, e.id) for e in seen]}"
    return seen


def test_a_stream_ends_when_its_session_may_no_longer_read(tmp_path):
    """With reads behind the code, leaving or a new table code ends the session's open stream too."""
    host_code = "HOSTCODE9"
    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path), "server": {
        "host": "127.0.0.1", "port": 0, "table_code": "", "host_code": host_code, "threads": 13,
        "require_code_for_reads": True}})
    services = build_services(settings)
    web = add_dashboard(services)
    services.start()
    base = f"http://127.0.0.1:{web.port}"
    phones = {who: DashboardClient(base) for who in ("host", "player", "leaver")}
    streams = {}
    try:
        code = web.app.extensions["companion_web"].access.table_code
        phones["host"].join(host_code, role="host")
        phones["player"].join(code, player=1)
        phones["leaver"].join(code, player=2)
        streams = {who: phone.stream().open() for who, phone in phones.items()}
        for s in streams.values():
            read_until(s, lambda e: e.event == "state")

        assert phones["leaver"].post("/api/leave").status == 200
        phones["host"].post("/api/hands", {"result": "draw"})
        assert not [e for e in read_to_end(streams["leaver"]) if e.event == "state"]
        assert phones["leaver"].get("/api/state").status == 401

        assert phones["host"].post("/api/table-code").status == 200
        draw = phones["host"].post("/api/hands", {"result": "draw"}).data["record"]["id"]
        assert all(e.data["event"]["id"] < draw for e in read_to_end(streams["player"]) if e.event == "state")
        assert phones["player"].get("/api/state").status == 401
        # the host's code did not change: its stream goes on
        read_until(streams["host"], lambda e: e.event == "state" and e.data["event"]["id"] == draw)
    finally:
        for s in streams.values():
            s.close()
        services.stop()

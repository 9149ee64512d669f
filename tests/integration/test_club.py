"""The club over a real Mosquitto: every table's events reach the hub once and in order, whatever
fails on the way (docs/club.md). Each test starts its own broker on a free 127.0.0.1 port."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from companion.club import protocol as p
from companion.club.broker import LocalMosquitto, mosquitto_binary
from companion.club.hub import ClubHub
from companion.club.publisher import ClubPublisher
from companion.club.web import create_hub_app
from companion.config import ClubSettings
from companion.game.events import DiceThrown, HandDrawn, HandWon
from companion.hub import Hub
from companion.rules.variant import load_variant
from companion.storage import EventStore
from companion.table import Table

pytestmark = pytest.mark.skipif(mosquitto_binary() is None,
                                reason="needs Mosquitto (Debian: apt install mosquitto); .ci/run installs it")

WAIT = 20.0  # seconds a test waits for the club to settle before it fails


@pytest.fixture
def broker():
    with LocalMosquitto() as b:
        yield b


class FakeTable:
    """A table as the companion runs it: its own game log, the game, and the club publisher."""

    def __init__(self, folder: Path, table_id: str, broker_url: str, players=None) -> None:
        self.folder, self.table_id, self.url = folder, table_id, broker_url
        self.store = EventStore(folder / "games.sqlite3")
        self.bus = Hub()
        self.table = Table(self.store, self.bus)
        if self.table.state is None:
            self.table.start_game(load_variant("classical", []),
                                  players or [f"{table_id}{n}" for n in ("Ann", "Bob", "Cat", "Dan")])
        self.publisher: ClubPublisher | None = None
        self.rng = random.Random(table_id)

    def connect(self) -> FakeTable:
        self.publisher = ClubPublisher(self.store, self.bus, ClubSettings(broker=self.url, table_id=self.table_id,
                                                                          resend_after=0.5))
        self.publisher.start()
        return self

    def disconnect(self) -> None:
        self.publisher.stop()
        self.publisher = None

    def restart(self) -> None:
        """The table switched off and on: a fresh store, game and publisher on the same log."""
        if self.publisher:
            self.disconnect()
        self.store.close()
        self.__init__(self.folder, self.table_id, self.url)
        self.connect()

    def play(self, hands: int) -> None:
        """Whole hands: the throws the game asks for, then a win or a draw (an undo now and then)."""
        for _ in range(hands):
            if self.table.state.game_over:
                return
            while self.table.state.expected_throw():
                self.table.record(DiceThrown(faces=[self.rng.randint(1, 6) for _ in range(2)]))
            if self.rng.random() < 0.2:
                self.table.record(HandDrawn())
            else:
                rec = self.table.record(HandWon(winner=self.rng.randrange(4), value=self.rng.randrange(8, 60, 2)))
                if self.rng.random() < 0.2:
                    self.table.undo(rec.id)
                    self.table.record(HandWon(winner=self.rng.randrange(4), value=20))

    def log(self) -> list[tuple]:
        return [tuple(r) for r in self.store.raw_events(after=0, limit=1_000_000)]

    def close(self) -> None:
        if self.publisher:
            self.disconnect()
        self.store.close()


@pytest.fixture
def tables(tmp_path, broker):
    made: list[FakeTable] = []

    def make(table_id: str, *, connect: bool = True) -> FakeTable:
        t = FakeTable(tmp_path / f"table-{table_id}", table_id, broker.url)
        made.append(t)
        return t.connect() if connect else t

    yield make
    for t in made:
        t.close()


@pytest.fixture
def hubs(tmp_path, broker):
    made: list[ClubHub] = []

    def make(folder: str = "hub") -> ClubHub:
        h = ClubHub(broker.url, tmp_path / folder)
        h.start()
        made.append(h)
        return h

    yield make
    for h in made:
        if h._thread is not None:
            h.stop()


def settle(hub: ClubHub, *tables: FakeTable, timeout: float = WAIT) -> None:
    """Wait (on the hub's change signal) until it holds every table's whole log; then check that it
    holds each event exactly once, in order, as the table wrote it."""
    deadline = time.monotonic() + timeout
    version = -1
    while True:
        if all(t.table_id in hub.tables and hub.tables[t.table_id].last_seq == t.store.last_id() for t in tables):
            break
        left = deadline - time.monotonic()
        if left <= 0:
            have = {t.table_id: (hub.tables[t.table_id].last_seq if t.table_id in hub.tables else None,
                                 t.store.last_id()) for t in tables}
            pytest.fail(f"the hub did not catch up in {timeout} s: (hub, table) {have}")
        version = hub.wait_change(version, min(left, 0.5))
    for t in tables:
        got = [(seq, game, at, payload) for seq, game, at, payload in hub.read_rows(t.table_id)]
        assert got == t.log(), f"table {t.table_id}: the hub's copy differs from the table's log"


def until(hub: ClubHub, condition, timeout: float = WAIT) -> None:
    """Wait on the hub's change signal until `condition()` holds."""
    deadline, version = time.monotonic() + timeout, -1
    while not condition():
        assert time.monotonic() < deadline, "the hub never got there"
        version = hub.wait_change(version, 0.5)


def acked_by_table(t: FakeTable, timeout: float = WAIT) -> None:
    """Wait until the table heard the hub's acknowledgement of its whole log and kept it."""
    deadline = time.monotonic() + timeout
    while t.store.club_acked(t.publisher.club_key) != t.store.last_id():
        assert time.monotonic() < deadline, "the table never kept the hub's acknowledgement"
        time.sleep(0.02)


# --- the plain path ------------------------------------------------------------------------------------
def test_without_a_club_no_publisher_is_built(tmp_path):
    from companion.config import load_settings
    from companion.services import build_services

    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path), "camera": {"source": "off"}})
    services = build_services(settings)
    try:
        assert services.find("club") is None
        assert not settings.club.enabled
    finally:
        services.stop()


def test_with_a_club_the_services_publish_and_report_status(tmp_path, broker, hubs):
    from companion.config import load_settings
    from companion.health import live_report
    from companion.services import build_services

    hub = hubs()
    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path), "camera": {"source": "off"},
                                                "club": {"broker": broker.url, "table_id": "A1"}})
    services = build_services(settings)
    services.start()
    try:
        deadline = time.monotonic() + WAIT
        while services.hub.status.get("club", {}).get("acked") != services.store.last_id():
            assert time.monotonic() < deadline, services.hub.status.get("club")
            time.sleep(0.02)
        [check] = [c for c in live_report(services).checks if c.name == "club"]
        assert check.level == "ok" and "table A1" in check.summary
        assert hub.tables["A1"].last_seq == services.store.last_id()
    finally:
        services.stop()


def test_tables_reach_the_hub_and_the_api_shows_their_own_scores(hubs, tables):
    hub = hubs()
    one, two = tables("1"), tables("2")
    one.play(6)
    two.play(3)
    settle(hub, one, two)
    client = create_hub_app(hub).test_client()
    rows = {r["table"]: r for r in client.get("/api/tables").get_json()}
    for t in (one, two):
        own = t.table.state.to_json()
        row = rows[t.table_id]
        assert row["scores"] == own["scores"] and row["hand"] == own["hand"] and row["east"] == own["east"]
        assert row["round"] == own["round"] and row["game_over"] == own["game_over"]
        assert row["variant"] == "classical" and row["last_seq"] == t.store.last_id()
        state = client.get(f"/api/tables/{t.table_id}").get_json()["state"]
        assert state["history"] == own["history"]
    standings = client.get("/api/players").get_json()
    assert len(standings) == 8 and [r["rank"] for r in standings] == list(range(1, 9))
    assert sum(r["total"] for r in standings) == sum(sum(t.table.state.scores) for t in (one, two))
    assert client.get("/api/tables/nope").status_code == 404


# --- faults ------------------------------------------------------------------------------------------
def test_broker_killed_and_restarted_mid_game(broker, hubs, tables):
    hub = hubs()
    one, two = tables("1"), tables("2")
    one.play(2)
    two.play(2)
    broker.kill()  # a power cut: in-flight messages and the hub's queued session are gone
    one.play(4)  # the tables play on, their logs are the queue
    two.play(4)
    assert one.publisher.status()["pending"] > 0
    broker.start()
    settle(hub, one, two)


def test_table_offline_then_catching_up(hubs, tables):
    hub = hubs()
    one = tables("1")
    one.play(1)
    settle(hub, one)
    one.disconnect()  # Wi-Fi gone: a whole round played meanwhile
    hub.wait_change(-1, 0)
    one.play(12)
    assert hub.tables["1"].online is False
    assert any(w["code"] == "offline" for w in hub.tables["1"].warnings())
    one.connect()
    settle(hub, one)
    assert hub.tables["1"].online is True
    acked_by_table(one)


def test_duplicates_and_a_gap_are_handled(broker, hubs, tables):
    hub = hubs()
    one = tables("1")
    one.play(3)
    settle(hub, one)
    rows = one.log()
    other = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="replayer")
    other.connect("127.0.0.1", broker.port)
    other.loop_start()
    try:
        prev = 0
        for seq, game, at, payload in rows:  # every event delivered again (a broker's redelivery)
            other.publish(p.events_topic("1"), p.encode(p.EventMessage(
                table="1", seq=seq, prev=prev, game=game, at=at, event=p.msgspec.Raw(payload.encode()))),
                qos=1).wait_for_publish(5)
            prev = seq
        one.play(2)
        # an event from the future (its predecessor lost on the way): the hub asks again, never stores it
        future = one.store.last_id() + 5
        other.publish(p.events_topic("1"), p.encode(p.EventMessage(
            table="1", seq=future, prev=future - 1, game=rows[0][1], at=rows[0][2],
            event=p.msgspec.Raw(rows[-1][3].encode()))), qos=1).wait_for_publish(5)
        one.play(1)
        settle(hub, one)
        assert hub.tables["1"].gaps >= 1
    finally:
        other.loop_stop()
        other.disconnect()


def test_table_restarted_with_a_full_queue(broker, hubs, tables):
    hub = hubs()
    one = tables("1")
    one.play(1)
    settle(hub, one)
    broker.stop()
    one.play(14)  # the queue: many hands while the broker is away
    one.restart()  # and the table switched off and on before the broker is back
    one.play(1)
    broker.start()
    settle(hub, one)
    acked_by_table(one)
    # started again on an acknowledged log, it sends nothing the hub has already
    dups = hub.duplicates
    one.restart()
    one.play(1)
    settle(hub, one)
    assert hub.duplicates == dups


def test_hub_restarted_and_one_that_lost_its_data(broker, hubs, tables):
    hub = hubs()
    one, two = tables("1"), tables("2")
    one.play(2)
    settle(hub, one)
    hub.stop()  # the broker keeps the hub's session: what comes meanwhile waits there
    one.play(3)
    two.play(3)
    hub = hubs()  # the same data folder
    settle(hub, one, two)
    for t in (one, two):  # folded again from its own database at start, as the table folds its log
        assert hub.table_state(t.table_id)["state"]["scores"] == t.table.state.to_json()["scores"]
    one.play(1)
    settle(hub, one)
    hub.stop()
    fresh = hubs("another-hub")  # a hub with nothing: the tables send their whole logs again
    one.play(1)
    settle(fresh, one, two)


def test_a_new_log_under_a_table_id_the_hub_knows_is_said_not_mixed_in(tmp_path, broker, hubs, tables):
    """A table's SD card replaced: its new log's ids are ones the hub holds for that table. The hub
    keeps what it has; the table's link status says why nothing of the new log arrives."""
    hub = hubs()
    old = tables("1")
    old.play(4)
    settle(hub, old)
    kept = hub.read_rows("1")
    old.close()
    new = FakeTable(tmp_path / "new-card", "1", broker.url).connect()
    try:
        new.play(1)
        deadline = time.monotonic() + WAIT
        while "more than this log" not in (new.publisher.status().get("error") or ""):
            assert time.monotonic() < deadline, new.publisher.status()
            time.sleep(0.02)
        assert new.publisher.status()["ok"] is False
        assert hub.read_rows("1") == kept
    finally:
        new.close()


def test_an_event_this_hub_cannot_read_is_stored_and_does_not_hold_the_table_up(broker, hubs, tables):
    """A table of a newer version sends an event type this hub does not know: it is stored and
    acknowledged (the table goes on), said on the table's card, and shown by the events API."""
    hub = hubs()
    donor = tables("1")
    settle(hub, donor)
    start = donor.log()[0]
    sender = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="newer-table")
    sender.connect("127.0.0.1", broker.port)
    sender.loop_start()
    try:
        for seq, prev, payload in ((1, 0, start[3]), (2, 1, '{"type":"from_a_newer_version","x":1}')):
            sender.publish(p.events_topic("9"), p.encode(p.EventMessage(
                table="9", seq=seq, prev=prev, game=1, at=start[2], event=p.msgspec.Raw(payload.encode()))),
                qos=1).wait_for_publish(5)
        until(hub, lambda: "9" in hub.tables and hub.tables["9"].last_seq == 2)
    finally:
        sender.loop_stop()
        sender.disconnect()
    assert [r[0] for r in hub.read_rows("9")] == [1, 2]
    assert any(w["code"] == "unreadable" for w in hub.tables["9"].warnings())
    events = create_hub_app(hub).test_client().get("/api/tables/9/events").get_json()
    assert [e["type"] for e in events] == ["game_started", "from_a_newer_version"]


def test_the_stream_of_changes_sends_only_the_tables_that_changed(hubs, tables):
    hub = hubs()
    one, two = tables("1"), tables("2")
    one.play(1)
    two.play(1)
    settle(hub, one, two)
    response = create_hub_app(hub).test_client().get("/api/tables/stream?changes=1", buffered=False)
    chunks = iter(response.response)
    assert next(chunks) == b"retry: 2000\n\n"
    first = next(chunks).decode()
    assert first.startswith("event: tables\n")
    assert [r["table"] for r in json.loads(first.split("data: ", 1)[1])] == ["1", "2"]
    two.play(1)
    settle(hub, two)
    while True:  # the hub may bump its version more than once on the way (acks, duplicates)
        chunk = next(chunks).decode()
        assert chunk.startswith("event: rows\n"), chunk
        rows = json.loads(chunk.split("data: ", 1)[1])
        assert {r["table"] for r in rows} == {"2"}
        if rows[0]["last_seq"] == two.store.last_id():
            break
    response.close()

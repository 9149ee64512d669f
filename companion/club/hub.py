"""The club hub: every table's game log gathered from the broker, each event once and in order.

The hub subscribes to every table's events (QoS 1, a persistent session, so the broker keeps
what comes while the hub is away) and writes them to its own SQLite (`club.sqlite3`), per table
by sequence number. An event is taken only when it follows the last one stored (`prev`); an
older one is a duplicate and ignored, a later one means something in between was lost: the hub
asks the table to send again from its last stored event. After each batch is committed (never
before) the hub acknowledges, retained, on the table's ack topic: that is the table's mark.
Each table's latest game is folded with the game's own fold, so the hub shows what the table's
own `/api/state` shows.
"""

from __future__ import annotations

import logging
import queue
import sqlite3
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from companion.club import protocol as p
from companion.club.mqtt import make_client, reason_text
from companion.config import parse_broker
from companion.errors import CompanionError
from companion.game.events import Recorded, decode
from companion.game.fold import GameState, fold
from companion.worker import Worker

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    tbl      TEXT    NOT NULL,          -- the table's id in the club
    seq      INTEGER NOT NULL,          -- the event's id in the table's own log
    prev     INTEGER NOT NULL,          -- the id of the table's event before it (0: the first)
    game     INTEGER NOT NULL,          -- the table's id of the game's game_started event
    at       TEXT    NOT NULL,          -- when the table wrote it, UTC ISO 8601
    payload  TEXT    NOT NULL,          -- the event as the table stored it
    received TEXT    NOT NULL,          -- when the hub stored it
    PRIMARY KEY (tbl, seq)
) WITHOUT ROWID;
"""

#: a table not heard from for this long is shown as quiet on the projector
QUIET_AFTER = 600.0
#: the least time between two requests to a table to send again from the same event
RESEND_EVERY = 1.0


class HubError(CompanionError, RuntimeError):
    """The hub cannot open its data or reach its broker."""


class HubStore:
    """The hub's SQLite: every table's events, by (table, seq). Used by the ingest thread only
    (and at start), so one connection and no lock."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")  # acknowledged means on disk: the table forgets nothing,
            self._db.executescript(SCHEMA)  # but it sends nothing again that the hub acknowledged
        except sqlite3.DatabaseError as e:
            raise HubError(f"cannot open the hub's database {path}: {e}") from None
        self.path = path

    def last_seqs(self) -> dict[str, int]:
        return dict(self._db.execute("SELECT tbl, MAX(seq) FROM events GROUP BY tbl"))

    def rows(self, table: str, *, game: int | None = None, after: int = 0) -> list[tuple]:
        """(seq, game, at, payload) of one table, oldest first."""
        sql, args = "SELECT seq, game, at, payload FROM events WHERE tbl = ? AND seq > ?", [table, after]
        if game is not None:
            sql += " AND game = ?"
            args.append(game)
        return self._db.execute(sql + " ORDER BY seq", args).fetchall()

    def insert(self, rows: list[tuple]) -> None:
        """Rows (tbl, seq, prev, game, at, payload, received) in one transaction."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.executemany("INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    def count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM events").fetchone()[0]

    def close(self) -> None:
        self._db.close()


def _readable(table: str, seq: int, game: int, at: datetime, payload: str, view: TableView) -> Recorded | None:
    """The event as a record to fold, or None (said on the table's card) when this hub cannot read it."""
    try:
        return Recorded(id=seq, game=game, at=at, event=decode(payload))
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError) as e:
        log.warning("club hub: event %s of table %s is stored but cannot be read by this hub (%s)", seq, table, e)
        view.unreadable += 1
        return None


@dataclass
class GameSummary:
    """One game of one table, as the standings need it."""

    table: str
    game: int
    players: list[str]
    start_score: int
    scores: list[int]
    game_over: bool
    wins: dict[str, int]
    hands: int
    started: str


@dataclass
class TableView:
    """One table as the hub knows it: its stored sequence, its latest game folded, its presence."""

    table: str
    last_seq: int = 0
    online: bool | None = None
    last_heard: float = 0.0
    game: int | None = None  # the game written to last (a table may reopen an earlier one)
    by_game: dict[int, list[Recorded]] = field(default_factory=dict)
    state: GameState | None = None
    error: str | None = None
    games: dict[int, GameSummary] = field(default_factory=dict)
    duplicates: int = 0
    gaps: int = 0
    unreadable: int = 0  # events stored that this hub cannot read (a table of a newer version)
    asked_resend: tuple[int, float] = (-1, 0.0)  # (from which seq, when) the last request to send again
    _summary: tuple | None = field(default=None, repr=False)

    def add(self, record: Recorded) -> None:
        self.by_game.setdefault(record.game, []).append(record)
        self.game = record.game

    @property
    def records(self) -> list[Recorded]:
        return self.by_game.get(self.game, []) if self.game is not None else []

    def refold(self) -> None:
        """The state of the game written to last, from its events (the game's own pure fold)."""
        if not self.records:
            return
        try:
            self.state = fold(self.records)
            self.error = None
        except CompanionError as e:  # a log that does not begin with its game's start
            self.error = str(e)
            return
        s = self.state
        wins: dict[str, int] = {}
        for h in s.history:
            if h.get("winner"):
                wins[h["winner"]] = wins.get(h["winner"], 0) + 1
        self.games[s.game] = GameSummary(self.table, s.game, list(s.players), s.variant.settlement.start_score,
                                         list(s.scores), s.game_over, wins, len(s.history),
                                         self.records[0].at.isoformat())

    def warnings(self) -> list[dict[str, Any]]:
        """What the projector flags for this table, each {"code", "message"}."""
        out = []
        if self.online is False:
            out.append({"code": "offline", "message": "table offline (its events come when it is back)"})
        elif self.last_heard and time.time() - self.last_heard > QUIET_AFTER:
            out.append({"code": "quiet", "message": f"nothing heard for {int((time.time() - self.last_heard) // 60)} min"})
        if self.error:
            out.append({"code": "log", "message": self.error})
        if self.unreadable:
            out.append({"code": "unreadable", "message": f"{self.unreadable} event(s) this hub cannot read: "
                        "update the hub (they are stored)"})
        s = self.state
        if s is not None:
            if s.pending:
                out.append({"code": "rethrow", "message": "dice to throw again"})
            check = s.break_check()
            if check and not check["ok"]:
                out.append({"code": "wrong_break", "message": "wall broken elsewhere than the dice say"})
            if s.unassigned:
                out.append({"code": "unassigned_rolls", "message": f"{len(s.unassigned)} roll(s) to assign"})
            if s.ignored:
                out.append({"code": "ignored", "message": f"{len(s.ignored)} event(s) set aside"})
        return out

    def summary(self) -> dict[str, Any]:
        """The row of GET /api/tables: scores as the table's own /api/state shows them."""
        if self._summary is None or self._summary[0] is not self.state:
            self._summary = (self.state, self._state_summary())
        return {"table": self.table, "last_seq": self.last_seq, "online": self.online, **self._summary[1],
                "warnings": self.warnings()}

    def _state_summary(self) -> dict[str, Any]:
        s = self.state
        row: dict[str, Any] = {"variant": None, "hand": None, "round": None, "east": None, "prevalent": None,
                               "scores": {}, "game_over": None, "players": [], "phase": None}
        if s is not None:
            j = s.to_json()
            row.update(variant=j["variant"]["name"], hand=j["hand"], round=j["round"], east=j["east"],
                       prevalent=j["prevalent"], scores=j["scores"], game_over=j["game_over"],
                       players=j["players"], phase=j["phase"], game=j["game"], seat_winds=j["seat_winds"],
                       counter=j["counter"], hands_played=len(s.history))
        return row


class ClubHub(Worker):
    """Component "club-hub": the broker's subscriber, the ingest thread and the tables' live views."""

    name = "club-hub"
    thread_name = "club-ingest"

    def __init__(self, broker: str, data_dir: Path, *, username: str = "", password: str = "", tls: bool = False,
                 ca_file: str = "", client_id: str = "companion-hub") -> None:
        super().__init__()
        self.broker = broker
        self.host, self.port, url_tls = parse_broker(broker)
        self.data_dir = Path(data_dir)
        self.store = HubStore(self.data_dir / "club.sqlite3")
        self._client = make_client(client_id, username=username, password=password, tls=tls or url_tls,
                                   ca_file=ca_file, clean_session=False)  # the broker keeps what comes meanwhile
        self._client.max_inflight_messages_set(1000)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        self._inbox: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self.version = 0  # bumped on every change the pages show
        self.tables: dict[str, TableView] = {}
        self.connected = False
        self.error: str | None = None
        self.ingested = 0
        self.duplicates = 0
        self.acks_sent = 0
        #: per stored event, seconds (table's write -> sent, sent -> heard by the hub, heard -> shown):
        #: where a delay comes from, for `companion bench club` and /healthz
        self.delays: deque[tuple[float, float, float]] = deque(maxlen=20_000)
        self._load()

    # --- start-up: what the hub already has ---------------------------------------------------------
    def _load(self) -> None:
        for table, last in self.store.last_seqs().items():
            view = self.tables[table] = TableView(table, last_seq=last)
            for seq, game, at, payload in self.store.rows(table):
                record = _readable(table, seq, game, datetime.fromisoformat(at), payload, view)
                if record is not None:
                    view.add(record)
            latest = view.game
            for game in view.by_game:  # each game's summary for the standings, the latest last
                if game != latest:
                    view.game = game
                    view.refold()
            view.game = latest
            view.refold()

    def start(self) -> None:
        self._client.connect_async(self.host, self.port, keepalive=15)
        self._client.loop_start()
        super().start()

    def stop(self) -> None:
        self._stop.set()
        self._inbox.put(None)
        self._join()
        self._client.disconnect()
        self._client.loop_stop()
        with self._changed:
            self.version += 1
            self._changed.notify_all()
        self.store.close()

    # --- paho's callbacks ----------------------------------------------------------------------------
    def _on_connect(self, client, _u, _flags, reason_code, _props) -> None:
        if reason_code.is_failure:
            self.error = f"the broker refused the hub: {reason_text(reason_code)}"
            log.warning("club hub: %s", self.error)
            return
        client.subscribe([(p.EVENTS_ALL, 1), (p.STATUS_ALL, 1)])
        self.connected, self.error = True, None
        log.info("club hub: connected to %s", self.broker)
        self._inbox.put(("connected", None, None))
        self._bump()

    def _on_disconnect(self, _c, _u, _flags, reason_code, _props) -> None:
        self.connected = False
        if reason_code.value != 0:
            self.error = f"connection to {self.broker} lost: {reason_text(reason_code)}"
            log.warning("club hub: %s", self.error)
        self._bump()

    def _on_message(self, _c, _u, msg) -> None:
        self._inbox.put((msg.topic, msg.payload, time.time()))

    # --- ingest --------------------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                first = self._inbox.get(timeout=1.0)
            except queue.Empty:
                continue
            batch = [first]
            while len(batch) < 5000:  # drain what has come: one commit and one fold per table for all of it
                try:
                    batch.append(self._inbox.get_nowait())
                except queue.Empty:
                    break
            try:
                self._ingest([m for m in batch if m is not None])
            except Exception:
                log.exception("club hub: ingest failed; the tables send again what was not acknowledged")
                self._stop.wait(1.0)

    def _view(self, table: str) -> TableView:
        view = self.tables.get(table)
        if view is None:
            with self._lock:
                view = self.tables[table] = TableView(table)
        return view

    def _ingest(self, batch: list[tuple]) -> None:
        rows: list[tuple] = []
        ack: set[str] = set()
        resend: set[str] = set()
        touched: set[str] = set()
        received = datetime.now(UTC).isoformat()
        pending: dict[str, list[Recorded]] = {}
        timing: list[tuple[float, float, float]] = []
        last: dict[str, int] = {}  # each table's last seq with this batch: set on the views once committed
        for topic, payload, heard in batch:
            if topic == "connected":  # after a reconnect every table hears the hub's mark again
                ack.update(self.tables)
                continue
            table = p.table_of(topic)
            if table is None:
                continue
            if topic.endswith("/status"):
                try:
                    status = p.decode_status(payload) if payload else None
                except (msgspec.DecodeError, msgspec.ValidationError):
                    continue
                view = self._view(table)
                view.online = status.online if status else None
                view.last_heard = heard
                touched.add(table)
                # the hub's mark for every table it hears of (retained statuses come at each subscribe):
                # a hub that lost its data, or a new one, so gets even an idle table's log again
                ack.add(table)
                continue
            try:
                m = p.decode_event(payload)
                at = datetime.fromisoformat(m.at)
                raw = bytes(m.event).decode()
            except (msgspec.DecodeError, msgspec.ValidationError, ValueError, UnicodeDecodeError) as e:
                log.warning("club hub: table %s sent a message that cannot be read (%s); skipped", table, e)
                continue
            view = self._view(table)
            view.last_heard = heard
            if m.table != table:
                log.warning("club hub: an event of table %r on table %r's topic; skipped", m.table, table)
                continue
            have = last.get(table, view.last_seq)
            if m.seq <= have:
                view.duplicates += 1
                self.duplicates += 1
                ack.add(table)  # the table may have missed the ack: say it again
                continue
            if m.prev != have:  # something before it was lost: from the last stored again
                view.gaps += 1
                resend.add(table)
                continue
            rows.append((table, m.seq, m.prev, m.game, m.at, raw, received))
            last[table] = m.seq
            # stored even when this hub cannot read the event itself (a table of a newer version):
            # the log stays whole and the table is not held up; the game is folded once the hub is updated
            pending.setdefault(table, []).append(_readable(table, m.seq, m.game, at, raw, view))
            timing.append((at.timestamp(), m.sent, heard))
            ack.add(table)
        if rows:
            self.store.insert(rows)  # committed before any acknowledgement goes out
            self.ingested += len(rows)
        with self._lock:
            for table, records in pending.items():
                view = self.tables[table]
                view.last_seq = last[table]
                for r in records:
                    if r is not None:
                        view.add(r)
                view.refold()
            touched.update(pending)
        for table in sorted(ack | resend):
            view = self.tables[table]
            if table in resend and table not in pending:
                asked, when = view.asked_resend
                if asked == view.last_seq and time.monotonic() - when < RESEND_EVERY:
                    continue  # asked already; what is in flight is ignored until the table goes back
                view.asked_resend = (view.last_seq, time.monotonic())
                self._send_ack(table, view.last_seq, resend=True)
            else:
                self._send_ack(table, view.last_seq, resend=table in resend)
        shown = time.time()
        self.delays.extend((sent - at, heard - sent, shown - heard) for at, sent, heard in timing if sent)
        self._bump()  # also for duplicates and gaps: the counters the health page shows changed

    def _send_ack(self, table: str, acked: int, *, resend: bool = False) -> None:
        self._client.publish(p.ack_topic(table), p.encode(p.Ack(acked=acked, resend=resend)), qos=1, retain=True)
        self.acks_sent += 1

    def _bump(self) -> None:
        with self._changed:
            self.version += 1
            self._changed.notify_all()

    # --- what the pages read ---------------------------------------------------------------------------
    def wait_change(self, version: int, timeout: float) -> int:
        """Block until the version passes `version` (or `timeout`); the version now."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != version or self._stop.is_set(), timeout)
            return self.version

    def summaries(self) -> list[dict[str, Any]]:
        with self._lock:
            views = sorted(self.tables.values(), key=lambda v: _natural(v.table))
            return [v.summary() for v in views]

    def table_state(self, table: str) -> dict[str, Any] | None:
        with self._lock:
            view = self.tables.get(table)
            if view is None:
                return None
            return {"table": table, "last_seq": view.last_seq, "online": view.online,
                    "warnings": view.warnings(), "state": view.state.to_json() if view.state else None}

    def read_rows(self, table: str, after: int = 0) -> list[tuple]:
        """(seq, game, at, payload) of a table's events after `after`, on a connection of its own
        (the ingest thread's is in a transaction now and then)."""
        con = sqlite3.connect(f"file:{self.store.path}?mode=ro", uri=True, timeout=10)
        try:
            return con.execute("SELECT seq, game, at, payload FROM events WHERE tbl = ? AND seq > ? ORDER BY seq",
                               (table, after)).fetchall()
        finally:
            con.close()

    def standings(self) -> list[dict[str, Any]]:
        """Every player over every game at every table that has a hand played: total score won or
        lost, games, hands won, average place (1-4 by score at the end, or now for a game in play;
        players on the same score share the better place); best first."""
        with self._lock:
            # a game with no hand played yet places nobody (four players on the same score)
            games = [g for v in self.tables.values() for g in v.games.values() if g.hands]
        players: dict[str, dict[str, Any]] = {}
        for g in games:
            order = sorted(range(len(g.players)), key=lambda i: -g.scores[i])
            for i, name in enumerate(g.players):
                row = players.setdefault(name, {"player": name, "games": 0, "finished": 0, "total": 0,
                                                "hands_won": 0, "places": [], "tables": []})
                row["games"] += 1
                row["finished"] += int(g.game_over)
                row["total"] += g.scores[i] - g.start_score
                row["hands_won"] += g.wins.get(name, 0)
                row["places"].append(1 + sum(1 for j in order if g.scores[j] > g.scores[i]))
                if g.table not in row["tables"]:
                    row["tables"].append(g.table)
        out = []
        for row in players.values():
            places = row.pop("places")
            row["average_place"] = round(sum(places) / len(places), 2)
            out.append(row)
        out.sort(key=lambda r: (-r["total"], r["average_place"], r["player"].casefold()))
        for rank, row in enumerate(out, 1):
            row["rank"] = rank
        return out

    def health(self, last: int | None = None) -> dict[str, Any]:
        with self._lock:
            tables = len(self.tables)
            online = sum(1 for v in self.tables.values() if v.online)
        return {"ok": self.connected, "broker": self.broker, "connected": self.connected, "error": self.error,
                "tables": tables, "online": online, "events": self.ingested, "duplicates": self.duplicates,
                "acks": self.acks_sent, "database": str(self.store.path), "delay_ms": self.delay_figures(last)}

    def delay_figures(self, last: int | None = None) -> dict[str, dict[str, float]]:
        """p50/p99 (ms) of the last stored events' delays: at the table (write -> sent), on the way
        (sent -> heard; the two machines' clocks must agree for this one), in the hub (heard -> shown);
        `last`: of the last so many events only."""
        rows = list(self.delays)[-last:] if last else list(self.delays)
        out = {}
        for i, name in enumerate(("table", "transit", "hub")):
            values = sorted(r[i] for r in rows)
            if values:
                out[name] = {"p50": round(values[len(values) // 2] * 1000, 1),
                             "p99": round(values[min(len(values) - 1, int(len(values) * 0.99))] * 1000, 1)}
        return out


def _natural(name: str) -> tuple:
    """Table 2 before table 10."""
    import re

    return tuple(int(t) if t.isdigit() else t.casefold() for t in re.split(r"(\d+)", name))

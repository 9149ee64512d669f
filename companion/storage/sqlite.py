"""The game log in SQLite: append-only, durable at every commit.

WAL journal with synchronous=FULL: a commit that returned is on disk, so a kill -9 or a
pulled plug loses at most the event being written, never an acknowledged one, and never
leaves a half-written row (SQLite's atomic commit). Schema changes are numbered SQL files
in `migrations/`, tracked with PRAGMA user_version.
"""

from __future__ import annotations

import shutil
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import msgspec

from companion.errors import CompanionError
from companion.game.events import Event, GameStarted, Recorded, decode, encode


class StorageError(CompanionError, RuntimeError):
    """The game log cannot be opened or read."""


def _migrations() -> list[tuple[int, str]]:
    files = resources.files("companion.storage").joinpath("migrations")
    found = []
    for f in files.iterdir():
        if f.name.endswith(".sql"):
            found.append((int(f.name.split("_", 1)[0]), f.read_text(encoding="utf-8")))
    return sorted(found)


def _record(row) -> Recorded:
    """A row (id, game, at, payload) as the event it records, or StorageError naming it."""
    id_, game, at, payload = row
    try:
        return Recorded(id=id_, game=game, at=datetime.fromisoformat(at), event=decode(payload))
    except (msgspec.DecodeError, ValueError, TypeError) as e:  # a damaged payload or time
        raise StorageError(f"event {id_} in the game log cannot be read: {e}") from None


def verify(path: str | Path) -> str:
    """Check a game log without changing it, as opening it would: SQLite's integrity check, a
    schema this version knows, and every event readable. "ok", the integrity check's finding,
    or StorageError (sqlite3.Error where the file cannot be opened at all)."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        result = con.execute("PRAGMA integrity_check").fetchone()[0]
        if result != "ok":
            return result
        version, known = con.execute("PRAGMA user_version").fetchone()[0], _migrations()[-1][0]
        if version > known:
            raise StorageError(f"from a newer version of the companion (schema {version}; this one knows up to "
                               f"{known}): update the companion")
        if version == 0 and not con.execute("SELECT 1 FROM sqlite_master").fetchone():
            return "ok"  # empty (a 0-byte file): the first start makes the log in it
        try:  # the columns this version reads: a file of something else fails here
            rows = con.execute("SELECT id, game, at, payload FROM events ORDER BY id").fetchall()
            con.execute("SELECT type, key FROM events LIMIT 0")
        except sqlite3.DatabaseError as e:
            raise StorageError(f"not a game log: {e}") from None
        for row in rows:
            _record(row)
        return "ok"
    finally:
        con.close()


#: below this much free space an error of SQLite's is most likely the full disk it does not name
FULL_DISK_BYTES = 8 * 2**20


def _full_disk_hint(path: Path) -> str:
    """" (the disk is full: …)" when it nearly is: SQLite says only "disk I/O error" then."""
    try:
        free = shutil.disk_usage(path.parent).free
    except OSError:
        return ""
    return f" (the disk is full: {free // 2**10} KiB free; make room and start again)" if free < FULL_DISK_BYTES else ""


#: beside the log, `<log>.last-event`: the id of the latest event written (kept up to date every
#: MARK_EVERY events and at each start). A log found empty or missing while this file says
#: events were recorded is a lost log, not a fresh install (see docs/recovery.md).
MARKER_SUFFIX = ".last-event"
MARK_EVERY = 50


def marker_path(path: str | Path) -> Path:
    path = Path(path)
    return path.with_name(path.name + MARKER_SUFFIX)


def lost_log(path: str | Path) -> str | None:
    """Why the game log at `path` must not be taken for a fresh one, else None: it is empty (0 bytes)
    or missing although the data folder says events were recorded in it."""
    path = Path(path)
    marker = marker_path(path)
    try:
        last = int(marker.read_text(encoding="ascii").split()[0])
    except (OSError, ValueError, IndexError):
        return None
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        size = None
    except OSError:
        return None
    if last <= 0 or size:
        return None  # nothing recorded, or a log with content (its own checks apply)
    wal = path.with_name(path.name + "-wal")
    try:
        wal_size = wal.stat().st_size
    except OSError:
        wal_size = 0
    why = (f"the game log {path} is {'missing' if size is None else 'empty (0 bytes)'}, but {marker.name} "
           f"beside it says events up to {last} were recorded")
    if wal_size:
        why += f"; its write-ahead log {wal.name} ({wal_size} bytes) is still there and may hold recent events"
    return (why + ". Nothing was started over it. Recover the log from a backup" +
            (" or from the write-ahead log" if wal_size else "") + " (docs/recovery.md); to start a new log on "
            f"purpose, move {path.name}{', ' + wal.name if wal_size else ''} and {marker.name} out of the folder")


def _mark(path: Path, last: int) -> None:
    """Write the marker (atomically; not synced: it only needs to outlive the next start). A
    full disk loses the update, never the log."""
    marker = marker_path(path)
    tmp = marker.with_name(marker.name + ".new")
    try:
        tmp.write_text(f"{last}\n", encoding="ascii")
        tmp.replace(marker)
    except OSError:
        pass


class EventStore:
    """Append and read game events. Thread-safe; one connection guarded by a lock."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._marked: int | None = None  # the id the marker beside the log holds
        self._last: int | None = None  # the latest id this store wrote
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if (lost := lost_log(self.path)) is not None:
                raise StorageError(lost)
        try:
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._migrate()
        except sqlite3.DatabaseError as e:
            raise StorageError(f"cannot open the game log {path}: {e}{_full_disk_hint(self.path)}") from None
        self._lock = threading.Lock()

    def _migrate(self) -> None:
        self._db.execute("BEGIN")  # the version and the tables read from one snapshot: another
        # process may be migrating this very file (it bumps the version with its tables)
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        foreign = version == 0 and self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").fetchone()
        self._db.execute("COMMIT")
        known = _migrations()
        if version > known[-1][0]:  # its events may hold what this version cannot read back
            raise StorageError(f"the game log {self.path} is from a newer version of the companion "
                               f"(schema {version}; this one knows up to {known[-1][0]}): update the companion")
        if foreign:
            raise StorageError(f"{self.path} is not a game log: it has an events table of its own")
        for number, sql in known:
            if number > version:
                try:  # one transaction per migration, the version bump included
                    self._db.executescript(f"BEGIN IMMEDIATE;\n{sql}\nPRAGMA user_version={number};\nCOMMIT;")
                except sqlite3.Error:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    # two processes opening a new log at once (the companion and a `doctor`, say) both
                    # saw the old version; the one that waited for the other's transaction finds its
                    # migration done and goes on
                    if self._db.execute("PRAGMA user_version").fetchone()[0] >= number:
                        continue
                    raise
        try:  # a foreign file fails here
            self._db.execute("SELECT id, game, at, type, payload, key FROM events LIMIT 0")
        except sqlite3.DatabaseError as e:
            raise StorageError(f"{self.path} is not a game log: {e}") from None
        if str(self.path) != ":memory:":
            self._check_writable()
            last = self._db.execute("SELECT MAX(id) FROM events").fetchone()[0]
            if last:
                _mark(self.path, last)
                self._marked = last

    def _check_writable(self) -> None:
        """A log that opens but cannot be written (a read-only file or folder) would take every
        result and lose it: refuse it now. An insert rolled back writes nothing."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.execute("INSERT INTO events (game, at, type, payload) VALUES (0, '', 'probe', '{}')")
        except sqlite3.OperationalError as e:
            raise StorageError(f"the game log {self.path} cannot be written: {e} "
                               "(is the file or its folder read-only, or owned by another user?)") from None
        finally:
            self._db.execute("ROLLBACK")

    def _shrink_wal(self) -> bool:
        """After a write the disk refused: fold the write-ahead log into the log and cut it to
        0 bytes, then say whether that worked (the write is then tried once more). On a small
        card the WAL holds many old copies of the same few pages (it is folded in only every
        1,000 pages) and stays at its largest size: without this, writes kept failing even
        after room was made."""
        if str(self.path) == ":memory:":
            return False
        try:
            busy, _, _ = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.Error:
            return False
        return busy == 0

    @contextmanager
    def _locked(self, doing: str) -> Iterator[sqlite3.Connection]:
        """The connection under the lock; a damaged file becomes a StorageError that says so."""
        with self._lock:
            try:
                yield self._db
            except sqlite3.DatabaseError as e:
                raise StorageError(f"cannot {doing} the game log {self.path}: {e}") from None

    def close(self) -> None:
        with self._lock:
            self._db.close()
            if self._last is not None and self._last != self._marked and str(self.path) != ":memory:":
                _mark(self.path, self._last)
                self._marked = self._last

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- writing ------------------------------------------------------------------------------
    def append(self, event: Event, *, game: int | None = None, key: str | None = None) -> tuple[Recorded, bool]:
        """Append `event` to `game` (a GameStarted opens its own game). Returns (record, new).

        With a `key` already in the log nothing is written and the earlier record is
        returned with new=False: this makes a dice box's repeated ROLL count once.
        """
        at = datetime.now(UTC)
        payload = encode(event).decode()
        type_ = type(event).__struct_config__.tag
        with self._locked("write to"):
            if key is not None:
                row = self._db.execute("SELECT id, game, at, payload FROM events WHERE key = ?", (key,)).fetchone()
                if row:
                    return self._record(row), False
            for attempt in (1, 2):
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    if isinstance(event, GameStarted):
                        cur = self._db.execute(
                            "INSERT INTO events (game, at, type, payload, key) VALUES (0, ?, ?, ?, ?)",
                            (at.isoformat(), type_, payload, key),
                        )
                        game = cur.lastrowid
                        self._db.execute("UPDATE events SET game = id WHERE id = ?", (game,))
                    else:
                        if game is None:
                            raise StorageError("an event must belong to a game")
                        cur = self._db.execute(
                            "INSERT INTO events (game, at, type, payload, key) VALUES (?, ?, ?, ?, ?)",
                            (game, at.isoformat(), type_, payload, key),
                        )
                    self._db.execute("COMMIT")
                    break
                except sqlite3.OperationalError:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    if attempt == 2 or not self._shrink_wal():
                        raise
                except BaseException:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
            self._last = cur.lastrowid
            if str(self.path) != ":memory:" and (self._marked is None or cur.lastrowid >= self._marked + MARK_EVERY):
                _mark(self.path, cur.lastrowid)  # the first event, and then now and then (and at close)
                self._marked = cur.lastrowid
        return Recorded(id=cur.lastrowid, game=game, at=at, event=event), True  # type: ignore[arg-type]

    def note_refused(self, key: str, reason: str) -> None:
        """Remember that the roll with this key was refused (the first reason stands)."""
        with self._locked("write to"):
            self._db.execute("INSERT OR IGNORE INTO refused_rolls (key, at, reason) VALUES (?, ?, ?)",
                             (key, datetime.now(UTC).isoformat(), reason))

    def refusal(self, key: str) -> str | None:
        """Why the roll with this key was refused, or None when it never was."""
        with self._locked("read"):
            row = self._db.execute("SELECT reason FROM refused_rolls WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_club_acked(self, club: str, acked: int) -> None:
        """Remember the hub's acknowledgement for `club` (companion/club: broker and table id)."""
        with self._locked("write to"):
            self._db.execute("INSERT INTO club_acks (club, acked, at) VALUES (?, ?, ?) ON CONFLICT (club) "
                             "DO UPDATE SET acked = excluded.acked, at = excluded.at",
                             (club, acked, datetime.now(UTC).isoformat()))

    def club_acked(self, club: str) -> int:
        """The last acknowledgement heard from the hub of `club`; 0 when none was."""
        with self._locked("read"):
            row = self._db.execute("SELECT acked FROM club_acks WHERE club = ?", (club,)).fetchone()
        return row[0] if row else 0

    # --- reading ------------------------------------------------------------------------------
    def _record(self, row) -> Recorded:
        return _record(row)

    def find_key(self, key: str) -> Recorded | None:
        with self._locked("read"):
            row = self._db.execute("SELECT id, game, at, payload FROM events WHERE key = ?", (key,)).fetchone()
        return self._record(row) if row else None

    def latest_game(self) -> int | None:
        with self._locked("read"):
            row = self._db.execute("SELECT MAX(id) FROM events WHERE type = 'game_started'").fetchone()
        return row[0]

    def current_game(self) -> int | None:
        """The game being played: the one written to last (a reopened game is written to when it
        is reopened), None in an empty log."""
        with self._locked("read"):
            row = self._db.execute("SELECT game FROM events ORDER BY id DESC LIMIT 1").fetchone()
        return row[0] if row else None

    def games(self) -> list[int]:
        with self._locked("read"):
            return [r[0] for r in self._db.execute("SELECT id FROM events WHERE type = 'game_started' ORDER BY id")]

    def events(self, game: int | None = None, *, after: int = 0, limit: int | None = None) -> list[Recorded]:
        """Events of one game (or all), with id > `after`, oldest first."""
        sql = "SELECT id, game, at, payload FROM events WHERE id > ?"
        args: list = [after]
        if game is not None:
            sql += " AND game = ?"
            args.append(game)
        sql += " ORDER BY id"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        with self._locked("read"):
            rows = self._db.execute(sql, args).fetchall()
        return [self._record(r) for r in rows]

    def raw_events(self, *, after: int = 0, limit: int = 100) -> list[tuple[int, int, str, str]]:
        """(id, game, at, payload) of the events with id > `after`, oldest first, as stored: for
        sending the log on (companion/club) without decoding and encoding every event again."""
        with self._locked("read"):
            return self._db.execute("SELECT id, game, at, payload FROM events WHERE id > ? ORDER BY id LIMIT ?",
                                    (after, limit)).fetchall()

    def last_id(self) -> int:
        """The id of the newest event in the log (0 when empty)."""
        with self._locked("read"):
            return self._db.execute("SELECT COALESCE(MAX(id), 0) FROM events").fetchone()[0]

    def integrity_check(self) -> str:
        with self._locked("check"):
            return self._db.execute("PRAGMA integrity_check").fetchone()[0]

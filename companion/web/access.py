"""Who may do what at the table: codes, roles, sessions, CSRF tokens and the wrong-code limiter.

Security model (the README's "Dashboard" section says it for players):

* Watching is open to anyone on the table's network unless `server.require_code_for_reads`.
* Changing anything needs a table session, obtained by typing (or scanning) the **table code**:
  role "player". The **host code** gives role "host", who may also start a new game and change
  the table code and the host code. A session lives in a signed, HttpOnly, SameSite=Lax cookie
  (Lax: a link from a chat or the QR scanner opens the page signed in; writes need a token);
  after joining, no code or token is ever in a URL.
* A joined session is also kept on the server (`Sessions`): "Leave" ends it there, so a copy of
  the cookie no longer counts; it ends by itself `server.session_hours` after joining, however
  much it is used.
* A new table code ends every session that joined with the old one, a new host code every host's.
* Every write carries a CSRF token that is bound to the session and **used once**: a token
  replayed (or taken from another session) is refused with 403 and nothing changes.
* Wrong codes are counted per client address (the real one behind `server.trusted_proxies`);
  past the limit that address waits (429), each time twice as long. Other addresses never wait
  for its mistakes.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import os
import secrets
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from pathlib import Path

from companion.config import ServerSettings
from companion.errors import CompanionError

log = logging.getLogger(__name__)

#: letters and digits that cannot be mistaken for each other when read aloud or off a screen
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
TABLE_CODE_LENGTH = 6
HOST_CODE_LENGTH = 10
ACCESS_FILE = "web_access.json"

ROLES = ("spectator", "player", "host")


class AccessError(CompanionError, PermissionError):
    """The codes file cannot be read or written."""


def make_code(length: int) -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


def normalise_code(code: str) -> str:
    """What players type: any case, spaces or dashes between groups."""
    return "".join(ch for ch in code.upper() if ch.isalnum())


def is_loopback(address: str | None) -> bool:
    try:
        return ipaddress.ip_address(address or "").is_loopback
    except ValueError:
        return False


def read_codes(path: Path) -> dict[str, str]:
    """The kept codes and key ({} if none yet); AccessError if the file cannot be used."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise AccessError(f"{path}: cannot read the table's codes ({e}); delete the file to make new ones") from None
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise AccessError(f"{path}: not a codes file; delete it to make new codes")
    return data


class TableAccess:
    """The table's secrets: the cookie-signing key, the table code and the host code.

    Made up on first start and kept in `<data_dir>/web_access.json` (readable by the owner only)
    so that phones stay joined across restarts; codes set in the configuration win.
    """

    def __init__(self, settings: ServerSettings, data_dir: Path) -> None:
        self._path = Path(data_dir) / ACCESS_FILE
        self._lock = threading.Lock()
        self._configured = {"table_code": settings.table_code, "host_code": settings.host_code}
        stored = self._read()
        changed = False
        for key, length in (("table_code", TABLE_CODE_LENGTH), ("host_code", HOST_CODE_LENGTH)):
            if not stored.get(key):
                stored[key] = make_code(length)
                changed = True
        if not stored.get("secret_key"):
            stored["secret_key"] = secrets.token_hex(32)
            changed = True
        self._stored = stored
        #: counts table code changes: open streams compare it to notice cheaply that theirs may have ended
        self.generation = 0
        if changed:
            self._write()

    def _read(self) -> dict[str, str]:
        return read_codes(self._path)

    def _write(self) -> None:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self._path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(self._stored, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self._path)

    @property
    def secret_key(self) -> bytes:
        return bytes.fromhex(self._stored["secret_key"])

    @property
    def table_code(self) -> str:
        with self._lock:
            return normalise_code(self._configured["table_code"] or self._stored["table_code"])

    @property
    def host_code(self) -> str:
        with self._lock:
            return normalise_code(self._configured["host_code"] or self._stored["host_code"])

    @property
    def table_code_configured(self) -> bool:
        return bool(self._configured["table_code"])

    def new_table_code(self) -> str:
        """Replace the table code; every session that joined with the old one ends."""
        if self.table_code_configured:
            raise AccessError("the table code is set in the configuration file; change it there")
        with self._lock:
            self._stored["table_code"] = make_code(TABLE_CODE_LENGTH)
            self._write()
            self.generation += 1
        return self.table_code

    @property
    def host_code_configured(self) -> bool:
        return bool(self._configured["host_code"])

    def new_host_code(self) -> str:
        """Replace the host code; every host session that joined with the old one ends."""
        if self.host_code_configured:
            raise AccessError("the host code is set in the configuration file; change it there")
        with self._lock:
            self._stored["host_code"] = make_code(HOST_CODE_LENGTH)
            self._write()
            self.generation += 1
        return self.host_code

    def role_for(self, code: str) -> str | None:
        """'host', 'player' or None (wrong code); compared in constant time."""
        given = normalise_code(code).encode()
        if given and hmac.compare_digest(given, self.host_code.encode()):
            return "host"
        if given and hmac.compare_digest(given, self.table_code.encode()):
            return "player"
        return None

    def epoch(self, role: str) -> str:
        """A fingerprint of the code a role joined with: a session from before a code change no longer matches."""
        code = self.host_code if role == "host" else self.table_code if role == "player" else "open"
        return hmac.new(self.secret_key, f"{role}:{code}".encode(), hashlib.sha256).hexdigest()[:16]


class CsrfTokens:
    """Single-use CSRF tokens bound to a session id (synchroniser-token pattern, one token per write).

    Kept in memory: a restart voids every token, and the page asks for a fresh one. Each session
    keeps its `per_session` newest unused tokens (several tabs). Joined sessions and anonymous
    ones are kept apart, each pool with its own bound: anyone can make anonymous sessions by the
    thousand (one per request without a cookie), and those only ever push out each other, never
    a joined phone's tokens (whose number the code and `Sessions` bound).
    """

    def __init__(self, per_session: int = 16, sessions: int = 4096, joined: int = 4096) -> None:
        self._pools: dict[bool, OrderedDict[str, deque[str]]] = {False: OrderedDict(), True: OrderedDict()}
        self._bounds = {False: sessions, True: joined}
        self._per_session = per_session
        self._lock = threading.Lock()

    def issue(self, sid: str, joined: bool = False) -> str:
        token = secrets.token_urlsafe(24)
        with self._lock:
            pool = self._pools[joined]
            tokens = self._pools[not joined].pop(sid, None) or pool.pop(sid, None) or deque(maxlen=self._per_session)
            tokens.append(token)
            pool[sid] = tokens
            while len(pool) > self._bounds[joined]:
                pool.popitem(last=False)
        return token

    def forget(self, sid: str) -> None:
        """Void every token of `sid` (its session has ended)."""
        with self._lock:
            for pool in self._pools.values():
                pool.pop(sid, None)

    def consume(self, sid: str, token: str) -> bool:
        """True once for a token issued to `sid`; False for a replayed, foreign or made-up token."""
        if not sid or not token:
            return False
        with self._lock:
            tokens = self._pools[True].get(sid) or self._pools[False].get(sid)
            if not tokens:
                return False
            for known in tokens:
                if hmac.compare_digest(known.encode(), token.encode()):
                    tokens.remove(known)
                    return True
        return False


#: the longest lock-out of one address (its back-off doubles up to this)
MAX_LOCKOUT_S = 3600.0


class AttemptLimiter:
    """Counts wrong codes per client address, with a growing back-off.

    `per_minute` wrong codes within a minute lock the address out for a minute; each further
    lock-out (before it has been quiet for `MAX_LOCKOUT_S`) lasts twice as long, up to an hour.
    There is no table-wide count: it would let one person's guesses from many addresses lock out
    every phone. Guessing from many addresses is hopeless anyway: a table code is one of 31^6
    (about 887 million), and each address gets `per_minute` tries before its lock-outs grow.
    The right code clears an address's record. At most `addresses` are remembered (quiet ones are
    forgotten first), so a flood from countless addresses costs bounded memory.
    """

    def __init__(self, per_minute: int, window: float = 60.0, clock=time.monotonic, addresses: int = 10000) -> None:
        self.per_minute = per_minute
        self.window = window
        self._clock = clock
        self._limit = addresses
        # address -> [recent failure times, lock-outs so far, locked until, last failure]
        self._records: OrderedDict[str, list] = OrderedDict()
        self._lock = threading.Lock()

    def retry_after(self, address: str) -> int:
        """Seconds `address` must wait before trying a code again; 0 if it may try now."""
        now = self._clock()
        with self._lock:
            record = self._records.get(address)
            wait = record[2] - now if record else 0.0
        return max(1, int(wait + 0.999)) if wait > 0 else 0

    def failed(self, address: str) -> None:
        now = self._clock()
        with self._lock:
            record = self._records.pop(address, None)
            if record is None or now - record[3] > MAX_LOCKOUT_S + self.window:
                record = [deque(), 0, 0.0, now]  # new, or quiet long enough to start afresh
            failures = record[0]
            while failures and failures[0] <= now - self.window:
                failures.popleft()
            failures.append(now)
            record[3] = now
            if len(failures) >= self.per_minute:
                record[1] += 1
                record[2] = now + min(MAX_LOCKOUT_S, self.window * 2 ** (record[1] - 1))
                failures.clear()
            self._records[address] = record  # newest last: the oldest are forgotten first
            while len(self._records) > self._limit:
                self._records.popitem(last=False)

    def succeeded(self, address: str) -> None:
        """The right code: whoever is at this address knows it, their typos are forgiven."""
        with self._lock:
            self._records.pop(address, None)


class Sessions:
    """The joined sessions, kept on the server so that leaving ends one for good.

    A signed cookie alone cannot be taken back: a copy made before "Leave" would still write.
    So each joined session id is kept here (as a hash, with the time it ends: `lifetime` seconds
    after joining, never renewed) in `<data_dir>/web_sessions.json`, so that phones stay joined
    across restarts; a session not found here, or past its end, is no session. At most `limit`
    are kept (the oldest ends first).
    """

    FILE = "web_sessions.json"

    def __init__(self, data_dir: Path, lifetime: float, clock=time.time, limit: int = 4096) -> None:
        self._path = Path(data_dir) / self.FILE
        self.lifetime = lifetime
        self._clock = clock
        self._limit = limit
        self._lock = threading.Lock()
        self._ends: OrderedDict[str, tuple[float, str]] = OrderedDict()  # hash -> (ends at, role)
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
            for key, (ends, role) in sorted(data.items(), key=lambda kv: kv[1][0]):
                self._ends[str(key)] = (float(ends), str(role))
        except FileNotFoundError:
            pass
        except (OSError, ValueError, TypeError, AttributeError) as e:
            # only sessions are lost: every phone joins again
            log.warning("%s: cannot read the joined sessions (%s); every phone must join again", self._path, e)
        #: counts ended sessions: open streams compare it to notice cheaply that theirs may have ended
        self.generation = 0

    @staticmethod
    def _key(sid: str) -> str:
        return hashlib.sha256(sid.encode()).hexdigest()[:32]

    def start(self, sid: str, role: str) -> None:
        with self._lock:
            now = self._clock()
            self._expire(now)
            self._ends[self._key(sid)] = (now + self.lifetime, role)
            while len(self._ends) > self._limit:
                self._ends.popitem(last=False)
                self.generation += 1
            self._write()

    def valid(self, sid: str | None) -> bool:
        if not sid:
            return False
        entry = self._ends.get(self._key(sid))
        return entry is not None and entry[0] > self._clock()

    def ends_at(self, sid: str) -> float | None:
        entry = self._ends.get(self._key(sid))
        return entry[0] if entry else None

    def end(self, sid: str) -> bool:
        """End session `sid`; False if it was not (or no longer) joined."""
        with self._lock:
            if self._ends.pop(self._key(sid), None) is None:
                return False
            self.generation += 1
            self._write()
        return True

    def end_role(self, role: str, keep: str | None = None) -> None:
        """End every session of `role` (a new host code), but `keep`'s."""
        kept = self._key(keep) if keep else None
        with self._lock:
            for key in [k for k, (_e, r) in self._ends.items() if r == role and k != kept]:
                del self._ends[key]
            self.generation += 1
            self._write()

    def _expire(self, now: float) -> None:
        for key in [k for k, (ends, _r) in self._ends.items() if ends <= now]:
            del self._ends[key]

    def _write(self) -> None:
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self._path.with_suffix(".tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(dict(self._ends), f)
            os.replace(tmp, self._path)
        except OSError as e:  # a full disk: the session holds until a restart, as a cookie did
            log.warning("%s: cannot keep the joined sessions (%s)", self._path, e)


@dataclass(frozen=True)
class Viewer:
    """Who is asking, from their session: role, and for a player the player index (0..3) in this game."""

    role: str  # "anonymous", "spectator", "player" or "host"
    sid: str
    player: int | None = None
    name: str | None = None

    @property
    def can_write(self) -> bool:
        return self.role in ("player", "host")

    @property
    def is_host(self) -> bool:
        return self.role == "host"

"""Who may do what at the table: codes, roles, sessions, CSRF tokens and the wrong-code limiter.

Security model (the README's "Dashboard" section says it for players):

* Watching is open to anyone on the table's network unless `server.require_code_for_reads`.
* Changing anything needs a table session, obtained by typing (or scanning) the **table code**:
  role "player". The **host code** gives role "host", who may also start a new game and change
  the table code. A session lives in a signed, HttpOnly, SameSite=Strict cookie; after joining,
  no code or token is ever in a URL.
* A new table code ends every session that joined with the old one.
* Every write carries a CSRF token that is bound to the session and **used once**: a token
  replayed (or taken from another session) is refused with 403 and nothing changes.
* Wrong codes are counted per address and for the whole table; past the limit, 429.
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
    keeps its `per_session` newest unused tokens (several tabs), at most `sessions` sessions.
    """

    def __init__(self, per_session: int = 16, sessions: int = 4096) -> None:
        self._tokens: OrderedDict[str, deque[str]] = OrderedDict()
        self._per_session = per_session
        self._sessions = sessions
        self._lock = threading.Lock()

    def issue(self, sid: str) -> str:
        token = secrets.token_urlsafe(24)
        with self._lock:
            tokens = self._tokens.pop(sid, None) or deque(maxlen=self._per_session)
            tokens.append(token)
            self._tokens[sid] = tokens
            while len(self._tokens) > self._sessions:
                self._tokens.popitem(last=False)
        return token

    def consume(self, sid: str, token: str) -> bool:
        """True once for a token issued to `sid`; False for a replayed, foreign or made-up token."""
        if not sid or not token:
            return False
        with self._lock:
            tokens = self._tokens.get(sid)
            if not tokens:
                return False
            for known in tokens:
                if hmac.compare_digest(known.encode(), token.encode()):
                    tokens.remove(known)
                    return True
        return False


class AttemptLimiter:
    """Counts wrong codes in a sliding one-minute window, per address and for the whole table.

    The table-wide limit (ten addresses' worth) stops guessing spread over many addresses.
    """

    def __init__(self, per_minute: int, window: float = 60.0, clock=time.monotonic) -> None:
        self.per_minute = per_minute
        self.overall = per_minute * 10
        self.window = window
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._all: deque[float] = deque()
        self._lock = threading.Lock()

    def _trim(self, q: deque[float], now: float) -> None:
        while q and q[0] <= now - self.window:
            q.popleft()

    def retry_after(self, address: str) -> int:
        """Seconds `address` must wait before trying a code again; 0 if it may try now."""
        now = self._clock()
        with self._lock:
            waits = []
            q = self._failures.get(address)
            if q:
                self._trim(q, now)
                if len(q) >= self.per_minute:
                    waits.append(q[0] + self.window - now)
            self._trim(self._all, now)
            if len(self._all) >= self.overall:
                waits.append(self._all[0] + self.window - now)
        return max(1, int(max(waits) + 0.999)) if waits else 0

    def failed(self, address: str) -> None:
        now = self._clock()
        with self._lock:
            q = self._failures.setdefault(address, deque())
            self._trim(q, now)
            q.append(now)
            self._all.append(now)
            if len(self._failures) > 10000:  # forget quiet addresses
                for key in [k for k, v in self._failures.items() if not v or v[-1] <= now - self.window]:
                    del self._failures[key]


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

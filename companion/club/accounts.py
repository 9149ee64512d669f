"""Broker logins for a club: one per table and one for the hub, with an ACL that lets each table
write only its own events and status and read only its own acknowledgements (docs/club.md).

Written for Mosquitto 2: a password file (PBKDF2-SHA512 hashes, the `$7$` format
`mosquitto_passwd` writes), an ACL file whose `pattern` lines name each table's topics by its
login (%u: so a table's username is its table id), a configuration snippet for
/etc/mosquitto/conf.d/, and per table the `[club]` section for its companion.toml.
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
from pathlib import Path

from companion.club import protocol as p
from companion.config import check_table_id

#: Mosquitto 2's PBKDF2 iterations ($7$ hashes; what mosquitto_passwd uses)
ITERATIONS = 101
HUB_USER = "hub"


def password_line(username: str, password: str, *, salt: bytes | None = None) -> str:
    """One line of a Mosquitto password file: `user:$7$iterations$salt$hash`."""
    salt = salt or os.urandom(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, ITERATIONS)
    return f"{username}:$7${ITERATIONS}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def acl_text() -> str:
    table = f"{p.PREFIX}/tables/%u"
    return "\n".join([
        "# The club's topics (companion/club/protocol.py). Written by `companion club-accounts`.",
        f"user {HUB_USER}",
        f"topic read {p.EVENTS_ALL}",
        f"topic read {p.STATUS_ALL}",
        f"topic write {p.PREFIX}/tables/+/ack",
        "",
        "# every table, by its login (= its table id): its own events and status, its own acknowledgements",
        f"pattern write {table}/events",
        f"pattern readwrite {table}/status",
        f"pattern read {table}/ack",
        "",
    ])


def parse_tables(spec: str) -> list[str]:
    """"1-20", "A1,A2,B1", "1-8,12": the table ids; ValueError for anything else."""
    ids: list[str] = []
    for part in (s.strip() for s in spec.split(",")):
        if not part:
            continue
        lo, dash, hi = part.partition("-")
        if dash and lo.isdigit() and hi.isdigit():
            if int(hi) < int(lo) or int(hi) - int(lo) > 999:
                raise ValueError(f"tables {part!r}: a range low-high of at most 1000 tables")
            ids += [str(n) for n in range(int(lo), int(hi) + 1)]
        else:
            ids.append(check_table_id(part))
    if not ids:
        raise ValueError("no tables given (e.g. --tables 1-20)")
    if HUB_USER in ids:
        raise ValueError(f"a table cannot be called {HUB_USER!r}: that is the hub's login")
    return list(dict.fromkeys(ids))


def write_accounts(out: Path, tables: list[str], broker: str, *, listen_port: int = 1883) -> dict[str, str]:
    """Write club.passwd, club.acl, club.conf, hub.env and tables/<id>.toml into `out`; the
    passwords by login. Files holding passwords are readable by their owner only."""
    out.mkdir(parents=True, exist_ok=True)
    passwords = {name: secrets.token_urlsafe(18) for name in [HUB_USER, *tables]}
    _private(out / "club.passwd", "".join(password_line(u, pw) + "\n" for u, pw in passwords.items()))
    (out / "club.acl").write_text(acl_text())
    (out / "club.conf").write_text("\n".join([
        "# The club's broker: logins and topics per table (docs/club.md). Copy with club.passwd and club.acl",
        "# to /etc/mosquitto/conf.d/ and restart mosquitto.",
        "# (Debian's mosquitto.conf already keeps sessions and retained messages: persistence true)",
        f"listener {listen_port}",
        "allow_anonymous false",
        "password_file /etc/mosquitto/conf.d/club.passwd",
        "acl_file /etc/mosquitto/conf.d/club.acl",
        "# what waits for a hub that is away: 40 tables x a day's events fit many times over",
        "max_queued_messages 100000",
        "",
    ]))
    _private(out / "hub.env", f"COMPANION_HUB_USERNAME={HUB_USER}\nCOMPANION_HUB_PASSWORD={passwords[HUB_USER]}\n")
    (out / "tables").mkdir(exist_ok=True)
    for t in tables:
        _private(out / "tables" / f"{t}.toml", "\n".join([
            "[club]", f'broker = "{broker}"', f'table_id = "{t}"', f'username = "{t}"',
            f'password = "{passwords[t]}"', ""]))
    return passwords


def _private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)

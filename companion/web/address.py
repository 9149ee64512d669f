"""The address phones reach the dashboard at, for the join link and its QR code.

The table's own screen opens the dashboard at 127.0.0.1, an address that means "this phone" on a
phone: a link built from it is useless there. The link uses, in order: `[server] public_url`
(`companion run --public-url`), else the address the page was opened at unless that is a
loopback one, else the Pi's address on its network (found again at each request: the Pi may
join another Wi-Fi) with the same port.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit, urlunsplit


def lan_address() -> str | None:
    """The address of the interface that reaches other machines (no packet is sent); None without one."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # TEST-NET address: only picks the outgoing interface
            address = s.getsockname()[0]
    except OSError:
        return None
    return None if is_loopback_host(address) or address == "0.0.0.0" else address


def is_loopback_host(host: str | None) -> bool:
    if not host:
        return False
    if host.lower() in ("localhost", "localhost.localdomain") or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def public_base(opened_at: str, configured: str = "", lan: str | None = None) -> str:
    """The base URL (no trailing slash) for links phones open; `opened_at` is the request's own
    base URL, `lan` the network address to use when that is a loopback one (None: look it up)."""
    if configured:
        return configured.rstrip("/")
    parts = urlsplit(opened_at)
    if not is_loopback_host(parts.hostname):
        return opened_at.rstrip("/")
    address = lan if lan is not None else lan_address()
    if not address:
        return opened_at.rstrip("/")  # no network: nothing better to offer
    host = f"[{address}]" if ":" in address else address
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", "")).rstrip("/")

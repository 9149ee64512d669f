"""What `companion run` prints for the people at the table: the join QR code and the codes."""

from __future__ import annotations

import io

import segno
from flask import Flask


def join_banner(app: Flask, base_url: str, *, qr: bool = True) -> str:
    """The table code (and QR code to scan) for players; the host code for whoever started the companion."""
    access = app.extensions["companion_web"].access
    url = f"{base_url}/join#code={access.table_code}"
    out = io.StringIO()
    if qr:
        segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    out.write(f"Join: scan the code above or open {base_url}/join and type the table code {access.table_code}\n")
    out.write(f"Host code (new games, new table code; keep it to yourself): {access.host_code}")
    return out.getvalue()

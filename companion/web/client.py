"""A small client for the dashboard's JSON API and event stream, over plain HTTP (standard library only).

Used by the load benchmark (`companion bench web`) and the tests that run a real server. It keeps
the session cookie and the single-use CSRF token the way the page's script does.
"""

from __future__ import annotations

import http.client
import json
import secrets
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit


@dataclass
class ApiResponse:
    status: int
    headers: dict[str, str]
    data: Any


class DashboardClient:
    def __init__(self, base_url: str, timeout: float = 10.0, language: str | None = None) -> None:
        """`language`: sent as Accept-Language with every request and stream (None: none)."""
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.timeout = timeout
        self.cookie: str | None = None
        self.csrf: str | None = None
        self.language = language

    def _conn(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    def request(self, method: str, path: str, body: Any = None, *, headers: dict[str, str] | None = None,
                raw: bytes | None = None) -> ApiResponse:
        conn = self._conn()
        try:
            h = {"Accept": "application/json", **(headers or {})}
            if self.language:
                h.setdefault("Accept-Language", self.language)
            if self.cookie:
                h["Cookie"] = self.cookie
            payload = raw
            if body is not None and raw is None:
                payload = json.dumps(body).encode()
                h.setdefault("Content-Type", "application/json")
            conn.request(method, path, body=payload, headers=h)
            resp = conn.getresponse()
            content = resp.read()
            headers_out = {k: v for k, v in resp.getheaders()}
            cookie = resp.getheader("Set-Cookie")
            if cookie:
                self.cookie = cookie.split(";", 1)[0]
            token = resp.getheader("X-CSRF-Token")
            if token:
                self.csrf = token
            try:
                data = json.loads(content) if content else None
            except ValueError:
                data = content.decode(errors="replace")
            return ApiResponse(resp.status, headers_out, data)
        finally:
            conn.close()

    def get(self, path: str) -> ApiResponse:
        return self.request("GET", path)

    def post(self, path: str, body: Any = None, *, key: str | None = None) -> ApiResponse:
        """A write with this session's CSRF token (fetched first if there is none)."""
        if self.csrf is None:
            self.csrf = self.get("/api/session").data["csrf_token"]
        headers = {"X-CSRF-Token": self.csrf or "", "Origin": self.origin,
                   "Idempotency-Key": key or secrets.token_hex(12)}
        return self.request("POST", path, {} if body is None else body, headers=headers)

    def join(self, code: str, role: str = "player", player: Any = None) -> ApiResponse:
        body = {"code": code, "role": role}
        if player is not None:
            body["player"] = player
        return self.post("/api/join", body)

    def stream(self, last_id: int | None = None) -> EventStream:
        return EventStream(self, last_id)


@dataclass
class SseEvent:
    event: str
    data: Any
    id: int | None = None


@dataclass
class EventStream:
    """One Server-Sent Events connection; iterate to read events as they arrive."""

    client: DashboardClient
    last_id: int | None = None
    conn: http.client.HTTPConnection | None = field(default=None, init=False)
    response: http.client.HTTPResponse | None = field(default=None, init=False)

    def open(self, timeout: float | None = None) -> EventStream:
        self.conn = http.client.HTTPConnection(self.client.host, self.client.port,
                                               timeout=timeout or self.client.timeout)
        headers = {"Accept": "text/event-stream"}
        if self.client.language:
            headers["Accept-Language"] = self.client.language
        if self.client.cookie:
            headers["Cookie"] = self.client.cookie
        if self.last_id is not None:
            headers["Last-Event-ID"] = str(self.last_id)
        self.conn.request("GET", "/api/stream", headers=headers)
        self._sock = self.conn.sock  # kept: the connection lets go of it once the response has it
        self.response = self.conn.getresponse()
        if self.response.status != 200:
            body = self.response.read()
            raise ConnectionError(f"stream refused: {self.response.status} {body[:200]!r}")
        return self

    def __iter__(self) -> Iterator[SseEvent]:
        assert self.response is not None, "open() first"
        event, data, msg_id = "message", [], None
        while True:
            line = self.response.readline()
            if not line:
                return
            line = line.decode().rstrip("\r\n")
            if not line:
                if data:
                    payload = json.loads("\n".join(data))
                    if msg_id is not None:
                        self.last_id = msg_id
                    yield SseEvent(event, payload, msg_id)
                event, data, msg_id = "message", [], None
            elif line.startswith(":"):
                continue
            else:
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if name == "event":
                    event = value
                elif name == "data":
                    data.append(value)
                elif name == "id":
                    msg_id = int(value)

    def close(self) -> None:
        """Hang up, also while another thread is reading: shutting the socket down wakes that reader
        (closing the response first would wait for the reader's lock)."""
        sock = getattr(self, "_sock", None)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        # the response holds its own reference to the socket: close it too, or the server never hears
        if self.response is not None:
            self.response.close()
        if self.conn is not None:
            self.conn.close()

"""A stranger's connections against the real server (waitress): idle ones by the hundred, a request
that never finishes arriving, a live stream that is never read. A player is still answered, and
nothing holds a thread or buffers without bound. (`companion bench connections` measures 1,000.)"""

from __future__ import annotations

import socket
import time

import pytest

from companion.config import load_settings
from companion.services import build_services
from companion.web import create_app
from companion.web.client import DashboardClient
from companion.web.server import WebServer

CODE = "CONN22"


def start(tmp_path, **timeouts):
    settings = load_settings(env={}, overrides={
        "data_dir": str(tmp_path), "server": {"host": "127.0.0.1", "port": 0, "table_code": CODE, "threads": 8}})
    services = build_services(settings)
    web = WebServer(create_app(services), "127.0.0.1", 0, threads=8, **timeouts)
    services.add(web)
    services.start()
    return services, web, f"http://127.0.0.1:{web.port}"


@pytest.fixture
def server(tmp_path):
    services, web, base = start(tmp_path, request_timeout=2, send_timeout=2, cleanup_interval=1)
    yield services, web, base
    services.stop()


def _connect(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    return s


def test_a_player_is_answered_beside_hundreds_of_idle_connections(server):
    """waitress took threads + 50 connections (here 100) and then no more until idle ones timed out
    (a minute or two): the player's page waited that long."""
    services, web, base = server
    player = DashboardClient(base, timeout=10)
    assert player.join(CODE).status == 200
    idle = [_connect(web.port) for _ in range(300)]
    try:
        slow = []
        for s in idle[:100]:
            s.sendall(b"GET /api/state HTTP/1.1\r\nHost: x\r\n")  # a request that never ends
            slow.append(s)
        assert player.get("/api/state").status == 200
        assert DashboardClient(base, timeout=10).get("/api/session").status == 200  # a new phone, a new connection
    finally:
        for s in idle:
            s.close()


def _closed_by_server(s: socket.socket, within: float) -> bool:
    s.settimeout(within)
    try:
        while True:
            if not s.recv(65536):
                return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_a_request_that_never_finishes_arriving_is_dropped(server):
    _services, web, _base = server
    s = _connect(web.port)
    try:
        start_ = time.monotonic()
        for _ in range(3):  # a byte now and then keeps it from looking idle
            s.sendall(b"GET / HTTP/1.1\r\nX-Slow: ")
            time.sleep(0.5)
            s.sendall(b"a\r\n")
        assert _closed_by_server(s, within=10)
        assert time.monotonic() - start_ < 10
    finally:
        s.close()


def test_a_live_stream_that_is_never_read_is_closed_and_frees_its_thread(server):
    """40 such streams made the server buffer 635 MiB and hold a thread each, for good."""
    services, web, base = server
    broker = web.app.extensions["companion_web"].broker
    player = DashboardClient(base)
    assert player.join(CODE).status == 200
    cookie = player.cookie
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", int(web.port)))
    try:
        s.sendall(f"GET /api/stream HTTP/1.1\r\nHost: x\r\nCookie: {cookie}\r\n\r\n".encode())
        deadline = time.monotonic() + 5
        while broker.open_streams < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert broker.open_streams == 1
        big = "x" * 200_000
        for i in range(60):  # 12 MB of warnings the phone never takes
            services.hub.publish("warning", {"code": "test", "message": big, "n": i})
            if broker.open_streams == 0:
                break
        deadline = time.monotonic() + 20
        while broker.open_streams and time.monotonic() < deadline:
            time.sleep(0.1)
        assert broker.open_streams == 0
        channels = [c for c in web._server.active_channels.values()]
        assert all(c.total_outbufs_len < 4 * 1024 * 1024 for c in channels)
        assert player.get("/api/state").status == 200
    finally:
        s.close()

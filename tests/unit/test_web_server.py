"""The waitress component stops without an error in its thread."""

import threading
import urllib.request

from flask import Flask

from companion.web.server import WebServer


def test_stop_ends_the_loop_cleanly_while_a_client_is_connected():
    app = Flask(__name__)
    app.get("/")(lambda: "ok")
    errors = []
    old = threading.excepthook
    threading.excepthook = lambda args: errors.append(args.exc_value)
    try:
        for _ in range(5):  # the race in waitress is intermittent: stop several servers
            server = WebServer(app, "127.0.0.1", 0)
            server.start()
            with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/", timeout=5) as r:
                assert r.read() == b"ok"
            server.stop()
            assert not server._thread.is_alive()
    finally:
        threading.excepthook = old
    assert errors == []

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
        # the races are intermittent (a worker's pull can wake the loop, which then runs the closing
        # thunk before stop() has written its own pull: about one stop in a hundred), so stop many
        for _ in range(40):
            server = WebServer(app, "127.0.0.1", 0)
            server.start()
            with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/", timeout=5) as r:
                assert r.read() == b"ok"
            server.stop()
            assert not server._thread.is_alive()
    finally:
        threading.excepthook = old
    assert errors == []

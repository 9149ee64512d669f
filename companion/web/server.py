"""The production WSGI server (waitress) as a component that starts and stops cleanly."""

from __future__ import annotations

import errno
import logging
import threading

from waitress import wasyncore
from waitress.server import create_server

log = logging.getLogger(__name__)


class WebServer:
    name = "web"

    def __init__(self, app, host: str, port: int, threads: int = 8) -> None:
        self.app = app
        # every live phone holds a thread with its event stream: `threads` bounds the phones watching
        self._server = create_server(app, host=host, port=port, threads=threads, ident="companion",
                                     channel_timeout=60, connection_limit=max(100, threads + 50),
                                     channel_request_lookahead=5)  # lets a stream learn that its phone left
        self._thread = threading.Thread(target=self._server.run, name="web", daemon=True)

    @property
    def port(self) -> int:
        return self._server.effective_port

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        web = getattr(self.app, "extensions", {}).get("companion_web")
        if web is not None:
            web.broker.close()  # end the phones' event streams so their threads are free
        if not self._thread.is_alive():
            self._server.close()
            return
        # Let the worker threads finish (the streams were just ended), then close the sockets in the
        # server's own loop thread (a trigger "thunk"): closing them from here races the loop's
        # select(), and a worker still running would pull a closed trigger (EBADF either way).
        # An empty socket map ends the loop.
        self._server.task_dispatcher.shutdown(timeout=5)
        try:
            self._server.trigger.pull_trigger(lambda: wasyncore.close_all(self._server._map))
        except OSError as e:
            # The loop, awake for another pull (a worker's), may run the thunk as soon as it is
            # queued, before this pull writes to the trigger: the thunk has closed the trigger then.
            if e.errno != errno.EBADF:
                raise
        self._thread.join(timeout=5)


def add_dashboard(services, host: str | None = None, port: int | None = None) -> WebServer:
    """The dashboard for `services` on its own server, added as component "web": `[server]`
    settings give the host, port (0 = a free one, see `.port`) and threads unless given here."""
    from companion.web.app import create_app

    s = services.settings.server
    web = WebServer(create_app(services), s.host if host is None else host, s.port if port is None else port,
                    threads=s.threads)
    services.add(web)
    return web

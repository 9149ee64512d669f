"""The production WSGI server (waitress) as a component that starts and stops cleanly."""

from __future__ import annotations

import logging
import threading

from waitress.server import create_server

log = logging.getLogger(__name__)


class WebServer:
    name = "web"

    def __init__(self, app, host: str, port: int, threads: int = 8) -> None:
        self._server = create_server(app, host=host, port=port, threads=threads, ident="companion")
        self._stopping = False
        self._thread = threading.Thread(target=self._serve, name="web", daemon=True)

    @property
    def port(self) -> int:
        return self._server.effective_port

    def start(self) -> None:
        self._thread.start()

    def _serve(self) -> None:
        try:
            self._server.run()
        except OSError:
            # Closing the sockets races with the loop's select(); once stopping, that is expected.
            if not self._stopping:
                raise

    def stop(self) -> None:
        """Close the listening socket and every connection, so the loop ends by itself.

        waitress has no public stop; closing only the listener from another thread makes its
        select() fail with EBADF (Pylons/waitress#468). Emptying the socket map ends the loop.
        """
        self._stopping = True
        for channel in list(self._server._map.values()):
            channel.handle_close()
        self._server.task_dispatcher.shutdown(timeout=5)
        self._thread.join(timeout=5)

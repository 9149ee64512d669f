"""The production WSGI server (waitress) as a component that starts and stops cleanly.

Hardened against a stranger on the Wi-Fi (docs/security.md): connections cost a file descriptor,
never a thread, until a whole request has arrived, and up to `server.max_connections` of them are
kept (poll(), not select(), so past 1,024; the process's descriptor limit is raised to fit).
Every connection has a deadline: idle ones close after `IDLE_TIMEOUT_S`, a request that is still
arriving after `REQUEST_TIMEOUT_S` (a "slow loris") is dropped, and a reader that has taken none
of its answer for `SEND_TIMEOUT_S` is closed, which frees the thread its live stream held. Each
connection buffers at most `OUTBUF_HIGH_WATERMARK` of answer before the writer waits.
"""

from __future__ import annotations

import errno
import logging
import resource
import socket
import threading
import time

from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer, create_server

log = logging.getLogger(__name__)

#: seconds a connection may sit without a request (a phone's keep-alive between requests)
IDLE_TIMEOUT_S = 30
#: seconds from a request's first byte to its last (headers and body: a 16 MiB photo over a slow link fits)
REQUEST_TIMEOUT_S = 60
#: seconds a connection with answer waiting may go without taking a byte of it
SEND_TIMEOUT_S = 30
#: how often the deadlines are looked at
CLEANUP_INTERVAL_S = 5
#: answer bytes buffered per connection before the thread writing it waits (waitress: 16 MiB)
OUTBUF_HIGH_WATERMARK = 1024 * 1024
#: the largest request body taken at all (the teach page's photos, 16 MiB, and their form)
MAX_REQUEST_BODY = 17 * 1024 * 1024
#: the kernel's send buffer per connection (Linux doubles it); left to itself it grows to 4 MiB for
#: each reader that stops reading. Plenty for a phone on Wi-Fi (a camera frame is ~100 KiB)
SEND_BUFFER = 256 * 1024


class _Channel(HTTPChannel):
    """A connection that notes when the request now arriving began."""

    request_started: float | None = None

    def received(self, data):
        before = self.request
        result = super().received(data)
        if self.request is None:
            self.request_started = None
        elif self.request is not before:
            self.request_started = time.time()
        return result


def _maintenance(server: BaseWSGIServer, request_timeout: float, send_timeout: float):
    """waitress's clean-up (idle connections), plus the request and send deadlines."""
    idle = server.maintenance

    def maintenance(now: float) -> None:
        idle(now)
        for channel in list(server.active_channels.values()):
            if channel.will_close:
                continue
            started = getattr(channel, "request_started", None)
            if not channel.requests and started is not None and now - started > request_timeout:
                channel.will_close = True  # a request that never finishes arriving
            elif channel.requests and channel.total_outbufs_len and now - channel.last_activity > send_timeout:
                # its reader stopped reading: its socket never becomes writable, so `will_close`
                # alone would wait for good. Shut down, the socket wakes the loop (POLLHUP), which
                # closes the channel and lets the thread waiting to write go. Not closed here:
                # this runs before the loop's poll(), and a new connection could be given the
                # closed descriptor's number and then be closed for its stale event.
                try:
                    channel.socket.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                channel.will_close = True
    return maintenance


#: connections taken per turn of the loop when many arrive at once (waitress takes one)
ACCEPT_BATCH = 64


def _accept_many(server: BaseWSGIServer):
    """Take up to ACCEPT_BATCH waiting connections per turn of the loop, not one: each turn looks
    at every open connection, so a crowd arriving at once (a stranger reopening hundreds) would
    otherwise hold a player's new connection back for hundreds of turns."""
    accept_one = server.handle_accept

    def handle_accept() -> None:
        for _ in range(ACCEPT_BATCH):
            before = len(server._map)
            if before >= server.adj.connection_limit:
                return
            accept_one()
            if len(server._map) == before:  # nothing was waiting (or it failed): done for this turn
                return
    return handle_accept


def raise_file_limit(wanted: int) -> int:
    """Raise this process's open-file limit towards `wanted` (up to the hard limit); the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as e:
            log.warning("cannot raise the open-file limit to %d: %s", target, e)
    return wanted if soft == resource.RLIM_INFINITY else soft


class WebServer:
    name = "web"

    def __init__(self, app, host: str, port: int, threads: int = 8, *, max_connections: int = 2000,
                 idle_timeout: int = IDLE_TIMEOUT_S, request_timeout: float = REQUEST_TIMEOUT_S,
                 send_timeout: float = SEND_TIMEOUT_S, cleanup_interval: int = CLEANUP_INTERVAL_S,
                 proxy_headers: bool = False) -> None:
        """`proxy_headers`: pass X-Forwarded-* on to the app, whose ProxyFix believes the trusted hops
        (`server.trusted_proxies`); otherwise waitress drops them, as anyone could send them."""
        self.app = app
        files = raise_file_limit(max_connections + 128)
        if files < max_connections + 128:
            log.warning("the open-file limit is %d: at most %d connections at once (server.max_connections = %d)",
                        files, max(50, files - 128), max_connections)
            max_connections = max(50, files - 128)
        # every live phone holds a thread with its event stream: `threads` bounds the phones watching
        self._server = create_server(app, host=host, port=port, threads=threads, ident="companion",
                                     connection_limit=max_connections, asyncore_use_poll=True,
                                     channel_timeout=idle_timeout, cleanup_interval=cleanup_interval,
                                     outbuf_high_watermark=OUTBUF_HIGH_WATERMARK,
                                     max_request_body_size=MAX_REQUEST_BODY,
                                     clear_untrusted_proxy_headers=not proxy_headers,
                                     channel_request_lookahead=5)  # lets a stream learn that its phone left
        servers = [self._server] if isinstance(self._server, BaseWSGIServer) else [
            s for s in self._server.map.values() if isinstance(s, BaseWSGIServer)]  # one per address
        for server in servers:
            # connections accepted from now on inherit the listening socket's buffer size
            server.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
            server.channel_class = _Channel
            server.maintenance = _maintenance(server, request_timeout, send_timeout)
            server.handle_accept = _accept_many(server)
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
                    threads=s.threads, max_connections=s.max_connections, proxy_headers=s.trusted_proxies > 0)
    services.add(web)
    return web

"""Live updates to the phones: Server-Sent Events fed from the hub.

Each phone's stream has its own bounded queue filled by a hub subscriber (the hub calls
subscribers in the publisher's thread, so putting into a queue is all it does). A phone that
reconnects sends the id of the last message it saw (the `Last-Event-ID` header, or `?last_id=`
when the page opens a new EventSource itself) and gets what it missed from the hub's backlog;
if the backlog no longer reaches back that far, or the phone fell behind, it gets the whole
state again. Every "state" message carries the whole state (`Table.state_json()`: its history
only the latest hands, so the same size all game long), so the latest one is all a phone needs:
from the backlog only the latest state is replayed, with every warning. The History view reads
older hands from the log (`GET /api/events`, in pages).
A stream ends as soon as its session may no longer read (it left, or its code was changed).
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Response, request
from flask_babel import get_translations
from flask_babel import gettext as _

from companion.hub import Hub, Message
from companion.table import Table
from companion.web.errors import WebError
from companion.web.guard import is_joined, read_right, require_read, services, web

log = logging.getLogger(__name__)

push = Blueprint("push", __name__)

#: hub topics that reach the phones ("observation" is camera pixel data for the camera view only)
TOPICS = frozenset({"state", "warning", "status", "seat"})  # "seat": a seat taken over (web/seats.py)
#: a heartbeat ("ping", saying this period) this often keeps proxies and waitress's idle-channel
#: timeout from closing the stream, and tells the phone the link is alive: a phone that hears
#: nothing for two of them says it is not live (app.js). One is sent as the stream opens, too.
KEEPALIVE_S = 15.0
#: how often a quiet stream checks whether its phone has gone
CHECK_S = 1.0
#: how long a browser waits before reconnecting after the stream ends
RETRY_MS = 2000
QUEUE_SIZE = 256
#: waitress threads kept free for ordinary requests while phones hold streams
RESERVED_THREADS = 6

_CLOSE = object()
_RESYNC = object()


def sse(event: str, data: Any, msg_id: int | None = None) -> bytes:
    lines = []
    if msg_id is not None:
        lines.append(f"id: {msg_id}")
    lines.append(f"event: {event}")
    lines.append("data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    return ("\n".join(lines) + "\n\n").encode()


class PushBroker:
    """Holds the open streams; ends them all when the server stops, and a session's when it signs out."""

    def __init__(self, hub: Hub, table: Table, max_streams: int, spectator_streams: int = 0) -> None:
        self.hub = hub
        self.table = table
        #: streams for joined phones; spectators' (`spectator_streams`) never take from these
        self.max_streams = max_streams
        self.spectator_streams = spectator_streams
        self._queues: dict[queue.Queue, str | None] = {}  # each stream's queue -> its session id
        self._spectators: set[queue.Queue] = set()
        self._lock = threading.Lock()
        self._closed = False

    @property
    def open_streams(self) -> int:
        with self._lock:
            return len(self._queues)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            queues = list(self._queues)
        for q in queues:
            _force_put(q, _CLOSE)

    def end_session(self, sid: str) -> None:
        """End the streams of session `sid` (it has signed out)."""
        with self._lock:
            queues = [q for q, owner in self._queues.items() if owner == sid]
        for q in queues:
            _force_put(q, _CLOSE)

    def snapshot(self) -> list[bytes]:
        """The whole picture: state and link status, tagged with the hub id they are at least as new as."""
        mark = self.hub.last_id  # read before the state: the state is at least this new
        return [
            sse("status", self.hub.status, None),
            sse("state", {"event": None, "state": self.table.state_json()}, mark),
        ]

    def catch_up(self, last_id: int, localise: Callable[[Message], Any] = lambda m: m.data
                 ) -> tuple[list[bytes], int] | None:
        """What a phone that saw `last_id` missed, or None when only a snapshot will do."""
        if last_id > self.hub.last_id:
            return None  # an id from before a restart of the server
        missed = self.hub.since(last_id)
        if missed is None:
            return None
        missed = [m for m in missed if m.topic in TOPICS]
        last_state = max((m.id for m in missed if m.topic == "state"), default=None)
        out = [sse(m.topic, localise(m), m.id) for m in missed if m.topic != "state" or m.id == last_state]
        return out, max((m.id for m in missed), default=last_id)

    def stream(self, last_id: int | None, gone: Callable[[], bool] = lambda: False, *,
               may_read: Callable[[], bool] = lambda: True, sid: str | None = None,
               localise: Callable[[Message], Any] = lambda m: m.data, spectator: bool = False) -> Iterator[bytes]:
        """The event stream for one phone; `gone()` says whether the phone has hung up (the server knows),
        `may_read()` whether its session may still read (asked before each message and each second),
        `localise(message)` the data as this phone is sent it (`in_language`)."""
        q: queue.Queue = queue.Queue(maxsize=QUEUE_SIZE)

        def deliver(msg: Message) -> None:
            try:
                q.put_nowait(msg)
            except queue.Full:  # this phone fell behind: drop its backlog, send it the whole state
                _force_put(q, _RESYNC)

        with self._lock:
            if self._closed:
                raise WebError(503, "stopping", _("The companion is stopping."))
            if spectator:
                if len(self._spectators) >= self.spectator_streams:
                    raise WebError(503, "busy", _("Too many phones are connected; retrying shortly."),
                                   headers={"Retry-After": "30"})
                self._spectators.add(q)
            elif len(self._queues) - len(self._spectators) >= self.max_streams:
                raise WebError(503, "busy", _("Too many phones are connected; retrying shortly."),
                               headers={"Retry-After": "5"})
            self._queues[q] = sid
        unsubscribe = self.hub.subscribe(deliver, set(TOPICS))

        def cleanup() -> None:
            unsubscribe()
            with self._lock:
                self._queues.pop(q, None)
                self._spectators.discard(q)

        try:
            caught = self.catch_up(last_id, localise) if last_id is not None else None
            if caught is None:
                first, sent_upto = self.snapshot(), self.hub.last_id
            else:
                first, sent_upto = caught
        except BaseException:
            cleanup()
            raise

        def generate() -> Iterator[bytes]:
            nonlocal sent_upto
            try:
                yield f"retry: {RETRY_MS}\n\n".encode()
                yield sse("ping", {"every": KEEPALIVE_S})
                yield from first
                quiet = 0.0
                while True:
                    try:
                        item = q.get(timeout=CHECK_S)
                    except queue.Empty:
                        # the phone left, or may no longer read: free this thread now, not at the next write
                        if gone() or not may_read():
                            return
                        quiet += CHECK_S
                        if quiet >= KEEPALIVE_S:
                            quiet = 0.0
                            yield sse("ping", {"every": KEEPALIVE_S})  # lets the page notice a dead link
                        continue
                    if item is _CLOSE or not may_read():
                        return
                    if item is _RESYNC:
                        _drain(q)
                        yield from self.snapshot()
                        sent_upto = self.hub.last_id
                        continue
                    if item.id <= sent_upto:
                        continue  # already in the snapshot or the catch-up
                    sent_upto = item.id
                    yield sse(item.topic, localise(item), item.id)
            finally:
                cleanup()

        return _Stream(generate(), cleanup)


class _Stream:
    """The response body; `close()` (called by the server when the phone goes) cleans up even if
    the body was never iterated."""

    def __init__(self, gen: Iterator[bytes], cleanup) -> None:
        self._gen = gen
        self._cleanup = cleanup

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        return next(self._gen)

    def close(self) -> None:
        self._gen.close()
        self._cleanup()


def _force_put(q: queue.Queue, item: object) -> None:
    while True:
        try:
            q.put_nowait(item)
            return
        except queue.Full:
            _drain(q)


def _drain(q: queue.Queue) -> None:
    try:
        while True:
            q.get_nowait()
    except queue.Empty:
        pass


def _last_id() -> int | None:
    raw = request.headers.get("Last-Event-ID") or request.args.get("last_id")
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise WebError(400, "bad_request", _("last_id must be a message number")) from None
    return value if value >= 0 else None


def in_language(translations) -> Callable[[Message], Any]:
    """A message's data as a phone with these `translations` (its language's catalog) is sent it:
    a refused dice roll's reason, an engine message (`companion.errors.N_`), translated and filled
    in. The page words the warnings themselves from their codes (app.js `warningText`); the
    stream outlives the request, so the catalog is taken along rather than looked up."""
    def localise(m: Message) -> Any:
        data = m.data
        template = data.get("reason_template") if m.topic == "warning" and isinstance(data, dict) else None
        if not template:
            return data
        try:
            reason = translations.gettext(template) % (data.get("reason_params") or {})
        except (KeyError, ValueError, TypeError):  # a translation whose placeholders do not fit: English
            return data
        return {**data, "reason": reason}
    return localise


@push.get("/api/stream")
def stream():
    viewer = require_read()
    # live streams are for joined phones; strangers (spectators without the code) only where the
    # table allows them some (`server.spectator_streams`), and never more than that
    spectator = not is_joined(viewer)
    if spectator and not services().settings.server.spectator_streams:
        raise WebError(403, "join_for_live", _("Live updates are for phones that joined with the table code."))
    # waitress tells a running app that its client hung up (with channel_request_lookahead > 0)
    gone = request.environ.get("waitress.client_disconnected") or (lambda: False)
    gen = web().broker.stream(_last_id(), gone, may_read=read_right(viewer), sid=viewer.sid,
                              localise=in_language(get_translations()), spectator=spectator)
    return Response(gen, mimetype="text/event-stream",
                    headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

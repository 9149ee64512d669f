"""In-process publish/subscribe: the one path from the game and the adapters to the phones and lamps.

Topics:
  "state"        the table, after every accepted event: {"event": …, "state": …}
  "status"       an adapter's link health changed: {name: {...}} (also kept in `Hub.status`)
  "warning"      something players must act on: {"code", "message", **details}; codes in use:
                 wrong_break, wrong_marker, wrong_wind, wrong_wall_length, rethrow, dice_unsure,
                 few_tiles_left, dice_link, dice_refused.
                 `message` is English (logs, lamps); a phone words the warning in its own
                 language from the code and the details (app.js `warningText`)
  "observation"  what the camera saw in a still frame (pixel coordinates, for the live overlay)

Every subscriber sees every message in id order — the web push relies on it to skip
what a phone already has. One thread at a time delivers: a publish made while another
delivery is under way (from another thread, or from inside a subscriber, as when the lamps
publish their status on a state change) is queued and delivered right after the current
message by the thread already delivering. Subscribers are called with no lock held, so a
subscriber may take its own locks and publish; it must return quickly (the web layer hands
messages to per-client queues). A short backlog lets a phone that slept resume from the
last message id it saw; it is bounded in messages and in bytes (the size of each message's data
as JSON), so that a long game cannot make it grow.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Message:
    id: int
    topic: str
    data: Any
    at: float
    #: the data's size as JSON, in bytes (what the backlog counts)
    size: int = 0


Subscriber = Callable[[Message], None]

#: the backlog's bound in bytes: ample for a phone that slept through several hands (a state
#: message is a few KiB, its history bounded), small beside a Pi's memory
BACKLOG_BYTES = 1 << 20


def _size(data: Any) -> int:
    try:
        return len(json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str).encode())
    except (TypeError, ValueError):  # not JSON at all (tests publish objects): count it small
        return 64


class Hub:
    def __init__(self, backlog: int = 512, max_bytes: int = BACKLOG_BYTES) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._backlog: deque[Message] = deque()
        self._max_messages = backlog
        self._max_bytes = max_bytes
        self._bytes = 0
        self._subscribers: list[tuple[Subscriber, frozenset[str] | None]] = []
        self._status: dict[str, dict[str, Any]] = {}
        self._outbox: deque[Message] = deque()
        self._delivering = False

    def publish(self, topic: str, data: Any) -> Message:
        """Publish; delivered before this returns unless another delivery is under way (then right after it)."""
        size = _size(data)  # outside the lock: another thread's publish need not wait for it
        with self._lock:
            msg = Message(next(self._ids), topic, data, time.time(), size)
            self._backlog.append(msg)
            self._bytes += size
            # the oldest go first; the newest message stays whatever its size
            while len(self._backlog) > 1 and (len(self._backlog) > self._max_messages or self._bytes > self._max_bytes):
                self._bytes -= self._backlog.popleft().size
            self._outbox.append(msg)
            if self._delivering:
                return msg  # the thread delivering now delivers this one next, in order
            self._delivering = True
        self._deliver()
        return msg

    def _deliver(self) -> None:
        """Deliver queued messages in id order until none is left (this thread is the one delivering)."""
        try:
            while True:
                with self._lock:
                    if not self._outbox:
                        self._delivering = False
                        return
                    msg = self._outbox.popleft()
                    subscribers = list(self._subscribers)
                for callback, topics in subscribers:
                    if topics is None or msg.topic in topics:
                        try:
                            callback(msg)
                        except Exception:  # one broken subscriber must not stop the others
                            log.exception("subscriber %r failed on %s", callback, msg.topic)
        except BaseException:
            with self._lock:  # e.g. KeyboardInterrupt: let the next publish deliver what is left
                self._delivering = False
            raise

    def subscribe(self, callback: Subscriber, topics: set[str] | None = None) -> Callable[[], None]:
        """Call `callback` for each message (of `topics`); returns the function that unsubscribes."""
        entry = (callback, frozenset(topics) if topics is not None else None)
        with self._lock:
            self._subscribers.append(entry)

        def unsubscribe() -> None:
            with self._lock:
                if entry in self._subscribers:
                    self._subscribers.remove(entry)

        return unsubscribe

    def since(self, last_id: int) -> list[Message] | None:
        """Messages after `last_id`; None if some were already dropped from the backlog."""
        with self._lock:
            backlog = list(self._backlog)
        if backlog and last_id < backlog[0].id - 1:
            return None
        return [m for m in backlog if m.id > last_id]

    @property
    def last_id(self) -> int:
        with self._lock:
            return self._backlog[-1].id if self._backlog else 0

    @property
    def backlog_bytes(self) -> int:
        """What the backlog holds, as JSON bytes (at most `max_bytes`, or the one newest message)."""
        with self._lock:
            return self._bytes

    def warn(self, code: str, message: str, **details: Any) -> Message:
        """Publish a warning for phones, lamps and the buzzer; `message` is for players."""
        return self.publish("warning", {"code": code, "message": message, **details})

    # --- link status of adapters (dice box, camera, GPIO …) --------------------------------------
    def set_status(self, name: str, status: dict[str, Any]) -> None:
        with self._lock:
            self._status[name] = dict(status)
        self.publish("status", {name: dict(status)})

    @property
    def status(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {k: dict(v) for k, v in self._status.items()}

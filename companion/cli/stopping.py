"""Signals noted without a lock, and a main loop woken by them at once.

A Python signal handler runs in the main thread between two bytecodes, wherever that thread
happens to be. A handler that calls `threading.Event.set()` while the main thread is inside
`Event.wait()` on the same event waits for a lock its own thread holds: the process hangs for
good (SIGTERM under systemd became a 20 s stall and a SIGKILL; Ctrl+C at a terminal did
nothing). Here the handler only appends to a deque (atomic, no lock) and writes one byte to a
non-blocking self-pipe; the main loop waits in `select()` on that pipe, so it wakes at once
and never shares a lock with the handler. Other threads may note things the same way.

The pipe is also `signal.set_wakeup_fd`'s: a signal the kernel hands to another thread than
the main one (any thread may take a process's signal) runs the Python handler only when the
main thread next runs Python code, which a `select()` without a timeout would never do; the C
handler writes to the wakeup fd in whatever thread, so the main thread wakes (1 stop in 150
of `companion run` hung for good without it).
"""

from __future__ import annotations

import collections
import os
import select
import signal
from collections.abc import Iterable


class SignalWaiter:
    """`catch(sig, what)` notes `what` when `sig` arrives; `wait(timeout)` returns what was noted."""

    def __init__(self) -> None:
        self._notes: collections.deque[str] = collections.deque()
        self._r, self._w = os.pipe()
        os.set_blocking(self._r, False)
        os.set_blocking(self._w, False)
        self._saved: dict[int, object] = {}
        self._old_wakeup = signal.set_wakeup_fd(self._w, warn_on_full_buffer=False)

    def catch(self, signals: Iterable[int] | int, what: str) -> None:
        """Note `what` on each of `signals` (the handler takes no lock; see the module)."""
        for sig in [signals] if isinstance(signals, int) else signals:
            self._saved.setdefault(sig, signal.getsignal(sig))
            signal.signal(sig, lambda *_, what=what: self.note(what))

    def note(self, what: str) -> None:
        """Note `what` and wake the waiter; safe from a signal handler and from any thread."""
        self._notes.append(what)
        if self._w < 0:  # closed: nobody waits any more
            return
        try:
            os.write(self._w, b"\0")
        except OSError:  # the pipe is full (the waiter is woken anyway) or already closed
            pass

    def noted(self, what: str) -> bool:
        """Whether `what` is noted and not yet taken by `wait()`."""
        return what in tuple(self._notes)

    def wait(self, timeout: float | None) -> list[str]:
        """What was noted since the last call, waiting up to `timeout` seconds for something."""
        if not self._notes:
            try:
                select.select([self._r], [], [], timeout)
            except InterruptedError:  # pragma: no cover - retried by Python itself (PEP 475)
                pass
        try:
            while os.read(self._r, 512):
                pass
        except (BlockingIOError, OSError):
            pass
        taken = []
        while self._notes:
            taken.append(self._notes.popleft())
        return taken

    def close(self) -> None:
        """Give the signals back their earlier handlers and close the pipe."""
        if self._w >= 0:
            signal.set_wakeup_fd(self._old_wakeup)
        for sig, handler in self._saved.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]
        self._saved.clear()
        fds, self._r, self._w = (self._r, self._w), -1, -1
        for fd in fds:
            if fd >= 0:
                os.close(fd)

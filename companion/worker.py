"""Base of a component whose work is one background thread.

`_run()` loops until `self._stop` is set and waits with `self._stop.wait(seconds)`, so that
`stop()` wakes it at once. Subclasses add their own steps around `super().start()` and
`super().stop()` (publish a status first, close a port after the thread has ended …).
"""

from __future__ import annotations

import threading


class Worker:
    #: component name (Services.find) and, unless `thread_name` says otherwise, the thread's name
    name = "worker"
    thread_name: str | None = None
    #: how long stop() waits for the thread to end
    join_timeout = 5.0

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and not self._stop.is_set()

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=self.thread_name or self.name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._join()

    def _join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout=self.join_timeout if timeout is None else timeout)
            self._thread = None

    def _run(self) -> None:
        raise NotImplementedError

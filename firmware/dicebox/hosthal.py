"""The hardware layer in memory, for CPython: the host's tests and the virtual dice box.

Inputs are levels a test or the simulator sets (`pressed`, `tilted`), the LEDs are a list
of faces, the serial line is two byte buffers, flash is a dict. The clock is the
monotonic clock or one the caller drives (tests step it millisecond by millisecond).
Thread-safe where the virtual box needs it: the host side writes `rx` and reads `tx`
from other threads.
"""

import os
import random
import threading
import time

from dicebox.hal import Hal


class HostHal(Hal):
    def __init__(self, clock=None, seed=None, storage=None):
        #: milliseconds; default: the monotonic clock
        self.clock = clock or (lambda: int(time.monotonic() * 1000))
        self.pressed = False
        self.tilted = False
        self.faces = []
        #: every face pattern shown, in order (the animation, then the result)
        self.shown = []
        self.storage = {} if storage is None else storage
        self.feeds = 0
        self._random = random.Random(seed).randbytes if seed is not None else os.urandom
        self._lock = threading.Lock()
        self._rx = bytearray()
        self._tx = bytearray()
        #: called with each chunk the box writes (the virtual box forwards it to the wire)
        self.on_write = None

    def ticks_ms(self):
        return self.clock()

    def button(self):
        return self.pressed

    def tilt(self):
        return self.tilted

    def show(self, faces):
        self.faces = list(faces)
        self.shown.append(list(faces))
        del self.shown[:-1000]

    def write(self, data):
        if self.on_write is not None:
            self.on_write(bytes(data))
        else:
            with self._lock:
                self._tx += data

    def read(self):
        with self._lock:
            data, self._rx = bytes(self._rx), bytearray()
        return data

    def random_bytes(self, n):
        return self._random(n)

    def feed_watchdog(self):
        self.feeds += 1

    def load(self, name):
        return self.storage.get(name)

    def save(self, name, text):
        self.storage[name] = text

    # --- the host's end of the line ----------------------------------------------------------
    def feed(self, data):
        """Bytes from the host to the box."""
        with self._lock:
            self._rx += data

    def take(self):
        """Bytes the box has written since the last call (when no `on_write` is set)."""
        with self._lock:
            data, self._tx = bytes(self._tx), bytearray()
        return data

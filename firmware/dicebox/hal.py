"""The thin hardware layer: everything the box logic needs from the board, and nothing more.

`rp2040.py` implements it with `machine` pins, USB serial, the ring-oscillator random bit,
the hardware watchdog and flash; `hosthal.py` implements it in memory for the host's tests
and the virtual dice box. Methods are called from one loop only, so no locking is needed.
"""


class Hal:
    def ticks_ms(self):
        """A millisecond counter (may wrap on the board; compare with ticks_diff)."""
        raise NotImplementedError

    def ticks_diff(self, a, b):
        """a - b in milliseconds, correct across a wrap of the counter."""
        return a - b

    def button(self):
        """Raw level of the ROLL button: True while pressed (contacts bounce; the logic debounces)."""
        raise NotImplementedError

    def tilt(self):
        """Raw level of the tilt/shake switch: True while closed."""
        raise NotImplementedError

    def show(self, faces):
        """Light the pips of each die: faces[i] in 0..6, 0 = dark."""
        raise NotImplementedError

    def write(self, data):
        """Send bytes to the host (dropped while no host listens: the logic resends what matters)."""
        raise NotImplementedError

    def read(self):
        """Bytes received from the host since the last call (b"" if none); never blocks."""
        raise NotImplementedError

    def random_bytes(self, n):
        """n bytes from a hardware entropy source (the RP2040's ring-oscillator random bit)."""
        raise NotImplementedError

    def feed_watchdog(self):
        """Tell the watchdog the loop is alive; a loop that stops feeding it resets the box."""

    def load(self, name):
        """Text stored under `name` that survives a reset or power loss, or None."""
        return None

    def save(self, name, text):
        """Store `text` under `name` atomically (the old text or the new, never half)."""

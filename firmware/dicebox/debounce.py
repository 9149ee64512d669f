"""Input conditioning: a debounced switch and a shake detector built on it."""


class Debouncer:
    """A switch level that changes only after the raw input has held the new level for `stable_ms`.

    Mechanical contacts bounce for a few milliseconds on every press and release; without this
    one press would start several rolls.
    """

    def __init__(self, stable_ms=20, level=False):
        self.stable_ms = stable_ms
        self.level = level
        self._candidate = level
        self._since = None

    def update(self, raw, now, diff):
        """Feed the raw level at time `now`; True when the debounced level changed on this call."""
        raw = bool(raw)
        if raw == self.level:
            self._candidate, self._since = raw, None
            return False
        if raw != self._candidate or self._since is None:
            self._candidate, self._since = raw, now
        if diff(now, self._since) >= self.stable_ms:
            self.level, self._since = raw, None
            return True
        return False


class ShakeDetector:
    """Tells a real shake from picking the box up or nudging it.

    The tilt switch closes and opens as the ball inside moves. Lifting or bumping the box
    gives one or two changes; only `min_changes` debounced changes within `window_ms`
    count as a shake (a known complaint about smart dice is rolls reported on a nudge).
    """

    def __init__(self, min_changes=6, window_ms=1500, stable_ms=5):
        self.min_changes = min_changes
        self.window_ms = window_ms
        self.switch = Debouncer(stable_ms)
        self._changes = []
        self.last_motion = None

    def reset(self):
        """Forget past motion (after a roll: the next one needs a shake of its own)."""
        self._changes = []

    def update(self, raw, now, diff):
        """Feed the raw tilt level; True while the box is being shaken (enough recent changes)."""
        if self.switch.update(raw, now, diff):
            self._changes.append(now)
            self.last_motion = now
        while self._changes and diff(now, self._changes[0]) > self.window_ms:
            self._changes.pop(0)
        return len(self._changes) >= self.min_changes

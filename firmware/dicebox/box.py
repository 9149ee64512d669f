"""The dice box: inputs → roll animation → faces → reports resent until the host acknowledges.

Driven by `tick()` from one loop (the board's main loop, or the virtual box's thread):
no threads, no blocking, no allocation-heavy work. See hardware_docs/dice-protocol.md for
the messages and their meaning.
"""

from dicebox import FW_VERSION, N_DICE
from dicebox.debounce import Debouncer, ShakeDetector
from dicebox.frame import MAX_LINE, PROTOCOL, decode, encode
from dicebox.rng import DiceRng

OUTBOX_FILE = "outbox"

#: the host's commands and how many fields each takes after its TYPE (hardware_docs/dice-protocol.md)
COMMAND_FIELDS = {"ACK": 2, "PING": 0, "HELLO": 0}


class DiceBox:
    #: how long the dice tumble after the press, or after the last motion of a shake
    ROLL_MS = 900
    #: animation frame interval at the start; frames slow down as the dice "settle"
    FRAME_MS = 40
    #: first resend of an unacknowledged report, doubled after each try up to RESEND_MAX_MS
    RESEND_MS = 250
    RESEND_MAX_MS = 2000
    #: reports kept until acknowledged; a full outbox refuses new rolls (never drops one)
    OUTBOX_MAX = 16

    def __init__(self, hal, n_dice=N_DICE):
        self.hal = hal
        self.n_dice = n_dice
        self.rng = DiceRng(hal.random_bytes)
        self.boot_id = "".join("%02x" % b for b in hal.random_bytes(4))
        self.seq = 0
        self.button = Debouncer(20)
        self.shake = ShakeDetector()
        self.faces = [0] * n_dice
        self.rolling = False
        self._roll_start = self._last_motion = self._next_frame = 0
        self._frame_ms = self.FRAME_MS
        self._rx = b""
        self._rx_overflow = False
        #: unacknowledged reports: [boot_id, seq, frame bytes, due tick, interval]
        self.outbox = []
        #: an ACK emptied a slot that flash still holds: written once, at the end of the tick
        self._outbox_dirty = False
        now = hal.ticks_ms()
        stored = hal.load(OUTBOX_FILE)
        for line in (stored or "").split("\n"):
            fields = decode(line.encode(), legacy=True)  # an older firmware's (XOR) reports too
            if fields and len(fields) >= 3 and fields[2].isdigit():
                # reports from before a reset or power loss keep their own boot id and seq; framed
                # again as this protocol frames them (a firmware update loses no stored report)
                self.outbox.append([fields[1], int(fields[2]), encode(*fields), now, self.RESEND_MS])
        self.send("HELLO", FW_VERSION, self.boot_id, n_dice, PROTOCOL)
        hal.show(self.faces)

    # --- the loop ----------------------------------------------------------------------------
    def tick(self):
        hal = self.hal
        hal.feed_watchdog()
        now = hal.ticks_ms()
        self._receive(hal.read())
        pressed = self.button.update(hal.button(), now, hal.ticks_diff) and self.button.level
        shaking = self.shake.update(hal.tilt(), now, hal.ticks_diff)
        if pressed or shaking:
            if not self.rolling:
                self._start_roll(now)
            # the dice tumble on until ROLL_MS after the last press or the last motion of the shake
            self._last_motion = now if pressed else self.shake.last_motion
        if self.rolling:
            self._animate(now)
        self._resend(now)
        if self._outbox_dirty:
            # one flash write per tick, however many ACKs the tick read (16 after a reconnect)
            self._store_outbox()

    # --- rolling -----------------------------------------------------------------------------
    def _start_roll(self, now):
        if len(self.outbox) >= self.OUTBOX_MAX:
            self.send("ERR", "outbox_full", "host not acknowledging; roll refused")
            self.shake.reset()
            return
        self.rolling = True
        self.seq += 1
        self._roll_start = self._next_frame = now
        self._frame_ms = self.FRAME_MS
        self.send("ROLLING", self.boot_id, self.seq)

    def _animate(self, now):
        diff = self.hal.ticks_diff
        if diff(now, self._last_motion) >= self.ROLL_MS:
            self.rolling = False
            self.shake.reset()  # the next roll needs a new shake
            # the moment the dice settle depends on the player's hand: stir it in with fresh entropy
            self.rng.stir(bytes((now & 0xFF, (now >> 8) & 0xFF, diff(now, self._roll_start) & 0xFF)))
            self.faces = [self.rng.face() for _ in range(self.n_dice)]
            self.hal.show(self.faces)
            self.report("ROLL", self.seq, *self.faces)
        elif diff(now, self._next_frame) >= 0:
            self.hal.show([self.rng.face() for _ in range(self.n_dice)])
            self._frame_ms = min(self._frame_ms + 15, 200)  # slowing down: the dice settle
            self._next_frame = now + self._frame_ms

    # --- sending -----------------------------------------------------------------------------
    def send(self, kind, *fields):
        self.hal.write(encode(kind, *fields))

    def report(self, kind, seq, *fields):
        """Send a report that must reach the host: it is kept (and stored) until acknowledged."""
        frame = encode(kind, self.boot_id, seq, *fields)
        self.outbox.append([self.boot_id, seq, frame, self.hal.ticks_ms() + self.RESEND_MS, self.RESEND_MS])
        self._store_outbox()
        self.hal.write(frame)

    def _resend(self, now):
        for entry in self.outbox:
            if self.hal.ticks_diff(now, entry[3]) >= 0:
                self.hal.write(entry[2])
                entry[4] = min(entry[4] * 2, self.RESEND_MAX_MS)
                entry[3] = now + entry[4]

    def _store_outbox(self):
        self._outbox_dirty = False
        self.hal.save(OUTBOX_FILE, "\n".join(e[2].decode().rstrip() for e in self.outbox))

    # --- receiving ---------------------------------------------------------------------------
    def _receive(self, data):
        # '$' always begins a frame: noise before it (however long) never costs the frame after it
        if not data:
            return
        buf = self._rx + data
        while True:
            nl = buf.find(b"\n")
            if nl < 0:
                break
            line, buf = buf[:nl + 1], buf[nl + 1:]
            start = line.rfind(b"$")
            if self._rx_overflow:
                self._rx_overflow = False
                if start < 0:
                    continue  # the rest of an over-long line: drop it
            if len(line) - max(start, 0) > MAX_LINE:
                self.send("ERR", "too_long", "line over %d bytes" % MAX_LINE)
            else:
                self._handle(line)
        if len(buf) > MAX_LINE:
            start = buf.rfind(b"$")
            if start > 0 and len(buf) - start <= MAX_LINE:  # noise, then a frame still arriving
                self.send("ERR", "bad_frame", "noise before the frame")
                buf = buf[start:]
            else:
                if not self._rx_overflow:
                    self.send("ERR", "too_long", "line over %d bytes" % MAX_LINE)
                buf, self._rx_overflow = b"", True
        self._rx = buf

    def _handle(self, line):
        start = line.rfind(b"$")
        if start > 0:  # noise before the frame (e.g. a half line from before the host reconnected)
            self.send("ERR", "bad_frame", "noise before the frame")
            line = line[start:]
        fields = decode(line)
        if fields is None:
            if line.strip():
                self.send("ERR", "bad_frame", "bad framing or checksum")
            return
        kind = fields[0]
        if kind == "ERR":
            # never answer an error with an error: an echoing line (a loopback, a terminal)
            # would otherwise bounce the box's own ERR back and forth for ever
            return
        n = COMMAND_FIELDS.get(kind)
        if n is None:
            self.send("ERR", "unknown_type", kind[:16].replace("$", "?").replace("*", "?"))
        elif len(fields) - 1 != n:
            # e.g. the box's own HELLO read back: answering it as a HELLO query would loop
            self.send("ERR", "bad_field", "%s with %d fields" % (kind, len(fields) - 1))
        elif kind == "ACK":
            self._ack(fields[1], fields[2])
        elif kind == "PING":
            self.send("PONG")
        else:
            self.send("HELLO", FW_VERSION, self.boot_id, self.n_dice, PROTOCOL)

    def _ack(self, boot_id, seq):
        if not seq.isdigit():
            self.send("ERR", "bad_field", "seq")
            return
        seq = int(seq)
        kept = [e for e in self.outbox if not (e[0] == boot_id and e[1] == seq)]
        if len(kept) != len(self.outbox):
            self.outbox = kept
            # flash is written at the end of the tick: a power cut before then resends this
            # report once after the reset, which the host acknowledges again as a duplicate
            self._outbox_dirty = True

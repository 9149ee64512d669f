"""The host's reader of a dice box: a thread on a pyserial port, with reconnect and link status.

Any pyserial URL works through one code path (`serial.serial_for_url`): /dev/ttyACM0,
socket://host:port, rfc2217://host:port, loop://, or the pty of the virtual dice box. The
reader acknowledges a ROLL only once it is durably in the game log (or found there already,
or refused by the game and reported to the players), so the box resends until then and
every (boot_id, seq) is recorded exactly once (the log's unique key `dice:<boot>:<seq>`).
Bad lines are counted by kind and logged; they never reach the game.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import serial

from companion.errors import CompanionError
from companion.hardware.dice.protocol import (
    BAUD,
    ERROR_CODES,
    Ack,
    Cocked,
    Err,
    Hello,
    HelloQuery,
    LineSplitter,
    Message,
    Ping,
    Pong,
    ProtocolError,
    Roll,
    Rolling,
    encode,
    parse,
)
from companion.hardware.dice.rolls import record_roll
from companion.table import Table
from companion.worker import Worker

log = logging.getLogger(__name__)



def open_error(url: str, error: str) -> str:
    """'cannot open URL: why (hint)' from pyserial's words, which repeat the URL
    ("cannot open X: [Errno 2] could not open port X: [Errno 2] No such file or directory: 'X'")."""
    if "exclusively lock" in error:
        return (f"cannot open {url}: another program holds it "
                "(is the companion service running, or a serial terminal?)")
    u = re.escape(url)
    why = re.sub(rf"^(?:(?:\[Errno \d+\] )?(?:cannot|could not) open(?: port)? {u}: )+", "", error, flags=re.I)
    why = re.sub(rf"^\[Errno \d+\] |: '{u}'$", "", why) or error
    if "permission denied" in why.lower():
        hint = " (the user running the companion must be in the dialout group: " \
               "`sudo usermod -aG dialout $USER`, then log in again)"
    elif url.startswith("/dev/"):
        hint = " (is the dice box plugged in? `ls /dev/serial/by-id/`)"
    else:
        hint = ""
    return f"cannot open {url}: {why}{hint}"

class DiceLinkError(CompanionError, RuntimeError):
    """The dice box cannot do what was asked (e.g. press ROLL on a real box from the dashboard)."""


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class DiceLink(Worker):
    """Component "dice": reads the box, records its rolls, publishes `hub.status["dice"]`."""

    name = "dice"
    thread_name = "dice-link"
    #: seconds to wait before reopening a port that failed; doubled up to `reconnect_max`
    RECONNECT_MIN = 0.1
    #: how often link status is republished when only `last_heard` changed
    STATUS_EVERY = 5.0
    #: unanswered pings after which the box counts as not answering; a box that has just
    #: connected gets as long to say its first word before it is called silent
    SILENT_PINGS = 3

    def __init__(
        self,
        url: str,
        table: Table,
        *,
        kind: str = "serial",
        source: str = "serial",
        opener: Callable[[], Any] | None = None,
        press_roll: Callable[[], None] | None = None,
        ping_interval: float = 2.0,
        reconnect_max: float = 5.0,
        read_timeout: float = 0.05,
    ) -> None:
        self.url = url
        self.table = table
        self.hub = table.hub
        self.kind = kind
        self.source = source
        # exclusive: a second reader of the port (another companion, a terminal) would take some of
        # the box's lines, its rolls and PONGs, and acknowledge what this one never saw
        self._opener = opener or (lambda: serial.serial_for_url(url, baudrate=BAUD, timeout=read_timeout,
                                                                write_timeout=1.0, exclusive=True))
        self._press_roll = press_roll
        self.ping_interval = ping_interval
        self.reconnect_max = reconnect_max
        self._splitter = LineSplitter()
        self._lock = threading.Lock()
        super().__init__()
        self._published_at = 0.0
        self._ever_connected = 0
        # link state, shown in status
        self.connected = False
        self.responding = False
        self.last_heard: str | None = None
        self._heard_at = 0.0
        self._connected_at = 0.0
        self.firmware: str | None = None
        self.boot_id: str | None = None
        self.n_dice: int | None = None
        self.rolling = False
        self.errors: dict[str, int] = {code: 0 for code in ERROR_CODES} | {"device": 0, "unexpected": 0, "store": 0}
        self.counts = {"lines": 0, "rolls_recorded": 0, "duplicates": 0, "refused": 0, "reconnects": 0}
        self.last_roll: dict[str, Any] | None = None
        self.last_error: str | None = None

    # --- the component -------------------------------------------------------------------------
    def start(self) -> None:
        self._publish(force=True)
        super().start()

    def press_roll(self) -> None:
        """Press ROLL on the virtual dice box (the dashboard's demo button); a real box has its own."""
        if self._press_roll is None:
            raise DiceLinkError("this is a real dice box: press the ROLL button on the box")
        self._press_roll()

    @property
    def status(self) -> dict[str, Any]:
        state = self.table.state
        with self._lock:
            return {
                "kind": self.kind,
                "url": self.url,
                "connected": self.connected,
                "responding": self.responding,
                # not heard from yet, but still within its grace: the doctor does not call it silent yet
                "just_connected": self.connected and self._heard_at < self._connected_at
                and time.monotonic() - self._connected_at <= self._silent_after,
                "last_heard": self.last_heard,
                "firmware": self.firmware,
                "boot_id": self.boot_id,
                "n_dice": self.n_dice,
                "rolling": self.rolling,
                "errors": dict(self.errors),
                **self.counts,
                "unassigned": len(state.unassigned) if state else 0,
                "last_roll": dict(self.last_roll) if self.last_roll else None,
                "last_error": self.last_error,
                "can_press_roll": self._press_roll is not None,
            }

    # --- bytes in, replies out (no I/O: the tests drive this directly) -----------------------------
    def process(self, data: bytes) -> bytes:
        """Handle bytes from the box; returns the bytes to send back (acknowledgements, answers)."""
        replies: list[bytes] = []
        changed = False
        for item in self._splitter.feed(data):
            if isinstance(item, ProtocolError):
                self._bad(item)
                changed = True
                continue
            try:
                msg = parse(item, n_dice=self._n_dice())
            except ProtocolError as e:
                self._bad(e)
                changed = True
                continue
            with self._lock:
                self.counts["lines"] += 1
            reply, important = self._handle(msg)
            replies += reply
            changed |= important
        if data:
            changed |= self._heard()
        self._publish(force=changed)
        return b"".join(replies)

    def _bad(self, e: ProtocolError) -> None:
        with self._lock:
            self.errors[e.code] += 1
            if e.code == "old_protocol":  # nothing it sends can be read: say why on the phones and in doctor
                self.last_error = str(e)
        log.warning("dice box: %s (%s): %r", e.code, e, e.line[:60])

    def _handle(self, msg: Message) -> tuple[list[bytes], bool]:
        match msg:
            case Roll(boot_id, seq, faces):
                return self._throw(boot_id, seq, list(faces), []), True
            case Cocked(boot_id, seq, die, faces):
                if faces is None:  # which faces the other dice show is unknown: the whole throw is repeated
                    n = self._n_dice()
                    return self._throw(boot_id, seq, [0] * n, list(range(n))), True
                return self._throw(boot_id, seq, list(faces), [die]), True
            case Rolling():
                with self._lock:
                    self.rolling = True
                return [], True
            case Hello(firmware, boot_id, n_dice, _):
                with self._lock:
                    self.firmware, self.boot_id, self.n_dice = firmware, boot_id, n_dice
                log.info("dice box: firmware %s, boot %s, %d dice", firmware, boot_id, n_dice)
                return [], True
            case Err(code, text):
                with self._lock:
                    self.errors["device"] += 1
                    self.last_error = f"box: {code} {text}".strip()
                log.warning("dice box reports an error: %s %s", code, text)
                return [], True
            case Pong():
                return [], False
            case Ack() | Ping() | HelloQuery():  # host messages never come from a box (an echoing line?)
                with self._lock:
                    self.errors["unexpected"] += 1
                return [], True
        return [], False

    def _n_dice(self) -> int:
        """The box's number of dice (its HELLO), else the game's."""
        state = self.table.state
        return self.n_dice or (state.variant.dice.dice if state else 2)

    def _throw(self, boot_id: str, seq: int, faces: list[int], cocked: list[int]) -> list[bytes]:
        key = f"dice:{boot_id}:{seq}"
        ack = [encode(Ack(boot_id, seq))]
        with self._lock:
            self.rolling = False
        try:
            outcome = record_roll(self.table, faces, source=self.source, cocked=cocked,  # type: ignore[arg-type]
                                  boot_id=boot_id, seq=seq, key=key)
        except Exception as e:  # the log could not be written: no ACK, the box sends it again
            with self._lock:
                self.errors["store"] += 1
                self.last_error = f"cannot record the roll: {e}"
            log.exception("dice box roll %s not recorded; the box will resend it", key)
            return []
        with self._lock:
            if outcome.status == "recorded":
                self.counts["rolls_recorded"] += 1
            elif outcome.status == "duplicate":
                self.counts["duplicates"] += 1
            else:
                self.counts["refused"] += 1
            if outcome.status != "duplicate":
                self.last_roll = {"faces": faces, "cocked": cocked, "boot_id": boot_id, "seq": seq,
                                  "status": outcome.status, "reason": outcome.reason,
                                  "event": outcome.record.id if outcome.record else None}
        return ack

    # --- status ----------------------------------------------------------------------------------
    @property
    def _silent_after(self) -> float:
        return self.SILENT_PINGS * self.ping_interval

    def _heard(self) -> bool:
        """Note the box spoke; True when it had not been answering (worth publishing at once)."""
        with self._lock:
            self._heard_at = time.monotonic()
            self.last_heard = _now_iso()
            was, self.responding = self.responding, True
        return not was

    def _publish(self, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self._published_at >= self.STATUS_EVERY:
            self._published_at = now
            self.hub.set_status("dice", self.status)

    def _set_connected(self, connected: bool, reason: str | None = None) -> None:
        with self._lock:
            was = self.connected
            self.connected = connected
            if not connected:
                self.responding = self.rolling = False
            elif not was:
                self._connected_at = time.monotonic()
                self.last_error = None  # the port opens again: an earlier failure is history
            if reason:
                self.last_error = reason
            if connected and not was:
                self.counts["reconnects"] += self._ever_connected
                self._ever_connected = 1
        if was and not connected:
            self.hub.warn("dice_link", f"Dice box disconnected ({reason}); reconnecting …", url=self.url,
                          state="disconnected")
        self._publish(force=True)

    # --- the thread ------------------------------------------------------------------------------
    def _run(self) -> None:
        delay = self.RECONNECT_MIN
        while not self._stop.is_set():
            try:
                port = self._opener()
            except (serial.SerialException, OSError, ValueError) as e:
                reason = open_error(self.url, str(e))
                if reason != self.last_error:  # once per distinct failure, not once per retry
                    log.warning("dice box not available: %s (retrying)", reason)
                self._set_connected(False, reason)
                self._stop.wait(delay)
                delay = min(delay * 2, self.reconnect_max)  # back off while the box is away
                continue
            delay = self.RECONNECT_MIN
            self._splitter = LineSplitter()  # a partial line from before is noise now
            self._set_connected(True)
            log.info("dice box connected on %s", self.url)
            reason = "closed"
            try:
                self._serve(port)
            except (serial.SerialException, OSError) as e:
                reason = str(e) or type(e).__name__
                log.warning("dice box link lost: %s", reason)
            except Exception as e:  # a bug must not end the reader for good: log it, reopen, go on
                reason = f"reader error: {e!r}"
                log.exception("dice box reader failed; reopening the port")
            finally:
                try:
                    port.close()
                except Exception:
                    pass
            self._set_connected(False, None if self._stop.is_set() else reason)
            self._stop.wait(self.RECONNECT_MIN)

    def _serve(self, port) -> None:
        port.write(encode(HelloQuery()))  # the box said HELLO at its boot; ask again
        next_ping = time.monotonic() + self.ping_interval
        said_silent = False
        while not self._stop.is_set():
            data = port.read(port.in_waiting or 1)
            if data:
                reply = self.process(data)
                if reply:
                    port.write(reply)
            now = time.monotonic()
            if now >= next_ping:
                port.write(encode(Ping()))
                next_ping = now + self.ping_interval
                # a box that just connected counts from its connection, not from an older answer
                silent = now - max(self._heard_at, self._connected_at) > self._silent_after
                # said once per silence: when an answering box falls silent, and when a box that
                # has just been connected never says a word (a wrong device, a hung box)
                if silent and (self.responding or not said_silent):
                    with self._lock:
                        self.responding = False
                    said_silent = True
                    said = "The dice box does not answer" + ("" if self.last_heard else
                                                             f" on {self.url} (is it the dice box?)")
                    log.warning("%s", said)  # for the service's log too, not only the phones
                    self.hub.warn("dice_link", said, url=self.url, state="silent")
                elif not silent:
                    said_silent = False
                self._publish(force=silent)

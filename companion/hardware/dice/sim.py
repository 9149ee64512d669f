"""The virtual dice box: the real firmware logic (`dicebox`) on a simulated board, behind a port.

`VirtualDiceBox` runs `dicebox.box.DiceBox` on `HostHal` in a thread at the board's loop rate,
and puts a faulty wire between it and the host: noise lines, corrupted bytes, lost ACKs,
a cocked die (as a box that reads physical dice reports one), unplugging. The host reaches
it through a transport, exactly as it reaches a real box:

* `PtyTransport`: a pseudo-terminal; the host opens its path (or a stable symlink) as a serial port;
* `TcpTransport`: a TCP port; the host opens `socket://host:port`;
* `VirtualPort`: a pyserial-like port object in-process (tests and tools that need no OS port).

The ROLL button, the shake and the faults are methods, so a CLI, a dashboard button or a
test can press them (`press_roll()`, `shake()`, `disconnect()`, `reboot()`).
"""

from __future__ import annotations

import logging
import os
import random
import select
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import serial
from dicebox import FW_VERSION
from dicebox.box import DiceBox
from dicebox.frame import decode as fw_decode
from dicebox.frame import encode as fw_encode
from dicebox.hosthal import HostHal

from companion.errors import CompanionError
from companion.worker import Worker

log = logging.getLogger(__name__)

#: how long the virtual finger holds ROLL down (the firmware debounces for 20 ms)
PRESS_MS = 60


@dataclass
class Faults:
    """What goes wrong on the virtual wire. Probabilities are per line; 0 turns a fault off."""

    #: a line of noise (random bytes, non-ASCII, over-long, bad frames) before a line from the box
    garbage: float = 0.0
    #: one byte of a line from the box is changed, so its checksum no longer matches
    corrupt: float = 0.0
    #: an ACK from the host is lost on its way to the box (which then resends)
    drop_acks: float = 0.0
    #: a roll is reported as COCKED: one die landed cocked and must be thrown again (R18)
    cocked: float = 0.0
    #: seconds between simulated unplugs of the cable (0: never)
    disconnect_every: float = 0.0


class Transport:
    """Where the box's bytes go: one host at a time."""

    def deliver(self, data: bytes) -> None:
        raise NotImplementedError

    def drop(self) -> None:
        """The cable is pulled: the host sees the port fail and must reopen it."""


class VirtualDiceBox(Worker):
    thread_name = "dice-box"

    def __init__(self, *, seed: int | None = None, faults: Faults | None = None, roll_ms: int | None = None,
                 storage: dict | None = None, tick_ms: float = 2.0) -> None:
        self.faults = faults or Faults()
        self.roll_ms = roll_ms
        self.tick_ms = tick_ms
        self._rng = random.Random(seed)
        self.hal = HostHal(seed=seed, storage={} if storage is None else storage)
        self.hal.on_write = self._from_box
        self._lock = threading.RLock()
        self._transport: Transport | None = None
        self._host_partial = b""
        super().__init__()
        self._presses = 0
        self._press_until: int | None = None
        self._released_until = 0
        self._shake_toggles: list[int] = []
        self._reboot = False
        self._cock_next = 0
        self._cocked_seqs: dict[tuple[str, str], int] = {}
        self._drop_next_acks = 0
        self._last_disconnect = time.monotonic()
        self.resets = 0
        #: called with (direction, line) for every line on the wire: "box" lines as the host
        #: receives them (after faults), "host" lines as the host sent them
        self.listeners: list[Callable[[str, bytes], None]] = []
        self.box = self._boot()

    def _boot(self) -> DiceBox:
        box = DiceBox(self.hal)
        if self.roll_ms is not None:
            box.ROLL_MS = self.roll_ms
        return box

    @property
    def boot_id(self) -> str:
        return self.box.boot_id

    def describe(self) -> str:
        return f"firmware {FW_VERSION}, boot id {self.boot_id}"

    # --- lifecycle ----------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._step()
            except Exception:
                # the firmware loop died: on the board the watchdog resets it, so here too
                log.exception("virtual dice box crashed; watchdog reset")
                with self._lock:
                    self._reboot = True
            time.sleep(self.tick_ms / 1000)

    def _step(self) -> None:
        now = self.hal.ticks_ms()
        with self._lock:
            if self._reboot:
                self._reboot = False
                self.resets += 1
                self.hal.pressed = self.hal.tilted = False
                self.box = self._boot()
            # The virtual finger holds each level until the firmware has taken it in (its debounced
            # level changed), so a host too busy to tick every 2 ms cannot make a press or a shake vanish.
            if self._press_until is not None:
                if now >= self._press_until and self.box.button.level:  # lift, then stay up a moment
                    self.hal.pressed, self._press_until = False, None
                    self._released_until = now + PRESS_MS
            elif self._presses and now >= self._released_until and not self.box.button.level:
                self._presses -= 1
                self.hal.pressed, self._press_until = True, now + PRESS_MS
            tilt_taken = self.box.shake.switch.level == self.hal.tilted
            if self._shake_toggles and self._shake_toggles[0] <= now and tilt_taken:
                self._shake_toggles.pop(0)
                self.hal.tilted = not self.hal.tilted
            every = self.faults.disconnect_every
            if every and time.monotonic() - self._last_disconnect >= every:
                self._last_disconnect = time.monotonic()
                self.disconnect()
            box = self.box
        box.tick()

    # --- the player's hand --------------------------------------------------------------------
    def press_roll(self) -> None:
        """Press the ROLL button (held for PRESS_MS, like a finger; presses in a row are queued)."""
        with self._lock:
            self._presses += 1

    def shake(self, changes: int = 10, every_ms: int = 60) -> None:
        """Shake the box: the tilt switch opens and closes `changes` times."""
        now = self.hal.ticks_ms()
        with self._lock:
            self._shake_toggles = [now + (i + 1) * every_ms for i in range(changes)]

    def nudge(self) -> None:
        """Bump the box once: the tilt switch changes once and back (no roll, by design)."""
        self.shake(changes=2, every_ms=150)

    # --- faults on demand ---------------------------------------------------------------------
    def reboot(self) -> None:
        """Power-cycle the box: new boot id; unacknowledged reports survive in its flash."""
        with self._lock:
            self._reboot = True

    def cock_next_roll(self, count: int = 1) -> None:
        with self._lock:
            self._cock_next += count

    def drop_next_acks(self, count: int = 1) -> None:
        """Lose the next `count` ACKs from the host (0: stop losing them)."""
        with self._lock:
            self._drop_next_acks = count

    def send_garbage(self) -> None:
        self._deliver(self._noise())

    def disconnect(self) -> None:
        """Pull the cable (the transport makes the host's port fail; the host must reopen it)."""
        with self._lock:
            transport = self._transport
        if transport is not None:
            log.info("virtual dice box: cable pulled")
            transport.drop()

    # --- the wire -----------------------------------------------------------------------------
    def attach(self, transport: Transport | None) -> None:
        with self._lock:
            self._transport = transport
            self._host_partial = b""

    def detach(self, transport: Transport) -> None:
        with self._lock:
            if self._transport is transport:
                self._transport = None

    def _deliver(self, data: bytes) -> None:
        with self._lock:
            transport = self._transport
        if transport is not None:
            transport.deliver(data)

    def _from_box(self, line: bytes) -> None:
        """A frame the firmware wrote; the wire may mangle it on its way to the host."""
        f = self.faults
        rng = self._rng
        line = self._maybe_cock(line)
        out = b""
        if f.garbage and rng.random() < f.garbage:
            out += self._noise()
        if f.corrupt and rng.random() < f.corrupt:
            i = rng.randrange(1, max(2, len(line) - 2))
            line = line[:i] + bytes([line[i] ^ (1 << rng.randrange(7))]) + line[i + 1:]
        out += line
        for listener in self.listeners:
            listener("box", line)
        self._deliver(out)

    def _maybe_cock(self, line: bytes) -> bytes:
        if not line.startswith(b"$ROLL,"):
            return line
        fields = fw_decode(line)
        if not fields or len(fields) < 4:
            return line
        key = (fields[1], fields[2])
        with self._lock:
            if key not in self._cocked_seqs:
                cock = self._cock_next > 0 or (self.faults.cocked and self._rng.random() < self.faults.cocked)
                if self._cock_next > 0:
                    self._cock_next -= 1
                self._cocked_seqs[key] = self._rng.randrange(len(fields) - 3) if cock else -1
            die = self._cocked_seqs[key]
        if die < 0:
            return line
        faces = fields[3:]
        faces[die] = "0"
        return fw_encode("COCKED", fields[1], fields[2], die, *faces)

    def _noise(self) -> bytes:
        rng = self._rng
        kind = rng.randrange(4)
        if kind == 0:
            return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))) + b"\r\n"
        if kind == 1:
            return b"$" + b"X" * rng.randrange(130, 300) + b"\r\n"  # over-long
        if kind == 2:
            return b"$ROLL,zz,1,9,9*0000\r\n"  # bad checksum
        return fw_encode("ROLL", "noise", 1, 7, 9)  # well framed, faces out of range

    def from_host(self, data: bytes) -> None:
        """Bytes the host sent; lost ACKs are cut out here."""
        with self._lock:
            buf = self._host_partial + data
            *lines, self._host_partial = buf.split(b"\n")
        kept = b""
        for line in lines:
            line += b"\n"
            for listener in self.listeners:
                listener("host", line)
            if line.startswith(b"$ACK,"):
                with self._lock:
                    drop = self._drop_next_acks > 0 or (
                        self.faults.drop_acks and self._rng.random() < self.faults.drop_acks)
                    if self._drop_next_acks > 0:
                        self._drop_next_acks -= 1
                if drop:
                    continue
            kept += line
        if kept:
            self.hal.feed(kept)


# --- transports -------------------------------------------------------------------------------
class PtyLinkError(CompanionError, OSError):
    """The symlink to the pty cannot be made: no such folder, or something else is at its path."""


class VirtualPort(Transport):
    """A pyserial-like port wired to a VirtualDiceBox (read with timeout, write, in_waiting, close)."""

    def __init__(self, box: VirtualDiceBox, timeout: float = 0.05) -> None:
        self.box = box
        self.timeout = timeout
        self._buf = bytearray()
        self._cond = threading.Condition()
        self._broken = False
        self.is_open = True
        box.attach(self)

    def deliver(self, data: bytes) -> None:
        with self._cond:
            self._buf += data
            self._cond.notify_all()

    def drop(self) -> None:
        with self._cond:
            self._broken = True
            self._cond.notify_all()
        self.box.detach(self)

    @property
    def in_waiting(self) -> int:
        with self._cond:
            return len(self._buf)

    def read(self, size: int = 1) -> bytes:
        with self._cond:
            self._cond.wait_for(lambda: self._buf or self._broken or not self.is_open, self.timeout)
            if self._broken:
                raise serial.SerialException("device disconnected")
            data = bytes(self._buf[:size])
            del self._buf[:size]
            return data

    def write(self, data: bytes) -> int:
        if self._broken or not self.is_open:
            raise serial.SerialException("device disconnected")
        self.box.from_host(bytes(data))
        return len(data)

    def close(self) -> None:
        self.is_open = False
        self.box.detach(self)


def _owner_file(link: Path) -> Path:
    """Beside a pty link: the process id of the dice-sim that made it."""
    return link.with_name(link.name + ".pid")


def _pty_owned(owner_file: Path, pty: str) -> bool:
    """Whether the pty a link points to is still its maker's. After a kill -9 the kernel may give
    the pty's number to another program's terminal: the path exists again, but the link is
    stale. Owned means: the process named beside the link lives and has that pty open. A link
    with no owner file (made by hand, or by an older dice-sim) counts as owned while its pty exists."""
    try:
        pid = int(owner_file.read_text().strip())
    except (OSError, ValueError):
        return True
    if pid == os.getpid():
        return False  # this process made it (a transport started again), nothing else holds it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's
    fds = Path(f"/proc/{pid}/fd")
    if not fds.is_dir():  # no /proc (macOS): a live process named beside the link
        return True
    try:
        return any(os.readlink(fd) == pty for fd in fds.iterdir())
    except OSError:  # gone meanwhile, or not ours to look at
        return True


class PtyTransport(Worker, Transport):
    """The box on a pseudo-terminal: the host opens `path` (or `link`, a symlink kept pointing at
    the current pty) as its serial port. Pulling the cable closes the pty and opens a new one."""

    def __init__(self, box: VirtualDiceBox, link: str | Path | None = None) -> None:
        self.box = box
        self.link = Path(link) if link else None
        self.path = ""
        #: where a stale link found at start pointed (a pty that is gone), else None
        self.stale_link: str | None = None
        self._linked = False
        self._master = self._slave = -1
        self._lock = threading.Lock()
        super().__init__()

    @property
    def url(self) -> str:
        return str(self.link) if self.link else self.path

    thread_name = "dice-pty"

    def start(self) -> None:
        if self.link is not None:
            self._check_link()
        try:
            self._open()
        except OSError:
            self._close()
            raise
        super().start()

    def _check_link(self) -> None:
        """Refuse a link path that cannot be made or holds something else. A link to a pty that is
        gone is left by a dice-sim that was killed (kill -9 skips stop()): that one is replaced."""
        link = self.link
        folder = link.parent
        if not folder.is_dir():
            why = "is not a folder" if folder.exists() else "does not exist"
            raise PtyLinkError(f"cannot make the link {link}: folder {folder} {why}")
        if link.is_symlink():
            target = os.readlink(link)
            if link.exists() and _pty_owned(_owner_file(link), target):
                raise PtyLinkError(f"cannot make the link {link}: it points to {target}, which is still there "
                                   "(is another dice-sim running?)")
            self.stale_link = target
            log.info("replacing the stale link %s: its pty %s is gone", link, target)
        elif os.path.lexists(link):
            raise PtyLinkError(f"cannot make the link {link}: something that is not a link is there "
                               "(remove it or choose another path)")

    def _open(self) -> None:
        import tty

        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: bytes pass as on a USB serial port
        os.set_blocking(master, False)
        with self._lock:
            self._master, self._slave = master, slave
            self.path = os.ttyname(slave)
        if self.link is not None:
            tmp = self.link.with_name(self.link.name + ".new")
            try:
                owner = _owner_file(self.link)  # first: a link never points without saying whose it is
                owner_tmp = owner.with_name(owner.name + ".new")
                owner_tmp.write_text(f"{os.getpid()}\n")
                os.replace(owner_tmp, owner)
                tmp.unlink(missing_ok=True)
                tmp.symlink_to(self.path)
                os.replace(tmp, self.link)
            except OSError as e:
                raise PtyLinkError(f"cannot make the link {self.link}: {e.strerror or e}") from None
            self._linked = True
        self.box.attach(self)

    def _close(self) -> None:
        with self._lock:
            fds, self._master, self._slave = (self._master, self._slave), -1, -1
        for fd in fds:
            if fd >= 0:
                os.close(fd)

    def deliver(self, data: bytes) -> None:
        with self._lock:
            if self._master < 0:
                return
            try:
                os.write(self._master, data)
            except (BlockingIOError, OSError):
                pass  # nobody reads the port: the bytes are lost, as on a real line (reports are resent)

    def drop(self) -> None:
        self.box.detach(self)
        self._close()
        if not self._stop.is_set():
            self._open()

    def stop(self) -> None:
        self._stop.set()
        self.box.detach(self)
        self._join()
        self._close()
        if self._linked:  # only a link this transport made: never what it refused to replace
            self.link.unlink(missing_ok=True)
            _owner_file(self.link).unlink(missing_ok=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            master = self._master
            if master < 0:
                time.sleep(0.01)
                continue
            try:
                ready, _, _ = select.select([master], [], [], 0.1)
                data = os.read(master, 4096) if ready else b""
            except (OSError, ValueError):
                time.sleep(0.01)  # closed under us by a pulled cable
                continue
            if data:
                self.box.from_host(data)


class TcpTransport(Worker, Transport):
    """The box on a TCP port; the host connects with `socket://host:port`. One host at a time:
    a new connection replaces the old one. Pulling the cable closes the connection."""

    def __init__(self, box: VirtualDiceBox, host: str = "127.0.0.1", port: int = 0) -> None:
        self.box = box
        self._server = socket.create_server((host, port))
        self.host, self.port = self._server.getsockname()[:2]
        self._client: socket.socket | None = None
        self._lock = threading.Lock()
        super().__init__()

    @property
    def url(self) -> str:
        return f"socket://{self.host}:{self.port}"

    thread_name = "dice-tcp"

    def deliver(self, data: bytes) -> None:
        with self._lock:
            client = self._client
        if client is None:
            return
        try:
            client.sendall(data)
        except OSError:
            self.drop()

    def drop(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            self.box.detach(self)
            try:
                client.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            client.close()

    def stop(self) -> None:
        super().stop()
        self.drop()
        self._server.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                client = self._client
            watch = [self._server] + ([client] if client is not None else [])
            try:
                ready, _, _ = select.select(watch, [], [], 0.1)
            except (OSError, ValueError):
                continue
            if self._server in ready:
                new, _ = self._server.accept()
                new.settimeout(1.0)
                self.drop()
                with self._lock:
                    self._client = new
                self.box.attach(self)
            if client is not None and client in ready:
                try:
                    data = client.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    self.drop()  # the host hung up
                else:
                    self.box.from_host(data)

"""The dice box wire protocol, host side: pure parsing and formatting (hardware_docs/dice-protocol.md).

Lines are ASCII, `$TYPE,field,...*HHHH\\r\\n`, HHHH = hex CRC-16/CCITT-FALSE of the bytes between
`$` and `*` (protocol 2; protocol 1's XOR byte let two flips of one bit in two digits through), at
most 128 bytes with the line ending. A box of protocol 1 is named as such (`old_protocol`). `LineSplitter` cuts a byte stream into lines (dropping
over-long ones whole); `parse()` turns one line into a message or raises `ProtocolError`
whose `code` names the counter it belongs to. Nothing here does I/O, so tables of lines
(and a fuzzer) test it directly.
"""

from __future__ import annotations

import re
from binascii import crc_hqx
from dataclasses import dataclass
from typing import Union

from companion.errors import CompanionError

MAX_LINE = 128
BAUD = 115200
MAX_DICE = 8

#: every ProtocolError code, i.e. the error counters the link keeps
ERROR_CODES = ("too_long", "non_ascii", "bad_framing", "bad_checksum", "unknown_type", "bad_field", "bad_face",
               "old_protocol")
#: the protocol this host speaks, said in the box's HELLO (1: XOR checksums, 2: CRC-16)
PROTOCOL = 2
#: what an old box is told to do
OLD_BOX = ("the dice box speaks protocol 1 (XOR checksums); this companion needs protocol 2 (CRC-16): "
           "update the box's firmware (firmware/README.md)")

_BOOT_ID = re.compile(r"[0-9A-Za-z_-]{1,16}\Z")
_NUMBER = re.compile(r"[0-9]{1,9}\Z")
_TEXT = re.compile(r"[\x20-\x7e]{0,100}\Z")
_HEX = re.compile(rb"[0-9A-F]+\Z")  # upper case only: a flipped bit 5 makes a lower-case digit


class ProtocolError(CompanionError, ValueError):
    """A line that is not a valid message; `code` is one of ERROR_CODES."""

    def __init__(self, code: str, message: str, line: bytes = b"") -> None:
        super().__init__(message)
        self.code = code
        self.line = line


# --- messages ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Hello:
    """Box → host at boot and when asked: who it is."""

    firmware: str
    boot_id: str
    n_dice: int
    protocol: int = PROTOCOL


@dataclass(frozen=True)
class HelloQuery:
    """Host → box: say HELLO (sent on connecting, since the box's own HELLO was at its boot)."""


@dataclass(frozen=True)
class Rolling:
    """Box → host: the dice are tumbling; report `seq` follows."""

    boot_id: str
    seq: int


@dataclass(frozen=True)
class Roll:
    """Box → host: a throw; resent until acknowledged."""

    boot_id: str
    seq: int
    faces: tuple[int, ...]


@dataclass(frozen=True)
class Cocked:
    """Box → host: in throw `seq`, die `die` (0-based) landed cocked and must be thrown again (R18).

    `faces` (optional on the wire) are the faces of all dice with 0 for the cocked one.
    Resent until acknowledged, like Roll.
    """

    boot_id: str
    seq: int
    die: int
    faces: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Err:
    """Box → host: something went wrong on the box (e.g. a garbled host line)."""

    code: str
    text: str


@dataclass(frozen=True)
class Ack:
    """Host → box: report (boot_id, seq) is recorded; stop resending it."""

    boot_id: str
    seq: int


@dataclass(frozen=True)
class Ping:
    pass


@dataclass(frozen=True)
class Pong:
    pass


Message = Union[Hello, HelloQuery, Rolling, Roll, Cocked, Err, Ack, Ping, Pong]  # noqa: UP007 (a type alias msgspec decodes)


# --- formatting ----------------------------------------------------------------------------------
def checksum(body: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF; b"123456789" -> 0x29B1): every single- and
    double-bit error in a line is caught (tests/unit/test_dice_crc.py)."""
    return crc_hqx(body, 0xFFFF)


def xor_checksum(body: bytes) -> int:
    """Protocol 1's check, only to recognise an old box."""
    x = 0
    for b in body:
        x ^= b
    return x


_RESERVED = re.compile(r"[^\x20-\x7e]|[$*]")


def frame(kind: str, *fields: object) -> bytes:
    """`$KIND,f1,f2*HH\\r\\n` as bytes; ValueError for a field with `$`, `*` or non-printable ASCII."""
    text = ",".join([kind, *map(str, fields)])
    if _RESERVED.search(text):
        raise ValueError(f"{text!r}: fields must be printable ASCII without '$' or '*'")
    body = text.encode("ascii")
    return b"$%s*%04X\r\n" % (body, checksum(body))


def encode(msg: Message) -> bytes:
    match msg:
        case Hello(firmware, boot_id, n_dice, protocol):
            return frame("HELLO", firmware, boot_id, n_dice, protocol)
        case HelloQuery():
            return frame("HELLO")
        case Rolling(boot_id, seq):
            return frame("ROLLING", boot_id, seq)
        case Roll(boot_id, seq, faces):
            return frame("ROLL", boot_id, seq, *faces)
        case Cocked(boot_id, seq, die, faces):
            return frame("COCKED", boot_id, seq, die, *(faces or ()))
        case Err(code, text):
            return frame("ERR", code, text)
        case Ack(boot_id, seq):
            return frame("ACK", boot_id, seq)
        case Ping():
            return frame("PING")
        case Pong():
            return frame("PONG")
    raise TypeError(f"not a message: {msg!r}")


# --- parsing -------------------------------------------------------------------------------------
def _boot_id(value: str) -> str:
    if not _BOOT_ID.match(value):
        raise ProtocolError("bad_field", f"boot id {value!r} is not 1-16 letters/digits")
    return value


def _number(value: str, what: str) -> int:
    if not _NUMBER.match(value):
        raise ProtocolError("bad_field", f"{what} {value!r} is not a number")
    return int(value)


def _faces(values: list[str], *, cocked: int | None = None) -> tuple[int, ...]:
    if not 1 <= len(values) <= MAX_DICE:
        raise ProtocolError("bad_field", f"{len(values)} dice")
    faces = tuple(_number(v, "face") for v in values)
    for i, f in enumerate(faces):
        if not (1 <= f <= 6 or (f == 0 and i == cocked)):
            raise ProtocolError("bad_face", f"a die shows 1 to 6, not {f}")
    return faces


def _fields(kind: str, f: list[str], n_dice: int | None = None) -> Message:
    n = len(f)
    if kind == "HELLO" and n == 0:
        return HelloQuery()
    if kind == "HELLO" and n in (3, 4):
        if not _TEXT.match(f[0]) or not f[0]:
            raise ProtocolError("bad_field", "firmware version")
        dice = _number(f[2], "number of dice")
        if not 1 <= dice <= MAX_DICE:
            raise ProtocolError("bad_field", f"{dice} dice")
        protocol = _number(f[3], "protocol") if n == 4 else 1
        if protocol != PROTOCOL:
            raise ProtocolError("old_protocol", OLD_BOX if protocol < PROTOCOL else
                                f"the dice box speaks protocol {protocol}; this companion knows up to {PROTOCOL}: "
                                "update the companion")
        return Hello(f[0], _boot_id(f[1]), dice, protocol)
    if kind == "ROLLING" and n == 2:
        return Rolling(_boot_id(f[0]), _number(f[1], "seq"))
    if kind == "ROLL" and n >= 3:
        return Roll(_boot_id(f[0]), _number(f[1], "seq"), _faces(f[2:]))
    if kind == "COCKED" and n >= 3:
        die = _number(f[2], "die index")
        if die >= MAX_DICE:
            raise ProtocolError("bad_field", f"die index {die}")
        faces = _faces(f[3:], cocked=die) if n > 3 else None
        dice = len(faces) if faces is not None else n_dice or MAX_DICE  # without faces: the box's count
        if die >= dice:
            raise ProtocolError("bad_field", f"die index {die} of {dice} dice")
        return Cocked(_boot_id(f[0]), _number(f[1], "seq"), die, faces)
    if kind == "ERR" and n >= 1:
        return Err(f[0], ",".join(f[1:]))
    if kind == "ACK" and n == 2:
        return Ack(_boot_id(f[0]), _number(f[1], "seq"))
    if kind == "PING" and n == 0:
        return Ping()
    if kind == "PONG" and n == 0:
        return Pong()
    if kind in _KINDS:
        raise ProtocolError("bad_field", f"{kind} with {n} fields")
    raise ProtocolError("unknown_type", f"unknown message type {kind[:20]!r}")


_KINDS = {"HELLO", "ROLLING", "ROLL", "COCKED", "ERR", "ACK", "PING", "PONG"}


def parse(line: bytes, n_dice: int | None = None) -> Message:
    """One line (with or without `\\r\\n`) → message; ProtocolError (with its counter code) if not valid.

    `n_dice`, where the caller knows the box's number of dice, checks the die index of a
    `COCKED` without faces (one with faces is checked against them)."""
    if len(line) > MAX_LINE:
        raise ProtocolError("too_long", f"line of {len(line)} bytes (at most {MAX_LINE})", line[:MAX_LINE])
    text = line.rstrip(b"\r\n")
    if any(b < 0x20 or b > 0x7E for b in text):
        raise ProtocolError("non_ascii", "control or non-ASCII bytes in the line", line)
    if len(text) >= 4 and text[:1] == b"$" and text[-3:-2] == b"*" and _HEX.match(text[-2:]) \
            and int(text[-2:], 16) == xor_checksum(text[1:-3]):
        raise ProtocolError("old_protocol", OLD_BOX, line)  # a whole protocol 1 line, its XOR right
    if len(text) < 6 or text[:1] != b"$" or text[-5:-4] != b"*":
        raise ProtocolError("bad_framing", "not framed as $TYPE,...*HHHH", line)
    body, given = text[1:-5], text[-4:]
    if not (_HEX.match(given) and int(given, 16) == checksum(body)):
        raise ProtocolError("bad_checksum", f"checksum {given.decode()} does not match {checksum(body):04X}", line)
    kind, *fields = body.decode("ascii").split(",")
    try:
        return _fields(kind, fields, n_dice)
    except ProtocolError as e:
        e.line = line
        raise


class LineSplitter:
    """Cuts a byte stream into lines. `$` always begins a frame: noise before it is cut off and
    reported, so a frame glued to garbage (e.g. after a reconnect mid-line) still gets through,
    however long the garbage was. A frame longer than MAX_LINE is dropped whole (reported once)."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False

    def feed(self, data: bytes) -> list[bytes | ProtocolError]:
        out: list[bytes | ProtocolError] = []
        self._buf += data
        while True:
            nl = self._buf.find(b"\n")
            if nl < 0:
                break
            line = bytes(self._buf[:nl + 1])
            del self._buf[:nl + 1]
            if self._overflow:
                self._overflow = False
                start = line.rfind(b"$")
                if start < 0:
                    continue  # the rest of an over-long line
                line = line[start:]  # a new frame began inside it
            out.extend(self._resync(line))
        if len(self._buf) > MAX_LINE:
            start = self._buf.rfind(b"$")
            if start > 0 and len(self._buf) - start <= MAX_LINE:  # noise, then a frame still arriving
                out.append(ProtocolError("bad_framing", "noise before the frame", bytes(self._buf[:start])))
                del self._buf[:start]
            else:
                if not self._overflow:
                    out.append(ProtocolError("too_long", f"line of over {MAX_LINE} bytes", bytes(self._buf[:MAX_LINE])))
                self._buf.clear()
                self._overflow = True
        return out

    @staticmethod
    def _resync(line: bytes) -> list[bytes | ProtocolError]:
        if line.strip() == b"":
            return []  # blank lines are harmless
        out: list[bytes | ProtocolError] = []
        start = line.rfind(b"$")
        if start > 0:
            out.append(ProtocolError("bad_framing", "noise before the frame", line[:start]))
            line = line[start:]
        if len(line) > MAX_LINE:
            out.append(ProtocolError("too_long", f"line of {len(line)} bytes", line[:MAX_LINE]))
        else:
            out.append(line)
        return out

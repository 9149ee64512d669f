"""NMEA-style framing of the wire protocol: `$TYPE,field,...*HH\r\n` (hardware_docs/dice-protocol.md).

HH is the two-digit upper-case hex XOR of every byte between `$` and `*`. Kept tiny and free
of CPython-only modules because it runs on the box.
"""

MAX_LINE = 128  # bytes, `$` to `\n` inclusive; longer lines are refused on both ends


def checksum(body):
    """XOR of the bytes of `body` (bytes)."""
    x = 0
    for b in body:
        x ^= b
    return x


def encode(kind, *fields):
    """One framed line as bytes, e.g. encode("ROLL", "a1b2", 3, 4, 6) -> b"$ROLL,a1b2,3,4,6*HH\\r\\n"."""
    body = ",".join([kind] + [str(f) for f in fields]).encode()
    return b"$" + body + b"*" + ("%02X" % checksum(body)).encode() + b"\r\n"


def decode(line):
    """The fields of a framed line (bytes, with or without its line ending), TYPE first.

    None when the line is not a well-framed, checksummed ASCII line: the box answers those
    with ERR and otherwise ignores them.
    """
    stripped = line.rstrip(b"\r\n")
    ending = len(line) - len(stripped) or 1  # a bare "\n" is a line ending too (at least one byte of one)
    line = stripped
    if len(line) + ending > MAX_LINE or len(line) < 4 or line[0] != 0x24 or line[-3] != 0x2A:  # '$', '*'
        return None
    body = line[1:-3]
    for b in body:
        if b < 0x20 or b > 0x7E:
            return None
    try:
        if int(line[-2:].decode(), 16) != checksum(body):
            return None
    except ValueError:
        return None
    return body.decode().split(",")

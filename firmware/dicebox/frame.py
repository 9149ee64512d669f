"""NMEA-style framing of the wire protocol: `$TYPE,field,...*HHHH\r\n` (hardware_docs/dice-protocol.md).

HHHH is the four-digit upper-case hex CRC-16/CCITT-FALSE (polynomial 0x1021, initial value
0xFFFF) of every byte between `$` and `*`. It replaced protocol 1's XOR byte, which let two
flips of the same bit in two digits through (3+5 read as 2+4); a CRC-16 catches every single-
and double-bit error in a line of up to 128 bytes. Kept tiny and free of CPython-only modules
because it runs on the box.
"""

MAX_LINE = 128  # bytes, `$` to `\n` inclusive; longer lines are refused on both ends
#: the protocol version the box says in its HELLO (1: XOR checksums, 2: CRC-16)
PROTOCOL = 2


def crc16(body):
    """CRC-16/CCITT-FALSE of the bytes of `body` ("123456789" -> 0x29B1)."""
    crc = 0xFFFF
    for b in body:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


checksum = crc16  # the line check of this protocol


def xor(body):
    """Protocol 1's check: XOR of the bytes (only to read reports stored by an older firmware)."""
    x = 0
    for b in body:
        x ^= b
    return x


def encode(kind, *fields):
    """One framed line as bytes, e.g. encode("ROLL", "a1b2", 3, 4, 6) -> b"$ROLL,a1b2,3,4,6*HHHH\\r\\n"."""
    body = ",".join([kind] + [str(f) for f in fields]).encode()
    return b"$" + body + b"*" + ("%04X" % crc16(body)).encode() + b"\r\n"


def decode(line, legacy=False):
    """The fields of a framed line (bytes, with or without its line ending), TYPE first.

    None when the line is not a well-framed, checksummed ASCII line: the box answers those
    with ERR and otherwise ignores them. `legacy`: a protocol 1 line (XOR, two digits) is
    read too, for the reports an older firmware left in flash.
    """
    stripped = line.rstrip(b"\r\n")
    ending = len(line) - len(stripped) or 1  # a bare "\n" is a line ending too (at least one byte of one)
    line = stripped
    if len(line) + ending > MAX_LINE or len(line) < 4 or line[0] != 0x24:  # '$'
        return None
    star = line.rfind(b"*")
    digits = len(line) - star - 1
    if star < 1 or not (digits == 4 or (legacy and digits == 2)):
        return None
    for b in line[star + 1:]:
        if b not in b"0123456789ABCDEF":  # upper case only: a flipped bit 5 makes a lower-case digit
            return None
    body = line[1:star]
    for b in body:
        if b < 0x20 or b > 0x7E:
            return None
    given = int(line[star + 1:].decode(), 16)
    if given != (crc16(body) if digits == 4 else xor(body)):
        return None
    return body.decode().split(",")

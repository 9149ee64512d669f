"""Protocol 2: lines checked with CRC-16/CCITT-FALSE. Every single- and double-bit error in a
frame is caught, on the host and on the box; an old (XOR) box is named; a corrupted ROLL is not
recorded, so the box's correct resend is (protocol 1 recorded 3+5 as 2+4 and dropped the resend)."""

import itertools

import pytest
from dicebox.box import DiceBox
from dicebox.frame import decode as box_decode
from dicebox.frame import xor
from dicebox.hosthal import HostHal

from companion.game.events import DiceThrown
from companion.hardware.dice.link import DiceLink
from companion.hardware.dice.protocol import Ack, ProtocolError, frame, parse
from companion.hub import Hub
from companion.rules.variant import load_variant
from companion.storage import EventStore
from companion.table import Table

FRAMES = [frame("ROLL", "a1b2c3d4", 12, 3, 5), frame("COCKED", "a1b2c3d4", 13, 1, 4, 0),
          frame("HELLO", "1.0.0", "a1b2c3d4", 2, 2), frame("ACK", "a1b2c3d4", 12), frame("PING")]


def flips(line: bytes, n: int):
    bits = range(len(line) * 8)
    for chosen in itertools.combinations(bits, n):
        b = bytearray(line)
        for bit in chosen:
            b[bit // 8] ^= 1 << (bit % 8)
        yield bytes(b)


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("line", FRAMES, ids=lambda f: f[1:f.index(b",") if b"," in f else 5].decode())
def test_every_single_and_double_bit_error_is_caught_by_the_host_and_the_box(line, n):
    tried = 0
    for bad in flips(line, n):
        tried += 1
        with pytest.raises(ProtocolError):
            parse(bad, n_dice=2)
        assert box_decode(bad) is None, bad
    assert tried == (len(line) * 8 if n == 1 else len(line) * 8 * (len(line) * 8 - 1) // 2)


def old(kind, *fields) -> bytes:
    body = ",".join([kind, *map(str, fields)]).encode()
    return b"$%s*%02X\r\n" % (body, xor(body))


@pytest.fixture
def table():
    t = Table(EventStore(":memory:"), Hub())
    t.start_game(load_variant("classical"), ["A", "B", "C", "D"])
    return t


def test_a_roll_with_one_bit_flipped_in_both_digits_is_refused_and_the_resend_recorded(table):
    link = DiceLink("loop://", table)
    good = frame("ROLL", "b1", 1, 3, 5)
    bad = good.replace(b",3,5*", b",2,4*")  # bit 0 of both digits: protocol 1's XOR was unchanged
    assert xor(b"ROLL,b1,1,3,5") == xor(b"ROLL,b1,1,2,4")
    assert link.process(bad) == b""  # not acknowledged: the box sends it again
    assert link.status["errors"]["bad_checksum"] == 1
    assert parse(link.process(good)) == Ack("b1", 1)
    assert [e.event.faces for e in table.records() if isinstance(e.event, DiceThrown)] == [[3, 5]]


def test_an_old_box_is_named_with_what_to_do(table):
    link = DiceLink("loop://", table)
    link.process(old("HELLO", "1.0.0", "cafe0001", 2) + old("ROLL", "cafe0001", 1, 3, 4))
    s = link.status
    assert s["errors"]["old_protocol"] == 2
    assert "protocol 1 (XOR checksums)" in s["last_error"] and "update the box's firmware" in s["last_error"]
    assert not [e for e in table.records() if isinstance(e.event, DiceThrown)]
    with pytest.raises(ProtocolError, match="protocol 1") as e:
        parse(frame("HELLO", "1.0.0", "cafe0001", 2))  # a CRC line but no protocol in HELLO
    assert e.value.code == "old_protocol"


def test_reports_an_older_firmware_left_in_flash_are_sent_again_in_the_new_framing():
    stored = "\n".join(old("ROLL", "olderboot", seq, 2, 6).decode().rstrip() for seq in (7, 8))
    box = DiceBox(HostHal(clock=lambda: 0, seed=1, storage={"outbox": stored}))
    assert [(e[0], e[1]) for e in box.outbox] == [("olderboot", 7), ("olderboot", 8)]
    for entry in box.outbox:
        assert parse(entry[2]).faces == (2, 6)  # CRC-framed: the host reads it

"""Wire protocol, host side: tables of lines, round trips, and a fuzz run over arbitrary bytes."""

import pytest
from dicebox.frame import encode as firmware_encode
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.hardware.dice.protocol import (
    MAX_LINE,
    Ack,
    Cocked,
    Err,
    Hello,
    HelloQuery,
    LineSplitter,
    Ping,
    Pong,
    ProtocolError,
    Roll,
    Rolling,
    checksum,
    encode,
    frame,
    parse,
)


def test_the_checksum_is_the_crc16_ccitt_false_of_the_bytes_between_dollar_and_star():
    # CRC-16/CCITT-FALSE's check value, and the worked example from hardware_docs/dice-protocol.md
    assert checksum(b"123456789") == 0x29B1
    assert frame("PING") == b"$PING*%04X\r\n" % checksum(b"PING")


@pytest.mark.parametrize("line, message", [
    (frame("HELLO", "1.0.0", "a1b2c3d4", 2, 2), Hello("1.0.0", "a1b2c3d4", 2, 2)),
    (frame("HELLO"), HelloQuery()),
    (frame("ROLLING", "a1b2c3d4", 7), Rolling("a1b2c3d4", 7)),
    (frame("ROLL", "a1b2c3d4", 7, 3, 6), Roll("a1b2c3d4", 7, (3, 6))),
    (frame("COCKED", "a1b2c3d4", 8, 1), Cocked("a1b2c3d4", 8, 1, None)),
    (frame("COCKED", "a1b2c3d4", 8, 1, 5, 0), Cocked("a1b2c3d4", 8, 1, (5, 0))),
    (frame("ERR", "bad_frame", "bad framing, or checksum"), Err("bad_frame", "bad framing, or checksum")),
    (frame("ACK", "a1b2c3d4", 7), Ack("a1b2c3d4", 7)),
    (frame("PING"), Ping()),
    (frame("PONG"), Pong()),
    (frame("PONG").rstrip(b"\r\n") + b"\n", Pong()),  # a bare \n ending is fine
])
def test_valid_lines_parse_to_their_messages_and_back(line, message):
    assert parse(line) == message
    assert encode(message) == line.rstrip(b"\r\n") + b"\r\n"


@pytest.mark.parametrize("line, code", [
    (b"$" + b"A" * 200 + b"*00\r\n", "too_long"),
    (b"$ROLL,ab,1,3,\xc3\xa9*00\r\n", "non_ascii"),
    (b"$ROLL,ab,1,3\x00,4*00\r\n", "non_ascii"),
    (b"ROLL,ab,1,3,4*00\r\n", "bad_framing"),
    (b"$ROLL,ab,1,3,4\r\n", "bad_framing"),
    (b"$ROLL,ab,1,3,4*1\r\n", "bad_framing"),
    (b"$ROLL,ab,1,3,4*0000\r\n", "bad_checksum"),
    (b"$ROLL,ab,1,3,4*ZZZZ\r\n", "bad_checksum"),
    (b"$ROLL,ab,1,3,4*00\r\n", "bad_framing"),
    (frame("FOO", 1), "unknown_type"),
    (frame("roll", "ab", 1, 3, 4), "unknown_type"),
    (frame("ROLL", "ab", 1, 7, 4), "bad_face"),
    (frame("ROLL", "ab", 1, 0, 4), "bad_face"),
    (frame("COCKED", "ab", 1, 0, 3, 0), "bad_face"),  # only the cocked die may show 0
    (frame("COCKED", "ab", 1, 2, 3, 4), "bad_field"),  # die index 2 of 2 dice (0-based)
    (frame("ROLL", "ab", -1, 3, 4), "bad_field"),
    (frame("ROLL", "ab", "x", 3, 4), "bad_field"),
    (frame("ROLL", "", 1, 3, 4), "bad_field"),
    (frame("ROLL", "a b", 1, 3, 4), "bad_field"),
    (frame("ROLL", "ab", 1), "bad_field"),
    (frame("ACK", "ab"), "bad_field"),
    (frame("HELLO", "1.0", "ab", 0), "bad_field"),
])
def test_bad_lines_are_refused_with_the_counter_they_belong_to(line, code):
    with pytest.raises(ProtocolError) as e:
        parse(line)
    assert e.value.code == code


def test_a_cocked_die_without_faces_is_checked_against_the_boxs_number_of_dice():
    line = frame("COCKED", "ab", 1, 2)  # die index 2 (0-based) of a 2-dice box: out of range
    with pytest.raises(ProtocolError, match="die index 2 of 2 dice") as e:
        parse(line, n_dice=2)
    assert e.value.code == "bad_field"
    assert parse(line, n_dice=3) == Cocked("ab", 1, 2, None)


@pytest.mark.parametrize("field", ["cost $5", "a*b", "tab\there", "caf\u00e9"])
def test_fields_cannot_carry_the_reserved_or_non_ascii_characters(field):
    with pytest.raises(ValueError):
        frame("ERR", "x", field)


def test_the_firmware_and_the_host_frame_lines_identically():
    for fields in [("HELLO", "1.0.0", "abcd1234", 2, 2), ("ROLL", "abcd1234", 12, 6, 1), ("PONG",),
                   ("ERR", "too_long", "line over 128 bytes")]:
        assert firmware_encode(*fields) == frame(*fields)


def test_the_splitter_drops_an_over_long_line_whole_and_keeps_the_next():
    s = LineSplitter()
    out = s.feed(b"x" * 100) + s.feed(b"y" * 100) + s.feed(b"z" * 10 + b"\r\n" + frame("PONG"))
    assert [o.code for o in out if isinstance(o, ProtocolError)] == ["too_long"]
    assert [o for o in out if isinstance(o, bytes)] == [frame("PONG")]


def test_a_frame_glued_to_noise_is_cut_out_and_the_noise_reported():
    out = LineSplitter().feed(b"\x00\xffnoise" + frame("ROLL", "ab", 1, 2, 3))
    assert isinstance(out[0], ProtocolError) and out[0].code == "bad_framing"
    assert parse(out[1]) == Roll("ab", 1, (2, 3))


@pytest.mark.parametrize("chunks", [[b"x" * 120], [b"x" * 300], [b"x" * 90, b"y" * 90]])
def test_a_frame_after_long_noise_still_gets_through(chunks):
    """`$` always begins a frame: line noise, however long, never costs the frame after it."""
    s = LineSplitter()
    out = [o for c in chunks for o in s.feed(c)] + s.feed(frame("ROLL", "ab", 7, 2, 3))
    assert [o.code for o in out if isinstance(o, ProtocolError)] in (["bad_framing"], ["too_long"])
    assert [parse(o) for o in out if isinstance(o, bytes)] == [Roll("ab", 7, (2, 3))]


def test_an_over_long_frame_is_dropped_whole():
    s = LineSplitter()
    out = s.feed(b"$ROLL," + b"9" * 200) + s.feed(b"*00\r\n" + frame("PONG"))
    assert [o.code for o in out if isinstance(o, ProtocolError)] == ["too_long"]
    assert [o for o in out if isinstance(o, bytes)] == [frame("PONG")]


def test_blank_lines_are_ignored():
    assert LineSplitter().feed(b"\r\n\n  \r\n") == []


def results(chunks):
    s = LineSplitter()
    out = []
    for c in chunks:
        for item in s.feed(c):
            if isinstance(item, ProtocolError):
                out.append(item.code)
            else:
                try:
                    out.append(parse(item))
                except ProtocolError as e:
                    out.append(e.code)
    return out


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600), st.lists(st.integers(1, 64), max_size=20))
def test_fuzz_arbitrary_bytes_in_any_chunking_never_crash_and_give_the_same_result(data, cuts):
    chunks, i = [], 0
    for n in cuts:
        chunks.append(data[i:i + n])
        i += n
    chunks.append(data[i:])
    whole = results([data])
    assert results(chunks) == whole
    for item in whole:
        assert isinstance(item, str) or type(item).__name__ in {
            "Hello", "HelloQuery", "Rolling", "Roll", "Cocked", "Err", "Ack", "Ping", "Pong"}


messages = st.one_of(
    st.builds(Hello, st.from_regex(r"[0-9a-z.]{1,12}", fullmatch=True), st.from_regex(r"[0-9a-f]{1,16}", fullmatch=True),
              st.integers(1, 8)),
    st.builds(Roll, st.from_regex(r"[0-9a-f]{8}", fullmatch=True), st.integers(0, 10**9 - 1),
              st.lists(st.integers(1, 6), min_size=1, max_size=8).map(tuple)),
    st.builds(Ack, st.from_regex(r"[0-9a-f]{8}", fullmatch=True), st.integers(0, 10**9 - 1)),
    st.builds(Err, st.from_regex(r"[a-z_]{1,12}", fullmatch=True), st.from_regex(r"[ -#%-)+-~]{0,60}", fullmatch=True)),
)


@settings(max_examples=200, deadline=None)
@given(messages, st.binary(max_size=40))
def test_every_message_survives_a_round_trip_even_after_noise(msg, noise):
    line = encode(msg)
    assert len(line) <= MAX_LINE
    out = results([noise.replace(b"\n", b"") + b"\n" + line])
    assert out[-1] == msg

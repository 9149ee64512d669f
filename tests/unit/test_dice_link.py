"""The reader's decisions, bytes in → game log and ACKs out (no threads, no ports)."""

import random
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.game.events import DiceThrown, HandWon
from companion.hardware.dice.link import DiceLink, DiceLinkError
from companion.hardware.dice.protocol import Ack, frame, parse
from companion.hardware.dice.rolls import record_roll
from companion.hub import Hub
from companion.rules.variant import load_variant
from companion.storage import EventStore
from companion.table import Table


def new_table(variant="classical"):
    t = Table(EventStore(":memory:"), Hub())
    t.start_game(load_variant(variant), ["Ann", "Bob", "Cat", "Dan"])
    return t


@pytest.fixture
def table():
    return new_table()


@pytest.fixture
def warnings(table):
    heard = []
    table.hub.subscribe(lambda m: heard.append(m.data), {"warning"})
    return heard


def acks(reply):
    return [parse(line + b"\n") for line in reply.split(b"\n") if line.strip()]


def dice_events(table):
    return [r for r in table.records() if isinstance(r.event, DiceThrown)]


def test_a_roll_becomes_the_expected_throw_and_is_acknowledged(table):
    link = DiceLink("loop://", table)
    reply = link.process(frame("ROLL", "b1", 1, 3, 4))
    assert acks(reply) == [Ack("b1", 1)]
    [rec] = dice_events(table)
    assert rec.to_json() | {"id": 0, "at": ""} == {"id": 0, "at": "", "game": rec.game, "type": "dice",
                                                  "faces": [3, 4], "source": "serial", "boot_id": "b1", "seq": 1}
    assert table.state.expected_throw()["by"] == "W"  # R17: 7 → West throws next
    link.process(frame("ROLL", "b1", 2, 5, 6))
    assert (table.state.brk.wall, table.state.brk.stack) == ("W", 18)  # R19
    assert link.status["rolls_recorded"] == 2


def test_a_resent_roll_is_acknowledged_again_and_recorded_once(table):
    link = DiceLink("loop://", table)
    for _ in range(3):
        assert acks(link.process(frame("ROLL", "b1", 1, 3, 4))) == [Ack("b1", 1)]
    assert len(dice_events(table)) == 1
    assert link.status["duplicates"] == 2


def test_exactly_once_holds_across_a_restart_of_the_companion(tmp_path):
    path = tmp_path / "games.sqlite3"
    with EventStore(path) as store:
        t = Table(store, Hub())
        t.start_game(load_variant("classical"))
        DiceLink("loop://", t).process(frame("ROLL", "b1", 1, 3, 4))
    with EventStore(path) as store:  # the ACK was lost; the box resends to the restarted companion
        t = Table(store, Hub())
        reply = DiceLink("loop://", t).process(frame("ROLL", "b1", 1, 3, 4))
        assert acks(reply) == [Ack("b1", 1)] and len(dice_events(t)) == 1


def test_a_resend_with_other_faces_keeps_the_recorded_roll_and_is_logged(table, caplog):
    link = DiceLink("loop://", table)
    link.process(frame("ROLL", "b1", 1, 3, 4))
    reply = link.process(frame("ROLL", "b1", 1, 6, 6))  # a firmware fault: the same roll, other faces
    assert [parse(line) for line in reply.splitlines()] == [Ack("b1", 1)]
    assert [r.event.faces for r in dice_events(table)] == [[3, 4]]
    assert any("dice:b1:1 sent again with other faces (6+6, recorded 3+4)" in r.getMessage() for r in caplog.records)


def test_the_same_seq_from_another_boot_is_another_roll(table):
    link = DiceLink("loop://", table)
    link.process(frame("ROLL", "b1", 1, 3, 4) + frame("ROLL", "b2", 1, 5, 6))
    assert [(r.event.boot_id, r.event.seq) for r in dice_events(table)] == [("b1", 1), ("b2", 1)]


@settings(max_examples=40, deadline=None)
@given(
    rolls=st.lists(st.tuples(st.sampled_from(["b1", "b2"]), st.integers(1, 30), st.integers(1, 6),
                             st.integers(1, 6)), min_size=1, max_size=8, unique_by=lambda r: r[:2]),
    copies=st.lists(st.integers(1, 3), min_size=8, max_size=8),
    corrupt=st.lists(st.booleans(), min_size=8, max_size=8),
    order_seed=st.integers(0, 2**16),
    cut_seed=st.integers(0, 2**16),
)
def test_exactly_once_under_duplicated_reordered_and_corrupted_lines(rolls, copies, corrupt, order_seed, cut_seed):
    table = new_table()
    link = DiceLink("loop://", table)
    lines = []
    for i, (boot, seq, d1, d2) in enumerate(rolls):
        good = frame("ROLL", boot, seq, d1, d2)
        lines += [good] * copies[i]
        if corrupt[i]:
            bad = bytearray(good)
            bad[3] ^= 0x04  # a flipped bit: the checksum no longer matches
            lines.append(bytes(bad))
    random.Random(order_seed).shuffle(lines)
    stream = b"".join(lines)
    rng, replies, i = random.Random(cut_seed), b"", 0
    while i < len(stream):  # the port hands the bytes over in arbitrary pieces
        n = rng.randint(1, 40)
        replies += link.process(stream[i:i + n])
        i += n
    recorded = [(r.event.boot_id, r.event.seq, *r.event.faces) for r in dice_events(table)]
    assert sorted(recorded) == sorted(rolls)  # each roll once, none invented
    assert {(a.boot_id, a.seq) for a in acks(replies)} == {r[:2] for r in rolls}
    assert link.status["errors"]["bad_checksum"] == sum(corrupt[:len(rolls)])


FUZZ_TABLE = new_table()
tokens = st.sampled_from([b"$", b"*", b",", b"\r\n", b"\n", b"ROLL", b"COCKED", b"HELLO", b"ACK", b"1", b"6", b"00"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.binary(max_size=40), tokens), max_size=40).map(b"".join))
def test_fuzz_random_bytes_never_crash_the_reader_and_never_reach_the_game_log(data):
    link = DiceLink("loop://", FUZZ_TABLE)
    before = len(FUZZ_TABLE.records())
    link.process(data)
    assert len(FUZZ_TABLE.records()) == before
    s = link.status
    assert s["rolls_recorded"] == s["duplicates"] == 0


def test_bad_lines_are_counted_by_kind_and_change_nothing(table):
    link = DiceLink("loop://", table)
    reply = link.process(b"$ROLL,b1,1,3,4*0000\r\n" + b"\xff\xfe\r\n" + b"$" + b"9" * 300 + b"\r\n"
                         + frame("FOO") + frame("ROLL", "b1", 1, 3, 7) + frame("ROLL", "b1", "x", 3, 4))
    assert reply == b""
    errors = link.status["errors"]
    assert {k: v for k, v in errors.items() if v} == {"bad_checksum": 1, "non_ascii": 1, "too_long": 1,
                                                      "unknown_type": 1, "bad_face": 1, "bad_field": 1}
    assert dice_events(table) == []


def test_a_roll_the_game_refuses_is_acknowledged_warned_about_once_and_counted(table, warnings):
    for _ in range(16):  # classical: 16 title changes end the game (R14)
        table.record(HandWon(winner=(table.state.dealer + 1) % 4))
    assert table.state.game_over
    link = DiceLink("loop://", table)
    for _ in range(2):  # the ACK was lost once: the box resends
        assert acks(link.process(frame("ROLL", "b1", 1, 3, 4))) == [Ack("b1", 1)]
    assert dice_events(table) == []
    refused = [w for w in warnings if w["code"] == "dice_refused"]
    assert len(refused) == 1 and "game is over" in refused[0]["message"] and refused[0]["faces"] == [3, 4]
    s = link.status
    assert s["refused"] == 1 and s["last_roll"]["status"] == "refused"


def test_a_refused_roll_sent_again_after_a_restart_is_not_counted_in_the_next_game(tmp_path):
    """The box resends a roll until it hears the ACK, also across a restart of the companion: a
    roll refused (the game was over) whose ACK was lost must not become the next game's first
    throw, nor be reported again."""
    path = tmp_path / "games.sqlite3"
    store = EventStore(path)
    table = Table(store, Hub())
    table.start_game(load_variant("classical"), ["Ann", "Bob", "Cat", "Dan"])
    for _ in range(16):  # R14: the game is over
        table.record(HandWon(winner=(table.state.dealer + 1) % 4))
    DiceLink("loop://", table).process(frame("ROLL", "b1", 1, 3, 4))  # refused; the ACK is lost
    store.close()

    store = EventStore(path)  # the companion restarts; a new game begins before the resend
    table = Table(store, Hub())
    heard = []
    table.hub.subscribe(lambda m: heard.append(m.data), {"warning"})
    table.start_game(load_variant("classical"), ["Ann", "Bob", "Cat", "Dan"])
    link = DiceLink("loop://", table)
    assert acks(link.process(frame("ROLL", "b1", 1, 3, 4))) == [Ack("b1", 1)]
    assert dice_events(table) == [] and table.state.expected_throw()["by"] == "E"
    assert heard == [] and link.status["duplicates"] == 1 and link.status["refused"] == 0
    store.close()


def test_a_roll_when_none_is_due_is_kept_unassigned(table):
    link = DiceLink("loop://", table)
    link.process(frame("ROLL", "b1", 1, 3, 4) + frame("ROLL", "b1", 2, 5, 6) + frame("ROLL", "b1", 3, 1, 1))
    assert [u["faces"] for u in table.state.unassigned] == [[1, 1]]
    assert link.status["unassigned"] == 1
    # more dice than the game throws could never be assigned: refused (and acknowledged), not kept
    reply = link.process(frame("ROLL", "b1", 4, 6, 1, 2))
    assert [parse(line) for line in reply.splitlines()] == [Ack("b1", 4)]
    assert [u["faces"] for u in table.state.unassigned] == [[1, 1]]
    assert link.status["last_roll"]["status"] == "refused" and "expected 2 dice, got 3" in link.status["last_roll"]["reason"]


def test_cocked_die_waits_for_its_rethrow_and_prompts_the_players(table, warnings):
    link = DiceLink("loop://", table)
    assert acks(link.process(frame("COCKED", "b1", 1, 1, 3, 0))) == [Ack("b1", 1)]
    [rec] = dice_events(table)
    assert rec.event.cocked == [1] and rec.event.faces == [3, 0]
    assert table.state.expected_throw()["rethrow"] == [1]  # R18
    [w] = [w for w in warnings if w["code"] == "rethrow"]
    assert w["die"] == 1
    link.process(frame("ROLL", "b1", 2, 3, 5))  # the box reads both dice after the re-throw
    assert table.state.throws == [[3, 5]]


def test_a_cocked_report_without_faces_asks_for_the_whole_throw_again(table, warnings):
    link = DiceLink("loop://", table)
    link.process(frame("HELLO", "2.0", "b1", 2, 2) + frame("COCKED", "b1", 1, 0))
    assert table.state.expected_throw()["rethrow"] == [0, 1]
    assert sorted(w["die"] for w in warnings if w["code"] == "rethrow") == [0, 1]


def test_a_cocked_report_naming_a_die_the_box_does_not_have_is_a_bad_field(table, warnings):
    link = DiceLink("loop://", table)
    reply = link.process(frame("HELLO", "2.0", "b1", 2, 2) + frame("COCKED", "b1", 1, 5))
    assert reply == b"" and link.status["errors"]["bad_field"] == 1  # not acknowledged, not thrown
    assert dice_events(table) == [] and not [w for w in warnings if w["code"] == "rethrow"]


def test_no_ack_when_the_log_cannot_be_written_so_the_box_resends(table, monkeypatch):
    link = DiceLink("loop://", table)
    real_append = table.store.append

    def full_disk(*a, **kw):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(table.store, "append", full_disk)
    assert link.process(frame("ROLL", "b1", 1, 3, 4)) == b""
    assert link.status["errors"]["store"] == 1
    monkeypatch.setattr(table.store, "append", real_append)
    assert acks(link.process(frame("ROLL", "b1", 1, 3, 4))) == [Ack("b1", 1)]
    assert len(dice_events(table)) == 1


def test_hello_and_box_errors_show_in_the_link_status(table):
    link = DiceLink("/dev/ttyACM0", table)
    link.process(frame("HELLO", "1.0.0", "cafe0001", 2, 2) + frame("ERR", "bad_frame", "bad checksum") + frame("PONG"))
    s = table.hub.status["dice"]
    assert (s["kind"], s["url"], s["firmware"], s["boot_id"]) == ("serial", "/dev/ttyACM0", "1.0.0", "cafe0001")
    assert s["errors"]["device"] == 1 and "bad_frame" in s["last_error"]
    assert s["last_heard"] is not None and s["lines"] == 3


def wait_until(condition, timeout=5.0):
    import time

    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


def test_a_port_another_program_reads_is_not_shared(table):
    """Two readers would split the box's lines between them: the link opens its port exclusively."""
    import os

    import serial

    from companion.config import load_settings
    from companion.health import probe_dice

    master, slave = os.openpty()
    path = os.ttyname(slave)
    other = serial.serial_for_url(path, exclusive=True)  # a terminal left open on the box, say
    link = DiceLink(path, table, reconnect_max=0.05)
    link.start()
    try:
        wait_until(lambda: link.status["last_error"])
        assert "another program holds it" in link.status["last_error"] and not link.status["connected"]
        check = probe_dice(load_settings(env={}, overrides={"dice": {"url": path}}))
        assert check.level == "fail" and "another program holds it" in check.summary
    finally:
        link.stop()
        other.close()
        os.close(master)
        os.close(slave)


def test_a_real_box_cannot_be_pressed_from_the_dashboard(table):
    with pytest.raises(DiceLinkError, match="ROLL button on the box"):
        DiceLink("/dev/ttyACM0", table).press_roll()


def test_phone_camera_and_box_rolls_are_the_same_event_told_apart_by_source(table):
    record_roll(table, [3, 4], source="phone")
    record_roll(table, [5, 6], source="camera")
    DiceLink("loop://", table).process(frame("ROLL", "b1", 1, 2, 2))
    assert [(r.event.source, r.event.faces) for r in dice_events(table)] == [
        ("phone", [3, 4]), ("camera", [5, 6]), ("serial", [2, 2])]
    assert table.state.throws == [[3, 4], [5, 6]]
    assert table.state.unassigned[0]["source"] == "serial"

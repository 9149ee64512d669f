"""The box logic on the host: roll, animation, reports resent until acknowledged, host commands."""

import pytest
from dicebox import FW_VERSION
from dicebox.box import DiceBox
from dicebox.frame import checksum, decode, encode
from dicebox.hosthal import HostHal


class Bench:
    """A box on a virtual clock, stepped one millisecond per tick like the board's loop."""

    def __init__(self, seed=1, storage=None):
        self.now = 0
        self.hal = HostHal(clock=lambda: self.now, seed=seed, storage=storage)
        self.box = DiceBox(self.hal)

    def run(self, ms):
        for _ in range(ms):
            self.now += 1
            self.box.tick()

    def lines(self):
        return [decode(line) for line in self.hal.take().split(b"\n") if line]

    def press(self, held=60):
        self.hal.pressed = True
        self.run(held)
        self.hal.pressed = False

    def roll(self):
        self.press()
        self.run(DiceBox.ROLL_MS + 50)

    def shake(self, changes=10, every_ms=60):
        for _ in range(changes):
            self.hal.tilted = not self.hal.tilted
            self.run(every_ms)


def kinds(lines):
    return [f[0] for f in lines]


def test_the_box_introduces_itself_at_boot():
    b = Bench()
    assert b.lines() == [["HELLO", FW_VERSION, b.box.boot_id, "2", "2"]]  # 2 dice, protocol 2
    assert len(b.box.boot_id) == 8


def test_a_press_starts_a_roll_that_animates_settles_and_reports_the_faces():
    b = Bench()
    b.lines()
    b.roll()
    lines = b.lines()
    assert kinds(lines) == ["ROLLING", "ROLL"]
    assert lines[0] == ["ROLLING", b.box.boot_id, "1"]
    roll = lines[1]
    assert roll[:3] == ["ROLL", b.box.boot_id, "1"]
    faces = [int(f) for f in roll[3:]]
    assert len(faces) == 2 and all(1 <= f <= 6 for f in faces)
    assert b.hal.faces == faces  # the LEDs show the reported faces
    assert len(b.hal.shown) > 5  # the animation showed changing faces before settling


def test_each_roll_gets_the_next_sequence_number():
    b = Bench()
    for _ in range(3):
        b.roll()
        seq = b.box.seq
        b.hal.feed(encode("ACK", b.box.boot_id, seq))
        b.run(5)
    rolls = [f for f in b.lines() if f[0] == "ROLL"]
    assert [f[2] for f in rolls] == ["1", "2", "3"]


def test_an_unacknowledged_roll_is_resent_with_backoff_until_acknowledged():
    b = Bench()
    b.roll()
    b.lines()
    b.run(10_000)
    resent = [f for f in b.lines() if f[0] == "ROLL"]
    assert len(resent) >= 5 and all(f[2] == "1" for f in resent)
    b.run(3000)
    assert 1 <= len([f for f in b.lines() if f[0] == "ROLL"]) <= 3  # backed off to one every 2 s
    b.hal.feed(encode("ACK", b.box.boot_id, 1))
    b.run(10_000)
    assert b.lines() == []
    assert b.box.outbox == []


@pytest.mark.parametrize("ack", [
    encode("ACK", "deadbeef", 1),        # another boot's roll
    encode("ACK", "{boot}", 2),           # another roll
    b"$ACK,{boot},1*00\r\n",             # bad checksum
])
def test_a_wrong_or_garbled_ack_does_not_stop_the_resending(ack):
    b = Bench()
    b.roll()
    b.hal.feed(ack.replace(b"{boot}", b.box.boot_id.encode()) if b"{boot}" in ack else ack)
    b.lines()
    b.run(3000)
    assert "ROLL" in kinds(b.lines())


def test_host_commands_ping_and_hello_are_answered_and_garbage_gets_an_error():
    b = Bench()
    b.lines()
    b.hal.feed(encode("PING") + encode("HELLO") + b"\xff\xfenoise\r\n" + encode("FOO", 1))
    b.run(2)
    lines = b.lines()
    assert kinds(lines) == ["PONG", "HELLO", "ERR", "ERR"]
    assert lines[2][1] == "bad_frame" and lines[3][1:] == ["unknown_type", "FOO"]


@pytest.mark.parametrize(("command", "answer"), [
    (("PING", "x"), None),
    (("HELLO", 1, 2, 3), None),
    (("HELLO", ""), None),                 # `$HELLO,*HH`: one (empty) field
    (("ACK", "{boot}"), None),
    (("ACK", "{boot}", 1, 1), None),       # the right roll, one field too many
    (("ACK", "{boot}", "1x"), "seq"),      # the right count, a seq that is not a number
])
def test_a_command_with_the_wrong_number_of_fields_gets_bad_field_and_is_otherwise_ignored(command, answer):
    from companion.hardware.dice import protocol

    b = Bench()
    b.roll()
    b.lines()
    b.hal.feed(encode(*[b.box.boot_id if f == "{boot}" else f for f in command]))
    b.run(2)
    out = b.hal.take()
    assert [decode(x)[:2] for x in out.splitlines()] == [["ERR", "bad_field"]]  # no PONG, no HELLO
    if answer:
        assert decode(out)[2] == answer
    assert [e[1] for e in b.box.outbox] == [1]  # not taken as an ACK either
    assert isinstance(protocol.parse(out), protocol.Err)  # the host reads it as the box's error


def test_an_err_line_is_never_answered():
    b = Bench()
    b.lines()
    b.hal.feed(encode("ERR", "bad_field", "PING with 1 fields") + encode("ERR") + encode("ERR", "x", "y", "z"))
    b.run(5)
    assert b.lines() == []


def test_the_box_own_output_echoed_back_to_it_dies_out():
    """A loopback cable or an echoing terminal: each line the box sends comes back as a command."""
    b = Bench()
    sent = []

    def echo(data):
        sent.append(data)
        b.hal.feed(data)

    boot = b.hal.take()  # the boot HELLO, written before the line was wired
    b.hal.on_write = echo
    b.hal.feed(boot)
    b.run(500)
    assert [decode(x)[:2] for x in sent] == [["ERR", "bad_field"]]  # the HELLO read back; its ERR is not answered
    del sent[:]
    b.hal.feed(encode("PING"))
    b.run(500)
    assert [decode(x)[:2] for x in sent] == [["PONG"], ["ERR", "unknown_type"]]
    del sent[:]
    b.roll()  # ROLLING and ROLL (and its resends) each come back once as an unknown command
    b.run(5000)
    lines = [decode(x) for x in sent]
    own = [f for f in lines if f[0] != "ERR"]
    assert kinds(own)[:2] == ["ROLLING", "ROLL"] and set(kinds(own)) == {"ROLLING", "ROLL"}
    assert [f[1:] for f in lines if f[0] == "ERR"] == [["unknown_type", f[0]] for f in own]
    assert len(lines) == 2 * len(own) <= 20  # one ERR per line of its own, no more


def test_an_over_long_frame_from_the_host_is_dropped_whole():
    b = Bench()
    b.roll()
    b.lines()
    ack = encode("ACK", b.box.boot_id, 1)
    b.hal.feed(b"$ACK," + b"X" * 300 + b"*00\r\n")
    b.run(2)
    assert [f[:2] for f in b.lines()] == [["ERR", "too_long"]]  # said once, however long
    assert [e[1] for e in b.box.outbox] == [1]
    b.hal.feed(ack)
    b.run(2)
    assert b.box.outbox == []


@pytest.mark.parametrize("noise", [109, 300])
def test_noise_before_a_frame_never_costs_the_frame(noise):
    """'$' always begins a frame: an ACK glued to a long run of line noise still counts."""
    b = Bench()
    b.roll()
    b.lines()
    b.hal.feed(b"X" * noise + encode("ACK", b.box.boot_id, 1))
    b.run(2)
    assert b.box.outbox == []
    assert all(f[0] == "ERR" for f in b.lines())


def test_a_press_during_the_animation_does_not_start_a_second_roll():
    b = Bench()
    b.press()
    b.run(200)
    b.press()
    b.run(DiceBox.ROLL_MS + 50)
    assert kinds(b.lines()).count("ROLLING") == 1


def test_a_shake_rolls_but_a_nudge_does_not():
    b = Bench()
    b.lines()
    b.hal.tilted = True  # picked up
    b.run(500)
    b.hal.tilted = False  # set down
    b.run(3000)
    assert b.lines() == []
    b.shake()
    b.run(DiceBox.ROLL_MS + 100)
    assert kinds(b.lines()) == ["ROLLING", "ROLL"]
    b.run(3000)
    assert "ROLLING" not in kinds(b.lines())  # the same shake does not roll again


def test_a_roll_not_acknowledged_before_a_reset_is_resent_after_it_with_its_own_id():
    flash = {}
    b = Bench(storage=flash)
    b.roll()
    old_boot = b.box.boot_id
    rebooted = Bench(seed=2, storage=flash)  # power cycle: RAM lost, flash kept
    lines = rebooted.lines()
    assert lines[0][0] == "HELLO" and lines[0][2] != old_boot
    rebooted.run(300)
    resent = [f for f in rebooted.lines() if f[0] == "ROLL"]
    assert resent and resent[0][1:3] == [old_boot, "1"]
    rebooted.hal.feed(encode("ACK", old_boot, 1))
    rebooted.run(5)
    assert rebooted.box.outbox == [] and flash["outbox"] == ""


def count_flash_writes(b):
    """Wrap the bench's flash: a list of (tick, text) for every write of the outbox."""
    writes = []
    save = b.hal.save

    def counting_save(name, text):
        writes.append((b.now, text))
        save(name, text)

    b.hal.save = counting_save
    return writes


def per_tick(writes):
    ticks = {}
    for tick, _ in writes:
        ticks[tick] = ticks.get(tick, 0) + 1
    return ticks


def stored_seqs(text):
    return [int(decode(x.encode())[2]) for x in text.split("\n") if x]


def test_a_reconnect_acknowledging_16_rolls_writes_the_flash_once_and_a_power_cut_loses_no_roll():
    """One flash write per tick however many ACKs arrive (the watchdog bites after 2 s).

    Guarantee: flash holds every unacknowledged roll from before its first send; an ACK
    reaches flash at the end of the tick that read it. A power cut before that write
    resends the acknowledged rolls once after the reset, with their own boot id and seq,
    and the host acknowledges them again as duplicates (its log key is dice:<boot>:<seq>).
    """
    flash = {}
    b = Bench(storage=flash)
    for _ in range(DiceBox.OUTBOX_MAX):
        b.roll()  # no host listening: all 16 wait
    boot = b.box.boot_id
    assert stored_seqs(flash["outbox"]) == list(range(1, 17))
    writes = count_flash_writes(b)
    b.run(3000)
    assert writes == []  # resending writes nothing
    b.lines()
    # the host reconnects: its HELLO, then an ACK for each resent roll, all read in one tick
    b.hal.feed(encode("HELLO") + b"".join(encode("ACK", boot, seq) for seq in range(1, 17)))
    before_tick = dict(flash)
    b.run(1)
    assert len(writes) == 1 and flash["outbox"] == "" and b.box.outbox == []
    b.run(3000)
    assert len(writes) == 1
    assert "ROLL" not in kinds(b.lines())

    # a power cut during that tick, before its write: the 16 acknowledged rolls come back
    # once, under their own ids (the host de-duplicates); none is lost
    cut = Bench(seed=2, storage=dict(before_tick))
    assert [(e[0], e[1]) for e in cut.box.outbox] == [(boot, seq) for seq in range(1, 17)]
    # a power cut after it: nothing is sent again
    after = Bench(seed=3, storage=dict(flash))
    after.run(3000)
    assert after.box.outbox == [] and kinds(after.lines()) == ["HELLO"]


def test_acks_spread_over_ticks_write_the_flash_at_most_once_per_tick_and_flash_follows_the_outbox():
    flash = {}
    b = Bench(storage=flash)
    for _ in range(DiceBox.OUTBOX_MAX):
        b.roll()
    boot = b.box.boot_id
    writes = count_flash_writes(b)
    for seq in (3, 1, 16, 2):  # some ACKs in a tick of their own, some together
        b.hal.feed(encode("ACK", boot, seq))
        b.run(1)
    b.hal.feed(b"".join(encode("ACK", boot, seq) for seq in range(4, 16)) + encode("ACK", boot, 1))
    b.run(1)
    assert max(per_tick(writes).values()) == 1
    assert [stored_seqs(text) for _, text in writes] == [
        [1, 2] + list(range(4, 17)), [2] + list(range(4, 17)), [2] + list(range(4, 16)), list(range(4, 16)), []]


def test_a_roll_settling_in_the_tick_that_reads_acks_writes_the_flash_once():
    flash = {}
    b = Bench(storage=flash)
    for _ in range(3):
        b.roll()
    boot = b.box.boot_id
    b.press()
    b.run(b.box._last_motion + DiceBox.ROLL_MS - 1 - b.now)  # the next tick settles roll 4
    writes = count_flash_writes(b)
    b.hal.feed(b"".join(encode("ACK", boot, seq) for seq in (1, 2, 3)))
    b.run(1)
    assert not b.box.rolling
    assert len(writes) == 1 and stored_seqs(flash["outbox"]) == [4]  # stored before it is sent
    b.run(100)
    assert len(writes) == 1


def test_a_full_outbox_refuses_new_rolls_rather_than_dropping_old_ones():
    b = Bench()
    for _ in range(DiceBox.OUTBOX_MAX):
        b.roll()
    b.lines()
    b.roll()
    lines = b.lines()
    assert ["ERR", "outbox_full"] in [f[:2] for f in lines]
    assert len(b.box.outbox) == DiceBox.OUTBOX_MAX
    assert [e[1] for e in b.box.outbox] == list(range(1, DiceBox.OUTBOX_MAX + 1))


def test_the_loop_feeds_the_watchdog_on_every_tick():
    b = Bench()
    b.run(100)
    assert b.hal.feeds == 100


def test_a_line_of_exactly_128_bytes_with_a_bare_newline_is_accepted_as_the_host_accepts_it():
    from companion.hardware.dice import protocol

    body = b"PING," + b"x" * (128 - 1 - 6 - len(b"PING,"))  # '$' + body + '*HHHH' + '\n' = 128 bytes
    line = b"$" + body + b"*" + b"%04X" % checksum(body) + b"\n"
    assert len(line) == 128
    assert decode(line) == ["PING", body[5:].decode()]
    assert protocol.MAX_LINE == 128 and len(line) <= protocol.MAX_LINE
    assert decode(line[:-1] + b"\r\n") is None  # 129 bytes with CR LF: one over


def test_frames_carry_the_crc16_of_the_bytes_between_dollar_and_star():
    line = encode("ROLL", "a1b2c3d4", 7, 3, 5)
    body = line[1:line.index(b"*")]
    assert checksum(b"123456789") == 0x29B1  # CRC-16/CCITT-FALSE's check value
    assert line.endswith(b"*%04X\r\n" % checksum(body))
    assert decode(line) == ["ROLL", "a1b2c3d4", "7", "3", "5"]


from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.binary(max_size=60), st.sampled_from([b"$", b"*", b"\n", b"\r\n", b"ACK", b","])),
                max_size=30).map(b"".join))
def test_fuzz_arbitrary_host_bytes_never_crash_the_box_nor_cancel_a_pending_roll(data):
    b = Bench()
    b.roll()
    b.hal.feed(data)
    b.run(5)
    assert [e[1] for e in b.box.outbox] == [1]  # no valid ACK for this boot can be in random bytes
    b.hal.feed(encode("ACK", b.box.boot_id, 1))
    b.run(2)
    assert b.box.outbox == []

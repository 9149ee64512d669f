"""The reader and the virtual dice box (real firmware logic) over a pty, TCP and a port object."""

import logging
import os
import time

import pytest

from companion.game.events import DiceThrown
from companion.hardware.dice.link import DiceLink
from companion.hardware.dice.sim import Faults, PtyTransport, TcpTransport, VirtualDiceBox, VirtualPort
from companion.health import dice_from_status
from companion.hub import Hub
from companion.rules.variant import load_variant
from companion.storage import EventStore
from companion.table import Table

ROLL_MS = 30  # a quick virtual box: the tests wait for the wire, not for the animation


def wait_for(cond, timeout=10.0, what="condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def table():
    t = Table(EventStore(":memory:"), Hub())
    t.start_game(load_variant("classical"), ["Ann", "Bob", "Cat", "Dan"])
    return t


def warnings(table, code):
    return [m.data for m in table.hub.since(0) if m.topic == "warning" and m.data["code"] == code]


def rolls(table):
    return [r.event for r in table.records() if isinstance(r.event, DiceThrown)]


class Rig:
    """A virtual box on a transport, the reader on its URL, started and stopped together."""

    def __init__(self, table, transport="pty", faults=None, tmp_path=None, seed=7):
        self.box = VirtualDiceBox(seed=seed, faults=faults, roll_ms=ROLL_MS)
        if transport == "pty":
            self.transport = PtyTransport(self.box, link=tmp_path / "dicebox")
        else:
            self.transport = TcpTransport(self.box)
        self.link = DiceLink(self.transport.url, table, kind="sim", source="sim", press_roll=self.box.press_roll,
                             ping_interval=0.5)
        self.table = table

    def __enter__(self):
        self.box.start()
        self.transport.start()
        self.link.start()
        wait_for(lambda: self.link.status["firmware"] is not None, what="the box's HELLO")
        return self

    def __exit__(self, *exc):
        self.link.stop()
        self.transport.stop()
        self.box.stop()

    def roll(self, count=1):
        want = len(rolls(self.table)) + count
        for _ in range(count):
            done = self.link.status["rolls_recorded"] + 1
            self.link.press_roll()
            wait_for(lambda: self.link.status["rolls_recorded"] >= done, what="the roll to be recorded")  # noqa: B023
        wait_for(lambda: len(rolls(self.table)) >= want, what="the rolls in the log")


@pytest.mark.parametrize("transport", ["pty", "tcp"])
def test_a_press_on_the_virtual_box_lands_in_the_game_log(table, tmp_path, transport):
    with Rig(table, transport, tmp_path=tmp_path) as rig:
        rig.roll()
        [ev] = rolls(table)
        assert ev.source == "sim" and ev.boot_id == rig.box.boot_id and ev.seq == 1
        assert all(1 <= f <= 6 for f in ev.faces) and len(ev.faces) == 2
        wait_for(lambda: rig.box.box.outbox == [], what="the ACK to reach the box")
        s = table.hub.status["dice"]
        assert s["connected"] and s["firmware"] == "1.0.0" and s["kind"] == "sim"


@pytest.mark.parametrize("transport", ["pty", "tcp"])
def test_the_reader_reconnects_after_the_port_is_closed_and_reopened(table, tmp_path, transport):
    with Rig(table, transport, tmp_path=tmp_path) as rig:
        rig.roll()
        rig.box.disconnect()  # cable pulled: the pty is closed (a new one appears) / the socket closed
        wait_for(lambda: rig.link.status["reconnects"] >= 1, what="a reconnect")
        wait_for(lambda: rig.link.status["connected"], what="the link to be up again")
        rig.roll()
        assert [e.seq for e in rolls(table)] == [1, 2]


def test_a_roll_made_while_the_cable_is_out_arrives_after_reconnecting(table, tmp_path):
    box = VirtualDiceBox(seed=3, roll_ms=ROLL_MS)
    port = {"n": 0}

    def opener():  # the box is away for the first opens (e.g. not plugged in yet)
        port["n"] += 1
        if port["n"] < 3:
            raise OSError("no such device")
        return VirtualPort(box)

    box.start()
    box.press_roll()
    time.sleep(0.3)  # rolled before any host listened
    link = DiceLink("virtual://", table, opener=opener)
    link.start()
    try:
        wait_for(lambda: len(rolls(table)) == 1, what="the roll made while disconnected")
        assert port["n"] >= 3
    finally:
        link.stop()
        box.stop()


def test_a_box_that_cannot_be_opened_is_logged_once_per_failure_not_per_retry(table, caplog):
    tries = {"n": 0}

    def opener():
        tries["n"] += 1
        raise OSError(2, "No such file or directory") if tries["n"] < 5 else OSError(13, "Permission denied")

    link = DiceLink("/dev/ttyACM7", table, opener=opener, reconnect_max=0.1)
    with caplog.at_level(logging.WARNING, logger="companion.hardware.dice.link"):
        link.start()
        try:
            wait_for(lambda: tries["n"] >= 8, what="retries")
        finally:
            link.stop()
    said = [r.getMessage() for r in caplog.records if "not available" in r.getMessage()]
    assert said == [
        "dice box not available: cannot open /dev/ttyACM7: No such file or directory "
        "(is the dice box plugged in? `ls /dev/serial/by-id/`) (retrying)",
        "dice box not available: cannot open /dev/ttyACM7: Permission denied (the user running the companion "
        "must be in the dialout group: `sudo usermod -aG dialout $USER`, then log in again) (retrying)",
    ]


def test_a_reconnect_clears_the_error_of_the_failed_opens(table):
    box = VirtualDiceBox(seed=3, roll_ms=ROLL_MS)
    tries = {"n": 0}

    def opener():  # the box is plugged in on the third try
        tries["n"] += 1
        if tries["n"] < 3:
            raise OSError("no such device")
        return VirtualPort(box)

    box.start()
    link = DiceLink("virtual://", table, opener=opener)
    link.start()
    try:
        wait_for(lambda: link.status["firmware"] is not None, what="the box's HELLO")
        s = table.hub.status["dice"]
        assert s["connected"] and s["last_error"] is None
    finally:
        link.stop()
        box.stop()


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pty")
def test_a_port_that_opens_but_never_answers_is_a_warning_after_the_links_grace(table, caplog):
    master, slave = os.openpty()  # a terminal with nothing behind it: a wrong device, or a hung box
    link = DiceLink(os.ttyname(slave), table, ping_interval=0.5)
    link.start()
    try:
        wait_for(lambda: link.status["connected"], what="the port to open")
        check = dice_from_status(table.hub.status["dice"], link.url)
        assert check.level == "ok" and "not heard from yet" in check.summary  # just connected: its grace
        wait_for(lambda: dice_from_status(table.hub.status["dice"], link.url).level == "warn",
                 what="the silent box to be a warning")
        assert "the port opens but the box does not answer" in dice_from_status(table.hub.status["dice"],
                                                                                 link.url).summary
        # the phones are told too, once, and not again at every unanswered ping
        wait_for(lambda: warnings(table, "dice_link"), what="the phones' warning")
        time.sleep(4 * link.ping_interval)
        said = warnings(table, "dice_link")
        assert len(said) == 1 and said[0]["message"].startswith("The dice box does not answer on ")
        # and the service's log, where an operator looks (journalctl), says it once as well
        logged = [r.getMessage() for r in caplog.records if "does not answer" in r.getMessage()]
        assert logged == [said[0]["message"]]
    finally:
        link.stop()
        os.close(master)
        os.close(slave)


def test_many_rolls_over_a_faulty_line_are_each_recorded_exactly_once(table, tmp_path):
    faults = Faults(garbage=0.3, corrupt=0.2, drop_acks=0.5)
    with Rig(table, "pty", faults=faults, tmp_path=tmp_path) as rig:
        rig.roll(6)
        time.sleep(1.0)  # let resends of rolls whose ACK was lost come in
        events = rolls(table)
        assert [e.seq for e in events] == [1, 2, 3, 4, 5, 6]
        s = rig.link.status
        assert s["duplicates"] >= 1  # ACKs were lost: the box resent, the log kept one
        assert sum(s["errors"].values()) >= 1  # the noise was seen, counted, and kept out


def test_a_roll_pending_at_a_reboot_is_resent_by_the_new_boot_and_recorded_once(table, tmp_path):
    with Rig(table, "pty", tmp_path=tmp_path) as rig:
        rig.box.drop_next_acks(1000)  # the host's ACKs never arrive
        rig.roll()
        first_boot = rig.box.boot_id
        rig.box.reboot()
        wait_for(lambda: rig.box.boot_id != first_boot, what="the reboot")
        rig.box.drop_next_acks(0)
        wait_for(lambda: rig.box.box.outbox == [], what="the old roll to be acknowledged")
        [ev] = rolls(table)
        assert ev.boot_id == first_boot
        wait_for(lambda: rig.link.status["boot_id"] == rig.box.boot_id, what="the new HELLO")


def test_a_nudge_is_not_a_roll_but_a_shake_is(table, tmp_path):
    with Rig(table, "pty", tmp_path=tmp_path) as rig:
        rig.box.nudge()
        time.sleep(0.8)
        assert rolls(table) == []
        rig.box.shake()
        wait_for(lambda: len(rolls(table)) == 1, what="the shaken roll")


def test_a_cocked_die_from_the_box_prompts_a_rethrow(table, tmp_path):
    heard = []
    table.hub.subscribe(lambda m: heard.append(m.data), {"warning"})
    with Rig(table, "pty", tmp_path=tmp_path) as rig:
        rig.box.cock_next_roll()
        rig.roll()
        [ev] = rolls(table)
        assert len(ev.cocked) == 1 and ev.faces[ev.cocked[0]] == 0
        assert [w["die"] for w in heard if w["code"] == "rethrow"] == ev.cocked
        rig.roll()
        assert table.state.throws and table.state.throws[0] == rolls(table)[1].faces


def test_a_crashed_firmware_loop_is_reset_as_by_the_watchdog_and_keeps_its_pending_roll(table, tmp_path):
    with Rig(table, "pty", tmp_path=tmp_path) as rig:
        rig.box.drop_next_acks(1000)
        rig.roll()
        first = rig.box.box
        calls = {"n": 0}
        real_tick = first.tick

        def hang_once():
            calls["n"] += 1
            if calls["n"] == 1:
                raise MemoryError("simulated firmware fault")
            real_tick()

        first.tick = hang_once
        wait_for(lambda: rig.box.resets == 1, what="the watchdog reset")
        assert rig.box.box is not first and rig.box.boot_id != first.boot_id
        rig.box.drop_next_acks(0)
        wait_for(lambda: rig.box.box.outbox == [], what="the pending roll to be acknowledged")
        assert [e.boot_id for e in rolls(table)] == [first.boot_id]

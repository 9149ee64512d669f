"""A dice box port that does not open: doctor says so once, live or standalone, with the same hint."""

from companion.config import load_settings
from companion.health import dice_from_status, probe_dice

HINT = "(is the dice box plugged in? `ls /dev/serial/by-id/`)"
PORT = "/dev/ttyACM_no_such_box"
# pyserial's words, as the running companion's link keeps them in its status
LINK_ERROR = (f"cannot open {PORT}: [Errno 2] could not open port {PORT}: "
              f"[Errno 2] No such file or directory: '{PORT}'")


def test_the_live_report_says_it_once_with_the_hint():
    check = dice_from_status({"kind": "serial", "url": PORT, "connected": False, "last_error": LINK_ERROR}, PORT)
    assert check.level == "fail"
    assert check.summary == f"dice box not connected: cannot open {PORT}: No such file or directory {HINT}"


def test_standalone_and_live_say_the_same():
    standalone = probe_dice(load_settings(env={}, overrides={"dice": {"url": PORT}})).summary
    live = dice_from_status({"url": PORT, "connected": False, "last_error": LINK_ERROR}, PORT).summary
    assert standalone == f"cannot open {PORT}: No such file or directory {HINT}"
    assert live.endswith(standalone)


def test_no_permission_points_at_the_dialout_group():
    error = (f"cannot open {PORT}: [Errno 13] could not open port {PORT}: [Errno 13] Permission denied: '{PORT}'")
    check = dice_from_status({"url": PORT, "connected": False, "last_error": error}, PORT)
    assert check.summary.startswith(f"dice box not connected: cannot open {PORT}: Permission denied (")
    assert "dialout group" in check.summary and check.summary.count(PORT) == 1


def test_other_reasons_are_kept_as_they_are():
    check = dice_from_status({"url": PORT, "connected": False, "last_error": "device disconnected"}, PORT)
    assert check.summary == f"dice box not connected on {PORT}: device disconnected"
    tcp = "socket://127.0.0.1:1"
    refused = dice_from_status({"url": tcp, "connected": False,
                                "last_error": f"cannot open {tcp}: Could not open port {tcp}: [Errno 111] "
                                              "Connection refused"}, tcp)
    assert refused.summary == f"dice box not connected: cannot open {tcp}: Connection refused"

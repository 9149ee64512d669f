"""`companion dice-sim`: how it ends, and its --link (a missing folder, something in the way, a stale link)."""

import logging
import os
import select
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.hardware.dice.sim import PtyLinkError, PtyTransport, VirtualDiceBox

pytestmark = pytest.mark.skipif(not hasattr(os, "openpty"), reason="the virtual box's pty needs a POSIX system")


@pytest.fixture
def start():
    """Start `companion dice-sim ARGS`; whatever is still running at the end is killed (a failed test too)."""
    procs = []

    def run(*args, stdin):
        procs.append(subprocess.Popen([sys.executable, "-m", "companion", "dice-sim", *args], stdin=stdin,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        return procs[-1]

    yield run
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def read_until(proc, text, timeout=20.0):
    """What the process printed, up to `text` (or all it printed before `timeout`)."""
    out, fd = b"", proc.stdout.fileno()
    deadline = time.monotonic() + timeout
    while text.encode() not in out and time.monotonic() < deadline:
        if select.select([fd], [], [], 0.1)[0]:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            out += chunk
    return out.decode()


def stopped(proc, timeout=10.0):
    """The exit status, or None if it is still running after `timeout` (it is then killed)."""
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None


@pytest.fixture
def terminal():
    """A pty for the command's standard input: it sees a terminal, and Ctrl+D ends its input."""
    master, slave = os.openpty()
    yield master, slave
    for fd in (master, slave):
        try:
            os.close(fd)
        except OSError:
            pass


@pytest.mark.parametrize("keys", [b"\x04", b"x\x04\x04"], ids=["ctrl-d", "ctrl-d-twice-after-text"])
def test_at_a_terminal_ctrl_d_quits_as_the_help_says(start, terminal, keys):
    master, slave = terminal
    proc = start("--tcp", "0", stdin=slave)
    out = read_until(proc, "q  quit")
    os.write(master, keys)  # after typed text, the first Ctrl+D only hands the text over
    assert stopped(proc) == 0
    out += proc.stdout.read().decode()
    assert "Ctrl+D (the end of input) or Ctrl+C also quits." in out and "Virtual dice box stopped." in out


def test_without_a_terminal_the_help_says_the_end_of_input_does_not_stop_it(start):
    proc = start("--tcp", "0", stdin=subprocess.PIPE)
    out = read_until(proc, "does.")
    assert "The end of standard input does not stop it: q, Ctrl+C or SIGTERM does." in out
    proc.stdin.close()
    assert stopped(proc, timeout=1.0) is None  # still running, as said (killed by `stopped`)


def test_a_link_in_a_missing_folder_is_a_plain_error(tmp_path):
    link = tmp_path / "nowhere" / "box"
    r = CliRunner().invoke(main, ["dice-sim", "--link", str(link)])
    assert r.exit_code == 1
    assert r.output == f"Error: cannot make the link {link}: folder {tmp_path / 'nowhere'} does not exist\n"


def test_a_file_at_the_link_path_is_refused_and_kept(start, tmp_path):
    path = tmp_path / "box"
    path.write_text("mine")
    proc = start("--link", str(path), stdin=subprocess.DEVNULL)  # a process: taking the path, it would run on
    assert stopped(proc) == 1
    assert f"cannot make the link {path}: something that is not a link is there" in proc.stderr.read().decode()
    assert path.read_text() == "mine"


def test_a_live_link_is_refused_and_kept(tmp_path, terminal):
    pty = os.ttyname(terminal[1])  # another dice-sim's pty, say
    link = tmp_path / "box"
    link.symlink_to(pty)
    with pytest.raises(PtyLinkError, match=f"it points to {pty}, which is still there"):
        PtyTransport(VirtualDiceBox(), link=link).start()
    assert os.readlink(link) == pty


def test_a_stale_link_is_replaced_and_said(tmp_path, caplog):
    link = tmp_path / "box"
    link.symlink_to("/dev/pts/no-such-pty")
    transport = PtyTransport(VirtualDiceBox(), link=link)
    with caplog.at_level(logging.INFO, logger="companion.hardware.dice.sim"):
        transport.start()
    try:
        assert os.readlink(link) == transport.path and transport.stale_link == "/dev/pts/no-such-pty"
        assert f"replacing the stale link {link}: its pty /dev/pts/no-such-pty is gone" in caplog.text
    finally:
        transport.stop()
    assert not os.path.lexists(link)


def test_after_kill_9_the_next_dice_sim_takes_over_the_link(start, tmp_path):
    link = tmp_path / "box"
    first = start("--link", str(link), stdin=subprocess.PIPE)
    read_until(first, "Connect with")
    pty = os.readlink(link)
    first.send_signal(signal.SIGKILL)  # no stop(): the link is left behind, its pty gone
    first.wait()
    assert os.path.islink(link) and not os.path.exists(link)
    second = start("--link", str(link), stdin=subprocess.PIPE)
    out = read_until(second, "does.")
    second.send_signal(signal.SIGTERM)
    assert stopped(second) == 0, second.stderr.read().decode()
    assert f"Replaced the stale link {link}: its pty {pty} is gone" in out
    assert not os.path.lexists(link)  # removed on exit, as usual

"""A pty link left by a killed dice-sim is stale even when its pty's number was given to another
program (the kernel reuses numbers): who holds the pty decides, not whether the path exists."""

import os
import subprocess
import sys

import pytest

from companion.hardware.dice.sim import PtyLinkError, PtyTransport, VirtualDiceBox

pytestmark = pytest.mark.skipif(not hasattr(os, "openpty"), reason="ptys only")


@pytest.fixture
def reused_pty():
    """A pty that exists now, held by this test: another program's terminal with the dead one's number."""
    master, slave = os.openpty()
    yield os.ttyname(slave), slave
    os.close(master)
    os.close(slave)


def dead_pid() -> int:
    p = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(p.stdout)


def test_a_link_whose_maker_died_is_replaced_though_its_pty_number_lives_again(tmp_path, reused_pty):
    pty, _ = reused_pty
    link = tmp_path / "box"
    link.symlink_to(pty)
    (tmp_path / "box.pid").write_text(f"{dead_pid()}\n")
    transport = PtyTransport(VirtualDiceBox(), link=link)
    transport.start()
    try:
        assert transport.stale_link == pty and os.readlink(link) == transport.path != pty
        assert (tmp_path / "box.pid").read_text() == f"{os.getpid()}\n"
    finally:
        transport.stop()
    assert not os.path.lexists(link) and not (tmp_path / "box.pid").exists()


def test_a_link_whose_maker_lives_and_holds_the_pty_is_refused(tmp_path, reused_pty):
    pty, slave = reused_pty
    holder = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE,
                              pass_fds=(slave,))
    try:
        link = tmp_path / "box"
        link.symlink_to(pty)
        (tmp_path / "box.pid").write_text(f"{holder.pid}\n")
        with pytest.raises(PtyLinkError, match="which is still there"):
            PtyTransport(VirtualDiceBox(), link=link).start()
        assert os.readlink(link) == pty
    finally:
        holder.communicate(b"")

"""A companion killed with -9 leaves no `companion-dice-*` folder in /tmp: the simulated box's pty
link lives in the data folder, and the next start clears what a dead one left there."""

import os
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "openpty"), reason="the pty link exists only where there are ptys")


def start(data_dir, env):
    proc = subprocess.Popen([sys.executable, "-m", "companion", "run", "--host", "127.0.0.1", "--port", "0",
                             "--data-dir", str(data_dir)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    for line in proc.stdout:
        if "Press Ctrl+C" in line:
            return proc
    raise AssertionError(proc.stderr.read())


def test_killed_companions_leave_nothing_to_pile_up(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp)}
    data = tmp_path / "data"
    for _ in range(2):
        proc = start(data, env)
        link = data / "dice-sim" / "dicebox"
        assert re.fullmatch(r"/dev/pts/\d+", os.readlink(link))
        proc.kill()  # kill -9: no stop(), no finaliser
        proc.communicate(timeout=20)
        assert not [p.name for p in tmp.iterdir() if p.name.startswith("companion-dice-")]
        assert os.path.islink(link)  # left behind, and taken over by the next start
    assert sorted(p.name for p in (data / "dice-sim").iterdir()) == ["dicebox", "dicebox.pid"]

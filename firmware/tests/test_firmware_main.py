"""main.py: the firmware starts unless ROLL is held at power-up (the way in for an update)."""

import runpy
import sys
import types
from pathlib import Path

import pytest

MAIN = Path(__file__).resolve().parents[1] / "main.py"


@pytest.mark.parametrize(("level", "starts"), [(1, True), (0, False)])
def test_roll_held_at_power_up_keeps_the_firmware_from_starting(monkeypatch, capsys, level, starts):
    started = []

    class Pin:
        IN, PULL_UP = "in", "pull_up"

        def __init__(self, pin, mode, pull):
            assert (mode, pull) == ("in", "pull_up")
            self.pin = pin

        def value(self):
            return level  # the pull-up reads 1; a pressed ROLL pulls it to 0

    rp2040 = types.ModuleType("dicebox.rp2040")
    rp2040.BUTTON_PIN, rp2040.run = 14, lambda: started.append(True)
    monkeypatch.setitem(sys.modules, "machine", types.SimpleNamespace(Pin=Pin))
    monkeypatch.setitem(sys.modules, "dicebox.rp2040", rp2040)
    runpy.run_path(str(MAIN))
    assert bool(started) is starts
    assert ("not started" in capsys.readouterr().out) is not starts

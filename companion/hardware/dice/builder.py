"""Builds the dice components from `[dice]` settings: a real box on its URL, or the virtual box.

`url = "sim"` (the default) starts the virtual dice box, which runs the real firmware logic,
on a pseudo-terminal (a TCP port where the OS has no ptys) and reads it through the same
`DiceLink` as a real box. Components: "dice-box" (the virtual box, only with the sim) and
"dice" (the reader; `services.find("dice").press_roll()` presses the virtual ROLL button).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from pathlib import Path

from companion.hardware.dice.link import DiceLink
from companion.hardware.dice.sim import PtyTransport, TcpTransport, VirtualDiceBox

#: the simulated box's pty link, in the data folder (see SimulatedDiceBox)
SIM_FOLDER = "dice-sim"


class SimulatedDiceBox:
    """Component "dice-box": the virtual box and the port it is reached on."""

    name = "dice-box"

    def __init__(self, box: VirtualDiceBox, folder: Path | None = None) -> None:
        """`folder`: where the pty's link lives (the data folder's, reused by each start: a
        companion killed with -9 leaves nothing behind to pile up); else a new temporary one."""
        self.box = box
        self._dir: str | None = None
        if hasattr(os, "openpty"):
            if folder is not None:  # the caller holds the data folder's lock: what is here is a dead one's
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir(parents=True)
                self._dir = str(folder)
            else:
                self._dir = tempfile.mkdtemp(prefix="companion-dice-")
            # removed on stop(), or when the box is dropped or the process exits without stop()
            self._remove_dir = weakref.finalize(self, shutil.rmtree, self._dir, True)
            self.transport: PtyTransport | TcpTransport = PtyTransport(box, link=Path(self._dir) / "dicebox")
        else:
            self.transport = TcpTransport(box)

    @property
    def url(self) -> str:
        return self.transport.url

    def start(self) -> None:
        self.box.start()
        self.transport.start()

    def stop(self) -> None:
        self.transport.stop()
        self.box.stop()
        if self._dir:
            self._remove_dir()


def build(services) -> None:
    cfg = services.settings.dice
    common = dict(ping_interval=cfg.ping_interval, reconnect_max=cfg.reconnect_max)
    if cfg.url == "sim":
        sim = services.add(SimulatedDiceBox(VirtualDiceBox(roll_ms=cfg.sim_roll_ms),
                                            folder=services.settings.data_path / SIM_FOLDER))
        services.add(DiceLink(sim.url, services.table, kind="sim", source="sim",
                              press_roll=sim.box.press_roll, **common))
    else:
        services.add(DiceLink(cfg.url, services.table, kind="serial", source="serial", **common))

"""Dice box firmware logic (MicroPython on an RP2040; the same code runs under CPython).

Only `rp2040.py` touches the board (`machine`, USB serial, flash); everything else talks to
the board through the small `Hal` interface in `hal.py`, so the host's tests and the virtual
dice box (`companion dice-sim`) execute exactly this logic.
"""

FW_VERSION = "1.0.0"
N_DICE = 2

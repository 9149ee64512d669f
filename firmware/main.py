# Dice box firmware entry point: MicroPython runs main.py at boot (see firmware/README.md).
from dicebox.rp2040 import run

run()

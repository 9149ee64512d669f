# Dice box firmware entry point: MicroPython runs main.py at boot (see firmware/README.md).
# Holding ROLL while the box is plugged in keeps the firmware from starting, so that the USB
# REPL stays free for `mpremote` to copy an update: the running firmware ignores Ctrl-C on the
# line and feeds a watchdog that cannot be stopped.
import machine
from dicebox.rp2040 import BUTTON_PIN, run

if machine.Pin(BUTTON_PIN, machine.Pin.IN, machine.Pin.PULL_UP).value():  # pressed reads 0
    run()
else:
    print("dice box: ROLL held at power-up, firmware not started; release it and copy the update")

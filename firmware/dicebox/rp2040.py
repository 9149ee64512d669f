"""The hardware layer on a Raspberry Pi Pico (RP2040) running MicroPython.

Pins (hardware_docs/dice-box.md): die 1 pip groups A-D on GP2-GP5, die 2 on GP6-GP9,
ROLL button GP14 and tilt switch GP15 to ground with internal pull-ups. The host link is
the USB serial port (CDC), which ignores the baud rate; 115200 is what a UART link uses.
"""

import os
import select
import sys
import time

import machine
import micropython

from dicebox.hal import Hal
from dicebox.pips import groups

DIE_PINS = ((2, 3, 4, 5), (6, 7, 8, 9))
BUTTON_PIN = 14
TILT_PIN = 15
WATCHDOG_MS = 2000  # the loop ticks every 2 ms; a stall this long resets the box
LOOP_SLEEP_MS = 2


class PicoHal(Hal):
    def __init__(self):
        Pin = machine.Pin
        self._button = Pin(BUTTON_PIN, Pin.IN, Pin.PULL_UP)
        self._tilt = Pin(TILT_PIN, Pin.IN, Pin.PULL_UP)
        self._dice = [[Pin(p, Pin.OUT, value=0) for p in die] for die in DIE_PINS]
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self._stdin = sys.stdin.buffer
        self._stdout = sys.stdout.buffer
        micropython.kbd_intr(-1)  # a 0x03 byte on the line must not stop the firmware
        self._wdt = machine.WDT(timeout=WATCHDOG_MS)

    def ticks_ms(self):
        return time.ticks_ms()

    def ticks_diff(self, a, b):
        return time.ticks_diff(a, b)

    def button(self):
        return not self._button.value()  # pressed pulls the pin to ground

    def tilt(self):
        return not self._tilt.value()

    def show(self, faces):
        for pins, face in zip(self._dice, faces):
            for pin, on in zip(pins, groups(face)):
                pin.value(on)

    def write(self, data):
        self._stdout.write(data)

    def read(self):
        data = b""
        while len(data) < 256 and self._poll.poll(0):
            data += self._stdin.read(1)
        return data

    def random_bytes(self, n):
        return os.urandom(n)  # rp2 port: the ring oscillator's random bit, a hardware source

    def feed_watchdog(self):
        self._wdt.feed()

    def load(self, name):
        try:
            with open(name) as f:
                return f.read()
        except OSError:
            return None

    def save(self, name, text):
        with open(name + ".tmp", "w") as f:  # write aside, then rename: littlefs renames atomically
            f.write(text)
        os.rename(name + ".tmp", name)


def run():
    from dicebox.box import DiceBox

    hal = PicoHal()
    box = DiceBox(hal)
    while True:
        box.tick()
        time.sleep_ms(LOOP_SLEEP_MS)

"""The wiring of the lamps, buttons and buzzer to the Pi's 40-pin header, drawn from the pin map.

`companion wiring` draws it for the configured pins (SVG) or lists it (Markdown table);
hardware_docs/wiring.svg and wiring-table.md are its output for the default pins, so the
documentation cannot drift from the defaults (a test compares them). Header positions come
from gpiozero's own board data.
"""

from __future__ import annotations

from dataclasses import dataclass
from xml.sax.saxutils import escape

from companion.config import GpioSettings
from companion.rules.seats import WIND_NAMES, WINDS

RESISTOR_LED = "330 ohm"
NOTES = [
    f"Lamp: pin -> {RESISTOR_LED} resistor -> LED anode (long leg); LED cathode -> GND. About 5 mA per LED.",
    "Button: pin -> push button -> GND. No resistor: the Pi's internal pull-up is used.",
    "Buzzer: an active 5 V buzzer switched by an NPN transistor (BC337 or 2N2222): pin -> 1 kohm -> base;",
    "emitter -> GND; collector -> buzzer (-); buzzer (+) -> 5 V. A GPIO pin cannot drive the buzzer directly.",
    "Seat lamps and buttons are named for the player who began the game in that seat (the seats are fixed).",
]


@dataclass(frozen=True)
class Wire:
    bcm: int
    board: int
    part: str  # "lamp", "button" or "buzzer"
    label: str


def header_pins():
    """{board number: PinInfo} of the 40-pin header (the same on every 40-pin Pi)."""
    from gpiozero.pins.mock import MockFactory

    return dict(MockFactory().board_info.headers["J8"].pins)


def wires(settings: GpioSettings) -> list[Wire]:
    board = {int(p.name[4:]): n for n, p in header_pins().items() if p.name.startswith("GPIO")}
    out: list[Wire] = []
    for i, pin in enumerate(settings.seat_lamps):
        out.append(Wire(pin, board[pin], "lamp", f"dealer lamp, seat of the first {WIND_NAMES[WINDS[i]]}"))
    for i, pin in enumerate(settings.wind_lamps):
        out.append(Wire(pin, board[pin], "lamp", f"prevalent wind lamp {WIND_NAMES[WINDS[i]]}"))
    for i, pin in enumerate(settings.seat_buttons):
        out.append(Wire(pin, board[pin], "button", f"hand-over button, seat of the first {WIND_NAMES[WINDS[i]]}"))
    if settings.undo_button != "none":
        out.append(Wire(settings.undo_button, board[settings.undo_button], "button", "undo button"))
    if settings.buzzer != "none":
        out.append(Wire(settings.buzzer, board[settings.buzzer], "buzzer", "warning buzzer (via transistor)"))
    return sorted(out, key=lambda w: w.board)


def table(settings: GpioSettings) -> str:
    """The wiring as a Markdown table, in header order."""
    rows = ["| header pin | GPIO (BCM) | part | wire to |", "|---|---|---|---|"]
    to = {"lamp": f"{RESISTOR_LED} -> LED -> GND", "button": "button -> GND", "buzzer": "1 kohm -> NPN base"}
    for w in wires(settings):
        rows.append(f"| {w.board} | GPIO{w.bcm} | {w.label} | {to[w.part]} |")
    return "\n".join(rows) + "\n"


COLOURS = {"lamp": "#d98c00", "button": "#2f6fb3", "buzzer": "#8a3fb3"}


def svg(settings: GpioSettings) -> str:
    """The header with each used pin wired to its part, ground pins marked, and the wiring notes."""
    pins = header_pins()
    used = {w.board: w for w in wires(settings)}
    row_h, top, cx = 26, 70, 480
    width, height = 960, top + 20 * row_h + 40 + 18 * len(NOTES) + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="#fff"/>',
           f'<text x="{width / 2}" y="28" font-size="18" text-anchor="middle">Mahjong table companion: '
           'lamps, buttons and buzzer on the 40-pin header</text>',
           f'<text x="{width / 2}" y="48" text-anchor="middle" fill="#555">Header seen from above, pin 1 top left '
           '(its square pad, at the end away from the USB ports); BCM numbers as in the configuration [gpio]</text>',
           f'<rect x="{cx - 34}" y="{top - 16}" width="68" height="{20 * row_h + 6}" rx="6" fill="#1f5f2f"/>']
    for n, info in sorted(pins.items()):
        x = cx - 14 if info.col == 1 else cx + 14
        y = top + (info.row - 1) * row_h
        name = info.name
        fill = "#000" if name == "GND" else "#c62828" if name in ("5V", "3V3") else "#f4c542" if n in used else "#ccc"
        out.append(f'<circle cx="{x}" cy="{y}" r="8" fill="{fill}" stroke="#fff"/>')
        out.append(f'<text x="{x}" y="{y + 3.5}" font-size="8" text-anchor="middle" '
                   f'fill="{"#fff" if fill in ("#000", "#c62828") else "#000"}">{n}</text>')
        side = -1 if info.col == 1 else 1
        lx = cx + side * 40
        anchor = "end" if side < 0 else "start"
        out.append(f'<text x="{lx}" y="{y + 4}" text-anchor="{anchor}" fill="#333">{escape(name)}</text>')
        wire = used.get(n)
        if wire is None:
            continue
        colour = COLOURS[wire.part]
        x2 = cx + side * 130
        out.append(f'<line x1="{cx + side * 92}" y1="{y}" x2="{x2}" y2="{y}" stroke="{colour}" stroke-width="2"/>')
        bx = x2 if side > 0 else x2 - 300
        out.append(f'<rect x="{bx}" y="{y - 10}" width="300" height="20" rx="4" fill="{colour}" opacity="0.15" '
                   f'stroke="{colour}"/>')
        text = f"{wire.part}: {wire.label}"
        out.append(f'<text x="{bx + 8}" y="{y + 4}" fill="#000">{escape(text)}</text>')
    y = top + 20 * row_h + 24
    out.append(f'<text x="40" y="{y}" font-weight="bold">How to wire each part</text>')
    for note in NOTES:
        y += 18
        out.append(f'<text x="40" y="{y}">{escape(note)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"

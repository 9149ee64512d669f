"""The table's lamps and buttons on the Pi's GPIO header, through gpiozero.

Physical seats are fixed; the players move. Seat lamp/button i stands in front of the
player who began the game in seat i (0 = began as East). The lit seat lamp follows the
current East (R11: like an automatic table's dealer lamp, or the chuangtzu kept in front
of East); the wind lamps show the prevalent wind (R13).

Lamps follow the game only through the hub's "state" messages, the same flow that
updates the phones; buttons record events through the Table like any other interface.

Buttons ("hand over", one per seat):
  press                      "I won": the winner's lamp blinks for `discard_window` seconds
  then the discarder presses "from me": a win on that player's discard is recorded
  or the winner presses again, or the window ends: a self-drawn win is recorded
  hold (any seat)            the hand is drawn (no mahjong)
  undo                       cancels a win being entered, else undoes the latest event

The pin factory is passed in: gpiozero's MockFactory in simulation and tests, the Pi's
real factory (None = gpiozero's default) on the appliance.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpiozero import LED, Button, Buzzer

from companion.config import GpioSettings
from companion.errors import CompanionError
from companion.game.events import HandDrawn, HandWon
from companion.hub import Hub, Message
from companion.rules.seats import WINDS
from companion.table import Table

log = logging.getLogger(__name__)

#: buzzer patterns per warning code: (beeps, seconds on, seconds off)
BEEPS: dict[str, tuple[int, float, float]] = {
    "rethrow": (2, 0.12, 0.12),        # R18: a die must be thrown again
    "wrong_break": (1, 0.8, 0.2),
    "wrong_marker": (1, 0.8, 0.2),
    "wrong_wind": (1, 0.8, 0.2),
    "few_tiles_left": (1, 0.15, 0.1),
    "dice_link": (3, 0.1, 0.1),
    "refused": (3, 0.06, 0.06),        # a button press the game refused (e.g. the game is over)
}
DEFAULT_BEEP = (1, 0.15, 0.1)


class GpioError(CompanionError, RuntimeError):
    """The GPIO pins cannot be used (not a Pi, pin busy, no permission)."""


@dataclass
class PendingWin:
    winner: int
    since: float
    timer: threading.Timer
    #: the results of the game when the button was pressed (`_results`): another result means
    #: the hand was settled elsewhere (a phone), and this win is no longer to be recorded
    results: tuple = ()


def _results(state: dict[str, Any] | None) -> tuple:
    """The game, how many results it has and the latest one (the state holds only the latest results)."""
    if not state:
        return ()
    history = state.get("history") or []
    return (state.get("game"), state.get("history_count", len(history)), history[-1]["event"] if history else None)


class Panel:
    """Seat lamps, wind lamps, hand-over buttons, undo button and buzzer as one component."""

    name = "gpio"

    def __init__(self, table: Table, hub: Hub, settings: GpioSettings, pin_factory=None, *,
                 backend: str | None = None) -> None:
        self.table = table
        self.hub = hub
        self.settings = settings
        self.pin_factory = pin_factory
        self.backend = backend or settings.backend
        self._lock = threading.RLock()
        self._pending: PendingWin | None = None
        self._held: set[str] = set()
        self._devices: list[Any] = []
        self._modes: dict[int, str] = {}
        self.seat_lamps: list[LED] = []
        self.wind_lamps: list[LED] = []
        self.seat_buttons: list[Button] = []
        self.undo_button: Button | None = None
        self.buzzer: Buzzer | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._last_state: dict[str, Any] | None = None
        self._status: dict[str, Any] = {"backend": self.backend, "connected": False, "error": None,
                                        "last_action": None}

    # --- lifecycle ------------------------------------------------------------------------------
    def start(self) -> None:
        """Claim the pins and light the lamps; a GPIO failure is reported, never fatal to the companion."""
        try:
            self._claim()
        except Exception as e:  # gpiozero raises many kinds (BadPinFactory, PinInvalidPin, GPIOPinInUse …)
            self._release()
            self._status.update(connected=False, error=f"{type(e).__name__}: {e}")
            log.error("GPIO panel not available: %s", e)
            self.hub.set_status("gpio", self.status())
            return
        self._status.update(connected=True, error=None)
        self._unsubscribe = self.hub.subscribe(self._on_message, {"state", "warning"})
        state = self.table.state  # the lamps start from the same state object phones get from /api/state
        self._render(state.to_json() if state else None)

    def stop(self) -> None:
        if self._unsubscribe:
            self._unsubscribe()
            self._unsubscribe = None
        with self._lock:
            self._cancel_pending()
        self._release()
        self._status.update(connected=False)
        self.hub.set_status("gpio", self.status())

    def __enter__(self) -> Panel:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _claim(self) -> None:
        s, f = self.settings, self.pin_factory
        self.seat_lamps = [self._add(LED(p, pin_factory=f)) for p in s.seat_lamps]
        self.wind_lamps = [self._add(LED(p, pin_factory=f)) for p in s.wind_lamps]
        bounce = s.bounce_time or None
        for seat, pin in enumerate(s.seat_buttons):
            b = self._add(Button(pin, pull_up=True, bounce_time=bounce, hold_time=s.hold_time, pin_factory=f))
            b.when_pressed = lambda seat=seat: self._pressed(f"seat{seat}")
            b.when_held = lambda seat=seat: self._seat_held(seat)
            b.when_released = lambda seat=seat: self._released(f"seat{seat}", lambda: self._seat_pressed(seat))
            self.seat_buttons.append(b)
        if s.undo_button != "none":
            self.undo_button = self._add(Button(s.undo_button, pull_up=True, bounce_time=bounce, pin_factory=f))
            self.undo_button.when_released = lambda: self._undo_pressed()
        if s.buzzer != "none":
            self.buzzer = self._add(Buzzer(s.buzzer, pin_factory=f))

    def _add(self, device):
        self._devices.append(device)
        return device

    def _release(self) -> None:
        for d in reversed(self._devices):
            try:
                d.close()
            except Exception:
                log.exception("releasing %r failed", d)
        self._devices.clear()
        self._modes.clear()
        self.seat_lamps, self.wind_lamps, self.seat_buttons = [], [], []
        self.undo_button = self.buzzer = None

    # --- what the table shows -------------------------------------------------------------------
    def _on_message(self, msg: Message) -> None:
        if msg.topic == "state":
            self._render(msg.data.get("state"))
        elif msg.topic == "warning":
            self.beep(msg.data.get("code", ""))

    def _render(self, state: dict[str, Any] | None) -> None:
        with self._lock:
            self._last_state = state
            if self._pending is not None and _results(state) != self._pending.results:
                winner = self._pending.winner
                self._cancel_pending()  # a phone recorded (or undid) a result meanwhile: not a second win
                self._action(f"the win pressed at seat {winner} was not recorded: the result changed meanwhile")
            pending = self._pending
            over = bool(state and state.get("game_over"))
            dealer = state.get("dealer") if state and not over else None
            for i, lamp in enumerate(self.seat_lamps):
                if pending is not None and i == pending.winner:
                    self._show(lamp, "fast")  # a win is being entered for this seat
                else:
                    self._show(lamp, "on" if i == dealer else "off")  # R11: the lamp stays in front of East
            prevalent = state.get("prevalent") if state else None
            for wind, lamp in zip(WINDS, self.wind_lamps):
                # R13: the wind of the round; R14: all blink once the game is over
                self._show(lamp, "slow" if over else "on" if wind == prevalent else "off")
        self.hub.set_status("gpio", self.status())

    def _show(self, lamp: LED, mode: str) -> None:
        """Set a lamp to "on", "off", "fast" or "slow" blinking; unchanged modes are left alone (no flicker)."""
        if self._modes.get(id(lamp)) == mode:
            return
        self._modes[id(lamp)] = mode
        if mode == "on":
            lamp.on()
        elif mode == "off":
            lamp.off()
        else:
            t = 0.15 if mode == "fast" else 0.5
            lamp.blink(on_time=t, off_time=t)

    def lamp_modes(self) -> dict[str, list[str]]:
        """What each lamp shows: "on", "off", "fast" (a win being entered) or "slow" (game over)."""
        with self._lock:
            return {"seat": [self._modes.get(id(lamp), "off") for lamp in self.seat_lamps],
                    "wind": [self._modes.get(id(lamp), "off") for lamp in self.wind_lamps]}

    def beep(self, code: str) -> None:
        """Sound the buzzer's pattern for a warning code (nothing if no buzzer is fitted)."""
        if self.buzzer is None:
            return
        n, on, off = BEEPS.get(code, DEFAULT_BEEP)
        self.buzzer.beep(on_time=on, off_time=off, n=n, background=True)

    # --- buttons --------------------------------------------------------------------------------
    def _pressed(self, button: str) -> None:
        self._held.discard(button)

    def _released(self, button: str, short_press: Callable[[], None]) -> None:
        if button in self._held:  # the hold was handled when it happened
            self._held.discard(button)
            return
        short_press()

    def _seat_pressed(self, seat: int) -> None:
        with self._lock:
            pending = self._pending
            if pending is None and self._last_state and self._last_state.get("game_over"):
                self._refused(f"seat {seat} pressed 'I won': refused, the game is over (start a new game on a phone)")
                return
            if pending is None:
                timer = threading.Timer(self.settings.discard_window, self._window_over, args=(seat,))
                timer.daemon = True
                self._pending = PendingWin(seat, time.monotonic(), timer, _results(self._last_state))
                timer.start()
                self._action(f"seat {seat} pressed 'I won': waiting {self.settings.discard_window:g} s for the discarder")
                self._render(self._last_state)
                return
            self._cancel_pending()
        if pending.winner == seat:
            self._record_win(seat, None)  # pressed again: self-drawn
        else:
            self._record_win(pending.winner, seat)  # the discarder's press: "from me"

    def _window_over(self, seat: int) -> None:
        with self._lock:
            if self._pending is None or self._pending.winner != seat:
                return
            self._pending = None
        self._record_win(seat, None)  # nobody said "from me": self-drawn

    def _seat_held(self, seat: int) -> None:
        self._held.add(f"seat{seat}")
        with self._lock:
            self._cancel_pending()
        self._record(HandDrawn(), f"seat {seat} held: hand drawn")

    def _undo_pressed(self) -> None:
        with self._lock:
            if self._pending is not None:
                winner = self._pending.winner
                self._cancel_pending()
                self._action(f"undo: the win for seat {winner} was not recorded")
                self._render(self._last_state)
                return
        try:
            record = self.table.undo()
        except CompanionError as e:
            self._refused(f"undo refused: {e}")
        else:
            self._action(f"undo: event {record.event.target} undone")  # type: ignore[attr-defined]

    def _cancel_pending(self) -> None:
        if self._pending is not None:
            self._pending.timer.cancel()
            self._pending = None

    def _record_win(self, winner: int, discarder: int | None) -> None:
        how = "self-drawn" if discarder is None else f"from seat {discarder}"
        self._record(HandWon(winner=winner, discarder=discarder), f"seat {winner} won ({how})")

    def _record(self, event, what: str) -> None:
        try:
            self.table.record(event)
        except CompanionError as e:
            self._render(self._last_state)
            self._refused(f"{what} refused: {e}")
        else:
            self._action(what)  # the table's "state" message re-renders the lamps

    def _refused(self, why: str) -> None:
        log.warning("%s", why)
        self._status["error"] = why
        self.beep("refused")
        self.hub.set_status("gpio", self.status())

    def _action(self, what: str) -> None:
        log.info("%s", what)
        self._status.update(last_action=what, error=None)
        self.hub.set_status("gpio", self.status())

    # --- status and simulation ------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        """Link status for `hub.status["gpio"]`, the dashboard and `doctor`."""
        s = self.settings
        with self._lock:
            pending = self._pending
            out = dict(self._status)
            out.update(
                # the factory gpiozero chose ("default" until the pins are claimed on the real backend)
                factory=type(self._devices[0].pin_factory).__name__ if self._devices else
                type(self.pin_factory).__name__ if self.pin_factory is not None else "default",
                pins={"seat_lamps": list(s.seat_lamps), "wind_lamps": list(s.wind_lamps),
                      "seat_buttons": list(s.seat_buttons), "undo_button": s.undo_button, "buzzer": s.buzzer},
                claimed=len(self._devices),
                lamps=self.lamp_modes(),
                pending_win=None if pending is None else {
                    "seat": pending.winner, "seconds_left": max(0.0, round(
                        s.discard_window - (time.monotonic() - pending.since), 1))},
            )
        return out

    def press(self, button: str, *, hold: bool = False) -> None:
        """Simulation only: press a button on the mock pins ("seat0".."seat3" or "undo"), optionally held."""
        from gpiozero.pins.mock import MockFactory

        if not isinstance(self.pin_factory, MockFactory):
            raise GpioError("buttons can only be pressed from software on the simulated (mock) GPIO")
        if button == "undo" and self.undo_button is not None:
            device = self.undo_button
        elif button.startswith("seat") and button[4:].isdigit() and int(button[4:]) < len(self.seat_buttons):
            device = self.seat_buttons[int(button[4:])]
        else:
            raise GpioError(f"no button {button!r} (seat0..seat3, undo)")
        pin = device.pin
        settle = max(self.settings.bounce_time * 1.5, 0.01)  # edges inside the bounce time are ignored
        pin.drive_low()
        time.sleep(self.settings.hold_time + 0.15 if hold else settle)
        pin.drive_high()
        time.sleep(settle)


def build_panel(services) -> None:
    """ADAPTER_BUILDERS entry: the panel on gpiozero's MockFactory ("mock") or the Pi's own pins ("real")."""
    settings: GpioSettings = services.settings.gpio
    for warning in settings.warnings():  # a pin shared with I²C or the serial console (config check says it too)
        log.warning("gpio.%s", warning)
    if settings.backend == "mock":
        from gpiozero.pins.mock import MockFactory

        factory = MockFactory()
    else:
        factory = None  # gpiozero's default: lgpio on a Pi 5, else what is installed (GPIOZERO_PIN_FACTORY)
    services.add(Panel(services.table, services.hub, settings, factory))

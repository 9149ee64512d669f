"""The GPIO panel on gpiozero's MockFactory: buttons record the right results, lamps follow the game."""

import random
import time

import pytest
from gpiozero.pins.mock import MockFactory

from companion.config import GpioSettings
from companion.game.events import HandDrawn, HandWon
from companion.hardware.gpio.panel import Panel
from companion.hub import Hub
from companion.rules.seats import WINDS
from companion.rules.variant import load_variant
from companion.storage import EventStore
from companion.table import Table

PLAYERS = ["Ann", "Bob", "Cat", "Dan"]


def make(variant="classical", **gpio):
    settings = GpioSettings(**{"hold_time": 0.2, "discard_window": 1.0, "bounce_time": 0.01, **gpio})
    hub = Hub()
    table = Table(EventStore(":memory:"), hub)
    table.start_game(load_variant(variant), PLAYERS)
    factory = MockFactory()
    panel = Panel(table, hub, settings, factory)
    panel.start()
    return panel, table, factory


@pytest.fixture
def panel():
    p, table, factory = make()
    yield p, table, factory
    p.stop()


def lit(factory, pins):
    return [bool(factory.pin(p).state) for p in pins]


def last_result(table):
    return table.state.history[-1] if table.state.history else None


def test_lamps_start_in_front_of_east_with_the_east_round(panel):
    p, table, f = panel
    assert lit(f, p.settings.seat_lamps) == [True, False, False, False]
    assert lit(f, p.settings.wind_lamps) == [True, False, False, False]
    status = table.hub.status["gpio"]
    assert status["connected"] and status["backend"] == "mock" and status["claimed"] == 4 + 4 + 4 + 2


def test_winner_then_discarder_records_a_win_from_that_seat(panel):
    p, table, f = panel
    p.press("seat2")
    assert p.lamp_modes()["seat"][2] == "fast"  # the win being entered blinks at the winner's seat
    assert last_result(table) is None
    p.press("seat1")
    result = last_result(table)
    assert (result["winner"], result["from"]) == ("Cat", "Bob")
    # R11: another player won, so East passes to South (Bob): the lamp moves to Bob's seat
    assert lit(f, p.settings.seat_lamps) == [False, True, False, False]
    assert table.hub.status["gpio"]["pending_win"] is None


def test_second_press_of_the_winner_is_self_drawn(panel):
    p, table, f = panel
    p.press("seat3")
    p.press("seat3")
    result = last_result(table)
    assert (result["winner"], result["from"]) == ("Dan", None)


def test_nobody_claims_the_discard_within_the_window_so_it_is_self_drawn(panel):
    p, table, f = panel
    p.press("seat0")
    assert table.hub.status["gpio"]["pending_win"]["seat"] == 0
    deadline = time.monotonic() + 5
    while last_result(table) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    result = last_result(table)
    assert (result["winner"], result["from"]) == ("Ann", None)
    # R11: East (Ann) won, so she keeps the title and the lamp
    assert lit(f, p.settings.seat_lamps) == [True, False, False, False]


def test_a_win_being_entered_is_dropped_when_a_phone_records_the_result_meanwhile(panel):
    from companion.game.events import HandWon

    p, table, f = panel
    p.press("seat2")  # Cat presses "I won" and waits for the discarder …
    table.record(HandWon(winner=2, discarder=1))  # … who enters it on a phone instead
    time.sleep(p.settings.discard_window + 0.3)
    assert [(h["winner"], h["from"]) for h in table.state.history] == [("Cat", "Bob")]  # not a second win
    assert table.hub.status["gpio"]["pending_win"] is None
    assert "was not recorded" in table.hub.status["gpio"]["last_action"]


def test_a_win_being_entered_is_dropped_in_a_long_game_too(panel):
    # phones are sent only the latest hand results (HISTORY_TAIL): the panel counts all of them
    from companion.table import HISTORY_TAIL

    p, table, f = panel
    for _ in range(HISTORY_TAIL + 2):
        table.record(HandWon(winner=0))  # East keeps the seat (R11)
    p.press("seat2")
    table.record(HandWon(winner=2, discarder=1))  # entered on a phone meanwhile
    time.sleep(p.settings.discard_window + 0.3)
    assert len(table.state.history) == HISTORY_TAIL + 3  # not a second win
    assert table.hub.status["gpio"]["pending_win"] is None


def test_long_press_records_a_draw_and_nothing_else(panel):
    p, table, f = panel
    p.press("seat2", hold=True)
    assert [h["result"] for h in table.state.history] == ["draw"]
    time.sleep(p.settings.discard_window + 0.2)  # the release after the hold did not start a win
    assert len(table.state.history) == 1


def test_undo_cancels_a_win_being_entered_then_undoes_the_latest_event(panel):
    p, table, f = panel
    p.press("seat1")
    p.press("undo")
    time.sleep(p.settings.discard_window + 0.2)
    assert table.state.history == []  # cancelled: nothing recorded when the window ended
    assert p.lamp_modes()["seat"] == ["on", "off", "off", "off"]
    p.press("seat1")
    p.press("seat0")
    assert table.state.east == "Bob"
    p.press("undo")
    assert table.state.history == [] and table.state.east == "Ann"
    assert lit(f, p.settings.seat_lamps) == [True, False, False, False]


def beeped(factory, pin):
    return any(state for _, state in factory.pin(pin).states[1:])


def test_warnings_sound_the_buzzer(panel):
    p, table, f = panel
    assert not beeped(f, p.settings.buzzer)
    table.hub.warn("rethrow", "die 2 is cocked: throw it again", die=1)  # R18
    time.sleep(0.1)
    assert beeped(f, p.settings.buzzer)


def test_a_press_the_game_refuses_beeps_and_changes_nothing():
    p, table, f = make("riichi")
    try:
        while not table.state.game_over:
            table.record(HandWon(winner=(table.state.dealer + 1) % 4))
        n = len(table.records())
        p.press("seat0", hold=True)
        p.press("seat1")  # refused at once: no win is left waiting for a discarder
        assert table.hub.status["gpio"]["pending_win"] is None
        assert len(table.records()) == n
        assert "refused" in table.hub.status["gpio"]["error"]
        time.sleep(0.1)
        assert beeped(f, p.settings.buzzer)
        assert p.lamp_modes()["wind"] == ["slow"] * 4  # R14: game over
    finally:
        p.stop()


def test_lamps_follow_the_hub_not_the_table(panel):
    p, table, f = panel
    table.hub.publish("state", {"event": {}, "state": {"dealer": 2, "prevalent": "W", "game_over": False}})
    assert lit(f, p.settings.seat_lamps) == [False, False, True, False]
    assert lit(f, p.settings.wind_lamps) == [False, False, True, False]


@pytest.mark.parametrize("variant", ["classical", "german", "mcr", "riichi", "hongkong"])
def test_lamps_follow_east_through_a_whole_game(variant):
    p, table, f = make(variant, discard_window=1.0)
    rng = random.Random(variant)
    try:
        hands = 0
        while not table.state.game_over:
            roll = rng.random()
            if hands < 3:  # a few hands through the buttons themselves
                if hands == 2:
                    p.press(f"seat{rng.randrange(4)}", hold=True)
                else:
                    winner, discarder = rng.sample(range(4), 2)
                    p.press(f"seat{winner}")
                    p.press(f"seat{discarder}")
            elif roll < 0.2:
                table.record(HandDrawn())
            elif roll < 0.5:
                table.record(HandWon(winner=table.state.dealer))
            else:
                table.record(HandWon(winner=rng.choice([i for i in range(4) if i != table.state.dealer])))
            hands += 1
            state = table.state
            if not state.game_over:
                assert lit(f, p.settings.seat_lamps) == [i == state.dealer for i in range(4)], hands
                assert lit(f, p.settings.wind_lamps) == [w == state.prevalent for w in WINDS], hands
            assert hands < 500
        assert len(table.state.history) == hands
        assert p.lamp_modes() == {"seat": ["off"] * 4, "wind": ["slow"] * 4}
    finally:
        p.stop()


def test_pins_already_in_use_are_reported_not_fatal():
    p, table, f = make()
    try:
        second = Panel(table, table.hub, p.settings, f)
        second.start()  # the same pins on the same header: gpiozero refuses them
        status = table.hub.status["gpio"]
        assert status["connected"] is False and "in use" in status["error"].lower()
        second.stop()
    finally:
        p.stop()
    assert p.status()["claimed"] == 0


def test_stop_releases_every_pin():
    p, table, f = make()
    p.stop()
    again = Panel(table, table.hub, p.settings, f)
    again.start()
    assert table.hub.status["gpio"]["connected"] is True
    again.stop()

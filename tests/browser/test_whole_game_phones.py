"""A whole game on the phones in a real Chromium: sitting down (throws for the seats, a draw of
the wind tiles), a misdeal, a penalty, ending by time and the standings (docs/game.md)."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select
from test_dashboard import css, join, text, wait, wait_live

from companion.game.events import DiceThrown, HandWon
from companion.rules.variant import load_variant

pytestmark = pytest.mark.browser

PLAYERS = ["Ann", "Bob", "Cat", "Dan"]


def click(browser, selector: str) -> None:
    wait(browser).until(EC.element_to_be_clickable((By.CSS_SELECTOR, selector))).click()


def test_throws_for_the_first_east_are_shown_as_such_and_never_break_the_wall(live, browsers):
    # seed 003: "Vor Spielbeginn wird durch Würfeln (höchste Augenzahl mit beiden Würfeln) derjenige
    # Spieler ermittelt, der zuerst als Ostwind spielt"
    services, base = live
    services.table.start_game(load_variant("german"), PLAYERS)
    phone = browsers()
    join(phone, base, seat=0)
    wait_live(phone)
    wait(phone).until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, '[data-bind="phase"]'),
                                                       "Choosing the first East: Ann throws (1 of 4)"))
    assert "Sitting down" in text(phone, "#whole-game")
    for faces in ([1, 2], [6, 5], [2, 2], [3, 3]):
        services.table.record(DiceThrown(faces=faces, source="sim"))
    wait(phone).until(lambda d: services.table.state.east == "Bob" and "Sitting down" not in text(phone, "#whole-game"))
    assert services.table.state.throws == []
    wait(phone).until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, '[data-bind="east"]'), "Bob"))


def test_a_phone_draws_the_wind_tiles_or_sets_the_first_east(live, browsers):
    # seed 004: seats are drawn at random (clubs draw wind tiles); the phone shows a random draw
    services, base = live
    services.table.start_game(load_variant("mcr"), PLAYERS)
    phone = browsers()
    join(phone, base, seat=0)
    wait_live(phone)
    click(phone, '[data-action="draw-seats"]')
    wait(phone).until(lambda d: services.table.state.seated is not None)
    assert sorted(services.table.state.players) == sorted(PLAYERS)
    assert services.table.state.seated["how"] == "drawn"
    phone.execute_script("window.beforeNewGame = true")  # gone once the page has reloaded for the new game
    services.table.start_game(load_variant("classical"), PLAYERS)
    # the phone reloads for the new game: wait until the new page shows it (else a write on the old one, 412)
    shown = ("const s = !window.beforeNewGame && window.companionScoring && window.companionScoring.state();"
             " return s && s.version;")
    wait(phone).until(lambda d: str(d.execute_script(shown)) == str(services.table.version))
    wait(phone).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#first-east")))
    Select(css(phone, "#first-east")).select_by_visible_text("Cat")
    click(phone, '[data-action="first-east"]')
    wait(phone).until(lambda d: services.table.state.east == "Cat")
    assert services.table.state.players == ["Cat", "Dan", "Ann", "Bob"]


def test_a_misdeal_button_clears_the_throws(live, browsers):
    # R25/R26: re-shuffled and the wall broken elsewhere: new throws, East and the counter stay
    services, base = live
    services.table.start_game(load_variant("classical"), PLAYERS)
    services.table.record(HandWon(winner=0))
    services.table.record(DiceThrown(faces=[3, 4], source="sim"))
    phone = browsers()
    join(phone, base, seat=1)
    wait_live(phone)
    click(phone, '[data-action="redeal"]')
    wait(phone).until(lambda d: services.table.state.throws == [] and services.table.state.redeals)
    assert services.table.state.east == "Ann" and services.table.state.rotation.counter == 1
    wait(phone).until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, '[data-bind="phase"]'), "Throw 1 of 2"))


def test_a_penalty_then_ending_by_time_shows_the_standings(live, browsers):
    # seed 004: a penalty for a false mahjong; at the time limit "the players will score the points they
    # have so far accumulated before the current hand started"
    services, base = live
    services.table.start_game(load_variant("mcr"), PLAYERS)
    services.table.record(HandWon(winner=2, discarder=0, value=8))  # Cat +32, Ann -16, Bob -8, Dan -8
    phone = browsers()
    join(phone, base, seat=0)
    wait_live(phone)
    click(phone, "details.penalty summary")
    Select(css(phone, "#penalty-player")).select_by_visible_text("Bob")
    points = css(phone, "#penalty-points")
    points.clear()
    points.send_keys("30")
    css(phone, "#penalty-reason").send_keys("false mahjong")
    click(phone, '[data-action="penalty"]')
    wait(phone).until(lambda d: services.table.state.adjustments)
    assert services.table.state.scores == [-6, -38, 42, 2]
    services.table.record(DiceThrown(faces=[2, 5], source="sim"))  # the next hand has begun
    # the phone ends the game on the state it shows: wait until it shows the throw (else 412, rightly)
    shown = "const s = window.companionScoring && window.companionScoring.state(); return s && s.version;"
    wait(phone).until(lambda d: str(d.execute_script(shown)) == str(services.table.version))
    click(phone, "details.end-game summary")
    Select(css(phone, "#end-how")).select_by_value("time")
    click(phone, '[data-action="end-game"]')
    wait(phone).until(lambda d: services.table.state.game_over)
    assert services.table.state.ended["how"] == "time" and services.table.state.scores == [-6, -38, 42, 2]
    wait(phone).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#standings")))
    rows = [r.text for r in phone.find_elements(By.CSS_SELECTOR, "#standings tbody tr")]
    assert rows == ["1 Cat 42", "2 Dan 2", "3 Ann -6", "4 Bob -38"]
    assert "ended early" in text(phone, "#whole-game")

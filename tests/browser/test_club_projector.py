"""The club hub's projector and player pages in a real browser: tables appear and change live
over SSE, the tournament's clock shows on the header, the seated tables and the player's page."""

from __future__ import annotations

import pytest
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from companion.club.broker import LocalMosquitto, mosquitto_binary
from companion.club.hub import ClubHub
from companion.club.publisher import ClubPublisher
from companion.club.referee import Referee
from companion.club.web import create_hub_app
from companion.config import ClubSettings
from companion.game.events import DiceThrown, HandWon
from companion.hub import Hub
from companion.rules.variant import load_variant
from companion.storage import EventStore
from companion.table import Table
from companion.web.server import WebServer

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(mosquitto_binary() is None, reason="needs Mosquitto (apt install mosquitto)")]

PLAYERS = ["Ann", "Bob", "Cat", "Dan"]


def wait(browser, timeout: float = 10.0) -> WebDriverWait:
    return WebDriverWait(browser.driver, timeout, poll_frequency=0.05,
                         ignored_exceptions=(NoSuchElementException, StaleElementReferenceException))


def card_text(browser, table: str) -> str:
    return browser.find_element(By.CSS_SELECTOR, f'article[data-table="{table}"]').text


@pytest.fixture
def club(tmp_path):
    with LocalMosquitto() as broker:
        hub = ClubHub(broker.url, tmp_path / "hub")
        referee = Referee(hub, tmp_path / "hub", "REF12345")
        web = WebServer(create_hub_app(hub, referee), "127.0.0.1", 0, threads=16)
        hub.start()
        web.start()
        store = EventStore(tmp_path / "table" / "games.sqlite3")
        bus = Hub()
        table = Table(store, bus)
        publisher = ClubPublisher(store, bus, ClubSettings(broker=broker.url, table_id="5", resend_after=0.5))
        publisher.start()
        try:
            yield table, referee, f"http://127.0.0.1:{web.port}"
        finally:
            publisher.stop()
            store.close()
            web.stop()
            hub.stop()


def play_hand(table: Table, winner: int) -> None:
    while table.state.expected_throw():
        table.record(DiceThrown(faces=[3, 4]))
    table.record(HandWon(winner=winner, value=30))


def test_the_projector_shows_each_table_live_and_the_session_clock(club, browsers):
    table, referee, base = club  # the referee's requests are tested in tests/integration/test_club_referee.py
    referee.create("Spring", PLAYERS, ["5"])
    seating = referee.new_session("random", 90, 10, seed=1).seating["5"]
    table.start_game(load_variant("classical", []), seating)  # the host types the seated names
    play_hand(table, winner=1)

    b = browsers()
    b.size(1280, 800, mobile=False)
    b.get(base + "/")
    wait(b).until(lambda _: "hand 2" in card_text(b, "5"))
    scores = table.state.to_json()["scores"]
    for name, score in scores.items():
        assert name in card_text(b, "5") and str(score) in card_text(b, "5")

    play_hand(table, winner=2)  # seen live, no reload
    wait(b).until(lambda _: "hand 3" in card_text(b, "5"))
    east = table.state.east
    assert b.find_element(By.CSS_SELECTOR, 'article[data-table="5"] .east').text.endswith(east)

    referee.start(1)
    b.get(base + "/")  # the tournament is read on load and every 10 s
    wait(b).until(lambda _: b.find_element(By.ID, "clock").text.startswith("Session 1: 89:")
                  or b.find_element(By.ID, "clock").text.startswith("Session 1: 90:"))
    assert b.find_element(By.CSS_SELECTOR, 'article[data-table="5"] .tclock').text[-3] == ":"
    winds = [row.text.split()[0] for row in b.find_elements(By.CSS_SELECTOR, 'article[data-table="5"] tr')]
    assert winds == ["E", "S", "W", "N"]  # as the table sits now
    wait(b).until(lambda _: len(b.find_elements(By.CSS_SELECTOR, "#standings li")) == 4)
    b.shot("club-projector")

    player = seating[2]
    b.get(f"{base}/players/{player}")
    wait(b).until(lambda _: "table 5, seat West" in b.find_element(By.ID, "seat").text)
    wait(b).until(lambda _: "Table 5" in b.find_element(By.ID, "now").text)

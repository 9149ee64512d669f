"""'Score the hand' on a phone in a real Chromium: a photo of the hand uploaded, a tile corrected,
a set marked, the score and its items shown, Record → the result recorded once with that value,
the hand and the corrected photo kept with it (docs/scoring.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select
from test_dashboard import css, join, no_horizontal_scroll, text, wait, wait_live

from companion.game.events import HandWon
from companion.rules.variant import load_variant
from companion.scoring import parse_hand, score_hand
from companion.scoring.kept import FOLDER, ScoredPhotos

pytestmark = pytest.mark.browser

PHOTO = Path(__file__).resolve().parents[1] / "fixtures" / "tiles" / "real" / "images" / "real_1.jpg"
#: what the shipped recogniser reads in that photo, in reading order (flowers and seasons among them)
READ = ["8f", "7z", "2s", "4s", "6s", "9s", "1f", "7f", "7z", "7z", "1z", "1z", "1z", "1s", "4s", "5s", "6s"]


def tiles(browser) -> list[str]:
    return [b.get_attribute("data-tile") for b in browser.find_elements(By.CSS_SELECTOR, "#score-tiles button.tile")]


def tap_tiles(browser, *indices: int) -> None:
    for i in indices:
        css(browser, f'#score-tiles button[data-index="{i}"]').click()


def test_a_photographed_hand_is_corrected_marked_scored_and_recorded_once(live, browsers):
    services, base = live
    services.table.start_game(load_variant("mcr", services.settings.variant_dirs), ["Ann", "Bob", "Cat", "Dan"])
    ann = browsers()
    join(ann, base, seat=0)
    wait_live(ann)
    css(ann, 'button[data-winner="1"]').click()  # Bob won
    css(ann, 'button[data-action="score-hand"]').click()
    wait(ann).until(EC.visibility_of_element_located((By.ID, "score-photo")))
    assert css(ann, "#score-photo").get_attribute("capture") == "environment"

    css(ann, "#score-photo").send_keys(str(PHOTO))
    wait(ann, 20).until(lambda d: len(tiles(ann)) == len(READ))
    assert tiles(ann) == READ, "the recogniser reads this photo otherwise now: update READ"
    unsure = ann.find_elements(By.CSS_SELECTOR, "#score-tiles button.tile.unsure")
    assert unsure and all("check" in b.text for b in unsure)  # the unsure ones are marked to check
    assert "winning tile" in css(ann, '#score-tiles button[data-index="16"]').text  # the last tile read

    # as read it is no win; the player corrects two tiles (4s -> 3s, 9s -> 6s) ...
    wait(ann, 5).until(EC.presence_of_element_located((By.CSS_SELECTOR, '#score-result [data-score="invalid"]')))
    tap_tiles(ann, 3)
    Select(css(ann, "#score-change")).select_by_value("3s")
    css(ann, 'button[data-act="change"]').click()
    tap_tiles(ann, 5)
    Select(css(ann, "#score-change")).select_by_value("6s")
    css(ann, 'button[data-act="change"]').click()
    assert tiles(ann)[3] == "3s" and tiles(ann)[5] == "6s"
    # ... marks the East pung as an exposed set, and ticks self-drawn
    tap_tiles(ann, 10, 11, 12)
    css(ann, 'button[data-act="meld"]').click()
    assert all("set 1" in css(ann, f'#score-tiles button[data-index="{i}"]').text for i in (10, 11, 12))
    css(ann, '#score-flags input[name="self_drawn"]').click()

    # the score of the hand as it is marked now (no answer on its way)
    wait(ann, 5).until(EC.presence_of_element_located(
        (By.CSS_SELECTOR, '#score-result:not([data-pending]) [data-score="total"]')))
    assert ann.find_elements(By.CSS_SELECTOR, "#score-items li[data-key='self_drawn']")
    total = int(css(ann, '#score-result [data-score="total"]').get_attribute("data-value"))
    assert total >= 8 and f"{total} fans" in text(ann, '#score-result [data-score="total"]')
    assert {li.get_attribute("data-key") for li in ann.find_elements(By.CSS_SELECTOR, "#score-items li")} >= {
        "half_flush", "dragon_pung", "flower_tiles"}
    assert no_horizontal_scroll(ann)  # 17 tiles wrap on a phone held in one hand
    ann.execute_script("document.getElementById('score-tiles').scrollIntoView()")
    ann.shot("score-the-hand")  # docs/screenshots/score-the-hand.png is a copy

    before = len(services.table.records())
    css(ann, "#score-record").click()
    wait(ann, 5).until(lambda d: len(services.table.state.history) == 1)
    records = services.table.records()
    assert len(records) == before + 1  # recorded once
    event = records[-1].event
    assert isinstance(event, HandWon) and event.winner == 1 and event.discarder is None and event.value == total
    scored = event.scored[0]
    assert scored.player == 1 and scored.hand["winning_tile"] == "6s"
    assert scored.hand["melds"] == [{"tiles": ["1z", "1z", "1z"], "concealed": False}]
    kept = ScoredPhotos(services.settings.data_path / FOLDER).get(scored.photo)
    assert kept["labelled"] and kept["event"] == records[-1].id
    assert kept["corrected"] == [{"position": 4, "read": "4s", "tile": "3s"}, {"position": 6, "read": "9s", "tile": "6s"}]
    wait(ann).until(lambda d: css(ann, "#scorer").get_attribute("hidden") is not None)


def add_tiles(browser, codes: str) -> None:
    """Tiles from the palette, as a player without a photo adds them."""
    for code in codes.split():
        Select(css(browser, "#score-add")).select_by_value(code)
        css(browser, "#score-add-btn").click()


def test_classical_tiles_from_the_palette_a_losers_own_hand_and_czech_item_names(live, browsers):
    """Classical (seeds 000/001): the winner's hand picked from the palette, Cat's own hand scored
    the same way into the losers' scores (R118 settles between losers), words and items in Czech."""
    services, base = live
    ann = browsers("cs-CZ")
    join(ann, base, seat=0)
    wait_live(ann)
    css(ann, 'button[data-winner="1"]').click()  # Bob won
    css(ann, 'button[data-action="score-hand"]').click()
    assert "Spočítat" in css(ann, 'button[data-action="score-hand"]').text
    add_tiles(ann, "1m 1m 1m 2p 3p 4p 5s 6s 7s 7z 7z 7z 3z 3z")
    tap_tiles(ann, 13)
    css(ann, 'button[data-act="win"]').click()
    css(ann, '#score-flags input[name="self_drawn"]').click()
    wait(ann, 5).until(EC.presence_of_element_located(
        (By.CSS_SELECTOR, '#score-result:not([data-pending]) [data-score="total"]')))
    winner_total = int(css(ann, '#score-result [data-score="total"]').get_attribute("data-value"))
    assert "Pung draků" in text(ann, "#score-items li[data-key='pung_of_dragons']")  # Czech, by the item's key

    css(ann, '#score-losers button[data-loser="2"]').click()  # Cat's own hand
    add_tiles(ann, "1p 1p 1p 5z 5z 5z 9s 9s 2m 3m 4m 6p 7p")
    wait(ann, 5).until(EC.presence_of_element_located(
        (By.CSS_SELECTOR, '#score-result:not([data-pending]) [data-score="total"]')))
    cat = int(css(ann, '#score-result [data-score="total"]').get_attribute("data-value"))
    assert cat > 0 and not ann.find_elements(By.CSS_SELECTOR, 'button[data-act="win"]')  # a losing hand
    css(ann, "#score-use").click()
    wait(ann).until(lambda d: css(ann, '#score-losers [data-loser-value="2"]').text.strip() == str(cat))

    css(ann, "#score-record").click()
    wait(ann, 5).until(lambda d: len(services.table.state.history) == 1)
    event = services.table.records()[-1].event
    assert event.value == winner_total and event.hand_scores == {2: cat}
    assert [s.player for s in event.scored] == [1, 2] and event.scored[1].hand["winning_tile"] is None


def test_riichi_han_and_fu_on_a_discard_with_the_riichi_sticks_of_the_recorder(live, browsers):
    """Riichi: the scorer's han and fu recorded on Dan's discard; the winner's riichi (ticked in
    the scorer) and Cat's (ticked in the recorder's step) both declared."""
    services, base = live
    services.table.start_game(load_variant("riichi", services.settings.variant_dirs), ["Ann", "Bob", "Cat", "Dan"])
    ann = browsers()
    join(ann, base, seat=0)
    wait_live(ann)
    css(ann, 'button[data-winner="1"]').click()  # Bob won
    css(ann, 'input[name="riichi"][value="2"]').click()  # Cat declared riichi too
    css(ann, 'button[data-action="score-hand"]').click()
    add_tiles(ann, "2s 3s 4s 5s 6s 7s 2m 3m 4m 5m 6m 2p 2p 7m")
    tap_tiles(ann, 13)
    css(ann, 'button[data-act="win"]').click()
    css(ann, '#score-flags input[name="riichi"]').click()
    Select(css(ann, "#score-from")).select_by_value("3")
    wait(ann, 5).until(EC.presence_of_element_located(
        (By.CSS_SELECTOR, '#score-result:not([data-pending]) [data-score="total"]')))
    assert "han" in text(ann, '#score-result [data-score="total"]')
    assert ann.find_elements(By.CSS_SELECTOR, "#score-items li[data-key='riichi']")
    css(ann, "#score-record").click()
    wait(ann, 5).until(lambda d: len(services.table.state.history) == 1)
    event = services.table.records()[-1].event
    hand = event.scored[0].hand
    assert event.discarder == 3 and event.riichi == [1, 2] and hand["riichi"] is True
    expected = score_hand(parse_hand(hand), services.table.state.variant)  # what the scorer says of the hand kept
    assert expected.valid and (event.value, event.fu) == (expected.han, expected.fu)

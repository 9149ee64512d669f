"""Seats in a real Chromium: every phone's wall follows its seat as the dealer changes, the table's
screen keeps the side it stands at, a taken seat is taken over with confirmation and its old phone
is told, and the table's own screen shows a join address the phones can reach."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select
from test_dashboard import css, join, no_horizontal_scroll, text, wait, wait_live

from companion.game.events import HandWon

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Bob", "Cat", "Dan"]


def bottom_label(browser) -> str:
    """The seat written along the bottom wall of the picture: whose wall is nearest the viewer."""
    return browser.execute_script(
        "const t = document.querySelector('#wall text.seat'); return t ? t.textContent : '';")


def test_every_phones_wall_follows_its_seat_through_two_dealer_changes(live, browsers):
    services, base = live
    phones = [browsers() for _ in range(4)]
    for i, phone in enumerate(phones):
        join(phone, base, seat=i)
        wait_live(phone)
    screen = browsers()
    screen.size(1280, 800, mobile=False)
    join(screen, base, role="spectator", code="")
    screen.get(f"{base}/table")
    wait_live(screen)
    Select(css(screen, "#side")).select_by_value("2")  # the screen stands at Cat's side of the table
    wait(screen).until(lambda d: "Cat" in bottom_label(d))

    winds = "ESWN"
    for change in range(3):  # as loaded, then after each of two dealer changes
        state = services.table.state
        for i, phone in enumerate(phones):
            wind = winds[(i - state.dealer) % 4]  # player i's seat wind now
            expected = f"{ {'E': 'East', 'S': 'South', 'W': 'West', 'N': 'North'}[wind]} · {NAMES[i]} (you)"
            wait(phone, 3).until(lambda d, e=expected: bottom_label(d) == e, f"hand {change}: {bottom_label(phone)!r}")
            assert text(phone, '[data-bind="my-wind"]') in expected
        wait(screen, 3).until(lambda d: "· Cat" in bottom_label(d))  # the screen does not turn with East
        if change < 2:
            dealer = state.dealer
            # someone other than the dealer wins: East passes to the next player
            services.table.record(HandWon(winner=(dealer + 1) % 4, discarder=(dealer + 2) % 4))
            wait(phones[0], 3).until(lambda d, h=state.hand: services.table.state.hand == h + 1)
    assert services.table.state.dealer == 2

    # the side is the screen's own setting: kept across a reload
    screen.get(f"{base}/table")
    wait_live(screen)
    wait(screen).until(lambda d: "· Cat" in bottom_label(d))
    assert Select(css(screen, "#side")).first_selected_option.get_attribute("value") == "2"


def test_the_tables_own_screen_shows_a_join_address_the_phones_can_reach(live, browsers, monkeypatch):
    import io

    import segno
    from browser_codes import TABLE_CODE

    from companion.web import address

    _, base = live
    port = base.rsplit(":", 1)[1]
    monkeypatch.setattr(address, "lan_address", lambda: "192.168.7.23")  # the Pi's address on its Wi-Fi
    screen = browsers()
    screen.size(1280, 800, mobile=False)
    screen.get(f"{base}/table")  # the Pi's own screen: a browser on 127.0.0.1, not joined
    wait_live(screen)
    link = f"http://192.168.7.23:{port}/join"
    assert text(screen, "#join-link") == link and "127.0.0.1" not in text(screen, ".join-code")
    # the QR code holds the same address, with the table code in the fragment
    svg = screen.execute_async_script(
        "const done = arguments[0]; fetch('/qr.svg').then(r => r.text()).then(done, () => done(''));")
    out = io.BytesIO()
    segno.make(f"{link}#code={TABLE_CODE}", error="m").save(
        out, kind="svg", scale=6, border=2, title="Scan to join the table", svgclass="qr", lineclass=None)
    assert svg == out.getvalue().decode()


def test_a_seat_takeover_asks_first_and_the_phone_that_loses_it_is_told(live, browsers):
    services, base = live
    ann, other = browsers(), browsers()
    join(ann, base, seat=0)
    wait_live(ann)
    # the join page says which seats are taken, and by whom
    other.get(f"{base}/join")
    assert "Ann" in text(other, '[data-taken="0"]') and other.find_elements(By.CSS_SELECTOR, '[data-taken="1"]') == []
    join(other, base, seat=0)  # Ann's seat, not confirmed: refused, nothing changes
    assert "take over" in text(other, "#errors").lower() and other.current_url.startswith(f"{base}/join")
    full = other.execute_script("return document.documentElement.scrollHeight")
    other.size(360, min(full, 2400))
    other.shot("join-seat-taken")
    other.size(180, 740)  # 200 % zoom on a 360 px phone: the seats and their notes still fit
    assert no_horizontal_scroll(other)
    other.size(360, 740)
    assert services.table.state.players[0] == "Ann" and text(ann, '[data-bind="my-name"]') == "Ann"
    css(other, 'input[name="player"][value="0"]').click()
    css(other, 'input[name="take_over"]').click()
    css(other, "form.join button[type=submit]").click()
    wait(other).until(EC.url_to_be(f"{base}/seat"))
    assert text(other, '[data-bind="my-name"]') == "Ann"
    # Ann's phone is told at once, without a reload by hand: its seat is gone, and it says why
    wait(ann, 3).until(EC.presence_of_element_located((By.ID, "seat-lost")))
    assert "Ann" in text(ann, "#seat-lost") and ann.find_elements(By.CSS_SELECTOR, '[data-bind="my-name"]') == []


def test_a_rename_never_restarts_the_game(live, browsers):
    services, base = live
    bob = browsers()
    join(bob, base, seat=1)
    wait_live(bob)
    services.table.record(HandWon(winner=1, discarder=0, value=8))
    game, hand = services.table.state.game, services.table.state.hand
    css(bob, "details.rename summary").click()
    bob.size(180, 740)
    assert no_horizontal_scroll(bob)
    bob.size(360, 740)
    field = css(bob, "#new-name")
    field.clear()
    field.send_keys("Robert")
    css(bob, "details.rename button[type=submit]").click()
    wait(bob).until(lambda d: text(d, '[data-bind="my-name"]') == "Robert")
    state = services.table.state
    assert state.game == game and state.hand == hand and state.players[1] == "Robert"
    assert text(bob, '[data-bind="hand"]').endswith(str(hand))

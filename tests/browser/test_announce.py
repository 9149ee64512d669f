"""Announcements in a real Chromium: results, throws, the break and warnings reach screen readers
(aria-live), and the table's screen says the break aloud when switched on (speech synthesis)."""

from __future__ import annotations

import pytest
from test_dashboard import css, join, text, wait, wait_live

from companion.game.events import DiceThrown, HandWon

pytestmark = pytest.mark.browser

#: speech synthesis stood in for: what the page asks to say is kept (a headless browser has no voice)
CAPTURE_SPEECH = """
window.said = [];
window.speechSynthesis.speak = (u) => window.said.push([u.text, u.lang]);
window.speechSynthesis.cancel = () => null;
"""


def live_regions(browser) -> dict[str, str]:
    """Text of every element a screen reader announces (aria-live or an implicit live role), by id or class."""
    return browser.execute_script("""
        const out = {};
        for (const el of document.querySelectorAll('[aria-live], [role=status], [role=alert]')) {
          if (el.getAttribute('aria-live') === 'off') continue;
          out[el.id || el.className] = el.textContent.trim();
        }
        return out;""")


def test_the_table_screen_says_the_break_aloud_when_switched_on(live, browsers):
    services, base = live
    screen = browsers()
    screen.size(1280, 800, mobile=False)
    screen.get(f"{base}/table")
    wait_live(screen)
    screen.execute_script(CAPTURE_SPEECH)
    switch = css(screen, "#say-break")
    assert not switch.is_selected()  # off unless the table wants it
    services.table.record(DiceThrown(faces=[1, 2], source="sim"))
    services.table.record(DiceThrown(faces=[2, 2], source="sim"))
    wait(screen).until(lambda d: "Break" in text(d, '[data-bind="phase"]'))
    assert screen.execute_script("return window.said") == []
    services.table.record(HandWon(winner=0))  # the next hand (East self-drawn: East stays)
    switch.click()
    services.table.record(DiceThrown(faces=[3, 4], source="sim"))
    services.table.record(DiceThrown(faces=[5, 6], source="sim"))  # README: West's stack 18 is lifted
    wait(screen).until(lambda d: d.execute_script("return window.said.length") == 1)
    assert screen.execute_script("return window.said") == [["Break at West's wall, stack 18", "en"]]
    # kept by the screen: on after a reload too, and the break the page comes with is not said again
    screen.get(f"{base}/table")
    wait_live(screen)
    assert css(screen, "#say-break").is_selected()


def test_results_throws_the_break_and_warnings_reach_screen_readers(live, browsers):
    services, base = live
    phone = browsers()
    join(phone, base, seat=1)
    wait_live(phone)
    services.table.record(DiceThrown(faces=[3, 4], source="sim"))
    wait(phone).until(lambda d: "Dice 3 + 4" in live_regions(d).get("toast", ""))
    services.table.record(DiceThrown(faces=[5, 6], source="sim"))
    wait(phone).until(lambda d: "Break: West's wall, stack 18" in live_regions(d).get("phase", ""))
    services.hub.warn("few_tiles_left", "Tiles left in the live wall: 14.", live_tiles=14)
    wait(phone).until(lambda d: "Tiles left in the live wall: 14" in live_regions(d).get("warnings", ""))
    services.table.record(HandWon(winner=1, discarder=0))
    wait(phone).until(lambda d: "Bob won from Ann" in live_regions(d).get("toast", ""))
    # the region is in the page's flow: nothing lies over a button
    covered = phone.execute_script("""
        const toast = document.getElementById('toast'), t = toast.getBoundingClientRect();
        return [...document.querySelectorAll('button')].filter(b => {
          const r = b.getBoundingClientRect();
          return !toast.contains(b) && r.width && !(r.right <= t.left || r.left >= t.right || r.bottom <= t.top || r.top >= t.bottom);
        }).map(b => b.textContent);""")
    assert covered == []

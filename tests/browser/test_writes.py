"""Phones the table can trust, in a real Chromium: two phones racing on one hand record it once and
the other is told who recorded what; a double tap on each write button records once; a write made
while the companion is down waits on the phone and is recorded once when it is back (or refused,
saying why, when the game moved on); the connection indicator says "not live" when the stream goes quiet.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_codes import HOST_CODE, TABLE_CODE
from selenium.webdriver.common.by import By
from test_dashboard import css, join, text, wait, wait_live

from companion.config import load_settings
from companion.game.events import DiceThrown, HandDrawn, HandWon
from companion.services import build_services
from companion.web.server import add_dashboard

pytestmark = pytest.mark.browser


class Companion:
    """The companion with its dashboard, stopped and started again on the same port and data folder."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self.port = 0
        self.services = None
        self.start()

    def start(self) -> None:
        settings = load_settings(env={}, overrides={
            "data_dir": str(self.data), "game": {"players": ["Ann", "Bob", "Cat", "Dan"]},
            "server": {"host": "127.0.0.1", "port": self.port, "table_code": TABLE_CODE, "host_code": HOST_CODE,
                       "threads": 32}})
        self.services = build_services(settings)
        web = add_dashboard(self.services)
        self.services.start()
        self.port = int(web.port)
        self.base = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.services.stop()
        self.services = None

    @property
    def table(self):
        return self.services.table

    def count(self, kind) -> int:
        return sum(1 for r in self.table.store.events() if isinstance(r.event, kind))


@pytest.fixture
def companion(tmp_path):
    c = Companion(tmp_path)
    yield c
    if c.services is not None:
        c.stop()


def phone(browsers, c: Companion, seat: int):
    b = browsers()
    join(b, c.base, seat=seat)
    wait_live(b)
    return b


def test_two_phones_racing_on_one_hand_record_it_once_and_the_other_is_told(companion, browsers):
    ann, bob = phone(browsers, companion, 0), phone(browsers, companion, 1)
    for b in (ann, bob):  # both open "draw" for the same hand
        css(b, 'button[data-winner="draw"]').click()
        wait(b).until(lambda d: d.find_elements(By.CSS_SELECTOR, 'button[data-confirm="draw"]'))
    css(ann, 'button[data-confirm="draw"]').click()
    wait(ann).until(lambda d: companion.count(HandDrawn) == 1)
    # Bob's phone has heard of Ann's draw (the latest event is shown), his step is still open
    wait(bob).until(lambda d: "Ann" in text(d, "#scores") and d.find_elements(By.CSS_SELECTOR, "#toast:not([hidden])"))
    css(bob, 'button[data-confirm="draw"]').click()
    wait(bob).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#errors .error"))
    said = text(bob, "#errors .error")
    assert "Already recorded by Ann" in said and "draw" in said, said
    assert companion.count(HandDrawn) == 1
    bob.shot("writes-refused-race")


def test_the_refusal_is_worded_in_the_phones_language(companion, browsers):
    ann = phone(browsers, companion, 0)
    bob = browsers("de-DE")
    join(bob, companion.base, seat=1)
    wait_live(bob)
    css(bob, 'button[data-winner="draw"]').click()
    wait(bob).until(lambda d: d.find_elements(By.CSS_SELECTOR, 'button[data-confirm="draw"]'))
    css(ann, 'button[data-winner="draw"]').click()
    css(ann, 'button[data-confirm="draw"]').click()
    wait(ann).until(lambda d: companion.count(HandDrawn) == 1)
    wait(bob).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#toast:not([hidden])"))
    css(bob, 'button[data-confirm="draw"]').click()
    wait(bob).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#errors .error"))
    said = text(bob, "#errors .error")
    assert "Schon eingetragen von Ann" in said and "Unentschieden" in said, said
    assert companion.count(HandDrawn) == 1


def test_two_phones_typing_the_same_throw_record_it_once(companion, browsers):
    """Ann and Bob both type East's throw; Ann sends first. Bob's dice were typed for that throw,
    not for the breaker's next one: refused and told, not recorded as a second throw (R17)."""
    from selenium.webdriver.support.ui import Select

    ann, bob = phone(browsers, companion, 0), phone(browsers, companion, 1)
    for b in (ann, bob):
        for sel, face in zip(b.find_elements(By.CSS_SELECTOR, "#dice-form select[name=die]"), ("3", "4")):
            Select(sel).select_by_value(face)
    css(ann, '#dice-form button[type="submit"]').click()
    wait(ann).until(lambda d: len(companion.table.state.throws) == 1)
    wait(bob).until(lambda d: "3 + 4" in text(d, '[data-bind="last-dice"]'))  # Bob's page has heard it
    css(bob, '#dice-form button[type="submit"]').click()
    wait(bob).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#errors .error"))
    said = text(bob, "#errors .error")
    assert "Already recorded by Ann: dice 3 + 4" in said, said
    assert len(companion.table.state.throws) == 1 and companion.count(DiceThrown) == 1


DOUBLE_TAP = """
    const [selector, done] = [arguments[0], arguments[arguments.length - 1]];
    const first = document.querySelector(selector);
    first.click(); first.click();  // two taps at once
    // and a third as a finger's second tap lands, on the button now there (drawn again, maybe)
    setTimeout(() => { const again = document.querySelector(selector) || first; again.click(); done(); }, 150);
"""


def double_tap(browser, selector: str) -> None:
    browser.execute_async_script(DOUBLE_TAP, selector)


def settle(browser, companion, before: int) -> int:
    """Wait until the log has grown, then a little longer: what a double tap recorded is all in."""
    wait(browser).until(lambda d: len(companion.table.store.events()) > before)
    browser.execute_async_script("setTimeout(arguments[0], 700)")
    return len(companion.table.store.events())


def test_a_double_tap_on_every_write_button_records_once(companion, browsers):
    table = companion.table
    ann = phone(browsers, companion, 0)
    # the dice form: one throw, not the dealer's and the breaker's (R17)
    n = len(table.store.events())
    double_tap(ann, '#dice-form button[type="submit"]')
    assert settle(ann, companion, n) == n + 1 and len(table.state.throws) == 1
    # the draw's confirmation
    css(ann, 'button[data-winner="draw"]').click()
    n = len(table.store.events())
    double_tap(ann, 'button[data-confirm="draw"]')
    assert settle(ann, companion, n) == n + 1 and companion.count(HandDrawn) == 1
    # a win's "from whom"
    css(ann, 'button[data-winner="1"]').click()
    n = len(table.store.events())
    double_tap(ann, 'button[data-from="2"]')
    assert settle(ann, companion, n) == n + 1 and companion.count(HandWon) == 1
    # the history: Undo (drawn again as "↺ Undo" under the finger) and a correction's Save
    ann.get(f"{companion.base}/history")
    wait_live(ann)
    won = next(r.id for r in table.records() if isinstance(r.event, HandWon))
    n = len(table.store.events())
    double_tap(ann, f'#log li[data-event="{won}"] button[data-action]')
    assert settle(ann, companion, n) == n + 1
    assert won not in table.state.applied  # undone once, not undone and revived
    drawn = next(r.id for r in table.records() if isinstance(r.event, HandDrawn))
    wait(ann).until(lambda d: d.find_elements(By.CSS_SELECTOR, f'#log li[data-event="{drawn}"] button[data-action="correct"]'))
    css(ann, f'#log li[data-event="{drawn}"] button[data-action="correct"]').click()
    n = len(table.store.events())
    double_tap(ann, f'#log li[data-event="{drawn}"] form.correct button[type="submit"]')
    assert settle(ann, companion, n) == n + 1
    # a stray roll's Discard (no throw due) and Assign (a throw due again)
    ann.get(f"{companion.base}/seat")
    wait_live(ann)
    while table.state.expected_throw():
        table.record(DiceThrown(faces=[6, 6], source="phone"))
    for action in ("discard", "assign"):
        table.record(DiceThrown(faces=[2, 2], source="phone"))  # no throw due: a stray roll
        if action == "assign":
            table.record(HandDrawn())  # the next hand: a throw is due, the stray roll may count
        assert table.state.unassigned, action
        selector = "#rolls button[data-roll-action]"
        ann.execute_script("""
            for (const b of document.querySelectorAll('#rolls button')) b.removeAttribute('data-roll-action');""")
        wait(ann).until(lambda d: d.execute_script("""
            const b = [...document.querySelectorAll('#rolls button')].find((x) => x.textContent === arguments[0]);
            if (b) b.setAttribute('data-roll-action', '1');
            return Boolean(b);""", {"discard": "Discard", "assign": "Count as this throw"}[action]))  # noqa: B023
        n = len(table.store.events())
        double_tap(ann, selector)
        assert settle(ann, companion, n) == n + 1, action


def test_a_write_made_while_the_companion_is_down_is_recorded_once_when_it_is_back(companion, browsers):
    ann = phone(browsers, companion, 0)
    css(ann, 'button[data-winner="draw"]').click()
    wait(ann).until(lambda d: d.find_elements(By.CSS_SELECTOR, 'button[data-confirm="draw"]'))
    companion.stop()
    wait(ann, 10).until(lambda d: css(d, "#conn").get_attribute("data-state") != "live")
    css(ann, 'button[data-confirm="draw"]').click()
    wait(ann, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, '#outbox li[data-outbox="pending"]'))
    assert "Hand drawn" in text(ann, "#outbox")
    assert ann.execute_script("const r = document.querySelector('#outbox').getBoundingClientRect();"
                              "return r.top >= 0 && r.bottom <= innerHeight")  # in view where the finger is
    ann.shot("writes-outbox-pending")
    companion.start()  # the same port and data folder
    wait(ann, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, '#outbox [data-outbox="recorded"]'))
    assert companion.count(HandDrawn) == 1
    assert not ann.find_elements(By.CSS_SELECTOR, '#outbox li[data-outbox="pending"]')
    wait(ann, 10).until(lambda d: css(d, "#conn").get_attribute("data-state") == "live")
    # a reload sends nothing again: the outbox is empty
    ann.refresh()
    wait_live(ann)
    ann.execute_async_script("setTimeout(arguments[0], 500)")
    assert companion.count(HandDrawn) == 1


def test_a_waiting_write_the_game_moved_past_is_refused_and_said(companion, browsers):
    ann = phone(browsers, companion, 0)
    css(ann, 'button[data-winner="draw"]').click()
    wait(ann).until(lambda d: d.find_elements(By.CSS_SELECTOR, 'button[data-confirm="draw"]'))
    companion.stop()
    wait(ann, 10).until(lambda d: css(d, "#conn").get_attribute("data-state") != "live")
    css(ann, 'button[data-confirm="draw"]').click()
    wait(ann, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, '#outbox li[data-outbox="pending"]'))
    companion.start()
    companion.table.record(HandDrawn())  # another phone (or a script) was first, while this one waited
    wait(ann, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, '#outbox [data-outbox="refused"]'))
    said = text(ann, '#outbox [data-outbox="refused"]')
    assert "Not recorded: Hand drawn" in said and "Already recorded by someone: a draw" in said, said
    assert companion.count(HandDrawn) == 1


def test_the_connection_indicator_says_not_live_when_the_stream_goes_quiet(companion, browsers, monkeypatch):
    from companion.web import push
    monkeypatch.setattr(push, "KEEPALIVE_S", 1.0)  # the page learns the period from the first ping
    ann = phone(browsers, companion, 0)
    ann.execute_script("""
        window.connStates = [];
        new MutationObserver(() => window.connStates.push(document.querySelector('#conn').dataset.state))
          .observe(document.querySelector('#conn'), { attributes: true });""")
    ann.execute_async_script("setTimeout(arguments[0], 2500)")  # heartbeats keep it live
    assert "reconnecting" not in ann.execute_script("return window.connStates")
    monkeypatch.setattr(push, "KEEPALIVE_S", 3600.0)  # the open stream stays open but falls silent
    wait(ann, 8).until(lambda d: "reconnecting" in d.execute_script("return window.connStates"))


def test_a_double_tap_on_the_roll_button_presses_the_virtual_box_once(companion, browsers):
    link = companion.services.find("dice")
    presses = []
    press = link._press_roll
    link._press_roll = lambda: (presses.append(1), press())  # count what reaches the box
    ann = phone(browsers, companion, 0)
    ann.get(f"{companion.base}/table")
    wait_live(ann)
    double_tap(ann, "#roll")
    wait(ann, 10).until(lambda d: companion.count(DiceThrown) >= 1)  # the box rolled and its dice came in
    ann.execute_async_script("setTimeout(arguments[0], 700)")
    assert len(presses) == 1

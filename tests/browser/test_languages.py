"""Every page and every step of the recorder, in English, Czech, German and French, in a real
Chromium: nothing renders as "null", "undefined" or "NaN", no key of the page's words shows
instead of its text ("source_phone"), and on a translated page no English sentence is left."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.mofile import read_mo
from browser_codes import HOST_CODE
from selenium.common.exceptions import TimeoutException as SeleniumTimeout
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait
from test_dashboard import css, join, wait, wait_live

import companion.web
from companion.game.events import DiceThrown, HandWon, PlayerRenamed
from companion.rules.variant import load_variant

pytestmark = pytest.mark.browser

CATALOGS = Path(companion.web.__file__).parent / "translations"
#: what a script shows when a value or a word is missing
BROKEN = re.compile(r"\b(?:null)+\b|\bundefined\b|\bNaN\b")  # "nullnull" too, not French "nulle"


def english_left(lang: str) -> list[str]:
    """English sentences the catalog translates (two words or more, no placeholders): on a page in
    `lang`, any of them is a string that missed its translation."""
    if lang == "en":
        return []
    with (CATALOGS / lang / "LC_MESSAGES" / "messages.mo").open("rb") as f:
        catalog = read_mo(f)
    return sorted({m.id for m in catalog if isinstance(m.id, str) and m.id and m.string and m.string != m.id
                   and "%(" not in m.id and len(m.id.split()) >= 2 and m.id[0].isupper()}, key=len, reverse=True)


def shown(browser) -> str:
    """What a player sees or hears: the text, the labels of controls and pictures, the wall's words."""
    return browser.execute_script("""
        const parts = [document.body.innerText, document.title];
        for (const el of document.querySelectorAll('[aria-label], [title], [alt], [placeholder]')) {
          for (const a of ['aria-label', 'title', 'alt', 'placeholder']) if (el.getAttribute(a)) parts.push(el.getAttribute(a));
        }
        for (const el of document.querySelectorAll('svg title, svg desc, svg text, option')) parts.push(el.textContent);
        return parts.join('\\n');""")


def check(browser, lang: str, where: str, english: list[str]) -> None:
    text = shown(browser)
    assert not BROKEN.search(text), f"{lang} {where}: {BROKEN.search(text).group()!r} in {text[:2000]!r}"
    # a key of the page's words (`client_strings`, e.g. "source_phone") shown instead of its text
    names = browser.execute_script("const s = document.getElementById('strings'); return s ? Object.keys(JSON.parse(s.textContent)) : [];")
    keys = [k for k in names if "_" in k and re.search(rf"(?<![\w/.-]){re.escape(k)}(?![\w/.-])", text)]
    assert not keys, f"{lang} {where}: keys shown: {keys}"
    left = [e for e in english if e in text]
    assert not left, f"{lang} {where}: untranslated: {left[:5]}"


def recorder_steps(browser, lang: str, english: list[str], riichi: bool) -> None:
    """Every step of the recorder: who won, from whom (with value or han and fu), a draw."""
    check(browser, lang, "recorder: who won", english)
    wait(browser).until(EC.element_to_be_clickable((By.CSS_SELECTOR, 'button[data-winner="1"]'))).click()
    wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, 'button[data-from="self"]')))
    check(browser, lang, "recorder: from whom", english)
    assert browser.find_elements(By.ID, "hand-fu") if riichi else not browser.find_elements(By.ID, "hand-fu")
    css(browser, "#recorder-steps .choices > button:last-child").click()  # cancel
    wait(browser).until(EC.element_to_be_clickable((By.CSS_SELECTOR, 'button[data-winner="draw"]'))).click()
    wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, 'button[data-confirm="draw"]')))
    check(browser, lang, "recorder: draw", english)
    css(browser, "#recorder-steps .choices > button:last-child").click()  # cancel


@pytest.mark.parametrize("lang", ["en", "cs", "de", "fr"])
def test_every_page_and_step_in_every_language_renders_whole(live, browsers, lang):
    services, base = live
    table = services.table
    english = english_left(lang)
    host = browsers(lang)
    host.get(f"{base}/join")
    check(host, lang, "join page", english)
    join(host, base, code=HOST_CODE, role="host", seat=0)
    wait_live(host)
    check(host, lang, "seat page", english)
    recorder_steps(host, lang, english, riichi=False)

    # a throw is due: the dice form; the throws, a result, a rename, then the next hand
    assert css(host, "#dice-form").is_displayed()
    table.record(DiceThrown(faces=[3, 4], source="phone"))
    table.record(DiceThrown(faces=[5, 6], source="camera"))
    wait(host).until(lambda d: not d.find_element(By.ID, "dice-form").is_displayed())
    check(host, lang, "seat page, wall broken", english)
    services.hub.warn("few_tiles_left", "Tiles left in the live wall: 14.", live_tiles=14)
    wait(host).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#warnings .warning")))
    check(host, lang, "seat page, a warning", english)
    table.record(HandWon(winner=1, discarder=0, value=8))
    table.record(PlayerRenamed(player=2, name="Cyd"))
    wait(host).until(lambda d: "Cyd" in d.find_element(By.ID, "scores").text)
    check(host, lang, "seat page, next hand", english)

    host.get(f"{base}/history")
    wait(host).until(EC.presence_of_element_located((By.CSS_SELECTOR, '#log button[data-action="correct"]')))
    check(host, lang, "history", english)
    css(host, '#log button[data-action="correct"]').click()
    wait(host).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#log form.correct")))
    check(host, lang, "history: a correction", english)

    host.get(f"{base}/table")
    wait_live(host)
    check(host, lang, "table", english)

    # a second game (riichi: han, fu, riichi), the first one then listed to reopen
    table.start_game(load_variant("riichi"), ["Ann", "Bob", "Cat", "Dan"])
    host.get(f"{base}/seat")
    wait_live(host)
    check(host, lang, "seat page, riichi", english)
    recorder_steps(host, lang, english, riichi=True)
    host.get(f"{base}/settings")
    wait(host).until(EC.presence_of_element_located((By.CSS_SELECTOR, ".games li[data-game]")))
    check(host, lang, "settings", english)
    for page in ("teach", "calibrate"):
        # not waiting for the camera's picture to load (a busy machine takes its time): the words are there before.
        # The navigation starts after the script has returned, and a renderer still busy with the page before
        # (a command timing out) is asked again, not taken for a failure.
        host.execute_script("setTimeout(() => { location.href = arguments[0]; }, 0)", f"{base}/{page}")
        WebDriverWait(host, 60, ignored_exceptions=(SeleniumTimeout, WebDriverException)).until(
            lambda d, p=page: d.current_url.endswith(f"/{p}") and d.execute_script("return document.readyState") != "loading")
        check(host, lang, page, english)

    # a spectator's view, and a refusal in words
    watcher = browsers(lang)
    join(watcher, base, role="spectator", code="")
    watcher.get(f"{base}/seat?view=W")
    wait_live(watcher)
    check(watcher, lang, "spectator", english)
    join(watcher, base, seat=0)  # the host's seat: refused until confirmed
    assert watcher.find_elements(By.CSS_SELECTOR, "#errors .error")
    check(watcher, lang, "join: a seat taken", english)

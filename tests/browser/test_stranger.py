"""A spectator who joined without the code, seen from off the Pi (issue 42): no live stream is
held for them, and their page fetches the state now and then instead."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from test_dashboard import css, join, wait

from companion.game.events import DiceThrown


def test_a_strangers_page_follows_the_game_without_a_live_stream(live, browsers, monkeypatch):
    import companion.web.guard as guard

    monkeypatch.setattr(guard, "is_loopback", lambda address: False)  # the browser is not the Pi's own screen
    services, base = live
    watcher = browsers()
    join(watcher, base, code="", role="spectator")
    wait(watcher).until(EC.url_to_be(f"{base}/seat"))
    assert css(watcher, "body").get_attribute("data-live") == "false"
    services.table.record(DiceThrown(faces=[3, 4], source="sim"))
    # fetched within one 10 s round, without a stream ever held for the stranger
    wait(watcher, 15.0).until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, '[data-bind="last-dice"]'), "3 + 4"))
    assert services.find("web").app.extensions["companion_web"].broker.open_streams == 0

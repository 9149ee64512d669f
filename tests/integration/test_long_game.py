"""A long game: what phones are sent on every event stays the same size however many hands were
played; the History view reads the log in pages."""

from __future__ import annotations

import json
import re

import pytest

from companion.game.events import DiceThrown, HandWon
from companion.table import HISTORY_TAIL
from tests.integration.test_web_api import Phone, app  # noqa: F401  (the fixture)


def play(table, hands: int) -> None:
    for i in range(hands):
        table.record(DiceThrown(faces=[3, 4], source="phone"))
        table.record(DiceThrown(faces=[5, 6], source="phone"))
        table.record(HandWon(winner=table.state.dealer, value=10 + i))  # East keeps the seat (R11)


@pytest.fixture
def reader(app):  # noqa: F811
    phone = Phone(app)
    assert phone.join(player=0).status_code == 200
    return phone


def test_the_state_holds_the_latest_hands_and_says_how_many_there_are(app, reader):  # noqa: F811
    table = app.extensions["companion"].table
    play(table, HISTORY_TAIL + 4)
    state = reader.get("/api/state").json
    assert state["history_count"] == HISTORY_TAIL + 4
    assert state["history"] == table.state.to_json()["history"][-HISTORY_TAIL:]
    assert [h["value"] for h in state["history"]][-1] == 10 + HISTORY_TAIL + 3
    assert state["last_dice"] == [5, 6] and state["scores"] == table.state.to_json()["scores"]


def test_what_a_phone_is_sent_does_not_grow_with_the_game(app, reader):  # noqa: F811
    table = app.extensions["companion"].table
    sent = []
    table.hub.subscribe(lambda m: sent.append(len(json.dumps(m.data))), {"state"})
    play(table, 10)
    early = (sent[-1], len(reader.get("/api/state").data), len(reader.get("/seat").data))
    play(table, 90)
    late = (sent[-1], len(reader.get("/api/state").data), len(reader.get("/seat").data))
    # the numbers in it grow a digit (ids, values); the history does not
    assert all(b < a * 1.05 for a, b in zip(early, late)), (early, late)
    page = reader.get("/seat").data.decode()
    embedded = json.loads(re.search(r'<script[^>]*id="initial-state"[^>]*>(.*?)</script>', page, re.S).group(1))
    assert len(embedded["history"]) == HISTORY_TAIL and embedded["history_count"] == 100


def test_the_log_is_read_in_pages_from_its_end(app, reader):  # noqa: F811
    table = app.extensions["companion"].table
    play(table, 5)
    ids = [r.id for r in table.records()]
    assert [r["id"] for r in reader.get("/api/events").json] == ids  # everything, as before
    assert [r["id"] for r in reader.get("/api/events?limit=4").json] == ids[-4:]
    assert [r["id"] for r in reader.get(f"/api/events?before={ids[-4]}&limit=4").json] == ids[-8:-4]
    assert [r["id"] for r in reader.get(f"/api/events?before={ids[2]}&limit=10").json] == ids[:2]  # the start
    assert [r["id"] for r in reader.get(f"/api/events?after={ids[-3]}").json] == ids[-2:]  # what came since
    assert [r["id"] for r in reader.get(f"/api/events?after={ids[3]}&before={ids[6]}").json] == ids[4:6]
    assert reader.get(f"/api/events?after={ids[6]}&before={ids[6]}").json == []
    for bad in ("limit=0", "limit=1001", "limit=x", "before=0", "before=-3", "before=1.5", "limit=%EF%BC%91"):
        r = reader.get(f"/api/events?{bad}")
        assert r.status_code == 400 and r.json["error"]["code"] == "bad_request", bad


def test_a_long_games_undo_and_correction_come_out_as_a_whole_fold_would(app, reader):  # noqa: F811
    from companion.game.fold import fold

    table = app.extensions["companion"].table
    play(table, 60)  # 180 events: past the first checkpoint
    old = table.state.history[3]["event"]
    assert reader.post(f"/api/events/{old}/correct", {"result": "win", "winner": "S", "value": 40}).status_code == 201
    assert reader.post("/api/undo", {}).status_code == 201  # the latest result
    whole = fold(table.records()).to_json()
    assert table.state.to_json() == whole
    state = reader.get("/api/state").json
    assert state["history_count"] == len(whole["history"]) == 59 and state["scores"] == whole["scores"]
    assert state["history"] == whole["history"][-HISTORY_TAIL:]

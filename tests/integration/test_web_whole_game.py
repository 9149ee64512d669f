"""The phones' API for a whole game: seats, a misdeal, a penalty, an adjustment, ending early and
the standings in GET /api/state (docs/game.md)."""

from __future__ import annotations

import pytest
from test_web_api import Phone, make_app


@pytest.fixture
def app(tmp_path):
    app, services = make_app(tmp_path)
    yield app
    services.stop()


def seated(app, player=0) -> Phone:
    phone = Phone(app)
    assert phone.join(player=player).status_code == 200
    return phone


def test_seats_drawn_on_a_phone_before_hand_1(app):
    # seed 004: seats are drawn (clubs draw wind tiles); the phone's draw is recorded as a seats event
    phone = seated(app)
    r = phone.post("/api/seats", {"order": ["West", "East", "North", "South"]})
    assert r.status_code == 201, r.json
    assert r.json["state"]["seats"] == {"E": "West", "S": "East", "W": "North", "N": "South"}
    assert r.json["record"]["type"] == "seats"
    phone.post("/api/hands", {"result": "draw"})
    r = phone.post("/api/seats", {"first_east": "East"})
    assert r.status_code == 409 and "before the first hand" in r.json["error"]["message"]
    assert phone.post("/api/seats", {"order": [0, 1]}).status_code == 400
    assert phone.post("/api/seats", {}).status_code == 400


def test_a_redeal_clears_the_throws_on_every_phone(app):
    # R25/R26: re-shuffled and the wall broken elsewhere: new throws
    phone = seated(app)
    phone.post("/api/dice", {"faces": [3, 4]})
    r = phone.post("/api/redeal", {"reason": "wrong count"})
    assert r.status_code == 201, r.json
    s = r.json["state"]
    assert s["throws"] == [] and s["expected_throw"]["index"] == 1 and s["redeals"][0]["reason"] == "wrong count"
    r = phone.post("/api/redeal", {})
    assert r.status_code == 409 and "nothing to redeal" in r.json["error"]["message"]


def test_a_penalty_and_an_adjustment_from_a_phone(app):
    # seed 004: "penalties for having the wrong number of tiles in hand or trying to go out with a
    # non-correct hand"
    phone = seated(app)
    r = phone.post("/api/penalties", {"player": "S", "points": 30, "reason": "false mahjong"})
    assert r.status_code == 201, r.json
    assert r.json["state"]["scores"] == {"East": 10, "South": -30, "West": 10, "North": 10}
    assert phone.post("/api/penalties", {"player": 1, "points": 10}).status_code == 409  # not shared equally
    assert phone.post("/api/penalties", {"player": 1, "points": 0}).status_code == 400
    r = phone.post("/api/adjustments", {"deltas": {"East": -10, "West": 5}})
    assert r.status_code == 409 and "sum to zero" in r.json["error"]["message"]
    r = phone.post("/api/adjustments", {"deltas": {"East": -10, "West": 10}, "reason": "paid twice"})
    assert r.status_code == 201 and r.json["state"]["scores"]["West"] == 20
    assert phone.post("/api/penalties", {"player": "Nobody", "points": 30}).status_code == 400


def test_ending_by_time_and_the_standings_in_the_state(app):
    # seed 004: "The current hand is then not played to a finish, and the players will score the
    # points they have so far accumulated before the current hand started."
    phone = seated(app)
    phone.post("/api/hands", {"result": "win", "winner": "West", "value": 10})
    phone.post("/api/dice", {"faces": [2, 5]})
    scores = phone.get("/api/state").json["scores"]
    r = phone.post("/api/end", {"how": "time"})
    assert r.status_code == 201, r.json
    s = r.json["state"]
    assert s["game_over"] and s["ended"]["how"] == "time" and s["scores"] == scores
    assert s["standings"][0] == {"player": "West", "score": scores["West"], "rank": 1}
    assert phone.get("/api/state").json["standings"] == s["standings"]
    assert phone.post("/api/end", {}).status_code == 409
    assert phone.post("/api/end", {"how": "boredom"}).status_code == 400

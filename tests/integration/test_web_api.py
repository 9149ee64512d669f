"""The JSON API and the pages through Flask's test client: roles, CSRF, bad requests, results, undo."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import pytest
import yaml

from companion.config import load_settings
from companion.services import build_services
from companion.web import create_app

TABLE_CODE = "TABLE2"
HOST_CODE = "HOSTCODE9"


def make_app(tmp_path: Path, dice: dict | None = None, **server):
    settings = load_settings(env={}, overrides={
        "data_dir": str(tmp_path), "server": {"table_code": TABLE_CODE, "host_code": HOST_CODE, **server},
        **({"dice": dice} if dice else {})})
    services = build_services(settings)
    return create_app(services), services


@pytest.fixture
def app(tmp_path):
    app, services = make_app(tmp_path)
    yield app
    services.stop()


class Phone:
    """A browser-like client: keeps its cookie and the latest single-use CSRF token."""

    def __init__(self, app, address: str = "192.0.2.10") -> None:
        self.c = app.test_client()
        self.address = address
        self.token = None

    def get(self, path, **kw):
        return self.c.get(path, environ_base={"REMOTE_ADDR": self.address}, **kw)

    def post(self, path, json=None, *, token=None, headers=None, **kw):
        if token is None:
            token = self.token or self.get("/api/session").json["csrf_token"]
        h = {"X-CSRF-Token": token, **(headers or {})}
        r = self.c.post(path, json=json, headers=h, environ_base={"REMOTE_ADDR": self.address}, **kw)
        self.token = r.headers.get("X-CSRF-Token", self.token)
        return r

    def join(self, code=TABLE_CODE, role="player", player=None, name=None):
        body = {"code": code, "role": role}
        if player is not None:
            body["player"] = player
        if name is not None:
            body["name"] = name
        return self.post("/api/join", body)


def events(app) -> int:
    return len(app.extensions["companion"].table.records())


# --- joining and roles ---------------------------------------------------------------------------

def test_join_with_the_code_gives_a_player_session_in_a_seat(app):
    phone = Phone(app)
    r = phone.join(code="table-2", player="S")  # any case, dashes allowed; a seat by wind
    assert r.status_code == 200
    assert r.json["role"] == "player" and r.json["player"] == 1 and r.json["name"] == "South"
    assert "HttpOnly" in r.headers["Set-Cookie"] and "SameSite=Lax" in r.headers["Set-Cookie"]
    assert TABLE_CODE not in r.headers["Set-Cookie"]


def test_wrong_code_is_refused_and_changes_nothing(app):
    phone = Phone(app)
    before = events(app)
    r = phone.join(code="WRONG1")
    assert r.status_code == 403 and r.json["error"]["code"] == "wrong_code"
    assert phone.get("/api/session").json["role"] == "anonymous"
    assert phone.post("/api/hands", {"result": "draw"}).status_code == 401
    assert events(app) == before


def test_wrong_codes_are_rate_limited_per_address(app):
    phone = Phone(app, "192.0.2.20")
    for _ in range(5):
        assert phone.join(code="NOPE00").status_code == 403
    r = phone.join(code=TABLE_CODE)  # even the right code waits now
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    assert r.json["error"]["code"] == "too_many_attempts"
    assert Phone(app, "192.0.2.21").join().status_code == 200  # another address is not punished
    form = phone.c.post("/join", data={"code": TABLE_CODE, "csrf_token": phone.get("/api/session").json["csrf_token"]},
                        environ_base={"REMOTE_ADDR": phone.address})
    assert form.status_code == 429 and int(form.headers["Retry-After"]) > 0  # the join page's form says so too


def test_spectator_can_watch_but_not_write(app):
    phone = Phone(app)
    assert phone.join(code="", role="spectator").json["role"] == "spectator"
    assert phone.get("/api/state").status_code == 200
    before = events(app)
    for path, body in [("/api/hands", {"result": "draw"}), ("/api/undo", {}), ("/api/dice", {"faces": [3, 4]})]:
        r = phone.post(path, body)
        assert r.status_code == 403 and r.json["error"]["code"] == "read_only"
    assert events(app) == before


def test_reads_can_require_the_code(tmp_path):
    app, services = make_app(tmp_path, require_code_for_reads=True)
    try:
        anon = Phone(app)
        assert anon.get("/api/state").status_code == 401
        assert anon.get("/api/stream").status_code == 401
        assert anon.get("/seat").status_code == 302
        assert anon.join(code="", role="spectator").status_code == 403
        # no page carries the game to a session without the code, nor does the camera show the table
        services.table.start_game(services.table.state.variant, ["Ann", "Bob", "Cyd", "Dan"])
        join_page = anon.get("/join").get_data(as_text=True)
        assert 'id="initial-state">null<' in join_page and "Ann" in join_page  # the seats are named to pick one
        assert anon.get("/settings").status_code == 302
        assert anon.get("/camera/snapshot.jpg").status_code == 401
        assert anon.get("/camera/stream.mjpg").status_code == 401
        spectator = Phone(app)
        assert spectator.join(code=TABLE_CODE, role="spectator").status_code == 200
        assert spectator.get("/api/state").status_code == 200
        assert '"players": ["Ann", "Bob", "Cyd", "Dan"]' in spectator.get("/join").get_data(as_text=True)
    finally:
        services.stop()


def test_host_only_actions(app):
    player, host = Phone(app), Phone(app)
    player.join()
    assert host.join(code=HOST_CODE, role="host").json["is_host"] is True
    body = {"variant": "riichi", "players": ["Ann", "Bob", "Cat", "Dan"]}
    assert player.post("/api/games", body).status_code == 403
    r = host.post("/api/games", body)
    assert r.status_code == 201 and r.json["state"]["variant"]["name"] == "riichi"
    assert r.json["state"]["players"] == ["Ann", "Bob", "Cat", "Dan"]
    # a path instead of a name is never loaded from a request
    assert host.post("/api/games", {**body, "variant": "../../etc/passwd"}).status_code == 400
    r = host.post("/api/games", {**body, "variant": "nope"})  # a name it does not know: the names it does
    assert r.status_code == 422 and r.json["error"]["code"] == "bad_variant"
    assert "known: " in r.json["error"]["message"] and "riichi" in r.json["error"]["message"]
    assert ".toml" not in r.json["error"]["message"]  # a request cannot give a path, so it is not offered


def test_new_table_code_when_not_configured(tmp_path):
    app, services = make_app(tmp_path, table_code="")
    try:
        access = app.extensions["companion_web"].access
        player, host = Phone(app), Phone(app)
        assert player.join(code=access.table_code, player=0).status_code == 200
        host.join(code=HOST_CODE, role="host")
        old = access.table_code
        new = host.post("/api/table-code").json["code"]
        assert new != old and access.table_code == new
        assert player.get("/api/session").json["role"] == "anonymous"
        assert player.post("/api/hands", {"result": "draw"}).status_code == 401
        assert Phone(app).join(code=old).status_code == 403
    finally:
        services.stop()


def test_configured_table_code_cannot_be_replaced_from_a_phone(app):
    host = Phone(app)
    host.join(code=HOST_CODE, role="host")
    r = host.post("/api/table-code")
    assert r.status_code == 409


def test_a_name_changes_at_any_time_as_an_event_and_the_game_goes_on(app):
    table = app.extensions["companion"].table
    ann = Phone(app)
    r = ann.join(player=0, name="Ann")
    assert r.json["name"] == "Ann"
    game = table.state.game
    bob = Phone(app)
    bob.join(player=1, name="Bob")
    assert ann.get("/api/session").json["name"] == "Ann"  # still in her seat after Bob's rename
    assert bob.post("/api/hands", {"result": "win", "winner": "Bob"}).status_code == 201
    r = Phone(app).join(player=2, name="Cat")  # under way: renamed all the same, the game goes on
    assert r.status_code == 200 and r.json["name"] == "Cat"
    assert table.state.game == game and table.state.hand == 2 and table.records()[-1].type == "player_renamed"
    r = bob.post("/api/seat", {"player": 1, "name": "Robert"})  # a seated phone renames itself
    assert r.status_code == 200 and r.json["name"] == "Robert" and table.state.players[1] == "Robert"
    assert bob.get("/api/session").json["player"] == 1  # and keeps its seat
    assert bob.post("/api/seat", {"player": 1, "name": "Ann"}).json["error"]["code"] == "bad_name"  # names differ


def test_a_taken_seat_is_taken_over_only_when_confirmed_and_its_phone_is_told(app):
    hub = app.extensions["companion"].hub
    told = []
    hub.subscribe(lambda m: told.append(m.data), {"seat"})
    ann = Phone(app)
    ann.join(player=0, name="Ann")
    assert "taken" in Phone(app, "192.0.2.11").get("/join").get_data(as_text=True)  # the join page says so
    other = Phone(app, "192.0.2.12")
    r = other.join(player=0)
    assert r.status_code == 409 and r.json["error"]["code"] == "seat_taken" and "Ann" in r.json["error"]["message"]
    assert signed_out(other) and ann.get("/api/session").json["player"] == 0 and told == []
    r = other.post("/api/join", {"code": TABLE_CODE, "player": 0, "take_over": True})
    assert r.status_code == 200 and r.json["player"] == 0
    assert ann.get("/api/session").json["player"] is None  # Ann's phone lost the seat ...
    assert told and told[-1]["player"] == 0  # ... and was told (pushed to the phones)
    assert "Another phone has taken over Ann" in ann.get("/seat").get_data(as_text=True)
    r = ann.post("/api/seat", {"player": 0, "take_over": True})  # and takes it back
    assert r.json["player"] == 0 and other.get("/api/session").json["player"] is None
    assert ann.post("/api/seat", {"player": 0}).status_code == 200  # its own seat: nothing to confirm
    # a take-over that renames the player: the phone that lost the seat is still told why
    r = other.post("/api/seat", {"player": 0, "name": "Zed", "take_over": True})
    assert r.json["player"] == 0 and r.json["name"] == "Zed" and told[-1]["name"] == "Zed"
    assert "Another phone has taken over Ann" in ann.get("/seat").get_data(as_text=True)
    other.post("/api/leave")  # a phone that leaves frees its seat: the next one takes it without asking
    assert Phone(app, "192.0.2.13").join(player=0).status_code == 200


def signed_out(phone) -> bool:
    session = phone.get("/api/session").json
    return session["role"] == "anonymous" and not session["can_write"] and session["player"] is None


def test_a_refused_join_signs_nothing_in(app):
    for body, status in [({"player": 9}, 400), ({"player": "Zed"}, 400), ({"player": 0, "name": "E"}, 400)]:
        phone = Phone(app)
        r = phone.post("/api/join", {"code": TABLE_CODE, **body})
        assert r.status_code == status, body
        assert signed_out(phone), body
    phone = Phone(app)
    token = phone.get("/api/session").json["csrf_token"]
    r = phone.c.post("/join", data={"csrf_token": token, "code": TABLE_CODE, "role": "player", "player": "99"},
                     environ_base={"REMOTE_ADDR": phone.address})
    assert r.status_code == 400 and signed_out(phone)
    assert events(app) == 1  # nothing renamed, no new game
    host = Phone(app)
    host.join(code=HOST_CODE, role="host")
    assert host.post("/api/hands", {"result": "draw"}).status_code == 201
    Phone(app).join(player=0)
    phone = Phone(app)
    r = phone.join(player=0, name="Zed")  # a seat another phone holds, not confirmed: no session, no rename
    assert r.status_code == 409 and signed_out(phone) and events(app) == 2


def test_a_refused_join_keeps_the_session_the_phone_had(app):
    phone = Phone(app)
    phone.join(player=1)
    assert phone.join(code=HOST_CODE, role="host", player=7).status_code == 400
    session = phone.get("/api/session").json
    assert session["role"] == "player" and session["player"] == 1


# --- results, undo, correct --------------------------------------------------------------------

def test_record_win_undo_and_correct(app):
    phone = Phone(app)
    phone.join(player=0)
    r = phone.post("/api/hands", {"result": "win", "winner": "W", "from": "S", "value": 24})
    assert r.status_code == 201
    won = r.json["record"]
    assert won["type"] == "hand_won" and won["winner"] == 2 and won["discarder"] == 1
    assert r.json["state"]["history"][-1]["winner"] == "West"
    assert r.json["state"]["scores"]["West"] > 0

    r = phone.post(f"/api/events/{won['id']}/correct", {"result": "win", "winner": "West", "value": 16})
    assert r.status_code == 201
    last = r.json["state"]["history"][-1]
    assert last["from"] is None and last["value"] == 16

    r = phone.post("/api/undo", {})
    assert r.status_code == 201 and r.json["state"]["history"] == []
    assert phone.post("/api/undo", {"target": 999}).status_code == 409


def test_a_refused_correction_or_a_second_undo_writes_nothing(app):
    phone = Phone(app)
    phone.join(player=0)
    won = phone.post("/api/hands", {"result": "win", "winner": "W", "from": "S", "value": 24}).json["record"]
    before = phone.get("/api/events").json
    r = phone.post(f"/api/events/{won['id']}/correct", {"result": "win", "winner": "W", "from": "W", "value": 24})
    assert r.status_code == 409 and "own discard" in r.json["error"]["message"]
    assert phone.get("/api/events").json == before
    assert phone.post("/api/undo", {"target": won["id"]}).status_code == 201
    r = phone.post("/api/undo", {"target": won["id"]})
    assert r.status_code == 409 and "already undone" in r.json["error"]["message"]


def test_idempotency_key_records_once(app):
    phone = Phone(app)
    phone.join()
    key = {"Idempotency-Key": "tap-123456789"}
    first = phone.post("/api/hands", {"result": "draw"}, headers=key)
    second = phone.post("/api/hands", {"result": "draw"}, headers=key)
    assert first.status_code == second.status_code == 201
    assert first.json["record"]["id"] == second.json["record"]["id"]
    assert len(second.json["state"]["history"]) == 1


def test_dice_from_a_phone_break_the_wall_and_unassigned_rolls_can_be_discarded(app):
    phone = Phone(app)
    phone.join()
    assert phone.post("/api/dice", {"faces": [3, 0], "cocked": [1]}).status_code == 201  # R18
    state = phone.post("/api/dice", {"faces": [4]}).json["state"]
    assert state["throws"][0]["faces"] == [3, 4]
    state = phone.post("/api/dice", {"faces": [5, 6]}).json["state"]
    assert state["break"]["wall"] == "W" and state["break"]["stack"] == 18
    extra = phone.post("/api/dice", {"faces": [1, 1]}).json
    roll = extra["state"]["unassigned_rolls"][0]["event"]
    assert phone.post("/api/rolls/1/discard").status_code == 404
    r = phone.post(f"/api/rolls/{roll}/discard")
    assert r.status_code == 201 and r.json["state"]["unassigned_rolls"] == []


def test_a_throw_typed_after_the_camera_read_the_same_dice_is_not_counted_twice(tmp_path):
    """One physical throw, seen by the camera and typed on a phone, is one throw (R17)."""
    from companion.game.events import DiceThrown

    application, services = make_app(tmp_path)
    services.table.record(DiceThrown(faces=[5, 3], source="camera"))
    phone = Phone(application)
    phone.join()
    same = phone.post("/api/dice", {"faces": [3, 5]})
    assert same.status_code == 200 and same.json["record"]["source"] == "camera"
    assert [t["faces"] for t in same.json["state"]["throws"]] == [[5, 3]]
    other = phone.post("/api/dice", {"faces": [6, 6]})  # other dice: the breaker's throw
    assert other.status_code == 201
    assert [t["source"] for t in other.json["state"]["throws"]] == ["camera", "phone"]


def test_a_camera_throw_long_ago_does_not_swallow_a_new_throw_with_the_same_faces(tmp_path):
    from datetime import timedelta

    from companion.game.events import DiceThrown
    from companion.hardware.dice.rolls import ECHO_SECONDS, camera_echo

    _, services = make_app(tmp_path)
    table = services.table
    record = table.record(DiceThrown(faces=[2, 4], source="camera"))
    assert camera_echo(table, [4, 2]) == record
    assert camera_echo(table, [4, 2], now=record.at + timedelta(seconds=ECHO_SECONDS + 1)) is None
    assert camera_echo(table, [4, 3]) is None
    table.record(DiceThrown(faces=[4, 2], source="phone"))
    assert camera_echo(table, [4, 2]) is None  # the latest throw is the phone's


def test_an_unassigned_roll_counts_as_the_next_throw_once_one_is_due(app):
    phone = Phone(app)
    phone.join()
    phone.post("/api/dice", {"faces": [3, 4]})
    phone.post("/api/dice", {"faces": [5, 6]})
    roll = phone.post("/api/dice", {"faces": [2, 2]}).json["state"]["unassigned_rolls"][0]["event"]
    refused = phone.post(f"/api/rolls/{roll}/assign")
    assert refused.status_code == 409 and "no throw is due" in refused.json["error"]["message"]
    phone.post("/api/hands", {"result": "draw"})  # the next hand: East's throw is due (R17)
    state = phone.post(f"/api/rolls/{roll}/assign").json["state"]
    assert state["throws"][0]["faces"] == [2, 2] and state["unassigned_rolls"] == []
    assert phone.post(f"/api/rolls/{roll}/assign").status_code == 404


def test_the_roll_button_presses_the_virtual_box_and_a_real_box_says_to_press_its_own(tmp_path):
    app, services = make_app(tmp_path)  # default settings: the virtual dice box
    phone = Phone(app)
    phone.join()
    assert phone.post("/api/dice/roll").status_code == 202
    services.stop()
    app, services = make_app(tmp_path / "real", dice={"url": "loop://"})
    phone = Phone(app)
    phone.join()
    r = phone.post("/api/dice/roll")
    assert 400 <= r.status_code < 500 and "ROLL button on the box" in r.json["error"]["message"]
    services.stop()


# --- bad requests change nothing ---------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, status, code", [
    ({"data": b"{not json", "content_type": "application/json"}, 400, "malformed_json"),
    ({"data": b'{"result": "\xff"}', "content_type": "application/json"}, 400, "malformed_json"),  # not UTF-8
    ({"data": b"result=draw", "content_type": "application/x-www-form-urlencoded"}, 415, "unsupported_media_type"),
    ({"json": {"result": "maybe"}}, 400, "bad_request"),
    ({"json": {"result": "win"}}, 400, "bad_request"),
    ({"json": {"result": "win", "winner": "Zed"}}, 400, "unknown_player"),
    ({"json": {"result": "win", "winner": 7}}, 400, "unknown_player"),
    ({"json": {"result": "win", "winner": 0, "from": 0}}, 409, "refused"),
    ({"json": {"result": "draw", "extra": 1}}, 400, "bad_request"),
    ({"json": {"result": "win", "winner": 0, "hand_scores": {"1": 1_000_001}}}, 400, "bad_request"),
    ({"json": {"result": "win", "winner": 0, "value": 2.5}}, 400, "bad_request"),
    ({"json": {"result": "win", "winner": 0, "hand_scores": {"2": -10**15}}}, 400, "bad_request"),
    ({"json": {"result": "win", "winner": 0, "hand_scores": {"Zed": 8}}}, 400, "unknown_player"),
    ({"json": {"result": "win", "winner": 0, "hand_scores": {"1": 8, "S": 10}}}, 400, "bad_request"),
    ({"data": b'{"result": "draw", "pad": "' + b"x" * 70_000 + b'"}', "content_type": "application/json"}, 413, "too_large"),
])
def test_bad_requests_get_clear_errors_and_change_nothing(app, kwargs, status, code):
    phone = Phone(app)
    phone.join()
    before = events(app)
    token = phone.token
    r = phone.c.post("/api/hands", headers={"X-CSRF-Token": token}, environ_base={"REMOTE_ADDR": phone.address}, **kwargs)
    assert r.status_code == status, r.data
    assert r.json["error"]["code"] == code and r.json["error"]["message"]
    assert events(app) == before


def test_unknown_seat_at_join_is_refused(app):
    phone = Phone(app)
    r = phone.join(player="X")
    assert r.status_code == 400 and r.json["error"]["code"] == "unknown_player"
    assert phone.post("/api/seat", {"player": 0}).status_code == 401  # the refused join did not sign in
    phone.join()
    r = phone.post("/api/seat", {"player": 9})
    assert r.status_code == 400


@pytest.mark.parametrize("bad", ["1", "007", "٣", "S", "e", "ſ", "Ann\x00", "\u202eAnn", "Ann\u200b", "A\nB"])
def test_names_that_look_like_seats_or_hide_characters_are_refused(app, bad):
    host = Phone(app)
    host.join(code=HOST_CODE, role="host")
    before = events(app)
    r = host.post("/api/games", {"variant": "classical", "players": ["Ann", bad, "Cat", "Dan"]})
    assert r.status_code == 400 and r.json["error"]["code"] == "bad_players" and r.json["error"]["message"]
    r = host.post("/api/seat", {"player": 1, "name": bad})
    assert r.status_code == 400 and r.json["error"]["code"] == "bad_name"
    r = Phone(app).join(player=2, name=bad)
    assert r.status_code == 400 and r.json["error"]["code"] == "bad_name"
    assert events(app) == before


def test_seat_numbers_are_ascii_digits_and_names_still_work(app):
    host = Phone(app)
    host.join(code=HOST_CODE, role="host")
    players = ["Ann", "Bob 2", "Émile", "小明"]
    assert host.post("/api/games", {"variant": "classical", "players": players}).status_code == 201
    assert host.post("/api/seat", {"player": "٣"}).json["error"]["code"] == "unknown_player"
    assert host.post("/api/seat", {"player": " 3 "}).json["name"] == "小明"
    r = host.post("/api/hands", {"result": "win", "winner": "1", "from": "émile", "value": 8})
    assert r.status_code == 201 and (r.json["record"]["winner"], r.json["record"]["discarder"]) == (1, 2)
    ElementTree.fromstring(Phone(app).get("/wall.svg").data)  # well-formed XML with every name


def test_events_after_must_be_a_number(app):
    phone = Phone(app)
    assert len(phone.get("/api/events?after=-1").json) == events(app)
    assert phone.get(f"/api/events?after={events(app)}").json == []
    for bad in ["abc", "1.5", "1e3", "٣"]:
        r = phone.get(f"/api/events?after={bad}")
        assert r.status_code == 400 and "after" in r.json["error"]["message"], bad


def test_csrf_token_is_single_use_and_bound_to_the_session(app):
    phone, other = Phone(app), Phone(app)
    phone.join()
    other.join()
    before = events(app)
    token = phone.token
    assert phone.post("/api/hands", {"result": "draw"}, token=token).status_code == 201
    replay = phone.post("/api/hands", {"result": "draw"}, token=token)
    assert replay.status_code == 403 and replay.json["error"]["code"] == "csrf"
    foreign = other.post("/api/hands", {"result": "draw"}, token=phone.token)
    assert foreign.status_code == 403
    missing = phone.c.post("/api/hands", json={"result": "draw"}, environ_base={"REMOTE_ADDR": phone.address})
    assert missing.status_code == 403
    assert events(app) == before + 1


def test_cross_origin_writes_are_refused(app):
    phone = Phone(app)
    phone.join()
    r = phone.post("/api/hands", {"result": "draw"}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and r.json["error"]["code"] == "cross_origin"


def test_unknown_api_path_and_method_are_json(app):
    phone = Phone(app)
    assert phone.get("/api/nothing").json["error"]["code"] == "not_found"
    r = phone.get("/api/hands")
    assert r.status_code == 405 and r.json["error"]["code"] == "method_not_allowed"


# --- pages -------------------------------------------------------------------------------------------

def test_pages_render_and_hide_the_code_from_strangers(app):
    stranger = Phone(app, "192.0.2.50")
    page = stranger.get("/table").get_data(as_text=True)
    assert TABLE_CODE not in page
    assert stranger.get("/qr.svg").status_code == 403
    assert stranger.get("/api/table-code").status_code == 403
    local = Phone(app, "127.0.0.1")  # the Pi's own screen
    assert TABLE_CODE in local.get("/table").get_data(as_text=True)
    assert local.get("/qr.svg").mimetype == "image/svg+xml"
    assert local.get("/api/table-code").json["url"].endswith(f"/join#code={TABLE_CODE}")
    player = Phone(app)
    player.join(player=0)
    for path in ["/seat", "/table", "/history", "/settings", "/join", "/offline", "/wall.svg", "/manifest.webmanifest", "/sw.js"]:
        assert player.get(path).status_code == 200, path
    headers = player.get("/seat").headers
    assert headers["X-Frame-Options"] == "DENY" and "default-src 'self'" in headers["Content-Security-Policy"]


def test_form_join_redirects_to_a_url_without_the_code(app):
    phone = Phone(app)
    token = phone.get("/api/session").json["csrf_token"]
    r = phone.c.post("/join", data={"csrf_token": token, "code": TABLE_CODE, "role": "player", "player": "2"},
                     environ_base={"REMOTE_ADDR": phone.address})
    assert r.status_code == 303 and r.headers["Location"] == "/seat"
    assert "West" in phone.get("/seat").get_data(as_text=True)


def test_language_from_accept_language_and_manual_switch(app):
    phone = Phone(app)
    assert "Dem Tisch beitreten" in phone.get("/join", headers={"Accept-Language": "de-DE,de;q=0.9"}).get_data(as_text=True)
    token = phone.get("/api/session").json["csrf_token"]
    r = phone.c.post("/lang", data={"csrf_token": token, "lang": "cs", "next": "https://evil.example/"},
                     environ_base={"REMOTE_ADDR": phone.address})
    assert r.status_code == 303 and r.headers["Location"] == "/"  # no open redirect
    page = phone.get("/join", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert 'lang="cs"' in page and "Připojit se ke stolu" in page


def test_every_page_says_it_needs_javascript_when_it_is_off(app):
    """The views are drawn by app.js: without it a phone would show an empty page and no reason."""
    import re

    phone = Phone(app)
    for path in ("/join", "/seat", "/table", "/history", "/settings"):
        page = phone.get(path, follow_redirects=True).get_data(as_text=True)
        assert re.search(r"<noscript>.*needs JavaScript.*</noscript>", page, re.S), path
    page = phone.get("/join", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Diese Seite braucht JavaScript" in page


def test_openapi_documents_every_api_route(app):
    from openapi_spec_validator import validate

    spec = yaml.safe_load((Path(app.root_path) / "static" / "openapi.yaml").read_text())
    validate(spec)
    documented = {(path, method) for path, ops in spec["paths"].items() for method in ops if method != "parameters"}
    routes = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/"):
            path = rule.rule.replace("<int:", "{").replace(">", "}")
            for m in rule.methods - {"HEAD", "OPTIONS"}:
                routes.add((path.replace("{event_id}", "{id}"), m.lower()))
    assert routes == documented


def test_openapi_names_every_error_code_and_record_type_the_server_sends(app):
    import re

    import msgspec

    from companion.game import events as ev
    from companion.web import errors

    spec = yaml.safe_load((Path(app.root_path) / "static" / "openapi.yaml").read_text())
    listed = set(re.findall(r"[a-z_]+", spec["components"]["schemas"]["Error"]["properties"]["error"]
                                               ["properties"]["code"]["description"]))
    web = Path(errors.__file__).parent
    sent = {m for f in web.glob("*.py") for m in re.findall(r'WebError\(\s*\d+,\s*"([a-z_]+)"', f.read_text())}
    sent |= {code for _, _, code in errors.GAME_ERRORS} | {"too_large", "not_found", "method_not_allowed",
                                                           "bad_request", "server_error"}
    assert sent - listed == set()
    tags = {msgspec.inspect.type_info(t).tag for t in ev.Event.__subclasses__()}
    assert set(spec["components"]["schemas"]["Record"]["properties"]["type"]["enum"]) == tags


def test_undo_of_the_latest_event_says_when_there_is_none_and_a_retried_tap_undoes_once(app):
    phone = Phone(app)
    phone.join(player=0)
    r = phone.post("/api/undo", {})
    assert r.status_code == 409 and r.json["error"]["message"] == "There is nothing to undo."
    phone.post("/api/hands", {"result": "draw"})
    phone.post("/api/hands", {"result": "draw"})
    key = {"Idempotency-Key": "undo-tap-42424242"}
    first = phone.post("/api/undo", {}, headers=key)
    again = phone.post("/api/undo", {}, headers=key)  # the phone did not hear the answer and sent it again
    assert first.status_code == 201 and again.json["record"]["id"] == first.json["record"]["id"]
    assert len(again.json["state"]["history"]) == 1  # one draw undone, not both


def test_a_request_key_stands_for_one_request_and_a_retry_is_answered_as_the_first_time(app):
    phone = Phone(app)
    phone.join(player=0)
    key = {"Idempotency-Key": "dice-tap-0001"}
    first = phone.post("/api/dice", {"faces": [5, 2]}, headers=key)
    assert first.status_code == 201
    other = phone.post("/api/dice", {"faces": [2, 2]}, headers=key)  # the same key, other dice
    assert other.status_code == 409 and "another request" in other.json["error"]["message"]
    assert phone.post("/api/dice", {"faces": [5, 2]}, headers=key).json["record"]["id"] == first.json["record"]["id"]


def test_a_retried_assign_of_a_stray_roll_gets_the_same_record_not_a_404(tmp_path):
    from companion.hardware.dice.rolls import record_roll

    app, services = make_app(tmp_path)
    try:
        table = services.table
        phone = Phone(app)
        phone.join(player=0)
        phone.post("/api/dice", {"faces": [3, 4]})
        phone.post("/api/dice", {"faces": [5, 6]})  # classical: both throws in, the break is known
        record_roll(table, [2, 2], source="serial", boot_id="b1", seq=1, key="dice:b1:1")  # no throw due
        assert len(table.state.unassigned) == 1
        phone.post("/api/hands", {"result": "draw"})  # a throw is due again: the stray roll may count
        key = {"Idempotency-Key": "assign-tap-0001"}
        roll = table.state.unassigned[0]["event"]
        first = phone.post(f"/api/rolls/{roll}/assign", headers=key)
        again = phone.post(f"/api/rolls/{roll}/assign", headers=key)
        assert first.status_code == 201 and again.json["record"]["id"] == first.json["record"]["id"]
        assert phone.post(f"/api/rolls/{roll}/assign").status_code == 404  # without the key: it is no stray now
    finally:
        services.stop()


def test_undo_needs_no_body_at_all(app):
    phone = Phone(app)
    phone.join(player=0)
    phone.post("/api/hands", {"result": "draw"})
    r = phone.c.post("/api/undo", headers={"X-CSRF-Token": phone.get("/api/session").json["csrf_token"]},
                     environ_base={"REMOTE_ADDR": phone.address})
    assert r.status_code == 201 and r.json["record"]["type"] == "undo"


def test_a_correction_names_players_by_the_seat_winds_of_the_corrected_hand(app):
    host = Phone(app)
    host.join(code=HOST_CODE, role="host")
    host.post("/api/games", {"variant": "mcr", "players": ["Ann", "Bob", "Cyd", "Dan"]})
    table = app.extensions["companion"].table
    first_hand = {w: table.state.rotation.player_at(w) for w in "ESWN"}
    drawn = host.post("/api/hands", {"result": "draw"}).json["record"]
    now = {w: table.state.rotation.player_at(w) for w in "ESWN"}
    assert now != first_hand  # MCR: the seats move after every hand, a draw too
    r = host.post(f"/api/events/{drawn['id']}/correct", {"result": "win", "winner": "N", "from": "W", "value": 8})
    assert r.status_code == 201, r.json
    won = r.json["record"]["event"]
    assert (won["winner"], won["discarder"]) == (first_hand["N"], first_hand["W"])
    assert table.player_index("N") == now["N"]  # a new result still names today's seats


def test_a_game_log_that_cannot_be_written_is_a_503_and_is_logged(app, monkeypatch, caplog):
    import logging

    from companion.storage import StorageError

    phone = Phone(app)
    phone.join(player=0)
    store = app.extensions["companion"].table.store

    def full(*args, **kwargs):
        raise StorageError("cannot write to the game log: database or disk is full")

    monkeypatch.setattr(store, "append", full)
    before = events(app)
    with caplog.at_level(logging.ERROR, logger="companion.web.errors"):
        r = phone.post("/api/hands", {"result": "draw"})
    assert r.status_code == 503 and r.json["error"]["code"] == "storage"  # not the phone's mistake
    assert "disk is full" in r.json["error"]["message"] and "nothing was recorded" in r.json["error"]["message"]
    assert any("the game log failed" in rec.getMessage() for rec in caplog.records)
    assert events(app) == before and phone.get("/api/state").json["history"] == []


def test_an_empty_code_asks_for_the_code_and_costs_no_attempt(app):
    phone = Phone(app, "192.0.2.30")
    for _ in range(6):  # more than the wrong codes allowed
        r = phone.join(code="  ")
        assert r.status_code == 403 and r.json["error"]["message"] == "Enter the table code."
    assert phone.join().status_code == 200  # not locked out


def test_a_refused_new_game_form_keeps_what_the_host_typed(app):
    host = Phone(app)
    host.join(code=HOST_CODE, role="host")
    token = host.get("/api/session").json["csrf_token"]
    form = {"csrf_token": token, "variant": "riichi", "player0": "Al", "player1": "Al", "player2": "Cy", "player3": "Di",
            "confirm": "yes"}
    r = host.c.post("/settings/game", data=form, environ_base={"REMOTE_ADDR": host.address})
    page = r.get_data(as_text=True)
    assert r.status_code == 400 and "player names must differ" in page
    assert page.count('value="Al"') == 2 and 'value="Cy"' in page and 'value="Di"' in page
    assert '<option value="riichi" selected' in page


def test_a_new_game_and_a_new_code_from_the_settings_page_need_the_box_ticked(app):
    host = Phone(app)
    host.join(code=HOST_CODE, role="host")
    code = app.extensions["companion_web"].access.table_code
    game = {"variant": "riichi", "player0": "Al", "player1": "Bo", "player2": "Cy", "player3": "Di"}
    for path, form in (("/settings/game", game), ("/settings/code", {})):
        token = host.get("/api/session").json["csrf_token"]
        r = host.c.post(path, data={"csrf_token": token, **form}, environ_base={"REMOTE_ADDR": host.address})
        assert r.status_code == 400 and "Tick the box" in r.get_data(as_text=True), path
    assert events(app) == 1 and app.extensions["companion_web"].access.table_code == code  # nothing changed


def test_previous_games_are_listed_for_the_host_and_reopened(app):
    table = app.extensions["companion"].table
    host = Phone(app)
    host.join(code=HOST_CODE, role="host", player=0)
    host.post("/api/hands", {"result": "win", "winner": 1, "from": 0})
    first = table.state.game
    assert host.post("/api/games", {"variant": "riichi", "players": ["Eve", "Fay", "Gil", "Hal"]}).status_code == 201
    games = host.get("/api/games").json
    assert [g["game"] for g in games] == [table.state.game, first] and games[0]["current"]
    assert games[1]["hand"] == 2 and games[1]["players"][0] != "Eve"
    assert Phone(app).get("/api/games").status_code in (401, 403)  # the host's
    page = host.get("/settings").get_data(as_text=True)
    assert f'data-game="{first}"' in page and "Reopen this game" in page
    r = host.post(f"/api/games/{first}/reopen", {})
    assert r.status_code == 201 and r.json["state"]["game"] == first and r.json["state"]["hand"] == 2
    assert host.post(f"/api/games/{first}/reopen", {}).status_code == 409  # it is being played
    assert host.post("/api/games/999/reopen", {}).status_code == 409


def test_a_fraction_as_a_hand_value_is_explained_in_words(app):
    phone = Phone(app)
    phone.join(player=0)
    r = phone.post("/api/hands", {"result": "win", "winner": 0, "value": 2.5})
    assert r.status_code == 400 and r.json["error"]["message"] == "value: a whole number, not a fraction"
    r = phone.post("/api/hands", {"result": "win", "winner": 0, "value": 10**7})
    assert r.status_code == 400 and r.json["error"]["message"] == "value: must be between -1000000 and 1000000"
    assert "fu" not in r.json["error"]["message"]  # only the field that is wrong is named


@pytest.mark.parametrize("body, lang, message", [
    ({"result": "win", "winner": 0, "value": 2.5}, "cs", "hodnota: celé číslo, ne zlomek"),
    ({"result": "win"}, "fr", "gagnant : une victoire demande un gagnant"),
    ({"result": "win", "winner": "Zed"}, "de",
     "Gewinner: An diesem Tisch gibt es keinen Spieler „Zed“ (Spieler: Ann, Bob, Cat, Dan)"),
    ({"result": "win", "winner": 0, "hand_scores": {"1": 8, "S": 10}}, "en", "hand scores: player “S” is named twice"),
    ({"result": "win", "winner": [1]}, "en", "winner: a whole number or text or nothing (null) is needed, not a list"),
    ({"result": "draw", "extra": 1}, "de", "extra: dieses Feld gibt es hier nicht"),
    ({"result": "maybe"}, "fr", "résultat : « maybe » n’est pas l’un de draw, win"),
    ({"winner": 0}, "cs", "výsledek: chybí"),
    ({"result": "win", "winner": 0, "fu": 10**7}, "de", "Fu: muss zwischen -1000000 und 1000000 liegen"),
])
def test_a_bad_body_is_explained_in_the_phones_language(app, body, lang, message):
    """Type and range checks name the field as the phone's forms do, in its language, with nothing recorded."""
    host, phone = Phone(app), Phone(app)
    host.join(code=HOST_CODE, role="host")
    assert host.post("/api/games", {"variant": "mcr", "players": ["Ann", "Bob", "Cat", "Dan"]}).status_code == 201
    phone.join(player=0)
    before = events(app)
    r = phone.post("/api/hands", body, headers={"Accept-Language": lang})
    assert r.status_code == 400 and r.json["error"]["message"] == message
    assert events(app) == before


# --- the game's own refusals in the phone's language --------------------------------------------------

def test_a_refused_result_is_explained_in_the_phones_language(app):
    """The engine's reason (an MCR win under 8 fan) is translated with its numbers filled in; English is unchanged."""
    host, phone = Phone(app), Phone(app)
    host.join(code=HOST_CODE, role="host")
    assert host.post("/api/games", {"variant": "mcr", "players": ["Ann", "Bob", "Cat", "Dan"]}).status_code == 201
    phone.join(player=0)
    before = events(app)
    win = {"result": "win", "winner": "Bob", "from": "Cat", "value": 3}
    answers = {lang: phone.post("/api/hands", win, headers={"Accept-Language": lang})
               for lang in ("de-DE,de;q=0.9", "en", "cs", "fr-CA")}
    assert {r.status_code for r in answers.values()} == {409}
    assert {r.json["error"]["code"] for r in answers.values()} == {"refused"}
    messages = {lang: r.json["error"]["message"] for lang, r in answers.items()}
    assert messages == {"de-DE,de;q=0.9": "ein MCR-Sieg braucht mindestens 8 Fan, nicht 3",
                        "en": "an MCR win needs at least 8 fan, not 3",
                        "cs": "výhra podle MCR potřebuje aspoň 8 fan, ne 3",
                        "fr-CA": "une victoire en MCR demande au moins 8 fan, pas 3"}
    assert events(app) == before


def test_a_refused_player_name_is_explained_in_the_phones_language(app):
    """The table's own checks (names, players) speak the phone's language too, the name filled in."""
    host = Phone(app)
    host.join(code=HOST_CODE, role="host")
    game = {"variant": "classical", "players": ["Ann", "S", "Cat", "Dan"]}
    de = host.post("/api/games", game, headers={"Accept-Language": "de"})
    assert de.status_code == 400 and de.json["error"]["code"] == "bad_players"
    assert de.json["error"]["message"] == ("der Spielername „S“ liest sich wie eine Platznummer oder ein Platzwind "
                                           "(E, S, W, N); bitte einen anderen wählen")
    en = host.post("/api/games", game, headers={"Accept-Language": "en"})
    assert en.json["error"]["message"] == "player name “S” reads as a seat number or a seat wind (E, S, W, N); choose another"


def test_http_errors_are_said_in_the_phones_language(app):
    phone = Phone(app)
    page = phone.get("/nowhere", headers={"Accept-Language": "fr", "Accept": "text/html"}).get_data(as_text=True)
    assert "Il n’y a rien à cette adresse." in page and "The requested URL" not in page
    r = phone.get("/api/nothing", headers={"Accept-Language": "de"})
    assert r.status_code == 404 and r.json["error"]["message"] == "Unter dieser Adresse gibt es nichts."
    r = phone.get("/api/nothing")
    assert r.json["error"]["message"] == "There is nothing at this address."


def test_a_refused_undo_names_the_event_in_the_phones_language(app):
    phone = Phone(app)
    phone.join(player=0)
    won = phone.post("/api/hands", {"result": "win", "winner": "W", "from": "S", "value": 24}).json["record"]
    assert phone.post("/api/undo", {"target": won["id"]}).status_code == 201
    de = phone.post("/api/undo", {"target": won["id"]}, headers={"Accept-Language": "de"})
    assert de.status_code == 409 and de.json["error"]["message"] == f"Ereignis {won['id']} ist bereits rückgängig gemacht"
    en = phone.post("/api/undo", {"target": won["id"]}, headers={"Accept-Language": "en"})
    assert en.json["error"]["message"] == f"event {won['id']} is already undone"
    # a correction refused by the game, in the language the phone chose by hand
    token = phone.get("/api/session").json["csrf_token"]
    phone.c.post("/lang", data={"csrf_token": token, "lang": "cs", "next": "/"}, environ_base={"REMOTE_ADDR": phone.address})
    phone.token = None
    r = phone.post(f"/api/events/{won['id']}/correct", {"result": "win", "winner": "W", "value": 8},
                   headers={"Accept-Language": "en"})
    assert r.status_code == 409
    assert r.json["error"]["message"] == (f"událost {won['id']} už byla vrácena zpět; "
                                          "chcete-li ji opravit, vraťte nejdřív to vrácení")


def test_several_winners_on_one_discard_are_recorded_where_the_house_rules_allow(app, tmp_path):
    """Seed 002: several players may win on one discard; a club's house rules say so."""
    (tmp_path / "variants").mkdir(exist_ok=True)
    (tmp_path / "variants" / "general.toml").write_text(
        'extends = "classical"\nname = "general"\ntitle = "General rules"\n[claims]\nseveral_winners = true\n')
    host = Phone(app)
    host.join(code=HOST_CODE, role="host")
    assert host.post("/api/games", {"variant": "general", "players": ["Ann", "Bob", "Cyd", "Dan"]}).status_code == 201
    assert host.get("/api/state").json["variant"]["several_winners"] is True
    r = host.post("/api/hands", {"result": "win", "winner": "Bob", "from": "Ann", "value": 16,
                                 "also": [{"winner": "Cyd", "value": 8}]})
    assert r.status_code == 201, r.json
    assert r.json["record"]["also"] == [{"winner": 2, "value": 8}]
    assert host.get("/api/state").json["scores"] == {"Ann": -48, "Bob": 48, "Cyd": 24, "Dan": -24}
    # self-drawn cannot have company, and the refusal changes nothing
    r = host.post("/api/hands", {"result": "win", "winner": "E", "value": 8, "also": [{"winner": "S", "value": 8}]})
    assert r.status_code in (400, 409) and "only on a discard" in r.json["error"]["message"]
    r = host.post("/api/hands", {"result": "win", "winner": 0, "from": 1, "also": [{"winner": 2, "value": 10**7}]})
    assert r.status_code == 400 and "must be between" in r.json["error"]["message"]
    assert len(host.get("/api/state").json["history"]) == 1


def test_several_winners_are_refused_under_rules_that_give_the_tile_to_one(app):
    host = Phone(app)
    host.join(code=HOST_CODE, role="host")
    host.post("/api/games", {"variant": "classical", "players": ["Ann", "Bob", "Cyd", "Dan"]})
    assert host.get("/api/state").json["variant"]["several_winners"] is False
    r = host.post("/api/hands", {"result": "win", "winner": 1, "from": 0, "value": 8, "also": [{"winner": 2}]})
    assert r.status_code in (400, 409) and r.json["error"]["message"] == \
        "only one player can win on a discard under these rules"

"""Every write names the state it was made on (If-Match, 412) and one action is one write
(Idempotency-Key): checked route by route from the app's url_map, and under threads racing.

A POST route added later without `@game_write` (companion/web/writes.py) fails
`test_every_write_route_uses_the_write_mechanism` unless it is named in EXEMPT with a reason.
"""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from test_web_api import Phone, make_app

from companion.game.events import DiceThrown, HandDrawn
from companion.web.writes import game_write

#: POST routes that do not change the game, and why (every other POST route must use @game_write)
EXEMPT = {
    "views.join_form": "joining: a session, not the game (seat claims go through /seat)",
    "api.post_join": "joining: a session, not the game",
    "views.leave": "leaving: ends this phone's session only",
    "api.post_leave": "leaving: ends this phone's session only",
    "views.set_language": "the phone's language, kept in its session",
    "teach.upload": "photos to teach the tile set: the camera's setup, not the game",
    "teach.forget": "the camera's taught tile set, not the game",
    "corners.set_corners": "the camera's table corners: setup, not the game (setting them twice is harmless)",
    "corners.forget": "the camera's table corners: setup, not the game",
    "samples.delete": "the camera's kept samples: deleting twice deletes once",
    "scoring.post_score": "scoring a hand is a computation: nothing is recorded in the game (its photo is kept "
                          "as data, each request its own); the value goes into POST /api/hands",
}

PLAYERS = ["Ann", "Bob", "Cat", "Dan"]


def _stray_roll(table) -> int:
    """Both throws in (classical), then a roll no throw was due for: an unassigned roll."""
    table.record(DiceThrown(faces=[3, 4], source="phone"))
    table.record(DiceThrown(faces=[5, 6], source="phone"))
    table.record(DiceThrown(faces=[2, 2], source="phone"))
    return table.state.unassigned[0]["event"]


def _assignable_roll(table) -> int:
    roll = _stray_roll(table)
    table.record(HandDrawn())  # the next hand: a throw is due, the stray roll may count (R17)
    return roll


def _earlier_game(table) -> int:
    """A game to reopen: the one being played, once a new game has begun."""
    earlier = table.state.game
    table.start_game(table.state.variant, PLAYERS)
    return earlier


def _drawn(table) -> int:
    return table.record(HandDrawn()).id


#: endpoint -> (setup(table) -> path, body, "json" or "form", records an event?)
ROUTES = {
    "api.post_seat": lambda t: ("/api/seat", {"player": 1}, "json", False),
    "api.post_hand": lambda t: ("/api/hands", {"result": "draw"}, "json", True),
    "api.post_dice": lambda t: ("/api/dice", {"faces": [3, 4]}, "json", True),
    "api.post_roll": lambda t: ("/api/dice/roll", {}, "json", False),
    "api.post_discard_roll": lambda t: (f"/api/rolls/{_stray_roll(t)}/discard", {}, "json", True),
    "api.post_assign_roll": lambda t: (f"/api/rolls/{_assignable_roll(t)}/assign", {}, "json", True),
    "api.post_undo": lambda t: (_drawn(t) and "/api/undo", {}, "json", True),
    "api.post_correct": lambda t: (f"/api/events/{_drawn(t)}/correct",
                                   {"result": "win", "winner": 0, "from": 1, "value": 8}, "json", True),
    "api.post_game": lambda t: ("/api/games", {"variant": "classical", "players": PLAYERS}, "json", True),
    "api.post_table_code": lambda t: ("/api/table-code", {}, "json", False),
    "api.post_host_code": lambda t: ("/api/host-code", {"confirm": True}, "json", False),
    "views.seat_form": lambda t: ("/seat", {"player": "1"}, "form", False),
    "views.new_game_form": lambda t: ("/settings/game", {"variant": "classical", "confirm": "yes",
                                                         **{f"player{i}": p for i, p in enumerate(PLAYERS)}},
                                      "form", True),
    "views.new_code_form": lambda t: ("/settings/code", {"confirm": "yes"}, "form", False),
    "views.new_host_code_form": lambda t: ("/settings/host-code", {"confirm": "yes"}, "form", False),
    "api.post_redeal": lambda t: (t.record(DiceThrown(faces=[3, 4], source="phone")) and "/api/redeal",
                                  {"reason": "misdeal"}, "json", True),
    "api.post_penalty": lambda t: ("/api/penalties", {"player": 1, "points": 30, "reason": "false mahjong"}, "json", True),
    "api.post_adjustment": lambda t: ("/api/adjustments", {"deltas": {"0": -10, "E": 0, "S": 10}}, "json", True),
    "api.post_end": lambda t: ("/api/end", {"how": "time"}, "json", True),
    "api.post_seats": lambda t: ("/api/seats", {"first_east": 2}, "json", True),
    "api.post_reopen_game": lambda t: (f"/api/games/{_earlier_game(t)}/reopen", {}, "json", True),
    "views.reopen_game_form": lambda t: (f"/settings/games/{_earlier_game(t)}/reopen", {}, "form", True),
}
#: writes that do not depend on the game's state: idempotent, but If-Match has no say
UNVERSIONED = {"api.post_table_code", "views.new_code_form", "api.post_host_code", "views.new_host_code_form"}


@pytest.fixture
def table_app(tmp_path):
    app, services = make_app(tmp_path, table_code="", host_code="")  # codes the host may change
    yield app, services
    services.stop()


def host_phone(app, **kw) -> Phone:
    phone = Phone(app, **kw)
    # another host phone may hold seat 0 already (one phone per seat): this one takes it over
    host_code = app.extensions["companion_web"].access.host_code  # configured, or made by the companion
    assert phone.post("/api/join", {"code": host_code, "role": "host", "player": 0, "take_over": True}).status_code == 200
    return phone


def table_code(app) -> str:
    return app.extensions["companion_web"].access.table_code


def send(phone: Phone, path: str, body: dict, kind: str, headers: dict):
    if kind == "json":
        return phone.post(path, body, headers=headers)
    return phone.post(path, None, headers=headers, data=body)


def bump(table) -> None:
    """Move the version on without changing what the routes may do: a roll, then its undo."""
    roll = table.record(DiceThrown(faces=[1, 1], source="phone"))
    table.undo(roll.id)


def log_size(services) -> int:
    return len(services.table.store.events())


def test_every_write_route_uses_the_write_mechanism(table_app):
    app, _ = table_app
    unsafe = {r.endpoint for r in app.url_map.iter_rules() if r.methods & {"POST", "PUT", "PATCH", "DELETE"}}
    unchecked = unsafe - set(EXEMPT) - set(ROUTES)
    assert not unchecked, f"write routes neither checked here nor exempted: {sorted(unchecked)}"
    for endpoint in ROUTES:
        marked = getattr(app.view_functions[endpoint], "game_write", None)
        assert marked is not None, f"{endpoint} does not use @game_write"
        assert marked["versioned"] == (endpoint not in UNVERSIONED), endpoint
    for endpoint in EXEMPT:
        assert endpoint in unsafe, f"exempted {endpoint} is no POST route (remove it from EXEMPT)"


def test_a_route_without_the_mechanism_would_fail_the_enumeration():
    """The enumeration reads the mark `game_write` leaves; an undecorated view has none."""
    def plain():
        return "ok"
    assert getattr(plain, "game_write", None) is None
    assert game_write(plain).game_write == {"versioned": True}


def test_state_and_writes_carry_the_version_as_etag(table_app):
    app, services = table_app
    phone = host_phone(app)
    r = phone.get("/api/state")
    assert r.headers["ETag"] == f'"{services.table.version}"' and r.json["version"] == services.table.version
    w = phone.post("/api/hands", {"result": "draw"}, headers={"If-Match": r.headers["ETag"]})
    assert w.status_code == 201
    assert w.headers["ETag"] == f'"{w.json["record"]["id"]}"' == f'"{w.json["state"]["version"]}"'


@pytest.mark.parametrize("endpoint", sorted(set(ROUTES) - UNVERSIONED))
def test_a_write_made_on_an_older_state_is_refused_with_412_and_changes_nothing(table_app, endpoint):
    app, services = table_app
    table = services.table
    phone = host_phone(app)
    path, body, kind, _records = ROUTES[endpoint](table)
    made_on = table.version
    bump(table)
    before, version = log_size(services), table.version
    code_before = app.extensions["companion_web"].access.table_code
    r = send(phone, path, body, kind, {"If-Match": f'"{made_on}"'})
    assert r.status_code == 412, (endpoint, r.status_code, r.get_data(as_text=True)[:300])
    assert log_size(services) == before and table.version == version
    assert app.extensions["companion_web"].access.table_code == code_before
    assert r.headers["ETag"] == f'"{version}"'
    if kind == "json":
        assert r.json["error"] == "state_changed" and r.json["version"] == version
        assert [s["event"] for s in r.json["since"]] == [version - 1, version]
        assert r.json["since"][0]["what"] == "dice 1 + 1" and r.json["message"]
    # made on the state as it is now, the same write goes through
    ok = send(phone, path, body, kind, {"If-Match": f'"{version}"'})
    assert ok.status_code < 400, (endpoint, ok.status_code, ok.get_data(as_text=True)[:300])
    assert ok.headers["ETag"] == f'"{table.version}"'


@pytest.mark.parametrize("endpoint", sorted(ROUTES))
def test_a_repeated_idempotency_key_is_answered_again_and_recorded_once(table_app, endpoint):
    app, services = table_app
    table = services.table
    phone = host_phone(app)
    path, body, kind, records = ROUTES[endpoint](table)
    made_on, before = table.version, log_size(services)
    headers = {"Idempotency-Key": f"tap-{endpoint.replace('.', '-')}", "If-Match": f'"{made_on}"'}
    first = send(phone, path, body, kind, headers)
    assert first.status_code < 400, (endpoint, first.status_code, first.get_data(as_text=True)[:300])
    after_first = log_size(services)
    assert after_first == before + (1 if records else 0)
    access = app.extensions["companion_web"].access
    codes = (access.table_code, access.host_code)
    again = send(phone, path, body, kind, headers)  # a double tap, or a retry after a timeout
    assert again.status_code == first.status_code
    assert again.get_data() == first.get_data()
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert log_size(services) == after_first
    assert (access.table_code, access.host_code) == codes  # one new code, not two


def test_an_answer_is_given_again_only_to_the_session_it_was_given_to(table_app):
    """A key is no pass: another phone sending it (it may have read it off the wire) gets no copy
    of an answer that may hold a new code."""
    app, _ = table_app
    host = host_phone(app)
    key = {"Idempotency-Key": "new-code-tap-01"}
    first = host.post("/api/table-code", {}, headers=key)
    assert first.status_code == 200
    other = host_phone(app, address="192.0.2.99")
    r = other.post("/api/table-code", {}, headers=key)
    assert r.status_code == 409 and r.json["error"]["code"] == "key_reused"
    assert first.json["code"] not in r.get_data(as_text=True)


def test_the_same_key_on_another_request_is_refused(table_app):
    app, services = table_app
    phone = host_phone(app)
    key = {"Idempotency-Key": "one-tap-000001"}
    assert phone.post("/api/hands", {"result": "draw"}, headers=key).status_code == 201
    before = log_size(services)
    r = phone.post("/api/dice", {"faces": [3, 4]}, headers=key)
    assert r.status_code == 409 and r.json["error"]["code"] == "key_reused"
    assert log_size(services) == before


def test_a_new_game_with_a_repeated_key_starts_one_game(table_app):
    app, services = table_app
    phone = host_phone(app)
    headers = {"Idempotency-Key": "new-game-tap-1"}
    games = len(services.table.store.games())
    ids = {phone.post("/api/games", {"variant": "classical", "players": PLAYERS}, headers=headers).json["record"]["id"]
           for _ in range(3)}
    assert len(ids) == 1 and len(services.table.store.games()) == games + 1


def test_a_retry_after_a_restart_is_answered_from_the_log_not_refused(tmp_path):
    """The companion recorded the write, then stopped before the phone heard: the phone's retry
    (same key, If-Match of the state it was made on) gets the recorded answer, not a 412."""
    app, services = make_app(tmp_path)
    phone = host_phone(app)
    made_on = services.table.version
    headers = {"Idempotency-Key": "draw-before-restart", "If-Match": f'"{made_on}"'}
    first = phone.post("/api/hands", {"result": "draw"}, headers=headers)
    services.stop()
    app, services = make_app(tmp_path)
    try:
        phone = host_phone(app)
        before = log_size(services)
        again = phone.post("/api/hands", {"result": "draw"}, headers=headers)
        assert again.status_code == 201 and again.json["record"]["id"] == first.json["record"]["id"]
        assert log_size(services) == before
    finally:
        services.stop()


def test_without_if_match_a_write_is_made_on_the_state_as_it_is(table_app):
    app, services = table_app
    phone = host_phone(app)
    bump(services.table)
    assert phone.post("/api/hands", {"result": "draw"}).status_code == 201
    assert phone.post("/api/hands", {"result": "draw"}, headers={"If-Match": "*"}).status_code == 201


def test_a_malformed_if_match_is_a_bad_request(table_app):
    app, services = table_app
    phone = host_phone(app)
    before = log_size(services)
    r = phone.post("/api/hands", {"result": "draw"}, headers={"If-Match": "yesterday"})
    assert r.status_code == 400 and log_size(services) == before


def test_the_refusal_names_who_recorded_what_in_the_phones_language(table_app):
    app, services = table_app
    bob = Phone(app, address="192.0.2.11")
    bob.join(code=table_code(app), player=1, name="Bob")
    ann = Phone(app, address="192.0.2.12")
    ann.join(code=table_code(app), player=0, name="Ann")
    made_on = services.table.version
    assert bob.post("/api/hands", {"result": "draw"}, headers={"If-Match": f'"{made_on}"'}).status_code == 201
    r = ann.post("/api/hands", {"result": "win", "winner": 0, "from": 1}, headers={
        "If-Match": f'"{made_on}"', "Accept-Language": "de"})
    assert r.status_code == 412
    assert r.json["since"] == [{"event": services.table.version, "type": "hand_drawn", "who": "Bob",
                                "what": "ein Unentschieden"}]
    assert "Bob" in r.json["message"] and "ein Unentschieden" in r.json["message"]


# --- concurrency ---------------------------------------------------------------------------------

THREADS = 16


def race(app, count: int, path: str, body: dict, headers_for) -> list:
    """`count` phones, each in its own thread, post at the same moment; their answers."""
    phones = []
    for i in range(count):
        phone = Phone(app, address=f"192.0.2.{20 + i}")
        # more phones than seats: each takes its seat over from the one before (one phone per seat)
        assert phone.post("/api/join", {"code": table_code(app), "player": i % 4, "take_over": True}).status_code == 200
        phone.token = phone.get("/api/session").json["csrf_token"]
        phones.append(phone)
    start = threading.Barrier(count)
    answers: list = [None] * count

    def go(i: int) -> None:
        start.wait()
        r = phones[i].post(path, body, headers=headers_for(i))
        answers[i] = (r.status_code, r.json)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return answers


@pytest.mark.parametrize("path,body,event_type", [
    ("/api/hands", {"result": "draw"}, "hand_drawn"),
    ("/api/dice", {"faces": [3, 4]}, "dice"),
])
def test_phones_racing_on_one_version_record_once_and_the_rest_are_told(table_app, path, body, event_type):
    app, services = table_app
    made_on = services.table.version
    answers = race(app, THREADS, path, body,
                   lambda i: {"If-Match": f'"{made_on}"', "Idempotency-Key": f"phone-{i}-tap-0001"})
    outcome = Counter(status for status, _ in answers)
    assert outcome == {201: 1, 412: THREADS - 1}, outcome
    assert sum(1 for r in services.table.store.events() if type(r.event).__struct_config__.tag == event_type) == 1
    winner = next(j for s, j in answers if s == 201)
    for status, j in answers:
        if status == 412:
            assert j["version"] == winner["record"]["id"] and j["since"][0]["event"] == winner["record"]["id"]


def test_one_key_sent_by_many_threads_at_once_is_one_record(table_app):
    app, services = table_app
    before = log_size(services)
    answers = race(app, THREADS, "/api/hands", {"result": "draw"}, lambda i: {"Idempotency-Key": "one-tap-many-sends"})
    assert Counter(status for status, _ in answers) == {201: THREADS}
    assert len({j["record"]["id"] for _, j in answers}) == 1
    assert log_size(services) == before + 1


# --- the pages' forms -------------------------------------------------------------------------------

def form_fields(page: str, action: str) -> dict:
    """The hidden fields of the form posting to `action` on a rendered page."""
    import re
    form = re.search(r'<form method="post" action="' + re.escape(action) + r'".*?</form>', page, re.S).group(0)
    return dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form))


def test_the_new_game_form_carries_a_key_and_the_version_so_a_double_submit_starts_one_game(table_app):
    app, services = table_app
    host = host_phone(app)
    fields = form_fields(host.get("/settings").get_data(as_text=True), "/settings/game")
    assert set(fields) >= {"csrf_token", "idempotency_key", "if_match"}
    assert fields["if_match"] == str(services.table.version)
    body = {"idempotency_key": fields["idempotency_key"], "if_match": fields["if_match"], "variant": "classical",
            "confirm": "yes", **{f"player{i}": p for i, p in enumerate(PLAYERS)}}
    games = len(services.table.store.games())
    first = host.post("/settings/game", None, data=body)
    again = host.post("/settings/game", None, data=body)  # a double submit: the same form sent twice
    assert first.status_code == again.status_code == 303
    assert len(services.table.store.games()) == games + 1
    # a form drawn before the game changed (another host started one) is refused and says so
    stale = form_fields(host.get("/settings").get_data(as_text=True), "/settings/game")
    bump(services.table)
    r = host.post("/settings/game", None, data={**body, **{k: stale[k] for k in ("idempotency_key", "if_match")}})
    assert r.status_code == 412 and "Recorded meanwhile" in r.get_data(as_text=True)
    assert len(services.table.store.games()) == games + 1


def test_each_form_shown_has_a_key_of_its_own_and_code_forms_name_no_version(table_app):
    app, _ = table_app
    host = host_phone(app)
    page = host.get("/settings").get_data(as_text=True)
    keys = {form_fields(page, a)["idempotency_key"] for a in ("/settings/game", "/settings/code", "/settings/host-code")}
    assert len(keys) == 3
    assert "if_match" not in form_fields(page, "/settings/code")

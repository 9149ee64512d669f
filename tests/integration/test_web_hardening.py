"""A stranger on the table's Wi-Fi (issue 42): wrong codes from many addresses, a proxy in front,
live streams and the camera for joined phones, /healthz, sessions that end, the host code, and
the smaller holes (a line break in /lang's `next`, /teach's body read before its checks, CSRF
tokens pushed out by anonymous sessions). Flask's test client; nothing here needs a network."""

from __future__ import annotations

import io
import time

import pytest

from companion.config import load_settings
from companion.services import build_services
from companion.web import create_app

TABLE_CODE = "TABLE2"
HOST_CODE = "HOSTCODE9"
STRANGER = "192.0.2.66"


def make_app(tmp_path, **server):
    settings = load_settings(env={}, overrides={
        "data_dir": str(tmp_path), "server": {"table_code": TABLE_CODE, "host_code": HOST_CODE, **server}})
    services = build_services(settings)
    return create_app(services), services


@pytest.fixture
def app(tmp_path):
    app, services = make_app(tmp_path)
    yield app
    services.stop()


class Phone:
    """A browser-like client at `address`: keeps its cookie and the latest single-use CSRF token."""

    def __init__(self, app, address: str = "192.0.2.10", headers: dict | None = None) -> None:
        self.c = app.test_client()
        self.address = address
        self.headers = headers or {}
        self.token = None

    def get(self, path, **kw):
        return self.c.get(path, environ_base={"REMOTE_ADDR": self.address}, headers=self.headers, **kw)

    def post(self, path, json=None, **kw):
        token = self.token or self.get("/api/session").json["csrf_token"]
        r = self.c.post(path, json=json, headers={"X-CSRF-Token": token, **self.headers},
                        environ_base={"REMOTE_ADDR": self.address}, **kw)
        self.token = r.headers.get("X-CSRF-Token", self.token)
        return r

    def join(self, code=TABLE_CODE, role="player", **body):
        return self.post("/api/join", {"code": code, "role": role, **body})


# --- wrong codes ---------------------------------------------------------------------------------

def test_wrong_codes_from_eleven_addresses_do_not_lock_out_a_phone_that_types_it_right(app):
    """The table-wide count locked every new phone out: 5 wrong codes from each of 11 addresses."""
    for i in range(11):
        guesser = Phone(app, f"198.51.100.{i}")
        for _ in range(5):
            assert guesser.join(code="WRONG1").status_code == 403
        assert guesser.join().status_code == 429  # the guesser itself waits
    assert Phone(app, "192.0.2.200").join().status_code == 200


def test_behind_a_trusted_proxy_each_phone_is_limited_by_its_own_address(tmp_path):
    app, services = make_app(tmp_path, trusted_proxies=1)
    try:
        typo = Phone(app, "127.0.0.1", {"X-Forwarded-For": "192.0.2.31"})
        for _ in range(5):
            assert typo.join(code="WRONG1").status_code == 403
        assert typo.join().status_code == 429
        # another phone through the same proxy is not the one who typed wrong
        assert Phone(app, "127.0.0.1", {"X-Forwarded-For": "192.0.2.32"}).join().status_code == 200
        # a client cannot hide behind a made-up hop: only the proxy's own entry (the last) counts
        sly = Phone(app, "127.0.0.1", {"X-Forwarded-For": "203.0.113.9, 192.0.2.31"})
        assert sly.join().status_code == 429
    finally:
        services.stop()


def test_without_a_trusted_proxy_a_forwarded_for_header_changes_nothing(app):
    for i in range(5):
        assert Phone(app, STRANGER, {"X-Forwarded-For": f"10.0.0.{i}"}).join(code="WRONG1").status_code == 403
    assert Phone(app, STRANGER, {"X-Forwarded-For": "10.0.0.99"}).join().status_code == 429


# --- live streams and the camera ----------------------------------------------------------------

def _status(phone, path):
    r = phone.get(path, buffered=False)
    try:
        return r.status_code, (r.json or {}).get("error", {}).get("code") if r.status_code != 200 else None
    finally:
        r.close()


def test_live_streams_and_the_camera_are_for_joined_phones(app):
    stranger = Phone(app, STRANGER)
    assert stranger.get("/api/state").status_code == 200  # watching stays open
    assert _status(stranger, "/api/stream") == (403, "join_for_live")
    assert _status(stranger, "/camera/stream.mjpg")[0] == 403  # a page for people, not JSON
    assert _status(stranger, "/camera/snapshot.jpg")[0] == 403
    spectator = Phone(app, "192.0.2.67")
    spectator.join(code="", role="spectator")
    assert _status(spectator, "/api/stream") == (403, "join_for_live")
    for phone in (Phone(app), Phone(app, "192.0.2.68")):
        if phone.address == "192.0.2.68":
            assert phone.join(code=TABLE_CODE, role="spectator").json["role"] == "spectator"
        else:
            assert phone.join().status_code == 200
        assert _status(phone, "/api/stream") == (200, None)
        assert _status(phone, "/camera/snapshot.jpg") == (200, None)


def test_spectators_streams_are_opt_in_capped_and_never_take_a_joined_phones(tmp_path):
    app, services = make_app(tmp_path, spectator_streams=2)
    held = []
    try:
        broker = app.extensions["companion_web"].broker
        for i in range(2):
            r = Phone(app, f"192.0.2.{80 + i}").get("/api/stream", buffered=False)
            assert r.status_code == 200
            held.append(r)
        assert _status(Phone(app, STRANGER), "/api/stream") == (503, "busy")
        player = Phone(app)
        player.join()
        for _ in range(broker.max_streams):  # every joined place is still free
            r = player.get("/api/stream", buffered=False)
            assert r.status_code == 200
            held.append(r)
    finally:
        for r in held:
            r.close()
        services.stop()


# --- /healthz ------------------------------------------------------------------------------------

@pytest.mark.parametrize("reads_need_code", [False, True])
def test_healthz_tells_a_stranger_only_ok_or_not(tmp_path, reads_need_code):
    app, services = make_app(tmp_path, require_code_for_reads=reads_need_code)
    try:
        for who in (Phone(app, STRANGER), _joined(app, "player")):
            r = who.get("/healthz")
            assert r.status_code == 200 and r.json == {"ok": True}
            assert str(tmp_path) not in r.get_data(as_text=True)
        for who in (_joined(app, "host"), Phone(app, "127.0.0.1")):  # the host, the Pi itself (doctor)
            full = who.get("/healthz").json
            assert full["ok"] and {c["name"] for c in full["checks"]} >= {"disk", "game log"}
    finally:
        services.stop()


def _joined(app, role, address="192.0.2.40"):
    phone = Phone(app, address)
    assert phone.join(code=HOST_CODE if role == "host" else TABLE_CODE, role=role).status_code == 200
    return phone


# --- sessions ------------------------------------------------------------------------------------

def _copy_cookie(src: Phone, app, address="192.0.2.41") -> Phone:
    copy = Phone(app, address)
    cookie = src.c.get_cookie("companion_session")
    copy.c.set_cookie("companion_session", cookie.value)
    return copy


def test_leave_ends_the_session_so_a_copied_cookie_no_longer_writes(app):
    phone = _joined(app, "player")
    thief = _copy_cookie(phone, app)
    assert thief.get("/api/session").json["role"] == "player"
    assert phone.post("/api/leave").json["role"] == "anonymous"
    assert thief.get("/api/session").json["role"] == "anonymous"
    r = thief.post("/api/hands", {"result": "draw"})
    assert r.status_code == 401 and r.json["error"]["code"] == "join_first"


def test_a_session_ends_its_lifetime_after_joining_however_much_it_is_used(tmp_path):
    app, services = make_app(tmp_path, session_hours=2)
    try:
        sessions = app.extensions["companion_web"].sessions
        now = [time.time()]
        sessions._clock = lambda: now[0]
        phone = _joined(app, "player")
        for _ in range(4):  # used every half hour
            now[0] += 1800 - 1
            assert phone.get("/api/session").json["role"] == "player"
            r = phone.get("/api/state")
            assert "Set-Cookie" not in r.headers  # the cookie is not renewed by use
        now[0] += 10
        assert phone.get("/api/session").json["role"] == "anonymous"
        assert phone.post("/api/hands", {"result": "draw"}).status_code == 401
        assert phone.join().status_code == 200 and phone.get("/api/session").json["role"] == "player"
    finally:
        services.stop()


def test_the_host_can_change_the_host_code_after_confirming(tmp_path):
    app, services = make_app(tmp_path, host_code="")
    try:
        old = app.extensions["companion_web"].access.host_code
        host, other_host = _joined_with(app, old), _joined_with(app, old, "192.0.2.42")
        assert host.post("/api/seat", {"player": 0}).status_code == 200
        player = _joined(app, "player", "192.0.2.43")
        r = host.post("/api/host-code", {})
        assert r.status_code == 400 and r.json["error"]["code"] == "confirm"
        assert player.post("/api/host-code", {"confirm": True}).status_code == 403
        r = host.post("/api/host-code", {"confirm": True})
        assert r.status_code == 200 and r.json["role"] == "host" and r.json["player"] == 0
        assert r.json["code"] != old and r.json["code"] == app.extensions["companion_web"].access.host_code
        assert other_host.get("/api/session").json["role"] == "anonymous"
        assert host.post("/api/hands", {"result": "draw"}).status_code == 201  # this phone stays the host
        assert player.get("/api/session").json["role"] == "player"  # players keep their table code
        assert Phone(app, "192.0.2.44").join(code=old, role="host").status_code == 403
    finally:
        services.stop()


def test_a_new_host_code_from_the_settings_page(tmp_path):
    app, services = make_app(tmp_path, host_code="")
    try:
        old = app.extensions["companion_web"].access.host_code
        host = _joined_with(app, old)
        r = host.c.post("/settings/host-code", data={"csrf_token": host.get("/api/session").json["csrf_token"]},
                        environ_base={"REMOTE_ADDR": host.address})
        assert r.status_code == 400  # not ticked
        r = host.c.post("/settings/host-code", data={"confirm": "yes", "csrf_token": host.get("/api/session").json[
            "csrf_token"]}, environ_base={"REMOTE_ADDR": host.address})
        new = app.extensions["companion_web"].access.host_code
        assert r.status_code == 200 and new != old and new in r.get_data(as_text=True)
        assert Phone(app, "192.0.2.44").join(code=old, role="host").status_code == 403
        assert Phone(app, "192.0.2.45").join(code=new, role="host").status_code == 200
        assert host.get("/api/session").json["role"] == "host"
    finally:
        services.stop()


def test_a_configured_host_code_is_not_changed_from_a_phone(app):
    host = _joined(app, "host")
    r = host.post("/api/host-code", {"confirm": True})
    assert r.status_code == 409 and "configuration" in r.json["error"]["message"]


def _joined_with(app, code, address="192.0.2.46"):
    phone = Phone(app, address)
    assert phone.join(code=code, role="host").status_code == 200
    return phone


# --- smaller holes -------------------------------------------------------------------------------

@pytest.mark.parametrize("target", ["/seat\r\nSet-Cookie: x=1", "/seat\n", "/\\evil.example", "/\\\\evil.example",
                                    "//evil.example", "https://evil.example/", "/se at"])
def test_lang_next_goes_only_to_a_plain_local_path(app, target):
    phone = Phone(app)
    token = phone.get("/api/session").json["csrf_token"]
    r = phone.c.post("/lang", data={"lang": "de", "next": target, "csrf_token": token},
                     environ_base={"REMOTE_ADDR": phone.address})
    assert r.status_code == 303 and r.headers["Location"] == "/"


def test_lang_next_keeps_a_plain_local_path(app):
    phone = Phone(app)
    token = phone.get("/api/session").json["csrf_token"]
    r = phone.c.post("/lang", data={"lang": "de", "next": "/history?x=1", "csrf_token": token},
                     environ_base={"REMOTE_ADDR": phone.address})
    assert r.status_code == 303 and r.headers["Location"] == "/history?x=1"


@pytest.mark.parametrize("who", ["anonymous", "player"])
def test_teach_refuses_a_non_host_before_reading_the_photo(app, who):
    phone = Phone(app)
    if who == "player":
        phone.join()
    token = phone.get("/api/session").json["csrf_token"]
    boundary = "b0undary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n{token}\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.jpg\"\r\n"
            f"Content-Type: image/jpeg\r\n\r\n").encode() + b"x" * (4 * 1024 * 1024) + f"\r\n--{boundary}--\r\n".encode()
    stream = io.BytesIO(body)
    r = phone.c.post("/teach", input_stream=stream, content_length=len(body),
                     content_type=f"multipart/form-data; boundary={boundary}",
                     environ_base={"REMOTE_ADDR": phone.address})
    assert r.status_code == (401 if who == "anonymous" else 403)
    assert stream.tell() < 64 * 1024  # refused before the 4 MiB photo was taken in


def test_thousands_of_anonymous_sessions_do_not_void_a_players_token(app):
    player = _joined(app, "player")
    token = player.get("/api/session").json["csrf_token"]
    crowd = app.test_client(use_cookies=False)
    for _ in range(4100):
        assert crowd.get("/api/session", environ_base={"REMOTE_ADDR": STRANGER}).status_code == 200
    r = player.c.post("/api/hands", json={"result": "draw"}, headers={"X-CSRF-Token": token},
                      environ_base={"REMOTE_ADDR": player.address})
    assert r.status_code == 201


def test_a_page_for_a_stranger_fetches_the_state_instead_of_asking_for_a_stream(tmp_path):
    app, services = make_app(tmp_path)
    try:
        spectator = Phone(app, STRANGER)
        spectator.join(code="", role="spectator")
        assert 'data-live="false"' in spectator.get("/seat").get_data(as_text=True)
        assert 'data-live="true"' in _joined(app, "player").get("/seat").get_data(as_text=True)
    finally:
        services.stop()
    app, services = make_app(tmp_path / "open", spectator_streams=4)
    try:
        spectator = Phone(app, STRANGER)
        spectator.join(code="", role="spectator")
        assert 'data-live="true"' in spectator.get("/seat").get_data(as_text=True)
    finally:
        services.stop()

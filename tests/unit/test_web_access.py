"""Table codes, single-use CSRF tokens and the wrong-code limiter, without a server."""

from __future__ import annotations

import os
import stat

import pytest

from companion.config import ServerSettings
from companion.web.access import (
    CODE_ALPHABET,
    AccessError,
    AttemptLimiter,
    CsrfTokens,
    Sessions,
    TableAccess,
)


def test_codes_are_made_up_once_kept_private_and_survive_a_restart(tmp_path):
    first = TableAccess(ServerSettings(), tmp_path)
    path = tmp_path / "web_access.json"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert len(first.table_code) == 6 and set(first.table_code) <= set(CODE_ALPHABET)
    again = TableAccess(ServerSettings(), tmp_path)
    assert (again.table_code, again.host_code, again.secret_key) == (first.table_code, first.host_code, first.secret_key)


def test_configured_codes_win_and_cannot_be_replaced(tmp_path):
    access = TableAccess(ServerSettings(table_code="abc234", host_code="Host9999"), tmp_path)
    assert access.table_code == "ABC234"
    assert access.role_for(" abc-234 ") == "player"
    assert access.role_for("host9999") == "host"
    assert access.role_for("") is None and access.role_for("ABC23") is None
    with pytest.raises(AccessError):
        access.new_table_code()


def test_a_new_table_code_changes_the_players_epoch_but_not_the_hosts(tmp_path):
    access = TableAccess(ServerSettings(), tmp_path)
    player, host, old = access.epoch("player"), access.epoch("host"), access.table_code
    new = access.new_table_code()
    assert new != old and access.role_for(old) is None and access.role_for(new) == "player"
    assert access.epoch("player") != player and access.epoch("host") == host
    assert TableAccess(ServerSettings(), tmp_path).table_code == new


def test_a_damaged_codes_file_is_a_clear_error(tmp_path):
    (tmp_path / "web_access.json").write_text("{oops")
    with pytest.raises(AccessError, match="delete the file"):
        TableAccess(ServerSettings(), tmp_path)


def test_csrf_tokens_are_single_use_and_bound_to_their_session():
    tokens = CsrfTokens(per_session=2)
    a = tokens.issue("s1")
    assert not tokens.consume("s2", a)
    assert tokens.consume("s1", a)
    assert not tokens.consume("s1", a)  # replayed
    b, c, d = (tokens.issue("s1") for _ in range(3))
    assert not tokens.consume("s1", b)  # only the newest `per_session` are kept
    assert tokens.consume("s1", d) and tokens.consume("s1", c)
    assert not tokens.consume("s1", "") and not tokens.consume("", d)


def test_limiter_counts_wrong_codes_per_address_and_forgets_after_a_minute():
    now = [0.0]
    limiter = AttemptLimiter(per_minute=3, clock=lambda: now[0])
    for _ in range(3):
        assert limiter.retry_after("a") == 0
        limiter.failed("a")
    assert limiter.retry_after("a") == 60
    assert limiter.retry_after("b") == 0
    now[0] = 30.0
    assert limiter.retry_after("a") == 30
    now[0] = 60.5
    assert limiter.retry_after("a") == 0


def test_a_flood_of_wrong_codes_from_many_addresses_never_locks_out_a_clean_address():
    """Issue 42: 5 wrong codes from each of 11 addresses used to give the right code 429 everywhere."""
    now = [0.0]
    limiter = AttemptLimiter(per_minute=5, clock=lambda: now[0], addresses=500)
    for second in range(120):  # two minutes of guessing from a thousand addresses
        now[0] = float(second)
        for i in range(1000):
            address = f"10.{i // 250}.{i % 250}.1"
            if not limiter.retry_after(address):
                limiter.failed(address)
        assert limiter.retry_after("192.0.2.77") == 0
    assert len(limiter._records) <= 500  # forgotten oldest first: memory stays bounded


def test_each_lock_out_of_one_address_lasts_twice_as_long_up_to_an_hour():
    now = [0.0]
    limiter = AttemptLimiter(per_minute=2, clock=lambda: now[0])
    waits = []
    for _ in range(9):
        limiter.failed("a")
        limiter.failed("a")
        waits.append(limiter.retry_after("a"))
        now[0] += waits[-1]  # waits it out, then guesses again
    assert waits == [60, 120, 240, 480, 960, 1920, 3600, 3600, 3600]
    now[0] += 2 * 3600  # quiet for long: a fresh start
    limiter.failed("a")
    limiter.failed("a")
    assert limiter.retry_after("a") == 60


def test_the_right_code_forgives_an_addresses_typos():
    now = [0.0]
    limiter = AttemptLimiter(per_minute=3, clock=lambda: now[0])
    limiter.failed("a")
    limiter.failed("a")
    limiter.succeeded("a")
    limiter.failed("a")
    limiter.failed("a")
    assert limiter.retry_after("a") == 0


def test_anonymous_sessions_by_the_thousand_never_push_out_a_joined_phones_token():
    """Issue 42: 4,100 anonymous GET /api/session evicted a player's CSRF token."""
    tokens = CsrfTokens(sessions=4096)
    player = tokens.issue("player", joined=True)
    for i in range(4100):
        tokens.issue(f"anon{i}")
    assert tokens.consume("player", player)
    early = tokens.issue("anon-early")
    for i in range(4100):
        tokens.issue(f"later{i}")
    assert not tokens.consume("anon-early", early)  # anonymous ones only push out each other


def test_a_session_ends_on_the_server_when_left_and_by_itself_after_its_lifetime(tmp_path):
    now = [1000.0]
    sessions = Sessions(tmp_path, lifetime=3600, clock=lambda: now[0])
    sessions.start("s1", "player")
    sessions.start("s2", "host")
    assert sessions.valid("s1") and sessions.valid("s2") and not sessions.valid("made-up")
    assert sessions.end("s1") and not sessions.valid("s1") and not sessions.end("s1")
    again = Sessions(tmp_path, lifetime=3600, clock=lambda: now[0])  # kept across a restart
    assert again.valid("s2") and not again.valid("s1")
    assert "s2" not in (tmp_path / "web_sessions.json").read_text()  # only a hash of the id is kept
    now[0] += 3599
    assert again.valid("s2")
    now[0] += 1
    assert not again.valid("s2")  # absolute: however much it was used


def test_a_new_host_code_ends_the_other_hosts_sessions(tmp_path):
    access = TableAccess(ServerSettings(), tmp_path)
    old_host, old_epoch, table = access.host_code, access.epoch("host"), access.table_code
    new = access.new_host_code()
    assert new != old_host and access.role_for(old_host) is None and access.role_for(new) == "host"
    assert access.epoch("host") != old_epoch and access.table_code == table
    assert TableAccess(ServerSettings(), tmp_path).host_code == new
    with pytest.raises(AccessError):
        TableAccess(ServerSettings(host_code="Host9999"), tmp_path / "x").new_host_code()
    sessions = Sessions(tmp_path, lifetime=60)
    for sid, role in (("h1", "host"), ("h2", "host"), ("p1", "player")):
        sessions.start(sid, role)
    sessions.end_role("host", keep="h1")
    assert sessions.valid("h1") and not sessions.valid("h2") and sessions.valid("p1")


def test_a_damaged_sessions_file_costs_only_the_sessions(tmp_path, caplog):
    (tmp_path / "web_sessions.json").write_text("{oops")
    sessions = Sessions(tmp_path, lifetime=60)
    assert not sessions.valid("anything") and "join again" in caplog.text
    sessions.start("s1", "player")
    assert Sessions(tmp_path, lifetime=60).valid("s1")

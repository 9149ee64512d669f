"""Table codes, single-use CSRF tokens and the wrong-code limiter, without a server."""

from __future__ import annotations

import os
import stat

import pytest

from companion.config import ServerSettings
from companion.web.access import (CODE_ALPHABET, AccessError, AttemptLimiter, CsrfTokens, TableAccess,
                                  is_loopback, normalise_code)


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


def test_limiter_also_limits_the_whole_table():
    now = [0.0]
    limiter = AttemptLimiter(per_minute=1, clock=lambda: now[0])
    for i in range(limiter.overall):
        limiter.failed(f"10.0.0.{i}")
    assert limiter.retry_after("a fresh address") > 0


def test_helpers():
    assert normalise_code("ab c-12") == "ABC12"
    assert is_loopback("127.0.0.1") and is_loopback("::1")
    assert not is_loopback("192.168.1.5") and not is_loopback(None) and not is_loopback("nonsense")

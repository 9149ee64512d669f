"""The join link's address: never 127.0.0.1 for a phone (issue: the table screen's QR code)."""

from __future__ import annotations

import pytest

from companion.config import load_settings
from companion.web.address import is_loopback_host, public_base


@pytest.mark.parametrize("opened_at, configured, lan, expected", [
    ("http://127.0.0.1:8080/", "", "192.168.1.5", "http://192.168.1.5:8080"),  # the Pi's own screen
    ("http://localhost:8080/", "", "10.0.0.7", "http://10.0.0.7:8080"),
    ("http://[::1]:8080/", "", "fd00::5", "http://[fd00::5]:8080"),
    ("http://192.168.1.5:8080/", "", "10.9.9.9", "http://192.168.1.5:8080"),  # a phone: the address it used
    ("http://mahjong.local:8080/", "", None, "http://mahjong.local:8080"),
    ("http://127.0.0.1:8080/", "https://club.example/table1/", "192.168.1.5", "https://club.example/table1"),
    ("http://127.0.0.1:8080/", "", "", "http://127.0.0.1:8080"),  # no network at all: nothing better
])
def test_public_base(opened_at, configured, lan, expected):
    assert public_base(opened_at, configured, lan) == expected


def test_loopback_hosts():
    assert is_loopback_host("127.0.0.1") and is_loopback_host("localhost") and is_loopback_host("[::1]")
    assert not is_loopback_host("192.168.1.5") and not is_loopback_host("mahjong.local") and not is_loopback_host(None)


def test_public_url_setting_is_checked(tmp_path):
    ok = load_settings(env={}, overrides={"data_dir": str(tmp_path), "server": {"public_url": "http://mahjong.local:8080"}})
    assert ok.server.public_url == "http://mahjong.local:8080"
    for bad in ("mahjong.local:8080", "ftp://x", "http://x/?code=1", "http:// x"):
        with pytest.raises(Exception, match="public_url"):
            load_settings(env={}, overrides={"data_dir": str(tmp_path), "server": {"public_url": bad}})


def test_the_table_screen_link_uses_the_configured_address(tmp_path):
    from companion.services import build_services
    from companion.web.app import create_app

    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path), "server": {
        "public_url": "http://mahjong.local:8080", "table_code": "JADE42", "host_code": "HOSTJADE77"}})
    client = create_app(build_services(settings)).test_client()
    resp = client.get("/api/table-code", environ_base={"REMOTE_ADDR": "127.0.0.1"})
    assert resp.get_json()["url"] == "http://mahjong.local:8080/join#code=JADE42"

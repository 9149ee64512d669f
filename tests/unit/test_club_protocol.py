"""The club's settings and topics (pure): bad input is refused with its reason."""

import pytest

from companion.club import protocol as p
from companion.config import ConfigError, load_settings, parse_broker


def test_broker_urls():
    assert parse_broker("mqtt://hub.local:1884") == ("hub.local", 1884, False)
    assert parse_broker("mqtt://10.0.0.2") == ("10.0.0.2", 1883, False)
    assert parse_broker("mqtts://hub.example") == ("hub.example", 8883, True)
    for bad in ("http://x:1883", "hub.local:1883", "mqtt://", "mqtt://h:99999"):
        with pytest.raises(ValueError):
            parse_broker(bad)


@pytest.mark.parametrize("club, words", [
    ({"broker": "mqtt://h:1883"}, "table_id is needed"),
    ({"broker": "mqtt://h:1883", "table_id": "a/b"}, "part of the MQTT topics"),
    ({"broker": "mqtt://h:1883", "table_id": "#"}, "part of the MQTT topics"),
    ({"broker": "tcp://h:1883", "table_id": "1"}, "mqtt://HOST:PORT"),
    ({"broker": "mqtt://h:1883", "table_id": "1", "password": "x"}, "needs its username"),
])
def test_bad_club_settings_are_refused(club, words):
    with pytest.raises(ConfigError, match=words):
        load_settings(env={}, overrides={"club": club})


def test_no_club_by_default():
    s = load_settings(env={})
    assert not s.club.enabled and s.club.broker == ""


def test_topics_name_their_table():
    assert p.table_of(p.events_topic("A3")) == "A3"
    assert p.table_of(p.ack_topic("7")) == "7"
    assert p.table_of("companion/club/tables//events") is None
    assert p.table_of("other/club/tables/1/events") is None


def test_event_message_round_trip():
    m = p.EventMessage(table="1", seq=5, prev=4, game=1, at="2026-01-01T00:00:00+00:00",
                       event=p.msgspec.Raw(b'{"type":"hand_drawn"}'))
    back = p.decode_event(p.encode(m))
    assert (back.seq, back.prev, bytes(back.event)) == (5, 4, b'{"type":"hand_drawn"}')
    assert p.decode_ack(p.encode(p.Ack(acked=9, resend=True))) == p.Ack(acked=9, resend=True)


def test_doctor_without_a_service_says_whether_the_broker_answers():
    from companion.club.broker import free_port
    from companion.health import probe_club

    settings = load_settings(env={}, overrides={"club": {"broker": f"mqtt://127.0.0.1:{free_port()}",
                                                         "table_id": "4"}})
    check = probe_club(settings, timeout=1)
    assert check.name == "club" and check.level == "warn" and "cannot be reached" in check.summary
    assert "table 4" in check.summary

"""Topics and payloads between the tables and the hub (pure: no I/O). See docs/club.md.

A table publishes each event of its log, QoS 1, on `companion/club/tables/<id>/events` with its
sequence number (the event's id in the table's log) and the sequence number of the event before
it (`prev`), so the hub sees a gap without assuming the ids are contiguous. The hub answers on
`…/<id>/ack`, retained, with the highest sequence number it has stored with everything before it;
with `resend` it asks for everything after that again (it saw a gap). A table sends again from
the last ack when no ack comes for a while (go-back-N), so a message lost anywhere (a broker
restarted without persistence, a hub that was down) is sent again; the hub ignores duplicates.
`…/<id>/status` is the table's retained presence (its last will says it went offline).
"""

from __future__ import annotations

import msgspec

PREFIX = "companion/club"
EVENTS_ALL = f"{PREFIX}/tables/+/events"
STATUS_ALL = f"{PREFIX}/tables/+/status"


def events_topic(table: str) -> str:
    return f"{PREFIX}/tables/{table}/events"


def ack_topic(table: str) -> str:
    return f"{PREFIX}/tables/{table}/ack"


def status_topic(table: str) -> str:
    return f"{PREFIX}/tables/{table}/status"


def table_of(topic: str) -> str | None:
    """The table id in a table topic, or None for any other topic."""
    parts = topic.split("/")
    if len(parts) == 5 and "/".join(parts[:3]) == f"{PREFIX}/tables" and parts[3]:
        return parts[3]
    return None


class EventMessage(msgspec.Struct, kw_only=True, forbid_unknown_fields=False):
    """One event of a table's log. `event` is the stored payload as it is (the hub decodes it when
    it folds the game), so a hub never drops an event because it is older or newer than itself."""

    table: str
    seq: int
    prev: int
    game: int
    at: str  # when the table wrote it, UTC ISO 8601
    event: msgspec.Raw
    sent: float = 0.0  # when it was (last) sent, Unix seconds: for the hub's delay figures


class Ack(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The hub has stored every event of the table up to `acked`; `resend`: send after it again."""

    acked: int
    resend: bool = False
    hub: str = ""


class TableStatus(msgspec.Struct, kw_only=True, omit_defaults=True):
    online: bool
    last_seq: int = 0
    acked: int = 0


_enc = msgspec.json.Encoder()
_event_dec = msgspec.json.Decoder(EventMessage)
_ack_dec = msgspec.json.Decoder(Ack)
_status_dec = msgspec.json.Decoder(TableStatus)


def encode(msg: msgspec.Struct) -> bytes:
    return _enc.encode(msg)


def decode_event(payload: bytes) -> EventMessage:
    """msgspec.DecodeError / ValidationError for anything else."""
    return _event_dec.decode(payload)


def decode_ack(payload: bytes) -> Ack:
    return _ack_dec.decode(payload)


def decode_status(payload: bytes) -> TableStatus:
    return _status_dec.decode(payload)

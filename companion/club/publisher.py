"""The table's club adapter: publishes its game log to the club's MQTT broker, store-and-forward.

The queue is the SQLite game log itself: nothing is copied out of it, so nothing is lost when
the broker is down, the Wi-Fi is gone or the table is restarted. The publisher sends each event
after the last one the hub acknowledged (QoS 1, with its sequence number and the one before it),
at most `window` ahead of the acknowledgement; the acknowledgement is kept in the log's database
(`club_acks`) and is also retained by the broker. When no acknowledgement comes for
`resend_after` seconds, or the connection was lost, or the hub asks (`resend`), it goes back to
the last acknowledgement and sends from there again (go-back-N): the hub ignores what it has.
Without a `[club] broker` this component is not built and the table works as on its own.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import msgspec
import paho.mqtt.client as mqtt

from companion.club import protocol as p
from companion.club.mqtt import make_client, reason_text
from companion.config import ClubSettings, parse_broker
from companion.hub import Hub
from companion.storage import EventStore
from companion.worker import Worker

log = logging.getLogger(__name__)


class ClubPublisher(Worker):
    """Component "club": sends the log to the hub; `hub.status["club"]` says how far it got."""

    name = "club"
    thread_name = "club-publisher"
    #: how often the thread looks at the clock when nothing wakes it (the resend timer)
    tick = 0.25

    def __init__(self, store: EventStore, hub: Hub, settings: ClubSettings) -> None:
        super().__init__()
        self.store, self.hub, self.settings = store, hub, settings
        self.table_id = settings.table_id
        self.host, self.port, _ = parse_broker(settings.broker)
        #: the acknowledgement's key in the log: another club or another table name starts afresh
        self.club_key = f"{settings.broker} {settings.table_id}"
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._acked = self._saved = store.club_acked(self.club_key)
        self._sent = self._acked  # the highest seq sent; the next send is the first event after it
        self._progress_at = time.monotonic()
        self._resend_wait = settings.resend_after
        self._connected = False
        self._error: str | None = None
        self._hub_ahead = False
        self.resends = 0
        self.published = 0
        self._last_status: dict[str, Any] | None = None
        self._client: mqtt.Client | None = None
        self._unsubscribe = None

    # --- component ---------------------------------------------------------------------------------
    def start(self) -> None:
        s = self.settings
        client = make_client(f"companion-table-{self.table_id}", username=s.username, password=s.password,
                             tls=s.use_tls, ca_file=s.ca_file)
        client.max_inflight_messages_set(s.window)
        client.max_queued_messages_set(0)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.will_set(p.status_topic(self.table_id), p.encode(p.TableStatus(online=False)), qos=1, retain=True)
        self._client = client
        self._unsubscribe = self.hub.subscribe(lambda _m: self._wake.set(), {"state"})
        client.connect_async(self.host, self.port, keepalive=15)
        client.loop_start()
        super().start()
        self._report()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._join()
        if self._unsubscribe:
            self._unsubscribe()
        client = self._client
        if client is not None:
            if self._connected:  # a clean goodbye: the hub shows the table offline at once
                info = client.publish(p.status_topic(self.table_id), p.encode(p.TableStatus(
                    online=False, last_seq=self.store.last_id(), acked=self._acked)), qos=1, retain=True)
                try:
                    info.wait_for_publish(timeout=2)
                except (RuntimeError, ValueError):
                    pass
            client.disconnect()
            client.loop_stop()
        self._save_ack()

    # --- what the hub and the phones see ------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        with self._lock:
            acked, sent, connected, error = self._acked, self._sent, self._connected, self._error
        last = self.store.last_id()
        status = {"connected": connected, "ok": connected and not self._hub_ahead, "kind": "mqtt",
                  "broker": self.settings.broker, "table_id": self.table_id, "last_seq": last, "acked": acked,
                  "sent": sent, "pending": max(0, last - acked), "resends": self.resends}
        if self._hub_ahead:
            status["error"] = (f"the hub holds events of table {self.table_id} up to {acked}, more than this "
                               f"log ({last}): is another table using this table id, or is this a new log?")
        elif error:
            status["error"] = error
        return status

    def _report(self) -> None:
        status = self.status()
        if status != self._last_status:
            self._last_status = status
            self.hub.set_status("club", status)

    # --- paho's callbacks (its network thread) -----------------------------------------------------
    def _on_connect(self, client, _userdata, _flags, reason_code, _properties) -> None:
        if reason_code.is_failure:
            with self._lock:
                self._error = f"the broker refused the table: {reason_text(reason_code)}"
            log.warning("club broker %s: %s", self.settings.broker, self._error)
            self._wake.set()
            return
        client.subscribe(p.ack_topic(self.table_id), qos=1)
        client.publish(p.status_topic(self.table_id), p.encode(p.TableStatus(online=True)), qos=1, retain=True)
        with self._lock:
            self._connected, self._error = True, None
            # what was in flight may be lost with the old connection: from the last ack again
            self._sent, self._progress_at = self._acked, time.monotonic()
        log.info("club: connected to %s as table %s", self.settings.broker, self.table_id)
        self._wake.set()

    def _on_disconnect(self, _client, _userdata, _flags, reason_code, _properties) -> None:
        with self._lock:
            was = self._connected
            self._connected = False
            if was and (reason_code.is_failure or reason_code.value != 0):  # (a refusal says so itself)
                self._error = f"connection to {self.settings.broker} lost: {reason_text(reason_code)}"
        if was and not self._stop.is_set():
            log.warning("club: disconnected from %s (%s); sending again from event %s once back",
                        self.settings.broker, reason_text(reason_code), self._acked)
        self._wake.set()

    def _on_message(self, _client, _userdata, msg) -> None:
        try:
            ack = p.decode_ack(msg.payload)
        except (msgspec.DecodeError, msgspec.ValidationError) as e:
            log.warning("club: an acknowledgement that cannot be read (%s): %r", e, msg.payload[:200])
            return
        with self._lock:
            # the hub's word is what it has stored: lower than before only when the hub lost its data
            # (or is a new one); then everything after it goes again
            lost = ack.acked < self._acked
            if ack.acked > self._acked:
                self._resend_wait = self.settings.resend_after  # the hub is taking events again
            self._progress_at = time.monotonic()
            self._acked = ack.acked
            if ack.resend or lost or self._sent < self._acked:
                self._sent = self._acked
        self._wake.set()

    # --- the thread ----------------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.tick)
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                self._step()
            except Exception as e:  # the game goes on; the link says what is wrong and tries again
                log.exception("club publisher")
                with self._lock:
                    self._error = f"{type(e).__name__}: {e}"
                self._stop.wait(1.0)
            self._report()

    def _save_ack(self) -> None:
        acked = self._acked
        if acked != self._saved:
            self.store.set_club_acked(self.club_key, acked)
            self._saved = acked

    def _step(self) -> None:
        self._save_ack()
        last = self.store.last_id()
        self._hub_ahead = self._acked > last
        with self._lock:
            if not self._connected:
                return
            now = time.monotonic()
            if self._sent > self._acked and now - self._progress_at > self._resend_wait:
                self._sent, self._progress_at = self._acked, now  # no word from the hub: again from its ack
                self.resends += 1
                # a hub away for long would find the broker's queue full of the same window sent
                # every few seconds: each silent resend waits twice as long, up to two minutes
                self._resend_wait = min(self._resend_wait * 2, max(120.0, self.settings.resend_after))
            if self._sent <= self._acked:
                self._sent = self._acked
                self._progress_at = now  # the resend timer runs from the first send after an ack
            start, room = self._sent, self.settings.window - (self._sent - self._acked)
        if room <= 0 or start >= last:
            return
        prev = start
        for id_, game, at, payload in self.store.raw_events(after=start, limit=room):
            msg = p.EventMessage(table=self.table_id, seq=id_, prev=prev, game=game, at=at,
                                 event=msgspec.Raw(payload.encode()), sent=time.time())
            info = self._client.publish(p.events_topic(self.table_id), p.encode(msg), qos=1)
            if info.rc != mqtt.MQTT_ERR_SUCCESS:
                break  # the connection went; on_connect starts again from the ack
            prev = id_
            self.published += 1
        with self._lock:
            if self._sent == start:  # no rewind meanwhile (an ack asking to resend, a reconnect)
                self._sent = prev


def build(services) -> None:
    """Adds component "club" when `[club] broker` is set; otherwise nothing at all."""
    cfg = services.settings.club
    if cfg.enabled:
        services.add(ClubPublisher(services.store, services.hub, cfg))

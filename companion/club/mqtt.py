"""One way to make the paho-mqtt clients of the club (tables and hub): login, TLS, reconnection."""

from __future__ import annotations

import ssl

import paho.mqtt.client as mqtt

#: paho's automatic reconnection: first try after this many seconds, doubling up to the second
RECONNECT_DELAY = (0.2, 5)


def make_client(client_id: str, *, username: str = "", password: str = "", tls: bool = False, ca_file: str = "",
                clean_session: bool = True) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean_session,
                         protocol=mqtt.MQTTv311)
    if username:
        client.username_pw_set(username, password or None)
    if tls:
        client.tls_set(ca_certs=ca_file or None, cert_reqs=ssl.CERT_REQUIRED)
    client.reconnect_delay_set(*RECONNECT_DELAY)
    return client


def reason_text(reason_code) -> str:
    """paho's reason code in words ("Not authorized", "Unspecified error" …)."""
    return str(getattr(reason_code, "getName", lambda: reason_code)())

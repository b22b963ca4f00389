"""The hall's MQTT connection: paho-mqtt on its own network thread.

It reads every table's topics and publishes one: <prefix>/<table>/setup, the tournament's
next match for that table (organiser.py), retained and QoS 1.

Subscribes to <prefix>/+/state, /status and /report (QoS 1) at every connect, and
reconnects by itself, waiting 1, 2, 4, then 5 s between attempts, for as long as it
takes (also when the broker is not there at the start).  The session is persistent
(clean_session false, a stable client id), so reports published while the hall was away
from a running broker are kept for it by the broker and delivered when it comes back.

A message is acknowledged to the broker only when the caller says it is done with it (paho's
manual acknowledgement): a report is acknowledged after the tournament's database has it, so a
hall killed in between gets it again from the broker when it comes back.

Messages and link changes are handed to the caller's functions on paho's thread;
the server passes them to its event loop.
"""

import secrets
import threading

import paho.mqtt.client as paho

from .topics import BY_KIND, FROM_BOARDS, pattern

SETUP = BY_KIND["setup"]  # the hall's one publish

KEEPALIVE_S = 15
RECONNECT_MIN_S = 1
RECONNECT_MAX_S = 5
DEFAULT_PORT = 1883


def parse_broker(text):
    """'host', 'host:1884', '[::1]:1883' -> (host, port)."""
    text = text.strip()
    bad = False
    if text.startswith("["):
        host, closed, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
        bad = not closed or (rest and not rest.startswith(":")) or ":" not in host  # '[::1', '[::1]x', '[a]'
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
        bad = not port  # 'host:'
    else:
        host, port = text, ""
    bad = bad or any(c.isspace() or c in "/[]@" for c in host) or len(host) > 253
    if bad or not host or (port and (not port.isdigit() or not 0 < int(port) < 65536)):
        raise ValueError("--broker wants HOST[:PORT], e.g. 192.168.1.10 or broker.local:1883, not %r" % text)
    return host, int(port) if port else DEFAULT_PORT


CHECK_TIMEOUT_S = 5


def _client(client_id, clean):
    """A paho client as the hall's are: MQTT 3.1.1, acknowledging only when told (manual_ack)."""
    return paho.Client(
        paho.CallbackAPIVersion.VERSION2,
        client_id=client_id,
        clean_session=clean,
        protocol=paho.MQTTv311,
        manual_ack=True,
    )


def _probe(host, port, user, password, client_id, clean, timeout):
    """One connection with this login: CONNACK's session-present flag (None: no answer, or refused).
    It subscribes to nothing and acknowledges nothing: what a kept session holds stays queued."""
    answer = []
    done = threading.Event()

    def connected(client, userdata, flags, reason, properties):
        answer.append(None if reason.is_failure else bool(flags.session_present))
        done.set()

    c = _client(client_id, clean)
    c.username_pw_set(user, password or None)
    c.on_connect = connected
    c.on_connect_fail = lambda *a: done.set()
    try:
        c.connect_async(host, port, KEEPALIVE_S)
        c.loop_start()
        done.wait(timeout)
        if answer:
            c.disconnect()
    finally:
        c.loop_stop()
    return answer[0] if answer else None


def login_is_client_id(host, port, user, password, client_id, timeout=CHECK_TIMEOUT_S):
    """Whether the broker makes every login its own client id (mosquitto's
    use_username_as_clientid): True, False, or None when it could not be told (no answer).

    Before the hall connects: its own client id first (so its persistent session exists), then a
    client id never used before, both keeping their sessions: the second finds a session only if
    the broker replaced its id with the login's. A session made by the second (the setting off) is
    removed at once. Nothing is acknowledged: reports queued for the hall stay queued for it."""
    if _probe(host, port, user, password, client_id, False, timeout) is None:
        return None
    other = "carom-check-" + secrets.token_hex(8)
    present = _probe(host, port, user, password, other, False, timeout)
    if present is False:
        _probe(host, port, user, password, other, True, timeout)  # its new session, gone again
    return present


class Subscriber:
    """Receives every table's topics; calls on_message(topic, payload, retained, ack) and
    on_link(connected, detail). `ack()` acknowledges the message to the broker: call it, from any
    thread, once the message is handled (in the order they came: MQTT's for QoS 1)."""

    def __init__(self, host, port, prefix, client_id, on_message, on_link, user=None, password=None):
        self.host = host
        self.port = port
        self.prefix = prefix.rstrip("/")
        self.on_message = on_message
        self.on_link = on_link
        self.connects = 0
        self.user, self.password, self.client_id = user, password, client_id
        self._stopped = False
        c = _client(client_id, False)
        c.reconnect_delay_set(RECONNECT_MIN_S, RECONNECT_MAX_S)
        if user:
            c.username_pw_set(user, password or None)  # the password is never printed
        c.on_connect = self._connected
        c.on_connect_fail = self._failed
        c.on_disconnect = self._disconnected
        c.on_message = self._message
        self.client = c

    def topics(self):
        return [(pattern(self.prefix, kind), 1) for kind in FROM_BOARDS]

    def start(self, check=None):
        """Connect (paho's thread reconnects by itself); with `check` and a login, first ask whether
        each login is its own client id, on a thread of its own: check(True/False/None)."""
        if check is None or not self.user:
            self._connect()
            return

        def first():
            try:
                check(login_is_client_id(self.host, self.port, self.user, self.password, self.client_id))
            finally:
                if not self._stopped:
                    self._connect()

        threading.Thread(target=first, name="carom-hall-check", daemon=True).start()

    def _connect(self):
        self.client.connect_async(self.host, self.port, KEEPALIVE_S)
        self.client.loop_start()

    def publish(self, topic, payload, qos=SETUP.qos, retain=SETUP.retained):
        """A publish from any thread (paho's client is thread-safe): the hall's setups, retained, QoS 1.
        While the broker is away paho keeps a QoS 1 message and sends it after the reconnect."""
        return self.client.publish(topic, payload, qos=qos, retain=retain)

    def stop(self):
        self._stopped = True
        try:
            self.client.disconnect()
        finally:
            self.client.loop_stop()

    # ---- paho's callbacks (its network thread) ------------------------------------------------

    def _connected(self, client, userdata, flags, reason, properties):
        if reason.is_failure:
            self.on_link(False, "the broker refused the connection: %s" % reason)
            return
        client.subscribe(self.topics())
        self.connects += 1
        self.on_link(True, "session kept" if flags.session_present else "new session")

    def _failed(self, client, userdata):
        self.on_link(False, "cannot reach the broker at %s:%d" % (self.host, self.port))

    def _disconnected(self, client, userdata, flags, reason, properties):
        self.on_link(False, "connection lost" if reason.is_failure else "disconnected")

    def _message(self, client, userdata, msg):
        mid, qos = msg.mid, msg.qos
        self.on_message(msg.topic, msg.payload, msg.retain, lambda: client.ack(mid, qos))

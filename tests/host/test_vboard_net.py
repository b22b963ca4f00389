"""The virtual board's Wi-Fi and network: network.WLAN against the host's
access point, real sockets to servers in the test (a TCP echo server,
mosquitto), asyncio streams on the virtual clock, the link going down and up.

While the firmware waits on a socket, virtual time does not run ahead of
real time (pacing), so a server's answer arrives after as much virtual time
as it took in real time, whether the test advances the clock by hand or lets
it follow real time (run_realtime).
"""

import contextlib
import os
import socket
import threading
import time

import pytest

from host_tools import FIRMWARE_DIR
from host_tools.simulator.vboard import AccessPoint, VirtualBoard

from helpers import Listener, needs_mosquitto

WIFI = {"ssid": "hall", "password": "secret123", "channel": 6}
MQTT_FILES = [os.path.join(FIRMWARE_DIR, name) for name in ("mqtt.py", "ticks.py")]  # the client and what it imports

# Connects to the access point and prints the status as it goes.
CONNECT = r"""
import network, time
sta = network.WLAN(network.STA_IF)
print("before", sta.status(), sta.isconnected())
try:
    sta.connect("hall", "secret123")
except OSError as e:
    print("inactive:", e)
sta.active(True)
sta.connect(%r, %r)
last = None
for i in range(60):
    s = (sta.status(), sta.isconnected())
    if s != last:
        print("at", time.ticks_ms(), s[0], s[1])
        last = s
    time.sleep_ms(100)
print("ifconfig", sta.ifconfig(), sta.config("channel"))
"""


class EchoServer:
    """A TCP server on 127.0.0.1 that answers each chunk upper-cased after `delay` s."""

    def __init__(self, delay=0.0):
        self.delay = delay
        self.received = []
        self.held = []  # real seconds each answer was held (at least delay)
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(5)
        self.port = self.sock.getsockname()[1]
        self.clients = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.clients.append(c)
            threading.Thread(target=self._echo, args=(c,), daemon=True).start()

    def _echo(self, c):
        while True:
            try:
                data = c.recv(1000)
            except OSError:
                return
            if not data:
                c.close()
                return
            self.received.append(data)
            t0 = time.monotonic()
            if self.delay:
                time.sleep(self.delay)  # the server is slow (real time, as a real server's)
            self.held.append(time.monotonic() - t0)
            try:
                c.sendall(data.upper())
            except OSError:
                return

    def close(self):
        self.sock.close()
        for c in self.clients:
            c.close()


@pytest.fixture
def echo():
    server = EchoServer()
    yield server
    server.close()


def board(tmp_path, program, wifi=WIFI, **kw):
    b = VirtualBoard(tmp_path / "flash", main="app.py", wifi=wifi, **kw)
    b.write_file("app.py", program)
    return b


def test_connect_goes_through_the_esp32_statuses(tmp_path):
    b = board(tmp_path, CONNECT % ("hall", "secret123"))
    try:
        b.power_on()
        b.advance(7)
        assert b.lines() == [
            "before 1000 False",  # STAT_IDLE
            "inactive: Wifi Not Started",
            "at 0 1001 False",  # STAT_CONNECTING
            "at 1500 1010 True",  # STAT_GOT_IP after the access point's connect_s
            "ifconfig ('192.168.1.101', '255.255.255.0', '192.168.1.1', '192.168.1.1') 6",
        ]
        assert b.wifi_connected and b.ip == "192.168.1.101"
        assert b.radio_state["channel"] == 6  # the radio follows the access point
    finally:
        b.close()


def test_wrong_password_and_unknown_ssid(tmp_path):
    program = CONNECT.replace("sta.connect(%r, %r)", "sta.config(reconnects=%d)\nsta.connect(%r, %r)")
    for args, statuses in (
        ((0, "hall", "wrong-pass"), ["1001", "202"]),  # one try: STAT_WRONG_PASSWORD
        ((0, "other", "secret123"), ["1001", "201"]),  # STAT_NO_AP_FOUND
        ((-1, "hall", "wrong-pass"), ["1001"]),
    ):  # tries for ever: "connecting"
        b = board(tmp_path / str(args), program % args)
        try:
            b.power_on()
            b.advance(7)
            assert [line.split()[2] for line in b.lines() if line.startswith("at ")] == statuses
            assert not b.wifi_connected
        finally:
            b.close()


def test_access_point_down_and_up(tmp_path):
    ap = AccessPoint("hall", "secret123", connect_s=1.0)
    b = board(tmp_path, CONNECT.replace("range(60)", "range(200)") % ("hall", "secret123"), wifi=ap)
    try:
        b.power_on()
        b.advance(2)
        assert b.wifi_connected
        ap.down()  # every board on it: the link goes at once
        assert not b.wifi_connected
        b.advance(5)
        ap.up()  # the next attempt (every 2 s while none is found) gets in
        b.advance(5)
        assert [line for line in b.lines() if line.startswith("at ")] == [
            "at 0 1001 False",
            "at 1000 1010 True",
            "at 2100 1001 False",  # connecting again (BEACON_TIMEOUT, then NO_AP_FOUND tries)
            "at 9000 1010 True",  # up at 7 s; the attempt started at 8 s connects at 9 s
        ]
        b.wifi_down()
        b.advance(0.1)
        assert not b.wifi_connected
    finally:
        b.close()


# A program's first lines: attempt(what, f) prints what f() gives, or the OSError it raises (its
# number, and whether it is EHOSTUNREACH).
ATTEMPT = r"""
import network, socket, errno
def attempt(what, f):
    try:
        print(what, f())
    except OSError as e:
        print(what, "OSError", e.args[0], e.args[0] == errno.EHOSTUNREACH)
"""


def test_no_network_no_sockets(tmp_path, echo):
    b = board(
        tmp_path,
        ATTEMPT
        + r"""
addr = socket.getaddrinfo("127.0.0.1", %d)[0][-1]
attempt("connect", lambda: socket.socket().connect(addr))
attempt("name", lambda: socket.getaddrinfo("broker.local", 1883))
"""
        % echo.port,
        wifi=None,
    )
    try:
        b.power_on()
        assert b.lines() == ["connect OSError 113 True", "name OSError -202 False"]
        assert echo.received == [] and b.open_sockets == 1  # never closed (a name lookup makes none)
    finally:
        b.close()


# A program's first lines: it joins the access point "hall" (each test's board has it in reach).
JOIN = r"""
import network
sta = network.WLAN(network.STA_IF)
sta.active(True)
sta.connect("hall", "secret123")
"""


ASYNC_ECHO = (
    JOIN
    + r"""
import asyncio, time
async def main():
    while not sta.isconnected():
        await asyncio.sleep_ms(50)
    r, w = await asyncio.open_connection("127.0.0.1", %d)
    for word in (b"hello", b"board"):
        t0 = time.ticks_ms()
        w.write(word)
        await w.drain()
        data = await r.readexactly(5)
        print("echo", data.decode(), time.ticks_diff(time.ticks_ms(), t0))
    await w.wait_closed()
asyncio.run(main())
print("done", time.ticks_ms())
"""
)


@contextlib.contextmanager
def echo_board(tmp_path, echo, delay):
    """A board running ASYNC_ECHO against `echo`, which holds each answer `delay` s; powered on."""
    echo.delay = delay
    b = board(tmp_path, ASYNC_ECHO % echo.port)
    try:
        b.power_on()
        yield b
    finally:
        b.close()


def echo_ms(lines):
    """The two echo lines' virtual round trips, ms."""
    assert [line.split()[:2] for line in lines[:2]] == [["echo", "HELLO"], ["echo", "BOARD"]], lines
    return [int(line.split()[2]) for line in lines[:2]]


@pytest.mark.alone  # the virtual clock held to real time within ms: other tests beside it starve it
def test_asyncio_streams_echo_in_real_time(tmp_path, echo):
    with echo_board(tmp_path, echo, 0.2) as b:
        v0, r0 = b.now, time.monotonic()
        b.run_realtime()
        b.wait_for(lambda b: "done" in b.stdout, timeout=15)
        b.stop_realtime()
        real = time.monotonic() - r0
        lines = b.lines()
        # Each answer took at least as much virtual time as the server held it in real time
        # (virtual time followed real time while the board waited), to a 10 ms tick.
        for ms, held in zip(echo_ms(lines), echo.held):
            assert ms >= held * 1000 - 10, (lines, echo.held)
        done = int(lines[2].split()[1])
        assert done >= 1500 + sum(echo_ms(lines)), lines  # connect_s 1.5 + two echoes, in virtual time
        assert b.now - v0 <= real  # and it never ran ahead of real time
        assert echo.received == [b"hello", b"board"] and b.open_sockets == 0


@pytest.mark.alone  # the virtual clock held to real time within ms: other tests beside it starve it
def test_waiting_on_a_socket_keeps_manual_time_in_step(tmp_path, echo):
    with echo_board(tmp_path, echo, 0.3) as b:
        r0 = time.monotonic()
        b.advance(1.6)  # connected at 1.5 s, sent the first word; the server takes 0.3 s real
        assert b.waiting_on_network
        step = b.advance(3)
        real = time.monotonic() - r0
        assert step.real_s >= 0.45  # the rest of the first answer and the second were awaited in real time
        lines = b.lines()
        ms = echo_ms(lines)
        for one, held in zip(ms, echo.held):
            assert one >= held * 1000 - 10, (lines, echo.held)  # not answered in less virtual time than real
        assert sum(ms) <= real * 1000, (lines, real)  # nor in more: the waits were paced by real time
        assert not b.waiting_on_network


# The start of a program that joins the access point, then uses sockets.
JOINED = (
    JOIN
    + r"""
import socket, time
while not sta.isconnected():
    time.sleep_ms(100)
"""
)


def test_blocking_socket_with_a_timeout(tmp_path):
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)  # accepts (the kernel does), never answers
    b = board(
        tmp_path,
        JOINED
        + r"""
import errno
s = socket.socket()
s.settimeout(0.5)
s.connect(socket.getaddrinfo("127.0.0.1", %d)[0][-1])
t0 = time.ticks_ms()
try:
    s.recv(10)
except OSError as e:
    print("timeout", e.args[0] == errno.ETIMEDOUT, time.ticks_diff(time.ticks_ms(), t0))
s.close()
"""
        % silent.getsockname()[1],
    )
    try:
        b.power_on()
        b.advance(4)
        assert b.lines() == ["timeout True 500"]
    finally:
        b.close()
        silent.close()


def test_a_lost_link_holds_what_is_written_until_it_is_back(tmp_path, echo):
    b = board(
        tmp_path,
        JOINED
        + r"""
s = socket.socket()
s.connect(socket.getaddrinfo("127.0.0.1", %d)[0][-1])
s.settimeout(30)
for word in (b"one", b"two"):
    s.write(word)
    print(word, s.read(3), sta.isconnected(), time.ticks_ms())
    time.sleep(2)
"""
        % echo.port,
    )
    try:
        b.power_on()
        b.advance(1.6)
        b.wifi_down()  # after the first exchange
        b.advance(3)  # "two" is written into the dead link: held
        assert echo.received == [b"one"]
        b.wifi_up()
        b.advance(4)  # connected again (the next try, then 1.5 s): "two" goes out, its answer comes
        lines = b.lines()
        assert lines[0].startswith("b'one' b'ONE' True")
        assert lines[1].startswith("b'two' b'TWO' True")
        assert int(lines[1].split()[-1]) >= 5000
        assert echo.received == [b"one", b"two"]
    finally:
        b.close()


# ---- the firmware's MQTT client against mosquitto


MQTT_APP = (
    JOIN
    + r"""
import asyncio, time
import mqtt
c = mqtt.Client("vb1", "127.0.0.1", %d, keepalive=2,
                will=("carom/vb1/status", b"offline", True, 1), birth=("carom/vb1/status", b"online", True, 1))
acked = []
async def main():
    asyncio.create_task(c.run())
    c.state("carom/vb1/state", b"s1")
    c.publish("carom/vb1/report", b"r1", qos=1, on_ack=acked.append)
    n = 0
    while True:
        await asyncio.sleep_ms(1000)
        n += 1
        c.state("carom/vb1/state", b"s%%d" %% (n + 1))
        print("tick", time.ticks_ms(), c.connected, c.connects, acked)
asyncio.run(main())
"""
)


@pytest.fixture
def mqtt(broker):
    """(mosquitto, a Listener subscribed to carom/#)."""
    listener = Listener(broker.port).wait_subscribed()
    yield broker, listener
    listener.close()


@needs_mosquitto
def test_mqtt_client_publishes_to_mosquitto_and_its_will_comes_when_the_wifi_goes(tmp_path, mqtt):
    m, listener = mqtt
    b = board(tmp_path, MQTT_APP % m.port)
    b.deploy(MQTT_FILES)
    try:
        b.power_on()
        b.run_realtime()
        b.wait_for(lambda b: "['carom/vb1/report']" in b.stdout, timeout=15)
        assert listener.wait(lambda: b"r1" in listener.payloads("carom/vb1/report"))
        assert listener.payloads("carom/vb1/status") == [b"online"]
        assert listener.payloads("carom/vb1/report") == [b"r1"]
        states = listener.payloads("carom/vb1/state")  # the newest when it got through: s1 was replaced
        assert states and all(p.startswith(b"s") for p in states)
        # The access point goes: nothing reaches the broker any more (no FIN, no RST); the
        # connection ends only when the client's next writes fail (keepalive 2 s) and the broker
        # then publishes the will, seconds later, not at once.  The will's arrival is timed where
        # it happens (paho's thread), as a lower bound: a slower machine only makes it later.
        down_at = time.monotonic()
        b.wifi_down()
        assert listener.wait(lambda: listener.payloads("carom/vb1/status")[-1:] == [b"offline"])
        assert listener.payloads("carom/vb1/status") == [b"online", b"offline"]
        assert listener.arrival("carom/vb1/status", b"offline") - down_at >= 2.5
        # Back: the client finds its connection dead and connects again.
        b.wifi_up()
        assert listener.wait(lambda: listener.payloads("carom/vb1/status")[-1:] == [b"online"])
        assert listener.payloads("carom/vb1/status") == [b"online", b"offline", b"online"]
        b.wait_for(lambda b: " True 2 [" in b.stdout, timeout=5)  # the client: connected, twice
        b.stop_realtime()
    finally:
        b.close()


# ---- what the emulation showed about firmware/mqtt.py


def test_mqtt_client_closes_the_sockets_of_failed_connections(tmp_path):
    """StreamWriter.close() is a no-op in MicroPython's asyncio (wait_closed() closes
    the socket): the client closes the socket itself, or every failed attempt would
    leave one open (on an ESP32 until the garbage collector finalises it)."""
    nobody = socket.socket()
    nobody.bind(("127.0.0.1", 0))
    port = nobody.getsockname()[1]
    nobody.close()  # connections to it are refused
    b = board(
        tmp_path,
        JOIN
        + r"""
import asyncio
import mqtt
c = mqtt.Client("vb1", "127.0.0.1", %d)
async def main():
    while not sta.isconnected():
        await asyncio.sleep_ms(100)
    await c.run()
asyncio.run(main())
"""
        % port,
    )
    b.deploy(MQTT_FILES)
    try:
        b.power_on()
        b.advance(10)  # attempts at 1.5, 2.5, 4.5, 8.5 s (backoff 1, 2, 4 s): all refused
        assert b.lines() == ["mqtt: [Errno 111] ECONNREFUSED"] * 4
        assert b.open_sockets == 0
    finally:
        b.close()


@needs_mosquitto
def test_after_a_wifi_outage_the_broker_has_the_newest_state(tmp_path, mqtt):
    m, listener = mqtt
    b = board(
        tmp_path,
        JOIN
        + r"""
import asyncio, time
import mqtt
c = mqtt.Client("vb1", "127.0.0.1", %d, keepalive=1, will=("carom/vb1/status", b"offline", True, 1),
                birth=("carom/vb1/status", b"online", True, 1))
async def main():
    asyncio.create_task(c.run())
    c.state("carom/vb1/state", b"before")
    while not c.connected:
        await asyncio.sleep_ms(100)
    while sta.isconnected():
        await asyncio.sleep_ms(100)
    c.state("carom/vb1/state", b"during")  # the match goes on while the Wi-Fi is away
    while True:
        await asyncio.sleep_ms(500)
        print("tick", c.connected, c.connects)
asyncio.run(main())
"""
        % m.port,
    )
    b.deploy(MQTT_FILES)
    try:
        b.power_on()
        b.run_realtime()
        b.wait_for(lambda b: listener.payloads("carom/vb1/state") == [b"before"], timeout=10)
        b.wifi_down()
        b.wait_for(lambda b: listener.payloads("carom/vb1/status")[-1:] == [b"offline"], timeout=15)
        b.wifi_up()
        b.wait_for(lambda b: "tick True 2" in b.stdout, timeout=15)
        assert listener.wait(lambda: listener.payloads("carom/vb1/state")[-1:] == [b"during"])
        b.stop_realtime()
        assert listener.payloads("carom/vb1/state")[-1] == b"during"
    finally:
        b.close()


def test_an_address_the_access_point_routes_reaches_the_server_on_this_machine(tmp_path, echo):
    """AccessPoint(routes=...): what the board's config calls 192.168.1.10:1883 (or broker.local:1883)
    is the server on this machine (`carom sim --hall`); other addresses are reached as they are."""
    ap = AccessPoint(
        "hall",
        "secret123",
        connect_s=0.5,
        routes={("192.168.1.10", 1883): ("127.0.0.1", echo.port), ("broker.local", 1883): ("127.0.0.1", echo.port)},
    )
    b = board(
        tmp_path,
        ATTEMPT
        + r"""
attempt("offline", lambda: socket.socket().connect(socket.getaddrinfo("192.168.1.10", 1883)[0][-1]))
"""
        + JOIN
        + r"""
while not sta.isconnected():
    import time
    time.sleep_ms(50)
for host in ("192.168.1.10", "broker.local"):
    s = socket.socket()
    s.settimeout(5)
    s.connect(socket.getaddrinfo(host, 1883)[0][-1])
    s.write(host.encode())
    got = b""
    while len(got) < len(host):
        got += s.recv(100)
    print(host, got.decode())
    s.close()
attempt("unrouted port", lambda: socket.getaddrinfo("192.168.1.10", 1884)[0][-1] and "looked up as it is")
""",
        wifi=ap,
    )
    try:
        b.power_on()
        b.run_realtime()
        b.wait_for(lambda b: "unrouted port" in b.stdout, timeout=20)
        b.stop_realtime()
        assert b.lines() == [
            "offline OSError 113 True",  # EHOSTUNREACH
            "192.168.1.10 192.168.1.10",  # the echo upper-cases
            "broker.local BROKER.LOCAL",
            "unrouted port looked up as it is",
        ], b.lines()
        assert echo.received == [b"192.168.1.10", b"broker.local"]
    finally:
        b.close()


def test_a_route_is_checked():
    with pytest.raises(ValueError, match="a route is"):
        AccessPoint("hall", routes={("192.168.1.10", 0): ("127.0.0.1", 1883)})
    with pytest.raises(ValueError, match="a route is"):
        AccessPoint("hall", routes={("192.168.1.10", 1883): ("", 1883)})

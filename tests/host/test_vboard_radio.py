"""The virtual board's ESP-NOW radio, its hub, and deep sleep woken by a pin.

Small MicroPython programs (written into each board's flash) run on the
unix port with the emulated `network`, `espnow`, `esp32` and `machine`; the
host's RadioHub carries their frames: delivered with a delay, lost on a
pattern or at random, duplicated, replayed, forged. Everything is on virtual
time (hub.advance), so a 60 s receive timeout takes milliseconds.
"""

import time

import pytest

from host_tools.simulator.vboard import (
    DEEPSLEEP_RESET,
    EXT0_WAKE,
    EXT1_WAKE,
    PWRON_RESET,
    TIMER_WAKE,
    RadioHub,
    VirtualBoard,
)

# Prints every frame it gets: "got <src hex> <msg> <ticks_ms>".
LISTENER = r"""
import network, espnow, time
sta = network.WLAN(network.STA_IF)
sta.active(True)
e = espnow.ESPNow()
e.active(True)
print("ready", sta.config("mac").hex())
while True:
    mac, msg = e.irecv(60000)
    if msg is None:
        print("timeout", time.ticks_ms())
    else:
        print("got", mac.hex(), bytes(msg).decode(), time.ticks_ms())
"""

# Sends the lines of /send.txt ("<delay_ms> <peer hex> <message>"), each with sync=True.
SENDER = r"""
import network, espnow, time
sta = network.WLAN(network.STA_IF)
sta.active(True)
e = espnow.ESPNow()
e.active(True)
peers = []
for line in open("send.txt"):
    delay, peer, msg = line.split()
    peer = bytes.fromhex(peer)
    if peer not in peers:
        e.add_peer(peer)
        peers.append(peer)
    time.sleep_ms(int(delay))
    print("sent", msg, e.send(peer, msg.encode(), True), time.ticks_ms())
print("stats", e.stats())
"""


def got(board):
    """[(src hex, message, ticks_ms)] the listener printed."""
    out = []
    for line in board.lines():
        if line.startswith("got "):
            _, src, msg, t = line.split()
            out.append((src, msg, int(t)))
    return out


def sent(board):
    return [(w[1], w[2] == "True") for w in (line.split() for line in board.lines()) if w and w[0] == "sent"]


@pytest.fixture
def hub():
    return RadioHub(seed=7)


@pytest.fixture
def pair(tmp_path, hub):
    """A sender and a listener on the hub (not yet powered)."""
    tx = VirtualBoard(tmp_path / "tx", main="app.py", radio=hub, name="tx")
    rx = VirtualBoard(tmp_path / "rx", main="app.py", radio=hub, name="rx")
    tx.write_file("app.py", SENDER)
    rx.write_file("app.py", LISTENER)
    yield tx, rx
    tx.close()
    rx.close()


def start(hub, tx, rx, lines):
    tx.write_file("send.txt", "".join("%d %s %s\n" % (d, rx.mac.hex(), m) for d, m in lines))
    rx.power_on()
    tx.power_on()


def test_default_macs_differ_and_follow_the_esp32_rule(tmp_path):
    a = VirtualBoard(tmp_path / "a", main="app.py")
    b = VirtualBoard(tmp_path / "b", main="app.py")
    try:
        assert a.mac == a.unique_id == bytes.fromhex("240ac4000001")  # the first open board's default
        assert b.mac == bytes.fromhex("240ac4000005")  # an ESP32 uses 4 MACs from its base
        assert a.ap_mac == bytes.fromhex("240ac4000002") and a.mac_text == "24:0a:c4:00:00:01"
        a.write_file(
            "app.py",
            "import machine, network\n"
            "print(machine.unique_id().hex(), network.WLAN(network.STA_IF).config('mac').hex(),"
            " network.WLAN(network.AP_IF).config('mac').hex())\n",
        )
        a.power_on()
        assert a.lines() == ["240ac4000001 240ac4000001 240ac4000002"]
        assert a.radio_state["sta_mac"] == a.mac and not a.radio_state["sta"]
    finally:
        a.close()
        b.close()


def test_two_boards_exchange_frames_through_the_hub(pair, hub):
    tx, rx = pair
    start(hub, tx, rx, [(10, "one"), (10, "two"), (10, "three")])
    hub.advance(0.5)
    assert sent(tx) == [("one", True), ("two", True), ("three", True)]
    assert [(src, msg) for src, msg, _ in got(rx)] == [(tx.mac.hex(), m) for m in ("one", "two", "three")]
    assert [t for _, _, t in got(rx)] == [11, 21, 31]  # sent at 10, 20, 30 ms; 1 ms on the air
    assert "stats (3, 3, 0, 0, 0)" in tx.lines()
    frames = hub.frames
    assert [(f.sender, f.src, f.dst, f.data, f.acked, f.heard_by) for f in frames] == [
        ("tx", tx.mac, rx.mac, m, True, ["rx"]) for m in (b"one", b"two", b"three")
    ]
    assert [f.t_ms for f in frames] == [10.0, 20.0, 30.0]
    assert frames[0].deliveries == [("rx", 11.0)] and frames[0].to_dict()["src"] == tx.mac_text
    assert tx.radio_sent[0] == (10.0, rx.mac, b"one", True)


def test_irecv_reuses_its_buffers_and_recv_allocates(tmp_path, hub):
    rx = VirtualBoard(tmp_path / "rx", main="app.py", radio=hub, name="rx")
    try:
        rx.write_file(
            "app.py",
            r"""
import network, espnow
network.WLAN(network.STA_IF).active(True)
e = espnow.ESPNow()
e.active(True)
a = e.irecv(1000)
b = e.irecv(1000)
print(a is b, a[1] is b[1], type(a[1]).__name__, bytes(b[1]), a[0] is b[0], a[0].hex())
c = e.recv(1000)
print(type(c[1]).__name__, c[1], c[1] is not b[1], e.any(), e.irecv(0))
print(e.peers_table)
""",
        )
        rx.power_on()
        for data in (b"first frame", b"2nd", b"third"):
            hub.inject(rx, "24:0a:c4:00:00:99", data)
            hub.advance(0.01)
        assert rx.lines()[:2] == [
            "True True bytearray b'2nd' True 240ac4000099",  # the same list and bytearray; the peer table's key
            "bytes b'third' True False (None, None)",
        ]
        assert rx.lines()[2] == "{b'$\\n\\xc4\\x00\\x00\\x99': [-45, 20]}"
    finally:
        rx.close()


def test_irecv_timeout_waits_on_virtual_time(pair, hub):
    tx, rx = pair
    start(hub, tx, rx, [(90000, "late")])
    t0 = time.monotonic()
    hub.advance(151)
    # 151 virtual seconds of waiting, not real ones: a wait in real time would need 60 s for the
    # first timeout alone (a bound no machine's load comes near: this takes well under a second).
    assert time.monotonic() - t0 < 60
    lines = [line for line in rx.lines() if line.startswith(("timeout", "got"))]
    assert lines == ["timeout 60000", "got %s late 90001" % tx.mac.hex(), "timeout 150001"]


def test_the_250_byte_limit_and_the_ports_errors(tmp_path, hub):
    b = VirtualBoard(tmp_path / "b", main="app.py", radio=hub)
    peer = VirtualBoard(tmp_path / "p", main="app.py", radio=hub)
    try:
        peer.write_file("app.py", LISTENER)
        b.write_file(
            "app.py",
            r"""
import network, espnow
peer = bytes.fromhex(%r)
e = espnow.ESPNow()
def attempt(what, f):
    try:
        print(what, f())
    except (OSError, ValueError) as x:
        print(what, type(x).__name__, x.args)
attempt("before active", lambda: e.send(peer, b"x"))
e.active(True)
attempt("unknown peer", lambda: e.send(peer, b"x"))
e.add_peer(peer)
attempt("again", lambda: e.add_peer(peer))
attempt("no interface", lambda: e.send(peer, b"x"))
network.WLAN(network.STA_IF).active(True)
attempt("250", lambda: e.send(peer, b"y" * 250))
attempt("251", lambda: e.send(peer, b"y" * 251))
attempt("bad mac", lambda: e.add_peer(b"12345"))
attempt("peers", lambda: e.get_peers())
e.del_peer(peer)
attempt("deleted", lambda: e.del_peer(peer))
"""
            % peer.mac.hex(),
        )
        peer.power_on()
        b.power_on()
        hub.advance(0.1)
        assert b.lines() == [
            "before active OSError (-12389, 'ESP_ERR_ESPNOW_NOT_INIT')",
            "unknown peer OSError (-12393, 'ESP_ERR_ESPNOW_NOT_FOUND')",
            "again OSError (-12395, 'ESP_ERR_ESPNOW_EXIST')",
            "no interface OSError (-12396, 'ESP_ERR_ESPNOW_IF')",
            "250 True",
            "251 OSError (-12390, 'ESP_ERR_ESPNOW_ARG')",
            "bad mac ValueError ('invalid buffer length',)",
            "peers ((b'$\\n\\xc4\\x00\\x00\\x05', b'\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00"
            "\\x00\\x00\\x00\\x00', 0, 0, False),)",
            "deleted OSError (-12393, 'ESP_ERR_ESPNOW_NOT_FOUND')",
        ]
        assert [len(f.data) for f in hub.frames] == [250]  # the refused one never went on the air
        assert len(got(peer)) == 1
    finally:
        b.close()
        peer.close()


def test_drop_pattern_loses_those_frames_and_send_says_so(pair, hub):
    tx, rx = pair
    hub.drop = "x.x."  # the 1st and 3rd frames on the air are lost
    start(hub, tx, rx, [(10, "m%d" % i) for i in range(6)])
    hub.advance(0.2)
    assert sent(tx) == [("m0", False), ("m1", True), ("m2", False), ("m3", True), ("m4", True), ("m5", True)]
    assert [m for _, m, _ in got(rx)] == ["m1", "m3", "m4", "m5"]
    assert [f.dropped for f in hub.frames] == [True, False, True, False, False, False]
    assert hub.frames[0].deliveries == [] and not hub.frames[0].acked


def test_drop_probability_is_repeatable_with_a_seed(tmp_path):
    results = []
    for run in range(2):
        hub = RadioHub(seed=3, drop=0.3)
        tx = VirtualBoard(tmp_path / ("tx%d" % run), main="app.py", radio=hub)
        rx = VirtualBoard(tmp_path / ("rx%d" % run), main="app.py", radio=hub)
        try:
            tx.write_file("app.py", SENDER)
            rx.write_file("app.py", LISTENER)
            start(hub, tx, rx, [(5, "m%d" % i) for i in range(60)])
            hub.advance(0.5)
            results.append([m for _, m, _ in got(rx)])
            assert [ok for _, ok in sent(tx)] == [not f.dropped for f in hub.frames]
        finally:
            tx.close()
            rx.close()
    assert results[0] == results[1]
    assert 30 <= len(results[0]) <= 55  # about 70 % of 60


def test_drop_next_and_a_function(pair, hub):
    tx, rx = pair
    hub.drop_next(2, src=tx)
    start(hub, tx, rx, [(10, "a"), (10, "b"), (10, "c"), (10, "d")])
    hub.advance(0.1)
    assert [m for _, m, _ in got(rx)] == ["c", "d"]
    hub.drop = lambda frame: frame.data.startswith(b"x")
    tx.write_file("send.txt", "10 %s xa\n10 %s ok\n" % (rx.mac.hex(), rx.mac.hex()))
    tx.hard_reset()
    hub.advance(0.1)
    assert [m for _, m, _ in got(rx)] == ["c", "d", "ok"]


def test_delay_jitter_and_duplicates(pair, hub):
    tx, rx = pair
    hub.delay_ms = 25
    hub.duplicate = 1.0
    start(hub, tx, rx, [(10, "a"), (100, "b")])
    hub.advance(0.3)
    assert got(rx) == [
        (tx.mac.hex(), "a", 35),
        (tx.mac.hex(), "a", 36),
        (tx.mac.hex(), "b", 135),
        (tx.mac.hex(), "b", 136),
    ]
    assert [f.copies for f in hub.frames] == [2, 2]


def test_jitter_lets_frames_overtake(tmp_path):
    hub = RadioHub(seed=1, delay_ms=1, jitter_ms=40)
    tx = VirtualBoard(tmp_path / "tx", main="app.py", radio=hub)
    rx = VirtualBoard(tmp_path / "rx", main="app.py", radio=hub)
    try:
        tx.write_file("app.py", SENDER)
        rx.write_file("app.py", LISTENER)
        start(hub, tx, rx, [(2, "m%02d" % i) for i in range(20)])
        hub.advance(0.3)
        order = [m for _, m, _ in got(rx)]
        assert sorted(order) == ["m%02d" % i for i in range(20)] and order != sorted(order)
    finally:
        tx.close()
        rx.close()


@pytest.mark.alone  # the virtual clock held to real time within ms: other tests beside it starve it
def test_the_hub_in_real_time(pair, hub):
    tx, rx = pair
    start(hub, tx, rx, [(200, "a"), (200, "b")])
    v0, t0 = hub.now, time.monotonic()
    hub.run_realtime()
    try:
        hub.wait_for(lambda h: len(got(rx)) == 2, timeout=10)
    finally:
        hub.stop_realtime()
    real = time.monotonic() - t0
    assert [m for _, m, _ in got(rx)] == ["a", "b"] and all(ok for _, ok in sent(tx))
    # The sender's two 200 ms waits passed on the virtual clock, which never ran ahead of real time.
    sent_at = [int(line.split()[-1]) for line in tx.lines() if line.startswith("sent ")]
    assert sent_at[0] >= 200 and sent_at[1] - sent_at[0] >= 200
    assert 0.35 <= hub.now - v0 <= real
    assert all(abs(t - f.t_ms) <= 30 for (_, _, t), f in zip(got(rx), hub.frames))  # within a grant or two


def test_replay_and_inject(pair, hub):
    tx, rx = pair
    start(hub, tx, rx, [(10, "hello")])
    hub.advance(0.1)
    replayed = hub.replay(hub.frames[0])
    forged = hub.inject(rx, "de:ad:be:ef:00:01", b"forged")
    hub.advance(0.05)
    assert [(src, m) for src, m, _ in got(rx)] == [
        (tx.mac.hex(), "hello"),
        (tx.mac.hex(), "hello"),
        ("deadbeef0001", "forged"),
    ]
    assert (replayed.kind, replayed.src, replayed.dst) == ("replayed", tx.mac, rx.mac)
    assert (forged.kind, forged.sender, forged.deliveries) == ("injected", None, [("rx", 100.0)])
    # At a given time of the receiver's clock.
    hub.inject("rx", "de:ad:be:ef:00:02", b"later", at=0.5)
    hub.advance(0.5)
    assert got(rx)[-1] == ("deadbeef0002", "later", 500)


def test_channels_must_match_and_broadcasts_reach_everyone(tmp_path, hub):
    boards = [VirtualBoard(tmp_path / n, main="app.py", radio=hub, name=n) for n in ("tx", "rx1", "rx2")]
    tx, rx1, rx2 = boards
    try:
        rx1.write_file("app.py", LISTENER)
        rx2.write_file("app.py", LISTENER.replace("sta.active(True)", "sta.active(True)\nsta.config(channel=6)"))
        tx.write_file(
            "app.py",
            r"""
import network, espnow, time
network.WLAN(network.STA_IF).active(True)
e = espnow.ESPNow()
e.active(True)
for p in (%r, %r, "ffffffffffff"):
    e.add_peer(bytes.fromhex(p))
print(e.send(bytes.fromhex(%r), b"to-rx1", True), e.send(bytes.fromhex(%r), b"to-rx2", True),
      e.send(b"\xff" * 6, b"all", True), network.WLAN(network.STA_IF).config("channel"))
"""
            % (rx1.mac.hex(), rx2.mac.hex(), rx1.mac.hex(), rx2.mac.hex()),
        )
        for b in (rx1, rx2, tx):  # the sender last: it sends as it boots
            b.power_on()
        hub.advance(0.1)
        assert tx.lines() == ["True False True 1"]  # rx2 listens on channel 6
        assert [m for _, m, _ in got(rx1)] == ["to-rx1", "all"]
        assert got(rx2) == []
        assert rx2.radio_state["channel"] == 6
    finally:
        for b in boards:
            b.close()


def test_a_board_off_or_asleep_hears_nothing(pair, hub):
    tx, rx = pair
    start(hub, tx, rx, [(10, "a"), (10, "b"), (100, "c")])
    hub.advance(0.015)
    rx.power_off()
    hub.advance(0.05)
    rx.power_on()
    hub.advance(0.2)
    assert sent(tx) == [("a", True), ("b", False), ("c", True)]
    # "b" came while it was off; "c" at 121 ms, 56 ms after its second power-on (ticks start at 0)
    assert [(m, t) for _, m, t in got(rx)] == [("a", 11), ("c", 56)]
    assert hub.frames[1].heard_by == [] and not hub.frames[1].acked


def test_rx_buffer_full_drops_frames(pair, hub):
    tx, rx = pair
    rx.write_file(
        "app.py",
        r"""
import network, espnow, time
network.WLAN(network.STA_IF).active(True)
e = espnow.ESPNow()
e.config(rxbuf=200)
e.active(True)
time.sleep_ms(500)  # not reading: the buffer fills up
n = 0
while e.any():
    e.irecv(0)
    n += 1
print("read", n, "stats", e.stats())
""",
    )
    start(hub, tx, rx, [(1, "x" * 40) for _ in range(6)])
    hub.advance(1)
    # 53 bytes a frame in a 200-byte ring buffer: 3 fit, 3 dropped (the radio acked all six).
    assert rx.lines() == ["read 3 stats (0, 0, 0, 3, 3)"]
    assert all(ok for _, ok in sent(tx))


def test_aioespnow_async_for(pair, hub):
    tx, rx = pair
    rx.write_file(
        "app.py",
        r"""
import asyncio, network, time
import aioespnow
network.WLAN(network.STA_IF).active(True)
e = aioespnow.AIOESPNow()
e.active(True)
async def main():
    async for mac, msg in e:
        print("got", mac.hex(), bytes(msg).decode(), time.ticks_ms())
        if msg == b"stop":
            break
asyncio.run(main())
print("done")
""",
    )
    start(hub, tx, rx, [(10, "x"), (500, "stop")])
    hub.advance(1)
    assert got(rx) == [(tx.mac.hex(), "x", 11), (tx.mac.hex(), "stop", 511)]
    assert rx.lines()[-1] == "done"


# ---- deep sleep woken by a pin

SLEEPER = r"""
import machine, esp32, time
mem = machine.RTC().memory()
print("boot", machine.reset_cause(), machine.wake_reason(), hex(machine.mem32[0x3FF480D0]), bytes(mem))
machine.RTC().memory(mem + b"+")
pins = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_DOWN) for p in (32, 33)]
pins.append(machine.Pin(34, machine.Pin.IN))  # no internal pulls: the board's resistor
esp32.wake_on_ext1(pins=pins, level=esp32.WAKEUP_ANY_HIGH)
time.sleep_ms(100)
machine.deepsleep(%s)
"""

BUTTONS = {
    "point": {"pin": 32, "active_low": False, "pull": "down"},
    "miss": {"pin": 33, "active_low": False, "pull": "down"},
    "new": {"pin": 34, "active_low": False, "pull": None},
}


def boots(board):
    return [line.split()[1:] for line in board.lines() if line.startswith("boot ")]


@pytest.fixture
def sleeper(tmp_path):
    """A board with the remote's buttons running SLEEPER (deep sleep, woken by them), powered on."""
    b = VirtualBoard(tmp_path / "b", main="app.py", buttons=BUTTONS)
    b.write_file("app.py", SLEEPER % "")
    b.power_on()
    yield b
    b.close()


def test_deep_sleep_woken_by_a_button_with_the_ext1_bits(sleeper):
    b = sleeper
    b.advance(5)
    assert b.asleep and len(b.boots) == 1  # asleep for good: nothing runs
    b.press("point")  # GPIO32 is RTC GPIO 9
    b.advance(0.05)
    b.release("point")
    b.advance(1)
    b.press("new", hold=0.05)  # GPIO34 is RTC GPIO 4
    b.advance(1)
    b.press("miss")  # GPIO33 (RTC GPIO 8) wakes it at once...
    b.press("point")
    b.advance(0.15)  # ...both are still held when it sleeps again at +100 ms: up at once
    b.release("miss")
    b.release("point")
    b.advance(1)
    assert boots(b) == [
        ["1", "0", "0x0", "b''"],
        ["4", "3", "0x200", "b'+'"],  # DEEPSLEEP_RESET, EXT1_WAKE, bit 9; RTC memory kept
        ["4", "3", "0x10", "b'++'"],
        ["4", "3", "0x100", "b'+++'"],
        ["4", "3", "0x300", "b'++++'"],  # both: bits 8 and 9
    ]
    assert [bt.cause for bt in b.boots] == [PWRON_RESET] + [DEEPSLEEP_RESET] * 4
    assert b.wakes == [
        (5000.0, EXT1_WAKE, 0x200),
        (6050.0, EXT1_WAKE, 0x10),
        (7100.0, EXT1_WAKE, 0x100),
        (7200.0, EXT1_WAKE, 0x300),
    ]
    assert b.rtc_memory == b"+++++"


def test_a_button_held_when_going_to_sleep_wakes_it_at_once(sleeper):
    b = sleeper
    b.advance(0.5)
    b.press("point", hold=0.25)  # down from 500 to 750 ms; the board sleeps every 100 ms
    b.advance(1)
    assert [w[0] for w in b.wakes] == [500.0, 600.0, 700.0]
    assert b.asleep


def test_timer_wake_all_low_and_ext0(tmp_path):
    b = VirtualBoard(
        tmp_path / "b",
        main="app.py",
        buttons={"a": {"pin": 4, "active_low": True, "pull": "up"}, "b": {"pin": 13, "active_low": True, "pull": "up"}},
    )
    try:
        b.write_file(
            "app.py",
            r"""
import machine, esp32
n = len(machine.RTC().memory())
machine.RTC().memory(b"x" * (n + 1))
print("boot", machine.reset_cause(), machine.wake_reason(), hex(machine.mem32[0x3FF480D0]))
a = machine.Pin(4, machine.Pin.IN, machine.Pin.PULL_UP)
b = machine.Pin(13, machine.Pin.IN, machine.Pin.PULL_UP)
if n == 0:
    machine.deepsleep(2000)
elif n == 1:
    esp32.wake_on_ext1(pins=(a, b), level=esp32.WAKEUP_ALL_LOW)
    machine.deepsleep()
elif n == 2:
    esp32.wake_on_ext1(None)
    esp32.wake_on_ext0(pin=a, level=0)
    machine.deepsleep()
try:
    esp32.wake_on_ext1(pins=(machine.Pin(5),), level=1)
except ValueError as e:
    print("pin 5:", e)
try:
    machine.mem32[0x3FF48000]
except ValueError as e:
    print(e)
""",
        )
        b.power_on()
        b.advance(3)  # the timer wakes it at 2 s
        b.press("a")
        b.advance(0.5)  # ALL_LOW: one low pin is not enough
        assert len(b.boots) == 2
        b.press("b")  # now both are low: RTC GPIO 10 (GPIO4) and 14 (GPIO13)
        b.advance(0.5)
        b.release("a")
        b.release("b")
        b.advance(0.5)
        b.press("a")  # EXT0 on GPIO4, level 0
        b.advance(0.5)
        assert boots(b) == [["1", "0", "0x0"], ["4", "4", "0x0"], ["4", "3", "0x4400"], ["4", "2", "0x0"]]
        assert [w[1] for w in b.wakes] == [TIMER_WAKE, EXT1_WAKE, EXT0_WAKE]
        assert b.lines()[-2:] == ["pin 5: invalid pin", "vboard: mem32[0x3FF48000] is not emulated"]
    finally:
        b.close()

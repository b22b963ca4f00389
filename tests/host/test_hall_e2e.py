"""The real wall firmware on virtual boards, through a real mosquitto, to `carom hall` and Chromium.

Three wall boards (boards/wall.json) run the built firmware (`host_tools.build.build`: .mpy
files, main.py) on the MicroPython unix port, each with its own flash folder and config.json:
Wi-Fi (an emulated access point), MQTT (mosquitto on a free loopback port, tables t1..t3,
prefix carom), names, a match to 3.  The boards follow real time (`run_realtime()`), their
sockets are real; matches are played by pressing the boards' buttons, and what the boards show
is decoded from the segments their firmware lit.  `carom hall` runs as a subprocess, its page in
Debian's Chromium (test_hall.py's helpers).

Every wait is bounded: on the boards' virtual clocks (which follow real time) or on something
observable (a display, the API, the page), never a bare sleep.
"""

import json
import os
import time

import pytest

from helpers import Listener, needs_mosquitto, wait_for
from host_tools.simulator.scripted_board import ScriptedBoard
from host_tools.simulator.vboard import AccessPoint
from tools.run.mosquitto import PersistentMosquitto
from tools.run.hall import HallProc, Page

WIFI_PASSWORD = "wifi-Secr3t-hall"
MQTT_USER = "carom-board"
MQTT_PASSWORD = "mqtt-Secr3t-pw"
SECRETS = (WIFI_PASSWORD, MQTT_PASSWORD)
NAMES = {"t1": ("ANNA", "BELA"), "t2": ("CSABA", "DORA"), "t3": ("EMIL", "FANNI")}

pytestmark = needs_mosquitto


class WallBoard(ScriptedBoard):
    """A wall board on Wi-Fi publishing to the broker; displays read from its chips."""

    def __init__(self, flash_dir, firmware, table, broker_port, ap, keepalive_s=30):
        self.table = table
        a, b = NAMES[table]
        config = {
            "board": "wall",
            "name": "Table " + table[1:],
            "players": {"A": {"name": a}, "B": {"name": b}},
            "match": {"game": "three_cushion", "target": 3},
            "wifi": {"ssid": ap.ssid, "password": WIFI_PASSWORD},
            "mqtt": {
                "host": "127.0.0.1",
                "port": broker_port,
                "table": table,
                "prefix": "carom",
                "user": MQTT_USER,
                "password": MQTT_PASSWORD,
                "keepalive_s": keepalive_s,
            },
        }
        # The wall clock set (as NTP would): reports carry real start and end times.
        super().__init__(
            "wall", flash_dir, config, firmware=firmware, power=False, wifi=ap, name=table, rtc_epoch=int(time.time())
        )

    def start(self):
        self.vb.power_on()
        self.vb.run_realtime()

    def pause(self, s):
        """Let s seconds of the board's clock pass (it follows real time): a bounded wait."""
        end = self.vb.now + s
        self.vb.wait_for(lambda b: b.now >= end, timeout=s * 4 + 5)

    def press(self, button, down=0.1, settle=0.6):
        self.vb.press(button)
        self.pause(down)
        self.vb.release(button)
        self.pause(settle)

    def fields(self):
        return self.state()["fields"]

    def shown(self):
        """(A score, B score, A innings, B innings) as the displays show them."""
        f = self.fields()
        return tuple(int(f[k].strip() or 0) for k in ("A.score", "B.score", "A.innings", "B.innings"))

    def printed(self):
        return self.vb.stdout + self.vb.stderr


@pytest.fixture
def hall(broker):
    h = HallProc(broker.port)
    h.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
    yield h
    h.stop()


@pytest.fixture
def walls(tmp_path, firmware, broker):
    """walls("t1", "t2") -> WallBoards, powered, following real time, each on its own access point."""
    made = []

    def make(*tables, keepalive_s=30):
        out = []
        for table in tables:
            ap = AccessPoint("hall-" + table, WIFI_PASSWORD, channel=6, connect_s=0.5)
            w = WallBoard(str(tmp_path / table), firmware, table, broker.port, ap, keepalive_s)
            made.append(w)
            w.start()
            out.append(w)
        return out

    yield make
    try:
        for w in made:  # 4: nothing the boards printed holds a secret
            for secret in SECRETS:
                assert secret not in w.printed(), (w.table, w.printed())
    finally:
        for w in made:
            w.close()


def api_tables(hall):
    return {t["table"]: t for t in hall.get("/api/tables")["tables"]}


def agrees(hall, w):
    """The dashboard's state of w's table is what w's displays show."""
    t = api_tables(hall).get(w.table)
    if t is None or t["state"] is None:
        return False
    p = t["state"]["players"]
    return (p["A"]["score"], p["B"]["score"], p["A"]["innings"], p["B"]["innings"]) == w.shown()


def wait_agrees(hall, w, timeout=20):
    wait_for(
        lambda: agrees(hall, w), True, timeout, "the dashboard agrees with %s's displays %r" % (w.table, w.shown())
    )


def tile_agrees(page, w, status="online", shown=None):
    """w's tile shows w's displays (or `shown`, what they showed before a power cut) and `status`."""
    a, b, ia, ib = shown or w.shown()
    na, nb = NAMES[w.table]

    def check(t):
        return (
            t["status"] == status
            and t["A"]["score"] == str(a)
            and t["B"]["score"] == str(b)
            and t["A"]["innings"] == str(ia)
            and t["B"]["innings"] == str(ib)
            and t["A"]["name"].upper() == na
            and t["B"]["name"].upper() == nb
        )

    return page.wait_tile(w.table, check, "%s's tile shows %r, %s" % (w.table, (a, b, ia, ib), status), timeout=20)


def play_win(w):
    """A breaks (his first press in the lag), runs 3 to the target of 3; B misses his equalizing inning."""
    w.press("A.point")  # the lag: A breaks
    for _ in range(3):
        w.press("A.point")
    w.press("B.end")


def results(hall):
    return hall.get("/results.json")


# ---- 1. tables playing, on the dashboard ------------------------------------------------------


def test_boards_scores_on_the_dashboard(hall, walls, browser):
    boards = walls("t1", "t2", "t3")
    page = Page(browser, hall.url)
    for w in boards:
        wait_for(lambda: api_tables(hall).get(w.table, {}).get("status"), "online", 20, w.table + " online")
    t1, t2, t3 = boards
    t1.press("A.point")  # the lag: A breaks
    t1.press("A.point")
    t2.press("B.point")  # B breaks
    t2.press("B.point")
    t2.press("B.point")
    t2.press("B.end")  # a run of 2, then A at the table
    t3.press("A.point")
    t3.press("A.end")
    t3.press("B.point")
    assert t1.shown() == (1, 0, 1, 0) and t2.shown() == (0, 2, 1, 1) and t3.shown() == (0, 1, 1, 1)
    for w in boards:
        wait_agrees(hall, w)
        tile_agrees(page, w)
    # t1 finishes: A reaches 3, B misses his equalizing inning.
    t1.press("A.point")
    t1.press("A.point")
    t1.press("B.end")
    assert t1.shown() == (3, 0, 1, 1)
    wait_agrees(hall, t1)
    tile = tile_agrees(page, t1)
    assert tile["result"] == "ANNA wins" or tile["result"].lower() == "anna wins", tile
    assert api_tables(hall)["t1"]["state"]["phase"] == "finished"
    got = wait_for(lambda: results(hall), lambda r: len(r) == 1, 20, "t1's report")
    assert got[0]["hall"]["table"] == "t1" and got[0]["result"] == "A"
    page.close()


# ---- 2. the broker stopped mid-match and started again ------------------------------------------


def saved_reports(w):
    """The reports on the board's flash, as parsed JSON, oldest first."""
    out = []
    for root, _, files in os.walk(w.flash_dir):
        for name in files:
            if name.endswith(".json") and name[:-5].isdigit():
                with open(os.path.join(root, name)) as f:
                    out.append((name, json.load(f)))
    return [doc for _, doc in sorted(out)]


def hold_new(w):
    """Hold "new" 3 s: a new match (the long action)."""
    w.press("new", down=3.3)


def test_broker_restart_scoring_goes_on_reports_once(tmp_path, firmware, browser):
    m = PersistentMosquitto()
    with open(m.conf) as f:
        assert f.read().count("persistence true") == 1
    m.start()
    h = HallProc(m.port)
    made = []
    try:
        h.wait_line(r"connected")
        for table in ("t1", "t2", "t3"):
            ap = AccessPoint("hall-" + table, WIFI_PASSWORD, channel=6, connect_s=0.5)
            w = WallBoard(str(tmp_path / table), firmware, table, m.port, ap)
            made.append(w)
            w.start()
        t1, t2, t3 = made
        for w in made:
            wait_for(lambda: api_tables(h).get(w.table, {}).get("status"), "online", 20, w.table + " online")
        t1.press("A.point")  # the lag: A breaks
        t1.press("A.point")
        t2.press("A.point")
        t2.press("A.point")
        t3.press("B.point")
        for w in made:
            wait_agrees(h, w)

        m.stop()  # mid-match
        wait_for(lambda: h.get("/api/tables")["broker"]["connected"], False, 20, "the hall sees the broker gone")
        # Scoring goes on: t1 finishes its match and starts a new one; t2 finishes and loses power
        # before the broker is back (its report only on its flash); t3 plays on.
        t1.press("A.point")
        t1.press("A.point")
        t1.press("B.end")
        assert t1.shown() == (3, 0, 1, 1) and t1.fields()["message"].strip(), t1.fields()
        hold_new(t1)
        t1.press("B.point")  # the lag of the new match: B breaks
        t1.press("B.point")
        assert t1.shown() == (0, 1, 0, 1)
        t2.press("A.point")
        t2.press("A.point")
        t2.press("B.end")
        assert t2.shown() == (3, 0, 1, 1)
        t2.vb.stop_realtime()
        t2.vb.power_off()
        t3.press("B.point")
        t3.press("B.end")
        assert t3.shown() == (0, 1, 1, 1)
        assert [len(saved_reports(w)) for w in made] == [1, 1, 0]
        assert results(h) == []

        m.start()  # the same port, its saved sessions
        t2.vb.power_on()
        t2.vb.run_realtime()
        assert t2.shown() == (3, 0, 1, 1)  # the finished match restored
        wait_for(lambda: h.get("/api/tables")["broker"]["connected"], True, 30, "the hall reconnects")
        # The boards reconnect with backoff (1, 2, 4, 8, 16 s): up to about 31 s after the stop.
        for w in made:
            wait_agrees(h, w, timeout=45)
        got = wait_for(lambda: results(h), lambda r: len(r) == 2, 45, "the reports finished while the broker was down")
        # Another match each on t1 and t3, with the broker up: a sentinel for anything still coming.
        t1.press("B.point")
        t1.press("B.point")
        t1.press("A.end")  # B 3, A's equalizing inning missed
        assert t1.shown() == (0, 3, 1, 1)
        got = wait_for(lambda: results(h), lambda r: len(r) == 3, 30, "t1's second report")
        page = Page(browser, h.url)
        for w in made:
            tile_agrees(page, w)
        page.close()
        by_table = {}
        for e in got:
            by_table.setdefault(e["hall"]["table"], []).append({k: v for k, v in e.items() if k != "hall"})
        # Every finished match exactly once, each the report as saved on its board's flash.
        assert by_table == {"t1": saved_reports(t1), "t2": saved_reports(t2)}, by_table
        assert [r["result"] for r in by_table["t1"]] == ["A", "B"] and by_table["t2"][0]["result"] == "A"
        for w in made:
            for secret in SECRETS:
                assert secret not in w.printed()
    finally:
        for w in made:
            w.close()
        h.stop()
        m.close()


# ---- 3. a power cut: offline, then online with the restored match ----------------------------------


def test_power_cut_offline_then_restored(hall, walls, browser):
    t1, t2 = walls("t1", "t2")
    page = Page(browser, hall.url)
    t1.press("A.point")  # the lag: A breaks
    t1.press("A.point")
    t1.press("A.end")
    t1.press("B.point")
    before = t1.shown()
    assert before == (1, 1, 1, 1)
    wait_agrees(hall, t1)
    tile_agrees(page, t1)
    t1.vb.stop_realtime()
    t1.vb.power_off()
    # The emulation closes a dead board's sockets at once (see host_tools/simulator/vboard/README.md, Limits): the
    # broker sees the connection end without DISCONNECT and publishes the will now, not after 45 s.
    tile = tile_agrees(page, t1, status="offline", shown=before)
    assert tile["label"] == "OFFLINE"
    assert api_tables(hall)["t1"]["status"] == "offline" and api_tables(hall)["t2"]["status"] == "online"
    t2.press("B.point")  # the other table is not disturbed
    wait_agrees(hall, t2)
    t1.vb.power_on()
    t1.vb.run_realtime()
    assert t1.shown() == before  # restored from the flash
    wait_for(lambda: api_tables(hall)["t1"]["status"], "online", 30, "t1 online again")
    wait_agrees(hall, t1)
    tile_agrees(page, t1)
    t1.press("B.point")  # and it plays on
    assert t1.shown() == (1, 2, 1, 1)
    wait_agrees(hall, t1)
    tile_agrees(page, t1)
    page.close()


KEEPALIVE_S = 5  # the least mqtt.keepalive_s takes


def test_silent_link_loss_will_after_the_keepalive(broker, hall, walls, browser):
    """A board whose link goes silent (its access point gone: what the broker sees of a real board
    losing power) shows offline once the keepalive expires: 1.5 x the board's mqtt.keepalive_s,
    here the shortest (5 s, so the wait is 7.5 s; the default 30 s is the same code)."""
    (t3,) = walls("t3", keepalive_s=KEEPALIVE_S)
    listener = Listener(broker.port).wait_subscribed()
    page = Page(browser, hall.url)
    t3.press("A.point")  # the lag: A breaks
    t3.press("A.point")
    wait_agrees(hall, t3)
    tile_agrees(page, t3)
    start = time.monotonic()
    t3.vb.access_point.down()  # its own access point: no FIN, no DISCONNECT, just silence
    t3.press("A.point")  # scoring goes on without the network
    assert t3.shown() == (2, 0, 1, 0)
    tile = page.wait_tile("t3", lambda t: t["status"] == "offline", "t3 offline after the keepalive", timeout=60)
    # The will came after the keepalive (7.5 s), not less: timed where it arrived (paho's thread),
    # a lower bound that a slower machine only makes later.
    assert listener.wait(lambda: listener.payloads("carom/t3/status")[-1:] == [b"offline"])
    assert listener.arrival("carom/t3/status", b"offline") - start >= KEEPALIVE_S
    listener.close()
    assert tile["label"] == "OFFLINE" and tile["A"]["score"] == "1"  # the last state it got
    t3.vb.access_point.up()  # the link is back: the board rejoins, reconnects, sends its newest state
    wait_for(lambda: api_tables(hall)["t3"]["status"], "online", 40, "t3 online again")
    wait_agrees(hall, t3)
    tile_agrees(page, t3)
    page.close()


# ---- 4. secrets ------------------------------------------------------------------------------------


def test_secrets_are_never_printed_nor_published(hall, walls):
    (t1,) = walls("t1")
    wait_for(lambda: api_tables(hall).get("t1", {}).get("status"), "online", 20, "t1 online")
    play_win(t1)
    wait_for(lambda: len(results(hall)), 1, 20, "t1's report")
    wait_agrees(hall, t1)
    # A Wi-Fi outage and a reconnect print what went wrong, never a password.
    t1.vb.access_point.down()
    t1.pause(3)
    t1.vb.access_point.up()
    wait_for(lambda: t1.vb.wifi_connected, True, 20, "t1 back on Wi-Fi")
    published = json.dumps(hall.get("/results.json")) + json.dumps(hall.get("/api/tables"))
    with open(os.path.join(t1.flash_dir, "config.json")) as f:
        assert MQTT_PASSWORD in f.read()  # the secrets were there to leak
    for secret in SECRETS:
        assert secret not in t1.printed(), t1.printed()
        assert secret not in published
        for doc in saved_reports(t1):
            assert secret not in json.dumps(doc)
    assert "carom: publishing to 127.0.0.1 as carom/t1/*" in t1.vb.lines()

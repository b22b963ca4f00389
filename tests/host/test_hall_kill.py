"""The hall stopped at the worst moments: no result is lost, no table is left without its match.

The hall killed (SIGKILL) just after a board's report: no result is lost.

`carom hall --db --keys --client-id` runs as a subprocess against a real mosquitto, which keeps
the hall's session while it is away. One table plays a round robin: at each match's end its
board publishes the report, the hall is killed 0-5 ms after the broker has the report (the
hall is then receiving it, writing it to the tournament's database, or acknowledging it), and
started again on the same files and client id. The report must be in the tournament: the hall
acknowledges a report only after the database has it, so one it had not finished with is sent
again by the broker (and the database takes the same report once). Before that, 5 of 23 such
kills lost the result for good: the match stayed "playing" and the tournament never ended.

A hall that stopped between assigning a match to a table and sending its setup (the tournament's
file says "assigned", the setups sent say nothing of it) sends it when it starts again; a table
whose key `carom hall-key` replaced gets the setup of its match again, signed with the new key
(the old signature its board now refuses), once, and only while its board has not taken it.
"""

import json
import signal
import time
import urllib.request

import pytest

from helpers import running_mosquitto, wait_for
from host_tools.hall.organiser import SentStore
from host_tools.hall.setups import Keys, SetupError, verify
from mosquitto import available
from test_hall import HallProc
from test_hall_organiser import HEADERS, LAG, TableBoard, retained_setup

KILLS = 50
CLIENT_ID = "carom-hall-kill-test"


def post(hall, action, body):
    headers = dict(HEADERS, **{"X-Carom-Organiser-Code": hall.code})
    req = urllib.request.Request(hall.url + "/api/organiser/" + action, data=json.dumps(body).encode(), headers=headers,
                                 method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def tournament(url):
    with urllib.request.urlopen(url + "/api/tournament", timeout=10) as r:
        return json.loads(r.read())


@pytest.mark.skipif(not available(), reason="mosquitto is not installed")
def test_a_hall_killed_just_after_a_report_loses_no_result(tmp_path):
    keys_path = str(tmp_path / "hall-keys.json")
    key = Keys(keys_path).new_key("t1")
    args = ("--db", str(tmp_path / "club.sqlite"), "--keys", keys_path, "--client-id", CLIENT_ID)
    with running_mosquitto() as broker:
        hall = HallProc(broker.port, *args)
        board = TableBoard(broker.port, "t1", key)
        try:
            hall.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
            post(hall, "configure", {"name": "Kill test", "format": "round_robin",
                                         "game_options": {"game": "three_cushion", "target": 2}})
            post(hall, "players", {"players": [{"name": "Player %d" % i} for i in range(1, 12)]})  # 55 matches
            post(hall, "table", {"table": "t1"})
            post(hall, "draw", {})
            kills = 0
            n = 0
            while kills < KILLS:
                n += 1
                board.apply(board.setup(n))
                board.play(LAG)
                strokes = 0
                while not board.sim.finished():  # A's two points, B's equalizing inning missed
                    board.play(["point" if strokes % 3 < 2 else "miss"])  # (the report: at the last)
                    strokes += 1
                # the report is with the broker (play() waited for it): the hall is killed within 0-5 ms
                time.sleep((kills % 6) / 1000)
                hall.proc.send_signal(signal.SIGKILL)
                hall.proc.wait(timeout=10)
                kills += 1
                hall = HallProc(broker.port, *args)
                hall.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
                done = wait_for(lambda: sum(m["status"] == "done" for m in tournament(hall.url)["matches"]),
                                lambda k: k >= n, 30, "match %d done after kill %d" % (n, kills))
                assert done == n
        finally:
            board.close()
            hall.stop()


def signed(key, payload):
    try:
        verify(key, payload)
    except (SetupError, ValueError):
        return False
    return True


def organised(hall, players=4):
    post(hall, "configure", {"name": "Restart test", "format": "round_robin",
                                 "game_options": {"game": "three_cushion", "target": 2}})
    post(hall, "players", {"players": [{"name": "Player %d" % i} for i in range(1, players + 1)]})
    post(hall, "table", {"table": "t1"})
    post(hall, "draw", {})


def on_t1(url):
    return [m for m in tournament(url)["matches"] if m.get("table") == "t1" and m["status"] != "done"]


@pytest.mark.skipif(not available(), reason="mosquitto is not installed")
def test_a_match_assigned_but_never_sent_is_sent_when_the_hall_starts_again(tmp_path):
    keys_path = str(tmp_path / "hall-keys.json")
    key = Keys(keys_path).new_key("t1")
    db = str(tmp_path / "club.sqlite")
    args = ("--db", db, "--keys", keys_path, "--client-id", CLIENT_ID)
    with running_mosquitto() as broker:
        hall = HallProc(broker.port, *args)
        hall.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
        organised(hall)
        first = verify(key, retained_setup(broker.port, "t1")[0])
        assigned = wait_for(lambda: on_t1(hall.url), lambda ms: len(ms) == 1, 30, "a match on t1")[0]
        hall.proc.send_signal(signal.SIGKILL)
        hall.proc.wait(timeout=10)
        # What a hall killed between the two leaves: the match assigned, nothing sent for it.
        store = SentStore(db)
        store.delete("t1")
        store.close()
        hall = HallProc(broker.port, *args)
        try:
            hall.wait_line(r"setup \d+ sent to t1", 30)
            doc = wait_for(lambda: verify(key, retained_setup(broker.port, "t1")[0]), lambda d: d["n"] > first["n"],
                           30, "a new setup on t1")
            assert doc["setup"] == first["setup"]  # the same match: the one assigned
            assert [m["id"] for m in on_t1(hall.url)] == [assigned["id"]]
        finally:
            hall.stop()


@pytest.mark.skipif(not available(), reason="mosquitto is not installed")
def test_a_re_keyed_table_gets_its_match_signed_with_the_new_key(tmp_path):
    keys_path = str(tmp_path / "hall-keys.json")
    old = Keys(keys_path).new_key("t1")
    args = ("--db", str(tmp_path / "club.sqlite"), "--keys", keys_path, "--client-id", CLIENT_ID)
    with running_mosquitto() as broker:
        hall = HallProc(broker.port, *args)
        try:
            hall.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
            organised(hall)
            sent = verify(old, retained_setup(broker.port, "t1")[0])
            hall.stop()
            new = Keys(keys_path).new_key("t1")  # carom hall-key: the board gets the new key
            hall = HallProc(broker.port, *args)
            hall.wait_line(r"setup \d+ sent to t1", 30)
            payload = wait_for(lambda: retained_setup(broker.port, "t1")[0], lambda p: signed(new, p), 30,
                               "t1's setup signed with the new key")
            doc = verify(new, payload)  # the board with its new key takes it: the same match
            assert doc["setup"] == sent["setup"] and not signed(old, payload)
            hall.stop()
            hall = HallProc(broker.port, *args)  # once: a restart finds it signed with the key in force
            hall.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
            post(hall, "configure", {"name": "Restart test"})  # the tournament's work runs before the answer
            assert verify(new, retained_setup(broker.port, "t1")[0])["n"] == doc["n"]
            assert not any("sent to t1" in line for line in hall.lines), hall.lines[-5:]
        finally:
            hall.stop()

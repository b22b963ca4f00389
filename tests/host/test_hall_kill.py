"""The hall killed (SIGKILL) just after a board's report: no result is lost.

`carom hall --db --keys --client-id` runs as a subprocess against a real mosquitto, which keeps
the hall's session while it is away. One table plays a round robin: at each match's end its
board publishes the report, the hall is killed 0-5 ms after the broker has the report (the
hall is then receiving it, writing it to the tournament's database, or acknowledging it), and
started again on the same files and client id. The report must be in the tournament: the hall
acknowledges a report only after the database has it, so one it had not finished with is sent
again by the broker (and the database takes the same report once). Before that, 5 of 23 such
kills lost the result for good: the match stayed "playing" and the tournament never ended.
"""

import json
import signal
import time
import urllib.request

import pytest

from helpers import running_mosquitto, wait_for
from host_tools.hall.setups import Keys
from mosquitto import available
from test_hall import HallProc
from test_hall_organiser import HEADERS, LAG, TableBoard

KILLS = 50
CLIENT_ID = "carom-hall-kill-test"


def post(url, action, body):
    req = urllib.request.Request(url + "/api/organiser/" + action, data=json.dumps(body).encode(), headers=HEADERS,
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
            post(hall.url, "configure", {"name": "Kill test", "format": "round_robin",
                                         "game_options": {"game": "three_cushion", "target": 2}})
            post(hall.url, "players", {"players": [{"name": "Player %d" % i} for i in range(1, 12)]})  # 55 matches
            post(hall.url, "table", {"table": "t1"})
            post(hall.url, "draw", {})
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

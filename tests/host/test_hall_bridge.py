"""Past one hall: two mosquitto brokers bridged with mosquitto's own bridge carry two
halls' tables to one dashboard.

Hall 1's broker has the dashboard (`carom hall`); hall 2's broker runs a bridge to it, the README's
configuration ("Two halls, one dashboard"): the boards' state, status and report topics go out to
hall 1, the hall's setups for hall 2's tables come in.  Each hall has its own tables (the ids differ
across halls: t1 in hall 1, t2 in hall 2).  A real wall board (the built firmware on a virtual
board) plays a match on each broker; the test checks that the dashboard (its API and its page in
Chromium) sees both tables and each finished match exactly once, and that a setup published on
hall 1's broker for hall 2's table reaches hall 2's broker (retained).

Then an outage: hall 1's broker stops (the link between the halls is down), nine of hall 2's
tables report their finished matches, hall 2's broker restarts, hall 1's comes back: all nine
reach the dashboard, once each (without persistence on hall 2, 5 of 9 did).

Every wait is bounded and on a condition (the API, the page, a subscriber's messages).
"""

import json
import os

import pytest

from helpers import Listener, needs_mosquitto, wait_for
from host_tools import ROOT
from host_tools.simulator.vboard import AccessPoint
from host_tools.hall.bridge import conf
from tools.run.mosquitto import Mosquitto, PersistentMosquitto
from tools.run.hall import HallProc, Page
from test_hall_e2e import WIFI_PASSWORD, WallBoard, agrees, api_tables, play_win, results

pytestmark = needs_mosquitto


class BridgedMosquitto(Mosquitto):
    """mosquitto with the bridge `carom hall-bridge` prints (the README's) to the broker on `port`
    (hall 1's), its database in its own folder."""

    def __init__(self, port):
        super().__init__()
        with open(self.conf, "a") as f:
            f.write(conf("hall2", "127.0.0.1", port, location=self.dir + "/"))
        os.chmod(self.dir, 0o777)  # (started as root, mosquitto writes its database as its own user)


def test_the_docs_show_what_carom_hall_bridge_prints():
    with open(os.path.join(ROOT, "docs", "hall", "two-halls.md"), encoding="utf-8") as f:
        readme = f.read()
    assert "```conf\n" + conf("hall2", "hall1.example", 1883) + "```" in readme


@pytest.fixture
def halls():
    one = Mosquitto().start()
    two = BridgedMosquitto(one.port).start()
    try:
        wait_for(lambda: two.logged("Connecting bridge"), True, 20, "hall 2 connecting its bridge")
        yield one, two
    finally:
        two.close()
        one.close()


def test_two_halls_bridged_one_dashboard_every_table_and_result_once(halls, tmp_path, firmware, browser):
    one, two = halls
    hall = HallProc(one.port)
    made = []
    try:
        hall.wait_line(r"connected")
        for table, broker in (("t1", one), ("t2", two)):
            ap = AccessPoint("hall-" + table, WIFI_PASSWORD, channel=6, connect_s=0.5)
            w = WallBoard(str(tmp_path / table), firmware, table, broker.port, ap)
            made.append(w)
            w.start()
        t1, t2 = made
        for w in made:  # hall 2's board, on its own broker, reaches hall 1's dashboard through the bridge
            wait_for(lambda: api_tables(hall).get(w.table, {}).get("status"), "online", 30, w.table + " online")
        page = Page(browser, hall.url)
        for w in made:
            play_win(w)
        for w in made:
            wait_for(lambda: agrees(hall, w), True, 30, "the dashboard agrees with " + w.table)
            page.wait_tile(
                w.table,
                lambda t: t["status"] == "online" and t["A"]["score"] == "3",
                w.table + "'s tile: A 3",
                timeout=30,
            )
        got = wait_for(lambda: results(hall), lambda r: len(r) >= 2, 30, "both reports")
        assert sorted(r["hall"]["table"] for r in got) == ["t1", "t2"]
        # Once: a second look, after hall 2's board has published again (a new match), finds the same two.
        t2.press("new", down=3.3)
        wait_for(lambda: api_tables(hall)["t2"]["state"]["phase"], "lag", 30, "t2's new match on the dashboard")
        assert sorted(r["hall"]["table"] for r in results(hall)) == ["t1", "t2"]
        assert len(page.results()) == 2
        page.close()

        # A setup for hall 2's table, published on hall 1's broker, reaches hall 2's (retained).
        setup = json.dumps({"table": "t2", "n": 1}).encode()
        listener = Listener(two.port, client_id="hall2-board")
        try:
            listener.wait_subscribed()
            import paho.mqtt.publish as publish

            publish.single("carom/t2/setup", setup, qos=1, retain=True, hostname="127.0.0.1", port=one.port)
            wait_for(
                lambda: listener.payloads("carom/t2/setup"), lambda p: setup in p, 20, "the setup on hall 2's broker"
            )
        finally:
            listener.close()
        late = Listener(two.port, client_id="hall2-late")  # a board coming back later gets it: retained
        try:
            wait_for(
                lambda: [(t, p, r) for t, p, r in late.messages if t == "carom/t2/setup"],
                lambda got: ("carom/t2/setup", setup, True) in got,
                20,
                "the retained setup on hall 2's broker",
            )
        finally:
            late.close()
    finally:
        for w in made:
            w.close()
        hall.stop()


def test_a_restart_of_hall_2s_broker_during_an_outage_loses_no_report(tmp_path):
    """Hall 1's broker (persistent, as the README says) stops; nine tables on hall 2 report; hall 2's
    broker restarts (its bridge's queue on its disk); hall 1's comes back: the dashboard has all nine."""
    from tools.hall.loadgen import Board, SimTable

    one = PersistentMosquitto().start()
    two = BridgedMosquitto(one.port).start()
    hall = HallProc(one.port, "--client-id", "carom-hall-bridge-test")
    tables = ["b%d" % k for k in range(1, 10)]
    try:
        hall.wait_line(r"connected")
        wait_for(lambda: two.logged("Connecting bridge"), True, 20, "hall 2 connecting its bridge")
        one.stop()  # the link between the halls is down
        for k, table in enumerate(tables):
            sim = SimTable(table, target=2, names=("Player %d" % k, "Other %d" % k))
            for line in ["point", "point", "miss"]:
                if not sim.finished():
                    sim.line(line)
            assert sim.finished()
            board = Board("127.0.0.1", two.port, table).wait()
            try:
                board.report(sim.report_doc()).wait_for_publish(10)  # hall 2's broker has it
            finally:
                board.close()
        two.stop()  # saves its database
        two.start()
        one.start()
        got = wait_for(
            lambda: sorted(r["hall"]["table"] for r in results(hall)),
            tables,
            60,
            "every report of hall 2 on the dashboard",
        )
        assert got == tables
    finally:
        hall.stop()
        two.close()
        one.close()

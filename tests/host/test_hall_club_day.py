"""A club day run through the hall's API with boards that take its signed setups and play them
with the firmware (tools.hall.loadgen.HallBoard: publisher_hall.check, the rules core, report.build):
a no-show, a match moved to a table whose board is busy and its setup taken back there, a
withdrawal mid-group, an abandon that excludes a player by the report alone, a result entered by
hand, the groups' places into a knock-out with a third-place match, and the exports.

A real mosquitto, a real `carom hall --db --keys` process; waits on conditions only.
"""

import csv
import io
import json
import urllib.error
import urllib.request

import pytest

from helpers import wait_for
from host_tools import gd
from host_tools.hall.setups import Keys
from tools.run.hall import HallProc
from tools.run.mosquitto import Mosquitto, available
from tools.hall.loadgen import HallBoard, play

pytestmark = pytest.mark.skipif(not available(), reason="mosquitto is not installed (tools/deps.sh)")

PLAYERS = ("Anna", "Bela", "Csaba", "Dora", "Erno", "Flora", "Gabor", "Hanna")
ACTIVE = ("assigned", "waiting", "playing")


def post(hall, action, body):
    return hall.organise(action, body)


def on_table(hall, table):
    ms = [m for m in hall.get("/api/tournament")["matches"] if m["table"] == table and m["status"] in ACTIVE]
    return ms[0] if ms else None


def match(hall, match_id):
    return [m for m in hall.get("/api/tournament")["matches"] if m["id"] == match_id][0]


def player(hall, name):
    return [p for p in hall.get("/api/tournament")["players"] if p["name"] == name][0]


def board_playing(hall, boards):
    """(board, match) of a board that plays its tournament match (finished boards take their next)."""
    for b in boards:
        b.step()  # a finished board takes its next setup
        m = on_table(hall, b.table)
        names = {b.sim.doc()["players"][s]["name"] for s in "AB"} if b.sim is not None else set()
        if m is not None and not b.sim.finished() and names == {m["name_A"], m["name_B"]}:
            return b, m
    return None


def no_show(hall, b1):
    # A no-show on t1: a walkover for A, never played; t1's board lets the setup go (the lag)
    # and takes the next match.
    m1 = on_table(hall, "t1")
    n1 = b1.n
    assert post(hall, "walkover", {"match": m1["id"], "present": "A"}) == (200, {"ok": True})
    w = match(hall, m1["id"])
    assert (w["status"], w["ended_by"], w["entry"], w["winner"]) == ("done", "walkover", "walkover", m1["name_A"])
    assert (w["score_B"], w["innings_B"], w["score_A"]) == (0, 12, None)  # 0 in the innings limit
    wait_for(lambda: (b1.withdrawn, len(b1.applied)), ([n1], 2), what="t1 let the walkover's setup go")
    assert on_table(hall, "t1")["id"] != m1["id"]

    return m1


def move_and_take_back(hall, b2, b4):
    # t2's board fails: its match moves to t4, whose board holds it waiting (its own match is
    # on); the organiser takes it back there, and the match goes to the next free table.
    m2 = on_table(hall, "t2")
    n2 = b2.n
    assert post(hall, "move", {"match": m2["id"], "table": "t4"}) == (200, {"ok": True})
    wait_for(lambda: b4.waiting is not None and b4.waiting[1]["players"]["A"]["name"], m2["name_A"])
    wait_for(lambda: b2.withdrawn, [n2], what="t2 let the moved match go")
    assert match(hall, m2["id"])["table"] == "t4"
    waiting_n = b4.waiting[0]
    assert post(hall, "unsend", {"table": "t4"}) == (200, {"ok": True})
    wait_for(lambda: (b4.waiting, b4.withdrawn), (None, [waiting_n]), what="t4 dropped the waiting setup")
    assert b4.sim.ref.match.n and b4.sim.phase() != "lag"  # its own match untouched
    wait_for(
        lambda: match(hall, m2["id"])["table"] in ("t1", "t2", "t3") and match(hall, m2["id"])["status"],
        lambda s: s in ACTIVE,
    )


def withdrawal(hall, boards):
    # Some matches played, then a withdrawal mid-group: his played matches annulled, the rest
    # walkovers.
    def done_on_boards():
        return sum(1 for m in hall.get("/api/tournament")["matches"] if m["status"] == "done" and m["entry"] == "board")

    play(list(boards), 0.002, lambda: done_on_boards() >= 3, most_s=120, check_s=0.1)
    doc = hall.get("/api/tournament")
    played = [m for m in doc["matches"] if m["status"] == "done" and m["entry"] == "board"]
    quitter = next(
        n
        for m in played
        for n in (m["name_A"], m["name_B"])
        if any(n in (x["name_A"], x["name_B"]) and x["status"] == "pending" for x in doc["matches"])
    )
    assert post(hall, "withdraw", {"player": quitter}) == (200, {"ok": True})
    doc = hall.get("/api/tournament")
    his = [m for m in doc["matches"] if quitter in (m["name_A"], m["name_B"]) and m["stage"] == "group"]
    assert [p["status"] for p in doc["players"] if p["name"] == quitter] == ["withdrawn"]
    assert all(m["status"] == "annulled" for m in his if m["entry"] == "board")
    assert all(m["ended_by"] == "walkover" for m in his if m["entry"] != "board")
    assert post(hall, "withdraw", {"player": quitter})[0] == 409

    return quitter


def abandon(hall, boards):
    # An abandon on a board excludes the player by the report alone.
    found = wait_for(lambda: board_playing(hall, boards), lambda x: x is not None, what="a board playing its match")
    b, m = found
    gone = b.sim.doc()["players"]["B"]["name"]
    assert b.referee("abandon B") is None
    wait_for(lambda: player(hall, gone)["status"], "excluded", what="the abandoner excluded")
    assert player(hall, gone)["note"] == "abandoned match %d (rules I.8.2)" % m["id"]
    rest = [
        x for x in hall.get("/api/tournament")["matches"] if gone in (x["name_A"], x["name_B"]) and x["id"] != m["id"]
    ]
    assert rest and all(x["status"] in ("done", "annulled") for x in rest if x["stage"] == "group")

    return gone


def by_hand(hall, boards):
    # A board breaks: the paper sheet's result is entered by hand.
    hand = wait_for(lambda: board_playing(hall, boards), lambda x: x is not None, what="a match on a board")[1]
    sheet = {"A": {"score": 3, "innings": 7, "high_run": 2}, "B": {"score": 2, "innings": 7, "high_run": 1}}
    assert post(hall, "result", dict(sheet, match=hand["id"])) == (200, {"ok": True})
    h = match(hall, hand["id"])
    assert (h["status"], h["entry"], h["winner"], h["average_A"]) == ("done", "hand", hand["name_A"], 0.428)

    return hand, sheet


def finish(hall, boards, out):
    # The rest plays by itself: the groups, the knock-out with its third-place match.
    play(
        list(boards.values()),
        0.002,
        lambda: hall.get("/api/tournament")["champion"] is not None,
        most_s=240,
        check_s=0.25,
    )
    doc = hall.get("/api/tournament")
    assert [r["name"] for r in doc["bracket"]] == ["Semi-finals", "Final", "Third place"]
    third = doc["bracket"][2]["matches"][0]
    assert third["status"] == "done" and third["winner"]
    for g in doc["standings"]:
        for r in g["rows"]:
            assert r["average"] == gd.value(r["score"], r["innings"])
            if r["name"] in out:
                assert r["status"] != "in" and r["rank"] > 2  # never among the qualifiers
    assert [p["place"] for p in doc["places"]] == [1, 2, 3, 4][: len(doc["places"])]

    # The exports: hand and walkover marked, GD truncated, the tie-break's column.
    text = urllib.request.urlopen(hall.url + "/tournament.csv", timeout=10).read().decode("utf-8-sig")
    standings, matches = text.split("\r\n\r\n")
    for r in csv.DictReader(io.StringIO(standings)):
        assert r["average"] == gd.text(int(r["score"]), int(r["innings"]))
        assert "tie_break" in r
    rows = list(csv.DictReader(io.StringIO(matches)))
    assert {r["entry"] for r in rows} >= {"board", "hand", "walkover"}
    for r in rows:
        if r["score_A"] and r["innings_A"]:
            assert r["average_A"] == gd.text(int(r["score_A"]), int(r["innings_A"]))
    page = urllib.request.urlopen(hall.url + "/tournament.html", timeout=10).read().decode()
    assert "entered by hand" in page and "Third place" in page and "excluded: abandoned match" in page


def refusals(hall, m1, hand, sheet):
    # The new requests refuse what is wrong, field by field.
    for action, body, status, why in (
        ("walkover", {"match": m1["id"], "present": "A"}, 409, "waits for its result"),
        ("walkover", {"match": 1, "present": "C"}, 400, "present must be A or B"),
        ("walkover", {"match": "1", "present": "A"}, 400, "match must be a whole number"),
        ("withdraw", {"player": "Nobody"}, 409, "is not a player"),
        ("withdraw", {"player": "Anna", "excluded": "yes"}, 400, "excluded must be true or false"),
        ("result", {"match": hand["id"], **sheet}, 409, "waits for its result"),
        ("result", {"match": 1, "A": {"score": 1}, "B": sheet["B"]}, 400, "missing"),
        ("result", {"match": 1, "A": [1], "B": sheet["B"]}, 400, "must be an object"),
        ("move", {"match": m1["id"], "table": "t9"}, 409, "not on a table"),
        ("move", {"match": 1, "table": "T 1"}, 400, "table must be"),
        ("unsend", {"table": "t1"}, 409, "holds no setup"),
        ("unsend", {"table": "t1", "x": 1}, 400, "unknown field"),
        ("configure", {"tiebreak": "fifa"}, 400, "tiebreak"),
        ("configure", {"tiebreak": "umb"}, 409, "cannot change now"),
    ):
        got = post(hall, action, body)
        assert got[0] == status and why in got[1]["error"], (action, body, got)


def test_a_club_day_through_the_api(tmp_path):
    keys_path = str(tmp_path / "hall-keys.json")
    keys = Keys(keys_path)
    tables = ("t1", "t2", "t3", "t4")
    secrets = {t: keys.new_key(t) for t in tables}
    broker = Mosquitto().start()
    hall = None
    boards = {}
    try:
        hall = HallProc(broker.port, "--db", str(tmp_path / "club.sqlite"), "--keys", keys_path)
        hall.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
        boards = {t: HallBoard("127.0.0.1", broker.port, t, secrets[t]).wait() for t in tables}
        b1, b2, b3, b4 = (boards[t] for t in tables)
        settings = {
            "name": "Club day",
            "format": "groups_knockout",
            "groups": 2,
            "advance": 2,
            "game_options": {"game": "three_cushion", "target": 3, "innings_limit": 12},
            "walkover": "zero_in_limit",
            "withdrawal": "annulled",
            "tiebreak": "ceb",
            "third_place": True,
        }
        assert post(hall, "configure", settings) == (200, {"ok": True})
        assert post(hall, "players", {"players": [{"name": n} for n in PLAYERS]})[0] == 200
        # t4's board plays a match set up by hand: busy, the hall sends it nothing yet
        b4.waiting = (0, {"players": {"A": {"name": "Guest"}, "B": {"name": "Visitor"}}, "match": {"target": 30}})
        b4.apply()
        while b4.sim.phase() == "lag" or not b4.sim.ref.match.n:
            b4.step()
        wait_for(lambda: ((hall.table("t4") or {}).get("state") or {}).get("phase"), lambda p: p not in (None, "lag"))
        for t in tables:
            assert post(hall, "table", {"table": t})[0] == 200
        assert post(hall, "draw", {})[0] == 200
        wait_for(lambda: [len(b.applied) for b in (b1, b2, b3)], [1, 1, 1], what="the first setups applied")
        assert len(b4.applied) == 1 and b4.waiting is None  # (its own match only)

        m1 = no_show(hall, b1)
        move_and_take_back(hall, b2, b4)
        quitter = withdrawal(hall, (b1, b2, b3))
        gone = abandon(hall, (b1, b2, b3))
        hand, sheet = by_hand(hall, (b1, b2, b3))
        finish(hall, boards, {quitter, gone})
        refusals(hall, m1, hand, sheet)
    finally:
        for b in boards.values():
            b.close()
        if hall is not None:
            hall.stop_keeping_secrets(secrets)
        broker.close()


# ---- the organiser's page -------------------------------------------------------------------------

from test_hall_organiser import tourney  # noqa: E402,F401  (the page's fixture: a hall, boards on demand)
from tools.run.hall import organiser_page  # noqa: E402
from test_hall_organiser import post as org_post  # noqa: E402
from host_tools.hall.setups import verify  # noqa: E402


def withdrawals(b):
    """The setups' numbers the hall took back from board b (its signed withdrawals)."""
    return [d["withdraw"] for d in (verify(b.key, p) for p, _ in b.payloads if p) if "withdraw" in d]


def page_match(hall, table):
    return wait_for(lambda: on_table(hall, table), lambda m: m is not None, what="a match on %s" % table)


def test_the_corrections_on_the_organisers_page(tourney, browser):  # noqa: F811
    hall, board, secrets, broker = tourney
    page = organiser_page(browser, hall)
    pg = page.page
    pg.select_option("#configure select[name=tiebreak]", "dbu_gd_points")
    pg.select_option("#configure select[name=walkover]", "zero_in_limit")
    pg.select_option("#configure select[name=withdrawal]", "annulled")
    pg.fill("#configure input[name=target]", "3")
    pg.fill("#configure input[name=innings_limit]", "10")
    pg.click("#configure button[type=submit]")
    wait_for(lambda: hall.get("/api/tournament")["settings"]["tiebreak"], "dbu_gd_points", what="the rules saved")
    s = hall.get("/api/tournament")["settings"]
    assert (s["walkover"], s["withdrawal"], s["third_place"]) == ("zero_in_limit", "annulled", False)
    org_post(hall, "players", {"players": [{"name": n} for n in ("Anna", "Bela", "Csaba", "Dora")]})
    for t in ("t1", "t2"):
        org_post(hall, "table", {"table": t})
    b1, b2 = board("t1"), board("t2")
    org_post(hall, "draw", {})
    b1.apply(b1.setup(1))
    b2.apply(b2.setup(1))
    # A no-show on t1: the walkover button for A, confirmed.
    m1 = page_match(hall, "t1")
    pg.on("dialog", lambda d: d.accept())
    row = '#matches tr[data-id="%d"]' % m1["id"]
    pg.click(row + ' button.walkover[data-present="A"]')
    wait_for(lambda: match(hall, m1["id"])["ended_by"], "walkover", what="the walkover")
    wait_for(lambda: withdrawals(b1), [1], what="t1's setup taken back")
    pg.wait_for_selector(row + '[data-status="done"]')
    # t3 joins while every player is busy: no match for it; the match on t2 moves there by the form.
    m2 = page_match(hall, "t2")
    b3 = board("t3")
    org_post(hall, "table", {"table": "t3"})
    pg.fill("#move input[name=match]", str(m2["id"]))
    pg.fill("#move input[name=table]", "t3")
    pg.click("#move button[type=submit]")
    wait_for(lambda: match(hall, m2["id"])["table"], "t3", what="the match moved")
    wait_for(lambda: withdrawals(b2), [1], what="t2's setup taken back")
    got = b3.setup(1)
    assert {got["setup"]["players"][p]["name"] for p in "AB"} == {m2["name_A"], m2["name_B"]}
    # The setup on t3 is taken back by the table's button: the board drops it.
    pg.wait_for_selector('#tables tr[data-table="t3"] button.unsend')
    pg.click('#tables tr[data-table="t3"] button.unsend')
    wait_for(lambda: withdrawals(b3), [1], what="t3's setup taken back")
    # A result by hand for whatever is on t1 now.
    m3 = page_match(hall, "t1")
    for k, v in (("match", m3["id"]), ("score_A", 3), ("innings_A", 6), ("high_run_A", 2), ("score_B", 1)):
        pg.fill("#hand-result input[name=%s]" % k, str(v))
    for k, v in (("innings_B", 6), ("high_run_B", 1)):
        pg.fill("#hand-result input[name=%s]" % k, str(v))
    pg.click("#hand-result button[type=submit]")
    wait_for(lambda: match(hall, m3["id"])["entry"], "hand", what="the result by hand")
    assert match(hall, m3["id"])["average_A"] == 0.5
    pg.wait_for_selector('#matches tr[data-id="%d"] td.status:has-text("by hand")' % m3["id"])
    # A player withdraws by his button.
    pg.click('#players tr:has(td.name:text-is("Dora")) button.withdraw')
    wait_for(lambda: player(hall, "Dora")["status"], "withdrawn", what="the withdrawal")
    pg.wait_for_selector('#players tr[data-status="withdrawn"] td.out:has-text("withdrawn")')
    assert "Tie broken by" in pg.inner_text("#standings")
    pg.wait_for_selector('#standings td.out:has-text("withdrawn")')
    assert page.errors == []
    page.close()


def test_the_halls_results_show_gd_truncated_whoever_sent_it():
    """A report of 2 points in 3 innings (and 30 in 14): the hall's results row, its CSV and the
    report tool's sheet show 0.666 (2.142), even from a board of an older firmware that rounded its
    average (0.667 in the report)."""
    from host_tools.hall.model import Hall
    from host_tools.hall.routes import local_time
    from host_tools.reports.match import Match
    from test_hall import sim_table

    t = sim_table("t1", ["point", "point", "miss"] + ["miss", "miss"] * 2 + ["point"] * 3, target=5)
    report = t.report_doc()
    a = report["players"]["A"]
    assert (a["score"], a["innings"], a["average"]) == (2, 3, 0.666)  # the firmware's own, truncated
    old = json.loads(json.dumps(report))
    old["players"]["A"]["average"] = 0.667  # as a board before this change wrote it
    hall = Hall()
    hall.handle("carom/t1/report", json.dumps(old).encode(), 10.0)
    (row,) = hall.summaries()
    assert row["A"]["average"] == 0.666
    rows = list(csv.DictReader(io.StringIO(hall.results_csv(local_time))))
    assert rows[0]["average_A"] == "0.666"
    assert Match(1, old).summary_row()["A_average"] == "0.666"
    assert gd.text(30, 14) == "2.142"

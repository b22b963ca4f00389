"""The hall dashboard (`carom hall`): a real mosquitto, boards simulated with paho, the page in Chromium.

The boards publish real state documents, made by the firmware's own modules on CPython
(referee lines played on rules.Match, matchdoc.doc, report.build; tools/hall/loadgen.py),
on the topics and with the flags the wall board uses (firmware/app.py).  `carom hall` runs as
a subprocess, as a person starts it; the page is read back from what it drew (the tiles'
text and data attributes), the exports from /results.csv and /results.json.

The model's rules (topics, the dedup rule, CSV cells) are tested first, without a broker.
"""

import contextlib
import csv
import io
import json
import subprocess
import urllib.request

import pytest

from host_tools.hall.broker import parse_broker
from host_tools.hall.model import Hall, fingerprint
from host_tools.hall.server import parse_listen
from helpers import CAROM, needs_mosquitto, running_mosquitto, wait_for
from tools.run.hall import HallProc, Page
from tools.run.mosquitto import Mosquitto, available


def sim_table(table, lines=(), name=None, target=3):
    """A table whose match is played with the firmware's rules core: `lines` are referee events."""
    from tools.hall.loadgen import SimTable

    t = SimTable(table, target=target, name=name, names=("Anna Kovacs", "Bela Nagy"))
    for line in lines:
        assert t.line(line) is None, line
    return t


def state_bytes(t):
    return json.dumps(t.doc()).encode()


# ---- the model, without a broker ---------------------------------------------------------------


def test_topics_and_states():
    hall = Hall("club/hall1")
    t = sim_table("t1", ["point"])
    assert hall.split("club/hall1/t1/state") == ("t1", "state")
    assert hall.split("club/hall1/t1/x/state") is None and hall.split("carom/t1/state") is None
    assert hall.handle("club/hall1/t1/state", state_bytes(t), 100.0) == [("table", hall.tables["t1"].to_json())]
    got = hall.tables["t1"].to_json()
    assert got["state"]["players"]["A"]["score"] == 1 and got["updates"] == 1 and got["updated"] == 100.0
    assert hall.handle("club/hall1/t1/status", b"offline", 101.0)[0][1]["status"] == "offline"
    # Garbage is counted and changes nothing.
    for topic, payload in (
        ("club/hall1/t1/state", b"{not json"),
        ("club/hall1/t1/state", b"[1, 2]"),
        ("club/hall1/t1/state", b'{"players": 3}'),
        ("club/hall1/t1/status", b"maybe"),
        ("club/hall1/t1/report", state_bytes(t)),
        ("club/hall1/t1/other", b"x"),
    ):
        assert hall.handle(topic, payload, 102.0) == []
    assert hall.counts["rejected"] == 6 and hall.tables["t1"].status == "offline"
    assert hall.tables["t1"].state["players"]["A"]["score"] == 1
    # Both retained topics cleared (empty payloads): the table goes.
    hall.handle("club/hall1/t1/state", b"", 103.0)
    assert hall.handle("club/hall1/t1/status", b"", 104.0) == [("gone", {"table": "t1"})]
    assert hall.tables == {}
    for n in ("t10", "t2", "t1"):
        hall.handle("club/hall1/%s/status" % n, b"online", 1)
    assert [x["table"] for x in hall.table_list()] == ["t1", "t2", "t10"]


def finished(table="t1", name="Table 1"):
    """A three-cushion match to 3: A runs 3, B misses his equalizing inning."""
    return sim_table(table, ["point", "point", "point", "miss"], name=name)


def test_report_dedup_rule():
    hall = Hall()
    t = finished()
    report = t.report_doc()
    text = json.dumps(report)
    # The same report again, its keys in another order (as another dict order would write it): one result.
    shuffled = json.dumps(dict(reversed(list(report.items()))))
    assert fingerprint(json.loads(text)) == fingerprint(json.loads(shuffled))
    first = hall.handle("carom/t1/report", text.encode(), 10.0)
    assert [k for k, _ in first] == ["table", "result"]  # the table's name came with the report
    assert hall.tables["t1"].name == "Table 1"
    assert hall.handle("carom/t1/report", text.encode(), 11.0) == []
    assert hall.handle("carom/t1/report", shuffled.encode(), 12.0) == []
    assert len(hall.results) == 1 and hall.counts["duplicates"] == 2
    # The same report from another table is another match.
    assert hall.handle("carom/t2/report", text.encode(), 13.0)[-1][0] == "result"
    assert len(hall.results) == 2
    # The board finishes the same match again after an undo: same started_at, the new report replaces it.
    for line in ("undo", "point", "point", "point"):  # B equalizes in his inning: a draw
        assert t.line(line) is None, line
    again = t.report_doc()
    assert again["report"]["started_at"] == report["report"]["started_at"] and again["result"] == "draw"
    kind, data = hall.handle("carom/t1/report", json.dumps(again).encode(), 14.0)[-1]
    assert kind == "result" and data["replaces"] == first[-1][1]["result"]["id"]
    assert [r.doc["result"] for r in hall.results] == ["draw", "A"]  # in the old one's place
    # The first report delivered late once more: seen before, dropped.
    assert hall.handle("carom/t1/report", text.encode(), 15.0) == []
    assert len(hall.results) == 2
    # Without a wall clock (started_at null) only identical reports merge.
    t3 = finished("t3")
    t3.started_at = None
    hall.handle("carom/t3/report", json.dumps(t3.report_doc()).encode(), 16.0)
    t3.line("undo")
    t3.line("point")
    hall.handle("carom/t3/report", json.dumps(t3.report_doc()).encode(), 17.0)
    assert [r.table for r in hall.results] == ["t1", "t2", "t3", "t3"]


def test_csv_cells():
    hall = Hall()
    t = sim_table("t1", ["point", "point", "point", "miss"])
    doc = t.report_doc()
    doc["players"]["A"]["name"] = "=HYPERLINK(1)"
    hall.handle("carom/t1/report", json.dumps(doc).encode(), 1764489600.0)
    rows = list(csv.DictReader(io.StringIO(hall.results_csv(lambda e: "" if e is None else "T%d" % e))))
    assert len(rows) == 1
    r = rows[0]
    assert r["name_A"] == "'=HYPERLINK(1)" and r["name_B"] == "Bela Nagy"
    assert (r["score_A"], r["score_B"], r["result"], r["winner"], r["game"]) == (
        "3",
        "0",
        "A",
        "'=HYPERLINK(1)",
        "three_cushion",
    )
    assert r["received_at"] == "T1764489600" and r["table"] == "t1" and r["innings_A"] == "1"


def test_addresses():
    assert parse_broker("10.0.0.5") == ("10.0.0.5", 1883)
    assert parse_broker("broker.local:1884") == ("broker.local", 1884)
    assert parse_broker("[::1]:1885") == ("::1", 1885) and parse_broker("::1") == ("::1", 1883)
    for bad in ("", "host:x", "host:0", "host:70000"):
        with pytest.raises(ValueError):
            parse_broker(bad)
    assert parse_listen(":0") == ("127.0.0.1", 0)


# ---- `carom hall` against a real mosquitto --------------------------------------------------------


@contextlib.contextmanager
def running_hall(*extra):
    """A mosquitto of its own and `carom hall` connected to it (hall.broker_port: the broker's)."""
    with running_mosquitto() as m:
        h = HallProc(m.port, *extra)
        h.broker_port = m.port
        try:
            h.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
            yield h
        finally:
            h.stop()


@pytest.fixture(scope="module")
def broker():
    """One mosquitto for the whole file (the `hall` fixture, module-wide, stays connected to it)."""
    with running_mosquitto() as m:
        yield m


@pytest.fixture(scope="module")
def hall(broker):
    h = HallProc(broker.port)
    h.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
    yield h
    assert h.stop() == 0, "\n".join(h.lines)
    assert "carom hall: stopping" in h.lines


@pytest.fixture
def boards(broker):
    """Simulated boards: boards("t1") connects one (status online, its will offline)."""
    from tools.hall.loadgen import Board

    made = []

    def make(table, port=None):
        b = Board("127.0.0.1", port or broker.port, table).wait()
        made.append(b)
        return b

    yield make
    for b in made:
        try:
            b.close()
        except Exception:
            pass


def test_tiles_show_each_tables_match(hall, boards, browser):
    page = Page(browser, hall.url)
    t1 = sim_table("t1", name="Table 1")
    t2 = sim_table("t2", ["point", "miss", "point", "point"], target=30)  # B: a run of 2 in his first inning
    b1, b2 = boards("t1"), boards("t2")
    b1.state(t1.doc())
    b2.state(t2.doc())
    tile = page.wait_tile("t2", lambda t: t["B"]["score"] == "2", "t2 after B's run of 2")
    assert tile["A"] == {"name": "Anna Kovacs", "score": "1", "innings": "1", "at_table": "false"}
    assert tile["B"] == {"name": "Bela Nagy", "score": "2", "innings": "1", "at_table": "true"}
    assert tile["run"] == "Run 2" and tile["countdown"] == "" and tile["status"] == "online"
    assert tile["game"] == "Three-cushion · 30" and tile["label"] == "online"
    # Table 1 plays on: three points for A reach the target of 3; B gets his equalizing inning.
    for expect_countdown in ("Last 2", "Last 1"):
        t1.line("point")
        b1.state(t1.doc())
        page.wait_tile("t1", lambda t: t["countdown"] == expect_countdown, "t1 countdown " + expect_countdown)
    t1.line("point")
    b1.state(t1.doc())
    tile = page.wait_tile("t1", lambda t: t["eq"] == "Equalizing inning", "t1 in the equalizing inning")
    assert tile["A"]["score"] == "3" and tile["B"]["at_table"] == "true" and tile["result"] == ""
    t1.line("miss")
    b1.state(t1.doc())
    tile = page.wait_tile("t1", lambda t: t["result"] == "Anna Kovacs wins", "t1's result")
    assert tile["eq"] == "" and tile["run"] == "" and tile["countdown"] == ""
    # The API says the same, with the documents as published.
    api = hall.table("t1")
    assert api["state"] == json.loads(json.dumps(t1.doc())) and api["status"] == "online"
    assert api["updates"] == 5
    page.close()


FMT_JS = """(id) => {
  const t = document.querySelector('.tile[data-table="' + CSS.escape(id) + '"]');
  if (!t) return null;
  const q = s => t.querySelector(s);
  const box = t.getBoundingClientRect();
  // Every text shown whole: inside its tile and not cut by an ellipsis.
  const cut = [...t.querySelectorAll('.t-fmt, .p-name, .p-target, .p-inn, .p-score, .p-sets, .tile-foot span')]
    .filter(e => e.textContent && getComputedStyle(e).display !== 'none')
    .filter(e => { const r = e.getBoundingClientRect();
                   return e.scrollWidth > e.clientWidth + 1 || r.right > box.right + 1 || r.bottom > box.bottom + 1; })
    .map(e => e.className + ': ' + e.textContent);
  const side = p => ({target: q('[data-player=' + p + '] .p-target').textContent,
                      sets: q('[data-player=' + p + '] .p-sets').textContent,
                      score: q('[data-player=' + p + '] .p-score').textContent,
                      at_table: q('[data-player=' + p + ']').dataset.atTable});
  return {fmt: q('.t-fmt').textContent, game: q('.t-game').textContent, phase: q('.f-phase').textContent,
          run: q('.f-run').textContent,
          countdown: q('.f-countdown').textContent, result: q('.f-result').textContent,
          fmt_px: Math.round(parseFloat(getComputedStyle(q('.t-fmt')).fontSize)), A: side('A'), B: side('B'), cut};
}"""


def fmt_table(table, options, lines, target=15):
    """A table playing one of the formats (handicap, sets, shoot-out, warm-up)."""
    from tools.hall.loadgen import SimTable

    t = SimTable(table, target=target, options=options, names=("Anna Kovacs", "Bela Nagy"))
    for line in lines:
        assert t.line(line) is None, line
    return t


@needs_mosquitto
def test_tiles_show_handicap_sets_shootout_and_warmup(browser):
    """The formats on the hall's tiles at 1920x1080 with eight tables: each player's target in a
    handicap, the sets won and the sets' scores, the shoot-out's round and its deciding runs, the
    warm-up's clock; every text whole in its tile. The results list says the format too. (A
    broker and a hall of its own: the module's keep other tables.)"""
    from tools.hall.loadgen import Board

    with running_mosquitto() as broker:
        hall = HallProc(broker.port)
        made = {}

        def boards(table):
            if table not in made:
                made[table] = Board("127.0.0.1", broker.port, table).wait()
            return made[table]

        try:
            hall.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
            formats_on_tiles(hall, boards, browser)
        finally:
            for b in made.values():
                b.close()
            hall.stop()


def formats_on_tiles(hall, boards, browser):
    page = Page(browser, hall.url)
    tables = {
        "t1": fmt_table("t1", "target_A=30 target_B=22", ["point"]),
        "t2": fmt_table(
            "t2",
            "sets=2 deciding_target=10",
            ["point"] * 15
            + ["point"] * 9
            + ["miss", "next_set"]
            + ["point"] * 15
            + ["point"] * 12
            + ["miss", "next_set", "lag A", "choose A break", "point", "point", "point"],
        ),
        "t3": fmt_table("t3", "draw=off shootout=on", ["point"] * 60 + ["point", "point"], target=30),
        "t4": fmt_table("t4", "warmup_s=300", ["warmup A", "wait 15"]),
    }
    for i in range(5, 9):  # plain matches beside them: eight tiles on the screen
        tables["t%d" % i] = sim_table("t%d" % i, ["point"], target=30)
    for t in tables.values():
        boards(t.table).state(t.doc())
    for table in tables:
        page.wait_tile(table, lambda t: t["A"]["name"], table)

    def tile(table, check, what):
        return wait_for(lambda: page.page.evaluate(FMT_JS, table), lambda t: t is not None and check(t), 15, what)

    got = tile("t1", lambda t: t["fmt"] == "30:22 handicap", "t1's handicap")
    assert got["game"] == "Three-cushion · 30:22" and (got["A"]["target"], got["B"]["target"]) == ("30", "22")
    assert got["A"]["sets"] == "" and not got["cut"], got
    got = tile("t2", lambda t: t["fmt"] == "sets 1:1 (15:9, 12:15) · set 3", "t2's third set")
    assert (got["A"]["sets"], got["B"]["sets"], got["A"]["score"], got["B"]["score"]) == ("1", "1", "3", "0")
    assert got["game"] == "Three-cushion · 10 · best of 3" and got["A"]["target"] == "" and not got["cut"], got
    got = tile("t3", lambda t: t["fmt"] == "30:30, shoot-out round 1 2:0", "t3's shoot-out")
    assert got["phase"] == "Shoot-out" and got["countdown"] == "" and not got["cut"], got
    got = tile("t4", lambda t: t["phase"].startswith("Warm-up 4:"), "t4's warm-up clock")
    assert got["fmt"] == "" and (got["A"]["at_table"], got["B"]["at_table"]) == ("true", "false") and not got["cut"]
    assert got["run"] == ""
    tables["t4"].line("warmup B")  # B's follows A's: his row is marked
    boards("t4").state(tables["t4"].doc())
    got = tile("t4", lambda t: t["B"]["at_table"] == "true", "t4: B's warm-up")
    assert got["phase"] in ("Warm-up 5:00", "Warm-up 4:59", "Warm-up 4:58") and got["A"]["at_table"] == "false", got
    for t in range(5, 9):
        assert page.page.evaluate(FMT_JS, "t%d" % t)["fmt"] == ""
    assert tile("t2", lambda t: True, "t2")["fmt_px"] >= 14  # readable across the hall
    # The shoot-out decided (A's run of 2, B's of 1) and a set match ended: tiles and results.
    for line in ("miss", "point", "miss"):
        assert tables["t3"].line(line) is None
    for line in ["point"] * 7 + ["miss"]:
        assert tables["t2"].line(line) is None, line
    for table in ("t2", "t3"):
        b = boards(table)
        b.state(tables[table].doc())
        b.report(tables[table].report_doc()).wait_for_publish(5)
    got = tile("t3", lambda t: t["fmt"] == "30:30, shoot-out 2:1", "t3's shoot-out decided")
    assert got["result"] == "Anna Kovacs wins" and not got["cut"], got
    got = tile("t2", lambda t: t["fmt"] == "sets 2:1 (15:9, 12:15, 10:0)", "t2 decided")
    assert not got["cut"], got
    rows = wait_for(lambda: {r[1]: r for r in page.results()}, lambda r: len(r) == 2, what="two results")
    assert rows["Table 3"][-2:] == ["30:30, shoot-out 2:1", "Anna Kovacs wins"]
    assert rows["Table 2"][-2:] == ["sets 2:1 (15:9, 12:15, 10:0)", "Anna Kovacs wins"]
    assert rows["Table 2"][4] == "37 – 24"  # a set match's score: over all its sets
    page.close()


def test_power_cut_shows_offline(hall, boards, browser):
    page = Page(browser, hall.url)
    b = boards("t3")
    t = sim_table("t3", ["point"])
    b.state(t.doc())
    page.wait_tile("t3", lambda x: x["status"] == "online" and x["A"]["score"] == "1", "t3 online")
    b.power_cut()  # no DISCONNECT: the broker publishes the board's will
    tile = page.wait_tile("t3", lambda x: x["status"] == "offline", "t3 offline after its will")
    assert tile["label"] == "OFFLINE" and tile["A"]["score"] == "1"  # the last known match stays
    assert hall.table("t3")["status"] == "offline"
    # A page opened now gets it from the snapshot.
    other = Page(browser, hall.url)
    assert other.tile("t3")["status"] == "offline"
    # Power back: the board connects again ("online"), the same match.
    b2 = boards("t3")
    b2.state(t.doc())
    page.wait_tile("t3", lambda x: x["status"] == "online", "t3 online again")
    page.close()
    other.close()


def test_reports_twice_appear_once(hall, boards, browser):
    page = Page(browser, hall.url)
    b = boards("t4")
    t = sim_table("t4", ["point", "point", "point", "miss"], name="Table 4")
    text = json.dumps(t.report_doc())
    b.state(t.doc())
    for _ in range(2):  # QoS 1 may deliver it twice; a board resends after a power cut
        b.report(text).wait_for_publish(5)
    b.report(json.dumps(dict(reversed(list(json.loads(text).items()))))).wait_for_publish(5)  # other key order
    other = boards("t5")
    t5 = sim_table("t5", ["point", "miss", "miss", "point", "point", "point", "miss"], name="Table 5")
    other.report(t5.report_doc()).wait_for_publish(5)  # a sentinel: everything before it has arrived
    wait_for(lambda: len(page.results()), 2, what="rows in the results list")
    wait_for(lambda: hall.get("/api/tables")["counts"]["duplicates"], 2, what="duplicates counted")
    rows = page.results()
    assert [r[1] for r in rows] == ["Table 5", "Table 4"]  # newest first
    assert rows[1][3:6] == ["Anna Kovacs", "3 – 0", "Bela Nagy"] and rows[1][-1] == "Anna Kovacs wins"
    assert page.page.text_content("#result-count") == "2"
    assert page.page.get_attribute("#csv", "href") == "/results.csv"
    assert page.page.get_attribute("#json", "href") == "/results.json"
    data, headers = hall.get("/results.csv", raw=True)
    assert headers["Content-Type"] == "text/csv; charset=utf-8" and "attachment" in headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
    assert [(r["table"], r["name"], r["score_A"], r["score_B"], r["winner"]) for r in rows] == [
        ("t4", "Table 4", "3", "0", "Anna Kovacs"),
        ("t5", "Table 5", "3", "1", "Anna Kovacs"),
    ]
    exported = hall.get("/results.json")
    assert [e["hall"]["table"] for e in exported] == ["t4", "t5"]
    assert {k: v for k, v in exported[0].items() if k != "hall"} == json.loads(text)  # the report as sent
    # The board finishes the same match again after an undo: its new report takes the old one's place.
    for line in ("undo", "point", "point", "point"):
        assert t.line(line) is None
    b.report(t.report_doc()).wait_for_publish(5)
    wait_for(lambda: page.results()[1][-1], "Draw", what="the replaced row")
    assert len(page.results()) == 2 and [e["result"] for e in hall.get("/results.json")] == ["draw", "A"]
    page.close()


def test_abandoned_reads_apart_from_left(hall, boards, browser):
    """A player who abandons loses and is excluded (I.8.2), one who leaves his place loses
    the match (I.4.3): the tile and the results list say which, from the board's own documents."""
    page = Page(browser, hall.url)
    t6 = sim_table("t6", ["point", "abandon B"], name="Table 6")
    t7 = sim_table("t7", ["point", "miss", "left A"], name="Table 7")
    for t in (t6, t7):
        b = boards(t.table)
        b.state(t.doc())
        b.report(t.report_doc()).wait_for_publish(5)
    page.wait_tile("t6", lambda t: t["result"] == "Anna Kovacs wins (Bela Nagy abandoned)", "t6's result")
    page.wait_tile("t7", lambda t: t["result"] == "Bela Nagy wins (Anna Kovacs left)", "t7's result")
    rows = wait_for(
        lambda: {r[1]: r[-1] for r in page.results()},
        lambda r: "Table 6" in r and "Table 7" in r,
        what="t6's and t7's rows",
    )
    assert rows["Table 6"] == "Anna Kovacs wins (Bela Nagy abandoned)"
    assert rows["Table 7"] == "Bela Nagy wins (Anna Kovacs left)"
    ended = {r["table"]: r["ended_by"] for r in hall.get("/api/results")["results"]}
    assert (ended["t6"], ended["t7"]) == ("abandoned", "left")
    page.close()


def test_results_file_and_reports_while_away(broker, boards, tmp_path):
    """--results keeps the list across restarts; a report published while the hall was away arrives later."""
    path = str(tmp_path / "results.jsonl")
    args = ("--results", path, "--client-id", "carom-hall-test-away")
    h = HallProc(broker.port, *args)
    h.wait_line(r"connected")
    b = boards("t6")
    first = sim_table("t6", ["point", "point", "point", "miss"], name="Table 6").report_doc()
    b.report(first).wait_for_publish(5)
    wait_for(lambda: len(h.get("/results.json")), 1, what="the first report")
    assert h.stop() == 0
    second = sim_table("t6", ["miss", "point", "point", "point"], name="Table 6")
    second.started_at += 3600
    b.report(second.report_doc()).wait_for_publish(5)  # the hall is away: the broker keeps it for its session
    b.report(first).wait_for_publish(5)  # and a late duplicate of the first
    h = HallProc(broker.port, *args)
    assert any("1 results read from" in line for line in h.lines)
    wait_for(lambda: [e["result"] for e in h.get("/results.json")], ["A", "B"], what="both reports, once each")
    # The late duplicate of the first was counted as one, and added nothing.
    wait_for(lambda: h.get("/api/tables")["counts"]["duplicates"], 1, what="the late duplicate counted")
    assert len(h.get("/results.json")) == 2 and h.get("/api/tables")["counts"]["duplicates"] == 1
    assert h.stop() == 0
    with open(path) as f:
        assert len(f.readlines()) == 2


def test_broker_restart(boards, browser):
    """The broker stops and comes back on the same port: the dashboard reconnects and goes on updating."""
    if not available():
        pytest.skip("mosquitto is not installed")
    m = Mosquitto().start()
    h = HallProc(m.port)
    try:
        h.wait_line(r"connected")
        page = Page(browser, h.url)
        b = boards("t7", m.port)
        t = sim_table("t7")
        t.line("point")
        b.state(t.doc())
        page.wait_tile("t7", lambda x: x["A"]["score"] == "1", "t7 before the restart")
        m.stop()
        wait_for(
            lambda: page.page.get_attribute("body", "data-broker"), "down", what="the page says the broker is lost"
        )
        assert "not connected" in page.page.text_content("#banner")
        assert page.tile("t7")["A"]["score"] == "1"  # the last known state stays on the tile
        assert h.get("/api/tables")["broker"]["connected"] is False
        m.start()
        wait_for(
            lambda: page.page.get_attribute("body", "data-broker"),
            "up",
            timeout=20,
            what="the page says the broker is back",
        )
        assert page.page.text_content("#banner") == ""
        b.wait(20)  # the board's own client reconnects too
        t.line("point")
        b.state(t.doc())
        page.wait_tile("t7", lambda x: x["A"]["score"] == "2", "t7 after the restart")
        assert h.get("/api/tables")["broker"]["connects"] == 2
        page.close()
    finally:
        h.stop()
        m.close()


def test_cli_errors(broker):
    out = subprocess.run([CAROM, "hall", "--broker", "host:x"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 1 and "carom: --broker wants HOST[:PORT]" in out.stderr
    h = HallProc(broker.port)
    try:
        port = h.url.rsplit(":", 1)[1]
        out = subprocess.run(
            [CAROM, "hall", "--broker", "127.0.0.1:%d" % broker.port, "--listen", "127.0.0.1:" + port],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert out.returncode == 1 and "cannot serve on 127.0.0.1:%s" % port in out.stderr
        data, headers = h.get("/", raw=True)
        assert b"Carom hall" in data and headers["Content-Type"] == "text/html; charset=utf-8"
        req = urllib.request.Request(h.url + "/api/tables", data=b"{}", method="POST")
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req, timeout=10)
        assert e.value.code == 405
    finally:
        assert h.stop() == 0


def test_a_keyed_tables_reports_must_be_signed_with_its_key():
    """What a stranger on the broker tries against a table the hall keyed (t1): its report unsigned,
    signed with another key, signed and then changed (the winner swapped), the tag in capitals; all
    dropped by name. Signed with t1's key it counts (signed). A table the hall has no key for (t2)
    is taken unsigned, its tail (if its board has a key) cut off, and marked so."""
    from host_tools.hall.setups import sign_report

    key = bytes(range(32))
    hall = Hall(key_for={"t1": key}.get)
    doc = finished().report_doc()
    data = json.dumps(doc).encode()
    b_won = dict(doc, result="B")
    tries = {"unsigned": data, "signature": sign_report(bytes(32), data)}
    for kind, payload in tries.items():
        assert hall.handle("carom/t1/report", payload, 1.0) == [] and hall.counts["dropped"][kind] == 1
    swapped = sign_report(key, data)[:-65].replace(b'"result": "A"', b'"result": "B"') + sign_report(key, data)[-65:]
    assert swapped != sign_report(key, data) and json.loads(swapped[:-65])["result"] == "B"
    assert hall.handle("carom/t1/report", swapped, 2.0) == [] and hall.counts["dropped"]["signature"] == 2
    upper = data + b" " + sign_report(key, data)[-64:].upper()
    assert hall.handle("carom/t1/report", upper, 3.0) == [] and hall.counts["dropped"]["unsigned"] == 2
    assert hall.handle("carom/t1/report", sign_report(key, json.dumps(b_won).encode()), 4.0)[-1][0] == "result"
    assert len(hall.results) == 1 and hall.results[0].signed and hall.results[0].doc["result"] == "B"
    assert hall.handle("carom/t2/report", sign_report(bytes(32), data), 5.0)[-1][0] == "result"
    assert hall.handle("carom/t3/report", data, 6.0)[-1][0] == "result"
    assert [(r.table, r.signed, r.doc["result"]) for r in hall.results] == [
        ("t1", True, "B"),
        ("t2", False, "A"),
        ("t3", False, "A"),
    ]
    assert json.loads(hall.results[0].json_bytes())["hall"]["signed"] is True

"""The hall's load generator (tools.hall.loadgen), and the dashboard under load, counted
(never timed): 64 boards publishing at once.

The generator: its documents pass the hall's schema in every format; its demo keeps real time (on
a clock the test moves: a match's elapsed time and its report's end are the clock's); its
showcase has a table in every state a tile shows (each phase, a draw, a win, an offline board),
and a real `carom hall` shows them all.

64 simulated boards (paho clients, real state documents from the firmware's modules) each
publish a state change every 0.1 s on average (100 times a hall's real rate), 6 changes each,
through a real mosquitto to `carom hall`, with the TV and the organiser's page open in Chromium
(the 64 tables are the tournament's: the organiser's page lists them).  Checked: every update
reached the event stream and the organiser's page, the hall counted each table's updates, its
API, the TV and the organiser's list end on each table's last document, and every report of a
finished match is in the results list once.
The delays are measured by `make bench` (tools/bench/hall.py), not here.
"""

import json
import random

import pytest

from tools.bench.hall import ORGANISER_JS, measure
from host_tools.hall import schema
from tools.hall.loadgen import FORMATS, SHOWCASE, Board, DemoHall, SimTable, showcase
from helpers import needs_mosquitto, running_mosquitto, wait_for
from tools.run.hall import ORGANISER_ROWS_JS, HallProc, Page


TABLES = 64
EACH = 6

SCORES_JS = """() => Object.fromEntries([...document.querySelectorAll('.tile')].map(t => [t.dataset.table,
    ['A', 'B'].map(p => t.querySelector('[data-player=' + p + '] .p-score').textContent)]))"""


@needs_mosquitto
@pytest.mark.alone  # 640 updates a second, counted: with other tests beside it the hall falls behind
def test_64_boards_every_update_arrives(broker, browser):
    from test_hall_organiser import post

    hall = HallProc(broker.port)
    boards = []
    try:
        hall.wait_line(r"connected")
        for i in range(TABLES):
            assert post(hall, "table", {"table": "load%d" % (i + 1)}) == (200, {"ok": True})
        sims = [SimTable("load%d" % (i + 1), random.Random(i), target=3) for i in range(TABLES)]
        boards = [Board("127.0.0.1", broker.port, s.table) for s in sims]
        for b, s in zip(boards, sims):
            b.wait()
            b.state(s.doc())
        page = Page(browser, hall.url)
        wait_for(
            lambda: page.page.evaluate("document.querySelectorAll('.tile[data-table^=load]').length"),
            TABLES,
            what="a tile per table",
        )
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        organiser = context.new_page()
        organiser.add_init_script(ORGANISER_JS)
        organiser.goto(hall.url + "/organiser")
        organiser.wait_for_selector("body[data-ready=true]")
        wait_for(lambda: len(organiser.evaluate(ORGANISER_ROWS_JS)), TABLES, what="the organiser's 64 tables")
        before = {t["table"]: t["updates"] for t in hall.get("/api/tables")["tables"]}
        r = measure(
            hall.url, boards, sims, 0.1, updates=TABLES * EACH, page=page.page, settle_s=60, organiser=organiser
        )
        assert r["published"] == TABLES * EACH
        assert r["missing"] == 0 and r["arrived"] == r["published"], r
        assert r["sse_repeats"] == 0  # each update once on the stream (again only when a report renamed the table)
        assert r["reports"] > 0
        last = {s.table: json.loads(json.dumps(s.doc())) for s in sims}
        tables = {t["table"]: t for t in hall.get("/api/tables")["tables"]}
        published = {}
        for s in sims:
            t = tables[s.table]
            published[s.table] = t["updates"] - before[s.table]
            state = dict(t["state"])
            assert state.pop("seq") == published[s.table] and state.pop("t_pub")
            assert state == last[s.table], s.table
        assert sum(published.values()) == TABLES * EACH
        results = [e for e in hall.get("/results.json") if e["hall"]["table"].startswith("load")]
        assert len(results) == r["reports"]
        want = {k: [str(d["players"]["A"]["score"]), str(d["players"]["B"]["score"])] for k, d in last.items()}
        wait_for(
            lambda: {k: v for k, v in page.page.evaluate(SCORES_JS).items() if k in want},
            want,
            what="every tile on its table's last score",
        )
        # The organiser's page handled every update (each once or more: a report's rename sends it again)
        # and lists each table with its last score.
        sent = {(s.table, seq) for s in sims for seq in range(1, published[s.table] + 1)}
        wait_for(
            lambda: len({(t, q) for t, q, _, _ in organiser.evaluate("() => window.__handled")} & sent),
            TABLES * EACH,
            60,
            "every update handled by the organiser's page",
        )
        scores = {k: "%s:%s" % tuple(v) for k, v in want.items()}
        wait_for(
            lambda: {k: v.rsplit(" ", 1)[-1] for k, v in organiser.evaluate(ORGANISER_ROWS_JS).items()},
            scores,
            60,
            "the organiser's list on each table's last score",
        )
        assert organiser.evaluate("() => [window.__opens, window.__errors]") == [1, []]  # never dropped, no error
        context.close()
        page.close()
    finally:
        for b in boards:
            b.close()
        assert hall.stop() == 0


# ---- the generator itself ----------------------------------------------------------------------


class Clock:
    """A wall clock the test moves (seconds since the epoch)."""

    def __init__(self, t=1_780_000_000.0):
        self.t = t

    def __call__(self):
        return self.t


def checked(doc, report):
    """doc and report as the hall takes them from the broker (bytes, parsed, checked): Invalid if not."""
    schema.state(json.dumps(doc).encode())
    if report is not None:
        schema.report(json.dumps(report).encode())


def test_every_format_passes_the_halls_schema_and_shows_every_phase():
    seen_phases, seen_results, seen_endings = set(), set(), set()
    reports = 0
    for fmt, options in sorted(FORMATS.items()):
        for seed in range(3):
            t = SimTable("t1", random.Random(seed), target=5, options=options(5), lag=seed == 0)
            for _ in range(400):
                doc, report = t.step()
                checked(doc, report)
                reports += report is not None
                seen_phases.add(doc["phase"])
                seen_results.add(doc["result"])
                seen_endings.add(doc.get("ended_by"))
    assert seen_phases == set(schema.PHASES)
    assert {"A", "B", "draw", "tiebreak"} <= seen_results
    assert {"target", "innings_limit", "tiebreak", "shootout"} <= seen_endings
    assert reports > 50


def test_the_demo_keeps_real_time():
    """Each step lets the clock's time pass on the match: the match's elapsed time, its report's end
    and the next match's start are the clock's (the results said 07:25 at 07:06 before: each stroke
    took 8 to 40 s of the match's clock while the demo made one every 3 s)."""
    clock = Clock()
    start = clock.t
    t = SimTable("t1", random.Random(5), target=3, clock=clock)
    assert t.started_at == int(start)
    reports = []
    first = None  # (clock, elapsed_s) when the match's time began (at its first stroke)
    while len(reports) < 2:
        clock.t += 3.25
        doc, report = t.step()
        checked(doc, report)
        if report is not None:
            reports.append((clock.t, report))
        if t.matches == 1 and doc["elapsed_s"] is not None and doc["result"] is None:  # it stops at the end
            first = first or (clock.t, doc["elapsed_s"])
            assert abs((doc["elapsed_s"] - first[1]) - (clock.t - first[0])) <= 1, (doc["elapsed_s"], clock.t, first)
    assert first is not None
    (at1, r1), (at2, r2) = reports
    assert abs(r1["report"]["ended_at"] - at1) <= 1 and r1["report"]["started_at"] == int(start)
    # The next match began FINISHED_S after the first one ended (on the clock), and ended when the clock says.
    assert abs(r2["report"]["started_at"] - (at1 + SimTable.FINISHED_S)) <= 4
    assert abs(r2["report"]["ended_at"] - at2) <= 1


def test_showcase_has_a_table_in_every_state():
    clock = Clock()
    tables = showcase(target=15, clock=clock)
    assert [what for what, _ in tables] == [s[0] for s in SHOWCASE]
    docs = {what: t.doc() for what, t in tables}
    for what, t in tables:
        checked(docs[what], None)
        assert t.started_at <= clock.t
    assert {d["phase"] for d in docs.values()} == set(schema.PHASES)
    assert docs["draw"]["result"] == "draw" and docs["won"]["result"] in ("A", "B")
    assert docs["handicap"]["target"] is None and docs["handicap"]["players"]["B"]["target"] < 15
    assert docs["set_over"]["sets"]["number"] >= 1 and docs["shootout"]["shootout"] is not None
    assert docs["warmup"]["warmup"]["player"] == "A"


def tile_states(hall):
    return {
        t["table"]: (t["status"], (t.get("state") or {}).get("phase"), (t.get("state") or {}).get("result"))
        for t in hall.get("/api/tables")["tables"]
    }


@needs_mosquitto
def test_the_demo_hall_shows_every_state_and_an_offline_board_comes_back(browser):
    """The showcase through a real mosquitto to `carom hall`: each table's state on the API and its
    tile; the offline board is OFFLINE on its tile, then back online when it is switched on."""
    clock = Clock()
    with running_mosquitto() as broker:
        hall = HallProc(broker.port)
        demo = None
        try:
            hall.wait_line(r"connected")
            shown = showcase(target=15, clock=clock)
            demo = DemoHall(
                "127.0.0.1", broker.port, "carom", [t for _, t in shown], random.Random(1), offline_s=0, clock=clock
            )
            off = [what for what, _ in shown].index("offline")
            demo.power_cut(off, 60)
            want = {
                t.table: ("offline" if what == "offline" else "online", t.doc()["phase"], t.doc()["result"])
                for what, t in shown
            }
            wait_for(
                lambda: {k: v for k, v in tile_states(hall).items() if k in want},
                want,
                30,
                "every table's state on the hall",
            )
            page = Page(browser, hall.url)
            tile = page.wait_tile(shown[off][1].table, lambda t: t["status"] == "offline", "the offline tile")
            assert tile["label"].strip().upper() == "OFFLINE"
            page.wait_tile(shown[0][1].table, lambda t: t["status"] == "online", "the lag's tile")
            page.wait_scores(shown)  # every tile drawn with its table's score
            # The finished matches' reports are in the results, once each.
            finished = sorted(t.table for _, t in shown if t.finished())
            assert len(finished) == 2
            wait_for(
                lambda: sorted(e["hall"]["table"] for e in hall.get("/results.json")),
                finished,
                30,
                "the draw's and the win's reports in the results",
            )
            # Switched on again: the next tick reconnects it ("online", its match as it stood).
            clock.t += 61
            demo.tick(3.0)
            wait_for(lambda: tile_states(hall)[shown[off][1].table][0], "online", 30, "the board back online")
            page.wait_tile(shown[off][1].table, lambda t: t["status"] == "online", "the tile online again")
            page.close()
        finally:
            if demo is not None:
                demo.close()
            assert hall.stop() == 0

"""The hall dashboard under load, counted (never timed): 64 boards publishing at once.

64 simulated boards (paho clients, real state documents from the firmware's modules) each
publish a state change every 0.1 s on average (100 times a hall's real rate), 6 changes each,
through a real mosquitto to `carom hall`, with a page open in Chromium.  Checked: every update
reached the event stream, the hall counted each table's updates, its API and the page end on
each table's last document, and every report of a finished match is in the results list once.
The delays are measured by `make bench` (host_tools/bench/hall.py), not here.
"""

import json
import random

import pytest

from host_tools.bench.hall import measure
from host_tools.hall.loadgen import Board, SimTable
from helpers import wait_for
from mosquitto import available
from test_hall import HallProc, Page

pytestmark = pytest.mark.skipif(not available(), reason="mosquitto is not installed (tools/deps.sh installs it)")

TABLES = 64
EACH = 6

SCORES_JS = """() => Object.fromEntries([...document.querySelectorAll('.tile')].map(t => [t.dataset.table,
    ['A', 'B'].map(p => t.querySelector('[data-player=' + p + '] .p-score').textContent)]))"""


def test_64_boards_every_update_arrives(broker, browser):
    hall = HallProc(broker.port)
    boards = []
    try:
        hall.wait_line(r"connected")
        sims = [SimTable("load%d" % (i + 1), random.Random(i), target=3) for i in range(TABLES)]
        boards = [Board("127.0.0.1", broker.port, s.table) for s in sims]
        for b, s in zip(boards, sims):
            b.wait()
            b.state(s.doc())
        page = Page(browser, hall.url)
        wait_for(lambda: page.page.evaluate("document.querySelectorAll('.tile[data-table^=load]').length"), TABLES,
                 what="a tile per table")
        before = {t["table"]: t["updates"] for t in hall.get("/api/tables")["tables"]}
        r = measure(hall.url, boards, sims, 0.1, updates=TABLES * EACH, page=page.page, settle_s=60)
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
        wait_for(lambda: {k: v for k, v in page.page.evaluate(SCORES_JS).items() if k in want}, want,
                 what="every tile on its table's last score")
        page.close()
    finally:
        for b in boards:
            b.close()
        assert hall.stop() == 0

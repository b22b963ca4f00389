"""Load benchmark of the hall dashboard; prints one JSON line (tools/bench/hall.py prints the table).

A real mosquitto on a free loopback port, `carom hall` as a subprocess, 64 simulated boards
(paho clients publishing real state documents from the firmware's modules; reports when a
match ends), an event-stream client and a page in Debian's Chromium.  Two phases, each bounded
in time and count, stopping by themselves:

    100 x, TV only          one every 0.1 s per table (640 a second), for 5 s, at most 4000 updates
    realistic, TV + organiser   one state change per table every 10 s on average, for 30 s (about 190
                            updates), the organiser's page open too (its own Chromium context)
    100 x, TV + organiser   as the first, with both pages open

The 64 tables are the tournament's (added on the organiser's API, no draw): each update reaches the
organiser's side of the hall and its page's list of tables, which it redraws when what it shows of
a table changes.

    .venv/bin/python tests/bench/bench_hall.py            (about a minute)
"""

import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)

from tools.bench.hall import ORGANISER_JS, measure  # noqa: E402
from tools.hall.loadgen import Board, SimTable  # noqa: E402
from tools.run.mosquitto import Mosquitto, available  # noqa: E402
from tools.run.chromium import CHROMIUM, launch  # noqa: E402
from bench_hall_tournament import read_start  # noqa: E402

TABLES = 64
# (name, interval per table, duration, most updates, the organiser's page open)
PHASES = (
    ("100 x (1 per 0.1 s), TV", 0.1, 5.0, 4000, False),
    ("realistic, TV + organiser", 10.0, 30.0, 1000, True),
    ("100 x, TV + organiser", 0.1, 5.0, 4000, True),
)


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    if not available():
        print(json.dumps({"skipped": "mosquitto is not installed (tools/deps.sh)"}))
        return
    broker = Mosquitto().start()
    carom = os.path.join(os.path.dirname(sys.executable), "carom")
    hall = subprocess.Popen(
        [carom, "hall", "--broker", "127.0.0.1:%d" % broker.port, "--listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    boards = []
    try:
        url, code = read_start(hall.stdout, [])
        import urllib.request

        for i in range(TABLES):  # the tournament's tables: the organiser's page lists them
            req = urllib.request.Request(
                url + "/api/organiser/table",
                data=json.dumps({"table": "t%d" % (i + 1)}).encode(),
                headers={
                    "Content-Type": "application/json",
                    "X-Carom-Hall": "organiser",
                    "X-Carom-Organiser-Code": code,
                },
                method="POST",
            )
            urllib.request.urlopen(req, timeout=10).close()
        sims = [SimTable("t%d" % (i + 1), random.Random(i)) for i in range(TABLES)]
        boards = [Board("127.0.0.1", broker.port, s.table, client_id="bench-%s" % s.table) for s in sims]
        for b, s in zip(boards, sims):
            b.wait()
            b.state(s.doc())
        result = {"tables": TABLES, "phases": []}
        page = browser = pw = organiser = None
        if os.path.exists(CHROMIUM):
            from playwright.sync_api import sync_playwright

            pw = sync_playwright().start()
            browser = launch(pw)
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.goto(url)
            page.wait_for_selector("body[data-ready=true]")
            page.wait_for_function("document.querySelectorAll('.tile').length == %d" % TABLES)
        try:
            for i, (name, interval, duration, cap, with_organiser) in enumerate(PHASES):
                if with_organiser and organiser is None and browser is not None:
                    organiser = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
                    organiser.add_init_script(ORGANISER_JS)
                    organiser.goto(url + "/organiser")
                    organiser.wait_for_selector("body[data-ready=true]")
                    organiser.wait_for_function(
                        "document.querySelectorAll('#tables tr[data-table]').length == %d" % TABLES
                    )
                r = measure(
                    url,
                    boards,
                    sims,
                    interval,
                    duration_s=duration,
                    updates=cap,
                    page=page,
                    seed=i + 1,
                    organiser=organiser if with_organiser else None,
                )
                r["name"] = name
                result["phases"].append(r)
                print(name, json.dumps(r), file=sys.stderr)
        finally:
            if browser is not None:
                browser.close()
                pw.stop()
        with urllib.request.urlopen(url + "/api/tables", timeout=10) as resp:
            api = json.loads(resp.read())
        with urllib.request.urlopen(url + "/results.json", timeout=10) as resp:
            result["results"] = len(json.loads(resp.read()))
        result["hall_counts"] = api["counts"]
        result["hall_cpu_s"] = cpu_seconds(hall.pid)
        print(json.dumps(result))
    finally:
        for b in boards:
            b.close()
        hall.terminate()
        hall.wait(20)
        broker.close()


if __name__ == "__main__":
    main()

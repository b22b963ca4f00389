"""Load benchmark of the hall dashboard; prints one JSON line (host_tools/bench/hall.py prints the table).

A real mosquitto on a free loopback port, `carom hall` as a subprocess, 64 simulated boards
(paho clients publishing real state documents from the firmware's modules; reports when a
match ends), an event-stream client and a page in Debian's Chromium.  Two phases, each bounded
in time and count, stopping by themselves:

    realistic   one state change per table every 10 s on average, for 30 s (about 190 updates)
    100 x       one every 0.1 s per table (640 a second), for 5 s, at most 4000 updates

    .venv/bin/python tests/bench/bench_hall.py            (about a minute)
"""

import json
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "host"))

from host_tools.bench.hall import measure  # noqa: E402
from host_tools.hall.loadgen import Board, SimTable  # noqa: E402
from mosquitto import Mosquitto, available  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
TABLES = 64
PHASES = (("realistic (1 per 10 s)", 10.0, 30.0, 1000), ("100 x (1 per 0.1 s)", 0.1, 5.0, 4000))


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
    hall = subprocess.Popen([carom, "hall", "--broker", "127.0.0.1:%d" % broker.port, "--listen", "127.0.0.1:0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    boards = []
    try:
        url = None
        for line in hall.stdout:
            m = re.search(r"the dashboard is at (http://\S+)", line)
            if m:
                url = m.group(1)
            if url and " connected (" in line:
                break
        sims = [SimTable("t%d" % (i + 1), random.Random(i)) for i in range(TABLES)]
        boards = [Board("127.0.0.1", broker.port, s.table, client_id="bench-%s" % s.table) for s in sims]
        for b, s in zip(boards, sims):
            b.wait()
            b.state(s.doc())
        result = {"tables": TABLES, "phases": []}
        page = browser = pw = None
        if os.path.exists(CHROMIUM):
            from playwright.sync_api import sync_playwright

            pw = sync_playwright().start()
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.goto(url)
            page.wait_for_selector("body[data-ready=true]")
            page.wait_for_function("document.querySelectorAll('.tile').length == %d" % TABLES)
        try:
            for i, (name, interval, duration, cap) in enumerate(PHASES):
                r = measure(url, boards, sims, interval, duration_s=duration, updates=cap, page=page, seed=i + 1)
                r["name"] = name
                result["phases"].append(r)
                print(name, json.dumps(r), file=sys.stderr)
        finally:
            if browser is not None:
                browser.close()
                pw.stop()
        import urllib.request

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

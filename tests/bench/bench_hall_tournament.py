"""A 64-player tournament run by the hall from the draw to the final; prints one JSON line
(tools/bench/hall.py tournament_section prints the table).

A real mosquitto on a free loopback port, a real `carom hall --db FILE --keys FILE` process, and
TABLES simulated boards with hall keys (tools.hall.loadgen.HallBoard): each takes its table's
signed setups, checks them with the firmware's own publisher_hall.check, plays the match each names
(players, targets, options) with the firmware's rules core, a stroke every STROKE_S on average,
and publishes its state and its report as a board does.  Nobody touches the hall after the draw.
An event-stream client (what an organiser's page gets) stamps the "tournament" event that first
names the champion.

    groups then knock-out: 8 groups of 8 (28 matches each, 224), the first 2 of each to a
    knock-out of 16 (15 matches): 239 matches, three-cushion to 15, 16 tables

Measured: the time from the draw to the champion, the hall's peak resident memory (VmHWM of
/proc/<pid>/status) and its CPU time, the setups it sent (its own output lines), the reports the
boards published and the results the hall counted (once each), the tournament events the pages
got and their bytes, the tournament file's size.

    .venv/bin/python tests/bench/bench_hall_tournament.py [--players 64] [--tables 16] [--format groups_knockout]
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)

from tools.hall.loadgen import HallBoard, SSEClient, play  # noqa: E402
from host_tools.hall.setups import Keys  # noqa: E402
from tools.hall.tourneyrun import get, post  # noqa: E402
from tools.run.mosquitto import Mosquitto, available  # noqa: E402

FIRST = ("Anna", "Bela", "Csaba", "Dora", "Erno", "Flora", "Gabor", "Hanna")
LAST = (
    "Kovacs",
    "Nagy",
    "Toth",
    "Szabo",
    "Horvath",
    "Varga",
    "Kiss",
    "Molnar",
    "Farkas",
    "Balogh",
    "Papp",
    "Takacs",
    "Juhasz",
    "Lakatos",
    "Meszaros",
    "Olah",
)
NO_CHAMPION = re.compile(r'"champion":\s*null')
STROKE_S = 0.02  # a stroke per table every 20 ms on average: about 500 x a real match's pace (one per 10 s)


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory_kb(pid):
    """{"VmHWM": peak resident kB, "VmRSS": resident kB now} of a process."""
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS"):
                out[key] = int(value.split()[0])
    return out


class Tournaments:
    """The "tournament" events of an event stream: how many, their bytes, when the champion came."""

    def __init__(self):
        self.events = 0
        self.bytes = 0
        self.champion = None  # (name, arrival time)
        self.done = threading.Event()
        self.reconnects = 0

    def __call__(self, kind, data, arrived):
        if kind != "tournament":
            return
        self.events += 1
        self.bytes += len(data)
        if self.champion is None and not NO_CHAMPION.search(data):
            doc = json.loads(data)
            if doc.get("champion"):
                self.champion = (doc["champion"], arrived)
                self.done.set()


def read_start(out, lines):
    """(the dashboard's URL, the organiser's code) from the hall's output, read (into lines)
    until it is connected to the broker."""
    url = code = None
    for line in out:
        lines.append(line)
        m = re.search(r"the dashboard is at (http://\S+)", line)
        if m:
            url = m.group(1)
        m = re.search(r"the organiser signs in with the code (\S+)", line)
        if m:
            code = m.group(1)
        if url and " connected (" in line:
            break
    return url, code


def tournament_config(args):
    """The tournament's configuration from the command line: its format, groups, who advances."""
    config = {
        "name": "Bench open",
        "format": args.format,
        "game_options": {"game": "three_cushion", "target": args.target},
    }
    if args.format != "knockout":
        config["groups"] = args.groups if args.format == "groups_knockout" else 1
    if args.format == "groups_knockout":
        config["advance"] = 2
    return config


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=64)
    ap.add_argument("--tables", type=int, default=16)
    ap.add_argument("--format", default="groups_knockout", choices=("groups_knockout", "knockout", "round_robin"))
    ap.add_argument("--groups", type=int, default=8)
    ap.add_argument("--target", type=int, default=15)
    ap.add_argument("--stroke", type=float, default=STROKE_S)
    ap.add_argument(
        "--no-page",
        action="store_true",
        help="no event-stream client: the champion is asked for every 2 s (GET /api/tournament)",
    )
    args = ap.parse_args(argv)
    if not available():
        print(json.dumps({"skipped": "mosquitto is not installed (tools/deps.sh)"}))
        return
    tmp = tempfile.TemporaryDirectory(prefix="carom-bench-tournament-")
    db = os.path.join(tmp.name, "club.sqlite")
    keys = Keys(os.path.join(tmp.name, "hall-keys.json"))
    tables = ["t%d" % (i + 1) for i in range(args.tables)]
    secrets = {t: keys.new_key(t) for t in tables}
    broker = Mosquitto().start()
    carom = os.path.join(os.path.dirname(sys.executable), "carom")
    hall = subprocess.Popen(
        [
            carom,
            "hall",
            "--broker",
            "127.0.0.1:%d" % broker.port,
            "--listen",
            "127.0.0.1:0",
            "--db",
            db,
            "--keys",
            keys.path,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines = []
    boards = []
    client = reader = None
    try:
        url, code = read_start(hall.stdout, lines)
        reader = threading.Thread(target=lambda: lines.extend(hall.stdout), daemon=True)
        reader.start()
        result = {
            "players": args.players,
            "tables": args.tables,
            "format": args.format,
            "target": args.target,
            "stroke_s": args.stroke,
            "page": not args.no_page,
        }
        result["hall_at_start"] = memory_kb(hall.pid)
        boards = [
            HallBoard("127.0.0.1", broker.port, t, secrets[t], rng=random.Random(i), client_id="bench-" + t)
            for i, t in enumerate(tables)
        ]
        for b in boards:
            b.wait()
        post(url, "configure", tournament_config(args), code)
        rng = random.Random(7)
        names = ["%s %s" % (FIRST[i % len(FIRST)], LAST[(i // len(FIRST)) % len(LAST)]) for i in range(args.players)]
        players = [{"name": n, "club": "BC %d" % rng.randint(1, 12)} for n in names]
        for p in players[::5]:
            p["target"] = args.target - 3  # some players with a handicap: the setups carry target_A/target_B
        post(url, "players", {"players": players}, code)
        for t in tables:
            post(url, "table", {"table": t}, code)
        events = Tournaments()
        client = None if args.no_page else SSEClient(url, events)
        cpu_before = cpu_seconds(hall.pid)
        start = time.time()
        post(url, "draw", {"seed": 11}, code)
        result["matches"] = len(get(url, "/api/tournament")["matches"])
        clients = [client]
        asked = [0.0]

        def champion_known():
            if args.no_page:
                now = time.time()
                if now - asked[0] >= 2:
                    asked[0] = now
                    champion = get(url, "/api/tournament")["champion"]
                    if champion:
                        events.champion = (champion, now)
                        events.done.set()
                return events.done.is_set()
            if not clients[-1].thread.is_alive():  # dropped (it fell 4 MB behind): it reconnects, as a page does
                events.reconnects += 1
                clients.append(SSEClient(url, events))
            return events.done.is_set()

        try:
            strokes = play(boards, args.stroke, champion_known, most_s=1800, check_s=0.05)
        finally:
            client = clients[-1]
        champion, at = events.champion
        result["draw_to_champion_s"] = at - start
        result["hall_cpu_s"] = cpu_seconds(hall.pid) - cpu_before
        result["strokes"] = strokes
        doc = get(url, "/api/tournament")
        result["champion"] = champion
        result["champion_api"] = doc["champion"]
        result["matches_done"] = sum(m["status"] == "done" for m in doc["matches"])
        result["reports_published"] = sum(len(b.reports) for b in boards)
        result["results_counted"] = len(get(url, "/results.json"))
        result["setups_applied"] = sum(len(b.applied) for b in boards)
        result["setups_refused"] = sum(b.refused for b in boards)
        result["tournament_events"] = events.events
        result["tournament_event_bytes"] = events.bytes
        result["event_stream_reconnects"] = events.reconnects
        result["hall"] = memory_kb(hall.pid)
        result["db_bytes"] = sum(
            os.path.getsize(os.path.join(tmp.name, f)) for f in os.listdir(tmp.name) if f.startswith("club.sqlite")
        )
        result["hall_cpu_total_s"] = cpu_seconds(hall.pid)
    finally:
        if client is not None:
            client.close()
        for b in boards:
            b.close()
        hall.terminate()
        hall.wait(30)
        if reader is not None:
            reader.join(10)
        broker.close()
    result["setups_sent"] = sum(1 for line in lines if line.startswith("carom hall: setup ") and " sent to " in line)
    tmp.cleanup()
    print(json.dumps(result))


if __name__ == "__main__":
    main()

"""A whole tournament on simulated boards: from the draw to the final, through a real broker and `carom hall`.

Each SetupBoard is a table's board as the hall sees it: it takes its setup topic (the payload checked
with the table's key, its n newer than the last, as firmware/publisher_hall.py does), applies the setup (a
new match with its players and options, in the lag), plays it out with the firmware's rules core
(loadgen.SimTable, a random stroke at a time, every state published as the wall board does, with
"setup": {"n", "waiting"}), and sends the finished match's report.  Then it waits for its next setup.

    run = TournamentRun(url, broker_port, keys_path, tables)   # the hall is running (--db, --keys)
    run.organise(players=64, fmt="groups_knockout", groups=8, advance=2, target=5)
    result = run.play(timeout=600)     # {"matches", "done", "champion", "seconds", "setups", ...}

Used by tests/host/test_hall_tourneyrun.py (a small tournament, checked), and to watch one (a
stroke a second):

    .venv/bin/carom hall --broker 127.0.0.1 --db /tmp/cup.sqlite &
    .venv/bin/python -m tools.hall.tourneyrun --keys /tmp/hall-keys.json --code <the code it printed> --players 16 --tables 4
"""

import json
import queue
import random
import threading
import time
import urllib.request

import paho.mqtt.client as paho

from tools.hall.loadgen import NAMES, Board, SimTable
from host_tools.hall.setups import SetupError, verify

HEADERS = {"Content-Type": "application/json", "X-Carom-Hall": "organiser"}


def post(url, action, body, code=None):
    headers = dict(HEADERS, **({"X-Carom-Organiser-Code": code} if code else {}))
    req = urllib.request.Request(
        url + "/api/organiser/" + action, data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def get(url, path):
    with urllib.request.urlopen(url + path, timeout=30) as r:
        return json.loads(r.read())


def match_options(match):
    """`new`'s options (firmware/referee.py) for a setup's match section."""
    out = []
    for k in ("innings_limit", "sets", "deciding_target", "warmup_s", "target_A", "target_B"):
        if match.get(k):
            out.append("%s=%s" % (k, match[k]))
    if match.get("draw") is False:
        out.append("draw=off")
    if match.get("shootout"):
        out.append("shootout=on")
    return " ".join(out)


class SetupBoard:
    """One table's board: setups in (checked with its key), a match played out, states and the report out."""

    def __init__(
        self, port, table, key, seed=0, prefix="carom", stroke_s=0.0, host="127.0.0.1", hold=False, epoch=None
    ):
        """hold: each setup taken waits in self.held until play_held() plays it (the caller decides
        the order in which tables finish: the same tournament every run); epoch: the board's clock
        at its first match's start (None: the wall clock's)."""
        self.table = table
        self.stroke_s = stroke_s  # the time each stroke takes (0: as fast as it goes)
        self.key = key
        self.hold = hold
        self.held = queue.Queue()
        self.epoch = epoch
        self.rng = random.Random(seed)
        self.n = 0  # the newest setup applied
        self.taken = 0  # the newest setup taken (with hold, it may wait to be applied)
        self.setups = 0  # setups taken
        self.refused = 0  # payloads that did not verify, or not newer
        self.matches = 0
        self.states = 0  # state documents published
        self.inbox = queue.Queue()
        self.board = Board(host, port, table, prefix=prefix, key=key).wait()
        c = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="carom-run-setup-%s" % table)
        c.on_connect = lambda cl, *a: cl.subscribe("%s/%s/setup" % (prefix, table), 1)
        c.on_message = lambda cl, u, m: self.inbox.put(m.payload)
        c.connect(host, port, 30)
        c.loop_start()
        self.sub = c
        self.stopping = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stopping:
            try:
                payload = self.inbox.get(timeout=0.2)
            except queue.Empty:
                continue
            if not payload:
                continue
            try:
                doc = verify(self.key, payload)
            except (SetupError, ValueError):
                self.refused += 1
                continue
            if doc.get("table") != self.table or doc["n"] <= self.taken:
                if doc["n"] != self.taken:
                    self.refused += 1
                continue
            self.taken = doc["n"]
            self.setups += 1
            if self.hold:
                self.held.put(doc)
            else:
                self.play(doc)

    def state(self, sim):
        d = sim.doc()
        d["setup"] = {"n": self.n, "waiting": None}
        self.board.state(d)
        self.states += 1

    def play(self, doc, strokes=None):
        """The setup's match played out (or only its first `strokes` strokes: a match under way); its SimTable."""
        setup = doc["setup"]
        match = setup["match"]
        names = (setup["players"]["A"]["name"], setup["players"]["B"]["name"])
        sim = SimTable(
            self.table, self.rng, target=match["target"], names=names, options=match_options(match), lag=True
        )
        if self.epoch is not None:
            sim.started_at = self.epoch
        sim.started_at += 3600 * self.matches  # each match its own start on the board's clock
        self.n = doc["n"]
        self.state(sim)
        for _ in range(5000 if strokes is None else strokes):
            if self.stroke_s:
                time.sleep(self.stroke_s)
            _, report = sim.step()
            self.state(sim)
            if report is not None:
                self.matches += 1
                self.board.report(report).wait_for_publish(10)
                return sim
        if strokes is None:
            raise RuntimeError("%s: the match did not end in 5000 strokes" % self.table)
        return sim

    def play_held(self, strokes=None, timeout=30):
        """With hold: the next setup this board took (waited for), played as play() plays it."""
        return self.play(self.held.get(timeout=timeout), strokes)

    def close(self):
        self.stopping = True
        self.thread.join(timeout=5)
        self.sub.loop_stop()
        self.sub.disconnect()
        self.board.close()


class TournamentRun:
    """A tournament organised through the hall's POST API and played out on SetupBoards."""

    def __init__(
        self, url, port, keys, tables, seed=1, stroke_s=0.0, host="127.0.0.1", prefix="carom", code=None, **board
    ):
        """`keys`: setups.Keys with a key for each of `tables`; `code`: the organiser's (carom hall printed it);
        `board`: more of SetupBoard's options (hold, epoch)."""
        self.url = url
        self.code = code
        self.tables = list(tables)
        self.boards = [
            SetupBoard(port, t, keys.key(t), seed=seed * 1000 + i, prefix=prefix, stroke_s=stroke_s, host=host, **board)
            for i, t in enumerate(self.tables)
        ]
        self.started = None

    def organise(self, players, fmt="groups_knockout", groups=8, advance=2, target=5, seed=None):
        post(
            self.url,
            "configure",
            {
                "name": "%d players" % players,
                "format": fmt,
                "groups": groups,
                "advance": advance,
                "game_options": {"game": "three_cushion", "target": target},
            },
            self.code,
        )
        names = ["%s %d" % (NAMES[i % len(NAMES)], i + 1) for i in range(players)]
        post(
            self.url,
            "players",
            {"players": [{"name": n[:24], "club": "Club %d" % (i % 8 + 1)} for i, n in enumerate(names)]},
            self.code,
        )
        for t in self.tables:
            post(self.url, "table", {"table": t}, self.code)
        self.started = time.monotonic()
        post(self.url, "draw", {} if seed is None else {"seed": seed}, self.code)

    def play(self, timeout=600, poll_s=0.5):
        """Until the tournament has a champion (or `timeout`): what happened."""
        deadline = time.monotonic() + timeout
        while True:
            t = get(self.url, "/api/tournament")
            if t["champion"] is not None or time.monotonic() > deadline:
                break
            time.sleep(poll_s)
        seconds = time.monotonic() - self.started
        statuses = [m["status"] for m in t["matches"]]
        return {
            "champion": t["champion"],
            "seconds": seconds,
            "matches": len(statuses),
            "done": statuses.count("done"),
            "byes": statuses.count("bye"),
            "played": sum(b.matches for b in self.boards),
            "setups": sum(b.setups for b in self.boards),
            "refused": sum(b.refused for b in self.boards),
            "states": sum(b.states for b in self.boards),
            "tournament": t,
        }

    def close(self):
        for b in self.boards:
            b.close()


def main(argv=None):
    """A tournament to watch: organised through a running `carom hall --db --keys`, played by boards."""
    import argparse

    from host_tools.hall.broker import parse_broker
    from host_tools.hall.setups import Keys

    p = argparse.ArgumentParser(prog="python -m tools.hall.tourneyrun", description=main.__doc__)
    p.add_argument("--hall", default="http://127.0.0.1:8090", help="the running carom hall's URL")
    p.add_argument("--broker", default="127.0.0.1", help="its broker, HOST[:PORT]")
    p.add_argument("--keys", required=True, help="its key file (--keys, or hall-keys.json beside --db)")
    p.add_argument("--code", required=True, help="the organiser's code (carom hall printed it)")
    p.add_argument("--tables", type=int, default=4, help="boards t1..tN (a key is made for each that has none)")
    p.add_argument("--players", type=int, default=16)
    p.add_argument("--format", default="groups_knockout", choices=("round_robin", "knockout", "groups_knockout"))
    p.add_argument("--groups", type=int, default=4)
    p.add_argument("--target", type=int, default=10)
    p.add_argument("--stroke", type=float, default=1.0, help="seconds a stroke takes (default 1)")
    a = p.parse_args(argv)
    host, port = parse_broker(a.broker)
    keys = Keys(a.keys)
    tables = ["t%d" % (i + 1) for i in range(a.tables)]
    for t in tables:
        if not keys.has(t):
            keys.new_key(t)  # (the hall reads the key file again when it changes)
    run = TournamentRun(a.hall.rstrip("/"), port, keys, tables, stroke_s=a.stroke, host=host, code=a.code)
    try:
        run.organise(a.players, a.format, a.groups, 2, a.target)
        print("playing: %s/organiser" % a.hall.rstrip("/"))
        r = run.play(timeout=24 * 3600, poll_s=2)
        print("champion: %s after %.0f s, %d matches" % (r["champion"], r["seconds"], r["done"]))
    except KeyboardInterrupt:
        pass
    finally:
        run.close()


if __name__ == "__main__":
    main()

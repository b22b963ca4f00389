"""Simulated tables for the hall: real state documents from the firmware's own modules, over MQTT.

Each SimTable plays a match with the firmware's rules core on CPython (`referee.Referee().line`),
one event at a time, and gives the state document (matchdoc.doc) and, when a match ends, its
report (report.build).  Each Board publishes like the wall board does (firmware/app.py): the
state retained, "online" retained at connect and "offline" as its last will, reports at QoS 1.
Used by the tests, the load benchmark, and to see the dashboard without boards:

    .venv/bin/python -m tools.hall.loadgen --broker 127.0.0.1 --tables 12 --interval 3 \
        --formats plain,handicap,sets,shootout,warmup
    .venv/bin/python -m tools.hall.loadgen --showcase     # a table in each state a tile shows

The demo keeps real time (SimTable(clock=time.time)): a match's clock, its break and warm-up,
and its report's start and end are the wall clock's.  Hall switches boards off and on.

HallBoard is a board with a hall key: it takes its table's signed setups (checked by the
firmware's own publisher_hall.check), plays the match each names and publishes its state (with its
"setup" key) and its report; play(boards, interval_s, until) plays many of them at a rate.  The
tournament's end-to-end test (tests/host/test_hall_tournament_e2e.py) and `make bench`'s 64-player
tournament (tests/bench/bench_hall_tournament.py) use them.

SSEClient reads the dashboard's event stream on a thread and stamps each event's arrival.
"""

import argparse
import json
import random
import socket
import threading
import time

import paho.mqtt.client as paho

from host_tools import firmware_path

NAMES = (
    "Anna Kovacs",
    "Bela Nagy",
    "Dick Jaspers",
    "Marco Zanetti",
    "Therese Klompenhouwer",
    "Eddy Merckx",
    "Frederic Caudron",
    "Torbjorn Blomdahl",
    "Semih Sayginer",
    "Orie Hida",
    "Sameh Sidhom",
    "Dani Sanchez",
    "Jeremy Bury",
    "Martin Horn",
    "Tran Quyet Chien",
    "Eddy Leppens",
)


def firmware():
    """The firmware modules (rules, matchdoc, referee, report), imported on CPython."""
    firmware_path()
    import matchdoc
    import referee
    import report
    import rules

    return rules, matchdoc, referee, report


class SimTable:
    """One table's matches, played event by event with the firmware's rules core.

    clock: None, and each stroke takes 8 to 40 s of the match's own clock (its documents do not
    depend on when they are made: the tests, the benchmark); or a function giving the wall clock
    (time.time), and the match keeps real time: each step first lets the real time since the
    previous one pass on the match's clock, so its elapsed time, a break's or a warm-up's time
    left and the report's start and end are the clock's (the demo).

    The matches it plays show every state a tile has: the lag, runs, the half-time break (asked
    for once past half the target, ended early now and then), the equalizing inning (which ends
    level about one match in three: a draw, or with draw=off the tiebreak or the shoot-out), the
    formats' set over, shoot-out and warm-up, and the finished match (kept FINISHED_S on the
    clock before the next one)."""

    FINISHED_S = 60  # a finished match stays on the tile this long (on the match's clock) before the next

    def __init__(
        self, table, rng=None, game="three_cushion", target=15, name=None, names=None, options="", clock=None, lag=False
    ):
        self.rules, self.matchdoc, self.referee, self.report = firmware()
        self.table = table
        self.name = name if name is not None else "Table %s" % table.lstrip("t")
        self.rng = rng or random.Random(table)
        self.game = game
        self.target = target
        self.names = names
        self.options = options  # more of `new`'s options: "target_A=20 target_B=15", "sets=3", ...
        self.clock = clock
        self.lag = lag  # each match starts with the lag (else A breaks)
        self.matches = 0
        self.epoch = int(clock() if clock is not None else time.time())  # when this table's first match starts
        self._last = clock() if clock is not None else None
        self.new_match()

    def new_match(self, names=None):
        a, b = names or self.names or self.rng.sample(NAMES, 2)
        self.ref = self.referee.Referee()
        reason = self.ref.line(
            'new game=%s target=%d%s name_A="%s" name_B="%s" %s'
            % (self.game, self.target, "" if self.lag else " breaker=A", a, b, self.options)
        )
        assert reason is None, reason
        self._begun()

    def start(self, options):
        """A new match made as a board makes it from its configuration (firmware/publisher_hall.py apply):
        rules.Match.new's keywords, config.match_options of a checked config.  It starts in the lag;
        it begins on this table's clock 60 s after the previous one ended."""
        if self.ref.now:
            self.epoch = self.started_at + self.ref.now // 1000 + 60
        self.ref = self.referee.Referee()
        reason = self.ref.match.new(self.ref.now, **options)
        assert reason is None, reason
        self._begun()

    def _begun(self):
        self.started_at = self.epoch
        self.matches += 1
        self.last_report = None  # the finished match's report (step() returned it once)
        self.level_end = self.rng.random() < 0.35  # this match's equalizing inning ends level
        self.break_asked = False
        if "warmup_s=" in self.options:
            assert self.ref.line("warmup A") is None

    def line(self, text):
        """Apply one referee line (e.g. "point", "miss", "wait 20"); returns None or why it was refused."""
        return self.ref.line(text)

    def doc(self):
        return self.matchdoc.doc(self.ref.match, self.ref.now)

    def phase(self):
        return self.matchdoc.PHASES[self.ref.match.phase].decode()

    def report_doc(self):
        """The report of the match as it stands (started_at None: the board's clock was never set)."""
        m = self.ref.match
        ended = None if self.started_at is None else self.started_at + self.ref.now // 1000
        return self.report.build(m, self.ref.now, self.started_at, ended, self.name, "wall")

    def finished(self):
        return self.ref.match.phase == self.rules.FINISHED

    def _pass_time(self):
        """The time before this step: the real time since the last one (clock), else 8 to 40 s."""
        if self.clock is None:
            self.line("wait %d" % self.rng.randint(8, 40))
            return
        now = self.clock()
        elapsed, self._last = max(0.0, now - self._last), now
        while elapsed > 0:  # a wait takes at most a day
            self.line("wait %.3f" % min(elapsed, 86400))
            elapsed -= 86400

    def step(self):
        """Play one stroke (or what the phase asks for: the next set, the lag of a deciding set, the
        end of a break or a warm-up, a tiebreak); a new match FINISHED_S after a finished one.
        Returns (state doc, report doc or None): the report when this step finished the match."""
        if self.finished():
            self._pass_time()
            if self.clock is None or self.ref.now // 1000 >= self._ended_s + self.FINISHED_S:
                self.epoch = self.started_at + self.ref.now // 1000 + (60 if self.clock is None else 0)
                self.new_match()
            return self.doc(), None
        self._pass_time()
        phase = self.phase()
        if phase == "set_over":
            self.line("next_set")
        elif phase == "warmup":
            if self.rng.random() < (0.3 if self.clock is None else 0.05):
                self.line("resume")
            elif self.clock is None:
                self.line("wait 30")
        elif phase == "break":
            if self.rng.random() < (0.3 if self.clock is None else 0.05):
                self.line("resume")  # back before the break's time is up
        elif phase == "lag":  # the match's lag (lag=True), or a deciding set's
            who = self.rng.choice("AB")
            self.line("lag %s" % who)
            self.line("choose %s break" % who)
        elif phase == "tiebreak":
            self.line("tiebreak %s" % self.rng.choice("AB"))
        else:
            doc = self.doc()
            turn = doc["turn"]
            p = doc["players"]
            target = p[turn]["target"] if turn in ("A", "B") else self.target
            if (
                phase == "running"
                and not self.break_asked
                and turn in ("A", "B")
                and not doc.get("sets")
                and 2 * max(p["A"]["score"], p["B"]["score"]) >= target
                and self.rng.random() < 0.3
            ):
                self.break_asked = True
                if self.line("break_request %s" % turn) is None:
                    return self.doc(), None
            if phase == "equalizing":
                chance = 0.85 if self.level_end else 0.3
            else:
                chance = 0.45
            self.line("point" if self.rng.random() < chance else "miss")
        if self.finished():
            self._ended_s = self.ref.now // 1000
            self.last_report = self.report_doc()
            return self.doc(), self.last_report
        return self.doc(), None

    def play_until(self, wanted, most=3000):
        """Step until wanted(doc) is true (a state to show; the state before any step counts);
        returns the doc, or None after `most` steps."""
        doc = self.doc()
        for _ in range(most):
            if wanted(doc):
                return doc
            doc, _ = self.step()
        return doc if wanted(doc) else None

    def follow(self, clock):
        """Keep real time from now on (see the class): the match as it stands began as long ago on
        `clock` as its own clock says."""
        now = clock()
        self.clock, self._last = clock, now
        self.started_at = self.epoch = int(now) - self.ref.now // 1000
        if self.finished():
            self._ended_s = self.ref.now // 1000
            if self.last_report is not None:  # its report's start and end on that clock too
                self.last_report = self.report_doc()


class Board:
    """One board's MQTT connection, publishing as the wall board does."""

    def __init__(
        self, host, port, table, prefix="carom", client_id=None, user=None, password=None, on_setup=None, key=None
    ):
        self.topic = "%s/%s/" % (prefix, table)
        self.key = key  # the table's hall key: its reports are signed with it, as the wall board signs them
        self.on_setup = on_setup  # on_setup(payload) for each message on <prefix>/<table>/setup (a hall key)
        self.connected = threading.Event()
        self.refused = None  # the broker's reason when it refused the connection
        self.dead = False
        c = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=client_id or "carom-sim-%s" % table)
        if user is not None:
            c.username_pw_set(user, password)
        c.will_set(self.topic + "status", b"offline", qos=1, retain=True)
        c.reconnect_delay_set(0.2, 1)
        c.on_connect = self._connected
        c.on_disconnect = lambda *a: self.connected.clear()
        if on_setup is not None:
            c.on_message = lambda client, userdata, msg: self.on_setup(msg.payload)
        self.client = c
        c.connect_async(host, port, keepalive=30)
        c.loop_start()

    def _connected(self, client, userdata, flags, reason, properties):
        if reason.is_failure:
            self.refused = str(reason)
        else:
            client.publish(self.topic + "status", b"online", qos=1, retain=True)  # the birth message
            if self.on_setup is not None:  # as firmware/mqtt.py: at every connect, QoS 1
                client.subscribe(self.topic + "setup", 1)
            self.connected.set()

    def wait(self, timeout=10):
        if not self.connected.wait(timeout):
            raise TimeoutError("%s: not connected to the broker" % self.topic)
        return self

    def state(self, doc):
        return self.client.publish(self.topic + "state", json.dumps(doc).encode(), qos=0, retain=True)

    def report(self, doc_or_text):
        text = doc_or_text if isinstance(doc_or_text, (str, bytes)) else json.dumps(doc_or_text)
        if self.key is not None:
            from host_tools.hall.setups import sign_report

            text = sign_report(self.key, text.encode() if isinstance(text, str) else text)
        return self.client.publish(self.topic + "report", text, qos=1)

    def power_cut(self):
        """The board loses power: the connection ends without a DISCONNECT (the broker sends the will)."""
        self.client.loop_stop()
        self.dead = True
        sock = self.client.socket()
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def close(self):
        """Switched off cleanly: "offline" (a clean disconnect sends no will), then DISCONNECT."""
        if self.dead:
            return
        try:
            self.client.publish(self.topic + "status", b"offline", qos=1, retain=True).wait_for_publish(2)
        except (RuntimeError, ValueError):
            pass  # not connected: the will did it
        self.client.disconnect()
        self.client.loop_stop()


class HallBoard:
    """A board with a hall key: it takes its table's setups and plays the matches they name.

    One MQTT connection as the board's (Board, on_setup): "online", the setup topic subscribed at
    every connect (QoS 1).  Each message is checked by the firmware's own publisher_hall.check (HMAC with
    this table's key, the table, the form, config.py's schema) and then as publisher_hall.received does:
    the same n as the one applied or waiting is the broker's retained copy again (ignored), an older
    one is refused ("old"); an empty one (the hall cleared it) is nothing; refusals are counted and named
    in the state document.  A good setup waits
    until the table is free (no match yet, the lag with nothing played, or finished with its report
    out and `hold_s` gone by: the board's HOLD_MS, 0 here by default) and is then applied: the match
    made from config.match_options of the checked setup (players, targets, every option), in the lag.

    step() plays one stroke (SimTable.step: the lag, points and misses, breaks, sets, shoot-outs) and
    publishes the state document with its "setup" key ({n, waiting, refused, last_refused}), and the
    report (QoS 1) when the match ends.  A finished match waits for the hall's next setup: the board
    never starts one by itself.  Thread-safe: setups arrive on paho's thread."""

    def __init__(
        self,
        host,
        port,
        table,
        key,
        prefix="carom",
        rng=None,
        client_id=None,
        user=None,
        password=None,
        hold_s=0.0,
        clock=time.monotonic,
    ):
        from host_tools.hall import setups

        firmware_path()
        import config
        import publisher_hall

        self.config, self.publisher_hall = config, publisher_hall
        self.table = table
        self.key = setups.key_bytes(key)  # never printed: __repr__ leaves it out
        self.rng = rng or random.Random(table)
        self.hold_s = hold_s
        self.clock = clock
        self.lock = threading.RLock()
        self.sim = None  # the match on the table (SimTable), None before the first setup
        self.n = 0  # the newest applied setup's n
        self.waiting = None  # (n, setup) that passed, waiting for the table to be free
        self.refused = 0
        self.last_refused = None
        self.received = 0  # messages on the setup topic
        self.applied = []  # [(n, setup)] in the order applied
        self.withdrawn = []  # the setups the hall took back and this board let go
        self.reports = []  # the reports published (one per match played to its end)
        self.finished_at = None  # when the match on the table finished (its report then published)
        self.board = Board(
            host,
            port,
            table,
            prefix,
            client_id or "carom-sim-%s" % table,
            user,
            password,
            on_setup=self._message,
            key=self.key,
        )

    def __repr__(self):
        return "HallBoard(%r, n=%d)" % (self.table, self.n)

    def wait(self, timeout=10):
        self.board.wait(timeout)
        return self

    def _message(self, payload):
        with self.lock:
            try:
                self._take(payload)
            finally:
                self.received += 1  # counted once it is dealt with

    def _take(self, payload):
        if not payload:
            return  # the hall cleared the retained setup (a table taken out of the tournament): nothing to do
        n, setup, why = self.publisher_hall.check(payload, self.key, self.table)
        if why is None:
            waiting = self.waiting[0] if self.waiting is not None else 0
            if n == self.n or n == waiting:
                return  # the retained copy again (at every connect)
            if n < self.n or n < waiting:
                why = b"old"
        if why is not None:
            self.refused += 1
            self.last_refused = why.decode()
            self.publish()
            return
        if type(setup) is int:  # a withdrawal of setup `setup` (firmware publisher_hall.withdraw)
            self.withdraw(n, setup)
            return
        self.waiting = (n, setup)
        if self.free():
            self.apply()
        else:
            self.publish()

    def free(self):
        """The board takes a waiting setup now (firmware/publisher.py free())."""
        if self.sim is None:
            return True
        if self.sim.finished():
            return self.finished_at is not None and self.clock() - self.finished_at >= self.hold_s
        return self.sim.phase() == "lag" and not self.sim.ref.match.n

    def apply(self):
        """The waiting setup on the table: a new match with its players and options, in the lag."""
        n, setup = self.waiting
        self.waiting = None
        cfg = self.config.normalize({"players": setup["players"], "match": setup["match"]}, "setup")
        if self.sim is None:
            self.sim = SimTable(self.table, self.rng, lag=True)
        self.sim.start(self.config.match_options(cfg))
        self.n = n
        self.finished_at = None
        self.applied.append((n, setup))
        return self.publish()

    def withdraw(self, n, gone):
        """The hall takes setup `gone` back: dropped if waiting; let go if applied and its match
        not begun (the lag, nothing played: a match without names); a started match is kept."""
        if self.waiting is not None and self.waiting[0] == gone:
            self.waiting = None
            self.withdrawn.append(gone)
        elif self.n == gone and self.sim is not None and self.sim.phase() == "lag" and not self.sim.ref.match.n:
            match = self.applied[-1][1]["match"]
            self.sim.start(self.config.match_options(self.config.normalize({"match": match}, "setup")))
            self.n = n
            self.withdrawn.append(gone)
        self.publish()

    def setup_doc(self):
        d = {"n": self.n, "waiting": self.waiting[0] if self.waiting is not None else None, "refused": self.refused}
        if self.last_refused is not None:
            d["last_refused"] = self.last_refused
        return d

    def publish(self, doc=None):
        """The state document (with its setup key), retained; nothing before the first setup."""
        if self.sim is None:
            return None
        doc = dict(doc if doc is not None else self.sim.doc())
        doc["setup"] = self.setup_doc()
        self.board.state(doc)
        return doc

    def step(self):
        """One stroke; a waiting setup applied when the table is free.  True if a stroke was played."""
        with self.lock:
            if self.sim is None or self.sim.finished():
                if self.waiting is not None and self.free():
                    self.apply()
                return False
            doc, report = self.sim.step()
            self.publish(doc)
            if report is not None:
                self.board.report(report)
                self.reports.append(report)
                self.finished_at = self.clock()
                if self.waiting is not None and self.free():
                    self.apply()
            return True

    def referee(self, text):
        """A referee's line on this table's match (`abandon B`, say), its state published and, if it
        ended the match, its report.  Returns the refusal, or None."""
        with self.lock:
            why = self.sim.line(text)
            if why is None:
                self.publish()
                if self.sim.finished() and self.sim.last_report is None:
                    report = self.sim.last_report = self.sim.report_doc()
                    self.board.report(report)
                    self.reports.append(report)
                    self.finished_at = self.clock()
            return why

    def playing(self):
        with self.lock:
            return self.sim is not None and not self.sim.finished()

    def close(self):
        self.board.close()


def play(boards, interval_s, until, rng=None, most_s=None, check_s=0.02, clock=time.monotonic):
    """Play the boards' matches: each board a stroke every `interval_s` on average (exponential gaps,
    as measure() does), until until() is true (asked every check_s) or most_s have passed
    (TimeoutError).  Returns the strokes played."""
    rng = rng or random.Random(1)
    start = clock()
    due = [(start + rng.expovariate(1 / interval_s), i) for i in range(len(boards))]
    strokes = 0
    checked = start
    while True:
        now = clock()
        if now - checked >= check_s or not strokes:
            checked = now
            if until():
                return strokes
            if most_s is not None and now - start > most_s:
                raise TimeoutError(
                    "the boards played %d strokes in %.0f s and until() is still false" % (strokes, most_s)
                )
        when, i = min(due)
        wait = when - clock()
        if wait > 0:
            time.sleep(min(wait, 0.02))
            continue
        strokes += boards[i].step()
        due[i] = (max(when, now - 1) + rng.expovariate(1 / interval_s), i)


class SSEClient:
    """The dashboard's /events read on a thread: on_event(kind, data, arrived) for each event."""

    def __init__(self, url, on_event):
        host, port = url.split("//", 1)[1].rstrip("/").rsplit(":", 1)
        self.sock = socket.create_connection((host.strip("[]"), int(port)), 10)
        self.sock.sendall(
            ("GET /events HTTP/1.1\r\nHost: %s:%s\r\nAccept: text/event-stream\r\n\r\n" % (host, port)).encode()
        )  # its own Host: the server refuses others
        self.sock.settimeout(None)
        self.on_event = on_event
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        buf = b""
        head = True
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    break
                arrived = time.time()
                buf += chunk
                if head:
                    if b"\r\n\r\n" not in buf:
                        continue
                    buf = buf.split(b"\r\n\r\n", 1)[1]
                    head = False
                while b"\n\n" in buf:
                    block, buf = buf.split(b"\n\n", 1)
                    kind, data = "message", []
                    for line in block.decode("utf-8").split("\n"):
                        if line.startswith("event:"):
                            kind = line[6:].strip()
                        elif line.startswith("data:"):
                            data.append(line[5:].lstrip())
                    if data:
                        self.on_event(kind, "\n".join(data), arrived)
        except OSError:
            pass

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        self.thread.join(5)


# The formats a table may play, as more of `new`'s options; %d is the target.
FORMATS = {
    "plain": lambda t: "",
    "handicap": lambda t: "target_A=%d target_B=%d" % (t, max(1, t * 3 // 4)),
    "sets": lambda t: "sets=3 deciding_target=%d" % max(1, t * 2 // 3),
    "shootout": lambda t: "draw=off shootout=on innings_limit=%d" % max(5, t),
    "warmup": lambda t: "warmup_s=120",
    "tiebreak": lambda t: "draw=off innings_limit=%d" % max(5, t),
}


def _phase(name):
    return lambda d: d["phase"] == name


# Every state a tile shows, each on its own table (--showcase): (what, format, lag, state wanted).
# "offline" is a board that loses its power while its match runs.
SHOWCASE = (
    ("lag", "plain", True, _phase("lag")),
    ("run", "plain", False, lambda d: d["phase"] == "running" and d["current_run"] >= 2),
    ("break", "plain", False, _phase("break")),
    ("equalizing", "plain", False, _phase("equalizing")),
    ("draw", "plain", False, lambda d: d["result"] == "draw"),
    ("won", "plain", False, lambda d: d["result"] in ("A", "B")),
    ("tiebreak", "tiebreak", False, _phase("tiebreak")),
    ("handicap", "handicap", False, lambda d: d["phase"] == "running" and d["players"]["A"]["score"] > 0),
    ("set_over", "sets", False, _phase("set_over")),
    ("shootout", "shootout", False, _phase("shootout")),
    ("warmup", "warmup", False, _phase("warmup")),
    ("offline", "plain", False, lambda d: d["phase"] == "running" and d["players"]["A"]["score"] > 0),
)


def showcase(target=15, clock=None, first=1):
    """A table in each state of SHOWCASE (tables t<first>..), played there with seeded strokes:
    [(what, SimTable)].  With clock, each keeps real time from there (SimTable.follow)."""
    out = []
    for k, (what, fmt, lag, wanted) in enumerate(SHOWCASE):
        for seed in range(200):
            names = (NAMES[(2 * k) % len(NAMES)], NAMES[(2 * k + 1) % len(NAMES)])  # each table its players
            t = SimTable(
                "t%d" % (first + k),
                random.Random(seed),
                target=target,
                options=FORMATS[fmt](target),
                lag=lag,
                name="Table %d" % (first + k),
                names=names,
            )
            t.names = None  # its next matches: players drawn at random
            if t.play_until(wanted) is not None:
                break
        else:
            raise RuntimeError("no seed plays a table to %s" % what)
        if clock is not None:
            t.follow(clock)
        out.append((what, t))
    return out


class DemoHall:
    """The demo's tables and their boards: each stroke published as the wall board does, and a
    board now and then switched off (its will: OFFLINE on the tile) and on again."""

    def __init__(self, host, port, prefix, tables, rng, offline_s=300.0, clock=time.time):
        self.host, self.port, self.prefix = host, port, prefix
        self.tables = tables
        self.rng = rng
        self.offline_s = offline_s  # a board of the hall goes off every offline_s on average (0: never)
        self.clock = clock
        self.boards = [self.connect(t) for t in tables]
        self.back_at = {}  # table index -> when its board is switched on again

    def connect(self, t):
        """A board switched on: "online", its state, and the report of its finished match (a board
        sends again a report the broker may not have; the hall counts it once)."""
        b = Board(self.host, self.port, t.table, self.prefix).wait()
        b.state(t.doc())
        if t.finished() and t.last_report is not None:
            b.report(t.last_report)
        return b

    def power_cut(self, i, off_s):
        self.boards[i].power_cut()
        self.back_at[i] = self.clock() + off_s

    def tick(self, interval):
        """One stroke at a random table whose board is on; boards due back are switched on."""
        now = self.clock()
        for i, at in list(self.back_at.items()):
            if now >= at:
                del self.back_at[i]
                self.tables[i].follow(self.clock)  # it was off: its match stood still, as a board's does
                self.boards[i] = self.connect(self.tables[i])
        on = [i for i in range(len(self.tables)) if i not in self.back_at]
        # ticks come len(tables) / interval a second: a cut every offline_s on average, hall-wide
        if self.offline_s and on and self.rng.random() < interval / len(self.tables) / self.offline_s:
            self.power_cut(self.rng.choice(on), self.rng.uniform(20, 90))
            return
        if on:
            i = self.rng.choice(on)
            doc, report = self.tables[i].step()
            self.boards[i].state(doc)
            if report:
                self.boards[i].report(report)

    def close(self):
        for i, b in enumerate(self.boards):
            if i not in self.back_at:
                b.close()


def main(argv=None):
    """A demo: simulated tables publishing to the broker as wall boards do, in real time, until Ctrl-C."""
    from host_tools.hall.broker import parse_broker

    ap = argparse.ArgumentParser(prog="python -m tools.hall.loadgen", description=main.__doc__)
    ap.add_argument("--broker", default="127.0.0.1", help="HOST[:PORT] (default 127.0.0.1:1883)")
    ap.add_argument("--prefix", default="carom")
    ap.add_argument("--tables", type=int, default=12)
    ap.add_argument("--interval", type=float, default=3.0, help="mean seconds between strokes at one table")
    ap.add_argument("--target", type=int, default=15)
    ap.add_argument(
        "--formats",
        default="plain",
        metavar="F,F",
        help="the formats the tables play, in turn: %s (default plain)" % ", ".join(FORMATS),
    )
    ap.add_argument(
        "--showcase",
        action="store_true",
        help="the first %d tables start in every state a tile shows (%s), then play on"
        % (len(SHOWCASE), ", ".join(s[0] for s in SHOWCASE)),
    )
    ap.add_argument(
        "--offline",
        type=float,
        default=300.0,
        metavar="S",
        help="every S seconds on average a board loses its power, for 20 to 90 s (0: never; default 300)",
    )
    args = ap.parse_args(argv)
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    for f in formats:
        if f not in FORMATS:
            ap.error("unknown format %r (%s)" % (f, ", ".join(FORMATS)))
    if not 1 <= args.tables <= 1000 or args.interval <= 0 or not 1 <= args.target <= 9999 or args.offline < 0:
        ap.error("--tables 1..1000, --interval above 0, --target 1..9999, --offline 0 or more")
    try:
        host, port = parse_broker(args.broker)
    except ValueError as e:
        ap.error(str(e))
    clock = time.time
    rng = random.Random()
    shown = showcase(args.target, clock) if args.showcase else []
    tables = [t for _, t in shown]
    for i in range(len(tables), max(args.tables, len(tables))):
        tables.append(
            SimTable(
                "t%d" % (i + 1),
                random.Random(i),
                target=args.target,
                clock=clock,
                lag=True,
                options=FORMATS[formats[i % len(formats)]](args.target),
            )
        )
    hall = DemoHall(host, port, args.prefix, tables, rng, args.offline, clock)
    for k, (what, _) in enumerate(shown):
        if what == "offline":
            hall.power_cut(k, 90)
    print("publishing %d tables to %s:%d under %s/ (Ctrl-C stops)" % (len(tables), host, port, args.prefix), flush=True)
    try:
        while True:
            time.sleep(rng.expovariate(len(tables) / args.interval))
            hall.tick(args.interval)
    except KeyboardInterrupt:
        pass
    finally:
        hall.close()


if __name__ == "__main__":
    main()

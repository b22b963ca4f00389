"""Simulated tables for the hall: real state documents from the firmware's own modules, over MQTT.

Each SimTable plays a match with the firmware's rules core on CPython (`referee.Referee().line`),
one event at a time, and gives the state document (matchdoc.doc) and, when a match ends, its
report (report.build).  Each Board publishes like the wall board does (firmware/app.py): the
state retained, "online" retained at connect and "offline" as its last will, reports at QoS 1.
Used by the tests, the load benchmark, and to see the dashboard without boards:

    .venv/bin/python -m host_tools.hall.loadgen --broker 127.0.0.1 --tables 12 --interval 3 \
        --formats plain,handicap,sets,shootout,warmup

SSEClient reads the dashboard's event stream on a thread and stamps each event's arrival.
"""

import argparse
import json
import random
import socket
import threading
import time

import paho.mqtt.client as paho

from .. import firmware_path

NAMES = ("Anna Kovacs", "Bela Nagy", "Dick Jaspers", "Marco Zanetti", "Therese Klompenhouwer", "Eddy Merckx",
         "Frederic Caudron", "Torbjorn Blomdahl", "Semih Sayginer", "Orie Hida", "Sameh Sidhom", "Dani Sanchez",
         "Jeremy Bury", "Martin Horn", "Tran Quyet Chien", "Eddy Leppens")


def firmware():
    """The firmware modules (rules, matchdoc, referee, report), imported on CPython."""
    firmware_path()
    import matchdoc
    import referee
    import report
    import rules

    return rules, matchdoc, referee, report


class SimTable:
    """One table's matches, played event by event with the firmware's rules core."""

    def __init__(self, table, rng=None, game="three_cushion", target=15, name=None, names=None, options=""):
        self.rules, self.matchdoc, self.referee, self.report = firmware()
        self.table = table
        self.name = name if name is not None else "Table %s" % table.lstrip("t")
        self.rng = rng or random.Random(table)
        self.game = game
        self.target = target
        self.names = names
        self.options = options  # more of `new`'s options: "target_A=20 target_B=15", "sets=3", ...
        self.matches = 0
        self.epoch = int(time.time())  # this table's wall clock: each match starts after the previous one
        self.new_match()

    def new_match(self, names=None):
        a, b = names or self.names or self.rng.sample(NAMES, 2)
        self.ref = self.referee.Referee()
        reason = self.ref.line('new game=%s target=%d breaker=A name_A="%s" name_B="%s" %s'
                               % (self.game, self.target, a, b, self.options))
        assert reason is None, reason
        self.started_at = self.epoch
        self.matches += 1
        if "warmup_s=" in self.options:
            assert self.ref.line("warmup A") is None

    def line(self, text):
        """Apply one referee line (e.g. "point", "miss", "wait 20"); returns None or why it was refused."""
        return self.ref.line(text)

    def doc(self):
        return self.matchdoc.doc(self.ref.match, self.ref.now)

    def report_doc(self):
        """The report of the match as it stands (started_at None: the board's clock was never set)."""
        m = self.ref.match
        ended = None if self.started_at is None else self.started_at + self.ref.now // 1000
        return self.report.build(m, self.ref.now, self.started_at, ended, self.name, "wall")

    def finished(self):
        return self.ref.match.phase == self.rules.FINISHED

    def step(self):
        """Play one stroke (a new match after a finished one). Returns (state doc, report doc or None)."""
        if self.finished():
            self.epoch = self.started_at + self.ref.now // 1000 + 60
            self.new_match()
            return self.doc(), None
        phase = self.ref.match.phase
        self.line("wait %d" % self.rng.randint(8, 40))
        if phase == self.rules.SET_OVER:
            self.line("next_set")
        elif phase == self.rules.WARMUP:
            self.line("resume" if self.rng.random() < 0.3 else "wait 30")
        elif phase == self.rules.LAG:  # a deciding set's lag
            who = self.rng.choice("AB")
            self.line("lag %s" % who)
            self.line("choose %s break" % who)
        else:
            self.line("point" if self.rng.random() < 0.45 else "miss")
        if self.ref.match.phase == self.rules.TIEBREAK:
            self.line("tiebreak %s" % self.rng.choice("AB"))
        return self.doc(), (self.report_doc() if self.finished() else None)


class Board:
    """One board's MQTT connection, publishing as the wall board does."""

    def __init__(self, host, port, table, prefix="carom", client_id=None, user=None, password=None):
        self.topic = "%s/%s/" % (prefix, table)
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
        self.client = c
        c.connect_async(host, port, keepalive=30)
        c.loop_start()

    def _connected(self, client, userdata, flags, reason, properties):
        if reason.is_failure:
            self.refused = str(reason)
        else:
            client.publish(self.topic + "status", b"online", qos=1, retain=True)  # the birth message
            self.connected.set()

    def wait(self, timeout=10):
        if not self.connected.wait(timeout):
            raise TimeoutError("%s: not connected to the broker" % self.topic)
        return self

    def state(self, doc):
        return self.client.publish(self.topic + "state", json.dumps(doc).encode(), qos=0, retain=True)

    def report(self, doc_or_text):
        text = doc_or_text if isinstance(doc_or_text, (str, bytes)) else json.dumps(doc_or_text)
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


class SSEClient:
    """The dashboard's /events read on a thread: on_event(kind, data, arrived) for each event."""

    def __init__(self, url, on_event):
        host, port = url.split("//", 1)[1].rstrip("/").rsplit(":", 1)
        self.sock = socket.create_connection((host.strip("[]"), int(port)), 10)
        self.sock.sendall(("GET /events HTTP/1.1\r\nHost: %s:%s\r\nAccept: text/event-stream\r\n\r\n"
                           % (host, port)).encode())  # its own Host: the server refuses others
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


# The formats a table may play (issue 15), as more of `new`'s options; %d is the target.
FORMATS = {
    "plain": lambda t: "",
    "handicap": lambda t: "target_A=%d target_B=%d" % (t, max(1, t * 3 // 4)),
    "sets": lambda t: "sets=3 deciding_target=%d" % max(1, t * 2 // 3),
    "shootout": lambda t: "draw=off shootout=on innings_limit=%d" % max(5, t),
    "warmup": lambda t: "warmup_s=120",
}


def main(argv=None):
    """A demo: N simulated tables playing three-cushion to the broker, until Ctrl-C."""
    from .broker import parse_broker

    ap = argparse.ArgumentParser(prog="python -m host_tools.hall.loadgen", description=main.__doc__)
    ap.add_argument("--broker", default="127.0.0.1", help="HOST[:PORT] (default 127.0.0.1:1883)")
    ap.add_argument("--prefix", default="carom")
    ap.add_argument("--tables", type=int, default=12)
    ap.add_argument("--interval", type=float, default=3.0, help="mean seconds between strokes at one table")
    ap.add_argument("--target", type=int, default=15)
    ap.add_argument("--formats", default="plain", metavar="F,F",
                    help="the formats the tables play, in turn: %s (default plain)" % ", ".join(FORMATS))
    args = ap.parse_args(argv)
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    for f in formats:
        if f not in FORMATS:
            ap.error("unknown format %r (%s)" % (f, ", ".join(FORMATS)))
    host, port = parse_broker(args.broker)
    rng = random.Random()
    tables = [SimTable("t%d" % (i + 1), random.Random(i), target=args.target,
                       options=FORMATS[formats[i % len(formats)]](args.target)) for i in range(args.tables)]
    boards = [Board(host, port, t.table, args.prefix).wait() for t in tables]
    for t, b in zip(tables, boards):
        b.state(t.doc())
    print("publishing %d tables to %s:%d under %s/ (Ctrl-C stops)" % (len(tables), host, port, args.prefix))
    try:
        while True:
            time.sleep(rng.expovariate(len(tables) / args.interval))
            i = rng.randrange(len(tables))
            doc, report = tables[i].step()
            boards[i].state(doc)
            if report:
                boards[i].report(report)
    except KeyboardInterrupt:
        pass
    finally:
        for b in boards:
            b.close()


if __name__ == "__main__":
    main()

"""What the hall knows: every table's state document and status, and the results list.

Pure: no MQTT, no HTTP, no clock reads.  Messages come in through `Hall.handle(topic, payload, now)`
(on the server's event loop, one at a time) and each call returns the events the pages need.

Topics, as the boards publish them (firmware/app.py):

    <prefix>/<table>/state    the match state document (JSON), retained, on every change
    <prefix>/<table>/status   "online", or "offline" (the board's last will), retained
    <prefix>/<table>/report   each finished match, QoS 1: the state document plus a "report" key;
                              from a board with a hall key, followed by a space and 64 hex digits
                              of HMAC-SHA256(key, the JSON)

**Signed reports.**  A table the hall holds a key for (`key_for`, the hall's key file) must sign
its reports with it: an unsigned one or one with a wrong signature is dropped ("unsigned",
"signature"), so a stranger on the broker cannot decide a match. A table without a key is taken
unsigned (`signed` false in its results), and never into a tournament.

A retained message with an empty payload clears that topic (MQTT's way to delete it).

**Duplicate reports.**  QoS 1 may deliver a report twice, and a board sends a report again
after a power cut if the broker had not acknowledged it; both copies are the same bytes from
the board's flash.  A report's identity is its table plus a SHA-256 of its canonical JSON
(sorted keys, no spaces, so the order MicroPython wrote the keys in does not matter): a
report seen before is dropped, even after it was replaced.  A board that finishes the same
match again after an undo replaces its report in its history; the hall does the same: a new
report with the same table and the same `report.started_at` (when the board's clock was
set; null otherwise) replaces the older one in the results list.

**What a table is.**  A topic <prefix>/<table>/... whose <table> is a board's table id
([a-z0-9_-], 1..24 characters, as config.json's mqtt.table), and a state document that passes
schema.py.  Anything else is dropped at the door: counted by kind (counts["dropped"]) and
logged once per kind (`drops_to_log()`).  Only a valid state takes one of the MAX_TABLES
slots.  A table heard of only by its status or a report waits in a small pool of its own
(MAX_PENDING; the oldest goes first) and takes a slot with its first valid state.

**Eviction.**  When every slot is taken (or the states' bytes reach MAX_TABLES_BYTES), a new
table's valid state takes the slot of the table whose newest valid state is oldest, offline
ones first, but never of a table whose valid state is younger than FRESH_S: then the newcomer
is dropped (counted as "full").  A table that goes on playing therefore keeps its tile
against any number of strangers; a retained document that is never updated loses its slot
FRESH_S after it arrived, to the first table that needs one.

**Bounds.**  Every store has a count and a byte limit: the tables (MAX_TABLES, MAX_PENDING,
MAX_TABLES_BYTES of state documents), the results (MAX_RESULTS, MAX_RESULTS_BYTES: each is kept
as its compact JSON plus its flat row, the oldest go first), the reports seen (MAX_SEEN).
`bytes()` is what they hold.
"""

import collections
import csv
import hashlib
import io
import json
import re

from .. import gd
from . import schema, setups
from .schema import Invalid
from .topics import FROM_BOARDS

MAX_TABLES = 256  # tables with a valid state document (a slot each)
MAX_PENDING = 64  # tables heard of only by their status or a report (no slot yet)
MAX_TABLES_BYTES = 8 * 1024 * 1024  # the state documents kept, as compact JSON
FRESH_S = 300  # a table whose newest valid state is younger than this is never evicted
MAX_RESULTS = 10000  # results kept in memory (the oldest go first)
MAX_RESULTS_BYTES = 32 * 1024 * 1024  # their compact JSON and rows (the oldest go first)
MAX_SEEN = 4 * MAX_RESULTS  # report identities remembered for the dedup rule (the oldest forgotten first)
KINDS = FROM_BOARDS  # the topics' kinds the boards publish (topics.py)
STATUSES = ("online", "offline")


def natural_key(text):
    """'t2' before 't10': digits compare as numbers."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p.lower()) for p in re.split(r"(\d+)", text) if p]


def compact(doc):
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def fingerprint(doc):
    """The content identity of a report: SHA-256 of its canonical JSON, 16 hex digits."""
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _pair(pair):
    return "%s:%s" % (pair[0], pair[1])


def match_format(doc):
    """How a match was played beyond the plain format, as the report and the hall write it:
    "30:22 handicap" (each player's target), "sets 3:1 (15:9, 12:15, 15:4, 15:11)" (sets won,
    each finished set's score), "30:30, shoot-out 2:1" (the score, and the runs of the round
    that decided the shoot-out; in a set match after the sets). "" for a plain match. `doc` is a
    state document or a report (checked: schema.py)."""
    parts = []
    players = doc.get("players") or {}
    a, b = players.get("A") or {}, players.get("B") or {}
    if doc.get("target") is None and a.get("target") is not None and b.get("target") is not None:
        parts.append("%s:%s handicap" % (a["target"], b["target"]))
    sets = doc.get("sets")
    if sets:
        parts.append(
            "sets %s:%s (%s)" % (sets["won"]["A"], sets["won"]["B"], ", ".join(_pair(x) for x in sets["scores"]))
        )
    shootout = doc.get("shootout")
    if shootout and shootout.get("rounds") and doc.get("ended_by") == "shootout":
        deciding = "shoot-out " + _pair(shootout["rounds"][-1])
        parts.append(deciding if sets else "%s:%s, %s" % (a.get("score"), b.get("score"), deciding))
    return ", ".join(parts)


def valid_state(doc):
    """A state document the hall shows (schema.check_state)."""
    try:
        schema.check_state(doc)
        return True
    except Invalid:
        return False


def valid_report(doc):
    try:
        schema.check_report(doc)
        return True
    except Invalid:
        return False


class Table:
    """One table as the hall last heard of it."""

    def __init__(self, table):
        self.table = table
        self.name = ""  # the table's display name, from its reports (config.json "name")
        self.state = None  # the newest state document, or None
        self.status = None  # "online", "offline", or None (never heard)
        self.updated = None  # epoch seconds of the newest message about this table
        self.updates = 0  # state documents received
        self.valid_at = None  # when its newest valid state arrived (None: no state, no slot)
        self.size = 0  # bytes of its state document as compact JSON

    def to_json(self):
        return {
            "table": self.table,
            "name": self.name or self.table,
            "status": self.status,
            "updated": self.updated,
            "updates": self.updates,
            "state": self.state,
        }

    def empty(self):
        return self.state is None and self.status is None


ROW_OVERHEAD = 1024  # what a result's row and object cost besides its JSON, counted in its bytes


class Result:
    """A finished match in the results list: the report as compact JSON, its flat row, where from."""

    def __init__(self, table, doc, received, key, signed=False):
        doc.pop("hall", None)
        self.table = table
        self.received = received
        self.key = key
        self.signed = signed  # checked against the table's hall key (only a signed one counts in a tournament)
        self.raw = compact(doc)
        self.started_at = doc["report"].get("started_at")
        self.row = self._summary(doc)
        self.size = len(self.raw) + ROW_OVERHEAD
        self.seq = None  # its place in the results list counted from the first result ever listed (Hall.add_result)

    @property
    def doc(self):
        return json.loads(self.raw)

    def hall_info(self):
        return {"table": self.table, "received_at": self.received, "id": self.key, "signed": self.signed}

    def to_json(self):
        """The report document with a "hall" key: table, received_at (epoch s), id, signed."""
        out = self.doc
        out["hall"] = self.hall_info()
        return out

    def json_bytes(self):
        """to_json() as compact JSON, spliced without parsing the report again."""
        return self.raw[:-1] + b',"hall":' + compact(self.hall_info()) + b"}"

    def summary(self):
        """The flat row the page's results list and /results.csv show."""
        out = dict(self.row)
        out["A"] = dict(self.row["A"])
        out["B"] = dict(self.row["B"])
        return out

    def _summary(self, doc):
        report = doc["report"]
        out = {
            "id": self.key,
            "table": self.table,
            "name": report.get("table") or self.table,
            "received_at": self.received,
            "game": doc.get("game"),
            "target": doc.get("target"),
            "innings_limit": doc.get("innings_limit"),
            "result": doc.get("result"),
            "ended_by": doc.get("ended_by"),
            "started_at": report.get("started_at"),
            "ended_at": report.get("ended_at"),
            "duration_s": report.get("duration_s"),
        }
        out["format"] = match_format(doc)
        for p in ("A", "B"):
            d = doc["players"][p]
            total = d.get("match") or d  # a set match: over all sets
            out[p] = {k: d.get(k) for k in ("name", "club", "target")}
            out[p].update((k, total.get(k)) for k in ("score", "innings", "average", "high_run"))
            if gd.value(total.get("score"), total.get("innings")) is not None:  # truncated, whoever sent it
                out[p]["average"] = gd.value(total["score"], total["innings"])
        result = doc.get("result")
        out["winner"] = doc["players"][result].get("name") if result in ("A", "B") else None
        return out


class Hall:
    """Tables and results, fed with MQTT messages; returns what changed as (event, payload) pairs."""

    def __init__(self, prefix="carom", key_for=None):
        """key_for(table): the table's hall key (bytes) or None; a keyed table's reports must be
        signed with it (setups.split_report), the others are taken unsigned."""
        self.prefix = prefix.rstrip("/")
        self.key_for = key_for
        self.tables = {}
        self.results = []  # in the order they arrived (a replacement takes the old one's place)
        self.results_bytes = 0
        self.results_gone = 0  # results dropped from the front of the list: results[r.seq - results_gone] is r
        self.tables_bytes = 0
        self._seen = collections.OrderedDict()  # (table, fingerprint) of the reports accepted, oldest first
        self._by_start = {}  # (table, started_at) -> the Result in the list
        self.last_result = None  # the Result the newest "result" event is about
        self.counts = {
            "messages": 0,
            "rejected": 0,
            "duplicates": 0,
            "replaced": 0,
            "results": 0,
            "evicted": 0,
            "dropped": {},
        }
        self._to_log = []  # (kind, topic, detail) of the first drop of each kind

    # ---- messages in -----------------------------------------------------------------------

    def split(self, topic):
        """(table, kind) of a topic under the prefix, or None."""
        head = self.prefix + "/"
        if not topic.startswith(head):
            return None
        table, sep, kind = topic[len(head) :].rpartition("/")
        if not sep or not table or "/" in table or kind not in KINDS:
            return None
        return table, kind

    def handle(self, topic, payload, now):
        """One MQTT message (payload: bytes) received at `now` (epoch s). Returns a list of events."""
        self.counts["messages"] += 1
        where = self.split(topic)
        if where is None or not schema.TABLE_NAME.match(where[0]):
            return self.drop("topic", topic, "not <prefix>/<table>/state, status or report")
        table, kind = where
        t = self.tables.get(table)
        try:
            if kind == "report":
                if not payload:
                    return []
                data, tag = setups.split_report(payload)
                key = self.key_for(table) if self.key_for is not None else None
                if key is not None and not setups.report_signed(key, data, tag):
                    if tag is None:
                        return self.drop("unsigned", topic, "a report without a signature from a table the hall keyed")
                    return self.drop("signature", topic, "a report not signed with the table's hall key")
                return self._report(table, t, schema.report(data), now, key is not None)
            if kind == "status":
                return self._status(table, t, schema.status(payload) if payload else None, now)
            return self._state(table, t, payload and schema.state(payload), now)
        except Invalid as e:
            return self.drop(e.kind, topic, e.detail)

    def drop(self, kind, topic, detail):
        """A message refused: counted by kind; the first of each kind is kept for the log."""
        self.counts["rejected"] += 1
        dropped = self.counts["dropped"]
        if kind not in dropped:
            dropped[kind] = 0
            self._to_log.append((kind, topic, detail))
        dropped[kind] += 1
        return []

    def drops_to_log(self):
        """The first drop of each kind not yet logged: [(kind, topic, detail)]; then forgotten."""
        out, self._to_log = self._to_log, []
        return out

    def _state(self, table, t, doc, now):
        if not doc:  # the retained state cleared
            if t is None:
                return []
            self._set_state(t, None, 0)
            t.updated = now
            return self._changed(t)
        size = len(compact(doc))
        events = []
        if t is None or t.state is None:
            events = self._make_room(size, now)
            if events is None:
                return self.drop("full", "%s/%s/state" % (self.prefix, table), "every table's slot is taken")
            if t is None:
                t = self.tables[table] = Table(table)
        elif self.tables_bytes - t.size + size > MAX_TABLES_BYTES:
            events = self._make_room(size - t.size, now, keep=t)
            if events is None:
                return self.drop("full", "%s/%s/state" % (self.prefix, table), "the tables' bytes are used up")
        self._set_state(t, doc, size)
        t.valid_at = now
        t.updates += 1
        t.updated = now
        return events + self._changed(t)

    def _set_state(self, t, doc, size):
        self.tables_bytes += size - t.size
        t.state, t.size = doc, size
        if doc is None:
            t.valid_at = None

    def _make_room(self, size, now, keep=None):
        """Events of the tables evicted so that a state of `size` more bytes fits; None if it cannot."""
        events = []
        while True:
            slots = sum(1 for x in self.tables.values() if x.state is not None) + (keep is None)
            if slots <= MAX_TABLES and self.tables_bytes + size <= MAX_TABLES_BYTES:
                return events
            victims = [
                x for x in self.tables.values() if x.state is not None and x is not keep and now - x.valid_at >= FRESH_S
            ]
            if not victims:
                return None
            v = min(victims, key=lambda x: (x.status != "offline", x.valid_at))
            self._set_state(v, None, 0)
            del self.tables[v.table]
            self.counts["evicted"] += 1
            events.append(("gone", {"table": v.table}))

    def _trim_pending(self):
        """Keep MAX_PENDING tables without a state (the oldest heard of go first)."""
        pending = [x for x in self.tables.values() if x.state is None]
        events = []
        for x in sorted(pending, key=lambda x: x.updated or 0)[: max(0, len(pending) - MAX_PENDING)]:
            del self.tables[x.table]
            events.append(("gone", {"table": x.table}))
        return events

    def _pending(self, table, t, now):
        """The table `table` for a status or a report: made, without a slot, if new."""
        if t is None:
            t = self.tables[table] = Table(table)
            t.updated = now
            return t, self._trim_pending()
        return t, []

    def _status(self, table, t, status, now):
        if status is None:  # the retained status cleared
            if t is None:
                return []
            t.status = None
            t.updated = now
            return self._changed(t)
        t, events = self._pending(table, t, now)
        t.status = status
        t.updated = now
        return events + self._changed(t)

    def _changed(self, t):
        if t.empty() and not t.name:
            del self.tables[t.table]
            return [("gone", {"table": t.table})]
        if t.table not in self.tables:  # evicted meanwhile as pending
            return []
        return [("table", t.to_json())]

    def _report(self, table, t, doc, now, signed=False):
        events = []
        name = doc["report"].get("table")
        if name and (t is None or name != t.name):
            t, events = self._pending(table, t, now)
            t.name = name
            if table in self.tables:
                events.append(("table", t.to_json()))
        result = self.add_result(table, doc, now, signed)
        if result is not None:
            events.append(result)
        return events

    def add_result(self, table, doc, received, signed=False):
        """Add a (checked) report to the results list. Returns ("result", {...}) or None for a duplicate."""
        key = fingerprint(doc)
        if (table, key) in self._seen:
            self.counts["duplicates"] += 1
            return None
        self._seen[(table, key)] = True
        while len(self._seen) > MAX_SEEN:
            self._seen.popitem(last=False)
        entry = self.last_result = Result(table, doc, received, key, signed)
        replaces = None
        old = self._by_start.get((table, entry.started_at)) if entry.started_at is not None else None
        if old is not None:  # (its place by its seq: finding it in the list cost 70 us a report at MAX_RESULTS)
            entry.seq = old.seq
            self.results[old.seq - self.results_gone] = entry
            self.results_bytes += entry.size - old.size
            replaces = old.key
            self.counts["replaced"] += 1
        else:
            entry.seq = self.results_gone + len(self.results)
            self.results.append(entry)
            self.results_bytes += entry.size
            self.counts["results"] += 1
        if entry.started_at is not None:
            self._by_start[(table, entry.started_at)] = entry
        while len(self.results) > 1 and (len(self.results) > MAX_RESULTS or self.results_bytes > MAX_RESULTS_BYTES):
            gone = self.results.pop(0)
            self.results_gone += 1
            self.results_bytes -= gone.size
            if self._by_start.get((gone.table, gone.started_at)) is gone:
                del self._by_start[(gone.table, gone.started_at)]
        return ("result", {"result": entry.summary(), "replaces": replaces})

    # ---- views out -----------------------------------------------------------------------------

    def bytes(self):
        """What the model holds: the states' and the results' bytes, and a bound for the rest."""
        return (
            self.tables_bytes
            + self.results_bytes
            + 512 * len(self.tables)
            + 64 * len(self._seen)
            + 64 * len(self._by_start)
        )

    def slots(self):
        return sum(1 for t in self.tables.values() if t.state is not None)

    def table_list(self):
        return [self.tables[k].to_json() for k in sorted(self.tables, key=natural_key)]

    def results_json(self):
        return [r.to_json() for r in self.results]

    def results_json_chunks(self, results=None):
        """/results.json in pieces: a JSON list, one report a line."""
        results = self.results[:] if results is None else results
        yield b"["
        for i, r in enumerate(results):
            yield (b"\n" if i == 0 else b",\n") + r.json_bytes()
        yield b"\n]\n"

    def summaries(self, newest=None):
        """The results list's rows, oldest first (only the `newest` n of them if given)."""
        rows = self.results if newest is None else self.results[-newest:]
        return [r.summary() for r in rows]

    def results_csv(self, local_time):
        """The results list as CSV (one row per match; `local_time(epoch)` formats the times)."""
        return "".join(self.results_csv_chunks(local_time))

    def results_csv_chunks(self, local_time, results=None, rows_per_chunk=200):
        """The results list as CSV, in pieces of `rows_per_chunk` rows (text)."""
        results = self.results[:] if results is None else results
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\r\n")
        w.writerow(CSV_COLUMNS)
        for i, r in enumerate(results):
            s = r.row
            row = {"%s_%s" % (k, p): v for p in ("A", "B") for k, v in s[p].items()}
            for p in ("A", "B"):  # GD as three decimals, truncated (gd.py)
                row["average_" + p] = gd.text(s[p].get("score"), s[p].get("innings")) or row.get("average_" + p)
            for c in CSV_COLUMNS:
                if c in LOCAL_TIME_COLUMNS:
                    row[c] = local_time(s[c])
                elif c not in PLAYER_COLUMNS:
                    row[c] = s[c]
            w.writerow([_cell(row.get(c)) for c in CSV_COLUMNS])
            if i % rows_per_chunk == rows_per_chunk - 1:
                yield out.getvalue()
                out.seek(0)
                out.truncate()
        yield out.getvalue()


# Each player's figures in a row of results, "name_A" ... "high_run_B" (the tournament's match
# export has them too).
PLAYER_COLUMNS = tuple(
    "%s_%s" % (k, p) for p in "AB" for k in ("name", "club", "target", "score", "innings", "average", "high_run")
)
LOCAL_TIME_COLUMNS = ("received_at", "started_at", "ended_at")  # times of day in the CSV, the hall's local time
CSV_COLUMNS = (
    (
        "received_at",
        "table",
        "name",
        "game",
        "target",
        "innings_limit",
        "format",
    )
    + PLAYER_COLUMNS
    + (
        "result",
        "winner",
        "ended_by",
        "started_at",
        "ended_at",
        "duration_s",
        "id",
    )
)


_FORMULA = re.compile(r"(^|[,;])( *)(?=[=+\-@\t\r])")


def _cell(value):
    """A CSV cell; text a spreadsheet would take for a formula gets an apostrophe.

    Not only at its start: after every "," and ";" too (and the spaces after them), since a
    spreadsheet in a locale whose list separator is ";" (hu-HU, de-DE) splits the cell there.
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return _FORMULA.sub(lambda m: m.group(1) + m.group(2) + "'", value)
    return value

"""What the hall knows: every table's state document and status, and the results list.

Pure: no MQTT, no HTTP, no clock reads.  Messages come in through `Hall.handle(topic, payload, now)`
(on the server's event loop, one at a time) and each call returns the events the pages need.

Topics, as the boards publish them (firmware/app.py):

    <prefix>/<table>/state    the match state document (JSON), retained, on every change
    <prefix>/<table>/status   "online", or "offline" (the board's last will), retained
    <prefix>/<table>/report   each finished match, QoS 1: the state document plus a "report" key

A retained message with an empty payload clears that topic (MQTT's way to delete it).

**Duplicate reports.**  QoS 1 may deliver a report twice, and a board sends a report again
after a power cut if the broker had not acknowledged it; both copies are the same bytes from
the board's flash.  A report's identity is its table plus a SHA-256 of its canonical JSON
(sorted keys, no spaces, so the order MicroPython wrote the keys in does not matter): a
report seen before is dropped, even after it was replaced.  A board that finishes the same
match again after an undo replaces its report in its history; the hall does the same: a new
report with the same table and the same `report.started_at` (when the board's clock was
set; null otherwise) replaces the older one in the results list.
"""

import csv
import hashlib
import io
import json
import re

MAX_TABLES = 256  # tables the hall keeps; messages for more are counted and dropped
MAX_RESULTS = 10000  # results kept in memory (the oldest go first); --results keeps them all on disk
KINDS = ("state", "status", "report")
STATUSES = ("online", "offline")


def natural_key(text):
    """'t2' before 't10': digits compare as numbers."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p.lower()) for p in re.split(r"(\d+)", text) if p]


def fingerprint(doc):
    """The content identity of a report: SHA-256 of its canonical JSON, 16 hex digits."""
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def valid_state(doc):
    """A JSON object with players A and B (what a tile and a result row need)."""
    players = doc.get("players") if isinstance(doc, dict) else None
    return isinstance(players, dict) and isinstance(players.get("A"), dict) and isinstance(players.get("B"), dict)


def valid_report(doc):
    return valid_state(doc) and isinstance(doc.get("report"), dict)


def _json_object(payload):
    try:
        doc = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return None
    return doc if isinstance(doc, dict) else None


class Table:
    """One table as the hall last heard of it."""

    def __init__(self, table):
        self.table = table
        self.name = ""  # the table's display name, from its reports (config.json "name")
        self.state = None  # the newest state document, or None
        self.status = None  # "online", "offline", or None (never heard)
        self.updated = None  # epoch seconds of the newest message about this table
        self.updates = 0  # state documents received

    def to_json(self):
        return {"table": self.table, "name": self.name or self.table, "status": self.status,
                "updated": self.updated, "updates": self.updates, "state": self.state}

    def empty(self):
        return self.state is None and self.status is None


class Result:
    """A finished match in the results list: the report as the board sent it, and where from."""

    def __init__(self, table, doc, received, key):
        self.table = table
        self.doc = doc
        self.received = received
        self.key = key
        report = doc.get("report") if isinstance(doc.get("report"), dict) else {}
        self.started_at = report.get("started_at")

    def to_json(self):
        """The report document with a "hall" key: table, received_at (epoch s), id."""
        out = dict(self.doc)
        out["hall"] = {"table": self.table, "received_at": self.received, "id": self.key}
        return out

    def summary(self):
        """The flat row the page's results list and /results.csv show."""
        doc = self.doc
        report = doc.get("report") if isinstance(doc.get("report"), dict) else {}
        out = {"id": self.key, "table": self.table, "name": report.get("table") or self.table,
               "received_at": self.received, "game": doc.get("game"), "target": doc.get("target"),
               "innings_limit": doc.get("innings_limit"), "result": doc.get("result"),
               "ended_by": doc.get("ended_by"), "started_at": report.get("started_at"),
               "ended_at": report.get("ended_at"), "duration_s": report.get("duration_s")}
        for p in ("A", "B"):
            d = doc["players"][p]
            out[p] = {k: d.get(k) for k in ("name", "club", "score", "innings", "average", "high_run")}
        result = doc.get("result")
        out["winner"] = doc["players"][result].get("name") if result in ("A", "B") else None
        return out


class Hall:
    """Tables and results, fed with MQTT messages; returns what changed as (event, payload) pairs."""

    def __init__(self, prefix="carom"):
        self.prefix = prefix.rstrip("/")
        self.tables = {}
        self.results = []  # in the order they arrived (a replacement takes the old one's place)
        self._seen = set()  # (table, fingerprint) of every report accepted
        self.last_result = None  # the Result the newest "result" event is about
        self.counts = {"messages": 0, "rejected": 0, "duplicates": 0, "replaced": 0, "results": 0}

    # ---- messages in -----------------------------------------------------------------------

    def split(self, topic):
        """(table, kind) of a topic under the prefix, or None."""
        head = self.prefix + "/"
        if not topic.startswith(head):
            return None
        table, sep, kind = topic[len(head):].rpartition("/")
        if not sep or not table or "/" in table or kind not in KINDS:
            return None
        return table, kind

    def handle(self, topic, payload, now):
        """One MQTT message (payload: bytes) received at `now` (epoch s). Returns a list of events."""
        self.counts["messages"] += 1
        where = self.split(topic)
        if where is None:
            return self._reject()
        table, kind = where
        t = self.tables.get(table)
        if t is None:
            if not payload:
                return []  # a retained message cleared for a table we never knew
            if len(self.tables) >= MAX_TABLES:
                return self._reject()
            t = self.tables[table] = Table(table)
        if kind == "report":
            return self._report(t, payload, now)
        if kind == "status":
            if not payload:
                t.status = None
            else:
                status = payload.decode("utf-8", "replace").strip().lower()
                if status not in STATUSES:
                    return self._reject()
                t.status = status
        else:
            if not payload:
                t.state = None
            else:
                doc = _json_object(payload)
                if not valid_state(doc):
                    return self._reject()
                t.state = doc
                t.updates += 1
        t.updated = now
        if t.empty() and not any(r.table == t.table for r in self.results):
            del self.tables[t.table]
            return [("gone", {"table": t.table})]
        return [("table", t.to_json())]

    def _reject(self):
        self.counts["rejected"] += 1
        return []

    def _report(self, t, payload, now):
        doc = _json_object(payload)
        if not valid_report(doc):
            return self._reject()
        events = []
        name = doc["report"].get("table")
        if isinstance(name, str) and name and name != t.name:
            t.name = name
            events.append(("table", t.to_json()))
        result = self.add_result(t.table, doc, now)
        if result is not None:
            events.append(result)
        return events

    def add_result(self, table, doc, received):
        """Add a report to the results list. Returns ("result", {...}) or None for a duplicate."""
        key = fingerprint(doc)
        if (table, key) in self._seen:
            self.counts["duplicates"] += 1
            return None
        self._seen.add((table, key))
        entry = self.last_result = Result(table, doc, received, key)
        replaces = None
        if entry.started_at is not None:
            for i, old in enumerate(self.results):
                if old.table == table and old.started_at == entry.started_at:
                    self.results[i] = entry
                    replaces = old.key
                    self.counts["replaced"] += 1
                    break
        if replaces is None:
            self.results.append(entry)
            self.counts["results"] += 1
            if len(self.results) > MAX_RESULTS:
                del self.results[0]
        return ("result", {"result": entry.summary(), "replaces": replaces})

    # ---- views out -----------------------------------------------------------------------------

    def table_list(self):
        return [self.tables[k].to_json() for k in sorted(self.tables, key=natural_key)]

    def results_json(self):
        return [r.to_json() for r in self.results]

    def summaries(self, newest=None):
        """The results list's rows, oldest first (only the `newest` n of them if given)."""
        rows = self.results if newest is None else self.results[-newest:]
        return [r.summary() for r in rows]

    def results_csv(self, local_time):
        """The results list as CSV (one row per match; `local_time(epoch)` formats the times)."""
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\r\n")
        w.writerow(CSV_COLUMNS)
        for r in self.results:
            s = r.summary()
            row = {"received_at": local_time(s["received_at"]), "started_at": local_time(s["started_at"]),
                   "ended_at": local_time(s["ended_at"])}
            for k in ("table", "name", "game", "target", "innings_limit", "result", "winner", "ended_by",
                      "duration_s", "id"):
                row[k] = s[k]
            for p in ("A", "B"):
                for k, v in s[p].items():
                    row["%s_%s" % (k, p)] = v
            w.writerow([_cell(row.get(c)) for c in CSV_COLUMNS])
        return out.getvalue()


CSV_COLUMNS = ("received_at", "table", "name", "game", "target", "innings_limit",
               "name_A", "club_A", "score_A", "innings_A", "average_A", "high_run_A",
               "name_B", "club_B", "score_B", "innings_B", "average_B", "high_run_B",
               "result", "winner", "ended_by", "started_at", "ended_at", "duration_s", "id")


def _cell(value):
    """A CSV cell; text a spreadsheet would take for a formula gets a leading apostrophe."""
    if value is None:
        return ""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value

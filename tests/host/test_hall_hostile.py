"""Strangers, the hall's side: what anyone who can publish to the broker can try, and what the hall answers.

The model's tests feed host_tools.hall.model.Hall directly (no broker, no clock: `now` is given);
the end-to-end ones run `carom hall` against a real mosquitto, publishing with paho.  Memory is
the model's own count of what it holds (Hall.bytes(): the states' and the results' JSON bytes),
never the process's RSS.
"""

import csv
import io
import json
import os
import random
import socket
import subprocess
import threading
import urllib.request

import paho.mqtt.client as paho

from helpers import CAROM, SETS_MATCH, SHOOTOUT_MATCH, needs_mosquitto, wait_for
from host_tools.hall import dashboard, model, results_file, routes, schema
from host_tools.hall.model import Hall
from tools.run.mosquitto import Mosquitto, SecureMosquitto
from test_hall import finished, sim_table, state_bytes
from tools.run.hall import HallProc


BOUND = (
    model.MAX_TABLES_BYTES
    + model.MAX_RESULTS_BYTES
    + 512 * (model.MAX_TABLES + model.MAX_PENDING)
    + 64 * model.MAX_SEEN
    + 64 * model.MAX_RESULTS
)


def nested(n, value="1"):
    return "[" * n + value + "]" * n


def with_field(doc, path, value):
    """A copy of doc with the field at `path` ("players.A.name") set to value."""
    doc = json.loads(json.dumps(doc))
    *head, last = path.split(".")
    d = doc
    for k in head:
        d = d[k]
    d[last] = value
    return doc


def answers(hall):
    """Everything the dashboard makes from the model can be turned into JSON and CSV."""
    json.dumps(hall.table_list())
    json.dumps(hall.summaries())
    json.loads(b"".join(hall.results_json_chunks()))
    hall.results_csv(routes.local_time)
    assert hall.bytes() <= BOUND


# ---- the model -----------------------------------------------------------------------------------


def test_deep_nesting_never_reaches_the_tables():
    """Tried: a retained carom/evil/state whose "players" is a list nested 975 deep (it parses, but
    json.dumps fails on it: /api/tables and /events broke until the topic was cleared); the same list
    under a key the schema does not know, as a player's runs, at the top level; 100,000 levels (past
    json's recursion limit); a report nested the same way.  All dropped, the real table stays."""
    hall = Hall()
    real = state_bytes(sim_table("t1", ["point"]))
    hall.handle("carom/t1/state", real, 1.0)
    good = json.loads(real)

    def deep(doc):  # (built as text: json.dumps itself cannot write it)
        return json.dumps(doc).replace('"DEEP"', nested(975)).encode()

    evil = [
        ('{"version":1,"game":"three_cushion","phase":"running","players":%s}' % nested(975)).encode(),
        deep(with_field(good, "players", "DEEP")),
        deep(dict(good, x="DEEP")),
        deep(with_field(good, "players.A.runs", "DEEP")),
        nested(975).encode(),
        nested(100000).encode(),
        b'{"a":' * 100000 + b"1" + b"}" * 100000,
    ]
    report = finished().report_doc()
    evil.append(deep(with_field(report, "report.innings", "DEEP")))
    for i, payload in enumerate(evil):
        assert hall.handle("carom/evil/state", payload, 2.0 + i) == []
        assert hall.handle("carom/evil/report", payload, 2.0 + i) == []
    assert set(hall.tables) == {"t1"} and hall.tables["t1"].state == good
    assert set(hall.counts["dropped"]) <= {"schema", "json", "size"} and hall.counts["rejected"] == 2 * len(evil)
    answers(hall)
    # Logged once per kind, not once per message.
    logged = hall.drops_to_log()
    assert len(logged) == len(hall.counts["dropped"]) and hall.drops_to_log() == []


def test_junk_tables_never_take_a_slot():
    """Tried: 3,000 retained fake tables (states that are not state documents, bad topics, tables
    named with capitals, '+', 300 characters), each also with a retained status "online" and a valid
    report (reports used to make tables that were never removed), then the real boards.  No fake
    table takes a slot; tables heard of only by status or report stay within MAX_PENDING."""
    hall = Hall()
    rng = random.Random(3)
    report = finished().report_doc()
    for i in range(3000):
        name = "evil%d" % i
        junk = rng.choice(
            [
                b"{not json",
                b"[1,2]",
                b'{"players": 3}',
                b"\xff\xfe",
                b"null",
                json.dumps({"version": 1, "players": {"A": {}, "B": {}}}).encode(),
            ]
        )
        assert hall.handle("carom/%s/state" % name, junk, i) == []
        hall.handle("carom/%s/status" % name, b"online", i)
        hall.handle("carom/%s/report" % name, json.dumps(with_field(report, "report.board", name)).encode(), i)
        for topic in (
            "carom/EVIL%d/state" % i,
            "carom/+%d/state" % i,
            "carom/%s/state" % ("x" * 300),
            "carom/%s/x/state" % name,
            "other/%s/state" % name,
        ):
            assert hall.handle(topic, state_bytes_cached(), i) == []
        assert hall.slots() == 0 and len(hall.tables) <= model.MAX_PENDING
    for n in ("t1", "t2"):
        assert hall.handle("carom/%s/status" % n, b"online", 4000)
        assert hall.handle("carom/%s/state" % n, state_bytes_cached(), 4000)[-1][0] == "table"
    assert hall.slots() == 2 and {"t1", "t2"} <= set(hall.tables)
    assert len(hall.tables) <= model.MAX_PENDING + 2
    assert hall.counts["dropped"]["topic"] == 5 * 3000
    answers(hall)


_STATE = []


def state_bytes_cached():
    if not _STATE:
        _STATE.append(state_bytes(sim_table("t1", ["point", "miss"])))
    return _STATE[0]


def test_valid_fakes_lose_to_a_table_that_plays():
    """Tried: MAX_TABLES retained fake tables whose states pass the schema (nothing tells them from a
    board), then 30 new ones every 10 s for an hour; a real table that publishes every 60 s, and one
    that arrives when the slots are all taken.  Rule: a table whose newest valid state is younger
    than FRESH_S keeps its slot; a newcomer takes the slot of the oldest (offline first) or is dropped."""
    hall = Hall()
    doc = state_bytes_cached()
    for i in range(model.MAX_TABLES):
        hall.handle("carom/fake%d/state" % i, doc, 0.0)
    assert hall.slots() == model.MAX_TABLES
    assert hall.handle("carom/t1/state", doc, 10.0) == [] and hall.counts["dropped"]["full"] == 1
    hall.handle("carom/fake7/status", b"offline", 20.0)
    events = hall.handle("carom/t1/state", doc, model.FRESH_S)  # the fakes are stale now: the offline one goes first
    assert events[0] == ("gone", {"table": "fake7"}) and events[-1][0] == "table" and "t1" in hall.tables
    n = model.MAX_TABLES
    for step in range(360):
        now = model.FRESH_S + 10.0 * (step + 1)
        for _ in range(30):
            hall.handle("carom/fake%d/state" % n, doc, now)
            n += 1
        if step % 6 == 0:
            hall.handle("carom/t1/state", doc, now)
        assert "t1" in hall.tables and hall.slots() <= model.MAX_TABLES
    assert hall.counts["evicted"] > 0 and hall.counts["dropped"]["full"] > 0
    answers(hall)


def big_report(table, k, innings=600):
    """A valid report of about 100 KB (innings repeated), made distinct by its started_at."""
    doc = finished(table).report_doc()
    one = doc["report"]["innings"][0]
    doc["report"]["innings"] = [dict(one, inning=1 + i % 500) for i in range(innings)]
    doc["report"]["started_at"] = 1764489600 + k
    return json.dumps(doc).encode()


def test_memory_is_bounded_in_bytes(monkeypatch):
    """Tried: 300 states of 1 MB (the hall grew from 31 to 320 MB), states just under the byte limit
    for 600 tables, and reports of ~100 KB (2,000 of them added 191 MB; here 400 against a results
    limit made 16 times smaller, so it is reached the same way).  The model's bytes stay bounded."""
    monkeypatch.setattr(model, "MAX_RESULTS_BYTES", model.MAX_RESULTS_BYTES // 16)
    hall = Hall()
    mb = json.dumps(dict(json.loads(state_bytes_cached()), x="y" * 1_000_000)).encode()
    for i in range(300):
        assert hall.handle("carom/t%d/state" % i, mb, i) == []
    assert hall.counts["dropped"]["size"] == 300 and hall.bytes() < 10000
    # Valid, as big as a state may be: 250 runs of 99999 each, padded to the limit with names.
    doc = json.loads(state_bytes_cached())
    doc["players"]["A"]["runs"] = [99999] * 9000
    big = json.dumps(doc).encode()
    assert len(big) < schema.MAX_STATE_BYTES
    for i in range(600):
        hall.handle("carom/b%d/state" % i, big, i)
    assert hall.tables_bytes <= model.MAX_TABLES_BYTES and hall.slots() <= model.MAX_TABLES
    report = big_report("t1", 0)
    assert 90_000 < len(report) < schema.MAX_REPORT_BYTES
    for k in range(400):
        hall.handle("carom/r%d/report" % (k % 50), big_report("t1", k), 1000 + k)
    assert hall.results_bytes <= model.MAX_RESULTS_BYTES and hall.counts["results"] == 400
    assert len(hall.results) < 400 and hall.results[-1].started_at == 1764489600 + 399  # the oldest went
    assert hall.bytes() <= BOUND


BAD_REPORT_FIELDS = [
    ("report.started_at", "yesterday"),
    ("report.started_at", 1e20),
    ("report.started_at", [1]),
    ("report.started_at", -5),
    ("report.started_at", True),
    ("report.ended_at", {"a": 1}),
    ("report.duration_s", "long"),
    ("players.A.score", "3"),
    ("players.A.score", -1),
    ("players.A.score", 1.5),
    ("players.A.name", ["x"]),
    ("players.A.name", "x" * 1000),
    ("players.A.name", "Kim\n=1+2"),
    ("players.B", None),
    ("result", "A; DROP"),
    ("game", 5),
    ("target", 10**30),
    ("report", []),
    ("report.innings", "many"),
    ("report.table", {"x": 1}),
    ("players.A.average", "NaN"),
]


def test_report_fields_checked_before_they_reach_the_results(tmp_path):
    """Tried: reports whose started_at is "yesterday", 1e20, [1], -5 or true (any of them broke
    /results.csv for good, also after a restart), and other fields of the wrong type or range, NaN;
    the same lines written into a --results file by hand.  Each is dropped, the CSV answers."""
    hall = Hall()
    good = finished().report_doc()
    for path, value in BAD_REPORT_FIELDS:
        payload = json.dumps(with_field(good, path, value)).encode()
        assert hall.handle("carom/t1/report", payload, 1.0) == [], (path, value)
    nan = json.dumps(good).replace('"average": 3.0', '"average": NaN').encode()
    assert b"NaN" in nan and hall.handle("carom/t1/report", nan, 1.0) == []
    assert hall.results == [] and hall.counts["dropped"] == {"schema": len(BAD_REPORT_FIELDS), "json": 1}
    hall.handle("carom/t1/report", json.dumps(good).encode(), 2.0)
    rows = list(csv.DictReader(io.StringIO(hall.results_csv(routes.local_time))))
    assert len(rows) == 1 and rows[0]["score_A"] == "3"
    # A results file with the same lines: read, the bad ones skipped, and /results.csv still answers.
    path = tmp_path / "results.jsonl"
    lines = []
    for field, value in BAD_REPORT_FIELDS + [("report.table", "Table 1")]:
        entry = with_field(good, field, value)
        entry["hall"] = {"table": "t1", "received_at": 1.0, "id": "x"}
        lines.append(json.dumps(entry))
    lines.append("{" * 100000)
    lines.append("x" * (schema.MAX_REPORT_BYTES + 10000))
    path.write_text("\n".join(lines) + "\n")
    out = []
    dash = dashboard.Dashboard(Hall(), "broker", str(path), out=out.append)
    try:
        assert len(dash.hall.results) == 1
        assert "1 results read" in out[0] and "%d damaged lines skipped" % (len(BAD_REPORT_FIELDS) + 2) in out[0]
        assert len(list(csv.reader(io.StringIO(dash.hall.results_csv(routes.local_time))))) == 2
    finally:
        dash.close()


# ---- the rarer events' keys: what the firmware writes passes, what it cannot write does not -----------

EVENT_MATCHES = (
    # lag ties, a review, jumped balls with their spots, a frozen ball and its choice, a time-out's
    # own length, the elapsed time, and an abandon
    [
        "new game=three_cushion target=3 shot_clock=40 timeout_s=30",
        "lag_tie",
        "lag_tie",
        "lag A",
        "choose A break",
        "wait 65",
        "review B",
        "foul jumped B red",
        "frozen",
        "frozen_choice masse",
        "point",
        "frozen",
        "frozen_choice start",
        "frozen",
        "frozen_choice free_ball",
        "abandon A",
    ],
    # the restricted areas (an anchor, out, dedans), the frozen balls to the start, left
    [
        "new game=balkline_47_1 target=50 breaker=A",
        "call entre anchor",
        "point",
        "point",
        "call out",
        "call dedans",
        "point",
        "miss",
        "call entre",
        "point",
        "frozen",
        "left B",
    ],
    [
        "new game=straight_rail target=5 breaker=B shot_clock=40",
        "call a_cheval",
        "point",
        "frozen",
        "review A",
        "wait 3",
        "point",
        "point",
        "point",
        "point",
        "miss",
    ],
)


def played_docs(matches):
    """The state documents (after every line) and the reports of matches (each a list of the
    referee's lines), made by the firmware."""
    from tools.hall.loadgen import firmware

    _, matchdoc, referee, report = firmware()
    states, reports = [], []
    for lines in matches:
        ref = referee.Referee()
        for line in lines:
            assert ref.line(line) is None, line
            states.append(matchdoc.doc(ref.match, ref.now))
        reports.append(report.build(ref.match, ref.now, 1764489600, 1764489600 + ref.now // 1000, "Table 1", "wall"))
    return states, reports


def event_docs():
    """The state documents and the reports of EVENT_MATCHES."""
    return played_docs(EVENT_MATCHES)


def test_event_fields_from_the_firmware_pass_whole():
    """Every state document the firmware writes with the rarer events' keys (lag ties, abandoned, respot
    and its balls and spots, the area count, the reviews, the elapsed time, a time-out's length,
    the call out) is kept whole, and the reports with them reach the results."""
    states, reports = event_docs()
    seen = {}
    for d in states:
        for k in ("ended_by", "respot", "last_call"):
            seen.setdefault(k, set()).add(d[k])
        seen.setdefault("respot_balls", set()).add(tuple(d["respot_balls"] or ()))
        seen.setdefault("spots", set()).add(tuple(sorted((d["spots"] or {}).items())))
        seen.setdefault("area", set()).add(json.dumps(d["area"], sort_keys=True))
        seen.setdefault("ties", set()).add((d["lag"] or {}).get("ties"))
        seen.setdefault("review_used", set()).add(tuple(sorted(d["review_used"].items())))
        seen.setdefault("elapsed_s", set()).add(d["elapsed_s"])
        seen.setdefault("timeout_s", set()).add(d["options"]["timeout_s"])
    # The documents hold every new value the hall must take.
    assert {"abandoned", "left", "target"} <= seen["ended_by"]
    assert {None, "start", "three_cushion", "choice", "free_ball", "masse"} <= seen["respot"]
    assert ("B", "red") in seen["respot_balls"] and {"out", "entre", "dedans", "a_cheval"} <= seen["last_call"]
    assert (("A", "centre"), ("B", "baulk"), ("red", "top")) in seen["spots"]
    assert '{"anchor": true, "caroms": 2, "limit": 1, "out_next": true}' in seen["area"]
    assert '{"anchor": false, "caroms": 1, "limit": 2, "out_next": true}' in seen["area"]
    assert {0, 2} <= seen["ties"] and (("A", False), ("B", True)) in seen["review_used"]
    assert {None, 0, 65} <= seen["elapsed_s"] and {0, 30, 40} <= seen["timeout_s"]
    hall = Hall()
    for i, d in enumerate(states):
        payload = json.dumps(d).encode()
        assert hall.handle("carom/t1/state", payload, float(i)), d
        assert hall.tables["t1"].state == d
    for i, r in enumerate(reports):
        assert hall.handle("carom/t%d/report" % (i + 1), json.dumps(r).encode(), 100.0 + i)[-1][0] == "result"
    assert hall.counts["rejected"] == 0
    assert [r.row["ended_by"] for r in hall.results] == ["abandoned", "left", "target"]
    assert [r.row["result"] for r in hall.results] == ["B", "A", "B"]  # who abandoned or left lost
    rows = list(csv.DictReader(io.StringIO(hall.results_csv(routes.local_time))))
    assert [r["ended_by"] for r in rows] == ["abandoned", "left", "target"]
    answers(hall)


BAD_EVENT_FIELDS = [
    ("ended_by", "abandon"),
    ("ended_by", "ABANDONED"),
    ("ended_by", 5),
    ("ended_by", ["abandoned"]),
    ("respot", "choose"),
    ("respot", ["start"]),
    ("respot", {"start": 1}),
    ("respot", True),
    ("respot_balls", "red"),
    ("respot_balls", ["red", "red"]),
    ("respot_balls", ["white"]),
    ("respot_balls", ["A", "B", "red", "A"]),
    ("respot_balls", [["A"]]),
    ("respot_balls", [1]),
    ("respot_balls", {"A": 1}),
    ("respot_balls", ["A"] * 1000),
    ("respot_balls", 0),
    ("spots", "top"),
    ("spots", ["A", "top"]),
    ("spots", {"white": "top"}),
    ("spots", {"A": "corner"}),
    ("spots", {"A": ["top"]}),
    ("spots", {"A": {"spot": "top"}}),
    ("spots", {"A": None}),
    ("spots", {"A": 1}),
    ("area", True),
    ("area", 2),
    ("area", []),
    ("area", {}),
    ("area", {"anchor": False, "caroms": 1, "limit": 2}),
    ("area", {"anchor": 1, "caroms": 1, "limit": 2, "out_next": False}),
    ("area", {"anchor": False, "caroms": -1, "limit": 2, "out_next": False}),
    ("area", {"anchor": False, "caroms": 10**6, "limit": 2, "out_next": False}),
    ("area", {"anchor": False, "caroms": 2**64, "limit": 2, "out_next": False}),
    ("area", {"anchor": False, "caroms": 1.5, "limit": 2, "out_next": False}),
    ("area", {"anchor": False, "caroms": True, "limit": 2, "out_next": False}),
    ("area", {"anchor": False, "caroms": "1", "limit": 2, "out_next": False}),
    ("area", {"anchor": False, "caroms": 1, "limit": 3, "out_next": False}),
    ("area", {"anchor": False, "caroms": 1, "limit": 0, "out_next": False}),
    ("area", {"anchor": False, "caroms": 1, "limit": 2, "out_next": "yes"}),
    ("area", {"anchor": False, "caroms": 1, "limit": 2, "out_next": False, "zone": "x"}),
    ("lag", {"chooser": None, "collisions": 0, "ties": -1}),
    ("lag", {"chooser": None, "collisions": 0, "ties": "1"}),
    ("lag", {"chooser": None, "collisions": 0, "ties": 10**20}),
    ("lag", {"chooser": None, "ties": [1]}),
    ("lag", {"chooser": None, "ties": 0.5}),
    ("review_used", None),
    ("review_used", True),
    ("review_used", [True, False]),
    ("review_used", {"A": True}),
    ("review_used", {"A": 1, "B": 0}),
    ("review_used", {"A": True, "B": False, "C": True}),
    ("review_used", {"A": "true", "B": False}),
    ("review_used", {"A": None, "B": False}),
    ("elapsed_s", -1),
    ("elapsed_s", 10**12),
    ("elapsed_s", 30 * 86400 + 1),
    ("elapsed_s", 1.5),
    ("elapsed_s", "5"),
    ("elapsed_s", [5]),
    ("elapsed_s", {"s": 5}),
    ("elapsed_s", True),
    ("elapsed_s", 10**100),
    ("options.timeout_s", 301),
    ("options.timeout_s", -1),
    ("options.timeout_s", "30"),
    ("options.timeout_s", 30.5),
    ("options.timeout_s", [30]),
    ("last_call", "in"),
    ("last_call", "OUT"),
    ("last_call", ["out"]),
]


def test_event_fields_of_the_wrong_kind_are_dropped():
    """Tried on a real document with every new key set: wrong types, unknown names (a ball
    "white", a spot "corner", a respot "choose"), a ball named twice, too many balls, numbers out
    of range and huge, floats and booleans where a whole number belongs, missing and unknown keys,
    and lists nested 900 deep in each new key. Each is dropped and counted as a schema (or json)
    drop; the table keeps its last good document."""
    states, _ = event_docs()
    good = next(d for d in states if d["respot_balls"] and d["review_used"]["B"])
    good = with_field(good, "area", {"anchor": True, "caroms": 1, "limit": 2, "out_next": True})
    good["lag"] = {"chooser": "A", "collisions": 1, "ties": 3}
    good["ended_by"], good["elapsed_s"], good["last_call"] = "abandoned", 30 * 86400, "out"
    hall = Hall()
    assert hall.handle("carom/t1/state", json.dumps(good).encode(), 1.0)
    for path, value in BAD_EVENT_FIELDS:
        assert hall.handle("carom/t1/state", json.dumps(with_field(good, path, value)).encode(), 2.0) == [], (
            path,
            value,
        )
    paths = (
        "respot_balls",
        "spots",
        "spots.red",
        "area",
        "area.caroms",
        "lag.ties",
        "review_used",
        "review_used.A",
        "elapsed_s",
        "options.timeout_s",
    )
    for depth in (3, 20, 900):  # within the parser's nesting limit: the schema refuses it; beyond: the parser
        for path in paths:
            payload = json.dumps(with_field(good, path, "DEEP")).replace('"DEEP"', nested(depth)).encode()
            assert hall.handle("carom/t1/state", payload, 3.0) == [], (path, depth)
    assert (
        hall.handle(
            "carom/t1/state",
            json.dumps(good).replace('"out_next": true', '"out_next": %s' % nested(30000)).encode(),
            4.0,
        )
        == []
    )
    assert hall.counts["dropped"] == {"schema": len(BAD_EVENT_FIELDS) + 2 * len(paths), "json": len(paths) + 1}
    assert hall.tables["t1"].state == good
    answers(hall)


# ---- the formats' keys: handicap, sets, shoot-out, warm-up ------------------------------------------

FORMAT_MATCHES = (
    # a handicap (each his own target, the top-level target null), drawn on target and extended
    [
        "new game=straight_rail target_A=3 target_B=2 name_A=Ann name_B=Bob",
        "lag A",
        "choose A break",
        "point",
        "miss",
        "miss",
        "point",
        "point",
        "point",
        "point",
        "extend 5 4",
        "point",
        "miss",
        "point",
        "miss",
        "point",
        "point",
    ],
    SETS_MATCH,
    SHOOTOUT_MATCH,
    # a warm-up each, one ended by its time, one by resume
    [
        "new game=three_cushion target=2 warmup_s=60 breaker=A",
        "warmup A",
        "wait 30",
        "warmup B",
        "wait 70",
        "warmup B",
        "wait 5",
        "resume",
        "point",
        "point",
        "miss",
    ],
)


def format_docs():
    """The state documents and the reports of FORMAT_MATCHES."""
    return played_docs(FORMAT_MATCHES)


def test_format_fields_from_the_firmware_pass_whole():
    """Every state document the firmware writes in a handicap match, a set match through its
    deciding set, a shoot-out and a warm-up is kept whole, and their reports reach the results."""
    states, reports = format_docs()
    seen = {}
    for d in states:
        seen.setdefault("phase", set()).add(d["phase"])
        seen.setdefault("ended_by", set()).add(d["ended_by"])
        seen.setdefault("target", set()).add(d["target"])
        for k in ("sets", "shootout", "warmup"):
            seen.setdefault(k, set()).add(json.dumps(d[k], sort_keys=True))
        seen.setdefault("match", set()).add(json.dumps(d["players"]["A"]["match"], sort_keys=True))
        seen.setdefault("options", set()).add(
            json.dumps(
                {k: d["options"][k] for k in ("sets", "deciding_target", "shootout", "warmup_s")}, sort_keys=True
            )
        )
    assert {"set_over", "shootout", "warmup", "break", "lag", "finished"} <= seen["phase"]
    assert "shootout" in seen["ended_by"] and {None, 1, 2} <= seen["target"]
    assert '{"number": 3, "scores": [[2, 1], [0, 2], [1, 0]], "to_win": 2, "won": {"A": 2, "B": 1}}' in seen["sets"]
    assert '{"current": [2, 0], "played": 1, "rounds": [[1, 1]]}' in seen["shootout"]
    assert '{"current": null, "played": 2, "rounds": [[1, 1], [2, 1]]}' in seen["shootout"]
    assert {
        '{"left_s": 60, "player": "A"}',
        '{"left_s": 30, "player": "A"}',
        '{"left_s": 55, "player": "B"}',
        "null",
    } <= seen["warmup"]
    assert '{"average": 0.75, "high_run": 1, "innings": 4, "score": 3}' in seen["match"]
    assert '{"deciding_target": 1, "sets": 2, "shootout": false, "warmup_s": 0}' in seen["options"]
    assert '{"deciding_target": null, "sets": 0, "shootout": true, "warmup_s": 0}' in seen["options"]
    assert '{"deciding_target": null, "sets": 0, "shootout": false, "warmup_s": 60}' in seen["options"]
    hall = Hall()
    for i, d in enumerate(states):
        assert hall.handle("carom/t1/state", json.dumps(d).encode(), float(i)), d
        assert hall.tables["t1"].state == d
    for i, r in enumerate(reports):
        assert hall.handle("carom/t%d/report" % (i + 1), json.dumps(r).encode(), 100.0 + i)[-1][0] == "result"
    assert hall.counts["rejected"] == 0
    assert [r.row["format"] for r in hall.results] == [
        "5:4 handicap",
        "sets 2:1 (2:1, 0:2, 1:0)",
        "1:1, shoot-out 2:1",
        "",
    ]
    rows = list(csv.DictReader(io.StringIO(hall.results_csv(routes.local_time))))
    assert [r["format"] for r in rows] == ["5:4 handicap", "sets 2:1 (2:1, 0:2, 1:0)", "1:1, shoot-out 2:1", ""]
    assert [(r["target_A"], r["target_B"]) for r in rows] == [("5", "4"), ("1", "1"), ("2", "2"), ("2", "2")]
    assert [(r["score_A"], r["score_B"]) for r in rows][1] == ("3", "3")  # a set match's: over all sets
    answers(hall)


BAD_FORMAT_FIELDS = [
    ("target", 0),
    ("target", "30"),
    ("target", [30]),
    ("target", 1.5),
    ("phase", "set over"),
    ("phase", "SHOOTOUT"),
    ("phase", "warm_up"),
    ("phase", 7),
    ("ended_by", "shoot-out"),
    ("players.A.target", None),
    ("players.A.target", 0),
    ("players.A.target", 10**6),
    ("players.A.target", "3"),
    ("players.A.target", True),
    ("players.B.target", [3]),
    ("players.A.match", 3),
    ("players.A.match", []),
    ("players.A.match", {}),
    ("players.A.match", {"score": 3, "innings": 4, "high_run": 1}),
    ("players.A.match", {"score": -1, "innings": 4, "high_run": 1, "average": 0.75}),
    ("players.A.match", {"score": 3, "innings": 4, "high_run": 1, "average": "0.75"}),
    ("players.A.match", {"score": 3, "innings": 4, "high_run": 1, "average": 0.75, "sets": 2}),
    ("players.A.match", {"score": 3, "innings": 10**9, "high_run": 1, "average": 0.75}),
    ("sets", 2),
    ("sets", []),
    ("sets", {}),
    ("sets", {"to_win": 2, "number": 1, "won": {"A": 0, "B": 0}}),
    ("sets", {"to_win": 0, "number": 1, "won": {"A": 0, "B": 0}, "scores": []}),
    ("sets", {"to_win": 10, "number": 1, "won": {"A": 0, "B": 0}, "scores": []}),
    ("sets", {"to_win": 2, "number": 0, "won": {"A": 0, "B": 0}, "scores": []}),
    ("sets", {"to_win": 2, "number": 18, "won": {"A": 0, "B": 0}, "scores": []}),
    ("sets", {"to_win": 2, "number": 1, "won": {"A": 3, "B": 0}, "scores": [[1, 0]] * 3}),
    ("sets", {"to_win": 2, "number": 1, "won": {"A": 1, "B": 0}, "scores": []}),
    ("sets", {"to_win": 2, "number": 1, "won": {"A": 1}, "scores": [[1, 0]]}),
    ("sets", {"to_win": 2, "number": 1, "won": {"A": 1, "B": 0, "C": 0}, "scores": [[1, 0]]}),
    ("sets", {"to_win": 2, "number": 1, "won": {"A": 1, "B": 0}, "scores": [[1, 0, 2]]}),
    ("sets", {"to_win": 2, "number": 1, "won": {"A": 1, "B": 0}, "scores": [[1]]}),
    ("sets", {"to_win": 2, "number": 1, "won": {"A": 1, "B": 0}, "scores": [[10000, 0]]}),
    ("sets", {"to_win": 2, "number": 1, "won": {"A": 1, "B": 0}, "scores": [[-1, 0]]}),
    ("sets", {"to_win": 2, "number": 1, "won": {"A": 1, "B": 0}, "scores": [{"A": 1, "B": 0}]}),
    ("sets", {"to_win": 9, "number": 1, "won": {"A": 9, "B": 9}, "scores": [[1, 0]] * 18}),
    ("sets", {"to_win": 2, "number": 1, "won": {"A": 1, "B": 0}, "scores": [[1, 0]], "extra": 1}),
    ("shootout", 1),
    ("shootout", []),
    ("shootout", {}),
    ("shootout", {"rounds": []}),
    ("shootout", {"rounds": [], "played": 0, "current": [0]}),
    ("shootout", {"rounds": [], "played": 0, "current": [0, -1]}),
    ("shootout", {"rounds": [], "played": 0, "current": "0:0"}),
    ("shootout", {"rounds": [[1, 1]], "played": 0, "current": None}),
    ("shootout", {"rounds": [[1, 1]] * 33, "played": 33, "current": None}),
    ("shootout", {"rounds": [[1, 1]] * 31, "played": 100, "current": None}),
    ("shootout", {"rounds": [[1, 1]] * 32, "played": 100001, "current": None}),
    ("shootout", {"rounds": [[1, 1.5]], "played": 1, "current": None}),
    ("shootout", {"rounds": [[1, None]], "played": 1, "current": None}),
    ("shootout", {"rounds": [[1, 1]], "played": -1, "current": None}),
    ("shootout", {"rounds": [], "played": 0, "current": None, "winner": "A"}),
    ("warmup", "A"),
    ("warmup", {}),
    ("warmup", {"player": "A"}),
    ("warmup", {"player": "C", "left_s": 30}),
    ("warmup", {"player": None, "left_s": 30}),
    ("warmup", {"player": "A", "left_s": 901}),
    ("warmup", {"player": "A", "left_s": -1}),
    ("warmup", {"player": "A", "left_s": "30"}),
    ("warmup", {"player": "A", "left_s": 30, "minute": True}),
    ("options.sets", 10),
    ("options.sets", -1),
    ("options.sets", None),
    ("options.sets", True),
    ("options.deciding_target", 0),
    ("options.deciding_target", 10000),
    ("options.deciding_target", "11"),
    ("options.shootout", "on"),
    ("options.shootout", 1),
    ("options.shootout", None),
    ("options.warmup_s", 901),
    ("options.warmup_s", -5),
    ("options.warmup_s", 60.0),
    ("options.warmup_s", None),
]


def test_format_fields_of_the_wrong_kind_are_dropped():
    """Tried on a real document with every new key set (a set match in its shoot-out, a
    warm-up's clock): wrong types, unknown names, a pair of one or three, scores and rounds out of
    range, more sets or rounds than there can be, sets won that do not add up to the sets'
    scores, rounds that do not fit the rounds played, missing and unknown keys, and lists
    nested 900 deep in each new key. Each is dropped and counted as a schema (or json) drop;
    the table keeps its last good document."""
    states, _ = format_docs()
    good = next(d for d in states if d["sets"] and d["players"]["A"]["match"])
    good = with_field(good, "shootout", {"rounds": [[1, 1]], "played": 1, "current": [2, 0]})
    good = with_field(good, "warmup", {"player": "B", "left_s": 900})
    good["target"] = None
    hall = Hall()
    assert hall.handle("carom/t1/state", json.dumps(good).encode(), 1.0)
    for path, value in BAD_FORMAT_FIELDS:
        assert hall.handle("carom/t1/state", json.dumps(with_field(good, path, value)).encode(), 2.0) == [], (
            path,
            value,
        )
    paths = (
        "players.A.target",
        "players.A.match",
        "players.B.match.score",
        "sets",
        "sets.won",
        "sets.won.A",
        "sets.scores",
        "shootout",
        "shootout.rounds",
        "shootout.current",
        "warmup",
        "warmup.left_s",
        "options.sets",
        "options.warmup_s",
    )
    for depth in (3, 20, 900):  # within the parser's nesting limit: the schema refuses it; beyond: the parser
        for path in paths:
            payload = json.dumps(with_field(good, path, "DEEP")).replace('"DEEP"', nested(depth)).encode()
            assert hall.handle("carom/t1/state", payload, 3.0) == [], (path, depth)
    assert hall.counts["dropped"] == {"schema": len(BAD_FORMAT_FIELDS) + 2 * len(paths), "json": len(paths)}
    assert hall.tables["t1"].state == good
    answers(hall)


BAD_SETUP_FIELDS = [  # the board's account of the hall's set-ups: {n, waiting, refused}, each optional
    3,
    "n",
    [],
    [1, 2, 3],
    {"n": -1},
    {"n": 2**31},
    {"n": "3"},
    {"n": 1.5},
    {"n": True},
    {"n": None},
    {"waiting": -2},
    {"waiting": "1"},
    {"refused": -1},
    {"refused": 10**10},
    {"refused": None},
    {"n": 1, "key": "ab" * 32},
    {"n": 1, "setup": {"players": {}}},
]


def test_the_setup_key_passes_whole_and_wrong_kinds_are_dropped():
    """The state document's "setup" (the board's last set-up n, the one waiting, the refused
    count): null, empty, partial and whole pass; wrong types, out-of-range numbers and unknown
    keys (a key, a set-up's own content) are dropped and counted; the table keeps its last good
    document."""
    states, _ = format_docs()
    good = dict(states[0])
    hall = Hall()
    for setup in (None, {}, {"n": 0}, {"n": 7, "waiting": None, "refused": 0}, {"n": 7, "waiting": 9, "refused": 3}):
        good["setup"] = setup
        assert hall.handle("carom/t1/state", json.dumps(good).encode(), 1.0), setup
    for bad in BAD_SETUP_FIELDS:
        assert hall.handle("carom/t1/state", json.dumps(dict(good, setup=bad)).encode(), 2.0) == [], bad
    assert hall.counts["dropped"] == {"schema": len(BAD_SETUP_FIELDS)}
    assert hall.tables["t1"].state == good
    answers(hall)


def formula_parts(text):
    """Every part of a CSV cell a spreadsheet might read as a cell of its own, as it would begin."""
    import re

    return [p.lstrip(" ") for p in re.split(r"[,;]", text)]


def test_csv_guards_every_part_of_every_cell():
    """Tried: names and clubs "Kim;=1+2;" (a formula in ;-separated locales, hu-HU, de-DE, though
    the cell's first character is harmless), "Kim, +1", "a;@SUM(1)", "x; -2", "=1", and a report's
    table name "T;=2".  Every cell and every ,/;-separated part of it begins with no = + - @."""
    hall = Hall()
    names = ["Kim;=1+2;", "Kim, +1", "a;@SUM(1)", "x; -2", "=1", "Jean-Pierre", "+36 1", "ok"]
    for i, name in enumerate(names):
        doc = finished("t%d" % i).report_doc()
        doc["players"]["A"]["name"] = name
        doc["players"]["B"]["club"] = names[-1 - i]
        doc["report"]["table"] = "T;=2"
        hall.handle("carom/t%d/report" % i, json.dumps(doc).encode(), 1.0)
    text = hall.results_csv(routes.local_time)
    rows = list(csv.reader(io.StringIO(text)))
    assert len(rows) == 1 + len(names)
    for row in rows:
        for cell in row:
            for part in formula_parts(cell):
                assert part[:1] not in ("=", "+", "-", "@", "\t", "\r"), (cell, row)
    # Read as a ;-locale spreadsheet reads it: the line split at every ";".
    for line in text.splitlines()[1:]:
        for field in line.split(";"):
            assert field.strip(' "')[:1] not in ("=", "+", "-", "@"), line
    a = {r[rows[0].index("name_A")] for r in rows[1:]}
    assert {"Kim;'=1+2;", "Kim, '+1", "a;'@SUM(1)", "x; '-2", "'=1", "Jean-Pierre", "'+36 1"} <= a


def test_results_file_full_starts_again(tmp_path, monkeypatch):
    """Tried: reports until the results file passes its byte limit (198 MB were added by 2,000
    reports).  It becomes FILE.1 and FILE starts again with the results kept in memory; a restart
    reads them back."""
    monkeypatch.setattr(results_file, "MAX_FILE_BYTES", 200_000)
    path = str(tmp_path / "results.jsonl")
    out = []
    dash = dashboard.Dashboard(Hall(), "broker", path, out=out.append)
    for k in range(40):
        dash.message("carom/t%d/report" % (k % 5), big_report("t1", k, innings=60), 1000.0 + k)
        assert os.path.getsize(path) <= results_file.MAX_FILE_BYTES
    dash.close()
    assert os.path.exists(path + ".1") and any("starts again" in line for line in out)
    again = dashboard.Dashboard(Hall(), "broker", path, out=out.append)
    try:
        assert [r.key for r in again.hall.results][-3:] == [r.key for r in dash.hall.results][-3:]
    finally:
        again.close()


class HeldLoop:
    """A loop that only keeps what paho's thread hands it (the event loop is busy)."""

    def __init__(self):
        self.calls = []

    def call_soon_threadsafe(self, fn, *args):
        self.calls.append((fn, args))


def test_payloads_waiting_for_the_loop_are_bounded():
    """Tried: payloads larger than a report may be (1 MB), and 400 KB payloads faster than the loop
    handles them.  Past MAX_BACKLOG_BYTES on their way to the loop they are dropped on paho's thread."""
    dash = dashboard.Dashboard(Hall(), "broker", out=lambda s: None)
    loop = HeldLoop()
    dash.received("carom/t1/state", b"x" * 1_000_000, 1.0, loop)
    for i in range(200):
        dash.received("carom/t%d/report" % i, b"y" * 400_000, 1.0, loop)
    assert dash._backlog <= dashboard.MAX_BACKLOG_BYTES
    for fn, args in loop.calls:
        fn(*args)
    assert dash._backlog == 0
    dropped = dash.hall.counts["dropped"]
    assert dropped["size"] == 1 and dropped["backlog"] == 201 - (dashboard.MAX_BACKLOG_BYTES // 400_000) - 1
    assert dropped["json"] == dashboard.MAX_BACKLOG_BYTES // 400_000
    dash.close()


def test_exports_come_in_pieces():
    """The exports are made a piece at a time (the server drains each before making the next)."""
    hall = Hall()
    for k in range(30):
        hall.handle("carom/t1/report", big_report("t1", k, innings=100), 1.0 + k)
    chunks = list(hall.results_json_chunks())
    assert len(chunks) == 32 and max(len(c) for c in chunks) < 50_000
    assert json.loads(b"".join(chunks)) == hall.results_json()
    rows = list(hall.results_csv_chunks(routes.local_time, rows_per_chunk=7))
    assert len(rows) == 5 and "".join(rows) == hall.results_csv(routes.local_time)


# ---- the fuzz test ----------------------------------------------------------------------------


def random_text(rng, n):
    return "".join(
        chr(rng.choice([rng.randrange(32, 127), rng.randrange(0, 0x3000), rng.randrange(0, 32)])) for _ in range(n)
    )


def random_json(rng, depth=0):
    k = rng.randrange(9 if depth < 6 else 5)
    if k == 0:
        return None
    if k == 1:
        return rng.random() < 0.5
    if k == 2:
        return rng.choice([0, 1, -1, 99999, 10**20, rng.randrange(-1000, 100000)])
    if k == 3:
        return rng.choice([0.5, 1e300, -0.0, rng.uniform(-1e6, 1e6)])
    if k == 4:
        return random_text(rng, rng.choice([0, 3, 30, 200]))
    if k in (5, 6):
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(5))]
    return {random_text(rng, rng.randrange(1, 12)): random_json(rng, depth + 1) for _ in range(rng.randrange(5))}


def leaves(doc, path=""):
    """The paths of a document's fields (for mutating one)."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield path + k
            yield from leaves(v, path + k + ".")


def fuzz_message(rng, good_state, good_report):
    """(topic, payload): a random topic under the prefix or not, and random bytes or JSON, a mutated
    state or report, deep nesting or a huge string."""
    kind = rng.choice(["state", "state", "status", "report", "x", ""])
    table = rng.choice(
        [
            "t1",
            "evil",
            "".join(rng.choice("abc019_-") for _ in range(rng.randrange(1, 30))),
            random_text(rng, rng.randrange(1, 20)),
            "+",
            "#",
            "",
            "a/b",
        ]
    )
    topic = rng.choice(
        [
            "carom/%s/%s" % (table, kind),
            "carom/%s" % table,
            "%s/%s" % (table, kind),
            "carom/%s/%s/%s" % (table, table, kind),
        ]
    )
    r = rng.random()
    if r < 0.15:
        payload = bytes(rng.randrange(256) for _ in range(rng.randrange(200)))
    elif r < 0.3:
        payload = json.dumps(random_json(rng)).encode()
    elif r < 0.6:
        base = good_report if kind == "report" else good_state
        doc = json.loads(base)
        path = rng.choice(list(leaves(doc)))
        payload = json.dumps(with_field(doc, path, random_json(rng))).encode()
    elif r < 0.7:
        n = rng.choice([900, 975, 1100, 5000, 50000])
        payload = ('{"version":1,"game":"three_cushion","phase":"running","players":%s}' % nested(n)).encode()
    elif r < 0.75:
        payload = json.dumps(dict(json.loads(good_state), x="y" * rng.choice([100, 70_000, 600_000]))).encode()
    elif r < 0.8:
        payload = good_state.replace(b'"Anna Kovacs"', b'"\xff\xfeAnna"')
    elif r < 0.9:
        payload = rng.choice([b"online", b"offline", b"ONLINE ", b"", b"\x00", b"maybe"])
    else:
        payload = good_state if kind != "report" else good_report
    return topic, payload


FUZZ_CASES = 20000


def test_fuzz_topics_and_payloads():
    """20,000 random messages (seeded): random topics (random table names, wrong depth, other
    prefixes, + and #), random bytes (non-UTF-8), random JSON, a valid state or report with one field
    replaced by random JSON, nesting 900..50,000 deep, strings of 70 KB and 600 KB.  Every 100
    messages the real tables t1..t4 publish again; throughout, everything the dashboard answers can be
    made, the real tables keep their newest state, and the model's bytes stay bounded."""
    rng = random.Random(1313)
    hall = Hall()
    good_state = state_bytes(sim_table("t1", ["point"]))
    good_report = json.dumps(finished().report_doc()).encode()
    real = {"t%d" % i: state_bytes(sim_table("t%d" % i, ["point"] * i)) for i in range(1, 5)}
    now = 0.0
    for case in range(FUZZ_CASES):
        now += 0.1
        if case % 100 == 0:
            for name, doc in real.items():
                hall.handle("carom/%s/state" % name, doc, now)
        topic, payload = fuzz_message(rng, good_state, good_report)
        if topic.split("/")[1:2] in (["t1"], ["t2"], ["t3"], ["t4"]) and topic.endswith("/state"):
            topic = topic.replace("/t", "/x", 1)  # a stranger cannot publish a real board's topics (ACLs)
        hall.handle(topic, payload, now)
        if case % 100 == 99:
            answers(hall)
            for name, doc in real.items():
                assert hall.tables[name].state == json.loads(doc), name
    assert hall.counts["messages"] == FUZZ_CASES + 4 * FUZZ_CASES // 100
    assert sum(hall.counts["dropped"].values()) == hall.counts["rejected"] > FUZZ_CASES // 2
    assert {"topic", "json", "schema", "size", "encoding", "status"} <= set(hall.counts["dropped"])


# ---- against a real mosquitto ---------------------------------------------------------------


def publisher(port, user=None, password=None, client_id=None):
    c = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=client_id or "stranger-%d" % random.randrange(10**9))
    if user is not None:
        c.username_pw_set(user, password)
    result = {}
    done = threading.Event()

    def connected(client, userdata, flags, reason, properties):
        result["reason"] = reason
        done.set()

    c.on_connect = connected
    c.connect("127.0.0.1", port, 30)
    c.loop_start()
    assert done.wait(10), "no CONNACK"
    return c, result["reason"]


def publish_all(client, messages):
    infos = [client.publish(t, p, qos=1, retain=r) for t, p, r in messages]
    for info in infos:
        info.wait_for_publish(10)
        assert info.is_published(), "the broker did not take a message"


def hostile_messages(rng):
    """The retained junk of the issue: the deep list, 3,000 fake tables, and random bytes."""
    out = [
        (
            "carom/evil/state",
            ('{"version":1,"game":"three_cushion","phase":"running","players":%s}' % nested(975)).encode(),
            True,
        )
    ]
    for i in range(3000):
        junk = rng.choice(
            [
                b"{not json",
                b'{"players": {"A": {}, "B": {}}}',
                nested(500).encode(),
                b"\xff\xfe\x00",
                json.dumps(random_json(rng)).encode(),
            ]
        )
        out.append(("carom/fake%d/state" % i, junk, True))
    return out


@needs_mosquitto
def results_so_far(h):
    """The results the hall counts; -1 while it is too busy to answer within the request's 10 s
    (200 reports of 100 KB each checked on a machine loaded by other suites)."""
    try:
        return h.get("/api/tables")["counts"]["results"]
    except OSError:  # socket.timeout / TimeoutError, a refused connection
        return -1


def test_hall_shrugs_off_a_hostile_broker(tmp_path):
    """Tried, end to end with mosquitto: the retained 975-deep carom/evil/state and 3,000 retained
    fake tables before the hall starts (the page said "dashboard lost" for good, real tables were
    refused); the hall started, restarted; then 1,000 more random messages (fuzz) while it runs;
    200 reports of ~100 KB and a client that opens /results.json and reads nothing (a 218 MB export
    blocked every other request).  /api/tables and /events answer throughout, the real tables stay."""
    rng = random.Random(7)
    m = Mosquitto()
    with open(m.conf, "a") as f:  # (its default, 1,000 QoS 1 messages queued for a client, drops the rest)
        f.write("max_queued_messages 20000\n")
    m.start()
    h = None
    try:
        stranger, reason = publisher(m.port)
        publish_all(stranger, hostile_messages(rng))
        from tools.hall.loadgen import Board, SSEClient

        boards = {n: Board("127.0.0.1", m.port, n).wait() for n in ("t1", "t2")}
        docs = {n: sim_table(n, ["point"] * int(n[1])).doc() for n in boards}
        for n, b in boards.items():
            b.state(docs[n]).wait_for_publish(10)
        for run in range(2):  # started, then restarted: the retained junk arrives again
            h = HallProc(m.port, "--results", str(tmp_path / "results.jsonl"))
            api = wait_for(
                lambda: h.get("/api/tables"),
                lambda a: {"t1", "t2"} <= {t["table"] for t in a["tables"]},
                30,
                "the real tables",
            )
            wait_for(lambda: h.get("/api/tables")["counts"]["messages"], lambda n: n >= 3005, 30, "every message")
            api = h.get("/api/tables")
            assert {t["table"] for t in api["tables"] if t["state"]} == {"t1", "t2"}
            assert sum(api["counts"]["dropped"].values()) == api["counts"]["rejected"] == 3001
            events = []
            sse = SSEClient(h.url, lambda kind, data, at: events.append((kind, data)))
            snap = wait_for(lambda: [d for k, d in events if k == "snapshot"], lambda s: s, 20, "the snapshot")
            assert {t["table"] for t in json.loads(snap[0])["tables"]} >= {"t1", "t2"}
            sse.close()
            h.wait_line(r"dropped a message")
            if run == 0:
                assert h.stop() == 0
                drops = [line for line in h.lines if "dropped a message" in line]
                assert 1 <= len(drops) <= len(api["counts"]["dropped"]), h.lines  # once per kind
        # Fuzz while it runs, then a last real update as a marker (same connection: it arrives last).
        good_state = state_bytes(sim_table("t9", ["point"]))
        good_report = json.dumps(finished().report_doc()).encode()
        fuzz = []
        while len(fuzz) < 1000:
            topic, payload = fuzz_message(rng, good_state, good_report)
            if "#" in topic or "+" in topic or not topic or len(payload) > 200_000:
                continue
            if any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F or 0xD800 <= ord(c) for c in topic):
                continue  # the broker closes the connection of a client that sends such a topic
            fuzz.append((topic.replace("/t1/", "/x1/"), payload, rng.random() < 0.5))
        publish_all(stranger, fuzz)
        docs["t1"] = sim_table("t1", ["point"] * 5).doc()
        boards["t1"].state(docs["t1"])
        wait_for(lambda: h.table("t1")["state"], docs["t1"], 30, "t1's newest state after the fuzz")
        api = h.get("/api/tables")
        assert api["bytes"] <= BOUND and h.table("t2")["state"] == docs["t2"]
        # A big results list, and an export that is never read.
        publish_all(stranger, [("carom/r%d/report" % (k % 10), big_report("t1", k), False) for k in range(200)])
        wait_for(lambda: results_so_far(h), lambda n: n >= 200, 120, "the reports")
        slow = socket.create_connection(("127.0.0.1", int(h.url.rsplit(":", 1)[1])), 10)
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.sendall(b"GET /results.json HTTP/1.1\r\nHost: %s\r\n\r\n" % h.url.split("//")[1].encode())
        assert slow.recv(1024).startswith(b"HTTP/1.1 200")
        for _ in range(5):
            assert {"t1", "t2"} <= {t["table"] for t in h.get("/api/tables")["tables"]}
        with urllib.request.urlopen(h.url + "/results.csv", timeout=30) as f:
            assert len(f.read().splitlines()) >= 200
        slow.close()
        stranger.loop_stop()
        for b in boards.values():
            b.close()
        dropped = h.get("/api/tables")["counts"]["dropped"]
        last, h = h, None
        assert last.stop() == 0
        drops = [line for line in last.lines if "dropped a message" in line]
        assert len(drops) == len(dropped), drops  # once per kind, with the fuzz's kinds
    finally:
        if h is not None:
            assert h.stop() == 0
        m.close()


@needs_mosquitto
def test_broker_logins_and_acls(tmp_path):
    """The README's mosquitto example (tools/run/mosquitto.py ACL_EXAMPLE): a board logged in as its
    table publishes its own table; its publish to another table's topic is dropped by the broker;
    an anonymous client and a wrong password are refused; the hall logs in with --user and its
    password from $CAROM_HALL_PASSWORD (then --password-file), which is never on its command line
    or in its output, and sees the tables."""
    secret = {"hall": "hall-secret-7f3a", "t1": "t1-secret-91bc", "t2": "t2-secret-c0de"}
    m = SecureMosquitto(secret).start()
    h = None
    try:
        from tools.hall.loadgen import Board

        anon, reason = publisher(m.port)
        assert reason.is_failure, reason
        anon.loop_stop()
        wrong, reason = publisher(m.port, "t1", "guess")
        assert reason.is_failure, reason
        wrong.loop_stop()
        b1 = Board("127.0.0.1", m.port, "t1", user="t1", password=secret["t1"]).wait()
        t1 = sim_table("t1", ["point"])
        env = dict(os.environ, CAROM_HALL_PASSWORD=secret["hall"])
        h = HallProc(m.port, "--user", "hall", env=env)
        b1.state(t1.doc())
        wait_for(lambda: h.table("t1"), lambda t: t and t["state"] and t["status"] == "online", 20, "t1 on the hall")
        # t1 publishes as t2 (refused by the ACL, silently), then on its own topic: that one arrives, the other not.
        b1.client.publish(
            "carom/t2/state", state_bytes(sim_table("t2", ["point"])), qos=1, retain=True
        ).wait_for_publish(10)
        t1.line("point")
        b1.state(t1.doc())
        wait_for(lambda: h.table("t1")["state"], json.loads(json.dumps(t1.doc())), 20, "t1's second state")
        assert h.table("t2") is None
        b2 = Board("127.0.0.1", m.port, "t2", user="t2", password=secret["t2"]).wait()
        b2.state(sim_table("t2", ["point", "point"]).doc())
        wait_for(
            lambda: h.table("t2"),
            lambda t: t and t["state"] and t["state"]["players"]["A"]["score"] == 2,
            20,
            "t2 from its own board",
        )
        with open("/proc/%d/cmdline" % h.proc.pid, "rb") as f:
            assert secret["hall"].encode() not in f.read()
        assert h.stop() == 0
        assert not any(secret["hall"] in line for line in h.lines), h.lines
        # The password from a file; a wrong one: the hall says the broker refused it.
        pw = tmp_path / "hall.pw"
        pw.write_text(secret["hall"] + "\n")
        env.pop("CAROM_HALL_PASSWORD")
        h = HallProc(m.port, "--user", "hall", "--password-file", str(pw), env=env)
        wait_for(lambda: h.table("t2"), lambda t: t and t["state"], 20, "the tables, logged in from the file")
        assert h.stop() == 0
        pw.write_text("wrong\n")
        h = HallProc(m.port, "--user", "hall", "--password-file", str(pw), env=env)
        h.wait_line(r"refused the connection", 20)
        assert h.stop() == 0
        h = None
        out = subprocess.run(
            [CAROM, "hall", "--broker", "127.0.0.1:%d" % m.port, "--user", "hall"],
            capture_output=True,
            text=True,
            timeout=30,
            env=env,
        )
        assert out.returncode == 1 and "CAROM_HALL_PASSWORD" in out.stderr
        b1.close()
        b2.close()
    finally:
        if h is not None:
            h.stop()
        m.close()


@needs_mosquitto
def test_a_login_cannot_take_the_halls_client_id_or_a_boards(tmp_path):
    """Under `carom hall-broker`'s configuration (each login its own client id) board t1's login
    connects with the hall's client id, then with board t2's, ten times each: the hall and t2 stay
    connected (no reconnect), and the hall says at its start that the broker is set so. Without
    use_username_as_clientid the same login throws the hall off (it reconnects), and the hall warns
    at its start."""
    from tools.hall.loadgen import Board

    secret = {"hall": "hall-secret-7f3a", "t1": "t1-secret-91bc", "t2": "t2-secret-c0de"}
    env = dict(os.environ, CAROM_HALL_PASSWORD=secret["hall"])
    client_id = "carom-hall-takeover-test"

    def take(port, cid, times):
        """t1's login connecting with client id `cid`, `times` times; each waits for its CONNACK."""
        for _ in range(times):
            c, reason = publisher(port, "t1", secret["t1"], client_id=cid)
            c.disconnect()
            c.loop_stop()
            assert not reason.is_failure

    for guarded in (True, False):
        m = SecureMosquitto(secret, login_is_client_id=guarded).start()
        h = None
        try:
            h = HallProc(m.port, "--user", "hall", "--client-id", client_id, env=env)
            if guarded:
                h.wait_line(r"the broker makes each login its own client id", 20)
            else:
                h.wait_line(r"warning: the broker lets a login connect with any client id", 20)
            h.wait_line(r"broker 127\.0\.0\.1:\d+ connected", 20)
            b2 = Board("127.0.0.1", m.port, "t2", user="t2", password=secret["t2"], client_id="carom-sim-t2").wait()
            drops = []
            b2.client.on_disconnect = lambda *a: drops.append(1)
            if guarded:
                take(m.port, client_id, 10)
                take(m.port, "carom-sim-t2", 10)
                b2.state(sim_table("t2", ["point"]).doc())  # t2 is on, and the hall hears it
                wait_for(lambda: h.table("t2"), lambda t: t and t["state"], 20, "t2 after the tries")
                assert drops == [] and h.get("/api/tables")["broker"]["connects"] == 1
            else:
                take(m.port, client_id, 1)
                h.wait_line(r"not connected \(connection lost\)", 20)
                wait_for(lambda: h.get("/api/tables")["broker"]["connects"], 2, 20, "the hall thrown off and back")
            b2.close()
            assert h.stop() == 0
            h = None
        finally:
            if h is not None:
                h.stop()
            m.close()


# ---- the organiser's corrections ------------------------------------------------------------------


def _hostile_value(rng, depth=0):
    """A JSON value an attacker might send: huge or negative numbers, floats, booleans, text with
    markup and control characters, deep or long containers."""
    pick = rng.randrange(12)
    if pick == 0:
        return rng.choice([0, 1, -1, 2**31, 2**63, 10**400, 99999, 100000])
    if pick == 1:
        return rng.choice([0.5, -0.0, 1e308, 3.0])
    if pick == 2:
        return rng.choice([True, False, None])
    if pick == 3:
        return rng.choice(["A", "B", "C", "", " A", "t1", "t1/x", "<script>x()</script>", "=1+2", "a\nb", "x" * 5000])
    if pick == 4:
        return rng.choice(["umb", "ceb", "uncounted", "annulled", "stand", "zero_in_limit", "points", "gd", "Anna"])
    if pick == 9:
        return rng.choice(["t1", "t2", "t3", "Bela", "<b>Erno</b>", "=1+2", ["gd", "points"]])
    if pick == 5 and depth < 3:
        return [_hostile_value(rng, depth + 1) for _ in range(rng.randrange(6))]
    if pick == 6 and depth < 3:
        keys = ["score", "innings", "high_run", "x", "__proto__"]
        return {rng.choice(keys): _hostile_value(rng, depth + 1) for _ in range(rng.randrange(5))}
    if pick == 7:
        return nested(rng.randrange(1, 200))
    if pick == 8:
        return {
            "score": rng.randrange(-5, 10**6),
            "innings": rng.randrange(-5, 10**6),
            "high_run": rng.randrange(-5, 50),
        }
    return rng.randrange(-3, 50)


_PLAUSIBLE = {
    "match": lambda rng: rng.randrange(1, 20),
    "present": lambda rng: rng.choice("AB"),
    "winner": lambda rng: rng.choice(["A", "B", None]),
    "player": lambda rng: rng.choice(["Anna", "Bela", "<b>Erno</b>", "=1+2"]),
    "excluded": lambda rng: rng.random() < 0.5,
    "table": lambda rng: rng.choice(["t1", "t2", "t3"]),
    "A": lambda rng: {"score": rng.randrange(6), "innings": rng.randrange(1, 11), "high_run": rng.randrange(1, 4)},
    "B": lambda rng: {"score": rng.randrange(6), "innings": rng.randrange(1, 11), "high_run": rng.randrange(1, 4)},
}


def _field_value(rng, field):
    """Half the time a value that field may take, else a hostile one."""
    if field in _PLAUSIBLE and rng.random() < 0.5:
        return _PLAUSIBLE[field](rng)
    return _hostile_value(rng)


def test_the_organisers_corrections_refuse_hostile_bodies_with_reasons(tmp_path):
    """walkover, withdraw, result, move, unsend and the new settings: 4,000 hostile bodies each go
    through the page's checks (organiser.check_*) and then the tournament; each is taken or refused
    with a one-line reason (Refused or ValueError), nothing else is raised, and the tournament stays
    whole (its standings, bracket and exports are still made)."""
    from host_tools.hall import organiser as org
    from host_tools.hall.tournament import Tournament

    t = Tournament(str(tmp_path / "hostile.db"))
    t.configure(
        format="groups_knockout", groups=2, advance=2, third_place=True, game_options={"target": 5, "innings_limit": 10}
    )
    for n in ("Anna", "Bela", "Csaba", "Dora", "<b>Erno</b>", "=1+2"):
        t.add_player(n)
    for k in range(3):
        t.add_table("t%d" % (k + 1))
    t.draw()
    t.assign(["t1", "t2", "t3"])
    checks = {
        "walkover": (org.check_walkover, ("match", "present"), lambda a: t.walkover(*a)),
        "withdraw": (org.check_withdraw, ("player", "excluded"), lambda a: t.withdraw(a[0], excluded=a[1])),
        "result": (org.check_result, ("match", "A", "B", "winner"), lambda a: t.enter_result(*a)),
        "move": (org.check_move, ("match", "table"), lambda a: t.move(*a)),
        "unsend": (org.check_table, ("table",), lambda a: t.setup_of(a)),
        "configure": (
            org.check_configure,
            ("walkover", "withdrawal", "tiebreak", "third_place"),
            lambda a: t.configure(**a),
        ),
    }
    rng = random.Random(20261205)
    taken = refused = 0
    took = set()
    for i in range(4000):  # the first half without withdrawals (they make every match a walkover)
        action = rng.choice(sorted(a for a in checks if i >= 2000 or a != "withdraw"))
        check, fields, apply = checks[action]
        body = {f: _field_value(rng, f) for f in fields if rng.random() < 0.9}
        if rng.random() < 0.05:
            body["unknown"] = 1
        if rng.random() < 0.05:
            body = _hostile_value(rng)
        try:
            args = check(body)
        except org.Refused as e:
            assert "\n" not in str(e) and len(str(e)) < 400, str(e)
            refused += 1
            continue
        try:
            apply(args)
            taken += 1
            took.add(action)
        except ValueError as e:
            assert "\n" not in str(e) and len(str(e)) < 400, str(e)
            refused += 1
        if i % 500 == 0:
            json.loads(t.export_json())
    assert refused > taken > 0 and took >= {"walkover", "result", "move", "unsend", "withdraw"}, (taken, took)
    for m in t.matches():
        assert m["status"] in ("pending", "assigned", "waiting", "playing", "done", "annulled", "bye")
    json.loads(t.export_json())
    t.export_csv()
    page = t.export_html()
    assert "<b>Erno</b>" not in page and "&lt;b&gt;Erno&lt;/b&gt;" in page

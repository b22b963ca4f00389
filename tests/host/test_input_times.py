"""Every check of input from strangers takes time linear in the input's size, up to the size it is
let in at: each is given adversarial input at its limit and at a quarter of it, and the time at the
limit must stay under 8 times the quarter's, plus 5 ms for the clock (linear code takes about 4
times, quadratic 16).  A ratio of times, not a limit on one; both times are recorded (junit's
properties: seconds_at_N_bytes).  A time is the test thread's CPU time (not the other jobs' on a
shared machine), the best of 3, the two sizes in turn; a ratio over the bound is measured once
more, best of 5, before it fails.  The garbage collector is paused meanwhile: its full passes go
over the whole test process's heap at counts of their own choosing (amortised linear, and not the
check's work).

What was tried at each limit, and the time at the limit on the machine this was written on (2
shared CPUs, the collector paused), the worst first:

  a board's state document, schema.MAX_STATE_BYTES (64 KB), through Hall.handle (schema.parse,
  check_state, the table's slot): lists 32 deep (the most json_body lets in) under a key of its
  own, 11 ms; empty objects, 7 ms; both players' runs of 99999 (valid), 3 ms; the runs and a wrong
  key at the end, distinct keys, a key repeated, numbers of 4,300 digits (the most int() reads):
  1.4 to 2.4 ms; a whole number of every digit (refused by json), floats of 4,000 digits, a float
  of every digit, a float of 64,000 digits past the largest, escaped surrogate pairs, escaped
  quotes, UTF-8 text, blanks: under 0.6 ms.

  a board's report, schema.MAX_REPORT_BYTES (512 KB), through Hall.handle (schema.report, the
  fingerprint, the result's JSON and row): lists 32 deep, 90 ms (130 ms with the collector
  running); innings with the fewest keys (valid, 15,385 of them), 47 ms; innings of 64 fouls
  (valid), 19 ms; numbers of 4,300 digits, 11 ms; escaped surrogate pairs, 3 ms.  (Innings with a
  key repeated 40 times, 19 ms, are not timed here.)

  a line of the results file read back at the hall's start (results_file.load) as long as it
  may be, MAX_REPORT_BYTES + 4 KB: innings with the fewest keys, 51 ms (lists 32 deep, 88 ms, are
  not timed here).
  (The whole file, results_file.MAX_FILE_BYTES = 64 MB of 1.5 KB reports, took 4 to 7 s: a report that
  replaced another found the old one's place by searching the results list, up to 10,000 long, 70
  us each, 40% of the file's time when every line replaced the newest.  The place is kept now.)

  a report taken into the tournament (Tournament.record_report, from the result's JSON: the check
  again, the fingerprint, impossible(), the report kept): innings with the fewest keys, 34 ms
  (innings of 64 fouls, 13 ms, not timed here).

  an organiser's POST body, organiser.MAX_BODY (32 KB): json_body and each action's check
  (check_players, check_configure with the board's own config.normalize, check_table, check_draw,
  check_decide, check_view, the sign-in's code) and the tournament's own checks of a name and the
  game options: game options 32 deep, 6 ms; players 32 deep, 5 ms; 101 players with names of
  escaped characters (valid), the last with a tab, a name of blanks around a letter, a name of
  escaped blanks, targets of 4,300 digits, distinct keys, a long name, game, table, winner, view or
  code, a target of every digit, a seed of a float's digits, a key repeated: under 1 ms.

  the simulator's POST bodies, page.server.MAX_BODY (64 KB): an action (check_action) whose button
  is 32 deep, 13 ms; a key repeated, distinct keys, a long button, action or chip, seconds of
  every digit: under 2 ms; the form (BoardSession.configure up to the board: check_form, the
  firmware's config checks, the error redacted) with values 32 deep, 13 ms; distinct keys, a
  hostile value repeated, long values: under 2 ms.

  the simulator's Redactor (every error and line it shows goes through it) over a text as long as
  a body, 64 KB: quoted "key" fields never closed, 2.5 ms; a value of backslashes never closed,
  escaped quotes, a secret it knows on every line, 63-digit hex runs, blanks before the colon:
  under 2 ms.  Its field pattern took a backslash two ways, so a value of n backslashes never
  closed cost about 1.6 ** n steps: 0.8 to 2.3 s for the error about one form value (of 100
  characters, cut to 40 in the message), about two days for 60.  It matches what it matched
  now, in one pass (a test compares the two on every short text).
"""

import gc
import json
import time

import pytest
from test_hall import finished, sim_table

from host_tools.hall import organiser as org
from host_tools.hall import results_file, schema, tournament
from host_tools.hall.model import Hall
from host_tools.hall.tournament import values as tournament_values
from host_tools.json_body import json_body
from host_tools.simulator.page import server as sim_server
from host_tools.simulator.page import actions, form, session
from host_tools.simulator.page.redact import SECRET_FIELD, Redactor

QUARTER = 4
BOUND = 8  # linear: about 4; quadratic: 16
SLACK_S = 0.005

STATE = sim_table("t1", ["point", "miss"]).doc()
REPORT = finished().report_doc()


# ---- timing ------------------------------------------------------------------------------------


def _once(fn, arg):
    t = time.thread_time()  # (this thread's CPU time: not the other jobs' on the machine)
    fn(arg)
    return time.thread_time() - t


def best_times(fn, small, full, runs):
    """(best time of fn(small), of fn(full)), measured in turn, the garbage collector paused."""
    ts, tf = [], []
    gc.collect()
    gc.disable()
    try:
        for _ in range(runs):
            ts.append(_once(fn, small))
            tf.append(_once(fn, full))
    finally:
        gc.enable()
    return min(ts), min(tf)


def assert_linear(fn, make, limit, record_property, expected=None, size=len):
    """fn(make(limit)) takes under BOUND times fn(make(limit // QUARTER)), plus SLACK_S; `expected`:
    what fn answers at the limit (the shape does what it says: valid, or refused for that reason);
    size(x): the bytes of what make(n) made."""
    full, small = make(limit), make(limit // QUARTER)
    assert 0.9 * limit <= size(full) <= limit, (size(full), limit)
    if expected is not None:
        assert fn(full) == expected, fn(full)
    t_small, t_full = best_times(fn, small, full, 3)
    if t_full >= BOUND * t_small + SLACK_S:
        t_small, t_full = best_times(fn, small, full, 5)
    record_property("seconds_at_" + str(size(small)) + "_bytes", round(t_small, 4))
    record_property("seconds_at_" + str(size(full)) + "_bytes", round(t_full, 4))
    assert t_full < BOUND * t_small + SLACK_S, (t_small, t_full)


# ---- payloads of a given size ------------------------------------------------------------------


def fill(head, item, tail, n, sep=b","):
    """head + item, item, ... + tail: as many items as fit in n bytes."""
    k = max(0, (n - len(head) - len(tail) + len(sep)) // (len(item) + len(sep)))
    return head + sep.join([item] * k) + tail


def compact(doc):
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


def around(doc, *paths):
    """doc as compact JSON, cut at each of `paths` ("players.A.runs"): the pieces between them."""
    doc = json.loads(json.dumps(doc))
    for path in paths:
        *head, last = path.split(".")
        d = doc
        for k in head:
            d = d[k]
        d[last] = "@@"
    return compact(doc).split(b'"@@"')


def in_field(doc, path, item, n, open_=b"[", close=b"]", sep=b","):
    """doc with a list (or what open_ and close make) of `item`s at `path`, n bytes at most."""
    a, b = around(doc, path)
    return fill(a + open_, item, close + b, n, sep)


def at_end(doc, key, item, n, open_=b"[", close=b"]", sep=b","):
    """doc with one more key, last, holding a list of `item`s: n bytes at most."""
    return fill(compact(doc)[:-1] + b',"' + key.encode() + b'":' + open_, item, close + b"}", n, sep)


def both_runs(doc, n, run=b"99999"):
    """Both players' runs as long as n bytes allow (at most schema.MAX_RUNS each)."""
    a, b, c = around(doc, "players.A.runs", "players.B.runs")
    room = min((n - len(a) - len(b) - len(c)) // 2, schema.MAX_RUNS * (len(run) + 1))
    runs = fill(b"[", run, b"]", room)
    return a + runs + b + runs + c


def distinct_keys(head, tail, n):
    """head + "k00000":0,"k00001":0,... + tail: as many keys as fit in n bytes."""
    k = (n - len(head) - len(tail) + 1) // 11
    return head + b",".join(b'"k%05d":0' % i for i in range(k)) + tail


def text_of(doc, key, unit, n):
    """doc with one more key, last, whose text is `unit` repeated: n bytes at most."""
    return fill(compact(doc)[:-1] + (b"," if doc else b"") + b'"' + key.encode() + b'":"', unit, b'"}', n, b"")


def deep(k):
    return b"[" * k + b"]" * k


DEEP = deep(30)  # in a list in an object: 32 deep, as deep as json_body lets in
BIG = b"9" * 4300  # the most digits int() reads (sys.get_int_max_str_digits)


# ---- a board's state document and report, over MQTT ---------------------------------------------


def handled(topic):
    """Hall.handle of one message on `topic` in a new hall: "ok", or the kind it was dropped for."""

    def check(payload):
        hall = Hall()
        events = hall.handle(topic, payload, 1.0)
        return "ok" if events else next(iter(hall.counts["dropped"]))

    return check


STATE_SHAPES = {
    "lists 32 deep": (lambda n: at_end(STATE, "x", DEEP, n), "schema"),
    "empty objects": (lambda n: at_end(STATE, "x", b"{}", n), "schema"),
    "runs of 99999 (valid)": (lambda n: both_runs(STATE, n), "ok"),
    "runs, then a wrong key": (lambda n: both_runs(STATE, n - 16)[:-1] + b',"zz":[1]}', "schema"),
    "distinct keys": (lambda n: distinct_keys(b'{"version":1,', b"}", n), "schema"),
    "a key repeated": (lambda n: fill(compact(STATE)[:-1] + b",", b'"events":1', b"}", n), "ok"),
    "numbers of 4,300 digits": (lambda n: in_field(STATE, "players.A.runs", BIG, n), "schema"),
    "a whole number of every digit": (lambda n: fill(compact(STATE)[:-1] + b',"x":', b"9", b"}", n, b""), "json"),
    "floats of 4,000 digits": (lambda n: at_end(STATE, "x", b"0." + b"1" * 4000, n), "schema"),
    "a float of every digit": (lambda n: fill(compact(STATE)[:-1] + b',"x":0.', b"1", b"}", n, b""), "ok"),
    "a float past the largest": (lambda n: fill(compact(STATE)[:-1] + b',"x":1', b"0", b"e99}", n, b""), "schema"),
    "escaped surrogate pairs": (lambda n: text_of(STATE, "x", b"\\ud83d\\ude00", n), "schema"),
    "escaped quotes": (lambda n: text_of(STATE, "x", b'\\"', n), "schema"),
    "UTF-8 text": (lambda n: text_of(STATE, "x", "é".encode(), n), "schema"),
    "blanks": (lambda n: compact(STATE)[:-1] + b" " * (n - len(compact(STATE))) + b"}", "ok"),
}


@pytest.mark.parametrize("shape", list(STATE_SHAPES))
def test_a_state_document_is_checked_in_linear_time(shape, record_property):
    make, expected = STATE_SHAPES[shape]
    assert_linear(handled("carom/t1/state"), make, schema.MAX_STATE_BYTES, record_property, expected)


SMALL_INNING = b'{"player":"A","inning":1,"run":0}'
FOUL_INNING = compact(dict(REPORT["report"]["innings"][0], fouls=["marked_cushion"] * 64))
REPORT_SHAPES = {
    "lists 32 deep": (lambda n: at_end(REPORT, "x", DEEP, n), "schema"),
    "innings with the fewest keys (valid)": (lambda n: in_field(REPORT, "report.innings", SMALL_INNING, n), "ok"),
    "innings of 64 fouls (valid)": (lambda n: in_field(REPORT, "report.innings", FOUL_INNING, n), "ok"),
    "numbers of 4,300 digits": (lambda n: in_field(REPORT, "report.innings", BIG, n), "schema"),
    "escaped surrogate pairs": (lambda n: text_of(REPORT, "x", b"\\ud83d\\ude00", n), "schema"),
}
READBACK_SHAPES = ("innings with the fewest keys (valid)",)  # (the rest: as a report's, read the same way)
RECORDED_SHAPES = ("innings with the fewest keys (valid)",)


@pytest.mark.parametrize("shape", list(REPORT_SHAPES))
def test_a_report_is_checked_in_linear_time(shape, record_property):
    """Hall.handle: the report's checks, its fingerprint, its result's JSON and row."""
    make, expected = REPORT_SHAPES[shape]
    assert_linear(handled("carom/t1/report"), make, schema.MAX_REPORT_BYTES, record_property, expected)


@pytest.mark.parametrize("shape", READBACK_SHAPES)
def test_a_results_file_line_is_read_back_in_linear_time(shape, tmp_path, record_property):
    """A line of the results file at the longest the hall reads (a report's limit and 4 KB)."""
    make, expected = REPORT_SHAPES[shape]
    longest = schema.MAX_REPORT_BYTES + 4096
    hall_key = b',"hall":{"table":"t1","received_at":1.5,"id":"0123456789abcdef"}}\n'

    def line_file(n):
        path = tmp_path / f"results-{n}.jsonl"
        path.write_bytes(make(n - len(hall_key))[:-1] + hall_key)
        return path

    def read_back(path):
        hall = Hall()
        results_file.load(hall, str(path), out=lambda line: None)
        return "ok" if hall.results else "schema"

    assert_linear(read_back, line_file, longest, record_property, expected, size=lambda path: path.stat().st_size)


@pytest.mark.parametrize("shape", RECORDED_SHAPES)
def test_a_report_is_taken_into_the_tournament_in_linear_time(shape, tmp_path, record_property):
    """Tournament.record_report, as the hall calls it with a result's document: json.loads of the
    result's JSON, the tournament's own check, its fingerprint, the report kept (unmatched here)."""
    make, expected = REPORT_SHAPES[shape]
    t = tournament.Tournament(tmp_path / "t.db")
    runs = [0]

    def record(payload):
        doc = json.loads(payload)
        runs[0] += 1
        doc["report"]["ended_at"] = 1796488686 + runs[0]  # a new report each time: not a duplicate
        try:
            t.record_report("t1", doc)
        except ValueError:
            return "schema"
        return "ok"

    try:
        assert_linear(record, make, schema.MAX_REPORT_BYTES, record_property, expected)
    finally:
        t.close()


# ---- the organiser's POST bodies ---------------------------------------------------------------


def posted(check):
    """An organiser's POST as the hall takes it: json_body, then the action's check (Refused, or the
    tournament's ValueError: refused)."""

    def run(body):
        try:
            body = json_body(body)
        except ValueError:
            return "not JSON"
        try:
            check(body)
        except ValueError:
            return "refused"
        return "ok"

    return run


def player(name):
    return b'{"name":"' + name + b'","club":"' + name + b'","target":9999}'


def tournament_name(body):
    tournament_values._text(body["name"], "name", tournament_values.MAX_TITLE, empty=True)


def tournament_options(body):
    tournament_values.match_section(body["game_options"])


def sign_in(body):
    from host_tools.hall.signin import SignIn

    if SignIn("0123-4567-89ab-cdef", clock=lambda: 0.0).sign_in(body.get("code")) is None:
        raise org.Refused("not the code")


ESCAPED_NAME = b"\\u00e9" * 24  # 24 characters in 144 bytes
ORGANISER_SHAPES = {
    "players: escaped names (valid)": (
        org.check_players,
        lambda n: fill(b'{"players":[', player(ESCAPED_NAME), b"]}", n),
        "ok",
    ),
    "players: escaped names, the last with a tab": (
        org.check_players,
        lambda n: fill(b'{"players":[', player(ESCAPED_NAME), b"," + player(b"x\\ty") + b"]}", n),
        "refused",
    ),
    "players: a name of blanks around a letter": (
        org.check_players,
        lambda n: b'{"name":"' + b" " * ((n - 13) // 2) + b"x" + b" " * ((n - 13) // 2) + b'"}',
        "ok",
    ),
    "players: a name of escaped blanks": (
        org.check_players,
        lambda n: fill(b'{"name":"', b"\\u0020", b'x"}', n, b""),
        "ok",
    ),
    "players: lists 32 deep": (org.check_players, lambda n: fill(b'{"players":[', deep(30), b"]}", n), "refused"),
    "players: targets of 4,300 digits": (
        org.check_players,
        lambda n: fill(b'{"players":[', b'{"name":"x","target":' + BIG + b"}", b"]}", n),
        "refused",
    ),
    "players: distinct keys": (org.check_players, lambda n: distinct_keys(b'{"name":"x",', b"}", n), "refused"),
    "configure: a long name": (org.check_configure, lambda n: text_of({}, "name", b"\\u00e9", n), "refused"),
    "configure: a long game": (
        org.check_configure,
        lambda n: fill(b'{"game_options":{"game":"', b"x", b'"}}', n, b""),
        "refused",
    ),
    "configure: a target of every digit": (
        org.check_configure,
        lambda n: fill(b'{"game_options":{"target":', b"9", b"}}", n, b""),
        "not JSON",
    ),
    "configure: game options 32 deep": (
        org.check_configure,
        lambda n: fill(b'{"game_options":{"game":[', deep(29), b"]}}", n),
        "refused",
    ),
    "table: a long table": (org.check_table, lambda n: fill(b'{"table":"', b"a", b'"}', n, b""), "refused"),
    "draw: a seed of a float's digits": (org.check_draw, lambda n: fill(b'{"seed":0.', b"9", b"}", n, b""), "refused"),
    "draw: a key repeated": (org.check_draw, lambda n: fill(b"{", b'"seed":1', b"}", n), "ok"),
    "decide: a long winner": (
        org.check_decide,
        lambda n: fill(b'{"match":1,"winner":"', b"A", b'"}', n, b""),
        "refused",
    ),
    "view: a long view": (org.check_view, lambda n: fill(b'{"view":"', b"\\u00e9", b'"}', n, b""), "refused"),
    "signin: a long code": (sign_in, lambda n: fill(b'{"code":"', b"0", b'"}', n, b""), "refused"),
    "tournament: a name of blanks": (tournament_name, lambda n: text_of({}, "name", b" ", n), "refused"),
    "tournament: long game options": (
        tournament_options,
        lambda n: fill(b'{"game_options":{"game":"', b"x", b'"}}', n, b""),
        "refused",
    ),
}


@pytest.mark.parametrize("shape", list(ORGANISER_SHAPES))
def test_an_organiser_body_is_checked_in_linear_time(shape, record_property):
    check, make, expected = ORGANISER_SHAPES[shape]
    assert_linear(posted(check), make, org.MAX_BODY, record_property, expected)


# ---- the simulator's POST bodies, and what it shows ----------------------------------------------

BUTTONS = {"A": {}, "B": {}, "NEW": {}}
CHIPS = {"1:0x70", "1:0x71"}


def action_checked(body):
    """POST /api/board/N/action up to the board: json_body, then check_action."""
    try:
        action = json_body(body)
    except ValueError:
        return "not JSON"
    return "ok" if actions.check_action(action, BUTTONS, CHIPS) is None else "refused"


@pytest.fixture(scope="module")
def board():
    return session.BoardSession(0, "wall")  # (not started: configure stops where the board is needed)


def form_checked(board):
    """POST /api/board/N/config up to the board: json_body, the server's shape check, then
    BoardSession.configure's checks (check_form, the firmware's config checks, the error redacted)."""

    def run(body):
        try:
            request = json_body(body)
        except ValueError:
            return "not JSON"
        if not isinstance(request, dict) or set(request) - {"values", "new_match"}:
            return "refused"
        error, _ = board.configure(request.get("values"))
        return "ok" if error == "this board has no serial console" else "refused"

    return run


HOSTILE_VALUE = "'key': '" + "\\" * (form.MAX_FORM_TEXT - 8)  # a quoted key's value never closed
ACTION_SHAPES = {
    "a long button": (lambda n: fill(b'{"do":"tap","button":"', b"\\u00e9", b'"}', n, b""), "refused"),
    "a long action": (lambda n: fill(b'{"do":"', b"x", b'"}', n, b""), "refused"),
    "a long chip": (lambda n: fill(b'{"do":"plug","plugged":true,"chip":"', b"\\\\", b'"}', n, b""), "refused"),
    "a button 32 deep": (lambda n: fill(b'{"do":"tap","button":[', deep(30), b"]}", n), "refused"),
    "seconds of every digit": (lambda n: fill(b'{"do":"advance","seconds":', b"9", b"}", n, b""), "not JSON"),
    "seconds of a float's digits": (lambda n: fill(b'{"do":"advance","seconds":1.', b"9", b"}", n, b""), "ok"),
    "a key repeated": (lambda n: fill(b'{"do":"tap",', b'"button":"A"', b"}", n), "ok"),
    "distinct keys": (lambda n: distinct_keys(b'{"do":"identify",', b"}", n), "refused"),
}
FORM_SHAPES = {
    "long values": lambda n: fill(b'{"values":{"players.A.name":"', b"\\u00e9", b'"}}', n, b""),
    "a hostile value repeated": lambda n: fill(
        b'{"values":{', b'"match.game":' + json.dumps(HOSTILE_VALUE).encode(), b"}}", n
    ),
    "distinct keys": lambda n: fill(b'{"values":{', b'"x0000":"x"', b"}}", n),
    "values 32 deep": lambda n: fill(b'{"values":{"match.game":[', deep(29), b"]}}", n),
}


@pytest.mark.parametrize("shape", list(ACTION_SHAPES))
def test_a_simulator_action_is_checked_in_linear_time(shape, record_property):
    make, expected = ACTION_SHAPES[shape]
    assert_linear(action_checked, make, sim_server.MAX_BODY, record_property, expected)


@pytest.mark.parametrize("shape", list(FORM_SHAPES))
def test_a_simulator_form_is_checked_in_linear_time(shape, board, record_property):
    assert_linear(form_checked(board), FORM_SHAPES[shape], sim_server.MAX_BODY, record_property, "refused")


def test_a_hostile_form_value_costs_what_a_plain_one_costs(board, record_property):
    """A form value of MAX_FORM_TEXT characters whose error shows a quoted "key" field never closed
    (its backslashes: the Redactor's worst) takes under BOUND times a plain wrong value of the same
    length (it took 0.8 to 2.3 s, the plain one 0.1 ms)."""
    plain = "x" * form.MAX_FORM_TEXT

    def configure(value):
        for key in ("match.game", "players.A.name", "match.target"):
            assert board.configure({key: value})[0] != "this board has no serial console"

    t_plain, t_hostile = best_times(configure, plain, HOSTILE_VALUE, 3)
    record_property(f"seconds_at_{len(HOSTILE_VALUE)}_characters", round(t_hostile, 4))
    assert t_hostile < BOUND * t_plain + SLACK_S, (t_plain, t_hostile)


SECRET = "hunter22'\"é"
REDACTOR_SHAPES = {
    "an unclosed value of backslashes": lambda n: "'key': '" + "\\" * (n - 8),
    "unclosed values, one a line": lambda n: "'key': '\\\\\\\n" * (n // 13),
    "unclosed fields of both quotes": lambda n: "\"key\":'\\ 'psk':\"\\ " * (n // 19),
    "escaped quotes, unclosed": lambda n: '"password": "' + '\\"' * ((n - 13) // 2),
    "blanks before the colon": lambda n: '"key"' + " " * (n - 5),
    "hex runs of 63": lambda n: ("a" * 63 + " ") * (n // 64),
    "a secret it knows, on every line": lambda n: ("wifi: " + SECRET + "\n") * (n // (len(SECRET) + 7)),
}


@pytest.mark.parametrize("shape", list(REDACTOR_SHAPES))
def test_the_simulators_redactor_is_linear(shape, record_property):
    """BoardSession.redact over a text as long as a POST body: each error, log line and console line
    the simulator shows goes through it."""
    redact = Redactor(paths=[])
    redact.learn(SECRET)  # (hidden as written, JSON-escaped and in a repr)
    assert_linear(redact, REDACTOR_SHAPES[shape], sim_server.MAX_BODY, record_property)


def test_the_redactors_field_pattern_hides_what_it_hid():
    """The field pattern against the one it replaced (which took a backslash two ways: exponential on
    an unclosed value), on every short text of quotes, backslashes, line ends and letters after a
    quoted key: the same text comes out."""
    import itertools
    import re

    old = re.compile(r"""((["'])(?:password|key|psk)\2\s*:\s*)(["'])(?:\\.|(?!\3).)*\3""")

    def hide(pattern, text):
        return pattern.sub(lambda m: m.group(1) + m.group(3) + "***" + m.group(3), text)

    for head in ('"key": "', "'psk':'", '"password" :\n "', '"key":\'', "x'key': \"a\\\"", " 'key': 'a' "):
        for n in range(7):
            for tail in itertools.product(("'", '"', "\\", "\n", "a"), repeat=n):
                text = head + "".join(tail)
                assert hide(SECRET_FIELD, text) == hide(old, text), text


def test_the_measure_fails_a_quadratic_check(monkeypatch):
    """The measure itself: the state's check made quadratic (every 8th run counted among the runs
    before it: about 45 ms at the state's limit, 3 ms at a quarter) fails it."""
    linear = schema._runs

    def quadratic(v, path):
        for i in range(0, len(v), 8):
            v[:i].count(v[i])
        linear(v, path)

    monkeypatch.setattr(schema, "_runs", quadratic)
    make, expected = STATE_SHAPES["runs of 99999 (valid)"]
    with pytest.raises(AssertionError):
        assert_linear(handled("carom/t1/state"), make, schema.MAX_STATE_BYTES, lambda name, value: None, expected)

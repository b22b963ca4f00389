"""What the hall accepts from the broker: the state document, the report, the table names.

Anyone who can publish to the broker can send the hall anything, so a payload is checked
before anything else sees it, in this order:

    bytes       at most MAX_STATE_BYTES (a state) or MAX_REPORT_BYTES (a report), before parsing
    text        strict UTF-8, JSON without NaN or Infinity, a JSON object
    schema      every key the firmware writes (firmware/matchdoc.py, firmware/report.py) has
                its type and range; texts are short and printable; lists are bounded; the
                nesting is the schema's (a list or object where a number belongs is refused),
                so a document that passes can always be turned back into JSON; the words of a
                game, a foul and a call are the firmware's own (firmware/matchwords.py, read here)

A few keys the schema does not know are allowed at the top level (the benchmark adds `seq`
and `t_pub`), at most MAX_EXTRA_KEYS of them and only as numbers, short texts, true, false
or null.  A refused payload raises Invalid(kind, detail): `kind` is one of KINDS (the counts
and the once-per-kind log line use it), `detail` says where.
"""

import math
import re

from .. import firmware_path
from ..json_body import json_body


def _matchwords():
    """The firmware's matchwords.py: the words of a game, a foul's kind and a position call, as the
    board writes them into its documents (the hall accepts exactly those)."""
    firmware_path()
    import matchwords

    return matchwords


_words = _matchwords()
GAMES, FOULS, CALLS = _words.GAMES, _words.FOULS, _words.CALLS
del _words

MAX_STATE_BYTES = 64 * 1024  # a state document: ~2 KB for a usual match, ~20 KB for 2,000 innings
MAX_REPORT_BYTES = 512 * 1024  # a report: ~150 bytes an inning on top of the state
MAX_STATUS_BYTES = 16
MAX_TEXT = 64  # names and clubs (config.json allows 24), a report's table and board
MAX_SIGNATURE = 1024
MAX_RUNS = 10000  # innings of one player (the runs list)
MAX_INNINGS = 2 * MAX_RUNS  # a report's innings list
MAX_POINTS = 99999  # scores, runs, targets after extensions
MAX_EXTRA_KEYS = 8
MAX_ELAPSED_S = 30 * 24 * 3600  # a match's elapsed time (elapsed_s): 30 days, far beyond any match
MAX_AREA_CAROMS = 10000
MAX_SETS = 9  # sets to win (firmware/formats.py MAX_SETS): at most 2 * 9 - 1 = 17 sets
MAX_SET_NUMBER = 2 * MAX_SETS - 1
MAX_SET_POINTS = 9999  # a set's score (a set's target is at most this)
MAX_ROUNDS = 32  # shoot-out rounds the document lists (the newest; formats.ROUNDS)
MAX_ROUNDS_PLAYED = 100000  # shoot-out rounds played, counted
MAX_WARMUP_S = 900  # a warm-up's length (config.py: warmup_s at most 900)
EPOCH_MAX = 4102444800  # 2100-01-01: a wall clock time beyond it is not one
TABLE_NAME = re.compile(r"[a-z0-9_-]{1,24}\Z")  # config.json's mqtt.table (and the MAC default, t + 6 hex)

PHASES = ("lag", "running", "break", "equalizing", "finished", "tiebreak", "set_over", "shootout", "warmup")
RESULTS = (None, "A", "B", "draw", "tiebreak")
ENDINGS = (None, "target", "innings_limit", "left", "tiebreak", "abandoned", "shootout")
RESPOTS = (None, "start", "three_cushion", "choice", "free_ball", "masse")
BALLS = ("A", "B", "red")
SPOTS = ("baulk", "centre", "top")
WHO = (None, "A", "B")

KINDS = ("topic", "size", "encoding", "json", "schema", "status", "full")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class Invalid(ValueError):
    def __init__(self, kind, detail):
        super().__init__("%s: %s" % (kind, detail))
        self.kind = kind
        self.detail = detail


def parse(payload, max_bytes):
    """A JSON object from `payload` (bytes) of at most `max_bytes`, or Invalid. Parsed as the
    HTTP server parses a body (host_tools/json_body.py): strict UTF-8, no NaN or Infinity, nesting
    counted before parsing (no state document or report nests deeper than its limit)."""
    if len(payload) > max_bytes:
        raise Invalid("size", "%d bytes (at most %d)" % (len(payload), max_bytes))
    try:
        doc = json_body(payload)
    except UnicodeDecodeError:
        raise Invalid("encoding", "not UTF-8") from None
    except ValueError as e:
        raise Invalid("json", str(e)[:80]) from None
    if not isinstance(doc, dict):
        raise Invalid("json", "not a JSON object")
    return doc


# ---- the checks: each raises Invalid("schema", path) --------------------------------------------


def _bad(path, what):
    raise Invalid("schema", "%s: %s" % (path, what))


def _int(v, path, lo, hi, null=False):
    if v is None and null:
        return
    if type(v) is not int or not lo <= v <= hi:
        _bad(path, "not a whole number %d..%d%s" % (lo, hi, " or null" if null else ""))


def _number(v, path, lo, hi, null=False):
    if v is None and null:
        return
    if type(v) not in (int, float) or not math.isfinite(v) or not lo <= v <= hi:
        _bad(path, "not a number %s..%s" % (lo, hi))


def _bool(v, path):
    if type(v) is not bool:
        _bad(path, "not true or false")


def _choice(v, path, choices):
    if v not in choices or type(v) not in (str, type(None)):
        _bad(path, "not one of %s" % ", ".join("null" if c is None else c for c in choices))


def _text(v, path, most, null=False):
    if v is None and null:
        return
    if type(v) is not str or len(v) > most or _CONTROL.search(v):
        _bad(path, "not a printable text of at most %d characters" % most)


def _object(v, path, known, required=()):
    if type(v) is not dict:
        _bad(path, "not an object")
    for k in v:
        if k not in known:
            _bad(path, "unknown key %r" % k[:32])
    for k in required:
        if k not in v:
            _bad(path, "%s missing" % k)


def _by_table(v, path, table, required=None):
    """An object whose keys are the table's (all of them required, unless `required` says
    which), each value checked by the table's function for its key."""
    _object(v, path, table, tuple(table) if required is None else required)
    for k, x in v.items():
        table[k](x, path + "." + k)


def _epoch(v, path):
    _number(v, path, 0, EPOCH_MAX, null=True)


_MATCH_TOTALS = {
    "score": lambda v, p: _int(v, p, 0, MAX_POINTS),
    "innings": lambda v, p: _int(v, p, 0, MAX_RUNS),
    "high_run": lambda v, p: _int(v, p, 0, MAX_POINTS),
    "average": lambda v, p: _number(v, p, 0, MAX_POINTS),
}


def _match_totals(v, path):
    """A player's totals over all sets (a set match), or null."""
    if v is None:
        return
    _by_table(v, path, _MATCH_TOTALS)


_PLAYER = {
    "name": lambda v, p: _text(v, p, MAX_TEXT),
    "club": lambda v, p: _text(v, p, MAX_TEXT),
    "target": lambda v, p: _int(v, p, 1, MAX_POINTS),
    "match": _match_totals,
    "score": lambda v, p: _int(v, p, 0, MAX_POINTS),
    "innings": lambda v, p: _int(v, p, 0, MAX_RUNS),
    "high_run": lambda v, p: _int(v, p, 0, MAX_POINTS),
    "average": lambda v, p: _number(v, p, 0, MAX_POINTS),
    "timeouts_left": lambda v, p: _int(v, p, 0, 99),
    "fouls": lambda v, p: _int(v, p, 0, MAX_POINTS),
    "runs": lambda v, p: _runs(v, p),
}


def _runs(v, path):
    if type(v) is not list or len(v) > MAX_RUNS:
        _bad(path, "not a list of at most %d runs" % MAX_RUNS)
    for i, run in enumerate(v):
        _int(run, "%s[%d]" % (path, i), 0, MAX_POINTS)


def _player(v, path):
    _by_table(v, path, _PLAYER, ("name", "score", "innings"))


def _players(v, path):
    _object(v, path, ("A", "B"), ("A", "B"))
    for who in ("A", "B"):
        _player(v[who], path + "." + who)


def _lag(v, path):
    if v is None:
        return
    _object(v, path, ("chooser", "collisions", "ties"))
    if "chooser" in v:
        _choice(v["chooser"], path + ".chooser", WHO)
    for k in ("collisions", "ties"):
        if k in v:
            _int(v[k], path + "." + k, 0, MAX_POINTS)


def _respot_balls(v, path):
    """The balls a jump sent off the table (three-cushion): null, or each of A, B, red at most once."""
    if v is None:
        return
    if type(v) is not list or len(v) > len(BALLS):
        _bad(path, "not null or a list of at most %d balls" % len(BALLS))
    for i, x in enumerate(v):
        _choice(x, "%s[%d]" % (path, i), BALLS)
    if len(set(v)) != len(v):
        _bad(path, "a ball named twice")


def _spots(v, path):
    """Each ball's spot for the player coming to the table: null, or {ball: spot}."""
    if v is None:
        return
    _object(v, path, BALLS)
    for k, x in v.items():
        _choice(x, path + "." + k, SPOTS)


_AREA = {
    "anchor": _bool,
    "caroms": lambda v, p: _int(v, p, 0, MAX_AREA_CAROMS),
    "limit": lambda v, p: _int(v, p, 1, 2),
    "out_next": _bool,
}


def _area(v, path):
    """The restricted area the object balls are in: null, or its count."""
    if v is None:
        return
    _by_table(v, path, _AREA)


def _review_used(v, path):
    _object(v, path, ("A", "B"), ("A", "B"))
    for k, x in v.items():
        _bool(x, path + "." + k)


def _shot_clock(v, path):
    if v is None:
        return
    _object(v, path, ("left_s", "limit_s"))
    for k, x in v.items():
        _int(x, path + "." + k, 0, 3600, null=True)


def _pairs(v, path, most, hi):
    """A list of at most `most` [a, b] pairs of whole numbers 0..hi."""
    if type(v) is not list or len(v) > most:
        _bad(path, "not a list of at most %d pairs" % most)
    for i, x in enumerate(v):
        _pair(x, "%s[%d]" % (path, i), hi)


def _pair(v, path, hi):
    if type(v) is not list or len(v) != 2:
        _bad(path, "not a pair [A, B]")
    for i, x in enumerate(v):
        _int(x, "%s[%d]" % (path, i), 0, hi)


def _won(v, path):
    _object(v, path, ("A", "B"), ("A", "B"))
    for k, x in v.items():
        _int(x, path + "." + k, 0, MAX_SETS)


_SETS = {
    "to_win": lambda v, p: _int(v, p, 1, MAX_SETS),
    "number": lambda v, p: _int(v, p, 1, MAX_SET_NUMBER),
    "won": _won,
    "scores": lambda v, p: _pairs(v, p, MAX_SET_NUMBER, MAX_SET_POINTS),
}


def _sets(v, path):
    """A set match's sets: null, or to_win, the set's number, sets won and the finished sets' scores."""
    if v is None:
        return
    _by_table(v, path, _SETS)
    won = v["won"]
    if max(won["A"], won["B"]) > v["to_win"] or won["A"] + won["B"] != len(v["scores"]):
        _bad(path, "sets won do not fit to_win and the sets' scores")


def _current_round(v, path):
    if v is not None:
        _pair(v, path, MAX_POINTS)


_SHOOTOUT = {
    "rounds": lambda v, p: _pairs(v, p, MAX_ROUNDS, MAX_POINTS),
    "played": lambda v, p: _int(v, p, 0, MAX_ROUNDS_PLAYED),
    "current": _current_round,
}


def _shootout(v, path):
    """The shoot-out: null, or its finished rounds (the newest), how many were played, the one on."""
    if v is None:
        return
    _by_table(v, path, _SHOOTOUT)
    if len(v["rounds"]) != min(v["played"], MAX_ROUNDS):
        _bad(path, "rounds do not fit played")


_WARMUP = {
    "player": lambda v, p: _choice(v, p, ("A", "B")),
    "left_s": lambda v, p: _int(v, p, 0, MAX_WARMUP_S, null=True),
}


def _warmup(v, path):
    """The warm-up on: null, or whose and the seconds left."""
    if v is None:
        return
    _by_table(v, path, _WARMUP)


_OPTIONS = {
    "equalizing": _bool,
    "draw": _bool,
    "break_s": lambda v, p: _int(v, p, 0, 3600),
    "shot_clock_s": lambda v, p: _int(v, p, 0, 3600),
    "timeouts": lambda v, p: _int(v, p, 0, 99, null=True),
    "timeout_s": lambda v, p: _int(v, p, 0, 300, null=True),
    "breaker_ball": lambda v, p: _choice(v, p, ("spot", "white")),
    "sets": lambda v, p: _int(v, p, 0, MAX_SETS),
    "deciding_target": lambda v, p: _int(v, p, 1, MAX_SET_POINTS, null=True),
    "shootout": _bool,
    "warmup_s": lambda v, p: _int(v, p, 0, MAX_WARMUP_S),
}


# Why a board refused the newest setup it refused (firmware/publisher_hall.py check() and received()).
SETUP_REFUSALS = (None, "size", "form", "key", "json", "table", "old", "schema")
_SETUP = {  # the hall's set-ups as the board took them: all optional
    "n": lambda v, p: _int(v, p, 0, 2**31 - 1),
    "waiting": lambda v, p: _int(v, p, 0, 2**31 - 1, null=True),
    "refused": lambda v, p: _int(v, p, 0, 10**9),
    "last_refused": lambda v, p: _choice(v, p, SETUP_REFUSALS),
}


def _setup(v, path):
    if v is not None:
        _by_table(v, path, _SETUP, ())


def _options(v, path):
    _object(v, path, _OPTIONS)
    for k, x in v.items():
        _OPTIONS[k](x, path + "." + k)


STATE = {
    "version": lambda v, p: _int(v, p, 1, 1),
    "game": lambda v, p: _choice(v, p, GAMES),
    "target": lambda v, p: _int(v, p, 1, MAX_POINTS, null=True),  # null: a handicap (players.X.target)
    "innings_limit": lambda v, p: _int(v, p, 1, 9999, null=True),
    "phase": lambda v, p: _choice(v, p, PHASES),
    "turn": lambda v, p: _choice(v, p, WHO),
    "breaker": lambda v, p: _choice(v, p, WHO),
    "spot_ball": lambda v, p: _choice(v, p, WHO),
    "current_run": lambda v, p: _int(v, p, 0, MAX_POINTS),
    "countdown": lambda v, p: _int(v, p, 0, MAX_POINTS, null=True),
    "equalizing_inning": _bool,
    "result": lambda v, p: _choice(v, p, RESULTS),
    "ended_by": lambda v, p: _choice(v, p, ENDINGS),
    "last_foul": lambda v, p: _choice(v, p, (None,) + FOULS),
    "last_call": lambda v, p: _choice(v, p, (None,) + CALLS),
    "respot": lambda v, p: _choice(v, p, RESPOTS),
    "respot_balls": _respot_balls,
    "spots": _spots,
    "area": _area,
    "lag": _lag,
    "review_used": _review_used,
    "elapsed_s": lambda v, p: _int(v, p, 0, MAX_ELAPSED_S, null=True),
    "break_taken": _bool,
    "break_left_s": lambda v, p: _int(v, p, 0, 3600, null=True),
    "shot_clock": _shot_clock,
    "sets": _sets,
    "shootout": _shootout,
    "warmup": _warmup,
    "setup": _setup,
    "options": _options,
    "events": lambda v, p: _int(v, p, 0, 10**8),
    "closed": _bool,
    "players": _players,
    "refused": lambda v, p: _text(v, p, 200, null=True),  # the scripted mode's
}
STATE_REQUIRED = ("version", "game", "phase", "players")


def _extra(v, path):
    """A key the schema does not know: a scalar only."""
    if v is None or type(v) is bool:
        return
    if type(v) in (int, float):
        return _number(v, path, -1e15, 1e15)
    _text(v, path, MAX_TEXT)


def _fields(doc, path, schema, skip=()):
    extra = 0
    for k, v in doc.items():
        check = schema.get(k)
        if check is not None:
            check(v, path + k)
        elif k not in skip:
            extra += 1
            if extra > MAX_EXTRA_KEYS or len(k) > 32:
                _bad(path + k[:32], "too many keys the state document does not have")
            _extra(v, path + k)


def check_state(doc):
    """Raises Invalid unless `doc` (parsed JSON) is a state document the hall can show."""
    _object(doc, "state", doc, STATE_REQUIRED)
    _fields(doc, "", STATE)


def _inning(v, path):
    _object(v, path, INNING, ("player", "inning", "run"))
    for k, x in v.items():
        INNING[k](x, path + "." + k)


def _foul_list(v, path):
    if type(v) is not list or len(v) > 64:
        _bad(path, "not a list of at most 64 fouls")
    for i, x in enumerate(v):
        _choice(x, "%s[%d]" % (path, i), FOULS)


INNING = {
    "player": lambda v, p: _choice(v, p, ("A", "B")),
    "inning": lambda v, p: _int(v, p, 1, MAX_RUNS),
    "run": lambda v, p: _int(v, p, 0, MAX_POINTS),
    "fouls": _foul_list,
    "break": _bool,
    "equalizing": _bool,
    "set": lambda v, p: _int(v, p, 1, MAX_SET_NUMBER),  # a set match's
    "shootout": _bool,  # a shoot-out round's inning ("inning": the round's number)
    "start_ms": lambda v, p: _int(v, p, 0, 2**48, null=True),
    "end_ms": lambda v, p: _int(v, p, 0, 2**48, null=True),
    "start": _epoch,
    "end": _epoch,
}


def _innings(v, path):
    if type(v) is not list or len(v) > MAX_INNINGS:
        _bad(path, "not a list of at most %d innings" % MAX_INNINGS)
    for i, x in enumerate(v):
        _inning(x, "%s[%d]" % (path, i))


def _report_fouls(v, path):
    _object(v, path, ("A", "B"))
    for k, x in v.items():
        _int(x, path + "." + k, 0, MAX_POINTS)


def _signatures(v, path):
    _object(v, path, ("referee", "A", "B"))
    for k, x in v.items():
        _text(x, path + "." + k, MAX_SIGNATURE)


REPORT = {
    "table": lambda v, p: _text(v, p, MAX_TEXT),
    "board": lambda v, p: _text(v, p, MAX_TEXT),
    "started_at": _epoch,
    "ended_at": _epoch,
    "duration_s": lambda v, p: _int(v, p, 0, 10**8, null=True),
    "innings": _innings,
    "fouls": _report_fouls,
    "signatures": _signatures,
}


def check_report(doc):
    """Raises Invalid unless `doc` is a match report: a state document plus its "report" object."""
    _object(doc, "report", doc, STATE_REQUIRED + ("report",))
    _fields(doc, "", STATE, skip=("report",))
    _object(doc["report"], "report", REPORT)
    for k, x in doc["report"].items():
        REPORT[k](x, "report." + k)


def state(payload):
    """The state document in `payload` (bytes), checked; or Invalid."""
    doc = parse(payload, MAX_STATE_BYTES)
    check_state(doc)
    return doc


def report(payload):
    """The report in `payload` (bytes), checked; or Invalid."""
    doc = parse(payload, MAX_REPORT_BYTES)
    check_report(doc)
    return doc


def status(payload):
    """ "online" or "offline" from a status payload; or Invalid."""
    if len(payload) > MAX_STATUS_BYTES:
        raise Invalid("size", "%d bytes" % len(payload))
    text = payload.decode("ascii", "replace").strip().lower()
    if text not in ("online", "offline"):
        raise Invalid("status", "not online or offline")
    return text

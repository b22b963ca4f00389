"""The match report (III.3.1): the state document plus every inning, from the log.

    r = report.build(match, now, started_at=1764489600, table="Table 3")

Innings are found by replaying the match's log into a scratch match and
watching whose turn it is.  Each inning: player, number, run, fouls, and its
start and end as match time (ms) and, when the board's clock was set, as
epoch seconds.  Allocates: made when a match ends or a report is asked for.
"""

import matchdoc
import rules


def _epoch(started_at, t):
    return None if started_at is None else started_at + t // 1000


def innings(m, started_at=None):
    """The innings of match m, in order, as dicts."""
    shadow = m.follower()
    out = []
    current = _follow(shadow, None, out, 0, started_at)  # a breaker set directly starts at once
    for i in range(m.n):
        code, arg, t = m.entry(i)
        if code == rules.E_FOUL and current is not None:
            current["fouls"].append(rules.FOULS[arg & 15])
        if code == rules.E_BREAK and current is not None:
            current["break"] = True
        shadow.follow(m, i)
        current = _follow(shadow, current, out, t, started_at)
    if current is not None and shadow.turn == rules.NOBODY:
        _close(current, shadow, None, started_at)
    return out


def _follow(shadow, current, out, t, started_at):
    """Open or close innings where the shadow match changed turn or inning."""
    if current is not None:
        current["run"] = shadow.run_of(0 if current["player"] == "A" else 1, current["inning"] - 1)
    p = shadow.shooter
    number = shadow.innings[p] if p != rules.NOBODY else 0
    if current is not None and (current["player"] != ("A", "B")[p] or current["inning"] != number):
        _close(current, shadow, t, started_at)
        current = None
    if current is None and p != rules.NOBODY and shadow.phase != rules.LAG and number:
        current = {"player": ("A", "B")[p], "inning": number, "run": 0, "fouls": [], "break": False,
                   "equalizing": shadow.phase == rules.EQUALIZING, "start_ms": t, "end_ms": None, "start": _epoch(started_at, t), "end": None}
        out.append(current)
    if current is not None:
        current["run"] = shadow.run_of(p, number - 1)
        if shadow.turn == rules.NOBODY and current["end_ms"] is None:
            _close(current, shadow, t, started_at)
    return current


def _close(current, shadow, t, started_at):
    if current["end_ms"] is None and t is not None:
        current["end_ms"] = t
        current["end"] = _epoch(started_at, t)


def build(m, now, started_at=None, ended_at=None, table="", board=""):
    """The report of match m: the state document, the innings, and when and where."""
    doc = matchdoc.doc(m, now)
    inns = innings(m, started_at)
    end_ms = m.entry(m.n - 1)[2] if m.n else 0
    doc["report"] = {
        "table": table,
        "board": board,
        "started_at": started_at,
        "ended_at": ended_at if ended_at is not None else _epoch(started_at, end_ms),
        "duration_s": end_ms // 1000,
        "innings": inns,
        "fouls": {"A": m.fouls[rules.A], "B": m.fouls[rules.B]},
        "signatures": {"referee": "", "A": "", "B": ""},
    }
    return doc

"""One finished-match report (firmware/report.py: the match state document plus every inning) as
the sheets read it: names, targets, the format (hall/model.py match_format), innings, totals, result."""

import re
import time

from .. import gd
from ..hall.model import match_format

GAMES = {
    "straight_rail": "Straight rail",
    "balkline_47_2": "Balkline 47/2",
    "balkline_47_1": "Balkline 47/1",
    "balkline_71_2": "Balkline 71/2",
    "one_cushion": "One-cushion",
    "three_cushion": "Three-cushion",
}
ENDED_BY = {
    "target": "target reached",
    "innings_limit": "innings limit",
    "tiebreak": "tie-break",
    "shootout": "shoot-out",
}
# How the loser's match ended when he did not play it out ("%s": his name).
LOSER_ENDED_BY = {
    "left": "%s left his place: loses the match, I.4.3",
    "abandoned": "%s abandoned: loses and is excluded from the competition, I.8.2",
}


def generation(name):
    m = re.fullmatch(r"(\d+)\.json", name)
    return int(m.group(1)) if m else None


def when(epoch, fmt="%Y-%m-%d %H:%M"):
    """The board's clock as it reads (it keeps local time, so no zone is applied)."""
    if epoch is None:
        return ""
    return time.strftime(fmt, time.gmtime(epoch))


def match_time(ms):
    if ms is None or isinstance(ms, bool) or not isinstance(ms, (int, float)):
        return ""
    s = int(ms) // 1000
    return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)


def ball_of(doc, p):
    """Which ball player p plays: the one with the spot, or the plain white."""
    spot = doc.get("spot_ball")
    if spot not in ("A", "B"):
        return ""
    return "spot" if spot == p else "white"


class Match:
    """One report as the sheets need it."""

    def __init__(self, gen, doc):
        self.gen = gen
        self.doc = doc
        self.report = doc.get("report") or {}
        self.players = doc.get("players") or {}
        self.innings = self.report.get("innings") or []

    def player(self, p):
        return self.players.get(p) or {}

    def name(self, p):
        return self.player(p).get("name") or "Player %s" % p

    def runs(self, p):
        return list(self.player(p).get("runs") or [])

    def total(self, p):
        """Player p's totals: the match's over all sets in a set match (players.X.match)."""
        pl = self.player(p)
        return pl.get("match") or pl

    def target_text(self):
        """The target: "30", or each player's in a handicap ("30:22")."""
        target = self.doc.get("target")
        if target is None and self.player("A").get("target") is not None:
            return "%s:%s" % (self.player("A").get("target"), self.player("B").get("target", ""))
        return "" if target is None else str(target)

    def format(self):
        """ "30:22 handicap", "sets 3:1 (15:9, 12:15)", "30:30, shoot-out 2:1", or ""."""
        try:
            return match_format(self.doc)
        except (AttributeError, KeyError, TypeError, IndexError):  # a report the board did not write
            return ""

    def sets(self):
        """The set numbers a set match's sheet shows ([None]: not a set match)."""
        sets = self.doc.get("sets")
        if not isinstance(sets, dict) or not isinstance(sets.get("number"), int):
            return [None]
        return list(range(1, sets["number"] + 1))

    def set_score(self, k):
        """Set k's score as "a:b" (a finished set's), or ""."""
        scores = (self.doc.get("sets") or {}).get("scores") or []
        return "%s:%s" % tuple(scores[k - 1]) if 0 < k <= len(scores) else ""

    def inning(self, p, number, set_no=None):
        for i in self.innings:
            if i.get("player") == p and i.get("inning") == number and i.get("set") == set_no and not i.get("shootout"):
                return i
        return {}

    def shootout_rows(self):
        """The shoot-out's rounds: [(round, A's run, B's run)], from the innings (every round),
        else from the state document (its newest rounds)."""
        rounds = {}
        for i in self.innings:
            if i.get("shootout") and i.get("player") in ("A", "B"):
                rounds.setdefault(i.get("inning"), {})[i["player"]] = i.get("run")
        if rounds:
            return [(n, rounds[n].get("A"), rounds[n].get("B")) for n in sorted(rounds, key=lambda n: n or 0)]
        so = self.doc.get("shootout") or {}
        listed = so.get("rounds") or []
        first = (so.get("played") or len(listed)) - len(listed)
        return [(first + k + 1, a, b) for k, (a, b) in enumerate(listed)]

    def rows(self, set_no=None):
        """One row per inning number (of set `set_no` in a set match): for A and B (run, total,
        marks) or None."""
        if set_no is None:
            runs = {p: self.runs(p) for p in "AB"}
        else:
            runs = {
                p: [
                    i.get("run") or 0
                    for i in self.innings
                    if i.get("player") == p and i.get("set") == set_no and not i.get("shootout")
                ]
                for p in "AB"
            }
        totals = {"A": 0, "B": 0}
        out = []
        for n in range(1, max(len(runs["A"]), len(runs["B"])) + 1):
            row = {"inning": n}
            for p in "AB":
                if n <= len(runs[p]):
                    totals[p] += runs[p][n - 1]
                    info = self.inning(p, n, set_no)
                    marks = (
                        "F" * len(info.get("fouls") or [])
                        + ("H" if info.get("break") else "")
                        + ("E" if info.get("equalizing") else "")
                    )
                    row[p] = (runs[p][n - 1], totals[p], marks)
                else:
                    row[p] = None
            out.append(row)
        return out

    def opening_breaker(self):
        """ "A" or "B": who made the opening break (played the match's first inning), else the
        state document's breaker (a set match's is the current set's)."""
        for i in self.innings:
            if i.get("player") in ("A", "B") and not i.get("shootout") and i.get("set") in (None, 1):
                return i["player"]
        breaker = self.doc.get("breaker")
        return breaker if breaker in ("A", "B") else None

    def half_time_break(self):
        """(player, inning) of the half-time break (I.4: asked for by the player about to shoot, in
        his inning), or None; a set match has none (its breaks are between sets)."""
        if self.sets() != [None] or not self.doc.get("break_taken"):
            return None
        for i in self.innings:
            if i.get("break") and i.get("player") in ("A", "B") and not i.get("shootout"):
                return i["player"], i.get("inning")
        return None

    @property
    def result(self):
        return self.doc.get("result")

    def result_text(self):
        r = self.result
        ended_by = self.doc.get("ended_by")
        if ended_by in LOSER_ENDED_BY and r in ("A", "B"):
            how = LOSER_ENDED_BY[ended_by] % self.name("B" if r == "A" else "A")
        else:
            how = ENDED_BY.get(ended_by, ended_by or "")
            rounds = self.shootout_rows()
            if ended_by == "shootout" and rounds:
                how += " %s:%s" % rounds[-1][1:]
        how = " (%s)" % how if how else ""
        if r in ("A", "B"):
            return "%s wins%s" % (self.name(r), how)
        if r == "draw":
            return "Draw%s" % how
        if r == "tiebreak":
            return "Draw: decided by a tie-break"
        return "Not finished"

    def game(self):
        g = self.doc.get("game") or ""
        return GAMES.get(g, g)

    def started(self):
        return self.report.get("started_at")

    def ended(self):
        return self.report.get("ended_at")

    def review_used(self, p):
        """Whether player p used his review (III.4.9a): True, False, or None in a report from
        before the board kept it."""
        used = self.doc.get("review_used")
        return bool(used.get(p)) if isinstance(used, dict) else None

    def elapsed_s(self):
        """The match time (III.4.2): from the first stroke to the end, the lag, and a power cut's
        time, not counted; None in a report from before the board kept it."""
        s = self.doc.get("elapsed_s")
        return s if isinstance(s, int) and not isinstance(s, bool) else None

    def summary_row(self):
        d, r = self.doc, self.report
        row = {
            "match": self.gen,
            "table": r.get("table", ""),
            "board": r.get("board", ""),
            "game": d.get("game", ""),
            "target": d.get("target"),
            "innings_limit": d.get("innings_limit") or "",
            "format": self.format(),
            "breaker": d.get("breaker") or "",
            "result": d.get("result") or "",
            "ended_by": d.get("ended_by") or "",
            "winner": self.name(d["result"]) if d.get("result") in ("A", "B") else "",
            "break_taken": bool(d.get("break_taken")),
            "break_by": (self.half_time_break() or ("",))[0],
            "started_at": when(self.started(), "%Y-%m-%d %H:%M:%S"),
            "ended_at": when(self.ended(), "%Y-%m-%d %H:%M:%S"),
            "duration_s": r.get("duration_s", ""),
            "elapsed_s": "" if self.elapsed_s() is None else self.elapsed_s(),
        }
        for p in "AB":
            pl, tot = self.player(p), self.total(p)
            row.update(
                {
                    p + "_name": pl.get("name", ""),
                    p + "_club": pl.get("club", ""),
                    p + "_ball": ball_of(d, p),
                    p + "_target": pl.get("target", ""),
                    p + "_score": tot.get("score", ""),
                    p + "_innings": tot.get("innings", ""),
                    p + "_average": gd.text(tot.get("score"), tot.get("innings")),
                    p + "_high_run": tot.get("high_run", ""),
                    p + "_fouls": pl.get("fouls", ""),
                    p + "_review_used": "" if self.review_used(p) is None else self.review_used(p),
                }
            )
        return row

    def inning_rows(self):
        """innings.csv's rows: a set's running totals start from 0; a shoot-out's runs are not points."""
        out = []
        totals = {"A": 0, "B": 0}
        at = None
        for i in self.innings:
            p = i.get("player")
            if p not in totals:
                continue
            if i.get("set") != at:
                at = i.get("set")
                totals = {"A": 0, "B": 0}
            shootout = bool(i.get("shootout"))
            if not shootout:
                totals[p] += i.get("run") or 0
            out.append(
                {
                    "match": self.gen,
                    "set": "" if i.get("set") is None else i["set"],
                    "shootout": shootout,
                    "player": p,
                    "name": self.player(p).get("name", ""),
                    "inning": i.get("inning"),
                    "run": i.get("run"),
                    "total": "" if shootout else totals[p],
                    "fouls": " ".join(i.get("fouls") or []),
                    "break": bool(i.get("break")),
                    "equalizing": bool(i.get("equalizing")),
                    "start": when(i.get("start"), "%Y-%m-%d %H:%M:%S"),
                    "end": when(i.get("end"), "%Y-%m-%d %H:%M:%S"),
                    "start_ms": i.get("start_ms"),
                    "end_ms": i.get("end_ms"),
                }
            )
        return out

"""`carom report`: the finished matches of a board as match reports (III.3.1).

    carom report -d DEV [--format json|csv|html|pdf ...] [--out DIR] [--match N]

Pulls /data/history/<generation>.json (firmware/store.py: one report per
finished match, firmware/report.py: the match state document plus every
inning) through mpremote and writes, in DIR (default: the current folder):

    json   match-<generation>.json   the board's report as it is, indented
    csv    matches.csv               one row per match: names, clubs, game, target,
                                     format, breaker, balls, each player's target,
                                     score, innings, GD, HR, fouls, result and how it
                                     ended, reviews used, start, end, duration and
                                     match time
           innings.csv               one row per inning: match, set, shoot-out,
                                     player, inning, run, running total, fouls,
                                     break, equalizing, times
    html   match-<generation>.html   a federation-style score sheet: the match data
                                     in the header, a row per inning with both
                                     players' runs and running totals, the totals,
                                     the result, signature lines for the referee and
                                     both players
    pdf    match-<generation>.pdf    the same sheet printed by a headless Chromium
                                     (chromium --headless --print-to-pdf); a clear
                                     error when none is installed

The formats (handicap, sets, shoot-out, warm-up) read as the hall reads them (hall/model.py match_format):
"30:22 handicap" (each player's target), "sets 3:1 (15:9, 12:15, 15:4, 15:11)",
"30:30, shoot-out 2:1" (the runs of the round that decided). A set match's sheet
has the innings set by set (each set's running totals from 0), its totals are
the match's over all sets (players.X.match), and a shoot-out's rounds follow in a
table of their own; in the CSV a set match's score, innings, GD and HR are the
match's, and each inning has its set (and "shootout" for a shoot-out's innings,
whose "inning" is the round and whose runs are not points: no running total).

Times are the board's clock (set it with `mpremote rtc --set`, which sets local
time); a board whose clock was never set has no wall-clock times, only the
match time of each inning.
"""

import csv
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from ..link.boardio import BoardIO, Progress, add_device_argument, add_reset_argument
from ..errors import CommandError
from ..hall.model import match_format

HISTORY = "/data/history"
FORMATS = ("json", "csv", "html", "pdf")
GAMES = {
    "straight_rail": "Straight rail",
    "balkline_47_2": "Balkline 47/2",
    "balkline_47_1": "Balkline 47/1",
    "balkline_71_2": "Balkline 71/2",
    "one_cushion": "One-cushion",
    "three_cushion": "Three-cushion",
}
ENDED_BY = {"target": "target reached", "innings_limit": "innings limit", "tiebreak": "tie-break",
            "shootout": "shoot-out"}
# How the loser's match ended when he did not play it out ("%s": his name).
LOSER_ENDED_BY = {"left": "%s left his place: loses the match, I.4.3",
                  "abandoned": "%s abandoned: loses and is excluded from the competition, I.8.2"}
CHROMIUMS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "microsoft-edge")

MATCH_COLUMNS = (
    "match", "table", "board", "game", "target", "innings_limit", "format", "breaker",
    "A_name", "A_club", "A_ball", "A_target", "A_score", "A_innings", "A_average", "A_high_run", "A_fouls",
    "B_name", "B_club", "B_ball", "B_target", "B_score", "B_innings", "B_average", "B_high_run", "B_fouls",
    "result", "winner", "ended_by", "break_taken", "break_by", "A_review_used", "B_review_used",
    "started_at", "ended_at", "duration_s", "elapsed_s",
)
INNING_COLUMNS = ("match", "set", "shootout", "player", "name", "inning", "run", "total", "fouls", "break",
                  "equalizing", "start", "end", "start_ms", "end_ms")


# ---- reading a report -------------------------------------------------------------------------


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
        """"30:22 handicap", "sets 3:1 (15:9, 12:15)", "30:30, shoot-out 2:1", or ""."""
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
            if (i.get("player") == p and i.get("inning") == number and i.get("set") == set_no
                    and not i.get("shootout")):
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
            runs = {p: [i.get("run") or 0 for i in self.innings
                        if i.get("player") == p and i.get("set") == set_no and not i.get("shootout")] for p in "AB"}
        totals = {"A": 0, "B": 0}
        out = []
        for n in range(1, max(len(runs["A"]), len(runs["B"])) + 1):
            row = {"inning": n}
            for p in "AB":
                if n <= len(runs[p]):
                    totals[p] += runs[p][n - 1]
                    info = self.inning(p, n, set_no)
                    marks = "F" * len(info.get("fouls") or []) + ("H" if info.get("break") else "") + \
                        ("E" if info.get("equalizing") else "")
                    row[p] = (runs[p][n - 1], totals[p], marks)
                else:
                    row[p] = None
            out.append(row)
        return out

    def opening_breaker(self):
        """"A" or "B": who made the opening break (played the match's first inning), else the
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
            "match": self.gen, "table": r.get("table", ""), "board": r.get("board", ""),
            "game": d.get("game", ""), "target": d.get("target"), "innings_limit": d.get("innings_limit") or "",
            "format": self.format(),
            "breaker": d.get("breaker") or "",
            "result": d.get("result") or "", "ended_by": d.get("ended_by") or "",
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
            row.update({
                p + "_name": pl.get("name", ""), p + "_club": pl.get("club", ""), p + "_ball": ball_of(d, p),
                p + "_target": pl.get("target", ""),
                p + "_score": tot.get("score", ""), p + "_innings": tot.get("innings", ""),
                p + "_average": "%.3f" % tot["average"] if isinstance(tot.get("average"), (int, float)) else "",
                p + "_high_run": tot.get("high_run", ""), p + "_fouls": pl.get("fouls", ""),
                p + "_review_used": "" if self.review_used(p) is None else self.review_used(p),
            })
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
            out.append({
                "match": self.gen, "set": "" if i.get("set") is None else i["set"], "shootout": shootout,
                "player": p, "name": self.player(p).get("name", ""), "inning": i.get("inning"),
                "run": i.get("run"), "total": "" if shootout else totals[p], "fouls": " ".join(i.get("fouls") or []),
                "break": bool(i.get("break")), "equalizing": bool(i.get("equalizing")),
                "start": when(i.get("start"), "%Y-%m-%d %H:%M:%S"), "end": when(i.get("end"), "%Y-%m-%d %H:%M:%S"),
                "start_ms": i.get("start_ms"), "end_ms": i.get("end_ms"),
            })
        return out


# ---- writing the sheets ---------------------------------------------------------------------------


def write_json(m, path):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(m.doc, f, indent=2, ensure_ascii=False, sort_keys=True)
        f.write("\n")


def write_csv(matches, out_dir):
    paths = []
    for name, columns, rows in (("matches.csv", MATCH_COLUMNS, [m.summary_row() for m in matches]),
                                ("innings.csv", INNING_COLUMNS, [r for m in matches for r in m.inning_rows()])):
        path = os.path.join(out_dir, name)
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=columns)
            w.writeheader()
            w.writerows(rows)
        paths.append(path)
    return paths


CSS = """
@page { size: A4; margin: 14mm 14mm 16mm 14mm; }
* { box-sizing: border-box; }
body { font-family: "DejaVu Sans", Arial, Helvetica, sans-serif; font-size: 10pt; color: #000; margin: 0; }
/* On screen the sheet is an A4 page's width with margins around it; printed, @page gives them. */
@media screen { html { background: #d9d9d9; }
  body { background: #fff; max-width: 210mm; margin: 8mm auto; padding: 14mm; box-shadow: 0 0 3mm #999; } }
h1 { font-size: 16pt; margin: 0 0 2mm 0; letter-spacing: 0.04em; text-transform: uppercase; }
.sub { font-size: 11pt; margin-bottom: 4mm; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid #000; padding: 1.2mm 2mm; }
th { background: #e6e6e6; font-weight: bold; }
.meta { margin-bottom: 4mm; }
.meta th { width: 18%; text-align: left; }
.meta td { width: 32%; }
.players { margin-bottom: 4mm; }
.players th:first-child { width: 18%; text-align: left; }
.players td { width: 41%; font-size: 11pt; }
.innings { margin-bottom: 4mm; }
.innings thead { display: table-header-group; }
.innings td { text-align: right; font-variant-numeric: tabular-nums; }
.innings td.n { text-align: center; background: #f3f3f3; }
.innings td.mark { text-align: left; font-size: 8pt; }
.innings tbody tr:nth-child(5n) td { border-bottom-width: 2px; }
.innings tfoot th { text-align: left; }
.innings tfoot td { font-weight: bold; }
.innings tr.set th { text-align: left; background: #d0d0d0; }
.shootout { width: 60%; margin-bottom: 4mm; }
.shootout td { text-align: center; font-variant-numeric: tabular-nums; }
.result { font-size: 12pt; font-weight: bold; margin: 3mm 0; }
.notes { font-size: 8pt; color: #333; }
.signatures { display: flex; gap: 8mm; margin-top: 14mm; page-break-inside: avoid; }
.signatures div { flex: 1; }
.signatures .line { border-bottom: 1px solid #000; height: 14mm; font-family: cursive; font-size: 12pt;
                    display: flex; align-items: flex-end; padding-bottom: 1mm; }
.signatures .who { font-size: 9pt; margin-top: 1mm; }
"""


def review(used):
    """A player's review (III.4.9a) on the sheet: used, not used, or nothing when not known."""
    return "" if used is None else "used" if used else "not used"


def inning_rows_html(m, set_no=None):
    """The sheet's innings rows (of set `set_no` in a set match)."""
    e = html.escape
    body = []
    for row in m.rows(set_no):
        cells = ['<td class="n">%d</td>' % row["inning"]]
        for p in "AB":
            if row[p] is None:
                cells.append("<td></td><td></td><td class=\"mark\"></td>")
            else:
                run, total, marks = row[p]
                cells.append("<td>%d</td><td>%d</td><td class=\"mark\">%s</td>" % (run, total, e(marks)))
        body.append("<tr>%s</tr>" % "".join(cells))
    return body


def half_time_row(m):
    """The players table's half-time break row: "taken in inning N" under the player who asked
    for it; "held" under both when the report does not say who; none in a set match."""
    if m.sets() != [None]:
        return ()
    who = m.half_time_break()
    if who is not None:
        cell = "taken in inning %s" % who[1]
        return (("Half-time break", cell if who[0] == "A" else "", cell if who[0] == "B" else ""),)
    held = "held" if m.doc.get("break_taken") else ""
    return (("Half-time break", held, held),)


def render_html(m):
    e = html.escape
    d, r = m.doc, m.report
    a, b = m.player("A"), m.player("B")
    title = "%s vs %s" % (m.name("A"), m.name("B"))
    breaker = m.opening_breaker()
    target = m.target_text()
    meta = [
        ("Game", m.game()), ("Target", "%s points" % target),
        ("Table", r.get("table") or ""), ("Innings limit", d.get("innings_limit") or "none"),
        ("Date", when(m.started(), "%Y-%m-%d") or "board clock not set"), ("Match no.", str(m.gen)),
        ("Start", when(m.started(), "%H:%M") or ""), ("End", when(m.ended(), "%H:%M") or ""),
        ("Opening break", m.name(breaker) if breaker in ("A", "B") else ""),
        ("Duration", match_time((r.get("duration_s") or 0) * 1000)) if m.elapsed_s() is None else
        ("Match time", match_time(m.elapsed_s() * 1000)),
    ]
    sets = d.get("sets") if isinstance(d.get("sets"), dict) else None
    if m.format() or sets:
        deciding = (d.get("options") or {}).get("deciding_target")
        meta += [("Format", m.format()), ("Sets", "first to %s%s" % (
            sets.get("to_win"), "; the deciding set to %s" % deciding if deciding else "") if sets else "none")]
    meta_rows = "".join("<tr><th>%s</th><td>%s</td><th>%s</th><td>%s</td></tr>" % (
        e(meta[i][0]), e(str(meta[i][1])), e(meta[i + 1][0]), e(str(meta[i + 1][1]))) for i in range(0, len(meta), 2))
    row3 = "<tr><th>%s</th><td>%s</td><td>%s</td></tr>"
    players = "".join(row3 % (e(label), e(str(va)), e(str(vb))) for label, va, vb in (
        ("Name", a.get("name", ""), b.get("name", "")),
        ("Club", a.get("club", ""), b.get("club", "")),
        ("Ball", ball_of(d, "A"), ball_of(d, "B")),
        ("Opening break", "yes" if breaker == "A" else "", "yes" if breaker == "B" else ""),
    ) + half_time_row(m) + (
        ("Review", review(m.review_used("A")), review(m.review_used("B"))),
    ) + ((("Target", a.get("target", ""), b.get("target", "")),) if d.get("target") is None else ()))
    body = []
    for k in m.sets():
        if k is not None:
            score = m.set_score(k)
            body.append('<tr class="set"><th colspan="7">Set %d%s</th></tr>' % (k, ": " + score if score else ""))
        body += inning_rows_html(m, k)
    rounds = m.shootout_rows()
    shootout = ""
    if rounds:
        shootout = ('<table class="shootout"><thead><tr><th>Shoot-out round</th><th>A: %s</th><th>B: %s</th></tr>'
                    '</thead><tbody>%s</tbody></table>' % (e(m.name("A")), e(m.name("B")), "".join(
                        "<tr><td>%s</td><td>%s</td><td>%s</td></tr>" % tuple("" if x is None else x for x in row)
                        for row in rounds)))

    def avg(pl):
        return "%.3f" % pl["average"] if isinstance(pl.get("average"), (int, float)) else ""

    ta, tb = m.total("A"), m.total("B")  # a set match's: over all sets
    totals = [("Score", ta.get("score", ""), tb.get("score", "")),
              ("Innings", ta.get("innings", ""), tb.get("innings", "")),
              ("GD", avg(ta), avg(tb)),
              ("HR", ta.get("high_run", ""), tb.get("high_run", "")),
              ("Fouls", a.get("fouls", ""), b.get("fouls", ""))]
    if sets:
        won = sets.get("won") or {}
        totals.insert(0, ("Sets", won.get("A", ""), won.get("B", "")))
    foot = "".join("<tr><th>%s</th><td colspan=\"3\">%s</td><td colspan=\"3\">%s</td></tr>" % (
        e(label), e(str(va)), e(str(vb))) for label, va, vb in totals)
    sigs = r.get("signatures") or {}
    sign = "".join('<div><div class="line">%s</div><div class="who">%s</div></div>' % (e(sigs.get(k) or ""), e(label))
                   for k, label in (("referee", "Referee"), ("A", "Player A: %s" % m.name("A")),
                                    ("B", "Player B: %s" % m.name("B"))))
    notes = ("GD: general average (points / innings); HR: high run. Opening break: who played the first "
             "inning. Notes: F a foul in that inning, H the half-time break was asked for in that inning, "
             "E the equalizing inning.")
    if d.get("break_taken") and sets:
        notes += " The break between the sets was held."
    if sets:
        notes += (" A set match: the innings set by set, each set's totals from 0; the totals below are the "
                  "match's over all sets.")
    if rounds:
        notes += " Shoot-out: rounds of one inning each, the breaker first; the longer run wins; its runs are not points."
    if m.elapsed_s() is not None:
        notes += (" Match time: from the first stroke to the end (III.4.2); the lag and a power cut's time are "
                  "not counted (from the new match to its end: %s)." % match_time((r.get("duration_s") or 0) * 1000))
    if m.started() is None:
        notes += " The board's clock was not set: no wall-clock times."
    return """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Match report %(gen)s: %(title)s</title>
<style>%(css)s</style>
</head>
<body>
<header>
<h1>Match report</h1>
<div class="sub">%(game)s to %(target)s points%(fmt)s &middot; %(title)s</div>
<table class="meta">%(meta)s</table>
</header>
<table class="players"><thead><tr><th></th><th>Player A</th><th>Player B</th></tr></thead>
<tbody>%(players)s</tbody></table>
<table class="innings">
<colgroup><col style="width:12%%"><col style="width:16%%"><col style="width:16%%"><col style="width:10%%">
<col style="width:16%%"><col style="width:16%%"><col style="width:10%%"></colgroup>
<thead>
<tr><th rowspan="2">Inning</th><th colspan="3">A: %(nameA)s</th><th colspan="3">B: %(nameB)s</th></tr>
<tr><th>Run</th><th>Total</th><th>Note</th><th>Run</th><th>Total</th><th>Note</th></tr>
</thead>
<tbody>
%(body)s
</tbody>
<tfoot>%(foot)s</tfoot>
</table>
%(shootout)s
<p class="result">Result: %(result)s</p>
<p class="notes">%(notes)s</p>
<footer class="signatures">%(sign)s</footer>
</body>
</html>
""" % {"gen": m.gen, "title": e(title), "css": CSS, "game": e(m.game()), "target": e(target), "fmt": e(", " + m.format() if m.format() else ""),
       "meta": meta_rows, "players": players, "nameA": e(m.name("A")), "nameB": e(m.name("B")),
       "body": "\n".join(body), "foot": foot, "shootout": shootout, "result": e(m.result_text()), "notes": e(notes), "sign": sign}


def find_chromium():
    """A browser that prints HTML to PDF headless, or None."""
    env = os.environ.get("CAROM_CHROMIUM")
    if env:
        return env if os.path.exists(env) or shutil.which(env) else None
    for name in CHROMIUMS:
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


def html_to_pdf(chromium, html_path, pdf_path, timeout=90):
    profile = tempfile.mkdtemp(prefix="carom-pdf-")
    cmd = [chromium, "--headless", "--disable-gpu", "--no-first-run", "--disable-extensions",
           "--user-data-dir=" + profile, "--no-pdf-header-footer", "--print-to-pdf-no-header",
           "--print-to-pdf=" + os.path.abspath(pdf_path), "file://" + os.path.abspath(html_path)]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
    try:
        if os.path.exists(pdf_path):
            os.remove(pdf_path)
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CommandError("%s did not print %s to PDF within %d s" % (chromium, html_path, timeout))
    except OSError as e:
        raise CommandError("cannot run %s: %s" % (chromium, e))
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    try:
        with open(pdf_path, "rb") as f:
            ok = f.read(5) == b"%PDF-"
    except OSError:
        ok = False
    if not ok:
        tail = " ".join((out.stderr or "").strip().splitlines()[-2:])
        raise CommandError("%s did not make %s (exit %d): %s" % (chromium, pdf_path, out.returncode, tail))


# ---- the command -------------------------------------------------------------------------------------


def pull(board, wanted=None):
    """[(generation, doc)] of the board's finished matches, oldest first.

    A CommandError, before anything is read, when a `wanted` number is not on the board."""
    entries = board.listdir(HISTORY) or []
    names = [name for name, is_dir, _ in sorted(entries) if not is_dir and generation(name) is not None]
    if wanted:
        on_board = {generation(name) for name in names}
        missing = sorted(set(wanted) - on_board)
        if missing:
            raise CommandError("no match %s on %s (%s); nothing was written" % (
                ", ".join(str(n) for n in missing), board.device,
                "its finished matches: %s" % numbers(sorted(on_board)) if on_board else "it has no finished matches"))
        names = [name for name in names if generation(name) in wanted]
    sizes = {name: size for name, _, size in entries}
    total = sum(sizes[n] for n in names)
    bar = Progress(sys.stderr, "Reading %d report%s" % (len(names), "s"[:len(names) != 1]), total)
    done = 0
    out = []
    for name in names:
        gen = generation(name)
        bar.update(done)
        raw = board.read_file(HISTORY + "/" + name)
        done += sizes[name]
        bar.update(done)
        if raw is None:
            continue
        try:
            doc = json.loads(raw.decode("utf-8"))
        except ValueError as e:
            sys.stderr.write("warning: %s/%s is not valid JSON (%s); skipped\n" % (HISTORY, name, e))
            continue
        if not isinstance(doc, dict):
            continue
        out.append((gen, doc))
    out.sort()
    return out


def numbers(gens):
    """1-3, 7, 9-10: a sorted list of match numbers, short."""
    parts = []
    for n in gens:
        if parts and parts[-1][1] == n - 1:
            parts[-1][1] = n
        else:
            parts.append([n, n])
    return ", ".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in parts)


def check_out_dir(out_dir):
    """--out must be a folder, or a place where one can be made: checked before the board is read."""
    if not out_dir:
        raise CommandError("--out is empty; give a folder for the reports")
    path = os.path.abspath(out_dir)
    if os.path.exists(path):
        if not os.path.isdir(path):
            raise CommandError("--out %s is a file, not a folder; nothing was read from the board" % out_dir)
        if not os.access(path, os.W_OK | os.X_OK):
            raise CommandError("--out %s: cannot write into this folder (permission denied); nothing was read "
                               "from the board" % out_dir)
        return
    parent = path
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise CommandError("--out %s cannot be made: %s is a file; nothing was read from the board" % (
            out_dir, parent))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CommandError("--out %s cannot be made in %s (permission denied); nothing was read from the board" % (
            out_dir, parent))


def write_reports(matches, formats, out_dir):
    """Write the sheets; returns the paths written."""
    os.makedirs(out_dir, exist_ok=True)
    written = []
    chromium = find_chromium() if "pdf" in formats else None
    for m in matches:
        base = os.path.join(out_dir, "match-%06d" % m.gen)
        if "json" in formats:
            write_json(m, base + ".json")
            written.append(base + ".json")
        if "html" in formats or "pdf" in formats:
            page = render_html(m)
            html_path = base + ".html"
            tmp = None
            if "html" not in formats:
                fd, tmp = tempfile.mkstemp(suffix=".html", prefix="carom-report-")
                os.close(fd)
                html_path = tmp
            try:
                with open(html_path, "w", encoding="utf-8") as f:
                    f.write(page)
                if "html" in formats:
                    written.append(html_path)
                if "pdf" in formats:
                    html_to_pdf(chromium, html_path, base + ".pdf")
                    written.append(base + ".pdf")
            finally:
                if tmp:
                    os.remove(tmp)
    if "csv" in formats:
        written += write_csv(matches, out_dir)
    return written


def parse_formats(values):
    formats = []
    for v in values or ["json"]:
        for f in v.split(","):
            f = f.strip().lower()
            if not f:
                continue
            if f == "all":
                formats += list(FORMATS)
            elif f not in FORMATS:
                raise CommandError("unknown report format %r (json, csv, html, pdf, or all)" % f)
            else:
                formats.append(f)
    return [f for f in FORMATS if f in formats]


def arguments(p):
    """Pull the finished matches from the board's /data/history/ through mpremote and
    write match reports: JSON (the board's report), CSV (matches.csv and innings.csv),
    HTML and PDF score sheets (header with the match data, a row per inning with
    both players' runs and running totals, totals, result and signature lines).
    """
    add_device_argument(p)
    p.add_argument("--format", "-f", action="append", metavar="FMT",
                   help="json, csv, html, pdf or all; repeat or separate with commas (default json)")
    p.add_argument("--out", "-o", default=".", metavar="DIR", help="folder for the reports (default: here)")
    p.add_argument("--match", "-m", action="append", type=int, metavar="N",
                   help="only the match with this number (its history file's); may be repeated")
    add_reset_argument(p)
    p.set_defaults(run=run_report)


def run_report(args):
    formats = parse_formats(args.format)
    if "pdf" in formats and find_chromium() is None:
        raise CommandError("PDF needs Chromium to print the HTML sheet and none was found (Debian: apt-get install "
                           "chromium; or set CAROM_CHROMIUM to a Chrome/Chromium); --format html makes sheets any "
                           "browser prints to PDF")
    check_out_dir(args.out)
    with BoardIO(args.device, reset_on_close=args.reset, timeout=args.timeout) as board:
        pulled = pull(board, set(args.match or ()))
    if not pulled:
        if args.match:  # each was on the board, but none was a readable report
            raise CommandError("match %s on %s could not be read (see the warnings)" % (
                numbers(sorted(set(args.match))), args.device))
        print("no finished matches on %s" % args.device)
        return 0
    matches = [Match(gen, doc) for gen, doc in pulled]
    try:
        written = write_reports(matches, formats, args.out)
    except OSError as e:
        raise CommandError("cannot write the reports into %s: %s" % (
            args.out, "%s: %s" % (e.filename, e.strerror) if e.filename and e.strerror else e))
    for m in matches:
        a, b = m.total("A"), m.total("B")
        fmt = m.format()
        print("match %d: %s %s - %s %s, %s%s" % (m.gen, m.name("A"), a.get("score", "?"), b.get("score", "?"),
                                                m.name("B"), m.result_text(), "; " + fmt if fmt else ""))
    for path in written:
        print("wrote %s" % path)
    return 0

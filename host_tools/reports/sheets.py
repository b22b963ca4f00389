"""The sheets of a board's finished matches: JSON (the report as it is), CSV (a row per match, a
row per inning) and the HTML score sheet (the PDF is that sheet printed: pdf.py)."""

import csv
import functools
import html
import json
import os
import tempfile

from .. import gd
from .match import ball_of, match_time, when
from .pdf import find_chromium, html_to_pdf

CSS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sheet.css")  # the score sheet's style
MATCH_COLUMNS = (
    "match",
    "table",
    "board",
    "game",
    "target",
    "innings_limit",
    "format",
    "breaker",
    "A_name",
    "A_club",
    "A_ball",
    "A_target",
    "A_score",
    "A_innings",
    "A_average",
    "A_high_run",
    "A_fouls",
    "B_name",
    "B_club",
    "B_ball",
    "B_target",
    "B_score",
    "B_innings",
    "B_average",
    "B_high_run",
    "B_fouls",
    "result",
    "winner",
    "ended_by",
    "break_taken",
    "break_by",
    "A_review_used",
    "B_review_used",
    "started_at",
    "ended_at",
    "duration_s",
    "elapsed_s",
)
INNING_COLUMNS = (
    "match",
    "set",
    "shootout",
    "player",
    "name",
    "inning",
    "run",
    "total",
    "fouls",
    "break",
    "equalizing",
    "start",
    "end",
    "start_ms",
    "end_ms",
)


def write_json(m, path):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(m.doc, f, indent=2, ensure_ascii=False, sort_keys=True)
        f.write("\n")


def write_csv(matches, out_dir):
    paths = []
    for name, columns, rows in (
        ("matches.csv", MATCH_COLUMNS, [m.summary_row() for m in matches]),
        ("innings.csv", INNING_COLUMNS, [r for m in matches for r in m.inning_rows()]),
    ):
        path = os.path.join(out_dir, name)
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=columns)
            w.writeheader()
            w.writerows(rows)
        paths.append(path)
    return paths


@functools.cache
def _css():
    """sheet.css, read once."""
    with open(CSS, encoding="utf-8") as f:
        return f.read()


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
                cells.append('<td></td><td></td><td class="mark"></td>')
            else:
                run, total, marks = row[p]
                cells.append('<td>%d</td><td>%d</td><td class="mark">%s</td>' % (run, total, e(marks)))
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
        ("Game", m.game()),
        ("Target", "%s points" % target),
        ("Table", r.get("table") or ""),
        ("Innings limit", d.get("innings_limit") or "none"),
        ("Date", when(m.started(), "%Y-%m-%d") or "board clock not set"),
        ("Match no.", str(m.gen)),
        ("Start", when(m.started(), "%H:%M") or ""),
        ("End", when(m.ended(), "%H:%M") or ""),
        ("Opening break", m.name(breaker) if breaker in ("A", "B") else ""),
        ("Duration", match_time((r.get("duration_s") or 0) * 1000))
        if m.elapsed_s() is None
        else ("Match time", match_time(m.elapsed_s() * 1000)),
    ]
    sets = d.get("sets") if isinstance(d.get("sets"), dict) else None
    if m.format() or sets:
        deciding = (d.get("options") or {}).get("deciding_target")
        meta += [
            ("Format", m.format()),
            (
                "Sets",
                "first to %s%s" % (sets.get("to_win"), "; the deciding set to %s" % deciding if deciding else "")
                if sets
                else "none",
            ),
        ]
    meta_rows = "".join(
        "<tr><th>%s</th><td>%s</td><th>%s</th><td>%s</td></tr>"
        % (e(meta[i][0]), e(str(meta[i][1])), e(meta[i + 1][0]), e(str(meta[i + 1][1])))
        for i in range(0, len(meta), 2)
    )
    row3 = "<tr><th>%s</th><td>%s</td><td>%s</td></tr>"
    players = "".join(
        row3 % (e(label), e(str(va)), e(str(vb)))
        for label, va, vb in (
            ("Name", a.get("name", ""), b.get("name", "")),
            ("Club", a.get("club", ""), b.get("club", "")),
            ("Ball", ball_of(d, "A"), ball_of(d, "B")),
            ("Opening break", "yes" if breaker == "A" else "", "yes" if breaker == "B" else ""),
        )
        + half_time_row(m)
        + (("Review", review(m.review_used("A")), review(m.review_used("B"))),)
        + ((("Target", a.get("target", ""), b.get("target", "")),) if d.get("target") is None else ())
    )
    body = []
    for k in m.sets():
        if k is not None:
            score = m.set_score(k)
            body.append('<tr class="set"><th colspan="7">Set %d%s</th></tr>' % (k, ": " + score if score else ""))
        body += inning_rows_html(m, k)
    rounds = m.shootout_rows()
    shootout = ""
    if rounds:
        shootout = (
            '<table class="shootout"><thead><tr><th>Shoot-out round</th><th>A: %s</th><th>B: %s</th></tr>'
            "</thead><tbody>%s</tbody></table>"
            % (
                e(m.name("A")),
                e(m.name("B")),
                "".join(
                    "<tr><td>%s</td><td>%s</td><td>%s</td></tr>" % tuple("" if x is None else x for x in row)
                    for row in rounds
                ),
            )
        )

    def avg(pl):
        return gd.text(pl.get("score"), pl.get("innings"))  # truncated, as the board shows it

    ta, tb = m.total("A"), m.total("B")  # a set match's: over all sets
    totals = [
        ("Score", ta.get("score", ""), tb.get("score", "")),
        ("Innings", ta.get("innings", ""), tb.get("innings", "")),
        ("GD", avg(ta), avg(tb)),
        ("HR", ta.get("high_run", ""), tb.get("high_run", "")),
        ("Fouls", a.get("fouls", ""), b.get("fouls", "")),
    ]
    if sets:
        won = sets.get("won") or {}
        totals.insert(0, ("Sets", won.get("A", ""), won.get("B", "")))
    foot = "".join(
        '<tr><th>%s</th><td colspan="3">%s</td><td colspan="3">%s</td></tr>' % (e(label), e(str(va)), e(str(vb)))
        for label, va, vb in totals
    )
    sigs = r.get("signatures") or {}
    sign = "".join(
        '<div><div class="line">%s</div><div class="who">%s</div></div>' % (e(sigs.get(k) or ""), e(label))
        for k, label in (
            ("referee", "Referee"),
            ("A", "Player A: %s" % m.name("A")),
            ("B", "Player B: %s" % m.name("B")),
        )
    )
    notes = (
        "GD: general average (points / innings); HR: high run. Opening break: who played the first "
        "inning. Notes: F a foul in that inning, H the half-time break was asked for in that inning, "
        "E the equalizing inning."
    )
    if d.get("break_taken") and sets:
        notes += " The break between the sets was held."
    if sets:
        notes += (
            " A set match: the innings set by set, each set's totals from 0; the totals below are the "
            "match's over all sets."
        )
    if rounds:
        notes += (
            " Shoot-out: rounds of one inning each, the breaker first; the longer run wins; its runs are not points."
        )
    if m.elapsed_s() is not None:
        notes += (
            " Match time: from the first stroke to the end (III.4.2); the lag and a power cut's time are "
            "not counted (from the new match to its end: %s)." % match_time((r.get("duration_s") or 0) * 1000)
        )
    if m.started() is None:
        notes += " The board's clock was not set: no wall-clock times."
    return """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Match report %(gen)s: %(title)s</title>
<style>
%(css)s</style>
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
""" % {
        "gen": m.gen,
        "title": e(title),
        "css": _css(),
        "game": e(m.game()),
        "target": e(target),
        "fmt": e(", " + m.format() if m.format() else ""),
        "meta": meta_rows,
        "players": players,
        "nameA": e(m.name("A")),
        "nameB": e(m.name("B")),
        "body": "\n".join(body),
        "foot": foot,
        "shootout": shootout,
        "result": e(m.result_text()),
        "notes": e(notes),
        "sign": sign,
    }


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

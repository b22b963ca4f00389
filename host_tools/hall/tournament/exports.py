"""The tournament's exports (a part of Tournament): CSV, JSON and a printable page."""

import csv
import functools
import html
import io
import json
import os

from ... import gd
from ..model import PLAYER_COLUMNS, _cell
from .bracket import round_name
from .values import FORMAT_NAMES, _show, match_section

CSS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "print.css")  # the printable page's style


class Exports:
    """export_csv(), export_json(), export_html(): each read in one snapshot."""

    STANDING_COLUMNS = (
        "group",
        "rank",
        "name",
        "club",
        "played",
        "won",
        "drawn",
        "lost",
        "points",
        "score",
        "innings",
        "average",
        "high_run",
        "tie_break",
        "status",
        "note",
    )
    MATCH_COLUMNS = (
        (
            "id",
            "stage",
            "group",
            "round",
            "status",
            "table",
        )
        + PLAYER_COLUMNS
        + (
            "result",
            "winner",
            "ended_by",
            "entry",
            "note",
        )
    )

    def export_csv(self, kind="all"):
        """CSV: kind "standings", "matches" (the bracket's included), or "all": both, the standings
        first, an empty line between.  Cells a spreadsheet would run as a formula are defused."""
        if kind not in ("all", "standings", "matches"):
            raise ValueError("kind: %s is not all, standings or matches" % _show(kind))
        with self._tx(False):  # one snapshot
            return self._csv(kind)

    def _csv(self, kind):
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\r\n")
        if kind in ("all", "standings"):
            w.writerow(self.STANDING_COLUMNS)
            for g in self.standings():
                for r in g["rows"]:
                    w.writerow([_cell(_standing_cell(g, r, c)) for c in self.STANDING_COLUMNS])
        if kind == "all":
            w.writerow([])
        if kind in ("all", "matches"):
            w.writerow(self.MATCH_COLUMNS)
            for m in self.matches():
                w.writerow(
                    [
                        _cell(gd.text(m["score_" + c[-1]], m["innings_" + c[-1]]) if c.startswith("average_") else m[c])
                        for c in self.MATCH_COLUMNS
                    ]
                )
        return out.getvalue()

    def export_json(self):
        """Everything but the reports' innings: settings, players, tables, standings, bracket, matches."""
        with self._tx(False):  # one snapshot
            doc = {
                "tournament": 1,
                "settings": self.settings(),
                "players": self.players(),
                "tables": self.tables(),
                "standings": self.standings(),
                "places": self.places(),
                "bracket": self.bracket(),
                "matches": self.matches(),
                "champion": self.champion(),
            }
        return json.dumps(doc, ensure_ascii=False, indent=1)

    def export_html(self):
        """A printable page (the browser's print makes the PDF): standings, bracket, matches.  Every
        text is escaped."""
        with self._tx(False):  # one snapshot
            return self._html()

    def _html(self):
        s = self.settings()
        e = _esc
        parts = [
            '<!doctype html>\n<html><head><meta charset="utf-8"><title>%s</title>\n<style>%s</style>'
            "</head><body>" % (e(s["name"] or "Tournament"), _css()),
            "<h1>%s</h1>" % e(s["name"] or "Tournament"),
            '<p class="sub">%s &middot; %s</p>' % (e(_game_line(s)), e(FORMAT_NAMES[s["format"]])),
        ]
        champ = self.champion()
        if champ:
            parts.append('<p class="champ">Winner: %s</p>' % e(champ))
        for g in self.standings():
            parts.append(
                "<section><h2>%s</h2><table><tr>%s</tr>"
                % (
                    e("Group " + g["group"] if g["group"] else "Players"),
                    "".join(
                        "<th>%s</th>" % c
                        for c in (
                            "#",
                            "Name",
                            "Club",
                            "P",
                            "W",
                            "D",
                            "L",
                            "Pts",
                            "Score",
                            "Inn",
                            "GD",
                            "HR",
                            "Tie broken by",
                            "",
                        )
                    ),
                )
            )
            for r in g["rows"]:
                parts.append(
                    "<tr>%s</tr>"
                    % "".join(
                        "<td>%s</td>" % e(_standing_cell(g, r, c))
                        for c in self.STANDING_COLUMNS[1:-2]  # (the group heads its section)
                    )
                    + "<td>%s</td>" % e(_out_text(r))
                )
            parts.append("</table></section>")
        parts += self._html_places()
        bracket = self.bracket()
        if bracket:
            parts.append(
                '<section class="bracket"><h2>Knock-out</h2><div class="heads">%s</div>'
                '<div class="rounds">' % "".join("<h3>%s</h3>" % e(r["name"]) for r in bracket)
            )
            for rnd in bracket:
                parts.append('<div class="round">')
                for m in rnd["matches"]:
                    parts.append(
                        '<div class="m %s">%s%s%s</div>'
                        % (
                            e(m["status"]),
                            _html_side(m, "A"),
                            _html_side(m, "B"),
                            '<div class="so">shoot-out</div>' if m["ended_by"] == "shootout" else "",
                        )
                    )
                parts.append("</div>")
            parts.append("</div></section>")
        rounds = max((r["round"] for r in bracket), default=0)
        parts.append(
            "<section><h2>Matches</h2><table><tr>%s</tr>"
            % "".join(
                "<th>%s</th>" % c
                for c in ("No.", "Stage", "Table", "A", "Score", "Inn", "B", "Score", "Inn", "Result", "Status")
            )
        )
        for m in self.matches():
            stage = (
                "Group %s, round %d" % (m["group"], m["round"])
                if m["stage"] == "group"
                else "Third place"
                if m["third_place"]
                else round_name(m["round"], rounds)
            )
            result = m["winner"] or m["result"]
            if result and m["ended_by"] in ("shootout", "left", "abandoned", "innings_limit", "walkover"):
                result += " (%s)" % m["ended_by"].replace("_", " ").replace("shootout", "shoot-out")
            if m["entry"] == "hand":
                result = (result or "") + " (entered by hand)"
            if m["note"] and m["entry"] != "hand":
                result = (result or "") + " (%s)" % m["note"]
            parts.append(
                "<tr>%s</tr>"
                % "".join(
                    "<td>%s</td>" % e(v)
                    for v in (
                        m["id"],
                        stage,
                        m["table"],
                        m["name_A"] or m["label_A"],
                        m["score_A"],
                        m["innings_A"],
                        m["name_B"] or m["label_B"],
                        m["score_B"],
                        m["innings_B"],
                        result,
                        m["status"],
                    )
                )
            )
        parts.append("</table></section></body></html>\n")
        return "".join(parts)

    def _html_places(self):
        """The groups' places compared across the groups (the best runners-up), as the tie-break
        orders them there."""
        parts = []
        for p in self.places():
            if p["place"] < 2:
                continue
            parts.append(
                "<section><h2>Place %d across the groups</h2><table><tr>%s</tr>"
                % (
                    p["place"],
                    "".join("<th>%s</th>" % c for c in ("#", "Group", "Name", "Pts", "GD", "HR", "Tie broken by")),
                )
            )
            for k, r in enumerate(p["rows"]):
                parts.append(
                    "<tr>%s</tr>"
                    % "".join(
                        "<td>%s</td>" % _esc(v)
                        for v in (
                            k + 1,
                            r["group"],
                            r["name"],
                            r["points"],
                            gd.text(r["score"], r["innings"]),
                            r["high_run"],
                            r["tie_break"],
                        )
                    )
                )
            parts.append("</table></section>")
        return parts


def _standing_cell(g, r, c):
    """A standings cell as the exports show it: GD truncated to three decimals."""
    if c == "group":
        return g["group"]
    if c == "average":
        return gd.text(r["score"], r["innings"])
    return r[c]


def _out_text(r):
    return "" if r["status"] == "in" else "%s: %s" % (r["status"], r["note"] or "")


@functools.cache
def _css():
    """print.css, read once."""
    with open(CSS, encoding="utf-8") as f:
        return f.read()


def _html_side(m, side):
    name = m["name_" + side] or m["label_" + side] or ""
    score = m["score_" + side]
    win = m["winner"] is not None and m["winner"] == m["name_" + side]
    return "<div%s>%s%s</div>" % (
        ' class="w"' if win else "",
        _esc(name),
        "" if score is None else " <b>%s</b>" % _esc(score),
    )


def _esc(v):
    return "" if v is None else html.escape(str(v), quote=True)


def _game_line(s):
    try:
        o = match_section(s["game_options"])
    except ValueError:
        return ""
    line = "%s to %d" % (o["game"].replace("_", " "), o["target"])
    if o["innings_limit"]:
        line += " in %d innings" % o["innings_limit"]
    return line

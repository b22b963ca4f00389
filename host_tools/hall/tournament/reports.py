"""The boards' finished-match reports (a part of Tournament): matched to their matches, recorded
once, corrected after an undo; the rest kept as unmatched."""

import json
import time

from .. import schema
from ..model import fingerprint
from .store import ACTIVE
from .values import _letter, _names, _show, _table

MAX_UNMATCHED = 1000
MAX_UNMATCHED_BYTES = 32 * 1024 * 1024  # their reports, at most (a report may have 512 KB: schema.py)


class Reports:
    """record_report(), decide() and unmatched()."""

    def record_report(self, table_id, report, now=None, match_id=None):
        """A board's finished-match report for the match on `table_id`: its match id, or None (kept
        as unmatched).  Exactly once: the same report again changes nothing (and gives the same
        answer).  Raises ValueError for what is no report (the hall's schema.check_report).

        match_id: the organiser's choice for a report nothing matched (names typed on the board
        by hand): it finishes that match (not done yet), its board's A as the match's A unless
        the names say the other way round."""
        table_id = _table(table_id)
        try:
            schema.check_report(report)
        except schema.Invalid as e:
            raise ValueError("report: %s" % e.detail) from None
        fp = fingerprint(report)
        now = time.time() if now is None else now
        names = _names(report)
        with self._tx() as db:
            seen = db.execute("SELECT match_id FROM reports WHERE table_id=? AND fp=?", (table_id, fp)).fetchone()
            if seen and (seen[0] is not None or match_id is None):
                return seen[0]
            if match_id is not None:
                m = db.execute("SELECT * FROM matches WHERE id=?", (match_id,)).fetchone()
                if m is None or m["status"] not in ("pending",) + ACTIVE or m["a"] is None or m["b"] is None:
                    raise ValueError("match %s is not one that waits for its result" % _show(match_id))
                if report.get("phase") != "finished" or report.get("result") not in ("A", "B", "draw"):
                    raise ValueError("report: not a finished match")
                reason = None
            else:
                match_id, reason = self._match_report(db, table_id, report, names)
            if match_id is not None:
                self._record(db, match_id, report, names, fp, now)
                self._exclude_abandoner(db, match_id, report)
                self._advance(db)
            db.execute(
                "INSERT OR REPLACE INTO reports VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    table_id,
                    fp,
                    match_id,
                    now,
                    reason,
                    json.dumps(names),
                    None if match_id is not None else json.dumps(report, separators=(",", ":")),
                ),
            )
            if match_id is None:  # the newest MAX_UNMATCHED, within MAX_UNMATCHED_BYTES
                db.execute(
                    "DELETE FROM reports WHERE rowid IN (SELECT rowid FROM (SELECT rowid, ROW_NUMBER() OVER w "
                    "AS k, SUM(LENGTH(report)) OVER w AS total FROM reports WHERE match_id IS NULL WINDOW w AS "
                    "(ORDER BY received_at DESC, rowid DESC)) WHERE k > ? OR total > ?)",
                    (MAX_UNMATCHED, MAX_UNMATCHED_BYTES),
                )
            return match_id

    def _match_report(self, db, table_id, report, names):
        """(match id, None) for the match this report finishes or corrects, else (None, why)."""
        if report.get("phase") != "finished" or report.get("result") not in ("A", "B", "draw"):
            return None, "not a finished match (phase %s, result %s)" % (report.get("phase"), report.get("result"))
        m = db.execute(
            "SELECT * FROM matches WHERE table_id=? AND status IN (?, ?, ?)", (table_id,) + ACTIVE
        ).fetchone()
        if m is not None and sorted(self._names_of(db, m)) == sorted(names):
            why = impossible(report, json.loads(m["setup"]) if m["setup"] else None)
            return (None, "cannot be: %s" % why) if why else (m["id"], None)
        started = (report.get("report") or {}).get("started_at")
        if started is not None:  # finished again after an undo: a correction of a done match
            for d in db.execute(
                "SELECT * FROM matches WHERE table_id=? AND status IN ('done', 'undecided') "
                "AND started_at=? ORDER BY id DESC",
                (table_id, started),
            ).fetchall():
                if sorted(self._names_of(db, d)) != sorted(names):
                    continue
                if d["stage"] == "knockout" and not self._correctable(db, d, report, names):
                    return None, "corrects match %d, whose winner plays on already" % d["id"]
                if d["stage"] == "group" and self._qualifiers_play(db, d["grp"]):
                    return None, (
                        "corrects match %d, but group %s's qualifiers play in the knock-out already"
                        % (d["id"], _letter(d["grp"]))
                    )
                why = impossible(report, json.loads(d["setup"]) if d["setup"] else None)
                return (None, "cannot be: %s" % why) if why else (d["id"], None)
        if m is None:
            return None, "no match is assigned to %s" % table_id
        return None, "%s's match is %s v %s, not %s v %s" % ((table_id,) + tuple(self._names_of(db, m)) + tuple(names))

    def _qualifiers_play(self, db, grp):
        """Whether a knock-out match with one of group `grp`'s places is on a table or played: a
        correction of the group's result is refused then (before, the knock-out takes the new
        places: _advance fills the pending matches again)."""
        labels = ["%s%d" % (_letter(grp), k + 1) for k in range(self._settings(db)["advance"])]
        marks = ",".join("?" * len(labels))
        return (
            db.execute(
                "SELECT 1 FROM matches WHERE stage='knockout' AND status NOT IN ('pending', 'bye') "
                "AND (label_a IN (%s) OR label_b IN (%s))" % (marks, marks),
                labels * 2,
            ).fetchone()
            is not None
        )

    def _correctable(self, db, d, report, names):
        winner = self._winner_id(db, d, report, names)
        if winner == d["winner"]:
            return True
        nxt = db.execute("SELECT status FROM matches WHERE label_a=? OR label_b=?", ("W%d" % d["id"],) * 2).fetchone()
        return nxt is None or nxt["status"] == "pending"

    def _swapped(self, db, m, names):
        """The board's A is the match's B: its names say so (the other way round exactly)."""
        a, b = self._names_of(db, m)
        return a != b and names == [b, a]

    def _winner_id(self, db, m, report, names):
        swap = self._swapped(db, m, names)
        r = report["result"]
        if r == "draw":
            return None
        ours = {"A": "B", "B": "A"}[r] if swap else r
        return m["a"] if ours == "A" else m["b"]

    def _record(self, db, match_id, report, names, fp, now):
        m = db.execute("SELECT * FROM matches WHERE id=?", (match_id,)).fetchone()
        sides = ("B", "A") if self._swapped(db, m, names) else ("A", "B")
        nums = []
        for side in sides:
            p = report["players"][side]
            tot = p.get("match") or p
            nums += [tot["score"], tot["innings"], tot["high_run"]]
        winner = self._winner_id(db, m, report, names)
        result = "draw" if winner is None else ("A" if winner == m["a"] else "B")
        status = "undecided" if m["stage"] == "knockout" and winner is None else "done"
        db.execute(
            "UPDATE matches SET status=?, result=?, winner=?, score_a=?, innings_a=?, hr_a=?, score_b=?, "
            "innings_b=?, hr_b=?, ended_by=?, started_at=?, report_fp=?, report=?, done_at=? WHERE id=?",
            (
                status,
                result,
                winner,
                nums[0],
                nums[1],
                nums[2],
                nums[3],
                nums[4],
                nums[5],
                report.get("ended_by"),
                (report.get("report") or {}).get("started_at"),
                fp,
                json.dumps(report, separators=(",", ":")),
                now,
                match_id,
            ),
        )

    def _exclude_abandoner(self, db, match_id, report):
        """A player who abandoned the match is excluded from the competition (rules I.8.2): his
        remaining matches are walkovers (corrections.py), by the report alone."""
        if report.get("ended_by") != "abandoned":
            return
        m = db.execute("SELECT * FROM matches WHERE id=?", (match_id,)).fetchone()
        if m["winner"] is None:
            return
        loser = m["b"] if m["winner"] == m["a"] else m["a"]
        p = db.execute("SELECT status FROM players WHERE id=?", (loser,)).fetchone()
        if p["status"] == "in":
            self._withdraw(db, loser, "excluded", "abandoned match %d (rules I.8.2)" % match_id)

    def decide(self, match_id, winner):
        """The organiser names the winner of an undecided knock-out match (a draw the board let
        stand): `winner` is the player's name or "A"/"B"."""
        with self._tx() as db:
            m = db.execute("SELECT * FROM matches WHERE id=?", (match_id,)).fetchone()
            if m is None or m["status"] != "undecided":
                raise ValueError("match %s is not an undecided knock-out match" % _show(match_id))
            names = self._names_of(db, m)
            if winner in ("A", names[0]):
                w, side = m["a"], "A"
            elif winner in ("B", names[1]):
                w, side = m["b"], "B"
            else:
                raise ValueError("winner: %s plays not in match %d" % (_show(winner), match_id))
            db.execute("UPDATE matches SET status='done', winner=?, result=? WHERE id=?", (w, side, match_id))
            self._advance(db)

    def unmatched(self):
        """The reports no match took, newest first: {table, received_at, reason, players, report}
        (record_report(table, report, match_id=...) gives one to a match)."""
        with self._tx(False) as db:
            return [
                {
                    "table": r["table_id"],
                    "received_at": r["received_at"],
                    "reason": r["reason"],
                    "players": json.loads(r["players"]),
                    "report": json.loads(r["report"]),
                }
                for r in db.execute(
                    "SELECT * FROM reports WHERE match_id IS NULL ORDER BY received_at DESC, rowid DESC"
                )
            ]


def impossible(report, setup=None):
    """Why a finished match's report cannot be true, or None: each player's runs add up to the
    score and number the innings, the high run is one of them; in a game that is not played in
    sets, no score passes its target, the winner is who the rules say (the
    larger share of one's own target, at the target or the innings limit: rules.py) and a draw
    is level; the targets are at least the setup's (an extension raises them)."""
    try:
        a, b = report["players"]["A"], report["players"]["B"]
        why = _runs_wrong("A", a) or _runs_wrong("B", b)
        if why:
            return why
        if report.get("sets"):
            return None  # the scores are the last set's: the sets' own counts decide
        return _over_target("A", a) or _over_target("B", b) or _result_wrong(report, a, b) or _below_setup(setup, a, b)
    except (KeyError, TypeError, ValueError):
        return "not a report of this match's shape"


def _runs_wrong(side, p):
    """Why a player's runs do not give his innings, score and high run, or None."""
    runs = p["runs"]
    if len(runs) != p["innings"]:
        return "%s has %d innings but %d runs" % (side, p["innings"], len(runs))
    if sum(runs) != p["score"]:
        return "%s's score is %d but its runs add up to %d" % (side, p["score"], sum(runs))
    if runs and max(runs) > p["high_run"]:
        return "%s's high run is %d but a run is %d" % (side, p["high_run"], max(runs))
    return None


def _over_target(side, p):
    """Why a player's score cannot be (it passes his target), or None."""
    if p["score"] > p["target"]:
        return "%s scored %d of a target of %d" % (side, p["score"], p["target"])
    return None


def _result_wrong(report, a, b):
    """Why the result is not who the rules say, at the target or the innings limit, or None."""
    share_a, share_b = a["score"] * b["target"], b["score"] * a["target"]
    result, ended = report.get("result"), report.get("ended_by")
    if ended not in ("target", "innings_limit"):
        return None
    if result == "draw" and share_a != share_b:
        return "a draw at %d-%d" % (a["score"], b["score"])
    if (result == "A" and share_a < share_b) or (result == "B" and share_b < share_a):
        return "%s won at %d-%d" % (result, a["score"], b["score"])
    if ended == "target" and result in ("A", "B"):
        w = a if result == "A" else b
        if w["score"] != w["target"]:
            return "%s won at its target with %d of %d" % (result, w["score"], w["target"])
    return None


def _below_setup(setup, a, b):
    """Why the targets cannot be (below the setup's), or None."""
    if not setup:
        return None
    m = setup.get("match") or {}
    want = (m.get("target_A") or m.get("target"), m.get("target_B") or m.get("target"))
    got = sorted((a["target"], b["target"]))
    if None not in want and (got[0] < min(want) or got[1] < max(want)):
        want = sorted(want)
        return "targets %d and %d, below the setup's %s and %s" % (got[0], got[1], want[0], want[1])
    return None

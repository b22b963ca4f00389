"""The organiser's corrections (a part of Tournament): walkovers, withdrawals and exclusions, a
result entered by hand, a match moved to another table.

A walkover (a no-show: walkover(); every remaining match of a player who withdrew or was excluded)
is never sent to a board: its match is over at once, won by the present player, `ended_by` and
`entry` "walkover", scored by the tournament's walkover rule (values.WALKOVER_RULES).  A player who
abandons a match (the report's `ended_by: abandoned`, rules I.8.2) is excluded by the report itself
(reports.py calls _withdraw).  The group matches a withdrawn or excluded player played stand or are
annulled by the withdrawal rule (values.WITHDRAWAL_RULES); annulled, they count for nobody, and only
while no knock-out match with one of his group's places has gone to a table.
"""

import time

from .store import ACTIVE
from .values import MAX_COUNT, _int, _show, _table


class Corrections:
    """walkover(), withdraw(), enter_result(), move(): each returns the table whose setup the hall
    withdraws (the match was on it), or a list of them, or None."""

    # ---- walkovers ----

    def walkover(self, match_id, present, note=None, now=None):
        """A no-show: the match (not played yet, both players known) is a walkover for the player
        `present` ("A", "B" or his name).  The table it was sent to, or None."""
        with self._tx() as db:
            m = self._open_match(db, match_id)
            side = self._side_of(db, m, present, "present")
            names = self._names_of(db, m)
            absent = names[1] if side == "A" else names[0]
            table = m["table_id"] if m["status"] in ACTIVE else None
            self._walkover(db, m, side, note or "%s did not come" % absent, now)
            self._advance(db)
            return table

    def _walkover(self, db, m, side, note, now=None):
        """Match m won by `side` without being played, scored by the walkover rule."""
        limit = self._match_options(db)["innings_limit"] or 0
        counts = [None, None, None, None, None, None]  # score, innings, high run of A, then of B
        if self._meta(db, "walkover", "uncounted") == "zero_in_limit":
            absent = 3 if side == "A" else 0
            counts[absent : absent + 3] = [0, limit, 0]
        db.execute(
            "UPDATE matches SET status='done', result=?, winner=?, score_a=?, innings_a=?, hr_a=?, score_b=?, "
            "innings_b=?, hr_b=?, ended_by='walkover', entry='walkover', note=?, report=NULL, report_fp=NULL, "
            "done_at=? WHERE id=?",
            [side, m["a"] if side == "A" else m["b"]] + counts + [note, time.time() if now is None else now, m["id"]],
        )

    def _forfeit_pending(self, db):
        """Every pending match of a player who is out becomes a walkover for the other (both out:
        annulled in a group, nobody goes on in the knock-out).  Whether any changed."""
        out = {r["id"]: r for r in db.execute("SELECT * FROM players WHERE status!='in'")}
        if not out:
            return False
        changed = False
        for m in db.execute(
            "SELECT * FROM matches WHERE status='pending' AND a IS NOT NULL AND b IS NOT NULL"
        ).fetchall():
            gone = [m["a"] in out, m["b"] in out]
            if not any(gone):
                continue
            who = out[m["a"] if gone[0] else m["b"]]
            note = "%s %s" % (who["name"], who["status"])
            if all(gone):
                status, result = ("annulled", None) if m["stage"] == "group" else ("bye", "void")
                db.execute(
                    "UPDATE matches SET status=?, result=?, winner=NULL, entry='walkover', note=? WHERE id=?",
                    (status, result, "both players are out", m["id"]),
                )
            else:
                self._walkover(db, m, "B" if gone[0] else "A", note)
            changed = True
        return changed

    # ---- withdrawals and exclusions ----

    def withdraw(self, player, excluded=False, note=None):
        """The player (his id or name) withdraws (or, excluded, is excluded by the organiser): his
        remaining matches are walkovers for his opponents; the group matches he played stand or
        are annulled by the withdrawal rule.  The tables whose match was taken off, a list."""
        with self._tx() as db:
            p = self._player(db, player)
            if p["status"] != "in":
                raise ValueError("player: %s is %s already" % (_show(p["name"]), p["status"]))
            if not self._meta(db, "drawn", False):
                raise ValueError("the draw is not made: remove the player instead")
            status = "excluded" if excluded else "withdrawn"
            return self._withdraw(db, p["id"], status, note or status)

    def _withdraw(self, db, pid, status, note):
        db.execute("UPDATE players SET status=?, note=? WHERE id=?", (status, note, pid))
        tables = []
        for m in db.execute(
            "SELECT * FROM matches WHERE status IN (?, ?, ?) AND (a=? OR b=?)", ACTIVE + (pid, pid)
        ).fetchall():
            tables.append(m["table_id"])
            db.execute("UPDATE matches SET status='pending' WHERE id=?", (m["id"],))  # forfeited below
        if self._meta(db, "withdrawal", "stand") == "annulled":
            p = db.execute("SELECT * FROM players WHERE id=?", (pid,)).fetchone()
            if p["grp"] is not None and not self._qualifiers_play(db, p["grp"]):
                db.execute(
                    "UPDATE matches SET status='annulled', note=? WHERE stage='group' AND status='done' "
                    "AND (a=? OR b=?)",
                    ("annulled: %s %s" % (p["name"], status), pid, pid),
                )
        self._advance(db)
        return tables

    def _player(self, db, player):
        if isinstance(player, str):
            row = db.execute("SELECT * FROM players WHERE name=?", (player,)).fetchone()
        elif isinstance(player, int) and not isinstance(player, bool):
            row = db.execute("SELECT * FROM players WHERE id=?", (player,)).fetchone()
        else:
            row = None
        if row is None:
            raise ValueError("player: %s is not a player" % _show(player))
        return row

    # ---- a result entered by hand ----

    def enter_result(self, match_id, a, b, winner=None, now=None):
        """The paper sheet's result of a match not played on a board (or whose board broke): `a`
        and `b` {score, innings, high_run} of the match's A and B; `winner` ("A"/"B") only for a
        level score that a shoot-out decided (a knock-out match needs one).  It counts like a
        report, marked entry "hand".  The table it was sent to, or None."""
        with self._tx() as db:
            m = self._open_match(db, match_id)
            nums = []
            for side, d in (("A", a), ("B", b)):
                if not isinstance(d, dict) or set(d) != {"score", "innings", "high_run"}:
                    raise ValueError("%s: {score, innings, high_run}, not %s" % (side, _show(d)))
                sc = _int(d["score"], "%s.score" % side, 0, MAX_COUNT)
                inn = _int(d["innings"], "%s.innings" % side, 0, MAX_COUNT)
                hr = _int(d["high_run"], "%s.high_run" % side, 0, MAX_COUNT)
                if hr > sc or (sc and not inn) or (sc and not hr):
                    raise ValueError(
                        "%s: a high run of %d with %d points in %d innings cannot be" % (side, hr, sc, inn)
                    )
                nums += [sc, inn, hr]
            result, ended = self._hand_result(db, m, nums, winner)
            table = m["table_id"] if m["status"] in ACTIVE else None
            won = None if result == "draw" else (m["a"] if result == "A" else m["b"])
            db.execute(
                "UPDATE matches SET status='done', result=?, winner=?, score_a=?, innings_a=?, hr_a=?, score_b=?, "
                "innings_b=?, hr_b=?, ended_by=?, entry='hand', note='entered by hand', report=NULL, "
                "report_fp=NULL, done_at=? WHERE id=?",
                [result, won] + nums + [ended, time.time() if now is None else now, m["id"]],
            )
            self._advance(db)
            return table

    def _hand_result(self, db, m, nums, winner):
        """(result, ended_by) of a hand-entered score: the larger share of one's own target wins;
        level, a draw, or `winner` (a shoot-out's)."""
        opts = self._match_options(db)
        ta, tb = m["target_a"], m["target_b"]
        if ta is None or tb is None:
            pa = db.execute("SELECT * FROM players WHERE id=?", (m["a"],)).fetchone()
            pb = db.execute("SELECT * FROM players WHERE id=?", (m["b"],)).fetchone()
            ta, tb = self._target(db, pa, opts), self._target(db, pb, opts)
        share_a, share_b = nums[0] * tb, nums[3] * ta
        if winner is not None and winner not in ("A", "B"):
            raise ValueError("winner: %s is not A or B" % _show(winner))
        if share_a != share_b:
            result = "A" if share_a > share_b else "B"
            if winner is not None and winner != result:
                raise ValueError("winner: %s, but %s has the better score" % (winner, result))
            return result, None
        if winner is not None:
            return winner, "shootout"
        if m["stage"] == "knockout" or not opts["draw"]:
            raise ValueError("a level score: name the winner (the shoot-out or tie-break on the sheet)")
        return "draw", None

    # ---- tables ----

    def move(self, match_id, table_id):
        """A match on a table (its board failed) goes to another table of the tournament that has
        none: the table it left (the hall withdraws its setup there and sends it to the new one)."""
        table_id = _table(table_id)
        with self._tx() as db:
            m = db.execute("SELECT * FROM matches WHERE id=?", (match_id,)).fetchone()
            if m is None or m["status"] not in ACTIVE:
                raise ValueError("match %s is not on a table" % _show(match_id))
            if m["table_id"] == table_id:
                raise ValueError("match %d is on %s already" % (m["id"], table_id))
            if not db.execute("SELECT 1 FROM tables WHERE table_id=?", (table_id,)).fetchone():
                raise ValueError("table: %s is not one of the tournament's" % table_id)
            if db.execute(
                "SELECT 1 FROM matches WHERE table_id=? AND status IN (?, ?, ?)", (table_id,) + ACTIVE
            ).fetchone():
                raise ValueError("table: %s has a match" % table_id)
            db.execute(
                "UPDATE matches SET table_id=?, status='assigned', assigned_at=? WHERE id=?",
                (table_id, time.time(), m["id"]),
            )
            return m["table_id"]

    # ---- helpers ----

    def _open_match(self, db, match_id):
        m = db.execute("SELECT * FROM matches WHERE id=?", (match_id,)).fetchone() if _is_id(match_id) else None
        if m is None or m["status"] not in ("pending",) + ACTIVE or m["a"] is None or m["b"] is None:
            raise ValueError("match %s is not one that waits for its result with both players known" % _show(match_id))
        return m

    def _side_of(self, db, m, who, what):
        names = self._names_of(db, m)
        if who in ("A", names[0]):
            return "A"
        if who in ("B", names[1]):
            return "B"
        raise ValueError("%s: %s plays not in match %d" % (what, _show(who), m["id"]))


def _is_id(v):
    return isinstance(v, int) and not isinstance(v, bool)

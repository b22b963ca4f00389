"""Matches onto tables (a part of Tournament): their setups, and the boards' states observed."""

import json
import time

from .store import ACTIVE
from .values import HANDICAP_INNINGS, MAX_TARGET, _count, _names, _show, _table, check_setup, match_section


class Assignment:
    """The next matches onto the free tables, with the setups their boards are sent."""

    def _match_options(self, db):
        return match_section(self._meta(db, "game_options", {}))

    def _target(self, db, player, opts):
        if player is None:
            return None
        if player["target"] is not None:
            return player["target"]
        if player["average"] is not None:
            n = opts["innings_limit"] or self._meta(db, "handicap_innings", HANDICAP_INNINGS)
            return max(1, min(MAX_TARGET, int(player["average"] * n + 0.5)))
        return opts["target"]

    def _setup(self, db, m):
        opts = self._match_options(db)
        pa = db.execute("SELECT * FROM players WHERE id=?", (m["a"],)).fetchone()
        pb = db.execute("SELECT * FROM players WHERE id=?", (m["b"],)).fetchone()
        ta, tb = self._target(db, pa, opts), self._target(db, pb, opts)
        match = dict(opts)
        if ta != opts["target"] or tb != opts["target"]:
            match["target_A"], match["target_B"] = ta, tb
        if m["stage"] == "knockout":  # a winner is needed: a level end goes to the shoot-out
            match["draw"], match["shootout"] = False, True
        setup = {
            "players": {"A": {"name": pa["name"], "club": pa["club"]}, "B": {"name": pb["name"], "club": pb["club"]}},
            "match": match,
        }
        check_setup(setup)
        return setup, ta, tb

    def assign(self, free_tables):
        """The next matches onto the free tables: [(table_id, match_id, setup)].  A table not in the
        tournament, or that holds a match still, is skipped; a match goes to a table only when both
        its players are known and neither plays elsewhere.  Order: round, then the match's place in
        it, then the group (the groups' first rounds come before anyone's second)."""
        if isinstance(free_tables, str) or not hasattr(free_tables, "__iter__"):
            raise ValueError("free_tables: a list of table ids, not %s" % _show(free_tables))
        wanted = [_table(x) for x in free_tables]
        out = []
        with self._tx() as db:
            if not self._meta(db, "drawn", False):
                return out
            known = {r[0] for r in db.execute("SELECT table_id FROM tables")}
            for tid in dict.fromkeys(wanted):
                if (
                    tid not in known
                    or db.execute(
                        "SELECT 1 FROM matches WHERE table_id=? AND status IN (?, ?, ?)", (tid,) + ACTIVE
                    ).fetchone()
                ):
                    continue
                busy = set()
                for a, b in db.execute("SELECT a, b FROM matches WHERE status IN (?, ?, ?)", ACTIVE):
                    busy.update((a, b))
                for m in db.execute(
                    "SELECT * FROM matches WHERE status='pending' AND a IS NOT NULL AND b IS NOT NULL "
                    "ORDER BY stage='knockout', round, slot, grp, id"
                ).fetchall():
                    if m["a"] in busy or m["b"] in busy:
                        continue
                    setup, ta, tb = self._setup(db, m)
                    db.execute(
                        "UPDATE matches SET status='assigned', table_id=?, setup=?, target_a=?, target_b=?, "
                        "assigned_at=? WHERE id=?",
                        (tid, json.dumps(setup), ta, tb, time.time(), m["id"]),
                    )
                    out.append((tid, m["id"], setup))
                    break
        return out

    def unassign(self, match_id):
        """A match sent to a table goes back to pending (the organiser moves it)."""
        with self._tx() as db:
            n = db.execute(
                "UPDATE matches SET status='pending', table_id=NULL, setup=NULL, assigned_at=NULL "
                "WHERE id=? AND status IN (?, ?, ?)",
                (match_id,) + ACTIVE,
            ).rowcount
            if not n:
                raise ValueError("match %s is not on a table" % _show(match_id))

    def setup_of(self, table_id):
        """(match_id, setup) of the match assigned to the table, or None (to send it again)."""
        table_id = _table(table_id)
        with self._tx(False) as db:
            row = db.execute(
                "SELECT id, setup FROM matches WHERE table_id=? AND status IN (?, ?, ?)", (table_id,) + ACTIVE
            ).fetchone()
            return (row[0], json.loads(row[1])) if row else None

    def observe(self, table_id, state):
        """The board's state document: its match shows as playing once the board shows its players,
        waiting while it still has another match going (or says so: "setup": {"waiting": n}).
        Returns the match's status, or None when the table has no match."""
        table_id = _table(table_id)
        if not isinstance(state, dict):
            raise ValueError("state: not a state document")
        with self._tx() as db:
            m = db.execute(
                "SELECT * FROM matches WHERE table_id=? AND status IN (?, ?, ?)", (table_id,) + ACTIVE
            ).fetchone()
            if m is None:
                return None
            names = _names(state)
            want = self._names_of(db, m)
            setup = state.get("setup")
            if names is not None and sorted(names) == sorted(want):
                status = "playing"
            elif isinstance(setup, dict) and setup.get("waiting") is not None:
                status = "waiting"
            elif state.get("phase") not in (None, "finished") and _count(state.get("events")) > 0:
                status = "waiting"
            else:
                status = "assigned"
            if m["status"] != status and not (m["status"] == "playing" and status == "assigned"):
                db.execute("UPDATE matches SET status=? WHERE id=?", (status, m["id"]))
                return status
            return m["status"]

    def _names_of(self, db, m):
        return [db.execute("SELECT name FROM players WHERE id=?", (p,)).fetchone()[0] for p in (m["a"], m["b"])]

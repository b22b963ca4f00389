"""The tournament the hall runs: players, the draw, matches onto tables, reports into standings.

One SQLite file (the standard library's sqlite3) holds everything; no MQTT, no HTTP, no clock
reads beyond stamping rows.  Every change is one transaction (BEGIN IMMEDIATE, WAL journal), so
two Tournament objects on the same file (two organisers' pages through one server, a second
process, `carom hall` restarted) see the same tournament and never half of a change.

    t = Tournament("hall.db")
    t.configure(name="Club day", game_options={"game": "three_cushion", "target": 20, "innings_limit": 40},
                format="groups_knockout", groups=4, advance=2)
    t.add_player("Anna Kovacs", club="BC Pest", average=0.8)   # -> player id
    t.add_table("t1")
    t.draw(seed=None)                   # registration order is the seeding; seed=int: a random draw
    for table, match_id, setup in t.assign(["t1", "t2"]):
        ...                             # setup: config.json's "players" and "match" (the setup topic)
    t.record_report("t1", report_doc)   # -> match id, or None (kept as unmatched)
    t.standings(); t.bracket(); t.matches(); t.export_csv(); t.export_json(); t.export_html()

Formats
-------
round_robin      `groups` balanced groups (sizes differ by one at most; players dealt in the seeding
                 order, snake-wise: 1 2 3 4 4 3 2 1 ...); each group plays every pairing once,
                 scheduled in rounds by the circle method (an odd group has a bye each round).
knockout         a seeded bracket (1 v 16, 8 v 9, ...; seeds 1 and 2 meet in the final at the
                 earliest) grown to the next power of two: the top seeds get the byes.
groups_knockout  round robin groups, then a knock-out of the top `advance` of each group, crossed:
                 a group's winner meets the partner group's runner-up (A1-B2, B1-A2, C1-D2, D1-C2).
                 A group's places go to the bracket as soon as that group's matches are all done.

Handicap: a player's own target, or his average (GD) times the innings it is reckoned over (the
game's innings limit, else `handicap_innings`, 25), rounded half up, within 1..9999; a player with
neither plays the game's target.  The setup carries target_A/target_B when the two differ.

Knock-out matches need a winner: their setup has draw false and shootout true (a level end goes to
the shoot-out, as firmware/formats.py plays it).  A knock-out report that is a draw anyway (a
board set up by hand) leaves the match "undecided" until the organiser calls decide().

Standings: match points (win 2, draw 1), then GD (points / innings over all the player's matches),
then the best high run, then the seeding.

Reports: matched to the match assigned to that table by the players' names (either order); a
report seen before (same table, same SHA-256 of its canonical JSON: model.fingerprint) changes
nothing; a report finished again after an undo (same table, players and report.started_at)
replaces the result while the knock-out's next match has not gone to a table.  Anything else is
kept as unmatched (unmatched(): the newest MAX_UNMATCHED, within MAX_UNMATCHED_BYTES) and
record_report returns None; record_report(table, report, match_id=...) gives one to a match.

Statuses of a match: pending (not on a table yet, or its players not known), assigned (its setup
went to the table), waiting (the board still plays another match: observe()), playing (the board
shows its players), done, bye (a knock-out bye: its one player goes on), undecided (a knock-out
draw, see above).
"""

import csv
import html
import io
import json
import math
import random
import re
import sqlite3
import threading
import time

from .. import firmware_path
from . import schema
from .model import _cell, fingerprint

SCHEMA_VERSION = 1
FORMATS = ("round_robin", "knockout", "groups_knockout")
FORMAT_NAMES = {"round_robin": "round robin", "knockout": "knock-out", "groups_knockout": "groups, then knock-out"}
MAX_NAME = 24  # a board's players.X.name and club (firmware/config.py)
MAX_TITLE = 100  # the tournament's name
MAX_PLAYERS = 1024
MAX_GROUPS = 26  # A..Z
MAX_GROUP = 64  # players in a round-robin group (2,016 matches)
MAX_MATCHES = 2048  # group matches in a draw: the tournament's event to the pages stays about 1 MB (a 64-player round robin fits)
MAX_UNMATCHED = 1000
MAX_UNMATCHED_BYTES = 32 * 1024 * 1024  # their reports, at most (a report may have 512 KB: schema.py)
HANDICAP_INNINGS = 25
MAX_TARGET = 9999
ACTIVE = ("assigned", "waiting", "playing")  # a match that holds its table
GROUP_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
TABLE_ID = schema.TABLE_NAME
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029]")

_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, club TEXT NOT NULL DEFAULT '',
    target INTEGER, average REAL, seed INTEGER, grp INTEGER);
CREATE TABLE IF NOT EXISTS tables (table_id TEXT PRIMARY KEY, added INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY, stage TEXT NOT NULL, grp INTEGER, round INTEGER NOT NULL, slot INTEGER NOT NULL,
    a INTEGER REFERENCES players(id), b INTEGER REFERENCES players(id), label_a TEXT, label_b TEXT,
    status TEXT NOT NULL DEFAULT 'pending', table_id TEXT, setup TEXT, target_a INTEGER, target_b INTEGER,
    result TEXT, winner INTEGER REFERENCES players(id), score_a INTEGER, score_b INTEGER,
    innings_a INTEGER, innings_b INTEGER, hr_a INTEGER, hr_b INTEGER, ended_by TEXT,
    started_at INTEGER, report_fp TEXT, report TEXT, assigned_at REAL, done_at REAL);
CREATE INDEX IF NOT EXISTS matches_table ON matches(table_id, status);
CREATE TABLE IF NOT EXISTS reports (
    table_id TEXT NOT NULL, fp TEXT NOT NULL, match_id INTEGER, received_at REAL NOT NULL, reason TEXT,
    players TEXT, report TEXT, PRIMARY KEY (table_id, fp));
"""


class Tournament:
    """A tournament in the SQLite file `path` (created if missing).  Thread-safe; every method
    reads or changes the file in one transaction.  Bad input raises ValueError, one line."""

    def __init__(self, path, timeout=30.0):
        self.path = str(path)
        self._lock = threading.RLock()
        self._depth = 0
        try:
            self._db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None, check_same_thread=False)
            self._db.row_factory = sqlite3.Row
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            with self._tx() as db:
                for stmt in _DDL.split(";"):
                    if stmt.strip():
                        db.execute(stmt)
                row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
                if row is None:
                    db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
                elif int(row[0]) != SCHEMA_VERSION:
                    raise ValueError("%s: a tournament file of schema version %s (this carom reads %d)"
                                     % (self.path, row[0], SCHEMA_VERSION))
        except sqlite3.DatabaseError as e:
            raise ValueError("%s: cannot be used as a tournament file: not a tournament database, or it cannot "
                             "be opened (%s)" % (self.path, e)) from None
        self.journal_mode = mode

    def close(self):
        with self._lock:
            self._db.close()

    # ---- transactions -----------------------------------------------------------------------

    class _Tx:
        """One transaction; nested in another on this thread, a part of it (exports read everything
        in one snapshot: a read transaction around the readers)."""

        def __init__(self, t, write):
            self.t, self.write = t, write

        def __enter__(self):
            t = self.t
            t._lock.acquire()
            t._depth += 1
            if t._depth == 1:
                try:
                    t._db.execute("BEGIN IMMEDIATE" if self.write else "BEGIN")
                except BaseException:
                    t._depth -= 1
                    t._lock.release()
                    raise
            return t._db

        def __exit__(self, kind, value, tb):
            t = self.t
            try:
                if t._depth == 1:
                    t._db.execute("COMMIT" if kind is None else "ROLLBACK")
            finally:
                t._depth -= 1
                t._lock.release()
            return False

    def _tx(self, write=True):
        return Tournament._Tx(self, write)

    # ---- settings ------------------------------------------------------------------------

    def _meta(self, db, key, default=None):
        row = db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def _set_meta(self, db, key, value):
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    def settings(self):
        """name, format, groups, advance, handicap_innings, game_options (as given), drawn."""
        with self._tx(False) as db:
            return self._settings(db)

    def _settings(self, db):
        return {"name": self._meta(db, "name", ""), "format": self._meta(db, "format", "round_robin"),
                "groups": self._meta(db, "groups", 1), "advance": self._meta(db, "advance", 2),
                "handicap_innings": self._meta(db, "handicap_innings", HANDICAP_INNINGS),
                "game_options": self._meta(db, "game_options", {}), "drawn": self._meta(db, "drawn", False)}

    def configure(self, name=None, game_options=None, format=None, groups=None, advance=None,
                  handicap_innings=None):
        """Set what is given (None: unchanged).  Only the name may change once the draw is made."""
        with self._tx() as db:
            drawn = self._meta(db, "drawn", False)
            if name is not None:
                self._set_meta(db, "name", _text(name, "name", MAX_TITLE, empty=True))
            rest = (game_options, format, groups, advance, handicap_innings)
            if drawn and any(x is not None for x in rest):
                raise ValueError("the draw is made: the format and the game cannot change now")
            if format is not None:
                if format not in FORMATS:
                    raise ValueError("format: %s is not one of %s" % (_show(format), ", ".join(FORMATS)))
                self._set_meta(db, "format", format)
            if groups is not None:
                self._set_meta(db, "groups", _int(groups, "groups", 1, MAX_GROUPS))
            if advance is not None:
                self._set_meta(db, "advance", _int(advance, "advance", 1, 64))
            if handicap_innings is not None:
                self._set_meta(db, "handicap_innings", _int(handicap_innings, "handicap_innings", 1, 999))
            if game_options is not None:
                match_section(game_options)
                self._set_meta(db, "game_options", game_options)

    # ---- players and tables --------------------------------------------------------------

    def add_player(self, name, club="", target=None, average=None):
        """A player (name unique in the tournament: the boards' reports are matched by it); his id."""
        name = _text(name, "name", MAX_NAME)
        club = _text(club, "club", MAX_NAME, empty=True)
        if target is not None:
            target = _int(target, "target", 1, MAX_TARGET)
        if average is not None:
            if isinstance(average, bool) or not isinstance(average, (int, float)) or not math.isfinite(average) \
                    or not 0 < average <= 1000:
                raise ValueError("average: %s is not a number above 0 (a GD such as 0.85)" % _show(average))
            average = float(average)
        if target is not None and average is not None:
            raise ValueError("give a target or an average, not both")
        with self._tx() as db:
            if self._meta(db, "drawn", False):
                raise ValueError("the draw is made: no more players")
            if db.execute("SELECT 1 FROM players WHERE name=?", (name,)).fetchone():
                raise ValueError("name: %s is already a player (names must differ: the boards' reports "
                                 "are matched by them)" % _show(name))
            if db.execute("SELECT COUNT(*) FROM players").fetchone()[0] >= MAX_PLAYERS:
                raise ValueError("at most %d players" % MAX_PLAYERS)
            cur = db.execute("INSERT INTO players (name, club, target, average) VALUES (?, ?, ?, ?)",
                             (name, club, target, average))
            return cur.lastrowid

    def remove_player(self, player_id):
        with self._tx() as db:
            if self._meta(db, "drawn", False):
                raise ValueError("the draw is made: players stay")
            if not db.execute("DELETE FROM players WHERE id=?", (player_id,)).rowcount:
                raise ValueError("no player %s" % _show(player_id))

    def players(self):
        with self._tx(False) as db:
            opts = self._match_options(db)
            return [dict(id=r["id"], name=r["name"], club=r["club"], target=r["target"], average=r["average"],
                         seed=r["seed"], group=_letter(r["grp"]), plays_to=self._target(db, r, opts))
                    for r in db.execute("SELECT * FROM players ORDER BY COALESCE(seed, id), id")]

    def add_table(self, table_id):
        table_id = _table(table_id)
        with self._tx() as db:
            n = db.execute("SELECT COALESCE(MAX(added), 0) + 1 FROM tables").fetchone()[0]
            db.execute("INSERT OR IGNORE INTO tables VALUES (?, ?)", (table_id, n))

    def remove_table(self, table_id):
        """The table leaves; a match on it goes back to pending (its id returned, else None)."""
        table_id = _table(table_id)
        with self._tx() as db:
            row = db.execute("SELECT id FROM matches WHERE table_id=? AND status IN (?, ?, ?)",
                             (table_id,) + ACTIVE).fetchone()
            if row:
                db.execute("UPDATE matches SET status='pending', table_id=NULL, setup=NULL, assigned_at=NULL "
                           "WHERE id=?", (row[0],))
            db.execute("DELETE FROM tables WHERE table_id=?", (table_id,))
            return row[0] if row else None

    def tables(self):
        """[{table, match}]: the tournament's tables in the order added, each with its match id or None."""
        with self._tx(False) as db:
            out = []
            for (tid,) in db.execute("SELECT table_id FROM tables ORDER BY added").fetchall():
                row = db.execute("SELECT id FROM matches WHERE table_id=? AND status IN (?, ?, ?)",
                                 (tid,) + ACTIVE).fetchone()
                out.append({"table": tid, "match": row[0] if row else None})
            return out

    # ---- the draw ------------------------------------------------------------------------

    def draw(self, seed=None):
        """Pair the matches.  The seeding is the order the players were added (the first is seed 1),
        or with `seed` (an int) a random order, the same for the same seed."""
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ValueError("seed: %s is not an integer" % _show(seed))
        with self._tx() as db:
            s = self._settings(db)
            if s["drawn"]:
                raise ValueError("the draw is made already")
            ids = [r[0] for r in db.execute("SELECT id FROM players ORDER BY id")]
            if len(ids) < 2:
                raise ValueError("a draw needs 2 players at least (there are %d)" % len(ids))
            if seed is not None:
                random.Random(seed).shuffle(ids)
            for k, pid in enumerate(ids):
                db.execute("UPDATE players SET seed=? WHERE id=?", (k + 1, pid))
            fmt, groups, advance = s["format"], s["groups"], s["advance"]
            if fmt == "knockout":
                self._bracket(db, [("%d" % (k + 1), pid) for k, pid in enumerate(ids)])
            else:
                if len(ids) < 2 * groups:
                    raise ValueError("%d groups need %d players at least (there are %d)"
                                     % (groups, 2 * groups, len(ids)))
                if len(ids) > groups * MAX_GROUP:
                    raise ValueError("groups: %d players in %d would make a group of more than %d players"
                                     % (len(ids), groups, MAX_GROUP))
                size, extra = divmod(len(ids), groups)  # the groups' sizes: size, or size + 1 for `extra` of them
                total = extra * (size + 1) * size // 2 + (groups - extra) * size * (size - 1) // 2
                if total > MAX_MATCHES:
                    raise ValueError("a draw of %d group matches: at most %d (a club day's; fewer players, or more"
                                     " groups)" % (total, MAX_MATCHES))
                members = [[] for _ in range(groups)]
                for k, pid in enumerate(ids):
                    lap, at = divmod(k, groups)
                    g = at if lap % 2 == 0 else groups - 1 - at
                    members[g].append(pid)
                for g, group in enumerate(members):
                    for pid in group:
                        db.execute("UPDATE players SET grp=? WHERE id=?", (g, pid))
                    for rnd, pairs in enumerate(circle(group)):
                        for slot, (a, b) in enumerate(pairs):
                            db.execute("INSERT INTO matches (stage, grp, round, slot, a, b) VALUES "
                                       "('group', ?, ?, ?, ?, ?)", (g, rnd + 1, slot, a, b))
                if fmt == "groups_knockout":
                    smallest = min(len(m) for m in members)
                    if groups * advance < 2:
                        raise ValueError("advance: 1 from 1 group leaves no knock-out (it needs 2 players)")
                    if advance > smallest:
                        raise ValueError("advance: %d from each group, but the smallest group has %d players"
                                         % (advance, smallest))
                    self._bracket(db, crossed(groups, advance))
            self._set_meta(db, "drawn", True)
            self._advance(db)

    def _bracket(self, db, entrants):
        """The knock-out's matches, every round: entrants [(label, player id or None)] in seed order."""
        size = 1
        while size < len(entrants):
            size *= 2
        order = bracket_order(size)
        rounds = size.bit_length() - 1
        for slot in range(size // 2):
            pa, pb = order[2 * slot], order[2 * slot + 1]
            la, a = entrants[pa - 1] if pa <= len(entrants) else (None, None)
            lb, b = entrants[pb - 1] if pb <= len(entrants) else (None, None)
            status = "bye" if lb is None else "pending"
            db.execute("INSERT INTO matches (stage, round, slot, a, b, label_a, label_b, status) VALUES "
                       "('knockout', 1, ?, ?, ?, ?, ?, ?)", (slot, a, b, la, lb or "bye", status))
        for rnd in range(2, rounds + 1):
            for slot in range(size >> rnd):
                feeders = [db.execute("SELECT id FROM matches WHERE stage='knockout' AND round=? AND slot=?",
                                      (rnd - 1, 2 * slot + k)).fetchone()[0] for k in (0, 1)]
                db.execute("INSERT INTO matches (stage, round, slot, label_a, label_b) VALUES "
                           "('knockout', ?, ?, ?, ?)", (rnd, slot, "W%d" % feeders[0], "W%d" % feeders[1]))

    def _advance(self, db):
        """Fill the knock-out's pending matches with who is known: group places once a group is
        done, winners of the matches before; byes go through.  Run after every change."""
        s = self._settings(db)
        if not s["drawn"] or s["format"] == "round_robin":
            return
        places = {}
        if s["format"] == "groups_knockout":
            for g in range(s["groups"]):
                open_ = db.execute("SELECT COUNT(*) FROM matches WHERE stage='group' AND grp=? AND status!='done'",
                                   (g,)).fetchone()[0]
                if not open_:
                    for k, row in enumerate(self._group_rows(db, g)):
                        places["%s%d" % (_letter(g), k + 1)] = row["player_id"]
        changed = True
        while changed:
            changed = False
            rows = db.execute("SELECT * FROM matches WHERE stage='knockout' AND status IN ('pending', 'bye') "
                              "ORDER BY round, slot").fetchall()
            for m in rows:
                new = [m["a"], m["b"]]
                for k, label in enumerate((m["label_a"], m["label_b"])):
                    if label is None or label == "bye":
                        continue
                    if label.startswith("W") and label[1:].isdigit():
                        f = db.execute("SELECT status, winner FROM matches WHERE id=?", (int(label[1:]),)).fetchone()
                        new[k] = f["winner"] if f["status"] in ("done", "bye") else None
                    elif label in places:
                        new[k] = places[label]
                    elif not label.isdigit():
                        new[k] = None
                status, winner = m["status"], m["winner"]
                if m["label_b"] == "bye":
                    status, winner = "bye", new[0]
                if new != [m["a"], m["b"]] or winner != m["winner"]:
                    db.execute("UPDATE matches SET a=?, b=?, status=?, winner=? WHERE id=?",
                               (new[0], new[1], status, winner, m["id"]))
                    changed = True

    # ---- tables and setups -----------------------------------------------------------------

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
        setup = {"players": {"A": {"name": pa["name"], "club": pa["club"]},
                             "B": {"name": pb["name"], "club": pb["club"]}},
                 "match": match}
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
                if tid not in known or db.execute("SELECT 1 FROM matches WHERE table_id=? AND status IN (?, ?, ?)",
                                                  (tid,) + ACTIVE).fetchone():
                    continue
                busy = set()
                for a, b in db.execute("SELECT a, b FROM matches WHERE status IN (?, ?, ?)", ACTIVE):
                    busy.update((a, b))
                for m in db.execute("SELECT * FROM matches WHERE status='pending' AND a IS NOT NULL AND b IS NOT NULL "
                                    "ORDER BY stage='knockout', round, slot, grp, id").fetchall():
                    if m["a"] in busy or m["b"] in busy:
                        continue
                    setup, ta, tb = self._setup(db, m)
                    db.execute("UPDATE matches SET status='assigned', table_id=?, setup=?, target_a=?, target_b=?, "
                               "assigned_at=? WHERE id=?",
                               (tid, json.dumps(setup), ta, tb, time.time(), m["id"]))
                    out.append((tid, m["id"], setup))
                    break
        return out

    def unassign(self, match_id):
        """A match sent to a table goes back to pending (the organiser moves it)."""
        with self._tx() as db:
            n = db.execute("UPDATE matches SET status='pending', table_id=NULL, setup=NULL, assigned_at=NULL "
                           "WHERE id=? AND status IN (?, ?, ?)", (match_id,) + ACTIVE).rowcount
            if not n:
                raise ValueError("match %s is not on a table" % _show(match_id))

    def setup_of(self, table_id):
        """(match_id, setup) of the match assigned to the table, or None (to send it again)."""
        table_id = _table(table_id)
        with self._tx(False) as db:
            row = db.execute("SELECT id, setup FROM matches WHERE table_id=? AND status IN (?, ?, ?)",
                             (table_id,) + ACTIVE).fetchone()
            return (row[0], json.loads(row[1])) if row else None

    def observe(self, table_id, state):
        """The board's state document: its match shows as playing once the board shows its players,
        waiting while it still has another match going (or says so: "setup": {"waiting": n}).
        Returns the match's status, or None when the table has no match."""
        table_id = _table(table_id)
        if not isinstance(state, dict):
            raise ValueError("state: not a state document")
        with self._tx() as db:
            m = db.execute("SELECT * FROM matches WHERE table_id=? AND status IN (?, ?, ?)",
                           (table_id,) + ACTIVE).fetchone()
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

    # ---- results -----------------------------------------------------------------------

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
                self._advance(db)
            db.execute("INSERT OR REPLACE INTO reports VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (table_id, fp, match_id, now, reason, json.dumps(names),
                        None if match_id is not None else json.dumps(report, separators=(",", ":"))))
            if match_id is None:  # the newest MAX_UNMATCHED, within MAX_UNMATCHED_BYTES
                db.execute("DELETE FROM reports WHERE rowid IN (SELECT rowid FROM (SELECT rowid, ROW_NUMBER() OVER w "
                           "AS k, SUM(LENGTH(report)) OVER w AS total FROM reports WHERE match_id IS NULL WINDOW w AS "
                           "(ORDER BY received_at DESC, rowid DESC)) WHERE k > ? OR total > ?)",
                           (MAX_UNMATCHED, MAX_UNMATCHED_BYTES))
            return match_id

    def _match_report(self, db, table_id, report, names):
        """(match id, None) for the match this report finishes or corrects, else (None, why)."""
        if report.get("phase") != "finished" or report.get("result") not in ("A", "B", "draw"):
            return None, "not a finished match (phase %s, result %s)" % (report.get("phase"), report.get("result"))
        m = db.execute("SELECT * FROM matches WHERE table_id=? AND status IN (?, ?, ?)",
                       (table_id,) + ACTIVE).fetchone()
        if m is not None and sorted(self._names_of(db, m)) == sorted(names):
            why = impossible(report, json.loads(m["setup"]) if m["setup"] else None)
            return (None, "cannot be: %s" % why) if why else (m["id"], None)
        started = (report.get("report") or {}).get("started_at")
        if started is not None:  # finished again after an undo: a correction of a done match
            for d in db.execute("SELECT * FROM matches WHERE table_id=? AND status IN ('done', 'undecided') "
                                "AND started_at=? ORDER BY id DESC", (table_id, started)).fetchall():
                if sorted(self._names_of(db, d)) != sorted(names):
                    continue
                if d["stage"] == "knockout" and not self._correctable(db, d, report, names):
                    return None, "corrects match %d, whose winner plays on already" % d["id"]
                if d["stage"] == "group" and self._qualifiers_play(db, d["grp"]):
                    return None, ("corrects match %d, but group %s's qualifiers play in the knock-out already"
                                  % (d["id"], _letter(d["grp"])))
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
        return db.execute("SELECT 1 FROM matches WHERE stage='knockout' AND status NOT IN ('pending', 'bye') "
                          "AND (label_a IN (%s) OR label_b IN (%s))" % (marks, marks), labels * 2).fetchone() is not None

    def _correctable(self, db, d, report, names):
        winner = self._winner_id(db, d, report, names)
        if winner == d["winner"]:
            return True
        nxt = db.execute("SELECT status FROM matches WHERE label_a=? OR label_b=?",
                         ("W%d" % d["id"],) * 2).fetchone()
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
        db.execute("UPDATE matches SET status=?, result=?, winner=?, score_a=?, innings_a=?, hr_a=?, score_b=?, "
                   "innings_b=?, hr_b=?, ended_by=?, started_at=?, report_fp=?, report=?, done_at=? WHERE id=?",
                   (status, result, winner, nums[0], nums[1], nums[2], nums[3], nums[4], nums[5],
                    report.get("ended_by"), (report.get("report") or {}).get("started_at"), fp,
                    json.dumps(report, separators=(",", ":")), now, match_id))

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
            return [{"table": r["table_id"], "received_at": r["received_at"], "reason": r["reason"],
                     "players": json.loads(r["players"]), "report": json.loads(r["report"])}
                    for r in db.execute("SELECT * FROM reports WHERE match_id IS NULL "
                                        "ORDER BY received_at DESC, rowid DESC")]

    # ---- reading ----------------------------------------------------------------------------

    def _player_map(self, db):
        return {r["id"]: r for r in db.execute("SELECT * FROM players")}

    def _row(self, m, players):
        def pl(pid):
            return players[pid] if pid is not None else None

        a, b = pl(m["a"]), pl(m["b"])
        out = {"id": m["id"], "stage": m["stage"], "group": _letter(m["grp"]), "round": m["round"],
               "slot": m["slot"], "status": m["status"], "table": m["table_id"],
               "label_A": m["label_a"], "label_B": m["label_b"],
               "name_A": a["name"] if a else None, "club_A": a["club"] if a else None,
               "name_B": b["name"] if b else None, "club_B": b["club"] if b else None,
               "target_A": m["target_a"], "target_B": m["target_b"],
               "score_A": m["score_a"], "innings_A": m["innings_a"], "average_A": _gd(m["score_a"], m["innings_a"]),
               "high_run_A": m["hr_a"],
               "score_B": m["score_b"], "innings_B": m["innings_b"], "average_B": _gd(m["score_b"], m["innings_b"]),
               "high_run_B": m["hr_b"],
               "result": m["result"], "winner": players[m["winner"]]["name"] if m["winner"] is not None else None,
               "ended_by": m["ended_by"], "started_at": m["started_at"]}
        return out

    def matches(self):
        """Every match: id, stage (group/knockout), group, round, slot, status, table, players (or the
        labels of whom they wait for: A1, W12), targets, scores, innings, GD, high runs, result, winner."""
        with self._tx(False) as db:
            players = self._player_map(db)
            return [self._row(m, players) for m in
                    db.execute("SELECT * FROM matches ORDER BY stage='knockout', round, slot, grp, id")]

    def match(self, match_id):
        with self._tx(False) as db:
            m = db.execute("SELECT * FROM matches WHERE id=?", (match_id,)).fetchone()
            if m is None:
                raise ValueError("no match %s" % _show(match_id))
            return self._row(m, self._player_map(db))

    def _group_rows(self, db, g):
        """One group's standings (g None: every player over every match)."""
        if g is None:
            plist = db.execute("SELECT * FROM players ORDER BY COALESCE(seed, id)").fetchall()
            ms = db.execute("SELECT * FROM matches WHERE status IN ('done', 'undecided')").fetchall()
        else:
            plist = db.execute("SELECT * FROM players WHERE grp=? ORDER BY seed", (g,)).fetchall()
            ms = db.execute("SELECT * FROM matches WHERE stage='group' AND grp=? AND status='done'", (g,)).fetchall()
        rows = {p["id"]: {"player_id": p["id"], "name": p["name"], "club": p["club"], "seed": p["seed"],
                          "played": 0, "won": 0, "drawn": 0, "lost": 0, "points": 0, "score": 0, "innings": 0,
                          "high_run": 0} for p in plist}
        for m in ms:
            for pid, other, sc, inn, hr in ((m["a"], m["b"], m["score_a"], m["innings_a"], m["hr_a"]),
                                            (m["b"], m["a"], m["score_b"], m["innings_b"], m["hr_b"])):
                r = rows.get(pid)
                if r is None:
                    continue
                r["played"] += 1
                r["score"] += sc or 0
                r["innings"] += inn or 0
                r["high_run"] = max(r["high_run"], hr or 0)
                if m["result"] == "draw" and m["status"] == "done":
                    r["drawn"] += 1
                    r["points"] += 1
                elif m["winner"] == pid:
                    r["won"] += 1
                    r["points"] += 2
                elif m["winner"] == other:
                    r["lost"] += 1
        out = sorted(rows.values(), key=lambda r: (-r["points"], -_ratio(r["score"], r["innings"]),
                                                   -r["high_run"], r["seed"] or 0, r["player_id"]))
        for k, r in enumerate(out):
            r["rank"] = k + 1
            r["average"] = _gd(r["score"], r["innings"])
        return out

    def standings(self):
        """[{group, rows}]: each group's players in order (rank, name, club, played, won, drawn, lost,
        points, score, innings, average (GD), high_run).  In a knock-out: one list, group None, over
        every match (the bracket is the knock-out's result)."""
        with self._tx(False) as db:
            s = self._settings(db)
            if not s["drawn"]:
                return []
            if s["format"] == "knockout":
                return [{"group": None, "rows": self._group_rows(db, None)}]
            return [{"group": _letter(g), "rows": self._group_rows(db, g)} for g in range(s["groups"])]

    def bracket(self):
        """The knock-out's rounds: [{round, name, matches}] (matches as in matches()), the final last."""
        with self._tx(False) as db:
            players = self._player_map(db)
            ms = db.execute("SELECT * FROM matches WHERE stage='knockout' ORDER BY round, slot").fetchall()
            rounds = max((m["round"] for m in ms), default=0)
            return [{"round": r, "name": round_name(r, rounds),
                     "matches": [self._row(m, players) for m in ms if m["round"] == r]} for r in range(1, rounds + 1)]

    def champion(self):
        """The knock-out's winner's name (or the round robin's leader once all is played), else None."""
        with self._tx(False) as db:
            final = db.execute("SELECT winner, status FROM matches WHERE stage='knockout' ORDER BY round DESC "
                               "LIMIT 1").fetchone()
            if final is not None:
                return self._player_map(db)[final[0]]["name"] if final[1] == "done" else None
        if any(m["status"] != "done" for m in self.matches()):
            return None
        st = self.standings()
        return st[0]["rows"][0]["name"] if len(st) == 1 and st[0]["rows"] else None

    # ---- exports ----------------------------------------------------------------------------

    STANDING_COLUMNS = ("group", "rank", "name", "club", "played", "won", "drawn", "lost", "points", "score",
                        "innings", "average", "high_run")
    MATCH_COLUMNS = ("id", "stage", "group", "round", "status", "table", "name_A", "club_A", "target_A",
                     "score_A", "innings_A", "average_A", "high_run_A", "name_B", "club_B", "target_B", "score_B",
                     "innings_B", "average_B", "high_run_B", "result", "winner", "ended_by")

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
                    w.writerow([_cell(g["group"] if c == "group" else r[c]) for c in self.STANDING_COLUMNS])
        if kind == "all":
            w.writerow([])
        if kind in ("all", "matches"):
            w.writerow(self.MATCH_COLUMNS)
            for m in self.matches():
                w.writerow([_cell(m[c]) for c in self.MATCH_COLUMNS])
        return out.getvalue()

    def export_json(self):
        """Everything but the reports' innings: settings, players, tables, standings, bracket, matches."""
        with self._tx(False):  # one snapshot
            doc = {"tournament": 1, "settings": self.settings(), "players": self.players(), "tables": self.tables(),
                   "standings": self.standings(), "bracket": self.bracket(), "matches": self.matches(),
                   "champion": self.champion()}
        return json.dumps(doc, ensure_ascii=False, indent=1)

    def export_html(self):
        """A printable page (the browser's print makes the PDF): standings, bracket, matches.  Every
        text is escaped."""
        with self._tx(False):  # one snapshot
            return self._html()

    def _html(self):
        s = self.settings()
        e = _esc
        parts = ["<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>\n<style>%s</style>"
                 "</head><body>" % (e(s["name"] or "Tournament"), _CSS),
                 "<h1>%s</h1>" % e(s["name"] or "Tournament"),
                 "<p class=\"sub\">%s &middot; %s</p>" % (e(_game_line(s)), e(FORMAT_NAMES[s["format"]]))]
        champ = self.champion()
        if champ:
            parts.append("<p class=\"champ\">Winner: %s</p>" % e(champ))
        for g in self.standings():
            parts.append("<section><h2>%s</h2><table><tr>%s</tr>" % (
                e("Group " + g["group"] if g["group"] else "Players"),
                "".join("<th>%s</th>" % c for c in ("#", "Name", "Club", "P", "W", "D", "L", "Pts", "Score",
                                                    "Inn", "GD", "HR"))))
            for r in g["rows"]:
                parts.append("<tr>%s</tr>" % "".join("<td>%s</td>" % e(r[c]) for c in (
                    "rank", "name", "club", "played", "won", "drawn", "lost", "points", "score", "innings",
                    "average", "high_run")))
            parts.append("</table></section>")
        bracket = self.bracket()
        if bracket:
            parts.append("<section class=\"bracket\"><h2>Knock-out</h2><div class=\"heads\">%s</div>"
                         "<div class=\"rounds\">" % "".join("<h3>%s</h3>" % e(r["name"]) for r in bracket))
            for rnd in bracket:
                parts.append("<div class=\"round\">")
                for m in rnd["matches"]:
                    parts.append("<div class=\"m %s\">%s%s%s</div>" % (
                        e(m["status"]), _html_side(m, "A"), _html_side(m, "B"),
                        "<div class=\"so\">shoot-out</div>" if m["ended_by"] == "shootout" else ""))
                parts.append("</div>")
            parts.append("</div></section>")
        rounds = len(bracket)
        parts.append("<section><h2>Matches</h2><table><tr>%s</tr>" % "".join(
            "<th>%s</th>" % c for c in ("No.", "Stage", "Table", "A", "Score", "Inn", "B", "Score", "Inn",
                                        "Result", "Status")))
        for m in self.matches():
            stage = ("Group %s, round %d" % (m["group"], m["round"]) if m["stage"] == "group"
                     else round_name(m["round"], rounds))
            result = m["winner"] or m["result"]
            if result and m["ended_by"] in ("shootout", "left", "abandoned", "innings_limit"):
                result += " (%s)" % m["ended_by"].replace("_", " ").replace("shootout", "shoot-out")
            parts.append("<tr>%s</tr>" % "".join("<td>%s</td>" % e(v) for v in (
                m["id"], stage, m["table"], m["name_A"] or m["label_A"], m["score_A"],
                m["innings_A"], m["name_B"] or m["label_B"], m["score_B"], m["innings_B"], result, m["status"])))
        parts.append("</table></section></body></html>\n")
        return "".join(parts)


# ---- helpers -------------------------------------------------------------------------------

_CSS = ("body{font:12pt sans-serif;margin:1.5em;color:#000;background:#fff}h1{margin:0}.sub{color:#444}"
        "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #999;padding:.15em .5em;"
        "text-align:left}section{break-inside:avoid}.rounds,.heads{display:flex;gap:1em}.heads h3,.round"
        "{flex:1;min-width:12em;margin:.3em 0}.round{display:flex;flex-direction:column;justify-content:space-around;"
        "gap:.6em}.m{border:1px solid #999}.m div{padding:.1em .4em}.m .w{font-weight:bold}.m .so{font-size:9pt;"
        "color:#444}.m.bye{border-style:dashed;color:#666}.champ{font-size:14pt;font-weight:bold}"
        "@media print{body{margin:0}@page{margin:1.5cm}}")


def _html_side(m, side):
    name = m["name_" + side] or m["label_" + side] or ""
    score = m["score_" + side]
    win = m["winner"] is not None and m["winner"] == m["name_" + side]
    return "<div%s>%s%s</div>" % (" class=\"w\"" if win else "", _esc(name),
                                   "" if score is None else " <b>%s</b>" % _esc(score))


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


def _count(v):
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _ratio(score, innings):
    return score / innings if innings else 0.0


def _gd(score, innings):
    """GD with three decimals, half up (as the board: rules.Match.average_x1000); None unplayed."""
    if score is None or innings is None:
        return None
    if not innings:
        return 0.0
    return ((score * 2000 + innings) // (2 * innings)) / 1000


def _letter(g):
    return None if g is None else GROUP_LETTERS[g]


def _show(v):
    s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


def _text(v, what, most, empty=False):
    if not isinstance(v, str):
        raise ValueError("%s: %s is not text" % (what, _show(v)))
    if _CONTROL.search(v):
        raise ValueError("%s: %s has a control character" % (what, _show(v)))
    if not empty and not v.strip():
        raise ValueError("%s: empty" % what)
    if v != v.strip():
        raise ValueError("%s: %s begins or ends with a space" % (what, _show(v)))
    if len(v) > most:
        raise ValueError("%s: %s is %d characters long (at most %d%s)" % (
            what, _show(v), len(v), most, ": a board shows no more" if most == MAX_NAME else ""))
    return v


def _int(v, what, lo, hi):
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ValueError("%s: %s is not a whole number in %d..%d" % (what, _show(v), lo, hi))
    return v


def _table(v):
    if not isinstance(v, str) or not TABLE_ID.match(v):
        raise ValueError("table: %s is not a table id ([a-z0-9_-], 1 to 24 characters)" % _show(v))
    return v


def impossible(report, setup=None):
    """Why a finished match's report cannot be true, or None: each player's runs add up to the
    score and number the innings, the high run is one of them; in a game that is not played in
    sets, no score passes its target, the winner is who the rules say (the
    larger share of one's own target, at the target or the innings limit: rules.py) and a draw
    is level; the targets are at least the setup's (an extension raises them)."""
    try:
        a, b = report["players"]["A"], report["players"]["B"]
        for side, p in (("A", a), ("B", b)):
            runs = p["runs"]
            if len(runs) != p["innings"]:
                return "%s has %d innings but %d runs" % (side, p["innings"], len(runs))
            if sum(runs) != p["score"]:
                return "%s's score is %d but its runs add up to %d" % (side, p["score"], sum(runs))
            if runs and max(runs) > p["high_run"]:
                return "%s's high run is %d but a run is %d" % (side, p["high_run"], max(runs))
        if report.get("sets"):
            return None  # the scores are the last set's: the sets' own counts decide
        for side, p in (("A", a), ("B", b)):
            if p["score"] > p["target"]:
                return "%s scored %d of a target of %d" % (side, p["score"], p["target"])
        share_a, share_b = a["score"] * b["target"], b["score"] * a["target"]
        result, ended = report.get("result"), report.get("ended_by")
        if ended in ("target", "innings_limit"):
            if result == "draw" and share_a != share_b:
                return "a draw at %d-%d" % (a["score"], b["score"])
            if (result == "A" and share_a < share_b) or (result == "B" and share_b < share_a):
                return "%s won at %d-%d" % (result, a["score"], b["score"])
            if ended == "target" and result in ("A", "B"):
                w = a if result == "A" else b
                if w["score"] != w["target"]:
                    return "%s won at its target with %d of %d" % (result, w["score"], w["target"])
        if setup:
            m = setup.get("match") or {}
            want = (m.get("target_A") or m.get("target"), m.get("target_B") or m.get("target"))
            got = sorted((a["target"], b["target"]))
            if None not in want and (got[0] < min(want) or got[1] < max(want)):
                want = sorted(want)
                return "targets %d and %d, below the setup's %s and %s" % (got[0], got[1], want[0], want[1])
    except (KeyError, TypeError, ValueError):
        return "not a report of this match's shape"
    return None


def _names(doc):
    """[name A, name B] of a state document or report, or None."""
    try:
        names = [doc["players"][s]["name"] for s in ("A", "B")]
    except (KeyError, TypeError):
        return None
    return names if all(isinstance(n, str) for n in names) else None


_config = None


def _config_module():
    global _config
    if _config is None:
        firmware_path()
        import config

        _config = config
    return _config


def match_section(options):
    """config.json's "match" section from the tournament's game options, normalized (every key);
    ValueError in config.py's words.  target_A/target_B come from the players, not from here."""
    if not isinstance(options, dict):
        raise ValueError("game_options: %s is not an object" % _show(options))
    for k in ("target_A", "target_B"):
        if k in options:
            raise ValueError("game_options: %s comes from the players' handicaps (add_player's target or "
                             "average)" % k)
    return _config_module().normalize({"match": options}, "game_options")["match"]


def check_setup(setup):
    """A setup must pass the board's own schema (config.py) for "players" and "match"."""
    _config_module().normalize({"players": setup["players"], "match": setup["match"]}, "setup")


def circle(players):
    """Round robin rounds by the circle method: [[(a, b), ...], ...]; a bye (odd count) is left out.
    The first player stays put and the others turn round him; his side alternates."""
    ring = list(players)
    if len(ring) % 2:
        ring.append(None)
    n = len(ring)
    rounds = []
    for r in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if i == 0 and r % 2:
                a, b = b, a
            if a is not None and b is not None:
                pairs.append((a, b))
        rounds.append(pairs)
        ring = [ring[0]] + [ring[-1]] + ring[1:-1]
    return rounds


def bracket_order(size):
    """Seeds in bracket order: 4 -> [1, 4, 2, 3]; 8 -> [1, 8, 4, 5, 2, 7, 3, 6]."""
    order = [1]
    while len(order) < size:
        n = 2 * len(order)
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


def crossed(groups, advance):
    """The knock-out's entrants after the groups, in seed order: [(label, None)].  Group winners are
    the first seeds (A1, B1, ...); each later place is dealt so that a player meets the partner
    group's (A-B, C-D, ...; an odd last group pairs with A) in round one, never his own group's."""
    q = groups * advance
    size = 1
    while size < q:
        size *= 2
    order = bracket_order(size)
    opp = {}
    for i in range(0, size, 2):
        opp[order[i]], opp[order[i + 1]] = order[i + 1], order[i]
    seeds = {g + 1: (g, 0) for g in range(groups)}
    for pos in range(1, advance):
        block = range(pos * groups + 1, (pos + 1) * groups + 1)
        free = list(range(groups))
        for s in sorted(block, key=lambda x: opp[x]):
            o = seeds.get(opp[s])
            if o is not None:
                partner = o[0] ^ 1 if (o[0] ^ 1) < groups else 0
                pick = partner if partner in free and partner != o[0] else next(
                    (g for g in free if g != o[0]), free[0])
            else:
                pick = free[0]
            seeds[s] = (pick, pos)
            free.remove(pick)
    return [("%s%d" % (GROUP_LETTERS[seeds[s][0]], seeds[s][1] + 1), None) for s in range(1, q + 1)]


def round_name(r, rounds):
    left = rounds - r
    return {0: "Final", 1: "Semi-finals", 2: "Quarter-finals"}.get(left, "Round of %d" % (2 ** (left + 1)))

"""The tournament's SQLite file: its tables, a transaction for every change, the settings' rows.

One SQLite file (the standard library's sqlite3) holds everything.  Every change is one transaction
(BEGIN IMMEDIATE, WAL journal), so two Tournament objects on the same file see the same tournament and
never half of a change."""

import json
import sqlite3
import threading

SCHEMA_VERSION = 2
ACTIVE = ("assigned", "waiting", "playing")  # a match that holds its table
CLOSED = ("done", "annulled")  # a match that is over: played, a walkover, or annulled by a withdrawal

# Columns added since version 1, each with its declaration: a version-1 file gets them when it is
# opened (ALTER TABLE ... ADD COLUMN; the rows it has keep their values, the new columns NULL or
# their default), then its version is written as 2.  Nothing is ever removed.
_ADDED = (
    ("players", "status", "TEXT NOT NULL DEFAULT 'in'"),  # in, withdrawn, excluded
    ("players", "note", "TEXT"),  # why he is out (the page and the exports show it)
    ("matches", "entry", "TEXT"),  # how its result came: NULL a board's report, hand, walkover
    ("matches", "note", "TEXT"),  # a walkover's or an annulment's why
)

_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, club TEXT NOT NULL DEFAULT '',
    target INTEGER, average REAL, seed INTEGER, grp INTEGER, status TEXT NOT NULL DEFAULT 'in', note TEXT);
CREATE TABLE IF NOT EXISTS tables (table_id TEXT PRIMARY KEY, added INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY, stage TEXT NOT NULL, grp INTEGER, round INTEGER NOT NULL, slot INTEGER NOT NULL,
    a INTEGER REFERENCES players(id), b INTEGER REFERENCES players(id), label_a TEXT, label_b TEXT,
    status TEXT NOT NULL DEFAULT 'pending', table_id TEXT, setup TEXT, target_a INTEGER, target_b INTEGER,
    result TEXT, winner INTEGER REFERENCES players(id), score_a INTEGER, score_b INTEGER,
    innings_a INTEGER, innings_b INTEGER, hr_a INTEGER, hr_b INTEGER, ended_by TEXT,
    started_at INTEGER, report_fp TEXT, report TEXT, assigned_at REAL, done_at REAL, entry TEXT, note TEXT);
CREATE INDEX IF NOT EXISTS matches_table ON matches(table_id, status);
CREATE TABLE IF NOT EXISTS reports (
    table_id TEXT NOT NULL, fp TEXT NOT NULL, match_id INTEGER, received_at REAL NOT NULL, reason TEXT,
    players TEXT, report TEXT, PRIMARY KEY (table_id, fp));
"""


class Store:
    """The file under a Tournament: opened (created if missing) and checked in __init__; _tx() for
    one transaction, _meta/_set_meta for the settings' rows."""

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
                elif int(row[0]) == 1:
                    _migrate(db)
                elif int(row[0]) != SCHEMA_VERSION:
                    raise ValueError(
                        "%s: a tournament file of schema version %s (this carom reads %d)"
                        % (self.path, row[0], SCHEMA_VERSION)
                    )
        except sqlite3.DatabaseError as e:
            raise ValueError(
                "%s: cannot be used as a tournament file: not a tournament database, or it cannot "
                "be opened (%s)" % (self.path, e)
            ) from None
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
        return Store._Tx(self, write)

    def _meta(self, db, key, default=None):
        row = db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def _set_meta(self, db, key, value):
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))


def _migrate(db):
    """A version-1 file (before walkovers, withdrawals and hand-entered results) made version 2."""
    for table, column, decl in _ADDED:
        have = {r[1] for r in db.execute("PRAGMA table_info(%s)" % table)}
        if column not in have:
            db.execute("ALTER TABLE %s ADD COLUMN %s %s" % (table, column, decl))
    db.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION),))

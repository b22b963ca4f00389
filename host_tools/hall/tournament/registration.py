"""A tournament's settings, players and tables (a part of Tournament)."""

import math

from .store import ACTIVE
from .values import (
    FORMATS,
    HANDICAP_INNINGS,
    MAX_GROUPS,
    MAX_NAME,
    MAX_PLAYERS,
    MAX_TARGET,
    MAX_TITLE,
    WALKOVER_RULES,
    WITHDRAWAL_RULES,
    _int,
    _letter,
    _show,
    _table,
    _text,
    match_section,
    tiebreak_orders,
)


class Registration:
    """Settings, players and tables: what a tournament is given before its draw."""

    def settings(self):
        """name, format, groups, advance, handicap_innings, game_options (as given), drawn."""
        with self._tx(False) as db:
            return self._settings(db)

    def _settings(self, db):
        return {
            "name": self._meta(db, "name", ""),
            "format": self._meta(db, "format", "round_robin"),
            "groups": self._meta(db, "groups", 1),
            "advance": self._meta(db, "advance", 2),
            "handicap_innings": self._meta(db, "handicap_innings", HANDICAP_INNINGS),
            "game_options": self._meta(db, "game_options", {}),
            "drawn": self._meta(db, "drawn", False),
            "walkover": self._meta(db, "walkover", "uncounted"),
            "withdrawal": self._meta(db, "withdrawal", "stand"),
            "tiebreak": self._meta(db, "tiebreak", "umb"),
            "third_place": self._meta(db, "third_place", False),
        }

    def configure(
        self,
        name=None,
        game_options=None,
        format=None,
        groups=None,
        advance=None,
        handicap_innings=None,
        walkover=None,
        withdrawal=None,
        tiebreak=None,
        third_place=None,
    ):
        """Set what is given (None: unchanged).  Only the name may change once the draw is made.
        walkover: WALKOVER_RULES; withdrawal: WITHDRAWAL_RULES; tiebreak: a preset's name
        (TIEBREAK_PRESETS) or a list of CRITERIA; third_place: a knock-out's third-place match."""
        with self._tx() as db:
            drawn = self._meta(db, "drawn", False)
            if name is not None:
                self._set_meta(db, "name", _text(name, "name", MAX_TITLE, empty=True))
            rest = (
                game_options,
                format,
                groups,
                advance,
                handicap_innings,
                walkover,
                withdrawal,
                tiebreak,
                third_place,
            )
            if drawn and any(x is not None for x in rest):
                raise ValueError("the draw is made: the format, the game and the rules cannot change now")
            for key, value, allowed in (
                ("walkover", walkover, WALKOVER_RULES),
                ("withdrawal", withdrawal, WITHDRAWAL_RULES),
            ):
                if value is not None:
                    if value not in allowed:
                        raise ValueError("%s: %s is not one of %s" % (key, _show(value), ", ".join(allowed)))
                    self._set_meta(db, key, value)
            if tiebreak is not None:
                tiebreak_orders(tiebreak)
                self._set_meta(db, "tiebreak", tiebreak if isinstance(tiebreak, str) else list(tiebreak))
            if third_place is not None:
                if not isinstance(third_place, bool):
                    raise ValueError("third_place: %s is not true or false" % _show(third_place))
                self._set_meta(db, "third_place", third_place)
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
            if (
                isinstance(average, bool)
                or not isinstance(average, (int, float))
                or not math.isfinite(average)
                or not 0 < average <= 1000
            ):
                raise ValueError("average: %s is not a number above 0 (a GD such as 0.85)" % _show(average))
            average = float(average)
        if target is not None and average is not None:
            raise ValueError("give a target or an average, not both")
        with self._tx() as db:
            if self._meta(db, "drawn", False):
                raise ValueError("the draw is made: no more players")
            if db.execute("SELECT 1 FROM players WHERE name=?", (name,)).fetchone():
                raise ValueError(
                    "name: %s is already a player (names must differ: the boards' reports "
                    "are matched by them)" % _show(name)
                )
            if db.execute("SELECT COUNT(*) FROM players").fetchone()[0] >= MAX_PLAYERS:
                raise ValueError("at most %d players" % MAX_PLAYERS)
            cur = db.execute(
                "INSERT INTO players (name, club, target, average) VALUES (?, ?, ?, ?)", (name, club, target, average)
            )
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
            return [
                dict(
                    id=r["id"],
                    name=r["name"],
                    club=r["club"],
                    target=r["target"],
                    average=r["average"],
                    seed=r["seed"],
                    group=_letter(r["grp"]),
                    status=r["status"],
                    note=r["note"],
                    plays_to=self._target(db, r, opts),
                )
                for r in db.execute("SELECT * FROM players ORDER BY COALESCE(seed, id), id")
            ]

    def add_table(self, table_id):
        table_id = _table(table_id)
        with self._tx() as db:
            n = db.execute("SELECT COALESCE(MAX(added), 0) + 1 FROM tables").fetchone()[0]
            db.execute("INSERT OR IGNORE INTO tables VALUES (?, ?)", (table_id, n))

    def remove_table(self, table_id):
        """The table leaves; a match on it goes back to pending (its id returned, else None)."""
        table_id = _table(table_id)
        with self._tx() as db:
            row = db.execute(
                "SELECT id FROM matches WHERE table_id=? AND status IN (?, ?, ?)", (table_id,) + ACTIVE
            ).fetchone()
            if row:
                db.execute(
                    "UPDATE matches SET status='pending', table_id=NULL, setup=NULL, assigned_at=NULL WHERE id=?",
                    (row[0],),
                )
            db.execute("DELETE FROM tables WHERE table_id=?", (table_id,))
            return row[0] if row else None

    def tables(self):
        """[{table, match}]: the tournament's tables in the order added, each with its match id or None."""
        with self._tx(False) as db:
            out = []
            for (tid,) in db.execute("SELECT table_id FROM tables ORDER BY added").fetchall():
                row = db.execute(
                    "SELECT id FROM matches WHERE table_id=? AND status IN (?, ?, ?)", (tid,) + ACTIVE
                ).fetchone()
                out.append({"table": tid, "match": row[0] if row else None})
            return out

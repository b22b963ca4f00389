"""The tournament as read (a part of Tournament): its matches, standings and champion."""

from fractions import Fraction

from ... import gd
from .values import HANDICAP_INNINGS, _letter, _show, match_section, tiebreak_orders


class Standings:
    """matches(), match(), standings(), champion(); _group_rows for the knock-out's group places."""

    def _player_map(self, db):
        return {r["id"]: r for r in db.execute("SELECT * FROM players")}

    def _row(self, m, players):
        def pl(pid):
            return players[pid] if pid is not None else None

        a, b = pl(m["a"]), pl(m["b"])
        out = {
            "id": m["id"],
            "stage": m["stage"],
            "group": _letter(m["grp"]),
            "round": m["round"],
            "slot": m["slot"],
            "status": m["status"],
            "table": m["table_id"],
            "label_A": m["label_a"],
            "label_B": m["label_b"],
            "name_A": a["name"] if a else None,
            "club_A": a["club"] if a else None,
            "name_B": b["name"] if b else None,
            "club_B": b["club"] if b else None,
            "target_A": m["target_a"],
            "target_B": m["target_b"],
            "score_A": m["score_a"],
            "innings_A": m["innings_a"],
            "average_A": gd.value(m["score_a"], m["innings_a"]),
            "high_run_A": m["hr_a"],
            "score_B": m["score_b"],
            "innings_B": m["innings_b"],
            "average_B": gd.value(m["score_b"], m["innings_b"]),
            "high_run_B": m["hr_b"],
            "result": m["result"],
            "winner": players[m["winner"]]["name"] if m["winner"] is not None else None,
            "ended_by": m["ended_by"],
            "started_at": m["started_at"],
            "entry": m["entry"] or ("board" if m["report"] else None),  # board, hand or walkover
            "note": m["note"],
            "third_place": m["stage"] == "knockout" and m["slot"] == THIRD_PLACE_SLOT,
        }
        return out

    def matches(self):
        """Every match: id, stage (group/knockout), group, round, slot, status, table, players (or the
        labels of whom they wait for: A1, W12), targets, scores, innings, GD, high runs, result, winner."""
        with self._tx(False) as db:
            players = self._player_map(db)
            return [
                self._row(m, players)
                for m in db.execute("SELECT * FROM matches ORDER BY stage='knockout', round, slot, grp, id")
            ]

    def match(self, match_id):
        with self._tx(False) as db:
            m = db.execute("SELECT * FROM matches WHERE id=?", (match_id,)).fetchone()
            if m is None:
                raise ValueError("no match %s" % _show(match_id))
            return self._row(m, self._player_map(db))

    def _group_rows(self, db, g, order=None):
        """One group's standings (g None: every player over every match), ordered by the
        tournament's tie-break (`order`: these criteria instead); each row says which criterion
        parted it from the row above when the first did not (tie_break), and a player who
        withdrew or was excluded comes after those still in."""
        if g is None:
            plist = db.execute("SELECT * FROM players ORDER BY COALESCE(seed, id)").fetchall()
            ms = db.execute("SELECT * FROM matches WHERE status IN ('done', 'undecided')").fetchall()
        else:
            plist = db.execute("SELECT * FROM players WHERE grp=? ORDER BY seed", (g,)).fetchall()
            ms = db.execute("SELECT * FROM matches WHERE stage='group' AND grp=? AND status='done'", (g,)).fetchall()
        rows = {p["id"]: _empty_row(p) for p in plist}
        for m in ms:
            for pid, other, sc, inn, hr in (
                (m["a"], m["b"], m["score_a"], m["innings_a"], m["hr_a"]),
                (m["b"], m["a"], m["score_b"], m["innings_b"], m["hr_b"]),
            ):
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
        order = order or tiebreak_orders(self._settings(db)["tiebreak"])[0]
        expected = self._expected(db, plist) if "gd_share" in order else {}
        return _ranked(list(rows.values()), order, expected)

    def _expected(self, db, plist):
        """Each player's expected average, exactly: his own target / the innings it is reckoned over
        (the game's innings limit, else handicap_innings): gd_share's divisor."""
        opts = match_section(self._meta(db, "game_options", {}))
        n = opts["innings_limit"] or self._meta(db, "handicap_innings", HANDICAP_INNINGS)
        return {p["id"]: Fraction(self._target(db, p, opts), n) for p in plist}

    def places(self):
        """The groups' places compared across the groups, by the tie-break's order across groups
        (CEB: GD, then the high run; match points not used): [{place, rows}], place 1 the group
        winners, 2 the runners-up, ... (rows as in standings(), each with its group)."""
        with self._tx(False) as db:
            s = self._settings(db)
            if not s["drawn"] or s["format"] == "knockout" or s["groups"] < 2:
                return []
            across = tiebreak_orders(s["tiebreak"])[1]
            by_place = {}
            for g in range(s["groups"]):
                for r in self._group_rows(db, g):
                    by_place.setdefault(r["rank"], []).append(dict(r, group=_letter(g)))
            out = []
            for place in sorted(by_place):
                plist = [
                    db.execute("SELECT * FROM players WHERE id=?", (r["player_id"],)).fetchone()
                    for r in by_place[place]
                ]
                expected = self._expected(db, plist) if "gd_share" in across else {}
                out.append({"place": place, "rows": _ranked(by_place[place], across, expected)})
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

    def champion(self):
        """The knock-out's winner's name (or the round robin's leader once all is played), else None."""
        with self._tx(False) as db:
            final = db.execute(
                "SELECT winner, status FROM matches WHERE stage='knockout' AND slot>=0 ORDER BY round DESC LIMIT 1"
            ).fetchone()
            if final is not None:
                return self._player_map(db)[final[0]]["name"] if final[1] == "done" and final[0] is not None else None
        if any(m["status"] != "done" for m in self.matches()):
            return None
        st = self.standings()
        return st[0]["rows"][0]["name"] if len(st) == 1 and st[0]["rows"] else None


THIRD_PLACE_SLOT = -1  # the third-place match: in the final's round, before the final (bracket.py)


def _empty_row(p):
    return {
        "player_id": p["id"],
        "name": p["name"],
        "club": p["club"],
        "seed": p["seed"],
        "status": p["status"],
        "note": p["note"],
        "played": 0,
        "won": 0,
        "drawn": 0,
        "lost": 0,
        "points": 0,
        "score": 0,
        "innings": 0,
        "high_run": 0,
    }


def _measure(r, criterion, expected):
    """A row's value for a criterion, exact (GD a Fraction: points x innings compared crosswise)."""
    if criterion == "points":
        return r["points"]
    if criterion == "gd":
        return gd.ratio(r["score"], r["innings"])
    if criterion == "gd_share":
        want = expected.get(r["player_id"])
        return gd.ratio(r["score"], r["innings"]) / want if want else Fraction(0)
    return r["high_run"]


def _ranked(rows, order, expected):
    """The rows sorted: those still in first, then by each criterion (larger first), the seeding,
    the id; rank, average (GD truncated to three decimals) and tie_break written in each."""

    def key(r):
        return (
            (r["status"] != "in",) + tuple(-_measure(r, c, expected) for c in order) + (r["seed"] or 0, r["player_id"])
        )

    out = sorted(rows, key=key)
    for k, r in enumerate(out):
        r["rank"] = k + 1
        r["average"] = gd.value(r["score"], r["innings"])
        r["tie_break"] = None
        if k and r["status"] == "in":
            above = out[k - 1]
            parted = next((c for c in order if _measure(r, c, expected) != _measure(above, c, expected)), "seed")
            r["tie_break"] = None if parted == order[0] else parted
    return out

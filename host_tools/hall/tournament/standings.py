"""The tournament as read (a part of Tournament): its matches, standings and champion."""

from .values import _letter, _show


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
            "average_A": _gd(m["score_a"], m["innings_a"]),
            "high_run_A": m["hr_a"],
            "score_B": m["score_b"],
            "innings_B": m["innings_b"],
            "average_B": _gd(m["score_b"], m["innings_b"]),
            "high_run_B": m["hr_b"],
            "result": m["result"],
            "winner": players[m["winner"]]["name"] if m["winner"] is not None else None,
            "ended_by": m["ended_by"],
            "started_at": m["started_at"],
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

    def _group_rows(self, db, g):
        """One group's standings (g None: every player over every match)."""
        if g is None:
            plist = db.execute("SELECT * FROM players ORDER BY COALESCE(seed, id)").fetchall()
            ms = db.execute("SELECT * FROM matches WHERE status IN ('done', 'undecided')").fetchall()
        else:
            plist = db.execute("SELECT * FROM players WHERE grp=? ORDER BY seed", (g,)).fetchall()
            ms = db.execute("SELECT * FROM matches WHERE stage='group' AND grp=? AND status='done'", (g,)).fetchall()
        rows = {
            p["id"]: {
                "player_id": p["id"],
                "name": p["name"],
                "club": p["club"],
                "seed": p["seed"],
                "played": 0,
                "won": 0,
                "drawn": 0,
                "lost": 0,
                "points": 0,
                "score": 0,
                "innings": 0,
                "high_run": 0,
            }
            for p in plist
        }
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
        out = sorted(
            rows.values(),
            key=lambda r: (
                -r["points"],
                -_ratio(r["score"], r["innings"]),
                -r["high_run"],
                r["seed"] or 0,
                r["player_id"],
            ),
        )
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

    def champion(self):
        """The knock-out's winner's name (or the round robin's leader once all is played), else None."""
        with self._tx(False) as db:
            final = db.execute(
                "SELECT winner, status FROM matches WHERE stage='knockout' ORDER BY round DESC LIMIT 1"
            ).fetchone()
            if final is not None:
                return self._player_map(db)[final[0]]["name"] if final[1] == "done" else None
        if any(m["status"] != "done" for m in self.matches()):
            return None
        st = self.standings()
        return st[0]["rows"][0]["name"] if len(st) == 1 and st[0]["rows"] else None


def _ratio(score, innings):
    return score / innings if innings else 0.0


def _gd(score, innings):
    """GD with three decimals, half up (as the board: rules.Match.average_x1000); None unplayed."""
    if score is None or innings is None:
        return None
    if not innings:
        return 0.0
    return ((score * 2000 + innings) // (2 * innings)) / 1000

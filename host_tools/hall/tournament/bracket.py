"""The knock-out (a part of Tournament): the seeded bracket, the group places crossed into it, the
winners moved on to their next match."""

from .standings import THIRD_PLACE_SLOT
from .values import GROUP_LETTERS, _letter


class Bracket:
    """The knock-out's matches made at the draw, filled as results come (_advance), read (bracket())."""

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
            db.execute(
                "INSERT INTO matches (stage, round, slot, a, b, label_a, label_b, status) VALUES "
                "('knockout', 1, ?, ?, ?, ?, ?, ?)",
                (slot, a, b, la, lb or "bye", status),
            )
        for rnd in range(2, rounds + 1):
            for slot in range(size >> rnd):
                feeders = [
                    db.execute(
                        "SELECT id FROM matches WHERE stage='knockout' AND round=? AND slot=?", (rnd - 1, 2 * slot + k)
                    ).fetchone()[0]
                    for k in (0, 1)
                ]
                db.execute(
                    "INSERT INTO matches (stage, round, slot, label_a, label_b) VALUES ('knockout', ?, ?, ?, ?)",
                    (rnd, slot, "W%d" % feeders[0], "W%d" % feeders[1]),
                )
        if rounds >= 2 and self._meta(db, "third_place", False):  # the semi-finals' losers, before the final
            semis = [
                r[0]
                for r in db.execute(
                    "SELECT id FROM matches WHERE stage='knockout' AND round=? ORDER BY slot", (rounds - 1,)
                ).fetchall()
            ]
            db.execute(
                "INSERT INTO matches (stage, round, slot, label_a, label_b) VALUES ('knockout', ?, ?, ?, ?)",
                (rounds, THIRD_PLACE_SLOT, "L%d" % semis[0], "L%d" % semis[1]),
            )

    def _advance(self, db):
        """Fill the knock-out's pending matches with who is known: group places once a group is
        done, winners (and the third-place match's losers) of the matches before; byes go through;
        a match of a player who withdrew or was excluded is a walkover (corrections.py).  Run after
        every change."""
        s = self._settings(db)
        if not s["drawn"]:
            return
        changed = True
        while changed:
            changed = self._forfeit_pending(db)
            if s["format"] == "round_robin":
                continue
            places = self._group_places(db, s)
            rows = db.execute(
                "SELECT * FROM matches WHERE stage='knockout' AND status IN ('pending', 'bye') ORDER BY round, slot"
            ).fetchall()
            for m in rows:
                changed = self._fill(db, m, places) or changed

    def _group_places(self, db, s):
        """{"A1": player id, ...} of every group whose matches are all over."""
        places = {}
        if s["format"] == "groups_knockout":
            for g in range(s["groups"]):
                open_ = db.execute(
                    "SELECT COUNT(*) FROM matches WHERE stage='group' AND grp=? AND status NOT IN ('done', 'annulled')",
                    (g,),
                ).fetchone()[0]
                if not open_:
                    for k, row in enumerate(self._group_rows(db, g)):
                        places["%s%d" % (_letter(g), k + 1)] = row["player_id"]
        return places

    def _side(self, db, label, known, places):
        """(player id or None, whether nobody ever comes there) of a knock-out match's side."""
        if label is None:
            return known, False
        if label == "bye":
            return None, True
        if label[0] in "WL" and label[1:].isdigit():
            f = db.execute("SELECT * FROM matches WHERE id=?", (int(label[1:]),)).fetchone()
            if f["result"] == "void":  # a match both of whose players were out: nobody comes from it
                return None, True
            if label[0] == "W":
                return (f["winner"] if f["status"] in ("done", "bye") else None), False
            if f["status"] == "bye":  # a bye has no loser
                return None, True
            if f["status"] == "done" and f["winner"] is not None:
                return (f["a"] if f["winner"] == f["b"] else f["b"]), False
            return None, False
        if label in places:
            return places[label], False
        return (known if label.isdigit() else None), False

    def _fill(self, db, m, places):
        """One pending knock-out match filled (its players, or a bye); whether it changed."""
        (a, none_a), (b, none_b) = (
            self._side(db, m["label_a"], m["a"], places),
            self._side(db, m["label_b"], m["b"], places),
        )
        status, winner, result = m["status"], m["winner"], m["result"]
        if none_a and none_b:
            status, winner, result = "bye", None, "void"
        elif none_b:
            status, winner = "bye", a
        elif none_a:
            status, winner = "bye", b
        if [a, b] != [m["a"], m["b"]] or (status, winner, result) != (m["status"], m["winner"], m["result"]):
            db.execute(
                "UPDATE matches SET a=?, b=?, status=?, winner=?, result=? WHERE id=?",
                (a, b, status, winner, result, m["id"]),
            )
            return True
        return False

    def bracket(self):
        """The knock-out's rounds: [{round, name, matches}] (matches as in matches()), the final last."""
        with self._tx(False) as db:
            players = self._player_map(db)
            ms = db.execute("SELECT * FROM matches WHERE stage='knockout' ORDER BY round, slot").fetchall()
            rounds = max((m["round"] for m in ms), default=0)
            out = [
                {
                    "round": r,
                    "name": round_name(r, rounds),
                    "matches": [self._row(m, players) for m in ms if m["round"] == r and m["slot"] != THIRD_PLACE_SLOT],
                }
                for r in range(1, rounds + 1)
            ]
            third = [self._row(m, players) for m in ms if m["slot"] == THIRD_PLACE_SLOT]
            if third:
                out.append({"round": rounds, "name": "Third place", "matches": third})
            return out


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
                pick = partner if partner in free and partner != o[0] else next((g for g in free if g != o[0]), free[0])
            else:
                pick = free[0]
            seeds[s] = (pick, pos)
            free.remove(pick)
    return [("%s%d" % (GROUP_LETTERS[seeds[s][0]], seeds[s][1] + 1), None) for s in range(1, q + 1)]


def round_name(r, rounds):
    left = rounds - r
    return {0: "Final", 1: "Semi-finals", 2: "Quarter-finals"}.get(left, "Round of %d" % (2 ** (left + 1)))

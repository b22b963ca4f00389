"""The draw (a part of Tournament): the seeding, the round-robin groups and their rounds."""

import random

from .bracket import crossed
from .values import _show

MAX_GROUP = 64  # players in a round-robin group (2,016 matches)
MAX_MATCHES = (
    2048  # group matches in a draw: the tournament's event to the pages stays about 1 MB (a 64-player round robin fits)
)


class Draw:
    """draw(): the players seeded, dealt into groups (or a bracket), every match paired."""

    def draw(self, seed=None):
        """Pair the matches.  The seeding is the order the players were added (the first is seed 1),
        or with `seed` (an int) a random order, the same for the same seed."""
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ValueError("seed: %s is not an integer" % _show(seed))
        with self._tx() as db:
            s = self._settings(db)
            if s["drawn"]:
                raise ValueError("the draw is made already")
            ids = self._seeded(db, seed)
            fmt, groups, advance = s["format"], s["groups"], s["advance"]
            if fmt == "knockout":
                self._bracket(db, [("%d" % (k + 1), pid) for k, pid in enumerate(ids)])
            else:
                members = self._group_stage(db, ids, groups)
                if fmt == "groups_knockout":
                    _check_advance(groups, advance, members)
                    self._bracket(db, crossed(groups, advance))
            self._set_meta(db, "drawn", True)
            self._advance(db)

    def _seeded(self, db, seed):
        """The players' ids in the seeding's order (see draw()), each player's seed written."""
        ids = [r[0] for r in db.execute("SELECT id FROM players ORDER BY id")]
        if len(ids) < 2:
            raise ValueError("a draw needs 2 players at least (there are %d)" % len(ids))
        if seed is not None:
            random.Random(seed).shuffle(ids)
        for k, pid in enumerate(ids):
            db.execute("UPDATE players SET seed=? WHERE id=?", (k + 1, pid))
        return ids

    def _group_stage(self, db, ids, groups):
        """The seeded players dealt into `groups` round-robin groups, each player's group written
        and every group match paired: the groups' members."""
        _check_groups(len(ids), groups)
        members = _dealt(ids, groups)
        for g, group in enumerate(members):
            for pid in group:
                db.execute("UPDATE players SET grp=? WHERE id=?", (g, pid))
            for rnd, pairs in enumerate(circle(group)):
                for slot, (a, b) in enumerate(pairs):
                    db.execute(
                        "INSERT INTO matches (stage, grp, round, slot, a, b) VALUES ('group', ?, ?, ?, ?, ?)",
                        (g, rnd + 1, slot, a, b),
                    )
        return members


def _check_groups(players, groups):
    """ValueError unless `players` make `groups` round-robin groups of 2 to MAX_GROUP players with
    MAX_MATCHES matches at most in all."""
    if players < 2 * groups:
        raise ValueError("%d groups need %d players at least (there are %d)" % (groups, 2 * groups, players))
    if players > groups * MAX_GROUP:
        raise ValueError(
            "groups: %d players in %d would make a group of more than %d players" % (players, groups, MAX_GROUP)
        )
    size, extra = divmod(players, groups)  # the groups' sizes: size, or size + 1 for `extra` of them
    total = extra * (size + 1) * size // 2 + (groups - extra) * size * (size - 1) // 2
    if total > MAX_MATCHES:
        raise ValueError(
            "a draw of %d group matches: at most %d (a club day's; fewer players, or more"
            " groups)" % (total, MAX_MATCHES)
        )


def _dealt(ids, groups):
    """The seeded players dealt into `groups` groups snake-wise (seeds 1 to n over the groups, then
    back): [[id, ...] for each group]."""
    members = [[] for _ in range(groups)]
    for k, pid in enumerate(ids):
        lap, at = divmod(k, groups)
        g = at if lap % 2 == 0 else groups - 1 - at
        members[g].append(pid)
    return members


def _check_advance(groups, advance, members):
    """ValueError unless `advance` from each group make a knock-out: 2 players at least, and no
    more from a group than its players."""
    smallest = min(len(m) for m in members)
    if groups * advance < 2:
        raise ValueError("advance: 1 from 1 group leaves no knock-out (it needs 2 players)")
    if advance > smallest:
        raise ValueError("advance: %d from each group, but the smallest group has %d players" % (advance, smallest))


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

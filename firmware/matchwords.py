"""The words for the rules' codes that people read, and the limits a match's options keep.

A game, a foul's kind, a position call and a lag fault are small ints in the rules core
(indexes into these tuples). A module of its own, this small: the state document
(matchdoc.py), the configuration's schema (config.py), the saved match's snapshot
(store_snapshot.py) and the match's set-up (rules_setup.py) read them, each without loading
the others. rules.GAMES and the like come from here too (matchnames.py names them).
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


GAMES = ("straight_rail", "balkline_47_2", "balkline_47_1", "balkline_71_2", "one_cushion", "three_cushion")

# Foul kinds (I.9.2); "miss" is the empty inning, not counted as a foul;
# "other" is a foul whose kind the board was not told (a wall board's foul button).
FOULS = (
    "miss",
    "jumped",
    "moving_balls",
    "touched",
    "push",
    "foot",
    "marked_cushion",
    "wrong_ball",
    "zone",
    "time",
    "other",
)
CALLS = ("entre", "dedans", "a_cheval", "out")  # III.4.3b, straight rail and balkline; out: a ball left the area
LAG_FAULTS = ("touched", "short", "hit_red", "long_cushion")  # I.1

# The state document's names of a player and of a ball (bytes: a str would be interned for good
# when the module loads, bytes leave RAM with it). A player is 0 or 1, -1 nobody (rules.NOBODY).
PLAYERS = (b"A", b"B")
BALLS = (b"A", b"B", b"red")  # a jump's balls: bit k of rules.Match.respot_balls is BALLS[k]


def who(p):
    """A player's name in the state document; None for nobody."""
    return None if p < 0 else PLAYERS[p]


def seconds(ms):
    """Whole seconds left, rounded up (a clock shows 0 only when time is up); None for no clock."""
    return None if ms < 0 else (ms + 999) // 1000


MAX_TARGET = const(9999)  # the config's schema takes these too
MAX_INNINGS_LIMIT = const(999)

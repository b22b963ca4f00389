"""The formats beyond the original: sets, the shoot-out, the warm-up (rules.md, "Formats").

Part of rules.Match, in a module of its own so that a board playing a plain
match never has it in RAM: rules_setup.new() sets match.fmt to this module
when the match has sets, a shoot-out or a warm-up, and rules.py then calls
it at a few points (check, do, a draw, a finish, a checkpoint). Once
loaded it stays for the match, as rules.py does: nothing here allocates,
so the button path stays allocation-free in these matches too. What only
the rarer moments need (the warm-up, a set's end and the next set, the
shoot-out) is formats_rare.py's, loaded when such a moment may come (more(),
ready(): see there) and kept in `rare` until the next match.

Sets: first to `sets_to_win` sets, each to the targets (the deciding set,
both at N - 1, to `deciding_target` when given). A set won ends in phase
SET_OVER; `next_set` starts the next one (the breaker alternates; the
deciding set starts with a new lag). Scores, innings, runs and high runs
restart every set; the match keeps the sets' scores and its totals. A drawn
set may not stand: the shoot-out decides it, or else a tie-break.
Shoot-out: rounds of one inning each, the set's (match's) breaker first; the
longer run wins the round and the match (or set); equal runs play another.
Warm-up: `warmup A|B` before the first stroke starts that player's warm-up;
it ends after `warmup_ms` or with `resume`.

    match.fmt.check(match, code, arg)   # -1: not the formats' to decide
"""

import sys
from array import array

from matchnames import (
    END_ABANDONED,
    END_LEFT,
    E_BREAK,
    E_NEXT_SET,
    E_WARMUP,
    FORMATS_AT,
    NO_MEMORY,
    RUNNING,
    RUN_AT,
    R_TIEBREAK,
    SET_OVER,
    SHOOTOUT,
    WARMUP,
)
from rules import BREAK, EQUALIZING, LAG, NOBODY

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


MAX_SETS = const(9)  # sets_to_win at most: 17 sets
ROUNDS = const(32)  # shoot-out rounds kept (the newest; more are counted)

# Why an event is refused (reasons.py reads these lines; those formats_rare.py or rules.py return
# too are matchnames.py's).
_NO_SET_OVER = const(43)  # no set is over
_NO_WARMUP = const(45)  # no warm-up in this match
_BREAK_BETWEEN_SETS = const(48)  # in a set match the break is between sets


def init(m):
    """The fields of a match with formats (rules_setup.new; allocates, once per match). The
    previous match's formats_rare.py goes (it is kept here only)."""
    global rare
    rare = None
    m.sets_won = [0, 0]
    m.match_score = [0, 0]  # the sets finished so far, and their high runs
    m.match_high = [0, 0]
    m.set_scores = array("H", bytes(8 * MAX_SETS))  # the finished sets' scores: A's 2 * MAX_SETS, then B's
    m.so_runs = array("H", bytes(4 * ROUNDS))  # the shoot-out's rounds, A's then B's
    reset(m)


def reset(m):
    """The formats' state at the start of the match (rules.Match._reset)."""
    m.set_no = 1
    m.first_breaker = NOBODY
    m.so_round = 0  # shoot-out rounds finished
    m.so_base = 0  # where the shoot-out's first round is kept in so_runs (a later set's starts after it)
    m.warm_p = NOBODY
    m.warm_start = 0
    m.warm_back = LAG  # the phase the warm-up came from
    for p in (0, 1):
        m.sets_won[p] = 0
        m.match_score[p] = 0
        m.match_high[p] = 0


def save(m, st):
    st[FORMATS_AT] = m.set_no
    st[FORMATS_AT + 1] = m.first_breaker
    st[FORMATS_AT + 2] = m.so_round
    st[FORMATS_AT + 3] = m.warm_p
    st[FORMATS_AT + 4] = m.warm_start
    st[FORMATS_AT + 5] = m.warm_back
    for p in (0, 1):
        st[FORMATS_AT + 6 + p] = m.sets_won[p]
        st[FORMATS_AT + 8 + p] = m.match_score[p]
        st[FORMATS_AT + 10 + p] = m.match_high[p]
    # A shoot-out's run (during it, and after it ended the match or the set) is not one of
    # the players' innings: the checkpoint keeps it apart, and the shooter's own last run
    # where rules.Match._load puts it back into his runs.
    st[FORMATS_AT + 12] = m.run
    st[FORMATS_AT + 13] = m.so_base
    if m.shooter != NOBODY:
        st[RUN_AT] = m.run_of(m.shooter, m.played[m.shooter] - 1)


def load(m, st):
    """A checkpoint's fields (rules.Match._load, after the players' runs)."""
    m.set_no = st[FORMATS_AT]
    m.first_breaker = st[FORMATS_AT + 1]
    m.so_round = st[FORMATS_AT + 2]
    m.warm_p = st[FORMATS_AT + 3]
    m.warm_start = st[FORMATS_AT + 4]
    m.warm_back = st[FORMATS_AT + 5]
    for p in (0, 1):
        m.sets_won[p] = st[FORMATS_AT + 6 + p]
        m.match_score[p] = st[FORMATS_AT + 8 + p]
        m.match_high[p] = st[FORMATS_AT + 10 + p]
    m.run = st[FORMATS_AT + 12]
    m.so_base = st[FORMATS_AT + 13]
    if m.phase == SHOOTOUT:  # the round under way: its runs may be a later one's (undone)
        more().load(m)


# ---- what the formats decide -------------------------------------------------------


def check(m, code, arg):
    """Why an event may not be played in this match's format now (None: it may); -1 when it is
    not the formats' to decide (rules.Match._check goes on)."""
    phase = m.phase
    if code == E_WARMUP and not m.warmup_ms:
        return _NO_WARMUP
    if code == E_WARMUP or phase == WARMUP:  # a press that loads formats_rare.py, or during it
        return rare.check(m, code, arg) if rare is not None or _load(m) else NO_MEMORY
    if code == E_NEXT_SET:
        return None if phase == SET_OVER else _NO_SET_OVER
    if code == E_BREAK and m.sets_to_win and phase != SET_OVER:
        return _BREAK_BETWEEN_SETS if phase == RUNNING else -1
    if phase == SET_OVER or phase == BREAK and m.turn == NOBODY or phase == SHOOTOUT:
        return more().check(m, code, arg)  # between sets, in the shoot-out
    return -1


def do(m, code, arg, t):
    """Do an entry the formats handle; False when rules.py does it."""
    if (
        m.phase >= SHOOTOUT or code == E_WARMUP or code == E_NEXT_SET or m.phase == BREAK and m.turn == NOBODY
    ):  # formats_rare.py's (a break between sets)
        return more().do(m, code, arg, t)
    return False


def finish(m, result, how, t):
    """A level end that may not stand (a set's, or the match's with the shoot-out on):
    formats_rare.finish. Leaving or abandoning ends the match whatever the sets. False:
    rules.py ends the match as it would."""
    if how == END_LEFT or how == END_ABANDONED or not m.sets_to_win and not (m.shootout and result == R_TIEBREAK):
        return False
    return more().finish(m, result, how, t)


def summary(m, s):
    """controller.summary in the formats' phases (formats_rare.summary)."""
    return s if m.phase < SET_OVER else more().summary(m, s)


# ---- the rarer part (formats_rare.py): loaded once it may be needed, kept for the match --------

rare = None  # formats_rare, once loaded


def more():
    """formats_rare.py, loaded if need be (this allocates: at a warm-up's or next set's press, a
    replay, or when ready() could not load it ahead)."""
    global rare
    if rare is None:
        rare = __import__("formats_rare")
        if sys.implementation.name == "micropython":  # kept here only: gone with the match
            sys.modules.pop("formats_rare", None)  # (CPython keeps its modules, as cold.Rare does)
    return rare


def _load(m):
    try:
        more()
    except MemoryError:
        m.out_of_memory += 1
        return False
    return True


def ready(m):
    """False when an entry now might end a set or start the shoot-out and formats_rare.py could
    not be loaded for it (rules.Match._room: the event is refused for want of memory). The
    clock task calls it ahead of need (formats_wall.tick), as a level end comes near: the
    last points, the equalizing inning, the innings limit's last two rounds (or the level
    has ended)."""
    return (
        rare is not None
        or not (m.sets_to_win or m.shootout)
        or m.countdown() < 0
        and m.phase < EQUALIZING
        and not (m.innings_limit and m.innings[0] + m.innings[1] + 4 > 2 * m.innings_limit)
        or _load(m)
    )

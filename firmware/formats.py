"""The formats beyond the original: sets, the shoot-out, the warm-up (rules.md, "Formats").

Part of rules.Match, in a module of its own so that a board playing a plain
match never has it in RAM: matchsetup.new() sets match.fmt to this module
when the match has sets, a shoot-out or a warm-up, and rules.py then calls
it at a few points (check, do, a draw, a finish, a checkpoint). Once
loaded it stays for the match, as rules.py does: nothing here allocates,
so the button path stays allocation-free in these matches too. What only
the rarer moments need (the warm-up, a set's end and the next set, the
shoot-out) is formatsrare.py's, loaded when such a moment may come (more(),
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

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# rules.py's, compiled in here (a test checks them against matchnames.py's names).
_A = const(0)
_NOBODY = const(-1)
_LAG = const(0)
_RUNNING = const(1)
_BREAK = const(2)
_EQUALIZING = const(3)
_FINISHED = const(4)
_TIEBREAK = const(5)
_SET_OVER = const(6)
_SHOOTOUT = const(7)
_WARMUP = const(8)
_R_A = const(1)
_R_B = const(2)
_R_DRAW = const(3)
_R_TIEBREAK = const(4)
_END_LEFT = const(3)
_END_ABANDONED = const(5)
_END_SHOOTOUT = const(6)
_E_LAG = const(1)
_E_POINT = const(5)
_E_MISS = const(6)
_E_FOUL = const(7)
_E_BREAK = const(8)
_E_RESUME = const(9)
_E_TIMEOUT = const(13)
_E_BREAK_END = const(14)
_E_TIEBREAK = const(15)
_E_JUMPED = const(20)
_E_NEXT_SET = const(22)
_E_WARMUP = const(23)
_E_WARMUP_END = const(24)
_F_MISS = const(0)

MAX_SETS = const(9)  # sets_to_win at most: 17 sets
ROUNDS = const(32)  # shoot-out rounds kept (the newest; more are counted)
_AT = const(39)  # where a checkpoint keeps this module's fields (rules._N_STATE)
_RUN_AT = const(8)  # where it keeps the run (rules._FIELDS)
_NO_MEMORY = const(36)  # rules.py's refusal: no memory (here, for formatsrare.py)

# Why an event is refused (reasons.py reads these lines).
_SET_IS_OVER = const(42)  # the set is over: next_set starts the next one
_NO_SET_OVER = const(43)  # no set is over
_IN_WARMUP = const(44)  # a warm-up is on: resume ends it
_NO_WARMUP = const(45)  # no warm-up in this match
_WARMUP_LATE = const(46)  # the warm-up is before the first stroke
_NO_TIMEOUT_HERE = const(47)  # no time-out in a shoot-out
_BREAK_BETWEEN_SETS = const(48)  # in a set match the break is between sets
_BREAK_TAKEN = const(16)  # the break was taken already
_BREAK_OFF = const(18)  # no break in this match
_BAD_PLAYER = const(10)  # player must be A or B


def init(m):
    """The fields of a match with formats (matchsetup.new; allocates, once per match). The
    previous match's formatsrare.py goes (it is kept here only)."""
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
    m.first_breaker = _NOBODY
    m.so_round = 0  # shoot-out rounds finished
    m.so_base = 0  # where the shoot-out's first round is kept in so_runs (a later set's starts after it)
    m.warm_p = _NOBODY
    m.warm_start = 0
    m.warm_back = _LAG  # the phase the warm-up came from
    for p in (0, 1):
        m.sets_won[p] = 0
        m.match_score[p] = 0
        m.match_high[p] = 0


def save(m, st):
    st[_AT] = m.set_no
    st[_AT + 1] = m.first_breaker
    st[_AT + 2] = m.so_round
    st[_AT + 3] = m.warm_p
    st[_AT + 4] = m.warm_start
    st[_AT + 5] = m.warm_back
    for p in (0, 1):
        st[_AT + 6 + p] = m.sets_won[p]
        st[_AT + 8 + p] = m.match_score[p]
        st[_AT + 10 + p] = m.match_high[p]
    # A shoot-out's run (during it, and after it ended the match or the set) is not one of
    # the players' innings: the checkpoint keeps it apart, and the shooter's own last run
    # where rules.Match._load puts it back into his runs.
    st[_AT + 12] = m.run
    st[_AT + 13] = m.so_base
    if m.shooter != _NOBODY:
        st[_RUN_AT] = m.run_of(m.shooter, m.played[m.shooter] - 1)


def load(m, st):
    """A checkpoint's fields (rules.Match._load, after the players' runs)."""
    m.set_no = st[_AT]
    m.first_breaker = st[_AT + 1]
    m.so_round = st[_AT + 2]
    m.warm_p = st[_AT + 3]
    m.warm_start = st[_AT + 4]
    m.warm_back = st[_AT + 5]
    for p in (0, 1):
        m.sets_won[p] = st[_AT + 6 + p]
        m.match_score[p] = st[_AT + 8 + p]
        m.match_high[p] = st[_AT + 10 + p]
    m.run = st[_AT + 12]
    m.so_base = st[_AT + 13]
    if m.phase == _SHOOTOUT:  # the round under way: its runs may be a later one's (undone)
        more().load(m)


# ---- what the formats decide -------------------------------------------------------

def check(m, code, arg):
    """Why an event may not be played in this match's format now (None: it may); -1 when it is
    not the formats' to decide (rules.Match._check goes on)."""
    phase = m.phase
    if code == _E_WARMUP and not m.warmup_ms:
        return _NO_WARMUP
    if code == _E_WARMUP or phase == _WARMUP:  # a press that loads formatsrare.py, or during it
        return rare.check(m, code, arg) if rare is not None or _load(m) else _NO_MEMORY
    if code == _E_NEXT_SET:
        return None if phase == _SET_OVER else _NO_SET_OVER
    if code == _E_BREAK and m.sets_to_win and phase != _SET_OVER:
        return _BREAK_BETWEEN_SETS if phase == _RUNNING else -1
    if phase == _SET_OVER or phase == _BREAK and m.turn == _NOBODY or phase == _SHOOTOUT:
        return more().check(m, code, arg)  # between sets, in the shoot-out
    return -1


def do(m, code, arg, t):
    """Do an entry the formats handle; False when rules.py does it."""
    if (m.phase >= _SHOOTOUT or code == _E_WARMUP or code == _E_NEXT_SET
            or m.phase == _BREAK and m.turn == _NOBODY):  # formatsrare.py's (a break between sets)
        return more().do(m, code, arg, t)
    return False


def finish(m, result, how, t):
    """A level end that may not stand (a set's, or the match's with the shoot-out on):
    formatsrare.finish. Leaving or abandoning ends the match whatever the sets. False:
    rules.py ends the match as it would."""
    if how == _END_LEFT or how == _END_ABANDONED or not m.sets_to_win and not (m.shootout and result == _R_TIEBREAK):
        return False
    return more().finish(m, result, how, t)


def summary(m, s):
    """controller.summary in the formats' phases (formatsrare.summary)."""
    return s if m.phase < _SET_OVER else more().summary(m, s)


# ---- the rarer part (formatsrare.py): loaded once it may be needed, kept for the match --------

rare = None  # formatsrare, once loaded


def more():
    """formatsrare.py, loaded if need be (this allocates: at a warm-up's or next set's press, a
    replay, or when ready() could not load it ahead)."""
    global rare
    if rare is None:
        rare = __import__("formatsrare")
        if sys.implementation.name == "micropython":  # kept here only: gone with the match
            sys.modules.pop("formatsrare", None)  # (CPython keeps its modules, as cold.py does)
    return rare


def _load(m):
    try:
        more()
    except MemoryError:
        m.out_of_memory += 1
        return False
    return True


def ready(m):
    """False when an entry now might end a set or start the shoot-out and formatsrare.py could
    not be loaded for it (rules.Match._room: the event is refused for want of memory). The
    clock task calls it ahead of need (formatwall.tick), as a level end comes near: the
    last points, the equalizing inning, the innings limit's last two rounds (or the level
    has ended)."""
    return (rare is not None or not (m.sets_to_win or m.shootout)
            or m.countdown() < 0 and m.phase < _EQUALIZING
            and not (m.innings_limit and m.innings[0] + m.innings[1] + 4 > 2 * m.innings_limit) or _load(m))

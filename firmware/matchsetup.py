"""The rules core's rarely used half: a match set up, its rare events, read back, followed.

rules.Match keeps in RAM what a match needs at every press; this module
(loaded for a call and dropped, cold.py) starts a new match with its options
checked, gives a match's options back, enters the referee's rarer events (the
lag's collisions and faults, a player leaving, an extension, a position call,
a tie-break's winner: their checks and effects are in rules.py, as a replay
needs them), reads a saved log into a match (push, pop, replay_log: the store's
restore) and makes a follower match that steps through another's log (the
report's innings). It works on Match's internals, as part of rules.py.

    matchsetup.extend(match, 40, now)     # None, or the reason (rules.py's numbers)
"""

from rules import (A, B, BAD_KIND, BAD_PLAYER, BAD_TARGET, CALLS, CHUNK, CLOSED, E_CALL, E_EXTEND, E_LAG_COLLISION,
                   E_LAG_FAULT, E_LEFT, E_TIEBREAK, GAMES, LAG_FAULTS, MAX_INNINGS_LIMIT, MAX_TARGET, NO_MEMORY, NOBODY,
                   Match)

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# Why new() refuses an option (reasons.py reads these lines, as rules.py's).
_BAD_GAME = const(29)  # unknown game
_BAD_INNINGS_LIMIT = const(31)  # innings_limit must be 0..999
_BAD_SHOT_CLOCK = const(32)  # shot_clock must be 0 (off) or 10..300 s
_BAD_TIMEOUTS = const(33)  # timeouts must be 0..9
_BAD_BREAK = const(34)  # break_s must be 0..3600
_BAD_BALL = const(35)  # breaker_ball must be spot or white


def new(m, now, options):
    """Start a new match with these options (a dict of _new's keywords); None, or the
    reason (the match stays as it was)."""
    return _new(m, now, **options)


def _new(m, now, game="three_cushion", target=30, breaker=None, innings_limit=0, equalizing=True,
         draw=True, shot_clock=0, timeouts=None, break_s=180, breaker_ball="spot",
         name_A="", club_A="", name_B="", club_B=""):
    if game not in GAMES:
        return _BAD_GAME
    if not isinstance(target, int) or not 1 <= target <= MAX_TARGET:
        return BAD_TARGET
    if not isinstance(innings_limit, int) or not 0 <= innings_limit <= MAX_INNINGS_LIMIT:
        return _BAD_INNINGS_LIMIT
    if not isinstance(shot_clock, int) or not (shot_clock == 0 or 10 <= shot_clock <= 300):
        return _BAD_SHOT_CLOCK
    if timeouts is None:
        timeouts = (3 if target < 40 else 4) if shot_clock else 0
    if not isinstance(timeouts, int) or not 0 <= timeouts <= 9:
        return _BAD_TIMEOUTS
    if not isinstance(break_s, int) or not 0 <= break_s <= 3600:
        return _BAD_BREAK
    if breaker_ball not in ("spot", "white"):
        return _BAD_BALL
    if breaker is not None and breaker not in (A, B):
        return BAD_PLAYER
    m.game = GAMES.index(game)
    m.target0 = target
    m.innings_limit = innings_limit
    m.equalizing = bool(equalizing)
    m.draw_allowed = bool(draw)
    m.shot_ms = shot_clock * 1000
    m.timeouts0 = timeouts
    m.break_ms = break_s * 1000
    m.white_breaker = breaker_ball == "white"
    m.breaker0 = NOBODY if breaker is None else breaker
    m.names[A] = name_A
    m.names[B] = name_B
    m.clubs[A] = club_A
    m.clubs[B] = club_B
    m.window = 3 if game == "three_cushion" else 5  # the countdown: last 3, else last 5
    m.closed = False
    m.n = 0
    m.low = 0
    m.edits += 1
    m._base = now
    m._free()
    m._reset()
    return None


# ---- the referee's rarer events -------------------------------------------------

def lag_collision(m, p, now):
    """The lag balls collided; p (or NOBODY) at fault. Second collision: p loses the choice."""
    return m._event(E_LAG_COLLISION, p + 1, now)


def lag_fault(m, p, kind, now):
    """p's lag was faulty (kind indexes rules.LAG_FAULTS): the opponent has the choice."""
    if not 0 <= kind < len(LAG_FAULTS):
        return BAD_KIND
    if p != A and p != B:
        return BAD_PLAYER
    return m._event(E_LAG_FAULT, p * 16 + kind, now)


def left(m, p, now):
    """p left his place or abandoned the match: he loses it (I.4.3, I.8.2)."""
    return m._event(E_LEFT, p, now)


def call(m, kind, now):
    """A position call: entre, dedans, a cheval (III.4.3b); no score changes."""
    if not 0 <= kind < len(CALLS):
        return BAD_KIND
    return m._event(E_CALL, kind, now)


def tiebreak(m, p, now):
    """The winner of the tie-break after a draw that may not stand."""
    return m._event(E_TIEBREAK, p, now)


def extend(m, target, now):
    """A drawn match goes on to an agreed total (I.8.4). The log keeps the extension's
    number; its target is kept apart (m._targets), as the log's argument is a byte."""
    if not isinstance(target, int) or not 1 <= target <= MAX_TARGET:
        return BAD_TARGET
    if m.closed:
        return CLOSED
    t = m._time(now)
    m._advance(t)
    reason = m._check(E_EXTEND, target)
    if reason is None:
        reason = _extension(m, target)
    if reason is None and not m._log(E_EXTEND, m.extensions, t):
        reason = NO_MEMORY
    return reason


def _extension(m, target):
    """Keep an extension's target under its number (the next one)."""
    try:
        if m.extensions < len(m._targets):
            m._targets[m.extensions] = target
        else:
            m._targets.append(target)
    except MemoryError:
        m.out_of_memory += 1
        return NO_MEMORY
    return None


# ---- a match's options, a follower -----------------------------------------------

def options(m):
    """This match's options, as new() takes them."""
    return {
        "game": GAMES[m.game], "target": m.target0, "breaker": None if m.breaker0 == NOBODY else m.breaker0,
        "innings_limit": m.innings_limit, "equalizing": m.equalizing, "draw": m.draw_allowed,
        "shot_clock": m.shot_ms // 1000, "timeouts": m.timeouts0, "break_s": m.break_ms // 1000,
        "breaker_ball": "white" if m.white_breaker else "spot",
        "name_A": m.names[A], "club_A": m.clubs[A], "name_B": m.names[B], "club_B": m.clubs[B],
    }


def follower(m):
    """A match with this one's options and none of its entries, to be stepped through
    them with follow(): the state after each entry in turn (the report's innings)."""
    f = Match(**options(m))
    f._targets = m._targets
    return f


def follow(m, source, i):
    """Do entry i of `source` (whose follower this is) without logging it.
    Allocates (runs of new innings); raises MemoryError when out of memory."""
    if not m._room():
        raise MemoryError
    c = source._chunk_at(i)
    j = i % CHUNK
    m._do(c.codes[j], c.args[j], c.times[j])


def apply(m, code, arg, t):
    """Append an entry that was checked when it was played (a journal's), unchecked.
    Raises MemoryError when there is no memory for it (the match is as before)."""
    if code == E_EXTEND:
        if _extension(m, arg):
            raise MemoryError
        arg = m.extensions
    if not m._log(code, arg, t):
        raise MemoryError


# A saved match read back: its entries put in the log unplayed (push, and pop for
# an undo record), then played once from the start (replay_log).


def push(m, code, arg, t):
    """Put a saved entry at the end of the log without playing it (MemoryError: no room)."""
    if m.n >= m._cap:
        m._more_log()
    if code == E_EXTEND:
        if _extension(m, arg):
            raise MemoryError
        arg = m.extensions
        m.extensions += 1
    c = m._chunks[m.n // CHUNK]
    j = m.n % CHUNK
    c.codes[j] = code
    c.args[j] = arg
    c.times[j] = t
    m.n += 1


def pop(m):
    """Take the newest pushed entry off the log again."""
    if m.n:
        m.n -= 1
        if m._chunks[m.n // CHUNK].codes[m.n % CHUNK] == E_EXTEND:
            m.extensions -= 1


def replay_log(m, now):
    """Play the pushed log from the start (checkpoints made on the way); time resumes at
    `now` from the newest entry. MemoryError leaves a match with no entries."""
    n = m.n
    m.n = 0
    m._reset()
    try:
        while m.n < n:
            if not m._room():
                raise MemoryError
            c = m._chunks[m.n // CHUNK]
            j = m.n % CHUNK
            if m.n and not j:
                m._save(m._states[m.n // CHUNK])
            m.n += 1
            m._do(c.codes[j], c.args[j], c.times[j])
    except MemoryError:
        m.n = 0
        m._reset()
        raise
    m.low = m.n
    m.resume_at(now)


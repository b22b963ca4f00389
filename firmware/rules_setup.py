"""The rules core's rarely used half: a match set up, read back, followed.

rules.Match keeps in RAM what a match needs at every press; this module
(loaded for a call and dropped, cold.py) starts a new match with its options
checked, gives a match's options back, plays a saved log's entries unchecked
(apply: the store's restore) and makes a follower match that steps through
another's log (the report's innings). It works on Match's internals, as part
of rules.py. The referee's rarer events are rules_events.py's; the names of
the codes (rules.E_POINT and the like) matchnames.py's. Few names here: a
board loads this module at every start, and each name it holds stays in RAM.

    rules_setup.new(match, now, {"game": "straight_rail", "target": 200})
"""

import cold
from formats import MAX_SETS
from matchnames import BAD_PLAYER, BAD_TARGET, CHUNK, E_EXTEND, NO_MEMORY
from matchwords import GAMES, MAX_INNINGS_LIMIT, MAX_TARGET
from rules import A, B, NOBODY, Match, _Chunk

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# Why new() refuses an option (reasons.py reads these lines, as rules.py's and rules_events.py's;
# BAD_TARGET is matchnames.py's).
_BAD_GAME = const(29)  # unknown game
_BAD_INNINGS_LIMIT = const(31)  # innings_limit must be 0..999
_BAD_SHOT_CLOCK = const(32)  # shot_clock must be 0 (off) or 10..300 s
_BAD_TIMEOUTS = const(33)  # timeouts must be 0..9
_BAD_BREAK = const(34)  # break_s must be 0..3600
_BAD_BALL = const(35)  # breaker_ball must be spot or white
_BAD_TIMEOUT_S = const(41)  # timeout_s must be 10..300 (the time-out's extra seconds)
_BAD_SETS = const(50)  # sets must be 0 (none) or 1..9 (the sets to win)
_BAD_DECIDING = const(51)  # deciding_target must be 1..9999, in a match with sets
_SHOOTOUT_DRAW = const(52)  # a shoot-out decides a draw that may not stand: draw=off, or sets
_BAD_WARMUP = const(53)  # warmup_s must be 0..900


def init(m, capacity, options):
    """Match.__init__'s rest: the fields, a new match with `options` (ValueError: the
    reason it was refused), room for `capacity` entries."""
    m._states = [None]  # the checkpoint of chunk k >= 1: the state before its first entry
    m._mids = None  # and before each quarter of a chunk (made by reserve(), off the start):
    m._mid_k = [-1] * 6  # of chunk k in slots (k & 1) * 3 ..., the newest two's (rules.Match._put)
    m._spare = []  # chunks to use again (taken off entries that are on the flash)
    m._deep = None  # a chunk read back from the flash for entry() (the report), and its index
    m._deep_k = -1
    m._back = False  # a chunk was read back (Match._retire)
    m.loader = None  # loader(k, put): the journal's entries of chunk k (the store sets it)
    m._targets = []  # the target of each extension, by its number
    m.low = 0  # the fewest entries the log had since the owner last set low = n (undo lowers it)
    m.edits = 0  # undos and new matches so far: the log's entries changed, not just grew
    m.out_of_memory = 0  # events refused, or chunks not made, for want of memory
    m.targets0 = [0, 0]  # each player's target as agreed (a handicap: two)
    m.targets = [0, 0]
    m.score = [0, 0]
    m.innings = [0, 0]  # this set's (the match's, without sets)
    m.played = [0, 0]  # every inning of the match: its runs' place in the log
    m.high_run = [0, 0]
    m.fouls = [0, 0]
    m.timeouts = [0, 0]
    m.names = ["", ""]
    m.clubs = ["", ""]
    reason = new(m, 0, options)
    if reason:
        raise ValueError(reason)
    while m._cap < capacity:
        m._more_log()


def _free(m):
    """A new match: keep one chunk of log and of runs, let the rest go."""
    if m._chunks[0] is None:
        m._chunks[0] = m._spare.pop() if m._spare else _Chunk()
    for s in range(6):
        m._mid_k[s] = -1
    del m._chunks[1:]
    del m._states[1:]
    del m._spare[:]
    m._deep = None
    m._deep_k = -1
    m._cap = CHUNK
    for p in (0, 1):
        del m._runs[p][1:]
        m._runs_cap[p] = len(m._runs[p][0])
    del m._targets[:]


# A new match's options and their defaults: the one home of rules.Match.new's keywords
# (the configuration's schema gives the same defaults; startup.match_options leaves out what
# equals them, so the options a board keeps stay few).
DEFAULTS = {
    "game": "three_cushion",
    "target": 30,
    "breaker": None,
    "innings_limit": 0,
    "equalizing": True,
    "draw": True,
    "shot_clock": 0,
    "timeouts": None,  # None: 3 below a target of 40, else 4, with a shot clock
    "timeout_s": None,  # None: one more shot period
    "break_s": 180,
    "breaker_ball": "spot",
    "name_A": "",
    "club_A": "",
    "name_B": "",
    "club_B": "",
    "target_A": None,  # a handicap: each player's own target
    "target_B": None,
    "sets": 0,
    "deciding_target": None,
    "shootout": False,
    "warmup_s": 0,
}


def new(m, now, options):
    """Start a new match with these options (a dict of DEFAULTS' keys, the others' defaults
    theirs; TypeError: another key); None, or the reason (the match stays as it was)."""
    o = dict(DEFAULTS)
    o.update(options)
    return _new(m, now, **o)


def _new(
    m,
    now,
    game,
    target,
    breaker,
    innings_limit,
    equalizing,
    draw,
    shot_clock,
    timeouts,
    timeout_s,
    break_s,
    breaker_ball,
    name_A,
    club_A,
    name_B,
    club_B,
    target_A,
    target_B,
    sets,
    deciding_target,
    shootout,
    warmup_s,
):
    if game not in GAMES:
        return _BAD_GAME
    ta = target if target_A is None else target_A
    tb = target if target_B is None else target_B
    for t in (target, ta, tb):
        if not isinstance(t, int) or not 1 <= t <= MAX_TARGET:
            return BAD_TARGET
    reason = _formats_ok(sets, deciding_target, shootout, draw, warmup_s)
    if reason:
        return reason
    target = ta if ta > tb else tb
    if not isinstance(innings_limit, int) or not 0 <= innings_limit <= MAX_INNINGS_LIMIT:
        return _BAD_INNINGS_LIMIT
    if not isinstance(shot_clock, int) or not (shot_clock == 0 or 10 <= shot_clock <= 300):
        return _BAD_SHOT_CLOCK
    if timeouts is None:
        timeouts = (3 if target < 40 else 4) if shot_clock else 0
    if not isinstance(timeouts, int) or not 0 <= timeouts <= 9:
        return _BAD_TIMEOUTS
    if timeout_s is not None and (not isinstance(timeout_s, int) or not 10 <= timeout_s <= 300):
        return _BAD_TIMEOUT_S
    if not isinstance(break_s, int) or not 0 <= break_s <= 3600:
        return _BAD_BREAK
    if breaker_ball not in ("spot", "white"):
        return _BAD_BALL
    if breaker is not None and breaker not in (A, B):
        return BAD_PLAYER
    m.game = GAMES.index(game)
    m.targets0[A] = ta
    m.targets0[B] = tb
    m.innings_limit = innings_limit
    m.equalizing = bool(equalizing)
    m.draw_allowed = bool(draw)
    m.shot_ms = shot_clock * 1000
    m.timeouts0 = timeouts
    m.timeout_s = timeout_s  # None: one more shot period
    m.timeout_ms = shot_clock * 1000 if timeout_s is None else timeout_s * 1000
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
    _free(m)
    m.fmt = None
    if sets or shootout or warmup_s:
        import formats  # stays in RAM with the match (formats.py)

        m.sets_to_win = sets
        m.deciding_target = deciding_target or 0
        m.shootout = bool(shootout)
        m.warmup_ms = warmup_s * 1000
        formats.init(m)
        m.fmt = formats
    m._reset()
    return None


def _formats_ok(sets, deciding_target, shootout, draw, warmup_s):
    if not isinstance(sets, int) or not 0 <= sets <= MAX_SETS:
        return _BAD_SETS
    if deciding_target is not None and (
        not isinstance(deciding_target, int) or not sets or not 1 <= deciding_target <= MAX_TARGET
    ):
        return _BAD_DECIDING
    if shootout and draw and not sets:
        return _SHOOTOUT_DRAW
    if not isinstance(warmup_s, int) or not 0 <= warmup_s <= 900:
        return _BAD_WARMUP
    return None


def keep_extension(m, a, b):
    """Keep an extension's targets (A's, B's) under its number (the next one)."""
    k = 2 * m.extensions
    try:
        while len(m._targets) < k + 2:
            m._targets.append(0)
        m._targets[k] = a
        m._targets[k + 1] = b
    except MemoryError:
        m.out_of_memory += 1
        return NO_MEMORY
    return None


# ---- a match's options, a follower -----------------------------------------------


def options(m):
    """This match's options, as new() takes them (a handicap's and the formats' only when the
    match has them)."""
    d = {
        "game": GAMES[m.game],
        "target": m.targets0[A],
        "breaker": None if m.breaker0 == NOBODY else m.breaker0,
        "innings_limit": m.innings_limit,
        "equalizing": m.equalizing,
        "draw": m.draw_allowed,
        "shot_clock": m.shot_ms // 1000,
        "timeouts": m.timeouts0,
        "timeout_s": m.timeout_s,
        "break_s": m.break_ms // 1000,
        "breaker_ball": "white" if m.white_breaker else "spot",
        "name_A": m.names[A],
        "club_A": m.clubs[A],
        "name_B": m.names[B],
        "club_B": m.clubs[B],
    }
    if m.targets0[A] != m.targets0[B]:
        d["target_A"] = m.targets0[A]
        d["target_B"] = m.targets0[B]
    if m.fmt is not None:
        d["sets"] = m.sets_to_win
        d["deciding_target"] = m.deciding_target or None
        d["shootout"] = m.shootout
        d["warmup_s"] = m.warmup_ms // 1000
    return d


def follower(m):
    """A match with this one's options and none of its entries, to be stepped through
    them with rules_innings.follow(): the state after each entry in turn (the report's innings).
    It logs nothing: no chunk of log, no middle states; and it keeps only its newest runs."""
    f = Match(**options(m))
    f._targets = m._targets
    f._chunks[0] = None
    f._mids = f._mid_k = None  # nor its middle states
    return f


def _chunk_at(m, i):
    """The chunk of entry i, read back from the flash when it is not in RAM (rules_logback.py:
    this allocates)."""
    c = m._chunks[i // CHUNK]
    if c is not None:
        return c
    with cold.Rare():
        import rules_logback

        return rules_logback.deep(m, i // CHUNK)


def arg2(m, i):
    """B's target of entry i, an extension, when it has its own (a handicap), else -1: the
    journal keeps it in a record of its own (store.py)."""
    k = 2 * _chunk_at(m, i).args[i % CHUNK]
    return m._targets[k + 1] if m._targets[k + 1] != m._targets[k] else -1


def apply(m, code, arg, t, arg2=-1):
    """Append an entry that was checked when it was played (a journal's), unchecked; arg2: an
    extension's B target when it has its own (a handicap). Raises MemoryError when there is
    no memory for it (the match is as before)."""
    if code == E_EXTEND:
        if keep_extension(m, arg, arg if arg2 < 0 else arg2):
            raise MemoryError
        arg = m.extensions
    if not m._log(code, arg, t):
        raise MemoryError


def take_back(m):
    """Take the newest entry off, unlogged (a journal's undo record): the state replayed.
    Raises MemoryError when an old chunk it needs could not be read back."""
    if not m.n:
        return
    if not m._undo_ready():
        raise MemoryError
    m.n -= 1
    m.low = m.n
    m._replay()

"""The rules core's rarely used half: a match set up, its rare events, read back, followed.

rules.Match keeps in RAM what a match needs at every press; this module
(loaded for a call and dropped, cold.py) starts a new match with its options
checked, gives a match's options back, enters the referee's rarer events (the
lag's collisions and faults, a player leaving, an extension, a position call,
a tie-break's winner: checked here; their effects are in rules.py, as a
replay needs them), plays a saved log's entries unchecked (apply: the store's restore)
and makes a follower match that steps through another's log (the
report's innings). It works on Match's internals, as part of rules.py.

It also keeps the names of what the board's hot path does not need (games,
fouls, calls, entry codes, results, endings, limits): rules.py has them as
private constants, and rules.E_POINT and the like come from here
(rules.__getattr__). A test checks every one against rules.py's.

    matchsetup.extend(match, 40, now)     # None, or the reason (rules.py's numbers)
"""

from rules import A, B, EQUALIZING, FINISHED, LAG, NOBODY, R_DRAW, TIEBREAK, Match, _Chunk

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


GAMES = ("straight_rail", "balkline_47_2", "balkline_47_1", "balkline_71_2", "one_cushion", "three_cushion")

# Phases (rules.py: LAG, BREAK, EQUALIZING, FINISHED, TIEBREAK; matchdoc.PHASES names them).
RUNNING = const(1)

# Results (rules.py: R_A, R_B, R_DRAW; matchdoc.RESULTS).
R_NONE = const(0)
R_TIEBREAK = const(4)

# How a match ended (matchdoc.ENDINGS).
END_TARGET = const(1)
END_INNINGS = const(2)
END_LEFT = const(3)
END_TIEBREAK = const(4)
END_ABANDONED = const(5)  # I.8.2: loses, and is excluded from the competition

# Foul kinds (I.9.2); "miss" is the empty inning, not counted as a foul;
# "other" is a foul whose kind the board was not told (a wall board's foul button).
FOULS = ("miss", "jumped", "moving_balls", "touched", "push", "foot", "marked_cushion", "wrong_ball", "zone", "time",
         "other")
F_MISS = const(0)
F_JUMPED = const(1)
F_ZONE = const(8)
F_OTHER = const(10)  # (rules.py: F_TIME)

CALLS = ("entre", "dedans", "a_cheval", "out")  # III.4.3b, straight rail and balkline; out: a ball left the area
ANCHOR = const(16)  # added to a call's kind: the balls are in an anchor (II.2.4)
BALLS = ("A", "B", "red")  # a jump's balls (three-cushion): bit k is BALLS[k]
FROZEN_CHOICES = ("start", "free_ball", "masse")  # II.2.7, II.3.3: what the player chooses

# Where the balls go (rules.py's respot; matchdoc.RESPOTS names them).
RESPOT_START = const(1)
RESPOT_3C = const(2)
RESPOT_CHOICE = const(3)
RESPOT_FREE_BALL = const(4)
RESPOT_MASSE = const(5)
LAG_FAULTS = ("touched", "short", "hit_red", "long_cushion")  # I.1

# Log entry codes (matchdoc.ENTRY_NAMES) and their argument, one byte (p: player A 0, B 1;
# p + 1: 0 when the entry names nobody, the player at the table):
#   E_LAG            p, the lag's winner           E_LAG_COLLISION  p + 1, at fault
#   E_LAG_FAULT      p * 16 + LAG_FAULTS index     E_CHOOSE         p * 2 + give (1: gives the break)
#   E_POINT, E_MISS, E_TIMEOUT  p + 1              E_FOUL           (p + 1) * 16 + FOULS index
#   E_BREAK, E_LEFT, E_TIEBREAK  p                 E_CALL           CALLS index (+ ANCHOR)
#   E_RESUME, E_BREAK_END  0                       E_EXTEND         the extension's number
#   E_ABANDON, E_REVIEW  p                         E_LAG_TIE        0
#   E_JUMPED         (p + 1) * 16 + balls (bits: BALLS)
#   E_FROZEN         (p + 1) * 16 + the respot that follows (RESPOT_*)
#   E_FROZEN_CHOICE  FROZEN_CHOICES index * 16 + the respot that follows
# Three packings: a player and a kind share the byte as p * 16 + kind (11 foul kinds,
# 4 lag faults: up to 15), with p + 1 where nobody may be named (a foul at the table, or
# the shot clock's automatic F_TIME foul, arg F_TIME); a choice is one bit, p * 2 + give.
# Kept as they are: the journal (store.py) stores these bytes, and old journals must
# still be read back, so a new packing would need a new journal format.
E_LAG = const(1)
E_LAG_COLLISION = const(2)
E_LAG_FAULT = const(3)
E_CHOOSE = const(4)
E_POINT = const(5)
E_MISS = const(6)
E_FOUL = const(7)
E_BREAK = const(8)
E_RESUME = const(9)
E_LEFT = const(10)
E_EXTEND = const(11)
E_CALL = const(12)
E_TIMEOUT = const(13)
E_BREAK_END = const(14)
E_TIEBREAK = const(15)
E_LAG_TIE = const(16)
E_ABANDON = const(17)
E_FROZEN = const(18)
E_FROZEN_CHOICE = const(19)
E_JUMPED = const(20)
E_REVIEW = const(21)

MAX_TARGET = const(9999)
MAX_INNINGS_LIMIT = const(999)
CHUNK = const(128)  # log entries per chunk
WINDOW = const(2)  # chunks of the log kept in RAM when the store can read the others back

# Reasons rules.py returns too, for those who name them (reasons.py reads the texts there).
CLOSED = const(1)
BAD_PLAYER = const(10)
BAD_KIND = const(11)
NO_MEMORY = const(36)


# Why new() refuses an option, or a rarer event is refused (reasons.py reads these lines,
# as rules.py's; 5..7, 13 and 14 are rules.py's too, with the same number and words).
_IN_LAG = const(5)  # the lag decides who breaks first
_LAG_DONE = const(6)  # the lag is over
_LAG_DECIDED = const(7)  # the lag is decided: the winner chooses
_FINISHED_ALREADY = const(13)  # the match is finished
_CUSHION_GAME = const(14)  # not in cushion games
_NOT_DRAWN = const(24)  # only a drawn match can be extended
_EXTEND_LOW = const(25)  # the extension target must be above the target
_EXTEND_INNINGS = const(26)  # a draw on the innings limit is not extended
_NOT_FINISHED = const(12)  # the match is not finished
_NO_TIEBREAK = const(27)  # no tie-break is pending
_TIEBREAK_PENDING = const(28)  # the tie-break winner is not recorded
BAD_TARGET = const(30)  # target must be 1..9999
_BAD_GAME = const(29)  # unknown game
_BAD_INNINGS_LIMIT = const(31)  # innings_limit must be 0..999
_BAD_SHOT_CLOCK = const(32)  # shot_clock must be 0 (off) or 10..300 s
_BAD_TIMEOUTS = const(33)  # timeouts must be 0..9
_BAD_BREAK = const(34)  # break_s must be 0..3600
_BAD_BALL = const(35)  # breaker_ball must be spot or white
_REVIEW_USED = const(38)  # that player has had his review (III.4.9a: once per match)
_NO_FROZEN = const(39)  # no frozen ball waits for the player's choice
_BALLS_3C = const(40)  # the jumped balls are named only in three-cushion (elsewhere all go to the start)
_NOT_PLAYING = const(4)  # no inning is being played
_NOT_AT_TABLE = const(3)  # that player is not at the table
_BAD_TIMEOUT_S = const(41)  # timeout_s must be 10..300 (the time-out's extra seconds)


def init(m, capacity, options):
    """Match.__init__'s rest: the fields, a new match with `options` (ValueError: the
    reason it was refused), room for `capacity` entries."""
    m._states = [None]  # the checkpoint of chunk k >= 1: the state before its first entry
    m._spare = []  # chunks to use again (taken off entries that are on the flash)
    m._deep = None  # a chunk read back from the flash for entry() (the report), and its index
    m._deep_k = -1
    m._back = False  # a chunk was read back (Match._retire)
    m.loader = None  # loader(k, put): the journal's entries of chunk k (the store sets it)
    m._targets = []  # the target of each extension, by its number
    m.low = 0  # the fewest entries the log had since the owner last set low = n (undo lowers it)
    m.edits = 0  # undos and new matches so far: the log's entries changed, not just grew
    m.out_of_memory = 0  # events refused, or chunks not made, for want of memory
    m.score = [0, 0]
    m.innings = [0, 0]
    m.high_run = [0, 0]
    m.fouls = [0, 0]
    m.timeouts = [0, 0]
    m.names = ["", ""]
    m.clubs = ["", ""]
    options.setdefault("game", "three_cushion")
    options.setdefault("target", 30)
    reason = new(m, 0, options)
    if reason:
        raise ValueError(reason)
    while m._cap < capacity:
        m._more_log()


def _free(m):
    """A new match: keep one chunk of log and of runs, let the rest go."""
    if m._chunks[0] is None:
        m._chunks[0] = m._spare.pop() if m._spare else _Chunk()
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


def new(m, now, options):
    """Start a new match with these options (a dict of _new's keywords); None, or the
    reason (the match stays as it was)."""
    return _new(m, now, **options)


def _new(m, now, game="three_cushion", target=30, breaker=None, innings_limit=0, equalizing=True,
         draw=True, shot_clock=0, timeouts=None, timeout_s=None, break_s=180, breaker_ball="spot",
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
    if timeout_s is not None and (not isinstance(timeout_s, int) or not 10 <= timeout_s <= 300):
        return _BAD_TIMEOUT_S
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
    m._reset()
    return None


# ---- the referee's rarer events -------------------------------------------------

def _check(m, code, arg):
    """Why a rarer event may not be played now (None: it may); rules.Match._check's half
    for the events that come only through here."""
    phase = m.phase
    if code == E_LAG_COLLISION or code == E_LAG_FAULT:
        if phase != LAG:
            return _LAG_DONE
        if m.chooser != NOBODY:
            return _LAG_DECIDED
        p = arg - 1 if code == E_LAG_COLLISION else arg >> 4
        if code == E_LAG_COLLISION and p == NOBODY:
            return None
        if p != A and p != B:
            return BAD_PLAYER
        return None
    if code == E_LAG_TIE:
        if phase != LAG:
            return _LAG_DONE
        return _LAG_DECIDED if m.chooser != NOBODY else None
    if code == E_LEFT or code == E_ABANDON or code == E_REVIEW:
        if arg != A and arg != B:
            return BAD_PLAYER
        if code == E_REVIEW:
            return _REVIEW_USED if m.reviews & (1 << arg) else None
        if phase == FINISHED:
            return _FINISHED_ALREADY
        return None
    if code == E_FROZEN or code == E_FROZEN_CHOICE:
        if phase == LAG:
            return _IN_LAG
        if phase == FINISHED or phase == TIEBREAK:
            return _FINISHED_ALREADY
        if phase != RUNNING and phase != EQUALIZING:
            return _NOT_PLAYING
        if code == E_FROZEN_CHOICE:
            return None if m.respot == RESPOT_CHOICE else _NO_FROZEN
        p = (arg >> 4) - 1
        return _NOT_AT_TABLE if p != NOBODY and p != m.turn else None
    if code == E_EXTEND:
        if not ((phase == FINISHED and m.result == R_DRAW) or phase == TIEBREAK):
            return _NOT_DRAWN
        if m.ended_by == END_INNINGS:
            return _EXTEND_INNINGS
        if arg <= m.target:
            return _EXTEND_LOW
        return None
    if code == E_CALL:
        if GAMES[m.game].endswith("cushion"):
            return _CUSHION_GAME
        if phase == LAG:
            return _IN_LAG
        if phase == FINISHED or phase == TIEBREAK:
            return _FINISHED_ALREADY
        return None
    if code == E_TIEBREAK:
        if phase != TIEBREAK:
            return _NO_TIEBREAK
        if arg != A and arg != B:
            return BAD_PLAYER
        return None
    return BAD_KIND


def _event(m, code, arg, now):
    """A rarer event checked here (rules.Match._event's twin: its frame stays small)."""
    if m.closed:
        return CLOSED
    t = m._time(now)
    m._advance(t)
    reason = _check(m, code, arg)
    if reason is None and not m._log(code, arg, t):
        reason = NO_MEMORY
    return reason


def lag_collision(m, p, now):
    """The lag balls collided; p (or NOBODY) at fault. Second collision: p loses the choice."""
    return _event(m, E_LAG_COLLISION, p + 1, now)


def lag_fault(m, p, kind, now):
    """p's lag was faulty (kind indexes rules.LAG_FAULTS): the opponent has the choice."""
    if not 0 <= kind < len(LAG_FAULTS):
        return BAD_KIND
    if p != A and p != B:
        return BAD_PLAYER
    return _event(m, E_LAG_FAULT, p * 16 + kind, now)


def lag_tie(m, now):
    """The lag balls stopped equally far (I.1.3): lagged again; nobody at fault, no collision."""
    return _event(m, E_LAG_TIE, 0, now)


def left(m, p, now):
    """p left his place (I.4.3): he loses the match."""
    return _event(m, E_LEFT, p, now)


def abandon(m, p, now):
    """p abandoned the match (I.8.2): he loses it and is excluded from the competition."""
    return _event(m, E_ABANDON, p, now)


def review(m, p, now):
    """p asks the referee to review a decision: once per player per match (III.4.9a)."""
    return _event(m, E_REVIEW, p, now)


def frozen(m, p, now):
    """The ball of the player at the table (p: NOBODY, or who it must be) is frozen (I.5):
    no score changes; straight rail and one-cushion respot all three balls, balkline and
    three-cushion leave the choice to the player (frozen_choice)."""
    if p != NOBODY and p != A and p != B:
        return BAD_PLAYER
    choice = GAMES[m.game] not in ("straight_rail", "one_cushion")
    return _event(m, E_FROZEN, (p + 1) * 16 + (RESPOT_CHOICE if choice else RESPOT_START), now)


def frozen_choice(m, kind, now):
    """The player's choice after a frozen ball (FROZEN_CHOICES index): respotting puts all
    three balls on the start in balkline (II.2.7), only the frozen ones on their spots in
    three-cushion (II.3.3, as after a jump)."""
    if not 0 <= kind < len(FROZEN_CHOICES):
        return BAD_KIND
    if kind == 0:
        respot = RESPOT_3C if GAMES[m.game] == "three_cushion" else RESPOT_START
    else:
        respot = RESPOT_FREE_BALL if kind == 1 else RESPOT_MASSE
    return _event(m, E_FROZEN_CHOICE, kind * 16 + respot, now)


def jumped(m, p, balls, now):
    """A jump foul in three-cushion with the balls that left the table (bits: BALLS); they go
    to their spots (II.3.4). p: NOBODY, or who must be at the table."""
    if p != NOBODY and p != A and p != B:
        return BAD_PLAYER
    if not 1 <= balls <= 7:
        return BAD_KIND
    if GAMES[m.game] != "three_cushion":
        return _BALLS_3C
    return m._event(E_JUMPED, (p + 1) * 16 + balls, now)


def call(m, kind, now, anchor=False):
    """A position call: entre, dedans, a cheval, out (III.4.3b), in an anchor or not; no
    score changes. The board counts the caroms made in the area (rules.Match.out_next)."""
    if not 0 <= kind < len(CALLS) or (anchor and CALLS[kind] == "out"):
        return BAD_KIND
    return _event(m, E_CALL, kind + (ANCHOR if anchor else 0), now)


def tiebreak(m, p, now):
    """The winner of the tie-break after a draw that may not stand."""
    return _event(m, E_TIEBREAK, p, now)


def extend(m, target, now):
    """A drawn match goes on to an agreed total (I.8.4). The log keeps the extension's
    number; its target is kept apart (m._targets), as the log's argument is a byte."""
    if not isinstance(target, int) or not 1 <= target <= MAX_TARGET:
        return BAD_TARGET
    if m.closed:
        return CLOSED
    t = m._time(now)
    m._advance(t)
    reason = _check(m, E_EXTEND, target)
    if reason is None:
        reason = _extension(m, target)
    if reason is None and not m._log(E_EXTEND, m.extensions, t):
        reason = NO_MEMORY
    return reason


def close(m, now):
    """The report is signed: no more changes, no more undo."""
    if m.closed:
        return CLOSED
    m._advance(m._time(now))
    if m.phase == TIEBREAK:
        return _TIEBREAK_PENDING
    if m.phase != FINISHED:
        return _NOT_FINISHED
    m.closed = True
    return None


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
        "shot_clock": m.shot_ms // 1000, "timeouts": m.timeouts0, "timeout_s": m.timeout_s,
        "break_s": m.break_ms // 1000,
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

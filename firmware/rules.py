"""The carom rules core: one match, kept as a log of events and a state.

Pure: no machine, no clock reads, no I/O. Time comes in as `now`, a
millisecond counter that may wrap like MicroPython's ticks_ms (period 2**30).
Every event method returns None when accepted, or a small int (the reason,
its text in reasons.py) when refused; a refused event changes nothing.

Rule numbers refer to shared/rules/rules.md (the Hungarian federation's
"A karambol szabalyai").  Steady-state scoring events allocate nothing:
state lives in small ints, lists of two ints and preallocated arrays.

The log is kept in fixed chunks of CHUNK entries (a byte of code, a byte
of argument, the match time of each; how an argument packs a player and a
kind: matchnames.py's entry codes), made one at a time as the match
grows: no allocation grows with the match in one piece, and `reserve()`
(called off the button path) makes the next chunk before it is needed, so
an event itself allocates nothing.  An event that finds no room and no
memory for it is refused (reason NO_MEMORY) and changes nothing.

Undo works by replay from a checkpoint: each chunk keeps the state as it
was before its first entry, and the newest two chunks the state before
each quarter of theirs too, so an undo there replays at most CHUNK / 4 - 1
entries (CHUNK - 1 deeper into the match).
The log keeps its own time ("match time"); an undo rewinds match time to
the moment of the newest remaining entry, so every clock (break, shot
clock) is exactly what it was just after that entry.
"""

from array import array

import cold
from matchnames import (
    ANCHOR,
    BAD_KIND,
    BAD_PLAYER,
    BREAK_OFF,
    BREAK_TAKEN,
    CHUNK,
    CLOSED,
    CUSHION_GAME,
    END_ABANDONED,
    END_INNINGS,
    END_LEFT,
    END_TARGET,
    END_TIEBREAK,
    E_ABANDON,
    E_BREAK,
    E_BREAK_END,
    E_CALL,
    E_CHOOSE,
    E_EXTEND,
    E_FOUL,
    E_FROZEN,
    E_FROZEN_CHOICE,
    E_JUMPED,
    E_LAG,
    E_LAG_COLLISION,
    E_LAG_FAULT,
    E_LAG_TIE,
    E_LEFT,
    E_MISS,
    E_POINT,
    E_RESUME,
    E_REVIEW,
    E_TIEBREAK,
    E_TIMEOUT,
    E_WARMUP_END,
    FINISHED_ALREADY,
    F_JUMPED,
    F_MISS,
    F_ZONE,
    IN_LAG,
    LAG_DECIDED,
    LAG_DONE,
    NOT_AT_TABLE,
    NOT_PLAYING,
    NO_MEMORY,
    N_FOULS,
    N_STATE,
    RESPOT_3C,
    RESPOT_START,
    RSHIFT,
    RUNNING,
    RUNS,
    R_NONE,
    R_TIEBREAK,
    WARMUP,
    WINDOW,
)
from ticks import ticks_add, ticks_diff

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


A = const(0)
B = const(1)
NOBODY = const(-1)

_BALKLINE_47_1 = const(2)  # game codes: indexes into matchwords.GAMES (named in matchnames.py)
_ONE_CUSHION = const(4)
_THREE_CUSHION = const(5)

# The codes the board's hot path names are here, the others in matchnames.py (the log's entry
# codes and their arguments, the endings, the other phases and results; the build compiles
# them in: host_tools/consts.py).

# Phases (matchdoc.PHASES names them; RUNNING, SET_OVER, SHOOTOUT, WARMUP: matchnames.py).
LAG = const(0)
BREAK = const(2)
EQUALIZING = const(3)
FINISHED = const(4)
TIEBREAK = const(5)

# Results (matchdoc.RESULTS; R_NONE, R_TIEBREAK: matchnames.py).
R_A = const(1)
R_B = const(2)
R_DRAW = const(3)

# Foul kinds: matchwords.FOULS' indexes (the others: matchnames.py).
F_TIME = const(9)

# Position calls (matchwords.CALLS); the call's argument adds ANCHOR for an anchor (II.2.4).
_C_DEDANS = const(1)
_C_OUT = const(3)

_SHIFT = const(7)  # CHUNK == 1 << _SHIFT
_LOW = const(127)  # CHUNK - 1
_QUARTER = const(32)  # the newest two chunks keep the state before their entries 32, 64, 96 too
_QSHIFT = const(5)  # _QUARTER == 1 << _QSHIFT
_SPARE = const(16)  # reserve() makes the next chunk when fewer entries than this are left
_RLOW = const(63)  # RUNS - 1

# Why an event is refused: a small int (a refusal allocates nothing, and the board keeps
# no text of it in RAM). The text after each is for people: reasons.py reads it from
# these lines (the scripted mode, the simulator, the tests). Numbers never change meaning;
# 12, 24..28, 38..40 are in rules_events.py (the rarer events' and the close's), 29..35
# and 41 in rules_setup.py (new()'s), those others return too in matchnames.py (1, 3..7, 10,
# 11, 13, 14, 16, 18, 36).
_NOTHING_TO_UNDO = const(2)  # nothing to undo
_NOT_CHOOSER = const(8)  # that player does not have the choice
_NO_CHOICE_YET = const(9)  # nobody has won the lag yet
_BREAK_NOT_HALF = const(15)  # the break is only at half of the match
_BREAK_IN_RUN = const(17)  # no break during a run
_BREAK_NOT_ASKER = const(19)  # only the player about to shoot may ask for the break
_NOT_IN_BREAK = const(20)  # there is no break to end
_NO_SHOT_CLOCK = const(21)  # no shot clock in this match
_NO_TIMEOUTS = const(22)  # no time-outs left
_TIMEOUT_USED = const(23)  # one time-out per shot
LOCKED = const(37)  # the saved match could not be read back: only a new match can be started


def __getattr__(name):
    """The names the board's hot path does not need live in matchnames.py: the games', fouls'
    and calls' names, the log's entry codes, results, endings, limits. This module imports
    those it uses, and the build compiles them in (no RAM); on the board rules.E_POINT and
    the like, for everyone else (reports, tools), come from there."""
    return cold.forward("matchnames", name, "rules")


# A checkpoint's fields: the state's ints, then its pairs (a value per player); where each
# is kept, and formats.py's after them: matchnames.py (N_STATE, RUN_AT...).
_FIELDS = (
    "phase",
    "turn",
    "shooter",
    "breaker",
    "chooser",
    "collisions",
    "result",
    "ended_by",
    "run",
    "last_foul",
    "last_call",
    "respot",
    "respot_balls",
    "break_taken",
    "break_start",
    "shot_anchor",
    "shot_limit",
    "timeout_this_shot",
    "extensions",
    "lag_ties",
    "reviews",
    "area",
    "area_caroms",
    "start_t",
    "end_t",
)
_PAIRS = ("targets", "score", "innings", "played", "high_run", "fouls", "timeouts")


def _zeros(typecode, n):
    return array(typecode, bytes(n * (2 if typecode == "H" else 4)))


class _Chunk:
    """CHUNK log entries: a byte of code, a byte of argument, the match time of each."""

    def __init__(self):
        self.codes = bytearray(CHUNK)
        self.args = bytearray(CHUNK)  # an extension's target is in Match._targets, by number
        self.times = _zeros("i", CHUNK)


class Match:
    """One match: options, the log of accepted events, and the state they give."""

    def __init__(self, capacity=CHUNK, **options):
        """capacity: entries to make room for now (in whole chunks); the log grows past it.
        The rest of the match's fields: rules_setup.init."""
        self._chunks = [_Chunk()]  # chunk k holds entries k * CHUNK ...; None: only on the flash
        self._runs = [[_zeros("H", RUNS)], [_zeros("H", RUNS)]]  # per player: chunks of innings' runs
        self._cap = CHUNK  # entries the log's chunks hold
        self._runs_cap = [RUNS, RUNS]  # innings each player's chunks of runs hold
        with cold.Rare():
            import rules_setup

            rules_setup.init(self, capacity, options)

    # ---- setting up ------------------------------------------------------

    def new(self, now, **options):
        """Start a new match (options as in rules_setup.new: game, target, breaker, ...); on a
        bad option the current match stays as it is and the reason is returned."""
        with cold.Rare():
            import rules_setup

            return rules_setup.new(self, now, options)

    def options(self):
        """This match's options, as new() takes them."""
        with cold.Rare():
            import rules_setup

            return rules_setup.options(self)

    def _reset(self):
        """The state at the start of the match, before any entry."""
        for p in (A, B):
            self.targets[p] = self.targets0[p]
            self.score[p] = 0
            self.innings[p] = 0
            self.played[p] = 0
            self.high_run[p] = 0
            self.fouls[p] = 0
            self.timeouts[p] = self.timeouts0
        self.phase = LAG
        self.turn = NOBODY
        self.shooter = NOBODY  # who plays the inning, or played the last one
        self.breaker = NOBODY
        self.chooser = NOBODY
        self.collisions = 0
        self.result = R_NONE
        self.ended_by = 0
        self.run = 0
        self.last_foul = -1
        self.last_call = -1
        self.respot = 0
        self.respot_balls = 0  # bits: A's ball 1, B's 2, the red 4 (a jump in three-cushion)
        self.break_taken = 0
        self.break_start = 0
        self.shot_anchor = 0
        self.shot_limit = self.shot_ms
        self.timeout_this_shot = 0
        self.extensions = 0
        self.lag_ties = 0
        self.reviews = 0  # bits: A 1, B 2 (III.4.9a: once per player)
        self.area = 0  # the object balls in a restricted area: 1, in an anchor: 2 (the referee's calls)
        self.area_caroms = 0  # caroms made there since the call
        self.start_t = 0  # match time of the first stroke
        self.end_t = 0  # and of the end
        if self.fmt is not None:
            self.fmt.reset(self)
        if self.breaker0 != NOBODY:
            self.breaker = self.breaker0  # a preset breaker: at the table (start_t stays 0)
            self.phase = RUNNING
            self._start_inning(self.breaker0, 0)

    # ---- the log ---------------------------------------------------------
    #
    # Small methods: MicroPython keeps a call's frame on the C stack only while
    # it is small (11 words, a try block counts); a larger one is a heap allocation.

    def reserve(self):
        """Make the next chunks before they are needed, and let the log's old chunks go to the
        flash (allocates; call it off the button path). True when there is room for the next
        _SPARE entries and innings."""
        if self.loader is not None:
            self._retire()
        if self._mids is None:
            self._make_mids()
        if (
            self.n + _SPARE <= self._cap
            and self.played[0] + _SPARE <= self._runs_cap[0]
            and self.played[1] + _SPARE <= self._runs_cap[1]
        ):
            return True  # nothing to make: no call to _make_room (its try block: a heap frame)
        return self._make_room(_SPARE)

    def _retire(self):
        """Chunks more than WINDOW back whose entries are all on the flash (below low: the store
        saved them, no undo since) become spares; their entries are read back when needed.
        Below the first chunk already gone only after a read-back (a deep undo: _back)."""
        k = (self.n >> _SHIFT) - WINDOW
        while k >= 0 and (self._chunks[k] is not None or self._back):
            if self._chunks[k] is not None and (k + 1) << _SHIFT <= self.low:
                self._spare.append(self._chunks[k])
                self._chunks[k] = None
            k -= 1
        self._back = False

    def _room(self):
        """Room for one more entry (and an inning for each player), made now if need be (and
        formats.ready: the formats' code the entry may need)."""
        if self.fmt is not None and not self.fmt.ready(self):
            return False
        if self.n < self._cap and self.played[0] < self._runs_cap[0] and self.played[1] < self._runs_cap[1]:
            return True
        return self._make_room(1)

    def _make_room(self, ahead):
        try:
            while self.n + ahead > self._cap:
                self._more_log()
            for p in (0, 1):
                while self.played[p] + ahead > self._runs_cap[p]:
                    self._runs[p].append(_zeros("H", RUNS))
                    self._runs_cap[p] += RUNS
        except MemoryError:
            self.out_of_memory += 1
            return False
        return True

    def _more_log(self):
        state = _zeros("i", N_STATE)
        self._chunks.append(self._spare.pop() if self._spare else _Chunk())
        self._states.append(state)
        self._cap += CHUNK

    def entry(self, i):
        """(code, arg, match time in ms) of log entry i (an extension's arg is its target)."""
        c = self._chunks[i >> _SHIFT]
        if c is None:  # read back from the flash (rules_logback.py: this allocates)
            c = self._read_back(i >> _SHIFT, True)
        j = i & _LOW
        code = c.codes[j]
        arg = c.args[j]
        if code == E_EXTEND:
            arg = self._targets[2 * arg]  # A's; B's: arg2()
        return code, arg, c.times[j]

    def run_of(self, p, i):
        """The run of player p's inning i (0 = his first)."""
        return self._runs[p][i >> RSHIFT][i & _RLOW]

    def _time(self, now):
        """Match time for `now`; never before the newest entry."""
        t = ticks_diff(now, self._base)
        i = self.n - 1
        if i >= 0 and t < self._chunks[i >> _SHIFT].times[i & _LOW]:
            return self._chunks[i >> _SHIFT].times[i & _LOW]
        return t

    def _log(self, code, arg, t):
        """Append an entry and do it; False (nothing changed) when there is no room for it."""
        if not self._room():
            return False
        self._put(code, arg, t)
        self.n += 1
        self._do(code, arg, t)
        return True

    def _put(self, code, arg, t):
        c = self._chunks[self.n >> _SHIFT]
        j = self.n & _LOW
        if self.n and not j:  # the first entry of a chunk: the state before it, for undo
            self._save(self._states[self.n >> _SHIFT])
        elif not j & (_QUARTER - 1):  # and before each of its quarters
            self._keep_mid()
        c.codes[j] = code
        c.args[j] = arg
        c.times[j] = t

    def _make_mids(self):
        """The six quarters' states (reserve(): not at the start, whose heap is tight; an undo
        replays from the chunk's start until they are made)."""
        try:
            self._mids = [
                _zeros("i", N_STATE),
                _zeros("i", N_STATE),
                _zeros("i", N_STATE),
                _zeros("i", N_STATE),
                _zeros("i", N_STATE),
                _zeros("i", N_STATE),
            ]
        except MemoryError:
            self._mids = None  # tried again at the next reserve()

    def _keep_mid(self):
        """The state before the quarter of chunk k that entry n starts, in a slot of k's parity
        (three a chunk: _mids[s] is chunk _mid_k[s]'s)."""
        if self._mids is None:
            return
        k = self.n >> _SHIFT
        s = (k & 1) * 3 + ((self.n & _LOW) >> _QSHIFT) - 1
        self._save(self._mids[s])
        self._mid_k[s] = k

    def _from_mid(self, k):
        """The state from the newest quarter of chunk k before entry n that is kept; the entry
        to replay from (0: none is kept)."""
        q = (self.n & _LOW) >> _QSHIFT if self._mids is not None else 0
        while q:
            s = (k & 1) * 3 + q - 1
            if self._mid_k[s] == k:
                self._load(self._mids[s])
                return q << _QSHIFT
            q -= 1
        return 0

    def _event(self, code, arg, now):
        """Check and log an event at `now` (the rarer events: rules_events._event)."""
        if self.closed:
            return CLOSED
        t = self._time(now)
        self._advance(t)
        reason = self._check(code, arg)
        if reason is None and not self._log(code, arg, t):
            reason = NO_MEMORY
        return reason

    # ---- events (the referee's words) -----------------------------------

    def lag(self, p, now):
        """p won the lag (I.1) and chooses to break or to give the break."""
        return self._event(E_LAG, p, now)

    def choose(self, p, give, now):
        """The lag winner p breaks (give=False) or gives the break (give=True)."""
        if p != A and p != B:
            return BAD_PLAYER
        return self._event(E_CHOOSE, p * 2 + (1 if give else 0), now)  # packing: matchnames.E_LAG

    def point(self, p, now):
        """A carom for the player at the table (p = NOBODY, or who it must be)."""
        return self._event(E_POINT, p + 1, now)

    def miss(self, p, now):
        """An empty stroke: the inning ends."""
        return self._event(E_MISS, p + 1, now)

    def foul(self, p, kind, now):
        """A foul (kind indexes matchwords.FOULS): the stroke scores nothing, the inning ends."""
        if not 0 <= kind < N_FOULS:
            return BAD_KIND
        if kind == F_MISS:
            return self.miss(p, now)
        return self._event(E_FOUL, (p + 1) * 16 + kind, now)  # packing: matchnames.E_LAG

    def break_request(self, p, now):
        """The player about to shoot asks for the half-time break (I.4)."""
        return self._event(E_BREAK, p, now)

    def resume(self, now):
        """Play resumes before the break's time is over."""
        return self._event(E_RESUME, 0, now)

    def timeout(self, p, now):
        """The player at the table takes a time-out now (the clock takes one by itself at zero)."""
        return self._event(E_TIMEOUT, p + 1, now)

    def undo(self, now):
        """Take back the newest entry; the state is exactly as it was just after the one before."""
        if self.closed:
            return CLOSED
        if self.n == 0:
            return _NOTHING_TO_UNDO
        if not self._undo_ready():
            return NO_MEMORY  # an old chunk could not be read back from the flash
        self.n -= 1
        self.edits += 1
        if self.n < self.low:
            self.low = self.n
        self._replay()
        self.resume_at(now)
        return None

    def _undo_ready(self):
        """The chunks the state after an undo is made from are in RAM."""
        k = (self.n - 1) >> _SHIFT  # in RAM again, or read back (a deep undo; False: it could not be)
        if k >= 0 and self._chunks[k] is None and not self._read_back(k, False):
            return False
        k = (self.n - 2) >> _SHIFT
        return k < 0 or self._chunks[k] is not None or self._read_back(k, False)

    # The log's old chunks, read back from the flash: rules_logback.py, loaded for it and dropped
    # (a frame of their own: the `with` would make entry()'s and _undo_ready()'s too big for the
    # stack, and so allocated at every call). aside: chunk k into the one chunk kept aside for
    # reading (entry(): rules_logback.deep, the chunk); else back among the log's chunks (an undo:
    # rules_logback.read_back, False when it could not be read). One method for both: each one
    # the board keeps costs RAM.
    def _read_back(self, k, aside):
        with cold.Rare():
            import rules_logback

            return rules_logback.deep(self, k) if aside else rules_logback.read_back(self, k)

    def resume_at(self, now):
        """Match time goes on at `now` from the newest entry's time: the clocks show what
        they showed just after it (after an undo, or a restore after a power cut)."""
        i = self.n - 1  # the newest entry's match time (0 with no entry)
        self._base = ticks_add(now, -self._chunks[i >> _SHIFT].times[i & _LOW] if i >= 0 else 0)

    def tick(self, now):
        """Let time pass: end a break, take a time-out, call a time foul. Returns entries added."""
        if self.closed:
            return 0
        return self._advance(self._time(now))

    def _replay(self):
        """The state after the first n entries: from the newest checkpoint, then its entries."""
        k = self.n >> _SHIFT
        c = self._chunks[k]
        j = self._from_mid(k)
        if not j:
            if k:
                self._load(self._states[k])
            else:
                self._reset()
        while j < self.n & _LOW:
            self._do(c.codes[j], c.args[j], c.times[j])
            j += 1

    # A checkpoint: every field _reset sets, as ints, and the run of the inning under
    # way (later entries of that inning change it; earlier innings are final).

    def _save(self, st):
        i = 0
        while i < len(_FIELDS):
            st[i] = getattr(self, _FIELDS[i])
            i += 1
        j = 0
        while j < len(_PAIRS):
            pair = getattr(self, _PAIRS[j])
            st[i] = pair[0]
            st[i + 1] = pair[1]
            i += 2
            j += 1
        if self.fmt is not None:
            self.fmt.save(self, st)

    def _load(self, st):
        i = 0
        while i < len(_FIELDS):
            setattr(self, _FIELDS[i], st[i])
            i += 1
        j = 0
        while j < len(_PAIRS):
            pair = getattr(self, _PAIRS[j])
            pair[0] = st[i]
            pair[1] = st[i + 1]
            i += 2
            j += 1
        if self.shooter != NOBODY:
            i = self.played[self.shooter] - 1
            self._runs[self.shooter][i >> RSHIFT][i & _RLOW] = self.run
        if self.fmt is not None:  # after the runs: a shoot-out's run is not an inning's (formats.save)
            self.fmt.load(self, st)

    # ---- clocks ------------------------------------------------------------

    def _advance(self, t):
        added = 0
        while True:
            if self.phase == BREAK:
                end = self.break_start + self.break_ms
                if t >= end:
                    if not self._log(E_BREAK_END, 0, end):
                        return added
                    added += 1
                    continue
            elif self.shot_ms and (self.phase == RUNNING or self.phase == EQUALIZING):
                end = self.shot_anchor + self.shot_limit
                if t >= end:  # a time-out if one is left, else a time foul
                    if not (
                        self._log(E_TIMEOUT, 0, end)
                        if not self.timeout_this_shot and self.timeouts[self.turn] > 0
                        else self._log(E_FOUL, F_TIME, end)
                    ):
                        return added
                    added += 1
                    continue
            elif self.phase == WARMUP:
                end = self.warm_start + self.warmup_ms
                if t >= end:
                    if not self._log(E_WARMUP_END, 0, end):
                        return added
                    added += 1
                    continue
            return added

    def shot_left_ms(self, now):
        """Milliseconds left for this shot, or -1 when no shot clock runs."""
        if not self.shot_ms or not (self.phase == RUNNING or self.phase == EQUALIZING):
            return -1
        left = self.shot_anchor + self.shot_limit - self._time(now)
        return left if left > 0 else 0

    def break_left_ms(self, now):
        """Milliseconds left of the break, or -1 when there is no break."""
        if self.phase != BREAK:
            return -1
        left = self.break_start + self.break_ms - self._time(now)
        return left if left > 0 else 0

    # ---- derived values ------------------------------------------------------

    def countdown(self):
        """Points the player at the table still needs, inside the last 5 (3); else -1."""
        if self.turn == NOBODY:
            return -1
        if self.phase > EQUALIZING:
            return -1
        need = self.targets[self.turn] - self.score[self.turn]
        return need if need <= self.window else -1

    def average_x1000(self, p):
        """GD x 1000, truncated (never more than reached: 30/14 is 2.142), without floats
        (they allocate on the ESP32); a score below 10**5 keeps score * 1000 below 2**30."""
        n = self.innings[p]
        return self.score[p] * 1000 // n if n else 0

    def out_next(self):
        """The next carom must bring an object ball out of the area (II.1.2, II.2.3-4: in 47/1
        every carom, elsewhere every second): the view's OUT."""
        return self.area != 0 and self.area_caroms + 1 >= (1 if self.game == _BALKLINE_47_1 else 2)

    def elapsed_ms(self, now):
        """The match's time from its first stroke (III.4.2), stopped at its end; -1 before the
        first stroke (in the lag, or a match that ended there) and in a warm-up (formats.py)."""
        if not self.played[A] + self.played[B] or self.phase == WARMUP:
            return -1
        done = self.phase == FINISHED or self.phase == TIEBREAK
        return (self.end_t if done else self._time(now)) - self.start_t

    def spot_ball(self):
        """Who plays the spot (yellow) ball: the breaker, or his opponent with breaker_ball=white."""
        if self.breaker == NOBODY:
            return NOBODY
        return 1 - self.breaker if self.white_breaker else self.breaker

    # ---- checking an event ---------------------------------------------------

    def _check(self, code, arg):
        if self.fmt is not None:  # the formats' phases and events (formats.py): -1 leaves it to here
            reason = self.fmt.check(self, code, arg)
            if reason != -1:
                return reason
        phase = self.phase
        if code == E_POINT or code == E_MISS or code == E_FOUL or code == E_TIMEOUT or code == E_JUMPED:
            p = (arg >> 4 if code == E_FOUL or code == E_JUMPED else arg) - 1
            if phase == LAG:
                return IN_LAG
            if phase == FINISHED or phase == TIEBREAK:
                return FINISHED_ALREADY
            if p != NOBODY and p != self.turn:
                return NOT_AT_TABLE
            if code == E_FOUL and arg & 15 == F_ZONE and self.game >= _ONE_CUSHION:
                return CUSHION_GAME
            if code == E_TIMEOUT:
                if not self.shot_ms:
                    return _NO_SHOT_CLOCK
                if phase == BREAK:
                    return NOT_PLAYING
                if self.timeout_this_shot:
                    return _TIMEOUT_USED
                if self.timeouts[self.turn] <= 0:
                    return _NO_TIMEOUTS
            return None
        if code == E_LAG or code == E_CHOOSE:
            return self._check_lag(code, arg)
        if code == E_BREAK or code == E_RESUME:
            return self._check_break(code, arg)
        return BAD_KIND

    def _check_lag(self, code, arg):
        """Why the lag's winner (E_LAG) or his choice (E_CHOOSE) may not be logged now."""
        if self.phase != LAG:
            return LAG_DONE
        if code == E_LAG:
            if self.chooser != NOBODY:
                return LAG_DECIDED
            if arg != A and arg != B:
                return BAD_PLAYER
            return None
        if self.chooser == NOBODY:
            return _NO_CHOICE_YET
        if arg >> 1 != self.chooser:
            return _NOT_CHOOSER
        return None

    def _check_break(self, code, arg):
        """Why player arg may not have the half-time break now (E_BREAK, I.4), or play may not
        resume (E_RESUME)."""
        phase = self.phase
        if code == E_RESUME:
            return None if phase == BREAK else _NOT_IN_BREAK
        if arg != A and arg != B:
            return BAD_PLAYER
        if phase != RUNNING:
            if phase == BREAK:
                return BREAK_TAKEN
            if phase == LAG:
                return IN_LAG
            if phase == EQUALIZING:
                return _BREAK_NOT_HALF
            return FINISHED_ALREADY
        if not self.break_ms:
            return BREAK_OFF
        if self.break_taken:
            return BREAK_TAKEN
        if arg != self.turn:
            return _BREAK_NOT_ASKER
        if self.run:
            return _BREAK_IN_RUN
        if self.score[A] < (self.targets[A] + 1) // 2 and self.score[B] < (self.targets[B] + 1) // 2:
            return _BREAK_NOT_HALF  # at half of the match: either player has half the target (I.4)
        return None

    # ---- doing an event (also used by replay; assumes it was checked) -------

    def _do(self, code, arg, t):
        if self.fmt is not None and self.fmt.do(self, code, arg, t):
            return
        if code == E_POINT or code == E_MISS or code == E_FOUL or code == E_JUMPED:
            if self.phase == BREAK:
                self.phase = RUNNING
                self._restart_shot(t)
            self.last_call = -1
            self.last_foul = -1
            self.respot = 0
            self.respot_balls = 0
            if code == E_POINT:
                self._point(t)
            else:
                if code != E_MISS:
                    self._foul(F_JUMPED if code == E_JUMPED else arg & 15)
                    if code == E_JUMPED:
                        self.respot_balls = arg & 7
                self._end_inning(t)
        elif code == E_TIMEOUT:
            self.timeouts[self.turn] -= 1
            self.timeout_this_shot = 1
            self.shot_limit = self.shot_ms + self.timeout_ms
        elif code == E_BREAK:
            self.phase = BREAK
            self.break_taken = 1
            self.break_start = t
        elif code == E_RESUME or code == E_BREAK_END:
            self.phase = RUNNING
            self._restart_shot(t)
        else:
            self._do_rare(code, arg, t)

    def _do_rare(self, code, arg, t):
        """The rarer entries: the lag's (its winner, a collision, a fault, a tie, the winner's
        choice) and the referee's rarer words (a player leaving or abandoning, an extension, a
        position call, a tie-break's winner, a frozen ball and the choice, a review)."""
        if code == E_LAG:
            self.chooser = arg
        elif code == E_LAG_COLLISION:
            self.collisions += 1
            if arg and self.collisions >= 2:
                self.chooser = 1 - (arg - 1)
        elif code == E_LAG_FAULT:
            self.chooser = 1 - (arg >> 4)
        elif code == E_CHOOSE:
            p = arg >> 1
            self.breaker = 1 - p if arg & 1 else p
            self.chooser = NOBODY
            self.phase = RUNNING
            if not self.played[A] + self.played[B]:  # the match's first stroke (not a deciding set's)
                self.start_t = t
            self._start_inning(self.breaker, t)
        elif code == E_LEFT or code == E_ABANDON:
            self._finish(R_B if arg == A else R_A, END_LEFT if code == E_LEFT else END_ABANDONED, t)
        elif code == E_EXTEND:  # its targets: A's, B's in _targets at 2 * its number
            self.targets[A] = self._targets[2 * arg]
            self.targets[B] = self._targets[2 * arg + 1]
            self.extensions = arg + 1
            self.result = R_NONE
            self.ended_by = 0
            self.phase = RUNNING
            self.respot = RESPOT_START
            self._start_inning(self.breaker, t)
        elif code == E_CALL:
            self._call(arg)
        elif code == E_TIEBREAK:
            self._finish(R_A if arg == A else R_B, END_TIEBREAK, t)
        elif code == E_FROZEN or code == E_FROZEN_CHOICE:  # the arg's low bits: what follows (rules_setup)
            self.respot = arg & 15
            self.respot_balls = 0
            self.last_foul = -1
            if self.respot == RESPOT_START:
                self.area = 0  # the balls on the starting position lie in no area
        elif code == E_LAG_TIE:
            self.lag_ties += 1
        elif code == E_REVIEW:
            self.reviews |= 1 << arg

    def _foul(self, kind):
        self.last_foul = kind
        self.fouls[self.turn] += 1
        if kind == F_JUMPED:
            self.respot = RESPOT_3C if self.game == _THREE_CUSHION else RESPOT_START

    def _call(self, arg):
        """A position call (III.4.3b): the caroms made in a restricted area are counted from
        entre (or a cheval, or dedans: one made) until out; an anchor call marks an anchor."""
        kind = arg & 15
        self.last_call = kind
        if kind == _C_OUT:
            self.area = 0
            return
        if not self.area or not kind:  # outside, or entre again: a new count
            self.area_caroms = 1 if kind == _C_DEDANS else 0
            self.area = 1
        if arg & ANCHOR:
            self.area = 2

    def _start_inning(self, p, t):
        i = self.played[p]  # the runs of every set (formats.py) in one log
        self._runs[p][i >> RSHIFT][i & _RLOW] = 0
        self.played[p] = i + 1
        self.innings[p] += 1
        self.turn = p
        self.shooter = p
        self.run = 0
        self.area = 0
        self._restart_shot(t)

    def _restart_shot(self, t):
        self.shot_anchor = t
        self.shot_limit = self.shot_ms
        self.timeout_this_shot = False

    def _point(self, t):
        p = self.turn
        self.score[p] += 1
        self.run += 1
        i = self.played[p] - 1
        self._runs[p][i >> RSHIFT][i & _RLOW] = self.run
        if self.run > self.high_run[p]:
            self.high_run[p] = self.run
        self.area_caroms += 1
        if self.score[p] < self.targets[p]:
            self._restart_shot(t)
        elif self.phase == EQUALIZING:  # reaching the target ends the inning at once (I.8.3, I.8.4)
            self._finish(R_DRAW if self.draw_allowed else R_TIEBREAK, END_TARGET, t)
        elif self.equalizing and p == self.breaker:
            self.phase = EQUALIZING
            self.respot = RESPOT_START
            self._start_inning(1 - p, t)
        else:
            self._finish(R_A if p == A else R_B, END_TARGET, t)

    def _end_inning(self, t):
        """A miss or a foul ends the inning; the opponent plays, or the match ends. The innings
        limit is the match's as agreed: an extension plays to its own total (I.8.4)."""
        p = self.turn
        if self.phase == EQUALIZING:
            self._finish(R_B if p == A else R_A, END_TARGET, t)
        elif self.innings_limit and not self.extensions and p != self.breaker and self.innings[p] >= self.innings_limit:
            a = self.score[A] * self.targets[B]  # the shares of their own targets (a handicap)
            b = self.score[B] * self.targets[A]
            if a == b:
                self._finish(R_DRAW if self.draw_allowed else R_TIEBREAK, END_INNINGS, t)
            else:
                self._finish(R_A if a > b else R_B, END_INNINGS, t)
        else:
            self._start_inning(1 - p, t)

    def _finish(self, result, how, t):
        if self.fmt is not None and self.fmt.finish(self, result, how, t):
            return  # a set is over, not the match
        if self.phase != TIEBREAK:  # a tie-break's winner, later: the match ended at the draw
            self.end_t = t
        self.phase = TIEBREAK if result == R_TIEBREAK else FINISHED
        self.result = result
        self.ended_by = how
        self.turn = NOBODY
        self.area = 0  # no next carom: no OUT

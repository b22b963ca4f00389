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

# Phases (matchdoc.PHASES names them).
LAG = const(0)
_RUNNING = const(1)
BREAK = const(2)
EQUALIZING = const(3)
FINISHED = const(4)
TIEBREAK = const(5)
_WARMUP = const(8)  # the formats' phases (formats.py; matchnames: SET_OVER 6, SHOOTOUT 7, WARMUP 8)

# Results (matchdoc.RESULTS).
_R_NONE = const(0)
R_A = const(1)
R_B = const(2)
R_DRAW = const(3)
_R_TIEBREAK = const(4)

# How a match ended (matchdoc.ENDINGS).
_END_TARGET = const(1)
_END_INNINGS = const(2)
_END_LEFT = const(3)
_END_TIEBREAK = const(4)
_END_ABANDONED = const(5)

# Foul kinds (I.9.2); "miss" is the empty inning, not counted as a foul;
# "other" is a foul whose kind the board was not told (a wall board's foul button).
_F_MISS = const(0)
_F_JUMPED = const(1)
_F_ZONE = const(8)
F_TIME = const(9)
_F_OTHER = const(10)
_N_FOULS = const(11)  # len(matchwords.FOULS)


# Where the balls go after a jump or a frozen ball (II.3.4, I.5; matchdoc.RESPOTS).
_RESPOT_START = const(1)
_RESPOT_3C = const(2)  # the jumped (or frozen) balls to their spots; respot_balls: which, when told
_RESPOT_CHOICE = const(3)  # a frozen ball in balkline or three-cushion: the player chooses (frozen_choice)

# Position calls (matchwords.CALLS); the call's argument adds _ANCHOR for an anchor (II.2.4).
_C_DEDANS = const(1)
_C_OUT = const(3)
_ANCHOR = const(16)

# Log entry codes (their names and arguments: matchnames.py).
_E_LAG = const(1)
_E_LAG_COLLISION = const(2)
_E_LAG_FAULT = const(3)
_E_CHOOSE = const(4)
_E_POINT = const(5)
_E_MISS = const(6)
_E_FOUL = const(7)
_E_BREAK = const(8)
_E_RESUME = const(9)
_E_LEFT = const(10)
_E_EXTEND = const(11)
_E_CALL = const(12)
_E_TIMEOUT = const(13)
_E_BREAK_END = const(14)
_E_TIEBREAK = const(15)
_E_LAG_TIE = const(16)
_E_ABANDON = const(17)
_E_FROZEN = const(18)
_E_FROZEN_CHOICE = const(19)
_E_JUMPED = const(20)
_E_REVIEW = const(21)
_E_NEXT_SET = const(22)
_E_WARMUP = const(23)
_E_WARMUP_END = const(24)

_CHUNK = const(128)  # log entries per chunk
_SHIFT = const(7)  # _CHUNK == 1 << _SHIFT
_LOW = const(127)  # _CHUNK - 1
_QUARTER = const(32)  # the newest two chunks keep the state before their entries 32, 64, 96 too
_QSHIFT = const(5)  # _QUARTER == 1 << _QSHIFT
_SPARE = const(16)  # reserve() makes the next chunk when fewer entries than this are left
_RUNS = const(64)  # innings' runs per chunk of a player's runs
_RSHIFT = const(6)  # _RUNS == 1 << _RSHIFT
_RLOW = const(63)
_N_STATE = const(53)  # ints in a checkpoint (_save): _FIELDS, _PAIRS' two each, then formats.py's 14
_WINDOW = const(2)  # chunks of the log kept in RAM when the store can read the others back

# Why an event is refused: a small int (a refusal allocates nothing, and the board keeps
# no text of it in RAM). The text after each is for people: reasons.py reads it from
# these lines (the scripted mode, the simulator, the tests). Numbers never change meaning;
# 12, 24..28, 38..40 are in matchevents.py (the rarer events' and the close's), 29..35
# and 41 in matchsetup.py (new()'s).
_CLOSED = const(1)  # match closed
_NOTHING_TO_UNDO = const(2)  # nothing to undo
_NOT_AT_TABLE = const(3)  # that player is not at the table
_NOT_PLAYING = const(4)  # no inning is being played
_IN_LAG = const(5)  # the lag decides who breaks first
_LAG_DONE = const(6)  # the lag is over
_LAG_DECIDED = const(7)  # the lag is decided: the winner chooses
_NOT_CHOOSER = const(8)  # that player does not have the choice
_NO_CHOICE_YET = const(9)  # nobody has won the lag yet
_BAD_PLAYER = const(10)  # player must be A or B
_BAD_KIND = const(11)  # unknown kind
_FINISHED_ALREADY = const(13)  # the match is finished
_CUSHION_GAME = const(14)  # not in cushion games
_BREAK_NOT_HALF = const(15)  # the break is only at half of the match
_BREAK_TAKEN = const(16)  # the break was taken already
_BREAK_IN_RUN = const(17)  # no break during a run
_BREAK_OFF = const(18)  # no break in this match
_BREAK_NOT_ASKER = const(19)  # only the player about to shoot may ask for the break
_NOT_IN_BREAK = const(20)  # there is no break to end
_NO_SHOT_CLOCK = const(21)  # no shot clock in this match
_NO_TIMEOUTS = const(22)  # no time-outs left
_TIMEOUT_USED = const(23)  # one time-out per shot
_NO_MEMORY = const(36)  # no memory left for the match log
LOCKED = const(37)  # the saved match could not be read back: only a new match can be started


def __getattr__(name):
    """The names the board's hot path does not need live in matchnames.py: the games', fouls'
    and calls' names, the log's entry codes, results, endings, limits. Here they are private
    constants, compiled into the code (no RAM); rules.E_POINT and the like still work for
    everyone else (reports, tools, tests), from there. A test checks both agree."""
    return cold.forward("matchnames", name, "rules")


# A checkpoint's fields: the state's ints, then its pairs (a value per player).
_FIELDS = ("phase", "turn", "shooter", "breaker", "chooser", "collisions", "result", "ended_by", "run",
           "last_foul", "last_call", "respot", "respot_balls", "break_taken", "break_start", "shot_anchor",
           "shot_limit", "timeout_this_shot", "extensions", "lag_ties", "reviews", "area", "area_caroms",
           "start_t", "end_t")
_PAIRS = ("targets", "score", "innings", "played", "high_run", "fouls", "timeouts")


def _zeros(typecode, n):
    return array(typecode, bytes(n * (2 if typecode == "H" else 4)))


class _Chunk:
    """_CHUNK log entries: a byte of code, a byte of argument, the match time of each."""

    def __init__(self):
        self.codes = bytearray(_CHUNK)
        self.args = bytearray(_CHUNK)  # an extension's target is in Match._targets, by number
        self.times = _zeros("i", _CHUNK)


class Match:
    """One match: options, the log of accepted events, and the state they give."""

    def __init__(self, capacity=_CHUNK, **options):
        """capacity: entries to make room for now (in whole chunks); the log grows past it.
        The rest of the match's fields: matchsetup.init."""
        self._chunks = [_Chunk()]  # chunk k holds entries k * CHUNK ...; None: only on the flash
        self._runs = [[_zeros("H", _RUNS)], [_zeros("H", _RUNS)]]  # per player: chunks of innings' runs
        self._cap = _CHUNK  # entries the log's chunks hold
        self._runs_cap = [_RUNS, _RUNS]  # innings each player's chunks of runs hold
        cold.call("matchsetup", "init", self, capacity, options)

    # ---- setting up ------------------------------------------------------

    def new(self, now, **options):
        """Start a new match (options as in matchsetup.new: game, target, breaker, ...); on a
        bad option the current match stays as it is and the reason is returned."""
        return cold.call("matchsetup", "new", self, now, options)

    def options(self):
        """This match's options, as new() takes them."""
        return cold.call("matchsetup", "options", self)

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
        self.result = _R_NONE
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
            self.phase = _RUNNING
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
        if (self.n + _SPARE <= self._cap and self.played[0] + _SPARE <= self._runs_cap[0]
                and self.played[1] + _SPARE <= self._runs_cap[1]):
            return True  # nothing to make: no call to _make_room (its try block: a heap frame)
        return self._make_room(_SPARE)

    def _retire(self):
        """Chunks more than _WINDOW back whose entries are all on the flash (below low: the store
        saved them, no undo since) become spares; their entries are read back when needed.
        Below the first chunk already gone only after a read-back (a deep undo: _back)."""
        k = (self.n >> _SHIFT) - _WINDOW
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
                    self._runs[p].append(_zeros("H", _RUNS))
                    self._runs_cap[p] += _RUNS
        except MemoryError:
            self.out_of_memory += 1
            return False
        return True

    def _more_log(self):
        state = _zeros("i", _N_STATE)
        self._chunks.append(self._spare.pop() if self._spare else _Chunk())
        self._states.append(state)
        self._cap += _CHUNK

    def entry(self, i):
        """(code, arg, match time in ms) of log entry i (an extension's arg is its target)."""
        c = self._chunks[i >> _SHIFT]
        if c is None:  # read back from the flash (logback.py: this allocates)
            c = cold.call("logback", "deep", self, i >> _SHIFT)
        j = i & _LOW
        code = c.codes[j]
        arg = c.args[j]
        if code == _E_EXTEND:
            arg = self._targets[2 * arg]  # A's; B's: arg2()
        return code, arg, c.times[j]


    def run_of(self, p, i):
        """The run of player p's inning i (0 = his first)."""
        return self._runs[p][i >> _RSHIFT][i & _RLOW]

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
            self._mids = [_zeros("i", _N_STATE), _zeros("i", _N_STATE), _zeros("i", _N_STATE),
                          _zeros("i", _N_STATE), _zeros("i", _N_STATE), _zeros("i", _N_STATE)]
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
        """Check and log an event at `now` (the rarer events: matchevents._event)."""
        if self.closed:
            return _CLOSED
        t = self._time(now)
        self._advance(t)
        reason = self._check(code, arg)
        if reason is None and not self._log(code, arg, t):
            reason = _NO_MEMORY
        return reason

    # ---- events (the referee's words) -----------------------------------

    def lag(self, p, now):
        """p won the lag (I.1) and chooses to break or to give the break."""
        return self._event(_E_LAG, p, now)

    def choose(self, p, give, now):
        """The lag winner p breaks (give=False) or gives the break (give=True)."""
        if p != A and p != B:
            return _BAD_PLAYER
        return self._event(_E_CHOOSE, p * 2 + (1 if give else 0), now)  # packing: matchnames.E_LAG

    def point(self, p, now):
        """A carom for the player at the table (p = NOBODY, or who it must be)."""
        return self._event(_E_POINT, p + 1, now)

    def miss(self, p, now):
        """An empty stroke: the inning ends."""
        return self._event(_E_MISS, p + 1, now)

    def foul(self, p, kind, now):
        """A foul (kind indexes matchwords.FOULS): the stroke scores nothing, the inning ends."""
        if not 0 <= kind < _N_FOULS:
            return _BAD_KIND
        if kind == _F_MISS:
            return self.miss(p, now)
        return self._event(_E_FOUL, (p + 1) * 16 + kind, now)  # packing: matchnames.E_LAG

    def break_request(self, p, now):
        """The player about to shoot asks for the half-time break (I.4)."""
        return self._event(_E_BREAK, p, now)

    def resume(self, now):
        """Play resumes before the break's time is over."""
        return self._event(_E_RESUME, 0, now)

    def timeout(self, p, now):
        """The player at the table takes a time-out now (the clock takes one by itself at zero)."""
        return self._event(_E_TIMEOUT, p + 1, now)

    def undo(self, now):
        """Take back the newest entry; the state is exactly as it was just after the one before."""
        if self.closed:
            return _CLOSED
        if self.n == 0:
            return _NOTHING_TO_UNDO
        if not self._undo_ready():
            return _NO_MEMORY  # an old chunk could not be read back from the flash
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
        if k >= 0 and self._chunks[k] is None and not cold.call("logback", "read_back", self, k):
            return False
        k = (self.n - 2) >> _SHIFT
        return k < 0 or self._chunks[k] is not None or cold.call("logback", "read_back", self, k)

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
            self._runs[self.shooter][i >> _RSHIFT][i & _RLOW] = self.run
        if self.fmt is not None:  # after the runs: a shoot-out's run is not an inning's (formats.save)
            self.fmt.load(self, st)

    # ---- clocks ------------------------------------------------------------

    def _advance(self, t):
        added = 0
        while True:
            if self.phase == BREAK:
                end = self.break_start + self.break_ms
                if t >= end:
                    if not self._log(_E_BREAK_END, 0, end):
                        return added
                    added += 1
                    continue
            elif self.shot_ms and (self.phase == _RUNNING or self.phase == EQUALIZING):
                end = self.shot_anchor + self.shot_limit
                if t >= end:  # a time-out if one is left, else a time foul
                    if not (self._log(_E_TIMEOUT, 0, end) if not self.timeout_this_shot and self.timeouts[self.turn] > 0
                            else self._log(_E_FOUL, F_TIME, end)):
                        return added
                    added += 1
                    continue
            elif self.phase == _WARMUP:
                end = self.warm_start + self.warmup_ms
                if t >= end:
                    if not self._log(_E_WARMUP_END, 0, end):
                        return added
                    added += 1
                    continue
            return added

    def shot_left_ms(self, now):
        """Milliseconds left for this shot, or -1 when no shot clock runs."""
        if not self.shot_ms or not (self.phase == _RUNNING or self.phase == EQUALIZING):
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
        """GD x 1000, rounded half up, without floats (they allocate on the ESP32)."""
        n = self.innings[p]
        return (self.score[p] * 2000 + n) // (2 * n) if n else 0

    def out_next(self):
        """The next carom must bring an object ball out of the area (II.1.2, II.2.3-4: in 47/1
        every carom, elsewhere every second): the view's OUT."""
        return self.area != 0 and self.area_caroms + 1 >= (1 if self.game == _BALKLINE_47_1 else 2)

    def elapsed_ms(self, now):
        """The match's time from its first stroke (III.4.2), stopped at its end; -1 before the
        first stroke (in the lag, or a match that ended there) and in a warm-up (formats.py)."""
        if not self.played[A] + self.played[B] or self.phase == _WARMUP:
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
        if code == _E_POINT or code == _E_MISS or code == _E_FOUL or code == _E_TIMEOUT or code == _E_JUMPED:
            p = (arg >> 4 if code == _E_FOUL or code == _E_JUMPED else arg) - 1
            if phase == LAG:
                return _IN_LAG
            if phase == FINISHED or phase == TIEBREAK:
                return _FINISHED_ALREADY
            if p != NOBODY and p != self.turn:
                return _NOT_AT_TABLE
            if code == _E_FOUL and arg & 15 == _F_ZONE and self.game >= _ONE_CUSHION:
                return _CUSHION_GAME
            if code == _E_TIMEOUT:
                if not self.shot_ms:
                    return _NO_SHOT_CLOCK
                if phase == BREAK:
                    return _NOT_PLAYING
                if self.timeout_this_shot:
                    return _TIMEOUT_USED
                if self.timeouts[self.turn] <= 0:
                    return _NO_TIMEOUTS
            return None
        if code == _E_LAG or code == _E_CHOOSE:
            return self._check_lag(code, arg)
        if code == _E_BREAK or code == _E_RESUME:
            return self._check_break(code, arg)
        return _BAD_KIND

    def _check_lag(self, code, arg):
        """Why the lag's winner (E_LAG) or his choice (E_CHOOSE) may not be logged now."""
        if self.phase != LAG:
            return _LAG_DONE
        if code == _E_LAG:
            if self.chooser != NOBODY:
                return _LAG_DECIDED
            if arg != A and arg != B:
                return _BAD_PLAYER
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
        if code == _E_RESUME:
            return None if phase == BREAK else _NOT_IN_BREAK
        if arg != A and arg != B:
            return _BAD_PLAYER
        if phase != _RUNNING:
            if phase == BREAK:
                return _BREAK_TAKEN
            if phase == LAG:
                return _IN_LAG
            if phase == EQUALIZING:
                return _BREAK_NOT_HALF
            return _FINISHED_ALREADY
        if not self.break_ms:
            return _BREAK_OFF
        if self.break_taken:
            return _BREAK_TAKEN
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
        if code == _E_POINT or code == _E_MISS or code == _E_FOUL or code == _E_JUMPED:
            if self.phase == BREAK:
                self.phase = _RUNNING
                self._restart_shot(t)
            self.last_call = -1
            self.last_foul = -1
            self.respot = 0
            self.respot_balls = 0
            if code == _E_POINT:
                self._point(t)
            else:
                if code != _E_MISS:
                    self._foul(_F_JUMPED if code == _E_JUMPED else arg & 15)
                    if code == _E_JUMPED:
                        self.respot_balls = arg & 7
                self._end_inning(t)
        elif code == _E_TIMEOUT:
            self.timeouts[self.turn] -= 1
            self.timeout_this_shot = 1
            self.shot_limit = self.shot_ms + self.timeout_ms
        elif code == _E_BREAK:
            self.phase = BREAK
            self.break_taken = 1
            self.break_start = t
        elif code == _E_RESUME or code == _E_BREAK_END:
            self.phase = _RUNNING
            self._restart_shot(t)
        else:
            self._do_rare(code, arg, t)

    def _do_rare(self, code, arg, t):
        """The rarer entries: the lag's (its winner, a collision, a fault, a tie, the winner's
        choice) and the referee's rarer words (a player leaving or abandoning, an extension, a
        position call, a tie-break's winner, a frozen ball and the choice, a review)."""
        if code == _E_LAG:
            self.chooser = arg
        elif code == _E_LAG_COLLISION:
            self.collisions += 1
            if arg and self.collisions >= 2:
                self.chooser = 1 - (arg - 1)
        elif code == _E_LAG_FAULT:
            self.chooser = 1 - (arg >> 4)
        elif code == _E_CHOOSE:
            p = arg >> 1
            self.breaker = 1 - p if arg & 1 else p
            self.chooser = NOBODY
            self.phase = _RUNNING
            if not self.played[A] + self.played[B]:  # the match's first stroke (not a deciding set's)
                self.start_t = t
            self._start_inning(self.breaker, t)
        elif code == _E_LEFT or code == _E_ABANDON:
            self._finish(R_B if arg == A else R_A, _END_LEFT if code == _E_LEFT else _END_ABANDONED, t)
        elif code == _E_EXTEND:  # its targets: A's, B's in _targets at 2 * its number
            self.targets[A] = self._targets[2 * arg]
            self.targets[B] = self._targets[2 * arg + 1]
            self.extensions = arg + 1
            self.result = _R_NONE
            self.ended_by = 0
            self.phase = _RUNNING
            self.respot = _RESPOT_START
            self._start_inning(self.breaker, t)
        elif code == _E_CALL:
            self._call(arg)
        elif code == _E_TIEBREAK:
            self._finish(R_A if arg == A else R_B, _END_TIEBREAK, t)
        elif code == _E_FROZEN or code == _E_FROZEN_CHOICE:  # the arg's low bits: what follows (matchsetup)
            self.respot = arg & 15
            self.respot_balls = 0
            self.last_foul = -1
            if self.respot == _RESPOT_START:
                self.area = 0  # the balls on the starting position lie in no area
        elif code == _E_LAG_TIE:
            self.lag_ties += 1
        elif code == _E_REVIEW:
            self.reviews |= 1 << arg

    def _foul(self, kind):
        self.last_foul = kind
        self.fouls[self.turn] += 1
        if kind == _F_JUMPED:
            self.respot = _RESPOT_3C if self.game == _THREE_CUSHION else _RESPOT_START

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
        if arg & _ANCHOR:
            self.area = 2

    def _start_inning(self, p, t):
        i = self.played[p]  # the runs of every set (formats.py) in one log
        self._runs[p][i >> _RSHIFT][i & _RLOW] = 0
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
        self._runs[p][i >> _RSHIFT][i & _RLOW] = self.run
        if self.run > self.high_run[p]:
            self.high_run[p] = self.run
        self.area_caroms += 1
        if self.score[p] < self.targets[p]:
            self._restart_shot(t)
        elif self.phase == EQUALIZING:  # reaching the target ends the inning at once (I.8.3, I.8.4)
            self._finish(R_DRAW if self.draw_allowed else _R_TIEBREAK, _END_TARGET, t)
        elif self.equalizing and p == self.breaker:
            self.phase = EQUALIZING
            self.respot = _RESPOT_START
            self._start_inning(1 - p, t)
        else:
            self._finish(R_A if p == A else R_B, _END_TARGET, t)

    def _end_inning(self, t):
        """A miss or a foul ends the inning; the opponent plays, or the match ends. The innings
        limit is the match's as agreed: an extension plays to its own total (I.8.4)."""
        p = self.turn
        if self.phase == EQUALIZING:
            self._finish(R_B if p == A else R_A, _END_TARGET, t)
        elif self.innings_limit and not self.extensions and p != self.breaker and self.innings[p] >= self.innings_limit:
            a = self.score[A] * self.targets[B]  # the shares of their own targets (a handicap)
            b = self.score[B] * self.targets[A]
            if a == b:
                self._finish(R_DRAW if self.draw_allowed else _R_TIEBREAK, _END_INNINGS, t)
            else:
                self._finish(R_A if a > b else R_B, _END_INNINGS, t)
        else:
            self._start_inning(1 - p, t)

    def _finish(self, result, how, t):
        if self.fmt is not None and self.fmt.finish(self, result, how, t):
            return  # a set is over, not the match
        if self.phase != TIEBREAK:  # a tie-break's winner, later: the match ended at the draw
            self.end_t = t
        self.phase = TIEBREAK if result == _R_TIEBREAK else FINISHED
        self.result = result
        self.ended_by = how
        self.turn = NOBODY
        self.area = 0  # no next carom: no OUT

"""The wall board's voice: the referee's calls spoken from a pack of clips on the flash.

    voice, code = speech_setup.make(speaker, voice_config, match, machine)  # app_cold.voice_wake
    ctrl.voice = voice                  # the controller tells it what happened
    asyncio.create_task(voice.run())    # the clips streamed to I2S (app_cold.start: the tasks' start)

What is said and when (rules.md, "What the referee announces"): the countdown of the player at
the table, a zero inning, a foul by its kind, the equalizing inning, the end and its result,
the half-time break and its last minute, the shot clock's 10 seconds and a time-out, a set
over; each point's running total only when asked (voice.totals). A refused press stays the
buzzer's (sound.py).

The controller calls prior(m) and calls_for(m) around each accepted action and each clock entry:
calls_for() compares the match with what prior() kept and queues the calls, (kind, argument)
pairs in a preallocated queue; allocation-free (the press path). A newer countdown or total
drops the one still waiting (a point made while "three" is spoken: "two" comes next, not
"three"), and so does any point (a countdown waiting when the last point ends the match);
a full queue drops its oldest; an undo drops all that wait. The task (run, a
step() at a time) takes one call at a time, makes it words (a clip number each; numbers by the pack's language,
speech_hu.py, speech_en.py, speech_de.py), and streams each clip from the open pack file to
the I2S amplifier through one buffer, a chunk at a time (machine.I2S in non-blocking mode: its
interrupt says the chunk was taken): nothing is allocated per chunk. Every clip is checked
against its length and CRC at the start (speech_setup.py); a damaged one is said then (the
console, E 25 for a while) and skipped whenever a call needs it; a missing one (not in the
pack) is said the first time a call needs it, then skipped too (speech_setup.missing).
"""

from array import array

import cold
from matchnames import SET_OVER, SHOOTOUT
from rules import BREAK, EQUALIZING, FINISHED, NOBODY, R_A, R_B, R_DRAW, TIEBREAK
from voicenames import (
    CHUNK,
    C_BREAK,
    C_CLOCK,
    C_COUNT,
    C_END,
    C_EQUALIZING,
    C_FOUL,
    C_MINUTE,
    C_SET,
    C_SHOOTOUT,
    C_TIMEOUT,
    C_TOTAL,
    C_ZERO,
    K_BREAK,
    K_DRAW,
    K_END,
    K_EQUALIZING,
    K_FOUL,
    K_MINUTE,
    K_SECONDS,
    K_SET,
    K_SHOOTOUT,
    K_TIMEOUT,
    K_WHITE,
    K_WINS,
    K_YELLOW,
)

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_QUEUE = const(8)  # calls waiting
_WORDS = const(20)  # clips in one call at most: the end's, two numbers of up to 7 words
_IDLE_MS = const(20)  # the task looks for a call this often
_TAKEN_MS = const(5)  # and, while a chunk is being taken, for its end
GOOD = const(1)  # a clip's state (0: not in the pack): checked at the start and good
BAD = const(2)  # damaged (or missing, once said): skipped
_MINUTE_MS = const(60000)


class Voice:
    """Speaks the calls (see above) from `pack` (the open pack file, `index` its clips' offset
    and length in chunks, an array("H") of 2 per clip) on `i2s` (machine.I2S: TX, 16-bit mono), in the
    language of `words` (speech_xx: its number()), as `setup` says: (the I2S's pins bck, ws and
    din, the shift (I2S.shift's, 0 or less: the volume), the mask of the calls said (a bit per
    kind, voicenames.C_...)); speech_setup.make makes it again from that after a rest."""

    def __init__(self, m, i2s, pack, index, words, setup):
        self.m = m
        self.setup = setup
        self.i2s = i2s
        self.pack = pack
        self.index = index
        self.words = words
        self.shift = setup[3]
        self.mask = setup[4]
        self.buf = bytearray(CHUNK)  # the one buffer every chunk goes through
        self.state = bytearray(len(index) // 2)  # per clip: 0 (not in the pack), GOOD, BAD
        self._kinds = bytearray(_QUEUE)  # the calls waiting, oldest first
        self._args = array("H", bytes(2 * _QUEUE))
        self._len = 0
        self._clips = bytearray(_WORDS)  # the call being said, as clip numbers
        self.busy = 0  # a chunk is being taken by the I2S (its interrupt clears it)
        self.speaking = 0  # a call is being said
        self._cn = self._cj = self._left = 0  # the call's clips, the next one, the clip's bytes left
        self.said = 0  # calls said, and clips skipped (tests, the bench)
        self.skipped = 0
        self.board = None  # app.Board, once it runs (an E code on its displays)
        self.rest = False  # True: its task ends at its next step, then 2 (app_cold.voice_rest: a report)
        self.done = self._done  # the interrupt's handler, made once
        # The match before the action (prior()).
        self._n = self._turn = self._phase = self._cd = self._run = self._score = self._timed_out = 0
        self._break = -1  # the break's ms left at the last tick

    # ---- what to say: the press path, allocation-free --------------------------------
    # Small methods: MicroPython keeps small call frames (11 words) off the heap.

    def say(self, kind, arg):
        """Queue a call, if it is one of the mask's; a countdown or a total drops the one
        still waiting; a full queue its oldest."""
        if not (self.mask >> kind) & 1:
            return
        if kind == C_COUNT or kind == C_TOTAL:
            self._drop(C_COUNT, C_TOTAL)
        if self._len == _QUEUE:
            self._drop(self._kinds[0], 255)
        self._kinds[self._len] = kind
        self._args[self._len] = arg
        self._len += 1

    def _drop(self, a, b):
        """Drop the waiting calls of kind a or b (the first one only when b is 255)."""
        j = 0
        for i in range(self._len):
            k = self._kinds[i]
            if (k == a or k == b) and (b != 255 or i == 0):
                continue
            self._kinds[j] = k
            self._args[j] = self._args[i]
            j += 1
        self._len = j

    def pending(self):
        return self._len

    def prior(self, m):
        """The match as it was before an action, or a clock's step."""
        self._n = m.n
        self._turn = m.turn
        self._phase = m.phase
        self._cd = m.countdown()
        self._run = m.run
        self._timed_out = m.timeout_this_shot
        self._score = m.score[m.turn] if m.turn != NOBODY else 0

    def calls_for(self, m):
        """What the action (or the clock) did, as calls."""
        if m.n <= self._n:
            if m.n < self._n:  # an undo, a new match: what waits is stale
                self._len = 0
            return
        if self._turn != NOBODY and m.score[self._turn] != self._score:
            self._drop(C_COUNT, C_TOTAL)  # a point: the countdown or total still waiting is stale
        elif self._turn != NOBODY and m.turn != self._turn:
            self._inning_end(m)
        if m.phase != self._phase:
            self._phase_call(m.phase)
        elif m.timeout_this_shot and not self._timed_out:
            self.say(C_TIMEOUT, 0)
        self._count(m)

    def _inning_end(self, m):
        """An inning ended without a point: its foul, or a zero inning."""
        if m.last_foul >= 0:
            self.say(C_FOUL, m.last_foul)
        elif self._run == 0:
            self.say(C_ZERO, 0)

    def _phase_call(self, phase):
        if phase == FINISHED or phase == TIEBREAK:
            self.say(C_END, 0)
        elif phase == EQUALIZING:
            self.say(C_EQUALIZING, 0)
        elif phase == BREAK:
            self.say(C_BREAK, 0)
            self._break = -1
        elif phase == SET_OVER:
            self.say(C_SET, 0)
        elif phase == SHOOTOUT:
            self.say(C_SHOOTOUT, 0)

    def _count(self, m):
        """The countdown of the player at the table; else, if asked for, a point's total."""
        cd = m.countdown()
        if cd > 0 and (cd != self._cd or m.turn != self._turn):
            self.say(C_COUNT, cd)
        elif m.turn != NOBODY and m.turn == self._turn and m.score[m.turn] > self._score:
            self.say(C_TOTAL, m.score[m.turn])

    def tick(self, m, now):
        """The clock's step: the break's last minute."""
        left = m.break_left_ms(now)
        if 0 < left <= _MINUTE_MS < self._break:
            self.say(C_MINUTE, 0)
        self._break = left

    # ---- saying it: the task ----------------------------------------------------------

    def _done(self, i2s):
        """The I2S took the chunk (its interrupt, scheduled): the buffer is free again."""
        self.busy = 0

    def step(self):
        """One step of the speaking: the next chunk to the I2S, the next clip or call begun;
        how long to wait before the next (ms). Separate from the task, so tests speak without
        time passing (their I2S takes each chunk at once)."""
        if self.busy:  # the I2S has not taken the chunk yet: the buffer is still its
            return _TAKEN_MS
        if self._left <= 0:
            if self._cj >= self._cn:  # the call is said
                if not self._len:
                    self.speaking = 0
                    return _IDLE_MS
                self._cn = self._next()
                self._cj = 0
                self.speaking = 1
                return 0
            self._left = self._open(self._clips[self._cj])
            self._cj += 1
            return 0
        self._fill()
        self.busy = 1
        self.i2s.write(self.buf)
        self._left -= CHUNK
        return 0

    async def run(self):
        """The task: step() after step(), the I2S taking each chunk in the background; until
        the voice rests (then the bus and the pack are let go)."""
        import asyncio

        sleep_ms = asyncio.sleep_ms
        self.i2s.irq(self.done)  # non-blocking from now on
        while not self.rest:
            await sleep_ms(self.step())
        while self.busy:
            await sleep_ms(_TAKEN_MS)
        self.i2s.irq(None)  # the port keeps its I2S objects: its handler must not keep the voice
        self.i2s.deinit()
        self.pack.close()
        self.rest = 2  # rested

    def idle(self):
        """Nothing to say, nothing being said."""
        return not (self._len or self.speaking or self.busy)

    def _fill(self):
        """The clip's next chunk into the buffer, at the volume."""
        self.pack.readinto(self.buf)
        if self.shift:
            self.i2s.shift(buf=self.buf, bits=16, shift=self.shift)

    def _next(self):
        """The oldest call, taken from the queue and made words (self._clips); how many."""
        kind = self._kinds[0]
        arg = self._args[0]
        self._drop(kind, 255)
        self.said += 1
        return self._words(kind, arg)

    def _words(self, kind, arg):
        if kind == C_COUNT or kind == C_TOTAL:
            return self.words.number(arg, self._clips, 0)
        if kind == C_ZERO:
            return self.words.number(0, self._clips, 0)
        if kind == C_CLOCK:
            self._clips[1] = K_SECONDS  # ten (one word in each language), seconds
            return self.words.number(10, self._clips, 0) + 1
        if kind == C_END:
            return self._end(self._clips)
        if kind == C_SET:
            return self._sets(self.m)
        self._clips[0] = _WORD[kind] + (arg if kind == C_FOUL else 0)
        return 1

    def _sets(self, m):
        """A set is over: the sets won, A's first."""
        self._clips[0] = K_SET
        i = self.words.number(m.sets_won[0], self._clips, 1)
        return self.words.number(m.sets_won[1], self._clips, i)

    def _end(self, out):
        """The end: the winner (by his ball: the breaker plays the yellow) or a draw, then the
        score, the winner's first."""
        m = self.m
        out[0] = K_END
        r = m.result
        if r == R_A or r == R_B:
            w = 0 if r == R_A else 1
            out[1] = K_YELLOW if m.spot_ball() == w else K_WHITE
            out[2] = K_WINS
            return self._scores(m, w, 3)
        out[1] = K_DRAW if r == R_DRAW else K_SHOOTOUT
        return self._scores(m, 0, 2)

    def _scores(self, m, first, i):
        """The score (a set match's: the sets won), player `first`'s first, into the call from i."""
        s = m.sets_won if m.fmt is not None and m.sets_to_win else m.score
        i = self.words.number(s[first], self._clips, i)  # (one call at a time: a small frame)
        return self.words.number(s[1 - first], self._clips, i)

    def _open(self, k):
        """Seek clip k; its bytes to play, or 0 when it is missing or damaged (skipped)."""
        if self.state[k] != GOOD:
            if not self.state[k]:
                self._missing(k)
            self.skipped += 1
            return 0
        self.pack.seek(self.index[2 * k] * CHUNK)
        return self.index[2 * k + 1] * CHUNK

    def _missing(self, k):
        """A call needs clip k, which the pack lacks: said once (speech_setup.py), then skipped."""
        self.state[k] = BAD
        with cold.Rare():
            import speech_setup

            speech_setup.missing(self, k)


# The word of each call that is one word (by kind; a foul's is K_FOUL + its kind).
_WORD = bytes((0, 0, 0, K_FOUL, K_EQUALIZING, 0, K_BREAK, 0, K_TIMEOUT, 0, 0, K_MINUTE, K_SHOOTOUT))

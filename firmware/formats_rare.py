"""The formats' code for their rarer moments: the warm-up, a set's end and the next set,
the shoot-out, and what the wall shows of them (formats.py's and formats_wall.py's: one
part of rules.Match and view.View in a module of its own).

A match with formats keeps formats.py in RAM; this part only once it may be needed,
so that a board at the start of a match (or playing one that never reaches these
moments) does not hold it. formats.more() loads it and formats.rare keeps it (only
there: not in sys.modules on MicroPython) until the next match (formats.init lets
it go). It is loaded:

- for the warm-up and the next set: at their press (the referee's warmup and
  next_set buttons go through rules_events.py, which allocates already);
- for a set's end and the shoot-out: AHEAD of need, when a level end comes near in
  a match with sets or the shoot-out (formats.ready: the last points, the equalizing
  inning, the innings limit's last rounds, or the level has ended), by the clock
  task (formats_wall.tick, as rules.Match.reserve makes the log's next chunk), or
  else on the event's path (rules.Match._room), which refuses the event for want
  of memory (E 24) when it cannot be loaded, as when the log has no room;
- whenever a replay (a restore, an undo) or a view needs it and it is not there
  (formats.more(): this allocates; an undo's replay finds it loaded, as every entry
  it replays was played with it in RAM).

Nothing here allocates: once loaded, the button path stays allocation-free. Its
functions take the match (m) or the view or controller (self) as formats.py's and
formats_wall.py's do.
"""

import sound
from formats import MAX_SETS, ROUNDS
from matchnames import (
    BAD_PLAYER,
    BREAK_OFF,
    BREAK_TAKEN,
    END_SHOOTOUT,
    E_BREAK,
    E_BREAK_END,
    E_FOUL,
    E_JUMPED,
    E_LAG,
    E_MISS,
    E_NEXT_SET,
    E_POINT,
    E_RESUME,
    E_TIMEOUT,
    E_WARMUP,
    E_WARMUP_END,
    IN_WARMUP,
    NO_TIMEOUT_HERE,
    RUNNING,
    R_TIEBREAK,
    SET_IS_OVER,
    SET_OVER,
    SHOOTOUT,
    WARMUP,
    WARMUP_LATE,
)
from rules import LAG, NOBODY, R_A, R_B, R_DRAW
from viewnames import BLINK_1HZ, BREAK_CLOCK, PLAIN, STEPS

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# The messages, as view.py keeps its own: each between four blanks (a marquee's window
# sees blanks around it); where each starts and its length. SHOOT-OUT is followed by its
# round's number, written into the text when the round changes (up to 3 digits, blanks
# after; 999 past 999).
_TEXT = bytearray(b"    SET OVER    SHOOT-OUT 1      WARM-UP A    WARM-UP B    ")
_AT = b"\x04\x10\x21\x2e"
_LEN = b"\x08\x0d\x09\x09"
_ROUND_AT = const(26)  # where the shoot-out's round number is written in _TEXT
_MESSAGES = const(1000000)  # a message value at or above: one of these, * STEPS + its marquee's step
_ROUND = const(1000)  # a message value: + the shoot-out's round * _ROUND

LAST_MINUTE_S = 60  # the warm-up's clock blinks in its last minute, whose start beeps

_warm_s = -1  # the warm-up's whole seconds left at the latest tick (-1: none runs)


# ---- the match (formats.py's) -------------------------------------------------------
# Small functions: MicroPython keeps a call's frame on the C stack only while it is small.


def check(m, code, arg):
    """formats.check's part: the warm-up (its event, the events during it), the shoot-out,
    between sets (phase set_over, or a break between sets); -1: rules.py checks it."""
    phase = m.phase
    if code == E_WARMUP:
        if phase != WARMUP and not _before_first_stroke(m):
            return WARMUP_LATE
        return BAD_PLAYER if arg != 0 and arg != 1 else None
    if phase == WARMUP:
        return None if code == E_RESUME or code == E_WARMUP_END else IN_WARMUP
    if phase == SHOOTOUT:  # a stroke: rules.py checks it as any (the player, the zone)
        return NO_TIMEOUT_HERE if code == E_TIMEOUT else -1
    if code == E_BREAK:  # the break between sets, in phase set_over
        if arg != 0 and arg != 1:
            return BAD_PLAYER
        if not m.break_ms:
            return BREAK_OFF
        return BREAK_TAKEN if m.break_taken else None
    if E_POINT <= code <= E_FOUL or code == E_TIMEOUT or code == E_JUMPED or code == E_LAG:
        return SET_IS_OVER
    return -1


def _before_first_stroke(m):
    """No stroke played yet: the lag (not the deciding set's), or the breaker (preset) not yet
    at it."""
    if m.phase == LAG:
        return m.set_no == 1
    return (
        m.phase == RUNNING
        and m.set_no == 1
        and m.innings[0] + m.innings[1] == 1
        and not m.run
        and m.last_foul < 0
        and m.score[0] + m.score[1] == 0
    )


def do(m, code, arg, t):
    """formats.do's part: the warm-up, the next set, the shoot-out's strokes, a break between
    sets; False when rules.py does it."""
    phase = m.phase
    if code == E_WARMUP:
        if phase != WARMUP:
            m.warm_back = phase
        m.phase = WARMUP
        m.warm_p = arg
        m.warm_start = t
        return True
    if phase == WARMUP and (code == E_RESUME or code == E_WARMUP_END):  # not a review, leaving
        m.phase = m.warm_back
        m.warm_p = NOBODY
        if m.phase == RUNNING:
            m.start_t = t  # the first stroke comes now
            m._restart_shot(t)
        return True
    if code == E_NEXT_SET:
        _next_set(m, t)
        return True
    if phase == SHOOTOUT and (E_POINT <= code <= E_FOUL or code == E_JUMPED):
        _shootout_stroke(m, code, arg, t)
        return True
    if (code == E_RESUME or code == E_BREAK_END) and m.turn == NOBODY:  # (formats.do: between sets)
        m.phase = SET_OVER  # a break between sets ends where it began
        return True
    return False


def finish(m, result, how, t):
    """formats.finish's part: a level end that may not stand goes to the shoot-out, or in a set
    match without it to a tie-break for the set. A set won: phase SET_OVER unless it won the
    match (a set match's ends but leaving or abandoning). False: rules.py ends the match."""
    if result == R_DRAW or result == R_TIEBREAK:
        if m.shootout and (result == R_TIEBREAK or m.sets_to_win):
            _start_shootout(m)
            return True
        if m.sets_to_win and result == R_DRAW:  # a set is not drawn: its tie-break
            m._finish(R_TIEBREAK, how, t)
            return True
        return False
    _record_set(m)
    w = result - R_A
    m.sets_won[w] += 1
    if m.sets_won[w] >= m.sets_to_win:
        return False
    m.phase = SET_OVER
    m.result = 0
    m.ended_by = how
    m.turn = NOBODY
    m.area = 0
    return True


def _record_set(m):
    k = m.set_no - 1
    m.set_scores[k] = m.score[0]
    m.set_scores[k + 2 * MAX_SETS] = m.score[1]


def _start_shootout(m):
    """A set's shoot-out keeps its rounds after an earlier set's (so_base), so an undo back into
    that set finds them as they were (a checkpoint keeps so_base and so_round, not the runs)."""
    m.phase = SHOOTOUT
    m.so_base = (m.so_base + m.so_round) % ROUNDS
    m.so_round = 0
    m.so_runs[m.so_base] = 0
    m.so_runs[m.so_base + ROUNDS] = 0
    m.respot = 0
    m.area = 0
    m.turn = m.breaker
    m.shooter = m.breaker
    m.run = 0


def _next_set(m, t):
    if m.set_no == 1:
        m.first_breaker = m.breaker
    m.set_no += 1
    deciding = m.sets_won[0] == m.sets_to_win - 1 and m.sets_won[1] == m.sets_to_win - 1
    _new_set_for(m, 0, deciding)
    _new_set_for(m, 1, deciding)
    m.run = 0
    m.ended_by = 0
    m.last_foul = -1
    m.last_call = -1
    m.respot = 0
    m.respot_balls = 0  # a jump that ended the set: its balls are not the next set's
    m.break_taken = 0
    m.extensions = 0
    m.chooser = NOBODY
    if deciding:  # a new lag (rules.md: the deciding set starts with the lag)
        m.phase = LAG
        m.breaker = NOBODY
        m.collisions = 0
        m.lag_ties = 0
        m.shooter = NOBODY
    else:
        m.breaker = m.first_breaker if m.set_no & 1 else 1 - m.first_breaker
        m.phase = RUNNING
        m._start_inning(m.breaker, t)


def _new_set_for(m, p, deciding):
    m.match_score[p] += m.score[p]  # the sets before this one
    if m.high_run[p] > m.match_high[p]:
        m.match_high[p] = m.high_run[p]
    m.targets[p] = m.deciding_target if deciding and m.deciding_target else m.targets0[p]
    m.score[p] = 0
    m.innings[p] = 0
    m.high_run[p] = 0
    m.timeouts[p] = m.timeouts0


def load(m):
    """formats.load's part in the shoot-out: the round under way, whose runs may be a later
    one's (undone)."""
    m.so_runs[_so_at(m, m.turn)] = m.run
    if m.turn == m.breaker:
        m.so_runs[_so_at(m, 1 - m.turn)] = 0


def _shootout_stroke(m, code, arg, t):
    if code == E_POINT:
        m.run += 1
        m.so_runs[_so_at(m, m.turn)] = m.run
        return
    m.last_foul = -1 if code == E_MISS else (1 if code == E_JUMPED else arg & 15)
    if m.turn == m.breaker:  # the other plays his inning of the round
        m.turn = 1 - m.turn
        m.shooter = m.turn
        m.run = 0
        m.so_runs[_so_at(m, m.turn)] = 0
    else:
        _so_round_end(m, t)


def _so_at(m, p):
    """Where p's run of the current round is kept in m.so_runs."""
    return (m.so_base + m.so_round) % ROUNDS + p * ROUNDS


def _so_round_end(m, t):
    """Both played: the longer run wins; equal runs play another round."""
    a = m.so_runs[_so_at(m, 0)]
    b = m.so_runs[_so_at(m, 1)]
    m.so_round += 1
    if a != b:
        m.turn = NOBODY
        m._finish(R_A if a > b else R_B, END_SHOOTOUT, t)
        return
    m.turn = m.breaker
    m.shooter = m.breaker
    m.run = 0
    m.so_runs[_so_at(m, 0)] = 0
    m.so_runs[_so_at(m, 1)] = 0


def summary(m, s):
    """controller.summary in the formats' phases (the remote's display, app_remote.py):
    set_over (A's sets won, B's, turn, phase, the set's number, result); shootout (the
    round's runs A, B, turn, phase, the round's number up to 255, result); warmup (0, 0,
    the player warming up, phase, 255, result)."""
    ph = m.phase
    if ph == SET_OVER:
        return (m.sets_won[0], m.sets_won[1], s[2], ph, m.set_no, s[5])
    if ph == SHOOTOUT:
        return (m.so_runs[_so_at(m, 0)], m.so_runs[_so_at(m, 1)], s[2], ph, min(m.so_round + 1, 255), s[5])
    return (0, 0, m.warm_p, ph, 255, s[5])


def warmup_left_ms(m, now):
    """Milliseconds left of the warm-up, or -1 when none runs."""
    if m.phase != WARMUP:
        return -1
    left = m.warm_start + m.warmup_ms - m._time(now)
    return left if left > 0 else 0


# ---- the wall board (formats_wall.py's) -------------------------------------------------


def shootout_run(m, p):
    """A.run, B.run: in the shoot-out, the round's runs (the second player's blank until his
    inning); after the shoot-out decided, its deciding round's."""
    if m.phase == SHOOTOUT:
        if p != m.breaker and m.turn == m.breaker:
            return -1  # the round's second inning is still to come
        return m.so_runs[_so_at(m, p)]
    if m.so_round:  # decided by the shoot-out: its last round
        return m.so_runs[(m.so_base + m.so_round - 1) % ROUNDS + p * ROUNDS]
    return PLAIN


def message(self, s, now):
    """The message display in the formats' phases: SET OVER, SHOOT-OUT 2 (the round), WARM-UP A,
    WARM-UP B, drawn here (the view finds it drawn)."""
    k = self.m.phase - SET_OVER
    r = 0
    if k == WARMUP - SET_OVER:
        k += self.m.warm_p  # WARM-UP A, WARM-UP B
    elif k == SHOOTOUT - SET_OVER:
        r = self.m.so_round + 1
        if r > 999:
            r = 999
    v = _MESSAGES + r * _ROUND + k * STEPS + self._step(_LEN[k], now)
    if v != self._last[s]:
        if r and (v - _MESSAGES) // _ROUND != (self._last[s] - _MESSAGES) // _ROUND:
            _round_text(r)
        self._last[s] = v
        _draw_message(self._chip(s), k, v % STEPS)
    return v


def _draw_message(chip, k, step):
    chip.set_window(_TEXT, _AT[k] + step - 4)  # each runs right to left (longer than 4)


def _round_text(r):
    """The shoot-out's round number into _TEXT after SHOOT-OUT (no allocation)."""
    i = _ROUND_AT
    d = 100
    while d > r and d > 1:
        d //= 10
    while i < _ROUND_AT + 3:
        if d:
            _TEXT[i] = 48 + r // d % 10
            d //= 10
        else:
            _TEXT[i] = 32
        i += 1


def clock(self, s, now):
    """The clock in the warm-up: its time left (m:ss), blinking in its last minute."""
    left = (warmup_left_ms(self.m, now) + 999) // 1000
    if left <= LAST_MINUTE_S:
        self._blink[self._disp[s]] = BLINK_1HZ
    return BREAK_CLOCK + left


def tick(self, now):
    """Controller.tick's part: three beeps when the warm-up's last minute begins."""
    global _warm_s
    m = self.m
    s = (warmup_left_ms(m, now) + 999) // 1000 if m.phase == WARMUP else -1
    if s <= LAST_MINUTE_S < _warm_s:
        self.buzzer.cue(sound.CLOCK, 3)
    _warm_s = s

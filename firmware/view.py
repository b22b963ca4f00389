"""What the wall board shows: the match drawn onto HT16K33 chips and LEDs.

    v = View(board, chips, leds, match)    # chips: one driver per board display
    v.render(now)                          # after every event, and a few times a second

The board definition says which chip shows which field (see boarddef.py);
the slots are turned into small ints once (view_setup.py, loaded for it and
dropped), so render() allocates nothing:
it writes digits into the chips' frames and each chip's show() sends only
what changed.  A chip with nothing sent since before the previous 0.8 s period
of the ms counter is asked whether it is still there (ht16k33's
show(probe=True): 2 bytes on the bus; so every 1.6 s while it is quiet, at the
period's first render, the same for every chip: a board's writes do not drift
with the moments it renders), so an unplugged chip is noticed within RETRY_MS
without a press.  A chip that stops answering is
retried every RETRY_MS and reported through `failed` (its error code shown);
the others keep working.

A name (with its club) longer than its display runs by once, right to left,
after the names change (the board's start, a new match), then stands as its
short form (view_setup.short_name: the surname, cut to fit).

The clock field shows, first that applies: the break's time left (m:ss, colon
lit); the shot clock's seconds (blinking in its last WARN_S); else, past the
lag, the match's time since its first stroke in whole minutes (h:mm, colon lit,
rounded down, stopped at the end; blank in a slot of fewer than 3 cells). The
referee remote's one display is such a field: it shows the same (III.4.2 is the
referee's). A time too long for the slot shows dashes, as every number.

The target field shows the target of the player at the table (A's when nobody
is): in a handicap match each has his own, which A.target and B.target show.
A match with sets, a shoot-out or a warm-up is drawn with formats_wall.py's help
(loaded only for such a match): the set score on the sets field, and on the
countdown's between its last points; the shoot-out's runs in the run fields;
the warm-up's time left on the clock (m:ss, blinking in its last minute); the
messages SET OVER, SHOOT-OUT, WARM-UP A/B. In a plain match sets is blank.

The message field shows, first that applies: LAG; the result (A WINS, B WINS,
DRAW), TIE-BREAK; BREAK; after a frozen ball, what follows until the next stroke
(FROZEN: the player chooses; RESPOT: all three to the start; SPOTS: to their
spots; FREE BALL; MASSE); OUT (blinking: the next carom must bring an object
ball out of the area); LAST n (blinking); EQUALIZING INNING; TIME; FOUL.
"""

import cold
from rules import BREAK, EQUALIZING, FINISHED, F_TIME, LAG, R_A, R_B, R_DRAW, TIEBREAK
from ticks import ticks_add, ticks_diff
from viewnames import (
    AVERAGE,
    BLINK_1HZ,
    BLINK_2HZ,
    BLINK_HALF_HZ,
    BREAK_CLOCK,
    CLOCK,
    COUNTDOWN,
    HIGH_RUN,
    INNINGS,
    MESSAGE,
    NAME,
    OWN_TARGET,
    PER_PLAYER,
    PLAIN,
    RUN,
    SCORE,
    SETS,
    STALE,
    STEPS,
    TARGET,
)

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


SCROLL_MS = 300  # a marquee moves one character this often
RETRY_MS = 2000  # a dead chip is tried again this often
_PROBE_MS = const(800)  # a chip quiet for a whole such period of the ms counter is probed
WARN_S = 10  # the shot clock blinks in its last seconds

_POW10 = (1, 10, 100, 1000, 10000)
_DASH7 = const(0x40)  # "-" on a 7-segment cell: a number too big for its field
_DASH14 = const(0xC0)  # and on a 14-segment one

# Messages for the 14-segment message chip, in one bytes (one object, not fifteen): each
# between four blanks, so a window a marquee moves over it shows blanks around it, as
# around any text. Bytes, not str: indexing a str makes a 1-character string (an
# allocation the first time each character is seen); indexing bytes gives an int.
_TEXT = (
    b"    LAG    BREAK    EQUALIZING INNING    DRAW    TIE-BREAK    FOUL    TIME    A WINS    B WINS"
    b"    RESPOT    SPOTS    FROZEN    FREE BALL    MASSE    LAST 1    LAST 2    LAST 3    LAST 4    LAST 5"
    b"    OUT    "
)


def _index(text):
    """Where each message starts in `text`, and its length (message 0: none)."""
    at = bytearray(1)
    n = bytearray(1)
    i = 4
    while i < len(text):
        j = text.find(b"    ", i)
        at.append(i)
        n.append(j - i)
        i = j + 4
    return bytes(at), bytes(n)


_MSG_AT, _MSG_LEN = _index(_TEXT)
del _index


def _try_show(chip, probe):
    """1: written (or probed), 0: nothing to write, -1: the chip does not answer (a
    function: a method's frame would be too big to stay off the heap)."""
    try:
        return 1 if chip.show(probe) else 0
    except OSError:
        return -1


_MSG_NONE = const(0)
_MSG_LAG = const(1)
_MSG_BREAK = const(2)
_MSG_EQUALIZING = const(3)
_MSG_DRAW = const(4)
_MSG_TIEBREAK = const(5)
_MSG_FOUL = const(6)
_MSG_TIME = const(7)
_MSG_WINS = const(8)
_MSG_RESPOT = const(9)  # + match.respot: what follows a frozen ball (rules' order)
_MSG_LAST = const(15)  # from here on the messages blink: what the next strokes must do
_MSG_OUT = const(20)

_ELAPSED_CLOCK = const(2000000)  # and at or above this: the match's minutes


class View:
    def __init__(self, board, chips, leds, match):
        """board: a normalized board definition; chips: a driver per board["displays"]
        entry (None for a chip left out); leds: a dict LED name -> pin object.
        The tables are made by view_setup.py, which leaves RAM afterwards."""
        with cold.Rare():
            import view_setup

            view_setup.init(self, board, chips, leds, match)

    def new_match(self):
        """Build the name marquees once per match (view_setup.py; this allocates, rendering
        does not). Short of memory, the names shown so far stay."""
        try:
            with cold.Rare():
                import view_setup

                view_setup.names(self)
        except MemoryError:
            pass
        self.invalidate()

    # ---- drawing ----------------------------------------------------------------
    #
    # Each slot's content is reduced to one int (its "value"); a slot is drawn
    # only when its value changed, so a press redraws a few fields, not all.
    # Methods stay small on purpose: MicroPython keeps a call's frame on the C stack only
    # while it is small (11 words); larger frames would be heap allocations.

    def invalidate(self, k=None):
        """Draw every slot again at the next render (new match, error cleared); with k,
        only chip k's."""
        last = self._last
        s = 0
        while s < len(last):
            if k is None or self._disp[s] == k:
                last[s] = STALE
            s += 1

    def render(self, now):
        """Draw the match as it is at `now` and send what changed. Returns chips written."""
        s = 0
        while s < len(self._blink):  # nothing blinks unless a slot's value says so
            self._blink[s] = 0
            s += 1
        # The error code shown (E nn on the message chip, steady): the app's, else the first
        # dead chip's; 0 when there is nowhere to show it.
        k = self.message_chip
        v = 0
        if k >= 0 and self.chips[k] is not None:
            v = self.error
            if not v:
                s = self.first_failed()
                if s >= 0 and s != k:
                    v = self._code[s]
        if v != self._error_shown:
            self._error_shown = v
            if v:
                self.chips[k].set_code(v)
            self.invalidate(k)  # drawn again when the code goes
        if v:
            self._blink[k] = 0
        s = 0
        while s < self._nslots:
            k = self._disp[s]
            if self.chips[k] is not None and not (self._error_shown and k == self.message_chip):
                v = self._value(s, now)
                if v != self._last[s]:
                    self._last[s] = v
                    self._draw(s, v)
            s += 1
        # The LEDs (view_setup.LEDS: A.turn, B.turn, A.spot, B.spot, equalizing; rules.A 0, rules.B 1),
        # each pin written only when its LED changes: s the LED, k on or off, v the spot ball.
        v = self.m.spot_ball()
        s = 0
        while s < 5:
            k = self.m.turn == s if s < 2 else v == s - 2 if s < 4 else self.m.phase == EQUALIZING
            k = 1 if k else 0
            if self._leds[s] is not None and self._led_on[s] != k:
                self._led_on[s] = k
                self._leds[s].value(k ^ self._active_low[s])
            s += 1
        written = 0
        k = 0
        while k < len(self.chips):
            if self.chips[k] is not None and self._send(k, now):
                written += 1
            k += 1
        return written

    def _send(self, k, now):
        """Send chip k what changed; probed when nothing was sent since before the previous
        period; a dead one is tried again after RETRY_MS. True if it wrote."""
        self.chips[k].set_blink(self._blink[k])
        if self.failed[k]:
            if ticks_diff(now, self._retry_at[k]) < 0:
                return False
            wrote = False
        else:
            wrote = ticks_diff(now - now % _PROBE_MS, self._retry_at[k]) >= 2 * _PROBE_MS
        wrote = _try_show(self.chips[k], wrote)
        if wrote < 0:
            self.failed[k] = 1
            self._retry_at[k] = ticks_add(now, RETRY_MS)
            return False
        self.failed[k] = 0
        if wrote:  # it answered: when (the period's start), for its next probe
            self._retry_at[k] = now - now % _PROBE_MS
        return wrote > 0

    def first_failed(self):
        """Index of the first chip that does not answer, or -1."""
        k = 0
        while k < len(self.failed):
            if self.failed[k]:
                return k
            k += 1
        return -1

    # ---- each slot's value: its content as one int ----------------------------------

    def _value(self, s, now):
        field = self._field[s]
        if self.fmt is not None:  # sets, a shoot-out or a warm-up: formats_wall.py first
            v = self.fmt.value(self, s, field, now)
            if v != PLAIN:
                return v
        if field < TARGET:
            return self._player_value(s, field, now)
        if field == TARGET:  # a handicap: the player at the table's (A's when nobody is)
            return self.m.targets[self.m.turn > 0]
        if field == COUNTDOWN:
            v = self.m.countdown()
            if v >= 0:
                self._blink[self._disp[s]] = BLINK_1HZ
            return v
        if field == SETS:
            return -1  # a plain match: no set score
        if field == CLOCK:  # the break's seconds, else the shot clock's, else the match's minutes
            v = self.m.break_left_ms(now)
            if v >= 0:
                return BREAK_CLOCK + (v + 999) // 1000
            v = self.m.shot_left_ms(now)
            if v < 0:  # nothing runs: the match's whole minutes (h:mm); blank in the lag, and
                v = self.m.elapsed_ms(now)  # in fewer than 3 cells (no room for h:mm)
                return _ELAPSED_CLOCK + v // 60000 if v >= 0 and self._width[s] >= 3 else -1
            v = (v + 999) // 1000
            if v <= WARN_S:
                self._blink[self._disp[s]] = BLINK_2HZ
            return v
        v = self._message_id()
        if v >= _MSG_LAST:  # LAST n, OUT
            self._blink[self._disp[s]] = BLINK_1HZ
        return v * STEPS + self._step(_MSG_LEN[v], now)

    def _player_value(self, s, field, now):
        p = field // PER_PLAYER
        field %= PER_PLAYER
        m = self.m
        if field == SCORE:
            if m.phase == FINISHED:
                if m.result == R_DRAW:
                    self._blink[self._disp[s]] = BLINK_HALF_HZ
                elif m.result == p + 1:  # R_A == 1, R_B == 2: the winner blinks
                    self._blink[self._disp[s]] = BLINK_1HZ
            if self._turn_dp and m.turn == p:
                return m.score[p] * 2 + 1  # the point shows whose turn it is
            return m.score[p] * 2
        if field == INNINGS:
            return m.innings[p]
        if field == RUN:
            return m.run if m.shooter == p else -1
        if field == HIGH_RUN:
            return m.high_run[p]
        if field == AVERAGE:
            return m.average_x1000(p)
        if field == OWN_TARGET:
            return m.targets[p]
        # the name: the marquee's step while it runs by, once after the names changed (from
        # the first render since); then its short form stands in its place
        if len(self.names[p]) <= 4:
            return 0
        if self._scroll_at < 0:
            self._scroll_at = now
        field = ticks_diff(now, self._scroll_at) // SCROLL_MS
        if field < len(self.names[p]) + 4:
            return field
        self.names[p] = self.names[p + 2]
        return 0

    def _message_id(self):
        m = self.m
        if m.phase == LAG:
            return _MSG_LAG
        if m.phase == FINISHED:
            if m.result == R_A or m.result == R_B:
                return _MSG_WINS + m.result - 1
            return _MSG_DRAW
        if m.phase == TIEBREAK:
            return _MSG_TIEBREAK
        if m.phase == BREAK:
            return _MSG_BREAK
        # After a frozen ball, what follows (until the next stroke). A foul's respot shows FOUL;
        # respot 1 (the start) also opens the equalizing inning, whose message says more.
        if m.respot and m.last_foul < 0 and (m.respot != 1 or m.phase != EQUALIZING):
            return _MSG_RESPOT + m.respot
        if m.out_next():
            return _MSG_OUT
        cd = m.countdown()
        if cd > 0:
            return _MSG_LAST + cd - 1
        if m.phase == EQUALIZING:
            return _MSG_EQUALIZING
        if m.last_foul == F_TIME:
            return _MSG_TIME
        if m.last_foul >= 0:
            return _MSG_FOUL
        return _MSG_NONE

    def _step(self, n, now):
        """Where a marquee of n characters stands: 0 for text that fits."""
        if n <= 4:
            return 0
        return (now // SCROLL_MS) % (n + 4)

    # ---- drawing a slot from its value ------------------------------------------------
    #
    # A marquee's window over a text of n characters starts at step - 4 when n > 4 (it
    # runs right to left); text of up to 4 characters stands still.

    def _draw(self, s, v):
        field = self._field[s]
        if field == MESSAGE:
            field = v // STEPS
            self._chip(s).set_window(_TEXT, _MSG_AT[field] + (v % STEPS - 4 if _MSG_LEN[field] > 4 else 0))
        elif field < TARGET and field % PER_PLAYER == NAME:
            field = self.names[field // PER_PLAYER]
            self._chip(s).set_window(field, v - 4 if len(field) > 4 else 0)
        elif v < 0:
            self._draw_blank(s)
        elif field >= COUNTDOWN:  # the clock, the countdown (the colon off: a set score had it)
            field = self._chip(s)
            if v >= BREAK_CLOCK and self._width[s] >= 3:  # the break's m:ss, the match's h:mm
                v %= BREAK_CLOCK
                v = (v // 60) * 100 + v % 60
                if v < _POW10[self._width[s]]:
                    field.set_number_at(v, self._end[s], self._width[s], 0, 3)
                    if field.HAS_COLON:
                        field.set_colon(True)
                    return
                self._draw_dashes(s)  # too long for the slot (3 cells): dashes, colon off
            else:
                self._draw_number(s, v % BREAK_CLOCK, 0)
            if field.HAS_COLON:
                field.set_colon(False)
        elif field < TARGET and field % PER_PLAYER == SCORE:
            self._draw_number(s, v >> 1, 0)
            if v & 1:
                self._chip(s).set_dp(self._end[s])
        elif field < TARGET and field % PER_PLAYER == AVERAGE:
            self._draw_average(s, v)
        else:
            self._draw_number(s, v, 0)

    def _chip(self, s):
        return self.chips[self._disp[s]]

    def _draw_number(self, s, n, decimals):
        """n right-aligned in the slot; too big for it: dashes, never a part of n."""
        if n >= _POW10[self._width[s]]:
            self._draw_dashes(s)
        else:
            chip = self._chip(s)
            chip.set_number_at(n, self._end[s], self._width[s], decimals)

    def _draw_dashes(self, s):
        """The overflow (README): a dash in every cell of a slot too small for its number."""
        self._draw_blank(s, _DASH7 if self._chip(s).MASK == 0xFF else _DASH14)

    def _draw_blank(self, s, bits=0):
        """Every cell of the slot blank (or `bits`: the overflow's dashes), its colon off."""
        chip = self._chip(s)
        cell = self._end[s] + 1 - self._width[s]
        while cell <= self._end[s]:
            chip.set_segments(cell, bits)
            cell += 1
        if self._field[s] >= COUNTDOWN and chip.HAS_COLON:  # the clock's, a set score's
            chip.set_colon(False)

    def _draw_average(self, s, v):
        """GD with as many of its three decimals as fit, truncated to the last one shown (a
        player never sees an average he has not reached)."""
        n = v // 1000
        decimals = self._width[s] - 1  # less the whole part's digits
        while n >= 10:
            n //= 10
            decimals -= 1
        if decimals > 3:
            decimals = 3
        if decimals < 0:
            decimals = 0
        n = v // _POW10[3 - decimals]
        self._draw_number(s, n, decimals)

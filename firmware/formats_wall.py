"""The wall board's side of a match with sets, a shoot-out or a warm-up (formats.py).

In a module of its own so that a board playing a plain match never has it in
RAM: view_setup.names() sets view.fmt to this module when the match has formats
(match.fmt), and it stays with the match, as formats.py does. Its functions
are view.View's and controller.Controller's methods kept here (hence `self`),
one class in two files as view_setup.py is. Nothing here allocates.

    sets      the set score a:b (A's sets won, B's), in the middle two cells of a
              4-cell slot with the colon lit
    countdown the set score too, while no countdown runs (the last points), in 2 cells or more,
              on a board without a sets field (the default wall board has one)
    message   SET OVER, SHOOT-OUT 2 (the round), WARM-UP A, WARM-UP B (in the formats'
              phases); in a set match with nothing else to say, the set being played (SET2, S 10)
    A.run     in the shoot-out, the round's runs (the second player's blank until
    B.run     his inning); after the shoot-out decided, its deciding round's
    clock     in the warm-up, its time left (m:ss), blinking in its last minute
    tick      the warm-up's last minute begins: three beeps (Controller.tick)

The view draws the set score and these messages here, as their values change
(their texts are here too), so the resident view.py keeps none of it. The
shoot-out's runs, its round's number and the warm-up's clock and beeps are
formats_rare.py's, loaded when these moments come (formats.more) and kept for
the match.

    act       the referee's two rare buttons, next_set and warmup (Controller.act):
              rules_events.act, loaded for the press and dropped (this allocates, as
              a new match does)
"""

import cold
from matchnames import END_SHOOTOUT, SET_OVER, SHOOTOUT, WARMUP
from viewnames import CLOCK, COUNTDOWN, MESSAGE, PER_PLAYER, PLAIN, RUN, SETS

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_SET_SCORE = const(1000000)  # a sets value at or above: the set score, 10 a + b

# The set being played, on the message display when it has nothing else to say: SET1 .. SET9,
# S 10 .. S 17 (first to 9 sets: at most 17), four characters each.
_SET_TEXT = b"SET1SET2SET3SET4SET5SET6SET7SET8SET9S 10S 11S 12S 13S 14S 15S 16S 17"
_SET_NUMBER = const(2000000)  # a message value at or above: the set's number (the formats' phases'
# messages are below: formats_rare.message)


def value(self, s, field, now):
    """View slot s's value where a format match shows more than a plain one, else PLAIN.
    (Small functions: MicroPython keeps a call's frame off the heap while it is small.)"""
    if field == COUNTDOWN or field == SETS:
        return _sets(self, s, field)
    if field == MESSAGE:
        return _message(self, s, now)
    m = self.m
    if field == CLOCK:
        return m.fmt.more().clock(self, s, now) if m.phase == WARMUP else PLAIN
    if (field == RUN or field == RUN + PER_PLAYER) and (m.phase == SHOOTOUT or m.ended_by == END_SHOOTOUT):
        return m.fmt.more().shootout_run(m, field // PER_PLAYER)
    return PLAIN


def _sets(self, s, field):
    m = self.m
    if not m.sets_to_win:
        return PLAIN
    if field == COUNTDOWN and (m.countdown() >= 0 or self._width[s] < 2 or _has_sets(self)):
        return PLAIN  # the last points (or no room for a:b, or a sets field shows it): the countdown
    n = m.sets_won[0] * 10 + m.sets_won[1]
    if n + _SET_SCORE != self._last[s]:
        self._last[s] = n + _SET_SCORE  # drawn here: the view finds it drawn
        _draw_sets(self, s, n)
    return n + _SET_SCORE


def _has_sets(self):
    i = 0
    while i < self._nslots:
        if self._field[i] == SETS:
            return True
        i += 1
    return False


def _message(self, s, now):
    if self.m.phase >= SET_OVER:  # the formats' phases: formats_rare.message
        return self.m.fmt.more().message(self, s, now)
    if self.m.sets_to_win and not self._message_id():  # nothing else to say: which set this is
        return _set_number(self, s)
    return PLAIN


def _set_number(self, s):
    n = self.m.set_no
    v = _SET_NUMBER + n
    if v != self._last[s]:
        self._last[s] = v  # drawn here: the view finds it drawn
        self._chip(s).set_window(_SET_TEXT, 4 * (n - 1))
    return v


def _draw_sets(self, s, n):
    """The set score (n = 10 a + b): in a slot of 4 cells in its middle two with the colon lit
    ( 2:1 ), in a smaller one in its last two; dashes in one cell."""
    width = self._width[s]
    if width < 2:
        self._draw_dashes(s)
        return
    self._draw_blank(s)  # the colon too
    _two_digits(self._chip(s), n, self._end[s] - (1 if width == 4 else 0), width == 4)


def _two_digits(chip, n, end, colon):
    chip.set_number_at(n, end, 2, 0, 2)
    if colon and chip.HAS_COLON:
        chip.set_colon(True)


def tick(self, now):
    """Controller.tick's part (the clock task, off the button path): formats_rare.py loaded
    ahead of a level end (formats.ready), and once loaded its tick (the warm-up's beeps)."""
    m = self.m
    if m.fmt.ready(m) and m.fmt.rare is not None:
        m.fmt.rare.tick(self, now)


def act(self, action, now):
    """Controller.act's part: next_set, warmup (controller.ACTIONS), by rules_events.act."""
    with cold.Rare():
        import rules_events

        return rules_events.act(self.m, action, now)

"""Button events to rules events to display and sound: the wall board's logic.

No machine, no clock: the app hands in the match, the view, the buzzer and
the button group, and calls press()/tick() with the time.  The path from a
button event to the chips allocates nothing (starting a new match does).
"""

import rules
import sound

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# Board actions (boarddef.ACTIONS), as small ints.
ACTIONS = ("point", "miss", "A.point", "A.miss", "B.point", "B.miss", "foul", "foul.touch", "foul.push",
           "foul.jump", "foul.time", "undo", "break", "timeout", "new_match")
_POINT = const(0)
_MISS = const(1)
_A_POINT = const(2)
_B_MISS = const(5)
_FOUL = const(6)
_FOUL_TIME = const(10)
_UNDO = const(11)
_BREAK = const(12)
_TIMEOUT = const(13)
_NEW = const(14)
_NONE = const(255)
# Foul kind of each foul action.
_FOUL_KINDS = (rules.FOULS.index("other"), rules.FOULS.index("touched"), rules.FOULS.index("push"),
               rules.FOULS.index("jumped"), rules.FOULS.index("time"))

# Button events (buttons.py).
_SHORT = const(1)
_LONG = const(2)
_STUCK = const(3)
_CLEARED = const(4)

ERROR_STUCK = 10  # + button index: a button held down too long
NEW_MATCH_REFUSED = "a new match needs valid options"


class Controller:
    def __init__(self, match, view, buzzer, group, options=None):
        """group: a buttons.ButtonGroup built from_board (its .actions are names)."""
        self.m = match
        self.view = view
        self.buzzer = buzzer
        self.group = group
        self.options = options or {}
        n = len(group.buttons) if group is not None else 0
        self._short = bytearray(n)
        self._long = bytearray(n)
        for i in range(n):
            short, long = group.actions[i]
            self._short[i] = _NONE if short is None else ACTIONS.index(short)
            self._long[i] = _NONE if long is None else ACTIONS.index(long)
        self.stuck = -1  # index of a stuck button, or -1
        self.last_reason = None  # why the latest press was refused
        self.accepted = 0
        self.refused = 0
        self._shot_s = -1  # the shot clock's last whole second, for its beeps

    def press(self, i, event, now):
        """A button event from the group; returns the refusal reason or None."""
        if event == _STUCK:
            self.stuck = i
            self.view.error = ERROR_STUCK + i
            self.buzzer.cue(sound.ERROR)
            self.view.render(now)
            return None
        if event == _CLEARED:
            if self.stuck == i:
                self.stuck = -1
                self.view.error = 0
                self.view.render(now)
            return None
        action = self._short[i] if event == _SHORT else (self._long[i] if event == _LONG else _NONE)
        if action == _NONE:
            return None
        return self.act(action, now)

    def act(self, action, now):
        """Do one board action (an index into ACTIONS) at `now`."""
        m = self.m
        turn = m.turn
        phase = m.phase
        countdown = m.countdown()
        if action == _NEW:
            reason = self.new_match(now)
        elif m.phase == rules.LAG and action <= _B_MISS:
            # The board has no lag buttons: a player's first press says he breaks;
            # the generic buttons: point = A breaks, end of inning = B breaks.
            p = action if action < _A_POINT else (action - _A_POINT) >> 1
            reason = m.lag(p, now)
            if reason is None:
                reason = m.choose(p, False, now)
                if reason is not None:
                    m.undo(now)
        elif action <= _B_MISS:
            p = rules.NOBODY if action < _A_POINT else (action - _A_POINT) >> 1
            if action & 1:
                reason = m.miss(p, now)
            else:
                reason = m.point(p, now)
        elif action <= _FOUL_TIME:
            reason = m.foul(rules.NOBODY, _FOUL_KINDS[action - _FOUL], now)
        elif action == _UNDO:
            reason = m.undo(now)
        elif action == _BREAK:
            reason = m.resume(now) if m.phase == rules.BREAK else m.break_request(m.turn, now)
        else:
            reason = m.timeout(rules.NOBODY, now)
        self.last_reason = reason
        if reason is not None:
            self.refused += 1
            self.buzzer.cue(sound.REFUSE)
        else:
            self.accepted += 1
            self._cue(phase, countdown)
            if m.turn != turn and self.group is not None:
                self.group.lock(now)
        self.view.render(now)
        return reason

    def _cue(self, phase, countdown):
        m = self.m
        if m.phase != phase and (m.phase == rules.FINISHED or m.phase == rules.TIEBREAK):
            self.buzzer.cue(sound.END)
        elif m.phase == rules.EQUALIZING and phase != rules.EQUALIZING:
            self.buzzer.cue(sound.EQUALIZING)
        else:
            cd = m.countdown()
            if cd > 0 and cd != countdown:
                self.buzzer.cue(sound.COUNT, cd)
            else:
                self.buzzer.cue(sound.ACCEPT)

    def tick(self, now):
        """Let the clocks run: automatic entries, the shot clock's last-seconds beeps."""
        m = self.m
        phase = m.phase
        countdown = m.countdown()
        if m.tick(now):
            self._cue(phase, countdown)
        left = m.shot_left_ms(now)
        s = (left + 999) // 1000 if left >= 0 else -1
        if s != self._shot_s:
            if 0 < s <= 10 and self._shot_s > s:
                self.buzzer.cue(sound.CLOCK)
            self._shot_s = s

    def new_match(self, now):
        """Start a new match with the configured options (allocates)."""
        reason = self.m.new(now, **self.options)
        if reason is None:
            self.view.new_match()
            self.view.error = 0
        return reason

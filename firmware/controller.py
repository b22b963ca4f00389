"""Button events to rules events to display and sound: the wall board's logic.

No machine, no clock: the app hands in the match, the view, the buzzer and
the button group, and calls press()/tick() with the time.  The path from a
button event to the chips allocates nothing, except for three rare referee
actions: a new match, next_set and warmup (these two only in a match with
formats: formats_wall.act, loaded with such a match, has rules_events.act do them,
loaded for the press and dropped as for the rules' rarer events; refused in a
plain match, which loads nothing for them).

With a voice (speech.py), the same moments are also spoken: prior() and calls_for() around each
action and clock entry, the shot clock's 10 s and the break's last minute at the tick.

Cues: a point, a miss... ACCEPT; a refusal REFUSE; the countdown's points COUNT;
the equalizing inning and a shoot-out's start EQUALIZING; the end of the match,
of a set or a tie-break END; the shot clock's last 10 s and the warm-up's last
minute (three) CLOCK.
"""

import matchnames
import rules
import sound
from buttons import CLEARED, LONG, NO_ACTION, SHORT, STUCK
from errorcodes import ERROR_STUCK  # + the button's index: held down too long
from matchnames import F_JUMPED, F_OTHER, F_PUSH, F_TOUCHED
from radionames import FOUL  # the first foul action (the remote's command with a kind)
from rules import A, B, F_TIME, NOBODY
from voicenames import C_CLOCK

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# The wall buttons' actions, by name: the one list (boarddef.py checks a board's buttons and
# config.py its radio.wall_buttons against it; the remote sends an index into it). Below, as
# small ints.
ACTIONS = (
    "point",  # a point for the player at the table
    "miss",  # end of the inning of the player at the table
    "A.point",
    "A.miss",
    "B.point",
    "B.miss",
    "foul",  # a foul by the player at the table (unspecified kind)
    "foul.touch",  # touched a ball with hand, clothes or cue
    "foul.push",  # push shot / double hit
    "foul.jump",  # a ball left the table
    "foul.time",  # shot clock ran out
    "undo",
    "break",  # start/stop the break (intermission) timer
    "timeout",  # a player's time-out (shot-clock extension)
    "new_match",
    "next_set",  # the next set starts (a set match, after a set is over)
    "warmup",  # a warm-up: A's, then B's (also during A's), and a third press ends it
)
_MISS = const(1)  # the scoring actions, as ACTIONS names them
_A_MISS = const(3)
_B_MISS = const(5)  # the last of them
_FOUL_TIME = const(10)  # the last
_UNDO = const(11)
_BREAK = const(12)
_TIMEOUT = const(13)
_NEW = const(14)

# The foul actions' kinds (an index into rules.FOULS), by action from foul: foul (a kind the
# board is not told), foul.touch, foul.push, foul.jump, foul.time. A test checks them against
# the names.
FOUL_KINDS = (F_OTHER, F_TOUCHED, F_PUSH, F_JUMPED, F_TIME)


class Controller:
    def __init__(self, match, view, buzzer, group, options=None):
        """group: a buttons.ButtonGroup (buttons_setup.from_board: its short and long actions)."""
        self.m = match
        self.view = view
        self.buzzer = buzzer
        self.group = group
        self.options = options or {}
        self._short = group.short if group is not None else b""
        self._long = group.long if group is not None else b""
        self.matches = 0  # new matches started (the app saves each one's snapshot)
        # The actions the board's own buttons may do (a bit per action: buttons_setup.allowed).
        self.allowed = (1 << len(ACTIONS)) - 1
        self.locked = False  # only a new match may be started (the saved one is still on the flash)
        self._kind = -1  # the foul kind a remote named, for the action being done
        self.stuck = -1  # index of a stuck button, or -1
        self.last_reason = None  # why the latest press was refused
        self.accepted = 0
        self.refused = 0
        self._shot_s = -1  # the shot clock's last whole second, for its beeps
        self._turn = self._phase = self._countdown = 0  # before the action being done
        self.voice = None  # speech.Voice: the referee's calls spoken (a board with a speaker)

    def press(self, i, event, now):
        """A button event from the group; returns the refusal reason or None."""
        if event == STUCK:
            self.stuck = i
            self.view.error = ERROR_STUCK + i
            self.buzzer.cue(sound.ERROR)
            self.view.render(now)
            return None
        if event == CLEARED:
            if self.stuck == i:
                self.stuck = -1
                self.view.error = 0
                self.view.render(now)
            return None
        action = self._short[i] if event == SHORT else (self._long[i] if event == LONG else NO_ACTION)
        if action == NO_ACTION or not (self.allowed >> action) & 1:
            return None
        return self.act(action, now)

    def remote(self, command, arg, now):
        """A command from the referee remote: an action, with the foul kind for a foul."""
        self._kind = arg if command == FOUL else -1
        reason = self.act(command, now)
        self._kind = -1
        return reason

    def summary(self):
        """(score A, score B, turn, phase, countdown, result) for the remote's acknowledgement
        (a format match's phases put other numbers there: formats.summary)."""
        m = self.m
        cd = m.countdown()
        s = (m.score[0], m.score[1], 255 if m.turn < 0 else m.turn, m.phase, 255 if cd < 0 else cd, m.result)
        return s if m.fmt is None else m.fmt.summary(m, s)

    def act(self, action, now):
        """Do one board action (an index into ACTIONS) at `now`."""
        m = self.m
        self._turn = m.turn
        self._phase = m.phase
        self._countdown = m.countdown()
        if self.voice is not None:
            self.voice.prior(m)
        reason = self._do(action, now)
        self.last_reason = reason
        if reason is not None:
            self.refused += 1
            self.buzzer.cue(sound.REFUSE)
        else:
            self.accepted += 1
            self._cue(self._phase, self._countdown)
            if m.turn != self._turn and self.group is not None:
                self.group.lock(now)
        self.view.render(now)
        return reason

    # Small methods: MicroPython keeps small call frames (11 words) off the heap.

    def _do(self, action, now):
        if action == _NEW:
            return self.new_match(now)
        if self.locked:
            return rules.LOCKED
        if action <= _B_MISS:
            if self.m.phase == rules.LAG:
                return self._lag(action, now)
            # point and miss are for the player at the table, A.point ... B.miss for their player
            p = NOBODY if action <= _MISS else A if action <= _A_MISS else B
            if action == _MISS or action == _A_MISS or action == _B_MISS:
                return self.m.miss(p, now)
            return self.m.point(p, now)
        if action <= _FOUL_TIME:
            if self._kind >= 0:  # the kind a remote named
                return self.m.foul(NOBODY, self._kind, now)
            return self.m.foul(NOBODY, FOUL_KINDS[action - FOUL], now)
        if action == _UNDO:
            return self.m.undo(now)
        if action == _BREAK:
            if self.m.phase == rules.BREAK or self.m.phase == matchnames.WARMUP:  # its end
                return self.m.resume(now)
            return self.m.break_request(self.m.turn, now)
        if action == _TIMEOUT:
            return self.m.timeout(NOBODY, now)
        fmt = self.view.fmt  # next_set, warmup: formats_wall.py's, loaded with a format match
        if fmt is None:
            return matchnames.NO_FORMATS
        return fmt.act(self, action, now)

    def _lag(self, action, now):
        """The board has no lag buttons: a player's first press says he breaks;
        the generic buttons: point = A breaks, end of inning = B breaks."""
        p = B if action == _MISS or action > _A_MISS else A
        reason = self.m.lag(p, now)
        if reason is None:
            reason = self.m.choose(p, False, now)
            if reason is not None:
                self.m.undo(now)
        return reason

    def _cue(self, phase, countdown):
        m = self.m
        if m.phase != phase and rules.FINISHED <= m.phase <= matchnames.SET_OVER:  # its end, a tie-break, a set's end
            self.buzzer.cue(sound.END)
        elif m.phase != phase and (m.phase == rules.EQUALIZING or m.phase == matchnames.SHOOTOUT):
            self.buzzer.cue(sound.EQUALIZING)
        else:
            cd = m.countdown()
            if cd > 0 and cd != countdown:
                self.buzzer.cue(sound.COUNT, cd)
            else:
                self.buzzer.cue(sound.ACCEPT)
        if self.voice is not None:
            self.voice.calls_for(m)

    def tick(self, now):
        """Let the clocks run: automatic entries, the shot clock's last-seconds beeps, the
        warm-up's last minute (three beeps as it begins)."""
        m = self.m
        phase = m.phase
        countdown = m.countdown()
        if self.voice is not None:
            self.voice.prior(m)
        if m.tick(now):
            self._cue(phase, countdown)
        left = m.shot_left_ms(now)
        s = (left + 999) // 1000 if left >= 0 else -1
        if s != self._shot_s:
            if 0 < s <= 10 and self._shot_s > s:
                self.buzzer.cue(sound.CLOCK)
                if s == 10 and self.voice is not None:
                    self.voice.say(C_CLOCK, 10)
            self._shot_s = s
        if self.voice is not None:
            self.voice.tick(m, now)
        if self.view.fmt is not None:  # a format match: the warm-up's last minute (formats_wall.py)
            self.view.fmt.tick(self, now)

    def new_match(self, now):
        """Start a new match with the configured options (allocates)."""
        reason = self.m.new(now, **self.options)
        if reason is None:
            self.locked = False
            self.matches += 1
            self.view.new_match()
            self.view.error = 0
        return reason

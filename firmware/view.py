"""What the wall board shows: the match drawn onto HT16K33 chips and LEDs.

    v = View(board, chips, leds, match)    # chips: one driver per board display
    v.render(now)                          # after every event, and a few times a second

The board definition says which chip shows which field (see boarddef.py);
the slots are turned into small ints once, so render() allocates nothing:
it writes digits into the chips' frames and each chip's show() sends only
what changed.  A chip that stops answering is retried every RETRY_MS and
reported through `failed`; the others keep working.
"""

from array import array

import rules

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


PLAYER_FIELDS = ("score", "innings", "run", "high_run", "average", "name")
SHARED_FIELDS = ("target", "countdown", "clock", "message")
FIELDS = tuple("A." + f for f in PLAYER_FIELDS) + tuple("B." + f for f in PLAYER_FIELDS) + SHARED_FIELDS
LEDS = ("A.turn", "B.turn", "A.spot", "B.spot", "equalizing")

_SCORE = const(0)
_INNINGS = const(1)
_RUN = const(2)
_HIGH_RUN = const(3)
_AVERAGE = const(4)
_NAME = const(5)
_TARGET = const(12)
_COUNTDOWN = const(13)
_CLOCK = const(14)
_MESSAGE = const(15)

_BLINK_2HZ = const(1)
_BLINK_1HZ = const(2)
_BLINK_HALF_HZ = const(3)

SCROLL_MS = 300  # a marquee moves one character this often
RETRY_MS = 2000  # a dead chip is tried again this often
WARN_S = 10  # the shot clock blinks in its last seconds

_POW10 = (1, 10, 100, 1000, 10000)

# Messages for the 14-segment message chip (constants: nothing is built per frame).
_LAST = ("", "LAST 1", "LAST 2", "LAST 3", "LAST 4", "LAST 5")
_WINS = ("A WINS", "B WINS")
MSG_LAG = "LAG"
MSG_BREAK = "BREAK"
MSG_EQUALIZING = "EQUALIZING INNING"
MSG_DRAW = "DRAW"
MSG_TIEBREAK = "TIE-BREAK"
MSG_FOUL = "FOUL"
MSG_TIME = "TIME"


class View:
    def __init__(self, board, chips, leds, match):
        """board: a normalized board definition; chips: a driver per board["displays"]
        entry (None for a chip left out); leds: a dict LED name -> pin object."""
        self.m = match
        self.chips = chips
        displays = board["displays"]
        n = 0
        for d in displays:
            n += len(d["show"])
        # Slots: display index, field code, first cell, width.
        self._disp = bytearray(n)
        self._field = bytearray(n)
        self._at = bytearray(n)
        self._width = bytearray(n)
        i = 0
        for k, d in enumerate(displays):
            for part in d["show"]:
                self._disp[i] = k
                self._field[i] = FIELDS.index(part["field"])
                self._at[i] = part["at"]
                self._width[i] = part["width"]
                i += 1
        self._code = bytearray(len(displays))  # error code of a dead chip: 70..77, 80..87 on bus 1
        for k, d in enumerate(displays):
            self._code[k] = 70 + 10 * d.get("bus", 0) + (d["addr"] & 7)
        self._blink = bytearray(len(displays))
        self.failed = bytearray(len(displays))
        self._retry_at = array("i", [0] * len(displays))
        self._leds = [leds.get(name) for name in LEDS]
        self._led_on = bytearray(len(LEDS))
        self._active_low = bytearray(len(LEDS))
        board_leds = board.get("leds") or {}
        for k, name in enumerate(LEDS):
            if name in board_leds:
                self._active_low[k] = 1 if board_leds[name]["active_low"] else 0
        self._turn_dp = self._leds[0] is None  # no turn LEDs: a point on the score shows the turn
        self.message_chip = -1  # where error codes go: the message chip, else the clock, else the target
        for field in (_MESSAGE, _CLOCK, _TARGET):
            for s in range(n):
                if self._field[s] == field and self.message_chip < 0:
                    self.message_chip = self._disp[s]
        self.error = 0  # an error code the app wants shown (0: none)
        self.names = ["", ""]
        self.new_match()
        for k in range(len(LEDS)):
            self._set_led(k, 0, True)

    def new_match(self):
        """Build the name marquees once per match (this allocates; rendering does not)."""
        m = self.m
        for p in (rules.A, rules.B):
            text = m.names[p] or ("PLAYER A", "PLAYER B")[p]
            if m.clubs[p]:
                text = text + " - " + m.clubs[p]
            self.names[p] = text.upper()

    def set_brightness(self, level):
        for chip in self.chips:
            if chip is not None:
                chip.set_brightness(level)

    # ---- drawing ----------------------------------------------------------------

    def render(self, now):
        """Draw the match as it is at `now` and send what changed. Returns chips written."""
        m = self.m
        for k in range(len(self._blink)):
            self._blink[k] = 0
        for s in range(len(self._disp)):
            k = self._disp[s]
            chip = self.chips[k]
            if chip is None:
                continue
            field = self._field[s]
            at = self._at[s]
            width = self._width[s]
            end = at + width - 1
            if field < _TARGET:
                self._player_field(chip, k, field // 6, field % 6, at, width, end, now)
            elif field == _TARGET:
                self._number(chip, m.target, at, width, end)
            elif field == _COUNTDOWN:
                cd = m.countdown()
                if cd >= 0:
                    self._number(chip, cd, at, width, end)
                    self._blink[k] = _BLINK_1HZ
                else:
                    self._blank(chip, at, width)
            elif field == _CLOCK:
                self._clock(chip, k, at, width, end, now)
            else:
                self._message(chip, k, now)
        error = self.error
        if not error:
            dead = self.first_failed()
            if dead >= 0:
                error = self._code[dead]
        if error and self.message_chip >= 0 and not self.failed[self.message_chip]:
            chip = self.chips[self.message_chip]
            if chip is not None:
                chip.set_window("E   ", 0)
                chip.set_number(error % 1000, 3)
                self._blink[self.message_chip] = 0
        self._show_leds()
        written = 0
        for k in range(len(self.chips)):
            chip = self.chips[k]
            if chip is None:
                continue
            chip.set_blink(self._blink[k])
            if self.failed[k] and rules.ticks_diff(now, self._retry_at[k]) < 0:
                continue
            try:
                if chip.show():
                    written += 1
                self.failed[k] = 0
            except OSError:
                self.failed[k] = 1
                self._retry_at[k] = rules.ticks_add(now, RETRY_MS)
        return written

    def first_failed(self):
        """Index of the first chip that does not answer, or -1."""
        for k in range(len(self.failed)):
            if self.failed[k]:
                return k
        return -1

    def _player_field(self, chip, k, p, kind, at, width, end, now):
        m = self.m
        if kind == _SCORE:
            self._number(chip, m.score[p], at, width, end)
            if self._turn_dp and m.turn == p:
                chip.set_dp(end)
            if m.phase == rules.FINISHED:
                if m.result == rules.R_DRAW:
                    self._blink[k] = _BLINK_HALF_HZ
                elif m.result == p + 1:  # R_A == 1, R_B == 2
                    self._blink[k] = _BLINK_1HZ
        elif kind == _INNINGS:
            self._number(chip, m.innings[p], at, width, end)
        elif kind == _RUN:
            if m.shooter == p:
                self._number(chip, m.run, at, width, end)
            else:
                self._blank(chip, at, width)
        elif kind == _HIGH_RUN:
            self._number(chip, m.high_run[p], at, width, end)
        elif kind == _AVERAGE:
            avg = m.average_x1000(p)  # GD with three decimals as many as fit
            digits = 1
            whole = avg // 1000
            while whole >= 10:
                whole //= 10
                digits += 1
            decimals = width - digits
            if decimals > 3:
                decimals = 3
            if decimals < 0:
                decimals = 0
            self._number(chip, avg // _POW10[3 - decimals], at, width, end, decimals)
        else:
            self._marquee(chip, self.names[p], now)

    def _number(self, chip, n, at, width, end, decimals=0):
        """n right-aligned in cells at..end; too big for the field: its last digits."""
        if n >= _POW10[width]:
            n %= _POW10[width]
        chip.set_number(n, width, False, decimals, 1, end)

    def _blank(self, chip, at, width):
        for cell in range(at, at + width):
            chip.set_segments(cell, 0)

    def _clock(self, chip, k, at, width, end, now):
        """The break as m:ss with the colon, else the shot clock in seconds, else blank."""
        m = self.m
        ms = m.break_left_ms(now)
        if ms >= 0:
            s = (ms + 999) // 1000
            v = (s // 60) * 100 + s % 60
            chip.set_number(v % _POW10[width], width, False, 0, 3 if width >= 3 else 1, end)
        else:
            ms = m.shot_left_ms(now)
            if ms >= 0:
                s = (ms + 999) // 1000
                self._number(chip, s, at, width, end)
                if s <= WARN_S:
                    self._blink[k] = _BLINK_2HZ
            else:
                self._blank(chip, at, width)
        if chip.HAS_COLON:
            chip.set_colon(ms >= 0 and m.phase == rules.BREAK)

    def _message(self, chip, k, now):
        m = self.m
        cd = m.countdown()
        if m.phase == rules.LAG:
            text = MSG_LAG
        elif m.phase == rules.FINISHED:
            text = _WINS[m.result - 1] if m.result == rules.R_A or m.result == rules.R_B else MSG_DRAW
        elif m.phase == rules.TIEBREAK:
            text = MSG_TIEBREAK
        elif m.phase == rules.BREAK:
            text = MSG_BREAK
        elif cd > 0:
            text = _LAST[cd]
            self._blink[k] = _BLINK_1HZ
        elif m.phase == rules.EQUALIZING:
            text = MSG_EQUALIZING
        elif m.last_foul == rules.F_TIME:
            text = MSG_TIME
        elif m.last_foul >= 0:
            text = MSG_FOUL
        else:
            text = ""
        self._marquee(chip, text, now)

    def _marquee(self, chip, text, now):
        """Text of up to 4 characters stands still; longer text runs right to left."""
        n = len(text)
        if n <= 4:
            chip.set_window(text, 0)
            return
        step = (now // SCROLL_MS) % (n + 4)
        chip.set_window(text, step - 4)

    # ---- LEDs ---------------------------------------------------------------------

    def _show_leds(self):
        m = self.m
        spot = m.spot_ball()
        self._set_led(0, m.turn == rules.A)
        self._set_led(1, m.turn == rules.B)
        self._set_led(2, spot == rules.A)
        self._set_led(3, spot == rules.B)
        self._set_led(4, m.phase == rules.EQUALIZING)

    def _set_led(self, k, on, force=False):
        pin = self._leds[k]
        if pin is None:
            return
        on = 1 if on else 0
        if force or self._led_on[k] != on:
            self._led_on[k] = on
            pin.value(on ^ self._active_low[k])

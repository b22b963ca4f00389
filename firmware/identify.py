"""The identify mode: a wiring check on the board itself.

Started by holding the board definition's identify_button at power-on
(startup.py: the safe-boot button wins when both are held; on a remote never
at a wake from deep sleep, which a press causes), or from the REPL with the
app stopped (`carom doctor --identify` does this):

    >>> import machine, startup
    >>> startup.identify(machine)

Until a long press on any button (held the board's long_ms) leaves it:
- every display shows what it is for and where it hangs, a second each: its
  field's label (`A SC`: player A's score; label()) and its bus and address
  (`0.70`: bus 0, 0x70), again, a display with two fields each one's label;
  then it lights its segments one at a time, cell after cell (the point, and
  a 7-segment display's colon last), all displays stepping together; again;
- the LEDs light one after another, half a second each;
- the buzzer sounds once, at the start;
- a press shows the button's name on the message display (the one showing
  `message`, else the board's first) and prints it on the serial console:
  `identify: button foul (GPIO25)`.
A swapped address jumper, a display on the wrong bus, a dead segment or a
miswired button is then seen at a glance. A display that does not answer is
said once on the console (`identify: display 1.77 (sets) does not answer`)
and tried again every second; the others go on. Nothing is written to the
flash: the match is untouched. Once the long-pressed button is up again the
board restarts (startup.py: a soft reset, so the app starts in a heap the
mode never touched, not even its interned names) and runs as usual.

The loop sleeps POLL_MS between passes and draws at most CHIPS_PER_PASS
displays in a pass (one 17-byte write each, when its picture changed), so a
pass stays short on the chip. The hardware is handed in (startup.py makes it).
"""

import time

from buttons import LONG, STUCK, Button
from ticks import ticks_add, ticks_diff

POLL_MS = 10  # between two passes over the buttons and the displays
CHIPS_PER_PASS = 4  # displays drawn in one pass (round robin)
SHOW_MS = 1000  # a label, then the address: this long each
SEGMENT_MS = 100  # each segment alone this long
LED_MS = 500  # each LED alone this long
BEEP_MS = 300  # the buzzer's one tone
BEEP_HZ = 2000
BEEP_DUTY = 32768  # 50 %: the loudest a piezo gets (sound.py)
NAME_MS = 2000  # a button's name stays this long on the message display
SCROLL_MS = 400  # a name longer than the display moves one character this often
RETRY_MS = 1000  # a display that did not answer is tried again this often

# A field's label (view_setup.FIELDS): a player's field is his letter and two letters after a
# blank; each letter one a 7-segment display can show (no K, M, W, X).
_PLAYER = {"score": "SC", "innings": "IN", "run": "RU", "high_run": "HR", "average": "AV", "name": "NM", "target": "TG"}
_SHARED = {"target": "TARG", "countdown": "CNTD", "sets": "SETS", "clock": "CLOC", "message": "MESG"}


def label(field):
    """A field's label on its display, four characters: "A.score" -> "A SC", "clock" -> "CLOC"."""
    player, _, name = field.rpartition(".")
    if player:
        return player + " " + _PLAYER[name]
    return _SHARED[field]


def address_text(bus, addr):
    """Where a display hangs: bus 0, address 0x70 -> "0.70"."""
    return "%d.%02x" % (bus, addr)


def cells(text):
    """(the characters, in capitals, a bytes; the points, bit i for character i) of text as a
    display shows it: a point after a character lights that character's point, so "A.point"
    takes six cells, "0.70" three."""
    chars = bytearray()
    dots = 0
    for c in text.upper().encode():
        if c == 0x2E and chars and not dots >> (len(chars) - 1) & 1:  # "." after a character
            dots |= 1 << (len(chars) - 1)
        else:
            chars.append(c)
    return bytes(chars), dots


def segment_steps(kind):
    """How many segments a display lights one by one: 4 cells of 8 (a..g, point) and the colon
    on a 7-segment display; 4 of 15 (14 and the point) on a 14-segment one."""
    return 33 if kind == "seg7" else 60


class Identify:
    """The mode's state on one board: its displays' texts, where each is in its cycle, the
    buttons. `chips[k]` drives board["displays"][k]; `leds` {name: Pin}; `buzzer` a
    sound.Buzzer (its PWM is used, or None); make_pin(number, pull) makes a button's pin."""

    def __init__(self, board, chips, leds, buzzer, make_pin):
        self.chips = chips
        self.displays = board["displays"]
        self.names = []
        self.labels = []  # per display: [cells(label), ...] of its fields
        self.where = []  # per display: cells(address_text)
        self.message = 0  # the display that shows the names
        most = 2
        for k, d in enumerate(self.displays):
            fields = [part["field"] for part in d["show"]]
            if "message" in fields:
                self.message = k
            self.labels.append([cells(label(f)) for f in fields])
            self.where.append(cells(" " + address_text(d["bus"], d["addr"])))  # right-aligned, as a number
            most = max(most, len(fields))
        self.label_steps = 2 * most  # label, address, label, address (a display with two fields: each label)
        self.segment_steps = max([segment_steps(d["kind"]) for d in self.displays] or [0])
        self.cycle_ms = self.label_steps * SHOW_MS + self.segment_steps * SEGMENT_MS
        self.failed = bytearray(len(chips))
        self.retry_at = [0] * len(chips)
        self.next_chip = 0
        leds_spec = board.get("leds") or {}
        self.leds = [(leds[name], 1 if leds_spec[name]["active_low"] else 0) for name in sorted(leds)]
        for pin, active_low in self.leds:
            pin.value(active_low)  # off
        self.lit = -1  # the LED lit now
        self.pwm = buzzer.pwm if buzzer is not None else None
        long_ms = board["timings"]["long_ms"]
        self.buttons = []
        for spec in board["buttons"]:
            self.names.append((spec["name"], spec["pin"]))
            self.buttons.append(
                Button(
                    make_pin(spec["pin"], spec["pull"]),
                    active_low=spec["active_low"],
                    has_long=True,
                    debounce_ms=spec["debounce_ms"],
                    long_ms=long_ms,
                    stuck_ms=spec["stuck_ms"],
                )
            )
        self.was_down = bytearray(len(self.buttons))
        self.stuck = 0  # bit i: button i read pressed for its stuck_ms
        self.shown = None  # the name on the message display: cells()
        self.shown_at = 0
        self.scroll = 0  # the first of its cells the message display shows
        self.start = 0

    # ---- the loop ----------------------------------------------------------------------

    def run(self):
        """Until a long press, and then until every button is up (one down for its stuck_ms is
        not waited for); returns the long-pressed button's name. Everything dark again at the
        end (also after a KeyboardInterrupt: Ctrl-C on the serial console)."""
        self.begin(time.ticks_ms())
        msg = self.displays[self.message] if self.displays else None
        print(
            "identify: press a button: its name shows on %s; hold one %g s to leave"
            % (
                address_text(msg["bus"], msg["addr"]) if msg else "the console",
                self.buttons[0].long_ms / 1000 if self.buttons else 1,
            )
        )
        if self.pwm is not None:
            self.pwm.freq(BEEP_HZ)
            self.pwm.duty_u16(BEEP_DUTY)
        try:
            while True:
                now = time.ticks_ms()
                left = self.poll(now)
                if left is not None:
                    print("identify: done (%s held)" % left)
                    self.dark()
                    while self.any_down():  # the next start must not see a button down (safe boot, this mode)
                        time.sleep_ms(POLL_MS)
                        self.poll(time.ticks_ms())
                    return left
                if self.pwm is not None and ticks_diff(now, self.start) >= BEEP_MS:
                    self.pwm.duty_u16(0)
                self.draw_leds(now)
                for _ in range(min(CHIPS_PER_PASS, len(self.chips))):
                    self.draw(self.next_chip, now)
                    self.next_chip = (self.next_chip + 1) % len(self.chips)
                time.sleep_ms(POLL_MS)
        finally:
            self.dark()

    def begin(self, now):
        """The cycle starts at `now`; a button down now (the one held at power-on) is no press."""
        self.start = now
        for i, b in enumerate(self.buttons):
            b.update(now, b.pin())
            self.was_down[i] = b.down

    def poll(self, now):
        """Sample every button once: a new press shows and prints its name; a long press: its
        name (the mode is left)."""
        i = 0
        while i < len(self.buttons):
            b = self.buttons[i]
            event = b.update(now, b.pin())
            if b.down and not self.was_down[i]:
                print("identify: button %s (GPIO%d)" % self.names[i])
                self.shown = cells(self.names[i][0])
                self.shown_at = now
            self.was_down[i] = b.down
            if event == LONG:
                return self.names[i][0]
            if event == STUCK:
                self.stuck |= 1 << i
                print(
                    "identify: button %s (GPIO%d) reads pressed for %g s: stuck, or its active_low or pull is "
                    "wrong" % (self.names[i] + (b.stuck_ms / 1000,))
                )
            if not b.down:
                self.stuck &= ~(1 << i)
            i += 1
        return None

    def any_down(self):
        """A button is down that has not been down for stuck_ms (a jammed one is not waited for)."""
        for i, b in enumerate(self.buttons):
            if b.down and not self.stuck >> i & 1:
                return True
        return False

    # ---- what each display shows -------------------------------------------------------

    def draw(self, k, now):
        """Display k's picture at `now` (a button's name on the message display, a label, the
        address, or one segment), sent when it changed; a display that did not answer is tried
        again after RETRY_MS."""
        if self.failed[k] and ticks_diff(now, self.retry_at[k]) < 0:
            return
        chip = self.chips[k]
        seg7 = self.displays[k]["kind"] == "seg7"
        text = self.name_at(k, now)
        start = 0
        if text is not None:
            start = self.scroll
        t = ticks_diff(now, self.start) % self.cycle_ms
        if text is None and t < self.label_steps * SHOW_MS:
            step = t // SHOW_MS
            text = self.labels[k][step // 2 % len(self.labels[k])] if step % 2 == 0 else self.where[k]
        if text is not None:
            chip.set_window(text[0], start)
            for cell in range(4):
                if text[1] >> (start + cell) & 1:
                    chip.set_dp(cell)
            if seg7:
                chip.set_colon(False)
        else:
            step = (t - self.label_steps * SHOW_MS) // SEGMENT_MS  # the segment lit, counted over the cells
            per = 8 if seg7 else 15
            for cell in range(4):
                chip.set_segments(cell, 1 << (step - cell * per) if 0 <= step - cell * per < per else 0)
            if seg7:
                chip.set_colon(step == 4 * per)
        try:
            chip.show()
        except OSError:
            self.lost(k, now)
            return
        if self.failed[k]:
            self.failed[k] = 0
            d = self.displays[k]
            print("identify: display %s answers again" % address_text(d["bus"], d["addr"]))

    def name_at(self, k, now):
        """The button's name display k shows at `now` (cells(); self.scroll: the first cell shown),
        or None: only the message display shows names, each for NAME_MS (a long one runs by)."""
        if k != self.message or self.shown is None:
            return None
        age = ticks_diff(now, self.shown_at)
        over = max(0, len(self.shown[0]) - 4)  # the steps a long name moves (after two at its start)
        if age >= max(NAME_MS, (over + 2) * SCROLL_MS + NAME_MS // 2):
            self.shown = None
            return None
        self.scroll = min(max(0, age // SCROLL_MS - 2), over)
        return self.shown

    def lost(self, k, now):
        """Display k did not answer: said once, tried again after RETRY_MS."""
        self.retry_at[k] = ticks_add(now, RETRY_MS)
        if not self.failed[k]:
            self.failed[k] = 1
            d = self.displays[k]
            print(
                "identify: display %s (%s) does not answer"
                % (address_text(d["bus"], d["addr"]), ", ".join(part["field"] for part in d["show"]))
            )

    def draw_leds(self, now):
        """The LED whose turn it is on, the one before it off first (never two at once)."""
        if not self.leds:
            return
        lit = ticks_diff(now, self.start) // LED_MS % len(self.leds)
        if lit != self.lit:
            if self.lit >= 0:
                pin, active_low = self.leds[self.lit]
                pin.value(active_low)
            pin, active_low = self.leds[lit]
            pin.value(1 - active_low)
            self.lit = lit

    def dark(self):
        """Every display blank, the LEDs off, the buzzer quiet."""
        if self.pwm is not None:
            self.pwm.duty_u16(0)
        for pin, active_low in self.leds:
            pin.value(active_low)
        self.lit = -1
        for k, chip in enumerate(self.chips):
            chip.set_window(b"    ", 0)
            if self.displays[k]["kind"] == "seg7":
                chip.set_colon(False)
            try:
                chip.show()
            except OSError:
                pass


def run(board, chips, leds, buzzer, make_pin):
    """The identify mode on a board's hardware until a long press (see the module's docstring);
    returns the name of the button held to leave it."""
    return Identify(board, chips, leds, buzzer, make_pin).run()

"""Polled, debounced push buttons: short press, long press, stuck, lock-out.

Buttons are polled from one task (never interrupts: pin IRQs bring contact
bounce back and, on the ESP32, go through a small scheduler queue that drops
events).  The state machine is `Button.update(now_ms, level)`: it is handed
the time, so tests need no time passing, and it allocates nothing.

Events (small ints, returned by `Button.update` and handed on by the group):

  SHORT    1  a short press.  A button WITHOUT a long action reports it on
              the (debounced) press, for the quickest response; a button WITH
              a long action reports it on release, and only if released
              before `long_ms`.
  LONG     2  held for `long_ms` (only if the button has a long action);
              reported once, while still held; no SHORT follows on release.
  STUCK    3  held for `stuck_ms`; reported once, then the button is ignored
              until it is released.  The app reports it.
  CLEARED  4  the release of a STUCK button; the app clears its report.

Decisions (documented because the brief left them open):
- Debounce is "stable for debounce_ms": a new level counts once the pin has
  read it continuously for `debounce_ms`.  A one-sample glitch (EMI on long
  wires, the ESP32's GPIO36/39 errata) is never a press.  Latency is
  debounce_ms + one poll period (50 + 10 ms), inside the 100 ms budget.
- Hold times (long, stuck) count from the first sample of the press, not
  from the end of the debounce.
- A button already pressed at the first poll (held at power-on, or jammed)
  is not a press: it must be released first.  It still reports STUCK after
  `stuck_ms`.  The app reads the safe-boot button itself at power-on.
- A jammed button with a long action reports LONG at long_ms before STUCK at
  stuck_ms; the app may want to take that LONG back when STUCK arrives.
- `lock(now, ms)` ignores, whole, every press that starts in the window
  [now, now + ms), and a press already under way (being debounced, or down
  with its SHORT/LONG still to come).  An event already reported stays.
  STUCK is still reported for a locked press.  Such a press is no event (it
  did not happen, for the match); the group marks it in `locked`, a bit per
  button, for the app to say so (app.py prints "carom: refused ...").

Times are ms ticks with MicroPython's ESP32 period of 2**30 (ticks.py).

Usage (the app polls from its buttons task; buttons_setup.py builds a group
from a board definition, with the pins the app makes):
    group = buttons_setup.from_board(board, make_pin)
    group.poll(time.ticks_ms())      # every 10 ms
    while group.pending(): e = group.get()
    group.lock(time.ticks_ms())      # the turn passed
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


from ticks import ticks_diff

NO_ACTION = const(255)
SHORT = const(1)
LONG = const(2)
STUCK = const(3)
CLEARED = const(4)


# Phases of a button between its press and its release.
_IDLE = const(0)  # released
_DOWN = const(1)  # pressed, waiting for release (SHORT) or long_ms (LONG)
_DONE = const(2)  # pressed, its event already reported
_IGNORE = const(3)  # pressed, ignored: locked out, or held at the first poll
_STUCK = const(4)  # pressed past stuck_ms, reported, ignored until released
_LOCKED = const(5)  # as _IGNORE, locked out: the group's next poll marks it (ButtonGroup.locked)


class Button:
    """One push button.  `pin` is anything callable returning 0/1 (a
    machine.Pin); pressed is `bool(pin() ^ active_low)`.  The settings are
    class attributes; one given with another value is kept on the button
    (a board's seven buttons each keep only what differs: RAM on the ESP32)."""

    active_low = True
    has_long = False  # SHORT on release, LONG when held
    lockout = False  # locked by ButtonGroup.lock() by default
    debounce_ms = 50
    long_ms = 1000
    stuck_ms = 5000
    _flip = 1  # 1 when active low: pressed = level ^ _flip

    def __init__(
        self,
        pin,
        active_low=True,
        has_long=False,
        lockout=False,
        debounce_ms=None,
        long_ms=None,
        stuck_ms=None,
    ):
        self.pin = pin
        if not active_low:
            self.active_low = False
            self._flip = 0
        if has_long:
            self.has_long = True
        if lockout:
            self.lockout = True
        if debounce_ms is not None and debounce_ms != Button.debounce_ms:
            self.debounce_ms = debounce_ms
        if long_ms is not None and long_ms != Button.long_ms:
            self.long_ms = long_ms
        if stuck_ms is not None and stuck_ms != Button.stuck_ms:
            self.stuck_ms = stuck_ms
        # Every attribute update() writes exists from here on, so writing it later never
        # grows the instance dict (no allocation).
        self._raw = -1  # last sampled pressed 0/1; -1 before the first poll
        self._since = 0  # when _raw last changed
        self.down = 0  # debounced: 1 while pressed
        self.phase = _IDLE  # where the press is (_IDLE.. above); ButtonGroup reads _LOCKED
        self._t = 0  # when the current press started
        self._lock_at = 0
        self._lock_ms = 0  # 0: not locked

    def lock(self, now, ms):
        """Ignore presses starting in [now, now + ms) and the press under way."""
        self._lock_at = now
        self._lock_ms = ms
        if self.down and self.phase == _DOWN:
            self.phase = _LOCKED

    def update(self, now, level):
        """Take one sample `level` (the pin's 0/1) at `now` (ms ticks).
        Return an event code, or 0.  Allocates nothing."""
        p = (1 if level else 0) ^ self._flip
        if p != self._raw:
            if self._raw < 0:  # first poll: a held button is not a press
                self._raw = p
                self._since = now
                self._t = now
                self.down = p
                self.phase = _IGNORE if p else _IDLE
                return 0
            self._raw = p
            self._since = now
        down = self.down
        if p != down and ticks_diff(now, self._since) >= self.debounce_ms:
            self.down = p
            if p:  # debounced press; it started at _since
                self._t = self._since
                if self._lock_ms:
                    d = ticks_diff(self._since, self._lock_at)
                    if -self.debounce_ms < d < self._lock_ms:
                        self.phase = _LOCKED
                        return 0
                    if d >= self._lock_ms:
                        self._lock_ms = 0  # expired
                if self.has_long:
                    self.phase = _DOWN
                    return 0
                self.phase = _DONE
                return SHORT
            phase = self.phase  # debounced release
            self.phase = _IDLE
            if phase == _DOWN:
                return SHORT
            if phase == _STUCK:
                return CLEARED
            return 0
        if down and p:  # held (and not being released)
            phase = self.phase
            if phase == _STUCK:
                return 0
            held = ticks_diff(now, self._t)
            if held >= self.stuck_ms:
                self.phase = _STUCK
                return STUCK
            if phase == _DOWN and held >= self.long_ms:
                self.phase = _DONE
                return LONG
        return 0


class ButtonGroup:
    """All buttons of a board, polled in one pass.  Button i's events go to
    `callback(i, event)` if given, else into a preallocated ring of `size`
    events read with get().  Neither path allocates."""

    lockout_ms = 400

    def __init__(self, buttons, callback=None, size=16, lockout_ms=None):
        self.buttons = tuple(buttons)
        if len(self.buttons) > 255:
            raise ValueError("at most 255 buttons")
        self.callback = callback
        if lockout_ms is not None and lockout_ms != ButtonGroup.lockout_ms:
            self.lockout_ms = lockout_ms  # kept only when it differs (an attribute less: RAM)
        self._ring = bytearray(2 * size)  # (button index, event) pairs
        self._size = size
        self._head = 0  # next slot to write
        self._count = 0
        self.dropped = 0  # events lost because the ring was full
        self.locked = 0  # bit i: button i's press was locked out since the app last cleared it
        # The board's action (an index into controller.ACTIONS, NO_ACTION: none) of each
        # button's SHORT and LONG events (buttons_setup.py sets them from the board definition).
        self.short = self.long = bytes(len(self.buttons))

    def poll(self, now):
        """Sample every button once at `now` (ms ticks); hand on its event (the callback,
        else the ring: full, the event is dropped and counted)."""
        # One method, its frame within the 11 words MicroPython keeps off the heap.
        i = 0
        while i < len(self.buttons):
            b = self.buttons[i]
            event = b.update(now, b.pin())
            if not event:
                if b.phase == _LOCKED:  # a press locked out (now, or by lock() since the last poll)
                    b.phase = _IGNORE
                    self.locked |= 1 << i
            elif self.callback is not None:
                self.callback(i, event)
            elif self._count >= self._size:
                self.dropped += 1
            else:
                self._ring[2 * self._head] = i
                self._ring[2 * self._head + 1] = event
                self._head = (self._head + 1) % self._size
                self._count += 1
            i += 1

    def get(self):
        """Oldest queued event as `(index << 8) | event`, or 0 if none:
        i = e >> 8; ev = e & 0xFF."""
        if not self._count:
            return 0
        tail = self._head - self._count
        if tail < 0:
            tail += self._size
        self._count -= 1
        return (self._ring[2 * tail] << 8) | self._ring[2 * tail + 1]

    def pending(self):
        return self._count

    def lock(self, now, ms=None, mask=None):
        """The turn passed: lock out, for `ms` (default lockout_ms), the
        buttons whose `lockout` is set, or those in the bit `mask`
        (bit i = button i)."""
        if ms is None:
            ms = self.lockout_ms
        i = 0
        while i < len(self.buttons):
            b = self.buttons[i]
            if b.lockout if mask is None else (mask >> i) & 1:
                b.lock(now, ms)
            i += 1

"""buttons.py: the state machine driven with explicit times (no time passes),
the group, the ring buffer, the lock-out, no allocation on the poll path.

Pins are active low as on the boards: level 1 = released, 0 = pressed.
"""

from fwtest import raises, SkipTest

import buttons_setup
from buttons import Button, ButtonGroup, SHORT, LONG, STUCK, CLEARED
from controller import ACTIONS
from ticks import ticks_add

REL = 1
PRS = 0
MASK = 0x3FFFFFFF


class FakePin:
    def __init__(self, level=REL):
        self.level = level

    def __call__(self):
        return self.level


def feed(b, level, t0, t1, step=10):
    """Sample `level` every `step` ms in [t0, t1); return [(t, event)]."""
    out = []
    t = t0
    while t < t1:
        ev = b.update(t & MASK, level)
        if ev:
            out.append((t, ev))
        t += step
    return out


def fresh(**kw):
    b = Button(None, **kw)
    assert b.update(0, REL) == 0  # first poll: released
    return b


# --- one button ----------------------------------------------------------------


def test_timings_are_class_attributes_overridable_per_button():
    b = Button(None)
    assert (b.debounce_ms, b.long_ms, b.stuck_ms) == (50, 1000, 5000)
    c = Button(None, debounce_ms=20, long_ms=3000, stuck_ms=9000)
    assert (c.debounce_ms, c.long_ms, c.stuck_ms) == (20, 3000, 9000)
    assert Button.long_ms == 1000 and b.long_ms == 1000  # the class is untouched


def test_short_reported_on_press_when_no_long_action():
    # pressed at 100, stable: SHORT once the level held 50 ms, nothing on release
    b = fresh()
    assert feed(b, REL, 10, 100) == []
    assert feed(b, PRS, 100, 400) == [(150, SHORT)]
    assert feed(b, REL, 400, 600) == []
    assert b.down == 0


def test_bounce_is_not_a_press_until_stable():
    # contact bounce: the level flips every 10 ms for 60 ms, then stays pressed
    b = fresh()
    t = 100
    for level in (PRS, REL, PRS, REL, PRS, REL):
        assert b.update(t, level) == 0
        t += 10
    assert feed(b, PRS, 160, 300) == [(210, SHORT)]  # 50 ms after the last flip
    # bounce on release gives no second press
    t = 300
    for level in (REL, PRS, REL, PRS, REL):
        assert b.update(t, level) == 0
        t += 10
    assert feed(b, REL, 350, 500) == []
    assert b.down == 0


def test_glitch_shorter_than_debounce_is_ignored():
    # a 40 ms spike (EMI on a long wire) is not a press
    b = fresh()
    assert feed(b, PRS, 100, 140) == []
    assert feed(b, REL, 140, 400) == []


def test_debounce_zero_reacts_on_the_first_sample():
    b = fresh(debounce_ms=0)
    assert b.update(10, PRS) == SHORT


def test_short_reported_on_release_when_button_has_long_action():
    # held 300 ms: nothing while held, SHORT once the release is debounced
    b = fresh(has_long=True)
    assert feed(b, PRS, 100, 400) == []
    assert feed(b, REL, 400, 600) == [(450, SHORT)]


def test_long_press_reported_once_and_no_short_on_release():
    # held 2 s: LONG at 1000 ms after the press started, then nothing
    b = fresh(has_long=True)
    assert feed(b, PRS, 100, 2100) == [(1100, LONG)]
    assert feed(b, REL, 2100, 2400) == []


def test_release_just_before_long_ms_is_short():
    # released at 990 ms (raw): the release debounce must not turn it into LONG
    b = fresh(has_long=True)
    assert feed(b, PRS, 0, 990) == []
    assert feed(b, REL, 990, 1200) == [(1040, SHORT)]


def test_long_ms_per_button():
    b = fresh(has_long=True, long_ms=3000)
    assert feed(b, PRS, 100, 3500) == [(3100, LONG)]


def test_stuck_reported_once_then_ignored_until_release_which_clears_it():
    b = fresh(has_long=True)
    assert feed(b, PRS, 100, 20000) == [(1100, LONG), (5100, STUCK)]
    assert feed(b, REL, 20000, 20200) == [(20050, CLEARED)]
    # a normal press works again
    assert feed(b, PRS, 21000, 21300) == []
    assert feed(b, REL, 21300, 21500) == [(21350, SHORT)]


def test_stuck_without_long_action():
    b = fresh()
    assert feed(b, PRS, 100, 9000) == [(150, SHORT), (5100, STUCK)]
    assert feed(b, REL, 9000, 9100) == [(9050, CLEARED)]


def test_button_held_at_first_poll_is_not_a_press():
    # held at power-on (safe boot, or jammed): no SHORT/LONG, STUCK after
    # stuck_ms, CLEARED on release, then it works
    b = Button(None, has_long=True)
    assert b.update(0, PRS) == 0
    assert b.down == 1
    assert feed(b, PRS, 10, 4000) == []
    assert feed(b, REL, 4000, 4200) == []  # released before stuck_ms: quietly armed
    assert feed(b, PRS, 5000, 5200) == []
    assert feed(b, REL, 5200, 5400) == [(5250, SHORT)]
    c = Button(None)
    assert c.update(0, PRS) == 0
    assert feed(c, PRS, 10, 6000) == [(5000, STUCK)]
    assert feed(c, REL, 6000, 6100) == [(6050, CLEARED)]


def test_active_high_button():
    b = Button(None, active_low=False)
    assert b.update(0, 0) == 0
    assert feed(b, 1, 10, 100) == [(60, SHORT)]


def test_hold_times_across_the_counter_wrap():
    # press 100 ms before the wrap: LONG and STUCK still at 1000/5000 ms
    start = MASK + 1 - 100
    b = Button(None, has_long=True)
    assert b.update(start - 10, REL) == 0
    got = feed(b, PRS, start, start + 6000)
    assert got == [(start + 1000, LONG), (start + 5000, STUCK)], got
    assert feed(b, REL, start + 6000, start + 6100) == [(start + 6050, CLEARED)]


def test_debounce_across_the_counter_wrap():
    start = MASK + 1 - 20
    b = Button(None)
    assert b.update(start - 10, REL) == 0
    assert feed(b, PRS, start, start + 100) == [(start + 50, SHORT)]


# --- lock-out ----------------------------------------------------------------


def test_lock_ignores_presses_starting_in_the_window():
    # the turn passed at 1000, lock 400 ms: a press at 1200 is ignored whole
    # (held past long_ms: no LONG either), a press at 1500 counts
    b = fresh(has_long=True)
    b.lock(1000, 400)
    assert feed(b, PRS, 1200, 2500) == []
    assert feed(b, REL, 2500, 2700) == []
    assert feed(b, PRS, 3000, 3100) == []
    assert feed(b, REL, 3100, 3300) == [(3150, SHORT)]


def test_lock_window_end_is_exclusive_and_window_starts_at_now():
    b = fresh()
    b.lock(1000, 400)
    assert feed(b, PRS, 1390, 1600) == []  # started at 1390: inside
    feed(b, REL, 1600, 1700)
    c = fresh()
    c.lock(1000, 400)
    assert feed(c, PRS, 1400, 1600) == [(1450, SHORT)]  # started at 1400: after


def test_lock_swallows_a_press_being_debounced():
    # pressed at 990, the turn passes at 1000 before the press is accepted
    b = fresh()
    assert feed(b, PRS, 990, 1000) == []
    b.lock(1000, 400)
    assert feed(b, PRS, 1000, 1300) == []


def test_lock_cancels_the_pending_short_or_long_of_a_held_button():
    b = fresh(has_long=True)
    assert feed(b, PRS, 0, 500) == []  # down, SHORT/LONG still to come
    b.lock(500, 400)
    assert feed(b, PRS, 500, 1500) == []  # no LONG at 1000
    assert feed(b, REL, 1500, 1700) == []  # no SHORT
    # a locked press still reports STUCK
    c = fresh()
    c.lock(0, 400)
    assert feed(c, PRS, 100, 5200) == [(5100, STUCK)]


def test_lock_does_not_take_back_a_reported_event():
    b = fresh()
    assert feed(b, PRS, 0, 100) == [(50, SHORT)]
    b.lock(100, 400)
    assert feed(b, REL, 100, 300) == []
    assert b.down == 0


def test_unlock_and_lock_across_the_wrap():
    b = fresh()
    b.lock(1000, 400)
    b.lock(1000, 0)  # a lock of 0 ms: unlocked
    assert feed(b, PRS, 1100, 1200) == [(1150, SHORT)]
    start = MASK + 1 - 100  # window straddles the wrap
    c = Button(None)
    c.update(start - 10, REL)
    c.lock(start, 400)
    assert feed(c, PRS, start + 200, start + 400) == []
    feed(c, REL, start + 400, start + 500)
    assert feed(c, PRS, start + 500, start + 600) == [(start + 550, SHORT)]


# --- the group ---------------------------------------------------------------


class Recorder:
    """Records (index, event) into a preallocated bytearray: no allocation."""

    def __init__(self, size=64):
        self.buf = bytearray(2 * size)
        self.n = 0

    def add(self, i, event):
        self.buf[2 * self.n] = i
        self.buf[2 * self.n + 1] = event
        self.n += 1

    def events(self):
        return [(self.buf[2 * k], self.buf[2 * k + 1]) for k in range(self.n)]


def poll_span(g, t0, t1, step=10):
    t = t0
    while t < t1:
        g.poll(t)
        t += step


def test_group_polls_all_buttons_and_calls_back():
    pins = [FakePin(), FakePin(), FakePin()]
    rec = Recorder()
    g = ButtonGroup(
        [Button(pins[0]), Button(pins[1], has_long=True), Button(pins[2])],
        callback=rec.add,
    )
    poll_span(g, 0, 100)
    pins[2].level = PRS
    pins[1].level = PRS
    poll_span(g, 100, 1300)
    pins[1].level = REL
    pins[2].level = REL
    poll_span(g, 1300, 1500)
    assert rec.events() == [(2, SHORT), (1, LONG)]


def test_group_ring_buffer_keeps_order_and_counts_drops():
    pins = [FakePin() for _ in range(3)]
    g = ButtonGroup([Button(p, debounce_ms=0) for p in pins], size=4)
    assert g.get() == 0
    g.poll(0)
    for k in range(3):  # 3 presses and releases: 3 events
        pins[k].level = PRS
        g.poll(10 + k)
    assert g.pending() == 3
    e = g.get()
    assert (e >> 8, e & 0xFF) == (0, SHORT)
    for p in pins:
        p.level = REL
    g.poll(20)
    for k in (2, 1, 0):  # the ring wraps: 2 queued + 3 new, size 4
        pins[k].level = PRS
        g.poll(30 + k)
    assert g.pending() == 4 and g.dropped == 1
    got = []
    while True:
        e = g.get()
        if not e:
            break
        got.append((e >> 8, e & 0xFF))
    assert got == [(1, SHORT), (2, SHORT), (2, SHORT), (1, SHORT)], got
    assert g.pending() == 0


def test_group_lock_applies_to_lockout_buttons_or_a_mask():
    pins = [FakePin(), FakePin(), FakePin()]
    rec = Recorder()
    g = ButtonGroup(
        [Button(pins[0], lockout=True), Button(pins[1]), Button(pins[2], lockout=True)],
        callback=rec.add,
        lockout_ms=400,
    )
    g.poll(0)
    g.lock(100)  # default: the lockout buttons, lockout_ms
    for p in pins:
        p.level = PRS
    poll_span(g, 200, 400)
    assert rec.events() == [(1, SHORT)]
    for p in pins:
        p.level = REL
    poll_span(g, 400, 600)
    g.lock(600, 1000, mask=0b011)  # explicit: buttons 0 and 1, 1 s
    for p in pins:
        p.level = PRS
    poll_span(g, 700, 900)
    assert rec.events() == [(1, SHORT), (2, SHORT)]
    for p in pins:
        p.level = REL
    poll_span(g, 900, 1000)
    g.lock(1000, 0, mask=0b111)  # unlocked
    pins[0].level = PRS
    poll_span(g, 1000, 1100)
    assert rec.events() == [(1, SHORT), (2, SHORT), (0, SHORT)]


def test_group_from_board():
    import boarddef

    f = __file__  # absolute under pytest, relative (to the repo root) under MicroPython
    i = f.rfind("tests/fw/")
    board = boarddef.load((f[:i] if i > 0 else "") + "boards/mini.json")
    made = []

    def make_pin(num, pull):
        made.append((num, pull))
        return FakePin()

    g = buttons_setup.from_board(board, make_pin)
    assert made == [(33, "up"), (32, "up")]
    end = g.buttons[buttons_setup.index(board, "end")]
    assert end.has_long and end.lockout and end.long_ms == 3000 and end.debounce_ms == 50
    assert g.lockout_ms == 400
    point = buttons_setup.index(board, "point")
    assert ACTIONS[g.short[point]] == "point"
    assert ACTIONS[g.long[point]] == "undo"
    assert ACTIONS[g.long[buttons_setup.index(board, "end")]] == "new_match"
    assert ACTIONS[g.short[buttons_setup.index(board, "end")]] == "miss"
    g = buttons_setup.from_board({"buttons": [], "timings": {"lockout_ms": 300}}, make_pin)
    assert g.short == g.long == b"" and g.lockout_ms == 300
    raises(ValueError, buttons_setup.index, board, "nope")


def test_group_refuses_more_than_255_buttons():
    raises(ValueError, ButtonGroup, [Button(None)] * 256)


# --- no allocation, the loop -------------------------------------------------


def _scenario(g, pins, t):
    """Press, long-hold, stuck, release, lock: every branch of update(). Time wraps
    with ticks_add: on a 31-bit port `t + 10` past 2**30 would itself allocate."""
    for p in pins:
        p.level = REL
    for _ in range(20):
        g.poll(t)
        t = ticks_add(t, 10)
    for p in pins:
        p.level = PRS
    for _ in range(600):
        g.poll(t)
        t = ticks_add(t, 10)
    for p in pins:
        p.level = REL
    for _ in range(20):
        g.poll(t)
        t = ticks_add(t, 10)
    g.lock(t)
    pins[0].level = PRS
    for _ in range(20):
        g.poll(t)
        t = ticks_add(t, 10)
    return t


def test_poll_path_does_not_allocate():
    try:
        import micropython

        micropython.heap_lock
    except (ImportError, AttributeError):
        raise SkipTest("needs micropython.heap_lock")
    pins = [FakePin() for _ in range(4)]
    bl = [
        Button(pins[0], has_long=True, lockout=True),
        Button(pins[1]),
        Button(pins[2], lockout=True),
        Button(pins[3], active_low=False),
    ]
    rec = Recorder(64)
    cb = rec.add  # bound once, outside the lock
    g = ButtonGroup(bl, callback=cb)
    q = ButtonGroup([Button(p) for p in pins], size=8)  # ring-buffer mode
    _scenario(g, pins, 0)
    _scenario(q, pins, 0)  # warm up: every attribute exists
    while q.get():
        pass
    rec.n = 0
    start = MASK + 1 - 3000  # across the wrap too
    micropython.heap_lock()
    try:
        _scenario(g, pins, start)
        _scenario(q, pins, start)
        got = 0
        while q.get():
            got += 1
    finally:
        micropython.heap_unlock()
    assert rec.n > 0 and got > 0
    assert (0, LONG) in rec.events() and (0, STUCK) in rec.events()

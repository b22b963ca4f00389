"""The group marks a press the lock-out ignored (ButtonGroup.locked, a bit per button), for the
app's console line "carom: refused <action>: locked out"; the press itself stays no event."""

from fwtest import SkipTest
from buttons import Button, ButtonGroup, SHORT
from ticks import ticks_add

REL = 1
PRS = 0


class Pin:
    def __init__(self):
        self.level = REL

    def __call__(self):
        return self.level


def group(**kw):
    pins = [Pin(), Pin(), Pin()]
    g = ButtonGroup(
        [Button(pins[0], lockout=True), Button(pins[1], lockout=True, has_long=True), Button(pins[2])],
        lockout_ms=400,
        **kw,
    )
    g.poll(0)
    return g, pins


def span(g, t0, t1):
    t = t0
    while t < t1:
        g.poll(t)
        t += 10


def events(g):
    out = []
    while g.pending():
        e = g.get()
        out.append((e >> 8, e & 0xFF))
    return out


def test_a_press_starting_in_the_lock_out_is_marked_not_reported():
    g, pins = group()
    g.lock(100)  # the turn passed at 100: the lockout buttons (0 and 1) ignore presses until 500
    pins[0].level = pins[2].level = PRS
    span(g, 200, 400)
    assert events(g) == [(2, SHORT)]  # button 2 has no lock-out
    assert g.locked == 0b001  # button 0's press: marked once
    g.locked = 0  # the app said so
    span(g, 400, 2000)  # held on: not marked again
    assert g.locked == 0 and events(g) == []
    pins[0].level = pins[2].level = REL
    span(g, 2000, 2200)
    pins[0].level = PRS  # after the lock-out: a press
    span(g, 2200, 2400)
    assert events(g) == [(0, SHORT)] and g.locked == 0


def test_a_press_under_way_when_the_lock_comes_is_marked_at_the_next_poll():
    g, pins = group()
    pins[1].level = PRS  # button 1 has a long action: down, its SHORT/LONG still to come
    span(g, 100, 300)
    assert events(g) == [] and g.locked == 0
    g.lock(300)
    assert g.locked == 0
    g.poll(310)
    assert g.locked == 0b010
    pins[1].level = REL
    span(g, 320, 600)
    assert events(g) == []  # no SHORT for it


def test_marking_allocates_nothing():
    try:
        import micropython

        micropython.heap_lock
    except (ImportError, AttributeError):
        raise SkipTest("needs micropython.heap_lock")
    g, pins = group(size=8)
    span(g, 0, 100)
    micropython.heap_lock()
    try:
        t = (1 << 30) - 300  # across the ms counter's wrap
        for _ in range(3):
            g.lock(t)
            pins[0].level = pins[1].level = PRS
            for _ in range(20):
                g.poll(t)
                t = ticks_add(t, 10)
            marked = g.locked
            g.locked = 0
            pins[0].level = pins[1].level = REL
            for _ in range(60):
                g.poll(t)
                t = ticks_add(t, 10)
    finally:
        micropython.heap_unlock()
    assert marked == 0b011

"""The names of the view's codes that its halves share: the fields, a slot's values, the blinks.

view.py draws the displays; formats_wall.py and formats_rare.py draw a format match's fields into
the same slots; view_setup.py makes the slots. The codes they share have their one home here:
each imports them, and the build compiles them in (host_tools/consts.py), so that no board
loads this module.
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# Field codes: indexes into view_setup.FIELDS (A's seven fields, B's seven, the shared ones; a
# test checks them).
SCORE = const(0)
INNINGS = const(1)
RUN = const(2)
HIGH_RUN = const(3)
AVERAGE = const(4)
NAME = const(5)
OWN_TARGET = const(6)  # A.target, B.target
PER_PLAYER = const(7)
TARGET = const(14)
COUNTDOWN = const(15)  # in a set match, between its last points, the set score (formats_wall.py)
SETS = const(16)  # the set score: formats_wall.py draws it (a set match); else blank
CLOCK = const(17)
MESSAGE = const(18)

# A slot's value.
STEPS = const(100)  # a message's value: its id * STEPS + its marquee step
BREAK_CLOCK = const(1000000)  # a clock value at or above: the break's seconds
STALE = const(-2)  # a slot value no content has: draw it
PLAIN = const(-3)  # formats_wall.value: the format match shows what a plain one does

# How a display blinks.
BLINK_2HZ = const(1)
BLINK_1HZ = const(2)
BLINK_HALF_HZ = const(3)

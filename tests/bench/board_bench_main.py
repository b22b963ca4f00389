"""Benchmark main.py for the virtual board: the app's own objects, measured inside MicroPython.

The chips are handed a counting bus (the emulator's I2C allocates to report
writes to the host, which the real one does not); time is the unix port's
real clock, the virtual one stands still while code runs.
"""

import gc
import json

import micropython

import _vb_time

real = _vb_time._real_time
N = 200


class CountingBus:
    def __init__(self):
        self.bytes = 0
        self.writes = 0

    def writeto(self, addr, buf):
        self.bytes += len(buf) + 1  # the address byte too
        self.writes += 1
        return len(buf)


import machine  # noqa: E402
import startup  # noqa: E402

config, error = startup.load_config()
board = startup.load_board(config["board"])
b = startup.build(board, config, error, machine)
import buttons_setup  # noqa: E402  (after the board: the start's heap in its order)
import rules  # noqa: E402

bus = CountingBus()
for chip in b.chips:
    chip.set_bus(bus)
b.view.render(0)
a_point = buttons_setup.index(board, "A.point")
a_end = buttons_setup.index(board, "A.end")
b_end = buttons_setup.index(board, "B.end")
b.ctrl.press(a_point, 1, 0)  # the lag: A breaks

# Bytes allocated per press, from the button event to the last I2C write.
# (counted press by press: reading the clock between them is not the press's allocation)
m0 = 0  # made before it is measured: a new name here grows this module's dict (an allocation)
gc.collect()
allocated = 0
for i in range(N):
    b.match.reserve()  # the clock task's job: the log's next chunk made ahead, off the press path
    m0 = micropython.mem_total()
    b.ctrl.press(a_point, 1, 1000 + i)
    allocated += micropython.mem_total() - m0
alloc_per_press = allocated / N
t0 = real.ticks_us()
for i in range(N):
    b.ctrl.press(a_point, 1, 3000 + i)
press_us = real.ticks_diff(real.ticks_us(), t0)

# I2C bytes per point and chips written per point.
bus.bytes = bus.writes = 0
for i in range(N):
    b.ctrl.press(a_point, 1, 6000 + i)
i2c_bytes = bus.bytes / N
i2c_writes = bus.writes / N

# The rules core's own event time, for the ratio.
m = rules.Match(capacity=2048, game="straight_rail", target=9999, breaker=rules.A)
t0 = real.ticks_us()
for i in range(N):
    m.point(rules.NOBODY, i)
rules_us = real.ticks_diff(real.ticks_us(), t0)

print(
    "BENCH "
    + json.dumps(
        {
            "alloc_per_press": alloc_per_press,
            "i2c_bytes_per_point": i2c_bytes,
            "i2c_writes_per_point": i2c_writes,
            "press_us": press_us / N,
            "rules_us": rules_us / N,
            "chips": len(b.chips),
        }
    )
)

# The end of a long match, on the interpreter running it (the 32-bit build with -X heapsize=112K
# is the chip's heap), with the firmware as `carom deploy` builds it: copied beside the .mpy files
# by host_tools/bench/longmatch.py and run from there with the store's folder as its argument.
#
#   micropython -X heapsize=112K long_match_main.py <store folder> [entries] [holes]
#
# A straight-rail match of `entries` log entries (3,000) is played into the store as the wall
# board plays it (an entry, then store.sync), then:
#   - its report is written as the board writes it (report.save, stepped by asyncio): the live
#     heap after each step (gc.collect at every yield: where the allocations happened), each
#     step's time, the whole time, the modules still loaded afterwards;
#   - the match is read back from the flash as after a power cut (store.restore): its time;
#   - the deepest undo the log's chunks allow: its time.
# With `holes` (bytes), the free heap is cut into holes of that size before the report.
# Prints one JSON line.
import gc
import sys
import time

gc.collect()
base = gc.mem_alloc()

import asyncio  # noqa: E402

import app  # noqa: E402  (resident on a running wall board; machine is a stand-in here)
import rules  # noqa: E402
import store  # noqa: E402

ROOT = sys.argv[1]
ENTRIES = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
HOLES = int(sys.argv[3]) if len(sys.argv) > 3 else 0


def us():
    return time.ticks_us()


def play(m, st, entries):
    """Rounds as tests/bench's long match has them: A three points, A misses, B two points and
    a foul; the half-time break once."""
    t = 0
    r = 0
    while m.n < entries:
        for _ in range(3):
            t += 4000
            m.point(rules.NOBODY, t)
        t += 4000
        m.miss(rules.NOBODY, t)
        for _ in range(2):
            t += 4000
            m.point(rules.NOBODY, t)
        t += 4000
        m.foul(rules.NOBODY, 10, t)  # a foul of a kind the board was not told
        m.reserve()
        st.sync(m)
        r += 1
    return t


class Board:
    """What report.save reads of app.Board."""

    def __init__(self, m, st):
        self.match = m
        self.store = st
        self.started_at = 1764489600
        self.table = "Table 3"
        self.name = "wall"
        self.mqtt = None
        self.reported = False


app.wall_clock = lambda offset_s: 1764493200  # the unix port's time.time() is a float
out = {"entries": ENTRIES}
m = rules.Match()
st = store.MatchStore(ROOT)
# A reaches the target in the round after `entries`: 3 points in each round of 7 entries.
m.new(0, game="straight_rail", target=3 * (ENTRIES // 7) + 4, breaker=rules.A, name_A="Kovacs Anna",
      name_B="Nagy Bela")
st.begin(m)
now = play(m, st, ENTRIES)
while m.phase != rules.FINISHED:  # A's last points, B's equalizing inning missed
    now += 4000
    if m.phase == rules.EQUALIZING:
        m.miss(rules.NOBODY, now)
    else:
        m.point(rules.NOBODY, now)
    m.reserve()
st.sync(m)
out["n"] = m.n
gc.collect()
out["live_before_report"] = gc.mem_alloc() - base
modules_before = sorted(sys.modules)

pins = []
if HOLES:
    gaps = []
    try:
        while True:
            gaps.append(bytearray(HOLES - 16))
            pins.append(bytearray(1))
    except MemoryError:
        pass
    del gaps
    gc.collect()
pinned = 32 * len(pins)

# The report as app.Board.save_task writes it: report.save stepped by asyncio, with a task
# that samples the heap at every one of its yields.
board = Board(m, st)
steps = []
high = [0]
last = [0]
done = [False]


async def sampler():
    while not done[0]:
        t = us()
        if last[0]:
            steps.append(time.ticks_diff(t, last[0]))
        gc.collect()
        live = gc.mem_alloc() - base - pinned
        if live > high[0]:
            high[0] = live
        last[0] = us()
        await asyncio.sleep_ms(0)


async def report():
    import cold

    try:
        await cold.run("report", "save", board)
    except MemoryError:
        out["report_memory_error"] = True
    done[0] = True


t0 = us()
last[0] = 0


async def main():
    asyncio.create_task(sampler())
    await report()


asyncio.run(main())
out["report_us"] = time.ticks_diff(us(), t0)
out["report_peak"] = high[0]
out["report_steps"] = len(steps)
out["report_longest_step_us"] = max(steps) if steps else 0
out["report_longest_steps"] = sorted([(d, i) for i, d in enumerate(steps)])[-30:]
out["report_ok"] = board.reported
del pins
gc.collect()
out["resident_after_report"] = [k for k in sorted(sys.modules) if k not in modules_before]
out["live_after_report"] = gc.mem_alloc() - base
import history  # noqa: E402

out["report_bytes"] = history.report_size(st, store.report_name(st.gen)) if board.reported else 0
del sys.modules["history"], history

# The restore after a power cut: a fresh match and store read from the flash.
del board
m2 = None
m = None
st = None
gc.collect()
m = rules.Match()
st = store.MatchStore(ROOT)
gc.collect()
t0 = us()
ok = st.restore(m, 0)
out["restore_us"] = time.ticks_diff(us(), t0)
out["restored"] = m.n if ok else -1
gc.collect()

# The deepest undo the chunks allow: back to the first entry of a chunk, then one more.
worst = 0
k = 0
while m.n and k < 140:
    t0 = us()
    m.undo(now)
    d = time.ticks_diff(us(), t0)
    if d > worst:
        worst = d
    k += 1
out["undo_worst_us"] = worst
out["undos"] = k
print("LONGMATCH", end=" ")
import json  # noqa: E402

print(json.dumps(out))

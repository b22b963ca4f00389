# The end of a long match, on the interpreter running it (the 32-bit build with -X heapsize=112K
# is the chip's heap), with the firmware as `carom deploy` builds it: copied beside the .mpy files
# by host_tools/bench/longmatch.py and run from there with the store's folder as its argument.
#
#   micropython -X heapsize=112K long_match_main.py <store folder> [entries] [mode]
#
# A straight-rail match of `entries` log entries (3,000) is played into the store as the wall
# board plays it (an entry, then store.sync; the log's old chunks leave RAM), then:
#   - its report is written as the board writes it (report.save awaited through cold.run,
#     asyncio running): the live heap after each of its steps (a task that runs at every
#     yield collects and samples: where the report's allocations happened), each step's time,
#     the whole time, the modules still loaded afterwards;
#   - the match is read back from the flash as after a power cut (store.restore): its time;
#   - undos from the end down to the first entry of a chunk and past it: the slowest one.
# mode "alloc": the report only, with the collector off, in a heap large enough to hold every
# allocation it makes: the bytes it allocated in all (run with -X heapsize=64M).
# As main.py does, the collector runs after every 4 KB allocated. Prints one JSON line.
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
MODE = sys.argv[3] if len(sys.argv) > 3 else ""


def us():
    return time.ticks_us()


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


def play(m, st, entries):
    """Rounds of 7 entries: A three points and a miss, B two points and a foul; A reaches the
    target after `entries`, B misses his equalizing inning."""
    t = 0
    while m.phase != rules.FINISHED:
        t += 4000
        k = m.n % 7
        if m.phase == rules.EQUALIZING:
            m.miss(rules.NOBODY, t)
        elif k == 3 or (k == 6 and m.n < entries):
            (m.miss if k == 3 else m.foul)(rules.NOBODY, *((t,) if k == 3 else (10, t)))
        else:
            m.point(rules.NOBODY, t)
        m.reserve()
        st.sync(m)
    return t


app.wall_clock = lambda offset_s: 1764493200  # the unix port's time.time() is a float
gc.threshold(4096)
out = {"entries": ENTRIES, "mode": MODE}
m = rules.Match()
st = store.MatchStore(ROOT)
m.new(0, game="straight_rail", target=3 * (ENTRIES // 7) + 3, breaker=rules.A, name_A="Kovacs Anna",
      name_B="Nagy Bela")
st.begin(m)
now = play(m, st, ENTRIES)
out["n"] = m.n
board = Board(m, st)
gc.collect()
out["live_before_report"] = gc.mem_alloc() - base
modules_before = sorted(sys.modules)
steps = []
high = [0]
last = [0]
done = [False]


async def sampler():
    """At every yield of the report's steps: the step's time, then a collection and the live heap."""
    while not done[0]:
        t = us()
        if last[0]:
            steps.append(time.ticks_diff(t, last[0]))
        gc.collect()
        live = gc.mem_alloc() - base
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


async def main():
    asyncio.create_task(sampler())
    await report()


if MODE == "alloc":
    import cold  # noqa: E402

    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    asyncio.run(cold.run("report", "save", board))
    out["report_alloc"] = gc.mem_alloc() - before
    gc.enable()
else:
    t0 = us()
    asyncio.run(main())
    out["report_us"] = time.ticks_diff(us(), t0)
    out["report_peak"] = high[0]
    out["report_steps"] = len(steps)
    out["report_longest_step_us"] = max(steps) if steps else 0
    out["report_slowest_steps"] = sorted([(d, i) for i, d in enumerate(steps)])[-12:]
    out["report_first_steps"] = steps[:40]
    steps.sort()
    out["report_median_step_us"] = steps[len(steps) // 2] if steps else 0
    gc.collect()
    out["resident_after_report"] = [k for k in sorted(sys.modules) if k not in modules_before]
out["report_ok"] = board.reported
import history  # noqa: E402

out["report_bytes"] = history.report_size(st, store.report_name(st.gen)) if board.reported else 0
del sys.modules["history"], history

if MODE != "alloc":
    # The restore after a power cut: a fresh match and store read from the flash.
    board = m = st = None
    gc.collect()
    m = rules.Match()
    st = store.MatchStore(ROOT)
    gc.collect()
    t0 = us()
    ok = st.restore(m, 0)
    out["restore_us"] = time.ticks_diff(us(), t0)
    out["restored"] = m.n if ok else -1
    gc.collect()
    # Undos from the end down past the start of a chunk (the most entries replayed: 127).
    worst = 0
    undos = 0
    replayed = 0
    while m.n and undos < 140:
        t0 = us()
        m.undo(now)
        d = time.ticks_diff(us(), t0)
        if d > worst:
            worst = d
            replayed = m.n % (rules.CHUNK // 4)  # from the state before its quarter of the chunk
        undos += 1
    out["undo_worst_us"] = worst
    out["undo_worst_replayed"] = replayed
    out["undos"] = undos
import json  # noqa: E402

print("LONGMATCH " + json.dumps(out))

# The end of a long match, on the interpreter running it (the 32-bit build with -X heapsize=112K
# is the chip's heap), with the firmware as `carom deploy` builds it: copied beside the .mpy files
# by tools/bench/longmatch.py and run from there with the store's folder as its argument.
#
#   micropython -X heapsize=112K long_match_main.py <store folder> [entries] [mode]
#
# A straight-rail match of `entries` log entries (3,000) is played into the store as the wall
# board plays it (an entry, then store.sync; the log's old chunks leave RAM), then:
#   - its report is written as the board writes it (report.save awaited through app.Board.save_report,
#     asyncio running), three times over: the live heap after each of its steps (a task that
#     runs at every yield collects and samples: where the report's allocations happened), each
#     step's own time (its best of the three runs: the report's steps are the same each time,
#     this machine's interruptions are not) and the bytes it allocated, from the call that
#     loads report.py on; the whole time (the best run), the modules still loaded afterwards.
#     The collector is off within a step and runs at its yield: a step's time is its own, and
#     the collections its allocation costs on the chip are counted from its bytes (the host's
#     collections say nothing of the chip's: tools/bench/chiptime.py). A step's file time
#     is counted apart: the store's calls (its fs is timed) and the reading of the modules
#     it loaded (each .mpy read again as the import reads it, in 24-byte pieces): on the chip
#     that is LittleFS on the flash, which the CPU's estimate does not scale;
#   - the match is read back from the flash as after a power cut (store.restore): its time,
#     its file time apart;
#   - undos from the end down to the first entry of a chunk and past it: the slowest one.
# mode "alloc": the report only, with the collector off, in a heap large enough to hold every
# allocation it makes: the bytes it allocated in all (run with -X heapsize=64M).
# As main.py does, the collector runs after every 4 KB allocated. Prints a line per step of the
# report ("LONGMATCH_STEP k us bytes file_us"), then one JSON line.
import array
import gc
import os
import sys
import time

gc.collect()
base = gc.mem_alloc()

import asyncio  # noqa: E402

import app  # noqa: E402  (resident on a running wall board; machine is a stand-in here)
import rules  # noqa: E402
import store  # noqa: E402
from reportboard import Board  # noqa: E402  (copied beside it)

ROOT = sys.argv[1]
ENTRIES = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
MODE = sys.argv[3] if len(sys.argv) > 3 else ""


def us():
    return time.ticks_us()


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


io = [0]  # us spent in the store's file calls


class TimedFile:
    """A file of TimedFs: each call's time goes to io."""

    def __init__(self, f):
        self.f = f

    def _timed(self, name, *args):
        t = us()
        try:
            return getattr(self.f, name)(*args)
        finally:
            io[0] += time.ticks_diff(us(), t)

    def read(self, *args):
        return self._timed("read", *args)

    def readinto(self, buf):
        return self._timed("readinto", buf)

    def write(self, data):
        return self._timed("write", data)

    def close(self):
        return self._timed("close")


class TimedFs:
    """The store's fs (store.PosixFs's calls), each call's time going to io."""

    def _timed(self, fn, *args):
        t = us()
        try:
            return fn(*args)
        finally:
            io[0] += time.ticks_diff(us(), t)

    def open(self, path, mode="r"):
        return TimedFile(self._timed(open, path, mode))

    def rename(self, a, b):
        return self._timed(os.rename, a, b)

    def remove(self, path):
        return self._timed(os.remove, path)

    def stat(self, path):
        return self._timed(os.stat, path)

    def listdir(self, path):
        return self._timed(os.listdir, path)

    def mkdir(self, path):
        return self._timed(os.mkdir, path)

    ilistdir = None


PIECE = bytearray(24)


def read_time(names):
    """us to read the .mpy files of modules `names` in 24-byte pieces, as the import does."""
    took = 0
    for name in names:
        try:
            t = us()
            f = open(name + ".mpy", "rb")
            while f.readinto(PIECE):
                pass
            f.close()
            took += time.ticks_diff(us(), t)
        except OSError:  # not a file of the firmware's
            pass
    return took


app.wall_clock = lambda offset_s: 1764493200  # the unix port's time.time() is a float
gc.threshold(4096)
out = {"entries": ENTRIES, "mode": MODE}
m = rules.Match()
st = store.MatchStore(ROOT, None if MODE == "alloc" else TimedFs())  # alloc: the store's own fs
m.new(0, game="straight_rail", target=3 * (ENTRIES // 7) + 3, breaker=rules.A, name_A="Kovacs Anna", name_B="Nagy Bela")
st.begin(m)
now = play(m, st, ENTRIES)
out["n"] = m.n
board = Board(m, st)
MAX_STEPS = 2000
step_us = array.array("H", bytes(2 * MAX_STEPS))  # made before the report: not its heap
step_bytes = array.array("H", bytes(2 * MAX_STEPS))
step_io = array.array("H", bytes(2 * MAX_STEPS))
gc.collect()
out["live_before_report"] = gc.mem_alloc() - base
modules_before = sorted(sys.modules)
n_steps = [0]
high = [0]
last = [0]
at = [0]
loaded = [()]
done = [False]
run = 0


async def sampler():
    """At every yield of the report's steps: the step's time and bytes (the collector off
    within it), then a collection and the live heap."""
    while not done[0]:
        t = us()
        if last[0]:
            k = n_steps[0]
            if k < MAX_STEPS:
                d = min(time.ticks_diff(t, last[0]), 65535)
                step_bytes[k] = min(gc.mem_alloc() - at[0], 65535)
                new = [name for name in sys.modules if name not in loaded[0]]
                f = min(io[0] + read_time(new), d)
                if not run or d - f < step_us[k] - step_io[k]:
                    step_us[k] = d
                    step_io[k] = f
            n_steps[0] = k + 1
        gc.enable()
        gc.collect()
        live = gc.mem_alloc() - base
        if live > high[0]:
            high[0] = live
        loaded[0] = tuple(sys.modules)
        gc.disable()
        io[0] = 0
        at[0] = gc.mem_alloc()
        last[0] = us()
        await asyncio.sleep_ms(0)
    gc.enable()


async def report():
    try:
        await app.Board.save_report(board)
    except MemoryError:
        out["report_memory_error"] = True
    done[0] = True


async def main():
    task = asyncio.create_task(sampler())
    await asyncio.sleep_ms(0)  # the sampler's first turn: the step that loads report.py is timed too
    await report()
    await task  # its last turn: the next run starts with no sampler left over


if MODE == "alloc":
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    asyncio.run(app.Board.save_report(board))
    out["report_alloc"] = gc.mem_alloc() - before
    gc.enable()
else:
    RUNS = 3
    whole = []
    count = -1
    for run in range(RUNS):
        n_steps[0] = 0
        last[0] = 0
        done[0] = False
        gc.collect()
        t0 = us()
        asyncio.run(main())
        whole.append(time.ticks_diff(us(), t0))
        if count >= 0 and n_steps[0] != count:
            raise SystemExit("the report's steps differ between runs: %d, %d" % (count, n_steps[0]))
        count = n_steps[0]
    if count > MAX_STEPS:
        raise SystemExit("the report took %d steps: more than the %d counted" % (count, MAX_STEPS))
    for k in range(count):
        print("LONGMATCH_STEP %d %d %d %d" % (k, step_us[k], step_bytes[k], step_io[k]))
    out["report_runs"] = RUNS
    out["report_us"] = min(whole)
    out["report_peak"] = high[0]
    out["report_steps"] = count
    gc.collect()
    out["resident_after_report"] = [k for k in sorted(sys.modules) if k not in modules_before]
out["report_ok"] = board.reported
import store_history  # noqa: E402

out["report_bytes"] = store_history.report_size(st, store.report_name(st.gen)) if board.reported else 0
del sys.modules["store_history"], store_history

if MODE != "alloc":
    # The restore after a power cut: a fresh match and store read from the flash.
    board = m = st = None
    gc.collect()
    m = rules.Match()
    st = store.MatchStore(ROOT, TimedFs())
    gc.collect()
    before = tuple(sys.modules)
    io[0] = 0
    t0 = us()
    ok = st.restore(m, 0)
    out["restore_us"] = time.ticks_diff(us(), t0)
    out["restore_file_us"] = io[0] + read_time([name for name in sys.modules if name not in before])
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

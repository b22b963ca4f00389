"""Undo at 200, 1,000 and 3,000 entries, on the interpreter running it: the entries replayed
(from the newest state kept: the chunk's checkpoint, or one of its quarters' in the newest two
chunks, which reserve() makes as the board's clock task calls it) and the time per undo. Run
from the repository root:
    micropython tests/bench/undo_bench.py      (prints one JSON line)
The log stays in RAM here (no store): the undo's own cost, without reading the flash."""

import sys

sys.path.insert(0, "firmware")

import json  # noqa: E402
import time  # noqa: E402

import rules  # noqa: E402

N = 30
out = {}
for size in (200, 1000, 3000):
    m = rules.Match(game="straight_rail", target=9999, breaker=rules.A)
    t = 0
    while m.n < size:
        t += 1000
        if m.n % 7 == 6:
            m.miss(rules.NOBODY, t)
        else:
            m.point(rules.NOBODY, t)
        m.reserve()
    spent = 0
    replayed = 0
    for _ in range(N):
        t0 = time.ticks_us() if hasattr(time, "ticks_us") else int(time.perf_counter() * 1e6)
        m.undo(t)
        t1 = time.ticks_us() if hasattr(time, "ticks_us") else int(time.perf_counter() * 1e6)
        spent += t1 - t0
        replayed += m.n % (rules.CHUNK // 4)  # from the quarter's state
        t += 1000
        m.point(rules.NOBODY, t)
    out[str(size)] = {"us": spent / N, "replayed": replayed / N}
print(json.dumps(out))

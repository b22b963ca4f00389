"""The `make bench` section of a whole tournament on the hall: runs tests/bench/bench_tournament.py.

64 players (8 groups of 8, the top 2 of each into a knock-out: 239 matches) on 16 simulated
boards through mosquitto and `carom hall --db --keys`: the time from the draw to the champion,
the hall process's CPU time and memory (its peak resident set), the tournament file's size.
"""

import json
import os
import subprocess
import sys

from .. import ROOT


def tournament_section():
    script = os.path.join(ROOT, "tests", "bench", "bench_tournament.py")
    print("## A 64-player tournament on the hall (16 simulated boards -> mosquitto -> carom hall --db, loopback)")
    proc = subprocess.run([sys.executable, script], cwd=ROOT, capture_output=True, text=True, timeout=1500)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        print("(not measured: %s)" % (proc.stderr.strip().splitlines() or ["no output"])[-1])
        print()
        return {"skipped": proc.stderr[-2000:]}
    r = json.loads(lines[-1])
    if r.get("skipped"):
        print("(not measured: %s)" % r["skipped"])
        print()
        return r
    print("%d players in %d groups on %d tables: %d matches (%d played, %d setups sent, %d refused), champion: %s"
          % (r["players"], r["groups"], r["tables"], r["matches"], r["played"], r["setups"], r["refused"],
             "yes" if r["champion"] else "NO"))
    print("draw to champion %.1f s (boards playing every stroke at once: %d state documents); carom hall: %.1f s CPU,"
          " %d KB resident at the start, %d KB at the end, peak %d KB; tournament file %d KB"
          % (r["seconds"], r["states"], r["hall_cpu_s"], r["hall_rss_start_kb"], r["hall_rss_end_kb"],
             r["hall_peak_kb"], r["db_bytes"] // 1024))
    print()
    return r

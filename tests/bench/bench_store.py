"""Flash wear of the match store on a real LittleFS (os.VfsLfs2) in RAM; MicroPython only.

A 2 MiB partition of 4 KiB blocks (the ESP32 default on a 4 MiB flash) holds
the store; N three-cushion matches to 30 are played with a journal sync after
every event and a report saved at the end.  Prints one JSON line of counts.
"""

import json
import os
import random
import sys

sys.path.insert(0, "firmware")
sys.path.insert(0, "tests/fw")
import matchdoc  # noqa: E402
import rules  # noqa: E402
import store_history  # noqa: E402
import store  # noqa: E402
from faultfs import RamFlash, VfsFs  # noqa: E402

MATCHES = int(sys.argv[1]) if len(sys.argv) > 1 else 200

flash = RamFlash(blocks=512)
os.VfsLfs2.mkfs(flash)
s = store.MatchStore("/data", VfsFs(os.VfsLfs2(flash)))
random.seed(1)
rng = random
m = rules.Match(capacity=512)
points = entries = 0
report_bytes = 0
for game in range(MATCHES):
    m.new(
        0,
        game="three_cushion",
        target=30,
        breaker=game & 1,
        name_A="Kovacs Anna",
        club_A="BC Szeged",
        name_B="Nagy Bela",
        club_B="Pecsi KSE",
    )
    s.begin(m)
    t = 0
    while m.phase != rules.FINISHED:
        t += 20000
        r = rng.random()
        if r < 0.45:
            m.point(rules.NOBODY, t)
            points += 1
        elif r < 0.97:
            m.miss(rules.NOBODY, t)
        elif r < 0.99:
            m.foul(rules.NOBODY, 3, t)
        else:
            m.undo(t)
        s.sync(m)
    entries += m.n
    text = json.dumps(matchdoc.doc(m, t))
    report_bytes += len(text)
    store_history.save_report(s, text)

erases = sum(flash.erases)
print(
    json.dumps(
        {
            "matches": MATCHES,
            "points": points,
            "entries": entries,
            "bytes_programmed": flash.programmed,
            "erases": erases,
            "hottest_block_erases": max(flash.erases),
            "blocks": flash.blocks,
            "block_size": flash.block_size,
            "report_bytes": report_bytes // MATCHES,
            "snapshot_bytes": store.SNAP_SIZE if hasattr(store, "SNAP_SIZE") else 128,
            "record_bytes": store.REC_SIZE if hasattr(store, "REC_SIZE") else 16,
        }
    )
)

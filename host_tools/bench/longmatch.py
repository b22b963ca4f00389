"""The end of a long match on the chip's interpreter: the report, the restore, the undo.

The firmware as `carom deploy` builds it (.mpy) runs tests/bench/long_match_main.py on the
32-bit MicroPython with a stock ESP32's 112 KB (a stand-in for `machine`; the store on this
machine's disk): a 3,000-entry straight-rail match played into the store, its report
written as the board writes it, the match read back, the deepest undo. Host times, each with
the chip's time estimated (chiptime.py), against the goals below. The live heap of the
report on a whole virtual board is the heap section's ("3,000-entry match: highest live").
"""

import json
import os
import shutil
import subprocess
import tempfile

from .. import ROOT, micropython32_exe
from . import chiptime

MAIN = os.path.join(ROOT, "tests", "bench", "long_match_main.py")
ENTRIES = 3000
# The goals on the chip (estimated): ms, or a multiple of the report's own size.
STEP_MS = 20
REPORT_MS = 60000
RESTORE_MS = 2000
UNDO_MS = 20
ALLOC_TIMES = 10


def run(entries=ENTRIES):
    """{the plain run's figures, and "alloc": the run that counts what the report allocates}."""
    exe = micropython32_exe()
    if exe is None:
        return None
    from ..build import build

    with tempfile.TemporaryDirectory() as tmp:
        fw = os.path.join(tmp, "fw")
        os.makedirs(fw)
        build(fw)
        shutil.copy(MAIN, fw)
        with open(os.path.join(fw, "machine.py"), "w") as f:
            f.write("# a stand-in: app.py imports machine, and touches it only in its tasks\n")
        out = {}
        for heap, mode in (("112K", ""), ("64M", "alloc")):
            root = os.path.join(tmp, "store-" + (mode or "plain"))
            got = subprocess.run([exe, "-X", "heapsize=" + heap, "long_match_main.py", root, str(entries), mode],
                                 cwd=fw, capture_output=True, text=True, timeout=900)
            lines = [line for line in got.stdout.splitlines() if line.startswith("LONGMATCH ")]
            if got.returncode or not lines:
                raise RuntimeError("long_match_main.py (%s): %s" % (mode or "plain", (got.stdout + got.stderr)[-2000:]))
            figures = json.loads(lines[-1][len("LONGMATCH "):])
            if mode:
                out[mode] = figures
            else:
                out.update(figures)
        return out


def verdict(host_ms, goal_ms):
    """Whether host_ms, on the chip, meets goal_ms: at both ends of the estimate, at its low end
    only, or at neither ("?" without an estimate)."""
    try:
        low, high = chiptime.estimate(host_ms)
    except chiptime.NoEstimate:
        return "?"
    if high <= goal_ms:
        return "met"
    return "met at the low end only" if low <= goal_ms else "NOT met"


def longmatch_section():
    print("## The end of a %d-entry match on the 32-bit MicroPython, 112 KB (the chip's time estimated)" % ENTRIES)
    r = run()
    if r is None:
        print("(no 32-bit MicroPython: CAROM_MICROPYTHON32, or ../shared/tools/micropython32/micropython)")
        print()
        return None

    def row(label, value, chip="", goal=""):
        print("%-46s %14s %16s   %s" % (label, value, chip, goal))

    print("%-46s %14s %16s   %s" % ("", "this machine", "the chip (est.)", "goal on the chip"))
    step = r["report_longest_step_us"] / 1000
    median = r["report_median_step_us"] / 1000
    whole = r["report_us"] / 1000
    restore = r["restore_us"] / 1000
    undo = r["undo_worst_us"] / 1000
    row("report: steps between yields", "%d" % r["report_steps"])
    row("  the longest step", "%.2f ms" % step, chiptime.label(step), "<= %d ms: %s" % (STEP_MS, verdict(step, STEP_MS)))
    row("  the median step", "%.2f ms" % median, chiptime.label(median), "<= %d ms: %s" % (STEP_MS, verdict(median,
                                                                                                     STEP_MS)))
    row("  the whole report", "%.0f ms" % whole, chiptime.label(whole),
        "<= %d s: %s" % (REPORT_MS // 1000, verdict(whole, REPORT_MS)))
    alloc = r["alloc"]["report_alloc"]
    size = r["report_bytes"]
    row("  its size / bytes allocated writing it", "%d / %d" % (size, alloc), "",
        "<= %dx its size: %s (%.1fx)" % (ALLOC_TIMES, "met" if alloc <= ALLOC_TIMES * size else "NOT met",
                                         alloc / size if size else 0))
    row("  the live heap it added, at its yields", "%d B" % (r["report_peak"] - r["live_before_report"]))
    row("  modules loaded for it left in RAM", " ".join(r["resident_after_report"]) or "none", "", "none: %s" % (
        "met" if not r["resident_after_report"] else "NOT met"))
    row("restore after a power cut (%d entries)" % r["restored"], "%.1f ms" % restore, chiptime.label(restore),
        "<= %d s: %s" % (RESTORE_MS // 1000, verdict(restore, RESTORE_MS)))
    row("the slowest undo (%d entries replayed)" % r["undo_worst_replayed"], "%.2f ms" % undo, chiptime.label(undo),
        "<= %d ms: %s" % (UNDO_MS, verdict(undo, UNDO_MS)))
    print()
    return r

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

from host_tools import ROOT
from tools.bench import chiptime, firmware32

MAIN = os.path.join(ROOT, "tests", "bench", "long_match_main.py")
REPORT_BOARD = os.path.join(ROOT, "tests", "fw", "reportboard.py")  # its stand-in for app.Board
ENTRIES = 3000
# The goals on the chip (estimated): ms, or a multiple of the report's own size.
STEP_MS = 20
REPORT_MS = 60000
RESTORE_MS = 2000
UNDO_MS = 20
ALLOC_TIMES = 10


def run(entries=ENTRIES):
    """{the plain run's figures, and "alloc": the run that counts what the report allocates}."""
    with firmware32.built() as (exe, tmp, fw):
        if exe is None:
            return None
        shutil.copy(MAIN, fw)
        shutil.copy(REPORT_BOARD, fw)
        with open(os.path.join(fw, "machine.py"), "w") as f:
            f.write("# a stand-in: app.py imports machine, and touches it only in its tasks\n")
        out = {}
        for heap, mode in (("112K", ""), ("64M", "alloc")):
            root = os.path.join(tmp, "store-" + (mode or "plain"))
            got = subprocess.run(
                [exe, "-X", "heapsize=" + heap, "long_match_main.py", root, str(entries), mode],
                cwd=fw,
                capture_output=True,
                text=True,
                timeout=900,
            )
            lines = [line for line in got.stdout.splitlines() if line.startswith("LONGMATCH ")]
            if got.returncode or not lines:
                raise RuntimeError("long_match_main.py (%s): %s" % (mode or "plain", (got.stdout + got.stderr)[-2000:]))
            figures = json.loads(lines[-1][len("LONGMATCH ") :])
            # (us, bytes allocated, us of it in file calls and module reads) of each step, in order
            figures["steps"] = [
                tuple(int(x) for x in line.split()[2:5])
                for line in got.stdout.splitlines()
                if line.startswith("LONGMATCH_STEP ")
            ]
            if mode:
                out[mode] = figures
            else:
                out.update(figures)
        return out


def chip_high(us, allocated, file_us=0):
    """A step's chip time at the high end of the estimate (its host time without one): its
    time less its file time (the flash's on the chip, not the CPU's), and its collections."""
    try:
        return chiptime.estimate_with_collections((us - file_us) / 1000, allocated)[1]
    except chiptime.NoEstimate:
        return us / 1000


def verdict(host_ms, goal_ms, allocated=0):
    """Whether host_ms (and the collections of `allocated` bytes), on the chip, meets goal_ms:
    at both ends of the estimate, at its low end only, or at neither ("?" without an estimate)."""
    try:
        low, high = chiptime.estimate_with_collections(host_ms, allocated)
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

    print("(host times less their file time, which is the flash's on the chip; a step's collections at")
    print(" the published time of one: see the chip's time above)")
    print("%-46s %14s %16s   %s" % ("", "this machine", "the chip (est.)", "goal on the chip"))
    steps = r["steps"]
    slowest = sorted(range(len(steps)), key=lambda k: chip_high(*steps[k]))[-3:][::-1]
    median = sorted(steps, key=lambda s: chip_high(*s))[len(steps) // 2]
    alloc = r["alloc"]["report_alloc"]
    whole = sum(s[0] for s in steps) / 1000  # the steps' own time: not the sampler's between them
    whole_file = sum(s[2] for s in steps) / 1000
    restore = (r["restore_us"] - r["restore_file_us"]) / 1000
    undo = r["undo_worst_us"] / 1000
    row("report: steps between yields (%d runs, each step's best)" % r["report_runs"], "%d" % r["report_steps"])
    for k in slowest:
        us, allocated, file_us = steps[k]
        cpu = (us - file_us) / 1000
        row(
            "  %s step (no. %d: %d B, %d coll.)"
            % ("the longest" if k == slowest[0] else "next", k, allocated, chiptime.collections(allocated)),
            "%.3f ms" % cpu,
            chiptime.label(cpu, allocated),
            "<= %d ms: %s" % (STEP_MS, verdict(cpu, STEP_MS, allocated)),
        )
    us, allocated, file_us = median
    row(
        "  the median step (%d B)" % allocated,
        "%.3f ms" % ((us - file_us) / 1000),
        chiptime.label((us - file_us) / 1000, allocated),
        "<= %d ms: %s" % (STEP_MS, verdict((us - file_us) / 1000, STEP_MS, allocated)),
    )
    row(
        "  the whole report (%d collections)" % chiptime.collections(alloc),
        "%.0f ms" % (whole - whole_file),
        chiptime.label(whole - whole_file, alloc),
        "<= %d s: %s" % (REPORT_MS // 1000, verdict(whole - whole_file, REPORT_MS, alloc)),
    )
    row("  its file time on this machine (not scaled)", "%.0f ms" % whole_file, "", "")
    size = r["report_bytes"]
    row(
        "  its size / bytes allocated writing it",
        "%d / %d" % (size, alloc),
        "",
        "<= %dx its size: %s (%.1fx)"
        % (ALLOC_TIMES, "met" if alloc <= ALLOC_TIMES * size else "NOT met", alloc / size if size else 0),
    )
    row("  the live heap it added, at its yields", "%d B" % (r["report_peak"] - r["live_before_report"]))
    row(
        "  modules loaded for it left in RAM",
        " ".join(r["resident_after_report"]) or "none",
        "",
        "none: %s" % ("met" if not r["resident_after_report"] else "NOT met"),
    )
    row(
        "restore after a power cut (%d entries)" % r["restored"],
        "%.1f ms" % restore,
        chiptime.label(restore),
        "<= %d s: %s" % (RESTORE_MS // 1000, verdict(restore, RESTORE_MS)),
    )
    row(
        "the slowest undo (%d entries replayed)" % r["undo_worst_replayed"],
        "%.2f ms" % undo,
        chiptime.label(undo),
        "<= %d ms: %s" % (UNDO_MS, verdict(undo, UNDO_MS)),
    )
    print()
    return r

"""`make bench`: counts and ratios, never wall-clock limits.

Sections: the chip's time estimated (chiptime.py: the factor every "chip" figure uses,
and a collection's published time), the rules core on MicroPython and CPython (events per
second, bytes allocated per event), the wall board's heap, the end of a long match on the
chip's interpreter (longmatch.py: the report, the restore, the undo, against their goals),
the voice (its packs' sizes, the heap with it on: voice.py), the identify mode's heap and loop, the match store, a restart, the radio, the referee
remote's wake (remote.py), the hall and the tournament, and the `.mpy` sizes of the
firmware from mpy-cross.

What each section prints goes to the terminal, and at the end of the run to the page
docs/develop/figures.md (figures.py: the date, the commit, the machine, a section that failed
said so) and, as numbers, to build/bench.json.
"""

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

from host_tools import ROOT, micropython_exe
from host_tools.boards import board_file
from host_tools.build import build
from tools.bench import figures
from tools.bench.chiptime import chiptime_section
from tools.bench.hall import hall_section, tournament_section
from tools.bench.heap import heap_section
from tools.bench.identify import identify_section
from tools.bench.longmatch import longmatch_section
from tools.bench.radio import radio_section
from tools.bench.remote import remote_section
from tools.bench.voice import voice_section


def run_json(cmd):
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def rules_section():
    script = os.path.join("tests", "bench", "bench_rules.py")
    mp = run_json([micropython_exe(), script])
    cp = run_json([sys.executable, script])
    print("## Rules core (events per second on this machine; bytes allocated per event on MicroPython)")
    print("%-30s %14s %14s %10s %16s" % ("event", "MicroPython/s", "CPython/s", "MP/CPy", "bytes/event MP"))
    for a, b in zip(mp["results"], cp["results"]):
        ratio = a["per_s"] / b["per_s"] if a["per_s"] and b["per_s"] else 0
        print("%-30s %14d %14d %10.2f %16.1f" % (a["event"], a["per_s"], b["per_s"], ratio, a["bytes_per_event"]))
    print()
    return {"micropython": mp, "cpython": cp}


# The .mpy goals (bytes): the rules core's, and the whole firmware's first one (on the flash, where
# there is room: what counts is the RAM the running code takes, the heap section's figures).
RULES_MPY_GOAL = 8192
FIRMWARE_MPY_GOAL = 65536


def mpy_section():
    """The .mpy files `carom deploy` writes (host_tools/build.py: mpy-cross -O3, the firmware's own
    names shortened)."""
    print("## .mpy sizes (as carom deploy builds them: mpy-cross -O3, short names)")
    sizes = {}
    with tempfile.TemporaryDirectory() as d:
        for path in build(d):
            if path.endswith(".mpy"):
                sizes[path[:-4] + ".py"] = os.path.getsize(os.path.join(d, path))
    for name, size in sorted(sizes.items()):
        note = ""
        if name == "rules.py":
            note = "  (goal < %d)" % RULES_MPY_GOAL
        print("%-24s %7d bytes%s" % (name, size, note))
    print(
        "%-24s %7d bytes  (the first goal < %d; on the flash: the RAM is what counts, see the heap section)"
        % ("total", sum(sizes.values()), FIRMWARE_MPY_GOAL)
    )
    print()
    return sizes


def board_section():
    """The firmware on the virtual board (wall): heap after boot, I2C per point, press path."""
    import re
    import shutil

    from host_tools.simulator.scripted_board import deploy_source
    from host_tools.simulator.vboard import VirtualBoard

    config = {"board": "wall", "match": {"game": "straight_rail", "target": 9999}}
    raw = board_file("wall")
    out = {}
    with tempfile.TemporaryDirectory() as flash:
        deploy_source(flash, "wall", config, source=False)  # .mpy, as `carom deploy` puts it
        with VirtualBoard(flash, board=raw) as vb:  # powered on by `with`
            vb.advance(1)
            m = re.search(r"heap in use (\d+) bytes, (\d+) of them the app's", vb.stdout)
            out["heap_total"] = int(m.group(1))
            out["heap_after_boot"] = int(m.group(2))
            vb.tap("A.point", 0.1, 0.6)  # the lag: A breaks
            before = {k: len(vb.chip_writes(*k[::-1])) for k in vb.chips()}
            points = 20
            for _ in range(points):
                vb.tap("A.point", 0.1, 0.6)
            nbytes = writes = 0
            changed = set()
            for bus, addr in vb.chips():
                new = vb.chip_writes(addr, bus)[before[(bus, addr)] :]
                writes += len(new)
                nbytes += sum(len(data) + 1 for _, data in new)  # + the address byte
                if new:
                    changed.add((bus, addr))
            out["i2c_bytes_per_point"] = nbytes / points
            out["i2c_writes_per_point"] = writes / points
            out["chips_written"] = len(changed)
            out["chips"] = len(vb.chips())
        shutil.copyfile(os.path.join(ROOT, "tests", "bench", "board_bench_main.py"), os.path.join(flash, "main.py"))
        with VirtualBoard(flash, board=raw) as vb:
            vb.advance(0.5)
            line = [line for line in vb.lines() if line.startswith("BENCH ")]
            if not line:
                raise RuntimeError("the board benchmark printed nothing: %s" % vb.stderr[-2000:])
            inner = json.loads(line[-1][6:])
    out.update(
        alloc_per_press=inner["alloc_per_press"],
        press_us=inner["press_us"],
        rules_us=inner["rules_us"],
        press_i2c_bytes=inner["i2c_bytes_per_point"],
        press_i2c_writes=inner["i2c_writes_per_point"],
    )
    print("## Wall board on the virtual board (MicroPython unix port, emulated hardware)")
    print(
        "heap in use after boot by the app         %7d bytes  (64-bit unix port, .mpy, no Wi-Fi or radio;"
        " %d with the interpreter and emulation; 32-bit: the next section)"
        % (out["heap_after_boot"], out["heap_total"])
    )
    print("bytes allocated per press, to last I2C    %7.1f        (goal 0)" % out["alloc_per_press"])
    print(
        "I2C bytes per point, press path           %7.1f        in %.1f writes (one 17-byte frame + address"
        " per changed chip)" % (out["press_i2c_bytes"], out["press_i2c_writes"])
    )
    print(
        "I2C bytes per point on the running board  %7.1f        in %.1f writes, 0.7 s a point with the name"
        " marquees running; %d of %d chips written"
        % (out["i2c_bytes_per_point"], out["i2c_writes_per_point"], out["chips_written"], out["chips"])
    )
    print(
        "press -> last I2C write / rules event     %7.1f x      (%.1f us / %.1f us on this machine)"
        % (out["press_us"] / out["rules_us"], out["press_us"], out["rules_us"])
    )
    print()
    return out


def store_section():
    """Flash wear of the match journal on a real LittleFS in RAM (MicroPython)."""
    matches = 300
    out = subprocess.run(
        [micropython_exe(), "-X", "heapsize=16M", os.path.join("tests", "bench", "bench_store.py"), str(matches)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    r = json.loads(out.stdout.strip().splitlines()[-1])
    per_year = 12 * 365
    erases_per_match = r["erases"] / r["matches"]
    hottest_per_year = r["hottest_block_erases"] / r["matches"] * per_year
    r.update(
        programmed_per_event=r["bytes_programmed"] / r["entries"],
        erases_per_match=erases_per_match,
        erases_per_year=erases_per_match * per_year,
        mean_block_erases_per_year=erases_per_match * per_year / r["blocks"],
        hottest_block_erases_per_year=hottest_per_year,
        lifetime_years_hottest=100000 / hottest_per_year if hottest_per_year else None,
    )
    print("## Match journal on flash (LittleFS, 2 MiB of 4 KiB blocks, %d three-cushion matches to 30)" % matches)
    print("journal record per event (point, miss, ...)   %5d bytes  (file content)" % r["record_bytes"])
    print(
        "bytes programmed to flash per event           %7.1f bytes  (LittleFS metadata commits included)"
        % r["programmed_per_event"]
    )
    print(
        "snapshot                                      %5d bytes  (inline in LittleFS metadata)" % r["snapshot_bytes"]
    )
    print("report of a finished match                    %5d bytes" % r["report_bytes"])
    print("block erases per match                        %7.1f" % erases_per_match)
    print(
        "erases per year at 12 matches a day           %7d  (%.0f per block on average)"
        % (r["erases_per_year"], r["mean_block_erases_per_year"])
    )
    print(
        "hottest block: erases per year                %7.0f  -> %.0f years to 100,000 cycles"
        % (hottest_per_year, r["lifetime_years_hottest"])
    )
    print()
    return r


def restart_section():
    """Boot to the first display write, with a saved match, as a ratio to a cold boot."""
    import statistics

    from host_tools.simulator.scripted_board import deploy_source
    from host_tools.simulator.vboard import VirtualBoard

    raw = board_file("wall")
    config = {"board": "wall", "match": {"game": "straight_rail", "target": 400}}
    out = {}

    def boots(vb, wipe=False, n=7):
        times = []
        for _ in range(n):
            vb.power_off()
            if wipe:
                shutil.rmtree(os.path.join(flash, "data"), ignore_errors=True)
            seen = len(vb.lines())
            vb.power_on()
            line = [line for line in vb.lines()[seen:] if line.startswith("FIRST_RENDER_US")][-1]
            times.append(int(line.split()[1]))
        return statistics.median(times)

    with tempfile.TemporaryDirectory() as flash:
        deploy_source(flash, "wall", config, source=False)
        shutil.copyfile(os.path.join(ROOT, "tests", "bench", "boot_timing_main.py"), os.path.join(flash, "main.py"))
        with VirtualBoard(flash, board=raw) as vb:
            vb.power_off()
            shutil.rmtree(os.path.join(flash, "data"), ignore_errors=True)
            vb.power_on()
            out["cold"] = boots(vb, wipe=True)  # nothing on the flash: a new match is set up
            for size, presses in (("120 entries", 120), ("400 entries", 400)):
                shutil.rmtree(os.path.join(flash, "data"), ignore_errors=True)
                vb.power_off()
                vb.power_on()
                vb.tap("A.point", 0.1, 0.6)  # the lag: A breaks
                for i in range(presses // 5):  # 3 points, an end of inning each: 5 entries
                    for _ in range(3):
                        vb.tap("A.point", 0.1, 0.1)
                    vb.tap("A.end", 0.1, 0.5)
                    vb.tap("B.end", 0.1, 0.5)
                out[size] = boots(vb)
                out[size + " log"] = [line for line in vb.lines() if "match restored" in line][-1].strip()
    print("## Restart to the first display write (virtual board: real time inside the board, median of 7)")
    print("cold boot, nothing saved               %6.1f ms" % (out["cold"] / 1000))
    for size in ("120 entries", "400 entries"):
        print(
            "with a saved match of %-14s   %6.1f ms  = %.2f x cold  (%s)"
            % (size, out[size] / 1000, out[size] / out["cold"], out[size + " log"])
        )
    print()
    return out


# (the heading of its figures on docs/develop/figures.md, the section): the pages that explain
# the figures link to these headings.
SECTIONS = [
    ("The chip's time", chiptime_section),
    ("The rules core", rules_section),
    ("The wall board", board_section),
    ("The firmware's heap", heap_section),
    ("The voice", voice_section),
    ("The end of a long match", longmatch_section),
    ("The identify mode", identify_section),
    ("The match journal", store_section),
    ("The restart", restart_section),
    ("The remote's radio", radio_section),
    ("The remote's wake", remote_section),
    ("The hall under load", hall_section),
    ("The tournament", tournament_section),
    ("The .mpy sizes", mpy_section),
]


class Tee(io.TextIOBase):
    """What a section prints: to the terminal as it comes, and kept for the figures' page."""

    def __init__(self, terminal):
        self.terminal = terminal
        self.kept = io.StringIO()

    def write(self, text):
        self.terminal.write(text)
        self.kept.write(text)
        return len(text)

    def flush(self):
        self.terminal.flush()


def main():
    import datetime

    date = datetime.date.today().isoformat()
    commit, dirty = figures.checkout()  # the tree measured: as it is when the run starts
    print("# " + figures.header(date, commit, dirty, figures.machine_name()))
    print()
    results = {}
    printed = []
    failed = []
    for title, section in SECTIONS:
        tee = Tee(sys.stdout)
        why = None
        with contextlib.redirect_stdout(tee):
            try:
                results[section.__name__] = section()
            except Exception as e:  # one section's failure is said, the others still measure
                import traceback

                traceback.print_exc()
                why = "%s: %s" % (e.__class__.__name__, e)
                print("(%s failed: %s)" % (section.__name__, why))
                print()
                results[section.__name__] = {"failed": why}
                failed.append(section.__name__)
        printed.append((title, tee.kept.getvalue(), why))
    path = os.path.join(ROOT, "build", "bench.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    page = figures.write(figures.page(printed, date, commit, dirty, figures.machine_name()))
    print("(all figures also in %s, and on %s)" % (os.path.relpath(path, ROOT), os.path.relpath(page, ROOT)))
    if failed:
        print("carom: bench sections failed: %s" % ", ".join(failed), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()

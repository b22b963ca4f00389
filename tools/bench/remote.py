"""The referee remote's wake: from the press that wakes it from deep sleep to the frame sent.

Both boards run on virtual boards on one radio hub, built as `carom deploy` builds them
(.mpy); the remote on the 32-bit MicroPython with a stock ESP32's 112 KB, its main.py
tests/bench/remote_wake_main.py (firmware/main.py's start, timed). Its wake-to-send time
on this machine, the chip's estimated (chiptime.py), the modules it loaded and its live
heap at the send; and the battery life that follows (hardware/power.py's model, its awake
time per press being the wake-to-send estimate plus the AWAKE_MS the box stays on after it).
"""

import os
import re
import shutil
import sys

from host_tools import ROOT
from tools.bench import chiptime, firmware32

MAIN = os.path.join(ROOT, "tests", "bench", "remote_wake_main.py")
PRESSES = 5


def run(presses=PRESSES):
    """{"us": [...], "live": [...], "after": [...], "modules": [...]} of each wake by a press."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "host"))
    from helpers import radio_pair  # the wall and its remote, paired, as the radio tests make them

    with firmware32.built() as (exe, tmp, firmware):
        if exe is None:
            return None
        hub, wall, remote = radio_pair(
            tmp,
            firmware,
            {"game": "three_cushion", "target": 50},
            seed=1,
            remote_options={"micropython": exe, "firmware_heap": "112K"},
        )
        try:
            shutil.copy(MAIN, os.path.join(remote.flash_dir, "main.py"))
            wall.vb.power_on()
            remote.vb.power_on()
            hub.advance(6)
            button = "point"
            for _ in range(presses):
                remote.vb.press(button)
                hub.advance(0.1)
                remote.vb.release(button)
                hub.advance(5)  # acknowledged, the display shown, asleep again
            lines = [line for line in remote.vb.lines() if line.startswith("WAKE ")]
        finally:
            remote.close()
            wall.close()
    out = {"us": [], "live": [], "after": [], "modules": None}
    for line in lines:
        m = re.match(r"WAKE us (\d+) live (\d+) after (\d+) modules (.*)", line)
        out["us"].append(int(m.group(1)))
        out["live"].append(int(m.group(2)))
        out["after"].append(int(m.group(3)))
        out["modules"] = m.group(4).split()
    return out


def remote_section():
    print("## The referee remote: a press wakes it from deep sleep, the frame is sent (32-bit, 112 KB)")
    r = run()
    if r is None:
        print("(no 32-bit MicroPython: CAROM_MICROPYTHON32, or ../shared/tools/micropython32/micropython)")
        print()
        return None
    if not r["us"]:
        raise RuntimeError("the remote sent no frame on a press")
    import statistics

    us = statistics.median(r["us"]) / 1000
    print("wakes measured                              %d (each a press from deep sleep)" % len(r["us"]))
    print(
        "main.py's start to the frame sent, median   %.1f ms here, %s on the chip (estimated)"
        % (us, chiptime.label(us))
    )
    print("live heap at the send / after a collection  %d / %d bytes" % (max(r["live"]), max(r["after"])))
    print("modules loaded                              %d: %s" % (len(r["modules"]), " ".join(r["modules"])))
    wall = [m for m in ("asyncio", "rules", "app", "startup", "controller", "view", "store") if m in r["modules"]]
    print("  of the wall board's                        %s" % (" ".join(wall) or "none"))
    try:
        low, high = chiptime.estimate(us)
    except chiptime.NoEstimate:
        high = None
    if high is not None:
        from host_tools.boards import load_board
        from host_tools.hardware import power

        bt = power.battery(load_board("referee"), high / 1000)
        print(
            "battery life                                %.0f days (%d presses a day, the start at the estimate's "
            "high end; hardware/power.py says %.1f s)" % (bt.life_days, bt.presses_per_day, power.FIRMWARE_S)
        )
        r["battery_days"] = bt.life_days
    print()
    return r

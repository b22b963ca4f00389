"""The referee remote's radio in numbers (`make bench`'s radio section).

radio_section() prints and returns: what the wall board spends per radio frame (bytes
allocated and microseconds on this machine: a forged frame of each kind, a good command,
a retransmission, a challenge), on the MicroPython unix port, 64-bit and, when there is
one, 32-bit (host_tools.micropython32_exe(): the ESP32's object sizes), side by side
(tests/bench/bench_radio_main.py as the virtual board's main.py); and acknowledged
commands per second through the radio hub, wall and remote on virtual boards (per second
of real time and of virtual time). Counts and ratios, no wall-clock limits.
"""

import json
import os
import shutil
import tempfile
import time

from host_tools import ROOT
from host_tools.boards import board_file
from host_tools.simulator.vboard import mac_text

KEY = "5a" * 32
WALL_MAC = bytes.fromhex("240ac4000051")
REMOTE_MAC = bytes.fromhex("240ac4000061")


def alloc_per_frame(micropython=None):
    """The dict printed by tests/bench/bench_radio_main.py on the wall's virtual board."""
    from host_tools.simulator.scripted_board import deploy_source
    from host_tools.simulator.vboard import VirtualBoard

    config = {
        "board": "wall",
        "match": {"game": "straight_rail", "target": 9999},
        "radio": {"peer": mac_text(REMOTE_MAC), "key": KEY},
    }
    with tempfile.TemporaryDirectory() as flash:
        deploy_source(flash, "wall", config, source=False)  # .mpy, as `carom deploy` puts it
        shutil.copyfile(os.path.join(ROOT, "tests", "bench", "bench_radio_main.py"), os.path.join(flash, "main.py"))
        with VirtualBoard(flash, board=board_file("wall"), unique_id=WALL_MAC, micropython=micropython) as vb:
            vb.advance(0.5)
            line = [line for line in vb.lines() if line.startswith("BENCH ")]
            if not line:
                raise RuntimeError("the radio benchmark printed nothing: %s" % vb.stderr[-2000:])
            return json.loads(line[-1][6:])


def throughput(presses=100):
    """Presses on the remote answered by the wall, per real and per virtual second."""
    from host_tools.simulator.scripted_board import deploy_source
    from host_tools.simulator.vboard import RadioHub, VirtualBoard

    hub = RadioHub(seed=1)
    boards = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for name, board, mac, peer, extra in (
                ("wall", "wall", WALL_MAC, REMOTE_MAC, {"match": {"game": "straight_rail", "target": 9999}}),
                ("remote", "referee", REMOTE_MAC, WALL_MAC, {}),
            ):
                flash = os.path.join(tmp, name)
                config = dict(extra, board=board, radio={"peer": mac_text(peer), "key": KEY})
                deploy_source(flash, board, config, source=False)
                boards.append(VirtualBoard(flash, board=board_file(board), radio=hub, name=name, unique_id=mac))
            wall, remote = boards
            wall.power_on()
            remote.power_on()
            hub.advance(1)

            def answered(h):
                return sum(1 for f in h.frames if f.sender == "wall" and f.data[1] == 2)

            t_real = time.perf_counter()
            t_virtual = hub.now
            for i in range(presses):
                # Each press wakes the box from deep sleep, as a referee's presses seconds apart do.
                hub.advance_until(lambda h: remote.asleep, limit=10.0, step=0.005)  # its display lit 3 s (SHOW_MS)
                remote.press("point")
                hub.advance(0.07)  # held past the 50 ms debounce; "point" has a long action: sent on release
                remote.release("point")
                hub.advance_until(lambda h: answered(h) > i, limit=2.0, step=0.005)
            real_s = time.perf_counter() - t_real
            virtual_s = hub.now - t_virtual
            sent = sum(1 for f in hub.frames if f.sender == "remote")
            return {
                "presses": presses,
                "answered": answered(hub),
                "frames_sent": sent,
                "per_real_s": presses / real_s,
                "per_virtual_s": presses / virtual_s,
                "real_s": real_s,
                "virtual_s": virtual_s,
            }
        finally:
            for b in boards:
                b.close()


ROWS = (
    ("forged: wrong size (dropped)", "forged_size"),
    ("forged: wrong tag (dropped)", "forged_tag"),
    ("forged: authentic replay (dropped)", "forged_replay"),
    ("good command (acted on, acknowledged)", "good"),
    ("  ... with /radio.last written", "good_flash"),
    ("  ... and the journal (persist)", "good_flash_persist"),
    ("retransmission (acknowledged again)", "repeat"),
    ("lost record: challenge answered", "challenged"),
)


def radio_section():
    from host_tools import micropython32_exe

    exe32 = micropython32_exe()
    runs = {"64-bit": alloc_per_frame()}
    if exe32:
        runs["32-bit"] = alloc_per_frame(exe32)
    out = {"alloc": runs["64-bit"], "per_port": runs, "throughput": throughput()}
    t = out["throughput"]
    names = list(runs)
    print(
        "## Referee remote radio (the wall board's Board.radio_frame on the MicroPython unix port;"
        " hub with two virtual boards)"
    )
    if not exe32:
        print("(no 32-bit MicroPython: CAROM_MICROPYTHON32, else ../shared/tools/micropython32/micropython)")
    print("%-40s" % "per frame" + "".join("%14s %11s" % ("bytes " + n, "us " + n) for n in names))
    for label, key in ROWS:
        print("%-40s" % label + "".join("%14.1f %11.1f" % tuple(runs[n][key]) for n in names))
    for n in names:
        a = runs[n]
        print(
            "  %s, a good command's bytes: receive %.1f (of which the tag %.1f),"
            " Controller.remote %.1f, summary + ack %.1f" % (n, a["receive"], a["tag"], a["controller"], a["ack"])
        )
    print(
        "acknowledged presses per real second        %7.1f  (%d presses, %d answered, %d frames sent)"
        % (t["per_real_s"], t["presses"], t["answered"], t["frames_sent"])
    )
    print(
        "acknowledged presses per virtual second     %7.1f  (each from deep sleep: the box sleeps 0.3 s radio + 3 s"
        " display after the last; 70 ms down)" % t["per_virtual_s"]
    )
    print()
    return out


if __name__ == "__main__":
    radio_section()

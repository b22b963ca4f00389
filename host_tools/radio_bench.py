"""The referee remote's radio in numbers (`make bench`'s radio section).

radio_section() prints and returns: bytes allocated per received command on
the wall board (MicroPython unix port, tests/bench/bench_radio_main.py as the
virtual board's main.py), and acknowledged commands per second through the
radio hub, wall and remote on virtual boards (per second of real time and of
virtual time). Counts and ratios, no wall-clock limits.
"""

import json
import os
import shutil
import tempfile
import time

from . import ROOT

KEY = "5a" * 32
WALL_MAC = bytes.fromhex("240ac4000051")
REMOTE_MAC = bytes.fromhex("240ac4000061")


def _mac(mac):
    return ":".join("%02x" % b for b in mac)


def _raw(name):
    with open(os.path.join(ROOT, "boards", name + ".json")) as f:
        return json.load(f)


def alloc_per_frame():
    """The dict printed by tests/bench/bench_radio_main.py on the wall's virtual board."""
    from .boardsim import deploy_source
    from .vboard import VirtualBoard

    config = {"board": "wall", "match": {"game": "straight_rail", "target": 9999},
              "radio": {"peer": _mac(REMOTE_MAC), "key": KEY}}
    with tempfile.TemporaryDirectory() as flash:
        deploy_source(flash, "wall", config, source=False)  # .mpy, as `carom deploy` puts it
        shutil.copyfile(os.path.join(ROOT, "tests", "bench", "bench_radio_main.py"), os.path.join(flash, "main.py"))
        with VirtualBoard(flash, board=_raw("wall"), unique_id=WALL_MAC) as vb:
            vb.advance(0.5)
            line = [l for l in vb.lines() if l.startswith("BENCH ")]
            if not line:
                raise RuntimeError("the radio benchmark printed nothing: %s" % vb.stderr[-2000:])
            return json.loads(line[-1][6:])


def throughput(presses=100):
    """Presses on the remote answered by the wall, per real and per virtual second."""
    from .boardsim import deploy_source
    from .vboard import RadioHub, VirtualBoard

    hub = RadioHub(seed=1)
    boards = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for name, board, mac, peer, extra in (
                    ("wall", "wall", WALL_MAC, REMOTE_MAC, {"match": {"game": "straight_rail", "target": 9999}}),
                    ("remote", "referee", REMOTE_MAC, WALL_MAC, {})):
                flash = os.path.join(tmp, name)
                config = dict(extra, board=board, radio={"peer": _mac(peer), "key": KEY})
                deploy_source(flash, board, config, source=False)
                boards.append(VirtualBoard(flash, board=_raw(board), radio=hub, name=name, unique_id=mac))
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
                hub.advance_until(lambda h: remote.asleep, limit=2.0, step=0.005)
                remote.press("point")
                hub.advance(0.07)  # held past the 50 ms debounce; "point" has a long action: sent on release
                remote.release("point")
                hub.advance_until(lambda h: answered(h) > i, limit=2.0, step=0.005)
            real_s = time.perf_counter() - t_real
            virtual_s = hub.now - t_virtual
            sent = sum(1 for f in hub.frames if f.sender == "remote")
            return {"presses": presses, "answered": answered(hub), "frames_sent": sent,
                    "per_real_s": presses / real_s, "per_virtual_s": presses / virtual_s,
                    "real_s": real_s, "virtual_s": virtual_s}
        finally:
            for b in boards:
                b.close()


def radio_section():
    out = {"alloc": alloc_per_frame(), "throughput": throughput()}
    a, t = out["alloc"], out["throughput"]
    print("## Referee remote radio (wall board on the MicroPython unix port; hub with two virtual boards)")
    print("bytes allocated per command received        %7.1f  (receive + Controller.remote + summary + ack)"
          % a["alloc_per_frame"])
    print("  ... per retransmission (ack only)         %7.1f" % a["alloc_per_repeat"])
    print("  ... per forged frame (dropped)            %7.1f" % a["alloc_per_forged"])
    print("  of which: receive %.1f (one tag %.1f), Controller.remote %.1f, summary + ack %.1f"
          % (a["alloc_receive"], a["alloc_tag"], a["alloc_controller"], a["alloc_ack"]))
    print("  ... with the flash writes (persist, last) %7.1f" % a["alloc_per_frame_with_flash"])
    print("time per command received (this machine)    %7.1f us (%.1f us with the flash writes)"
          % (a["frame_us"], a["frame_us_with_flash"]))
    print("acknowledged presses per real second        %7.1f  (%d presses, %d answered, %d frames sent)"
          % (t["per_real_s"], t["presses"], t["answered"], t["frames_sent"]))
    print("acknowledged presses per virtual second     %7.1f  (70 ms down; the debounce, 50 ms each way, sets the pace)"
          % t["per_virtual_s"])
    print()
    return out


if __name__ == "__main__":
    radio_section()

"""The wall firmware's heap on a virtual board: boot, a long match, undo, per press.

Shared by `make bench` (heap_section: the 32-bit MicroPython with a stock ESP32's 112 KB,
beside the 64-bit unix port) and tests/host/test_heap32.py. The board runs
tests/host/vboard_fixtures/heap_main.py, which prints "HEAP ..." lines (see there).
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import time

from host_tools import ROOT, micropython32_exe, venv_exe
from host_tools.boards import board_file
from tools.bench import chiptime

HEAP_MAIN = os.path.join(ROOT, "tests", "host", "vboard_fixtures", "heap_main.py")
RADIO = {"peer": "24:0a:c4:00:00:05", "key": "ab" * 32}
WIFI = {"ssid": "hall", "password": "secret123"}
# The heap's goals at 32 bits with 112 KB (tests/host/test_heap32.py asserts them, the bench prints
# them): live after the start (the heap a stock ESP32 starts with before it grows), the largest
# free block after it, live running (reports and restores included).
BOOT_LIVE = 56 * 1024
BOOT_LARGEST = 24 * 1024
RUN_LIVE = 80 * 1024
ROUNDS = 430  # a round: A three points (a long press takes one back every 25th), A.end, B two, a foul


def wall():
    return board_file("wall")


def heap_lines(vb):
    return [line for line in vb.lines() if line.startswith("HEAP")]


def boots(vb):
    """[(live, free, largest)] of each boot so far."""
    out = []
    for line in heap_lines(vb):
        m = re.match(r"HEAP boot live (\d+) free (\d+) largest (\d+)", line)
        if m:
            out.append(tuple(int(x) for x in m.groups()))
    return out


def peak(vb):
    """The highest live heap sampled (every 100 ms) since the board was made."""
    highs = [int(line.split()[-1]) for line in heap_lines(vb) if line.startswith("HEAP live ")]
    return max(highs) if highs else 0


def play_long_match(vb, rounds=ROUNDS):
    """About 7 entries a round by the buttons (points, misses, fouls, an undo every 25th
    round, the half-time break once): 3,000 entries for 430 rounds, A reaching 3 * rounds - 4."""

    def tap(name, up=0.1):
        vb.tap(name, 0.1, up)

    tap("A.point", 0.5)  # the lag: A breaks
    for r in range(rounds):
        for _ in range(3):
            tap("A.point")
        if r % 25 == 24:
            vb.hold("A.point", 1.3)  # undo the third point
            vb.advance(0.2)
            tap("A.point")
        tap("A.end", 0.5)
        if r == rounds // 2:  # the half-time break, asked for and ended
            tap("break")
            vb.advance(2)
            tap("break")
        tap("B.point")
        tap("B.point")
        tap("foul", 0.5)
        if "MemoryError" in vb.stderr or "task failed" in vb.stdout:
            break
    vb.advance(3)


def play_format_match(vb):
    """FORMATS_MATCH by the wall's buttons: both warm-ups (a long press on break: A's, B's, then it
    ends), the lag, set 1 drawn 15:15 and won by A in the shoot-out (2:1), sets 2-4 won by the
    breaker (1:1, 2:1, 2:2; a press on new starts the next), the deciding set from a new lag to 11:
    A wins 3:2. A player's presses wait out the lock-out after the turn passed."""

    def tap(name, up=0.5):
        vb.tap(name, 0.1, up)

    def run(p, n):
        vb.advance(0.5)
        for _ in range(n):
            tap(p + ".point", 0.2)

    def miss(p):
        vb.advance(0.5)
        tap(p + ".end")

    for _ in range(2):
        vb.hold("break", 1.3)  # A's warm-up, then B's (each may run on: it is time only)
        vb.advance(30)
    vb.hold("break", 1.3)  # and it ends
    vb.advance(1)
    tap("A.point")  # the lag: A breaks
    run("A", 15)
    run("B", 15)  # the equalizing inning: level, the shoot-out
    miss("B")
    run("A", 2)
    miss("A")
    run("B", 1)
    miss("B")
    for first, second in (("B", "A"), ("A", "B"), ("B", "A")):
        vb.advance(2)
        tap("new")  # the next set
        run(first, 15)
        miss(second)  # his equalizing inning
    vb.advance(2)
    tap("new")  # the deciding set: a new lag
    tap("A.point")
    run("A", 11)
    miss("B")
    vb.advance(3)


def heap_firmware(where):
    """The firmware as `carom deploy` lays it out (.mpy), with the heap benchmark's main.py."""
    from host_tools.build import build

    build(where)
    shutil.copy(HEAP_MAIN, os.path.join(where, "main.py"))
    return where


def configure(where, config, holes=0):
    """config.json on the flash, and the size of the holes heap_main.py cuts the heap into."""
    with open(os.path.join(where, "config.json"), "w") as f:
        json.dump(config, f)
    if holes:
        with open(os.path.join(where, "holes"), "w") as f:
            f.write(str(holes))
    return where


def flash_for(where, config, holes=0, voice=False):
    """The flash of a heap run; voice: with the voice pack voice_pack() makes, the board speaks."""
    where = configure(heap_firmware(where), config, holes)
    if voice:
        with open(os.path.join(where, "voice.pack"), "wb") as f:
            f.write(voice_pack())
    return where


_PACK = {}


def voice_pack(language="hu"):
    """A voice pack of `language` (made once): espeak-ng's, as `carom voice` makes it, or where
    espeak-ng is missing, clips of silence of the same lengths' order (the heap does not hear them)."""
    if language not in _PACK:
        import shutil as sh

        from host_tools.voice import make, pack, words

        if sh.which("espeak-ng"):
            with tempfile.TemporaryDirectory() as tmp:
                make.make(tmp, language)
                with open(os.path.join(tmp, make.PACK), "rb") as f:
                    _PACK[language] = f.read()
        else:
            from array import array

            clips = {name: array("h", bytes(2 * 4000)) for name in words.TEXTS[language]}
            _PACK[language] = pack.build(clips, language)
    return _PACK[language]


# A match with the formats (formats.py in RAM with it): sets with a deciding set, the shoot-out, a warm-up.
FORMATS_MATCH = {
    "game": "three_cushion",
    "target": 15,
    "sets": 3,
    "deciding_target": 11,
    "shootout": True,
    "warmup_s": 300,
}


HALL_KEY = "5a" * 32  # a hall key: the board subscribes to its setup topic


def _boot_figures(exe, heap, match=None, hall=False, voice=False):
    """Boot with Wi-Fi, MQTT (when mosquitto is there) and the radio configured, twice; with
    hall, a hall key too (the setup topic subscribed at every connect); with voice, a voice pack
    (the board speaks)."""
    from host_tools.simulator.vboard import VirtualBoard

    broker = None
    config = {"board": "wall", "match": match or {"game": "straight_rail", "target": 200}, "radio": RADIO}
    if hall:
        config["hall"] = {"key": HALL_KEY}
    from tools.run.mosquitto import Mosquitto, available

    if available():
        broker = Mosquitto().start()
        config.update(wifi=WIFI, mqtt={"host": "127.0.0.1", "port": broker.port, "table": "bench"})
    out = {"mqtt": broker is not None}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            flash = flash_for(os.path.join(tmp, "flash"), config, voice=voice)
            with VirtualBoard(flash, board=wall(), micropython=exe, firmware_heap=heap, wifi=WIFI) as vb:
                for n in (1, 2):
                    vb.run_realtime()
                    vb.wait_for(lambda b: len(boots(b)) >= n or "Traceback" in b.stderr, timeout=60)
                    time.sleep(6)  # running: MQTT connected, the clock's next chunk made
                    vb.stop_realtime()
                    live, free, largest = boots(vb)[-1]
                    out["boot%d" % n] = {"live": live, "free": free, "largest": largest}
                    vb.power_off()
                    vb.power_on()
                out["run_peak"] = peak(vb)
    finally:
        if broker is not None:
            broker.close()
    return out


def hall_setup(n):
    """The n-th setup the hall signs for the bench's board: a three-cushion match, A's name numbered
    so that each one applied shows on the board's state."""
    return {
        "players": {
            "A": {"name": "Anna Kovacs %d" % n, "club": "BC Pest"},
            "B": {"name": "Bela Nagy", "club": "Debreceni BC"},
        },
        "match": {"game": "three_cushion", "target": 25, "innings_limit": 40, "shot_clock": 40},
    }


def hall_config(port, table, key):
    """A wall board's config.json with the radio, Wi-Fi, the broker on port and a hall key: the
    board the setups' heap figures are taken of (a long straight-rail match, so none ends)."""
    return {
        "board": "wall",
        "match": {"game": "straight_rail", "target": 200},
        "radio": RADIO,
        "wifi": WIFI,
        "mqtt": {"host": "127.0.0.1", "port": port, "table": table},
        "hall": {"key": key},
    }


def _setup_figures(exe, heap):
    """A board with a hall key, running: three signed setups applied through mosquitto (the third
    while nothing is played), and one oversized dropped; the highest live heap before and with them
    (tests/host/test_hall_setup.py's approach, with the tests' Listener and wait_until).  None
    without mosquitto."""
    import sys

    from host_tools.hall import setups
    from host_tools.simulator.vboard import VirtualBoard

    sys.path.insert(0, os.path.join(ROOT, "tests", "host"))
    from helpers import Listener, wait_until
    from tools.run.mosquitto import Mosquitto, available

    if not available():
        return None
    broker = Mosquitto().start()
    config = hall_config(broker.port, "bench", HALL_KEY)
    listener = Listener(broker.port, client_id="bench-hall-setup")

    def state():
        """The board's newest state document ({} before its first)."""
        got = listener.payloads("carom/bench/state")
        return json.loads(got[-1]) if got else {}

    out = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            flash = flash_for(os.path.join(tmp, "flash"), config)
            with VirtualBoard(flash, board=wall(), micropython=exe, firmware_heap=heap, wifi=WIFI) as vb:
                vb.run_realtime()
                vb.wait_for(lambda b: len(boots(b)) >= 1 or "Traceback" in b.stderr, timeout=60)
                wait_until(lambda: state().get("setup") is not None, 60, "the board's state with its setup key")
                time.sleep(6)  # running, as the boot rows
                out["before"] = peak(vb)
                for n in (1, 2, 3):
                    listener.client.publish(
                        "carom/bench/setup", setups.sign(HALL_KEY, "bench", n, hall_setup(n)), qos=1, retain=True
                    )
                    wait_until(lambda: state()["players"]["A"]["name"] == "Anna Kovacs %d" % n, 60, "setup %d" % n)
                listener.client.publish("carom/bench/setup", b"0" * 64 + b" " + b"x" * 5000, qos=1, retain=True)
                wait_until(lambda: state()["setup"].get("last_refused") == "size", 60, "the oversized setup dropped")
                time.sleep(1)
                vb.stop_realtime()
                text = vb.stdout + vb.stderr
                out["with_setups"] = peak(vb)
                out["applied"] = state()["setup"]["n"]
                out["refused"] = state()["setup"]["refused"]
                out["memory_errors"] = text.count("MemoryError")
    finally:
        listener.close()
        broker.close()
    return out


def _played_figures(exe, heap, holes, match, play, voice=False):
    """A match played to its end by play(vb) in a heap cut into holes, then a power cut and the
    match read back: its highest live heap before and with the restore, entries restored, reports,
    MemoryErrors."""
    from host_tools.simulator.vboard import VirtualBoard

    out = {"holes": holes}
    with tempfile.TemporaryDirectory() as tmp:
        flash = flash_for(os.path.join(tmp, "flash"), {"board": "wall", "match": match, "radio": RADIO}, holes, voice)
        vb = VirtualBoard(flash, board=wall(), micropython=exe, firmware_heap=heap, net_pacing=False)
        try:
            vb.power_on()
            vb.advance(1)
            play(vb)
            text = vb.stdout + vb.stderr
            out["memory_errors"] = text.count("MemoryError")
            out["peak"] = peak(vb)
            history = os.path.join(flash, "data", "history")
            out["report"] = len(os.listdir(history)) if os.path.isdir(history) else 0
            out["i2s_bytes"] = len(vb.audio()) if voice else 0
            vb.power_off()
            vb.power_on()
            vb.advance(2)
            restored = [line for line in vb.lines() if "match restored" in line]
            out["restored"] = int(restored[-1].split()[-2]) if restored else 0
            out["peak_with_restore"] = peak(vb)
            out["memory_errors"] += (vb.stdout + vb.stderr).count("MemoryError") - text.count("MemoryError")
        finally:
            vb.close()
    return out


def _long_match_figures(exe, heap, holes, voice=False):
    return _played_figures(
        exe, heap, holes, {"game": "straight_rail", "target": 3 * ROUNDS - 4, "break_s": 60}, play_long_match, voice
    )


def _format_match_figures(exe, heap, holes, voice=False):
    """FORMATS_MATCH (play_format_match); its replay after the power cut loads formats_rare.py again."""
    return _played_figures(exe, heap, holes, FORMATS_MATCH, play_format_match, voice)


def _press_figures(exe, heap):
    """Bytes allocated per press, button event to the last I2C write (tests/bench/board_bench_main.py)."""
    from host_tools.simulator.vboard import VirtualBoard

    with tempfile.TemporaryDirectory() as tmp:
        flash = flash_for(
            os.path.join(tmp, "flash"), {"board": "wall", "match": {"game": "straight_rail", "target": 9999}}
        )
        shutil.copy(os.path.join(ROOT, "tests", "bench", "board_bench_main.py"), os.path.join(flash, "main.py"))
        with VirtualBoard(flash, board=wall(), micropython=exe, firmware_heap=heap) as vb:
            vb.advance(0.5)
            line = [line for line in vb.lines() if line.startswith("BENCH ")]
            if not line:
                raise RuntimeError("the board benchmark printed nothing: %s" % vb.stderr[-2000:])
            return json.loads(line[-1][6:])


def _run_json(exe, script, *args):
    out = subprocess.run([exe] + list(args) + [script], cwd=ROOT, capture_output=True, text=True, timeout=600)
    if out.returncode:
        raise RuntimeError("%s %s: %s" % (exe, script, out.stderr[-1000:]))
    return json.loads(out.stdout.strip().splitlines()[-1])


def heap_section():
    """Boot, a 3,000-entry match, undo and bytes per press at 32-bit (112 KB) beside 64-bit."""
    runs = [("64-bit", venv_exe("micropython"), None)]
    mp32 = micropython32_exe()
    if mp32:
        runs.append(("32-bit", mp32, "112K"))
    results = {}
    for name, exe, heap in runs:
        r = results[name] = {}
        r["boot"] = _boot_figures(exe, heap)
        r["boot_formats"] = _boot_figures(exe, heap, FORMATS_MATCH)
        r["boot_hall"] = _boot_figures(exe, heap, hall=True)
        r["setups"] = _setup_figures(exe, heap) if r["boot"]["mqtt"] else None
        r["long"] = _long_match_figures(exe, heap, 4096 if heap else 0)
        r["formats"] = _format_match_figures(exe, heap, 4096 if heap else 0)
        if heap:
            r["long_2k"] = _long_match_figures(exe, heap, 2048)
        heap_args = ["-X", "heapsize=2M"] if heap else []
        r["undo"] = _run_json(exe, os.path.join("tests", "bench", "undo_bench.py"), *heap_args)
        r["press"] = _press_figures(exe, heap)
    print("## The firmware's heap: the 32-bit MicroPython with a stock ESP32's 112 KB, beside the 64-bit port")
    if not mp32:
        print("(no 32-bit MicroPython: CAROM_MICROPYTHON32, or ../shared/tools/micropython32/micropython)")
    names = [n for n, _, _ in runs]
    print("%-52s %s" % ("", "  ".join("%12s" % n for n in names)))

    def row(label, f):
        print("%-52s %s" % (label, "  ".join("%12s" % f(results[n]) for n in names)))

    mqtt = results[names[0]]["boot"]["mqtt"]
    what = "Wi-Fi, MQTT and radio" if mqtt else "radio (no mosquitto here: no MQTT)"
    row("boot with %s: live, first start (bytes)" % what, lambda r: r["boot"]["boot1"]["live"])
    row("  the next start: live", lambda r: r["boot"]["boot2"]["live"])
    row("  free", lambda r: r["boot"]["boot2"]["free"])
    row("  largest free block", lambda r: r["boot"]["boot2"]["largest"])
    row("  running, highest live (6 s each start)", lambda r: r["boot"]["run_peak"])
    row("the same with a set match (sets, shoot-out, warm-up): first", lambda r: r["boot_formats"]["boot1"]["live"])
    row("  the next start: live", lambda r: r["boot_formats"]["boot2"]["live"])
    row("  largest free block", lambda r: r["boot_formats"]["boot2"]["largest"])
    row("  played to its end: highest live", lambda r: r["formats"]["peak"])
    row("  then the power cut and restore: highest live", lambda r: r["formats"]["peak_with_restore"])
    row("  MemoryError (heap in 4 KB holes at 32-bit)", lambda r: r["formats"]["memory_errors"])
    if mqtt:
        row("with a hall key: live, first start", lambda r: r["boot_hall"]["boot1"]["live"])
        row("  the next start: live (setups come with MQTT, later)", lambda r: r["boot_hall"]["boot2"]["live"])
        row("  largest free block", lambda r: r["boot_hall"]["boot2"]["largest"])
        row("  running, setup topic subscribed: highest live", lambda r: r["boot_hall"]["run_peak"])
        row(
            "    minus the same without a hall key",
            lambda r: "%+d" % (r["boot_hall"]["run_peak"] - r["boot"]["run_peak"]),
        )
        row("  another run: highest live before any setup", lambda r: r["setups"]["before"])
        row("  3 setups applied, 1 oversized dropped: highest", lambda r: r["setups"]["with_setups"])
        row(
            "  setups applied / refused / MemoryError",
            lambda r: "%d / %d / %d" % (r["setups"]["applied"], r["setups"]["refused"], r["setups"]["memory_errors"]),
        )
    row("3,000-entry match: highest live (goal <= %d)" % RUN_LIVE, lambda r: r["long"]["peak"])
    row("  then the power cut and restore: highest live", lambda r: r["long"]["peak_with_restore"])
    row("  entries restored", lambda r: r["long"]["restored"])
    row("  MemoryError (heap in 4 KB holes at 32-bit)", lambda r: r["long"]["memory_errors"])
    row("  the same in 2 KB holes: MemoryError", lambda r: r.get("long_2k", {}).get("memory_errors", "-"))
    row("bytes allocated per press, to the last I2C write", lambda r: "%.1f" % r["press"]["alloc_per_press"])
    for size in ("200", "1000", "3000"):
        row("undo at %s entries: entries replayed" % size, lambda r, s=size: "%.0f" % r["undo"][s]["replayed"])
        row("  us on this machine", lambda r, s=size: "%.1f" % r["undo"][s]["us"])
        row("  on the chip (estimated: chiptime.py)", lambda r, s=size: chiptime.label(r["undo"][s]["us"] / 1000))
    print()
    return results

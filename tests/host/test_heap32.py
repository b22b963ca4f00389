"""The wall firmware in a stock ESP32's heap: the 32-bit MicroPython (4-byte objects, 31-bit
small ints) with 112 KB for the firmware, the firmware as .mpy as `carom deploy` lays it out.

What is tried:
- a boot with Wi-Fi, MQTT (a mosquitto started here) and the radio configured, the first
  after the deploy and the next, with a plain match and with one with formats (sets, the
  shoot-out, a warm-up: formats.py and formats_wall.py in RAM with it): at most 56 KB live (the heap a stock ESP32 starts with
  before it grows), a free block of 24 KB or more, no cold module left in RAM; running with
  MQTT connected, at most 80 KB;
- the two matches below are played with the voice on (a Hungarian pack on the flash: the wall's
  definition has a speaker), the heavier case: the voice's task and buffers while it speaks, what
  it keeps while it rests for the report (the bench has the figures without it too);
- a match with formats played to its end by the buttons (warm-ups, a shoot-out, five sets) in a
  heap cut into 4 KB holes, then read back after a power cut;
- a 3,000-entry straight-rail match played by the buttons to its end (points, misses,
  fouls, undos by long presses, the half-time break, the report) in a heap cut into 4 KB
  holes (so any larger allocation after the boot fails), then a power cut, the match read
  back, and a new match: no MemoryError, no failed task, the live heap never above 80 KB
  (sampled every 100 ms, and at every yield of the report's steps), and no module the report
  loaded left in RAM after it;
- the same saved match booted in a heap too small to read it: E 24, every file on the
  flash byte for byte as it was, and the match back whole at 112 KB;
- starts in heaps too small to start at all (56 to 72 KB), the first after a deploy and one
  with the long match saved: no uncaught MemoryError, E 24 on the displays (shown after a soft
  reset, from a fresh heap; or, where the start fits but the saved match does not, the board
  running held), the saved match's files byte for byte as they were; the long match then back
  whole at 112 KB.

The live heap is sampled by tests/host/vboard_fixtures/heap_main.py (every 100 ms, and at
every yield of a report, whose steps run within one instant of the board's time); the
match and the figures' reading are tools/bench/heap.py's (`make bench` prints them).
Skipped, with the reason, when there is no 32-bit MicroPython.
"""

import fcntl
import json
import os
import shutil
import time

import pytest

from host_tools import micropython32_exe
from tools.bench.heap import (
    BOOT_LARGEST,
    BOOT_LIVE,
    FORMATS_MATCH,
    RADIO,
    ROUNDS,
    RUN_LIVE,
    WIFI,
    boots,
    configure,
    heap_firmware,
    peak,
    play_format_match,
    play_long_match,
    voice_pack,
    wall,
)
from host_tools.simulator.vboard import VirtualBoard

from helpers import flash_hashes
from tools.run.mosquitto import Mosquitto, available as mosquitto_available

MP32 = micropython32_exe()
pytestmark = pytest.mark.skipif(
    MP32 is None,
    reason="no 32-bit MicroPython (CAROM_MICROPYTHON32, or "
    "../shared/tools/micropython32/micropython): the heap tests need it",
)

KB = 1024
HOLE = 4 * KB
WALL = wall()
# Modules loaded for a call and dropped (cold.py), or only at the start: never resident.
COLD = (
    "startup",
    "config",
    "boarddef",
    "jsonwhole",
    "checked",
    "rules_setup",
    "rules_events",
    "matchnames",
    "formats",
    "formats_wall",
    "formats_rare",
    "app_cold",
    "store_files",
    "store_snapshot",
    "store_journal",
    "store_checkpoint",
    "rules_state",
    "store_history",
    "rules_logback",
    "view_setup",
    "buttons_setup",
    "remote",
    "report",
    "rules_innings",
    "matchdoc",
    "matchdoc_rest",
    "store_reportfile",
    "jsonout",
    "boot_watchdog",
    "errorcodes",
    "app_refusals",
    "publisher_hall",
    "identify",
)


@pytest.fixture(scope="module")
def firmware(tmp_path_factory):
    """The flash as `carom deploy` lays it out (.mpy) with the heap's main.py, built once."""
    return heap_firmware(str(tmp_path_factory.mktemp("firmware")))


def flash_with(firmware, where, config, holes=0, voice=False):
    """The firmware's flash with config.json (and the heap's holes); voice: with a Hungarian voice
    pack (the wall's definition has a speaker, and voice.on is the default): the board speaks."""
    shutil.copytree(firmware, where)
    if voice:
        with open(os.path.join(where, "voice.pack"), "wb") as f:
            f.write(voice_pack())
    return configure(where, config, holes)


def board(flash, heap="112K", **kw):
    # A 3,000-entry match's end (its 68 KB report from a replay of every entry) and its restore are
    # seconds of this machine's CPU in one virtual instant, with heap_main's collection every 4 KB:
    # on a machine shared with other suites that passed the 30 s a board may stay silent
    # (BoardTimeout), so these boards get 180 s.
    kw.setdefault("timeout", 180)
    return VirtualBoard(flash, board=WALL, micropython=MP32, firmware_heap=heap, **kw)


def no_trouble(vb):
    text = vb.stdout + vb.stderr
    assert "MemoryError" not in text and "task failed" not in text and "Traceback" not in text, text[-3000:]


# ---- the boot ------------------------------------------------------------------------------


@pytest.mark.skipif(not mosquitto_available(), reason="mosquitto is not installed")
@pytest.mark.parametrize("match", [{"game": "straight_rail", "target": 200}, FORMATS_MATCH], ids=["plain", "formats"])
def test_boot_with_wifi_mqtt_and_radio_fits_the_first_heap(firmware, tmp_path, match):
    """Also a match with formats: sets with a deciding set, the shoot-out and a warm-up."""
    import paho.mqtt.client as paho

    broker = Mosquitto().start()
    got = []
    listener = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="listener")
    listener.on_connect = lambda c, u, f, rc, p=None: c.subscribe("carom/#", qos=1)
    listener.on_message = lambda c, u, msg: got.append(msg.topic)
    listener.connect("127.0.0.1", broker.port)
    listener.loop_start()
    config = {
        "board": "wall",
        "match": match,
        "radio": RADIO,
        "wifi": WIFI,
        "mqtt": {"host": "127.0.0.1", "port": broker.port, "table": "t1"},
    }
    flash = flash_with(firmware, str(tmp_path / "flash"), config)
    try:
        with board(flash, wifi=WIFI) as vb:
            for n in (1, 2):  # the first start after the deploy (config.json checked), then the next
                vb.run_realtime()
                vb.wait_for(lambda b: len(boots(b)) >= n or "Traceback" in b.stderr, timeout=60)
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and "carom/t1/state" not in got:
                    time.sleep(0.05)
                vb.stop_realtime()
                assert "carom/t1/state" in got  # connected: the hall has the board's state
                live, free, largest = boots(vb)[-1]
                assert live <= BOOT_LIVE, (n, live)
                assert largest >= BOOT_LARGEST, (n, largest)
                assert peak(vb) <= RUN_LIVE
                resident = [line for line in vb.lines() if line.startswith("HEAP modules")][-1].split()[2:]
                assert not set(resident) & set(COLD), resident
                assert {"rules", "view", "store", "radio", "app"} <= set(resident)
                no_trouble(vb)
                got.clear()
                vb.power_off()
                vb.power_on()
    finally:
        listener.loop_stop()
        listener.disconnect()
        broker.close()


# ---- a match with formats ----------------------------------------------------------------------


def test_a_match_with_formats_in_4k_holes_to_its_report_and_back(firmware, tmp_path):
    """The formats on the chip's heap: both warm-ups, a set drawn and decided by the
    shoot-out, three more sets, the deciding set from a new lag, by the wall's buttons, in a heap
    cut into 4 KB holes (formats_rare.py, the formats' rarer half, loads at the warm-up's press and
    ahead of the sets' ends); then a power cut and the match read back. No MemoryError, never
    above 80 KB, the report says it all."""
    flash = flash_with(
        firmware,
        str(tmp_path / "flash"),
        {"board": "wall", "match": FORMATS_MATCH, "radio": RADIO},
        holes=HOLE,
        voice=True,
    )
    with board(flash, net_pacing=False) as vb:  # powered on
        vb.advance(1)
        live, _, largest = boots(vb)[-1]
        assert live <= BOOT_LIVE and largest >= BOOT_LARGEST, (live, largest)
        play_format_match(vb)
        assert any(line.startswith("HEAP holes") for line in vb.lines())
        no_trouble(vb)
        assert peak(vb) <= RUN_LIVE
        assert len(vb.audio()) > 0  # the voice spoke (and rested for the report, then woke)
    reports = os.listdir(os.path.join(flash, "data", "history"))
    assert len(reports) == 1
    with open(os.path.join(flash, "data", "history", reports[0])) as f:
        rep = json.load(f)
    assert rep["result"] == "A" and rep["sets"]["won"] == {"A": 3, "B": 2}, rep["sets"]
    assert rep["sets"]["scores"] == [[15, 15], [0, 15], [15, 0], [0, 15], [11, 0]]
    assert rep["shootout"]["rounds"] == [[2, 1]]
    with board(flash, net_pacing=False) as vb:  # the finished match back after a power cut
        vb.advance(2)
        assert any("match restored" in line for line in vb.lines()), vb.lines()[:10]
        no_trouble(vb)
        assert peak(vb) <= RUN_LIVE


# ---- a long match ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def long_match(firmware, tmp_path_factory, worker_id):
    """A 3,000-entry match played to its end in a heap of 4 KB holes, the board then cut off:
    (its flash, its stdout, its stderr). Played once in a run: the pytest-xdist workers share it
    (the first plays it, under a lock, the others wait and read it; half a minute each time);
    the tests copy its flash before they start a board on it."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if worker_id != "master" else base  # the run's folder, above the workers'
    played = shared / "long_match"
    with open(shared / "long_match.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (played / "output.json").exists():
            output = _play_long_match(firmware, str(played / "flash"))
            (played / "output.json").write_text(json.dumps(output))
    out = json.loads((played / "output.json").read_text())
    return str(played / "flash"), out["stdout"], out["stderr"]


def _play_long_match(firmware, flash):
    """The long match played on a flash laid out at `flash`: the board's stdout and stderr."""
    target = 3 * ROUNDS - 4  # A reaches it in the last round
    config = {"board": "wall", "match": {"game": "straight_rail", "target": target, "break_s": 60}, "radio": RADIO}
    flash = flash_with(firmware, flash, config, holes=HOLE, voice=True)
    vb = board(flash, net_pacing=False)
    try:
        vb.power_on()
        vb.advance(1)
        play_long_match(vb)
        output = {"stdout": vb.stdout, "stderr": vb.stderr}
        assert len(vb.audio()) > 0  # the voice spoke
        vb.power_off()
    finally:
        vb.close()
    return output


def test_a_3000_entry_match_in_4k_holes_to_its_report(long_match):
    flash, out, err = long_match
    lines = out.splitlines()
    assert any(line.startswith("HEAP holes") for line in lines)  # the heap was cut into 4 KB holes
    assert "MemoryError" not in out + err and "task failed" not in out, (out + err)[-3000:]
    highs = [int(line.split()[-1]) for line in lines if line.startswith("HEAP live ")]
    assert highs and max(highs) <= RUN_LIVE, max(highs)  # sampled at every yield of the report too
    after = [line.split()[3:] for line in lines if line.startswith("HEAP after report")]
    assert after, "no report seen"
    assert not set(after[-1]) & set(COLD), after[-1]  # what the report loaded left RAM with it
    reports = os.listdir(os.path.join(flash, "data", "history"))
    assert len(reports) == 1
    with open(os.path.join(flash, "data", "history", reports[0])) as f:
        rep = json.load(f)
    assert rep["result"] == "A" and rep["game"] == "straight_rail"


def test_the_long_match_comes_back_after_a_power_cut_and_a_new_one_starts(long_match, tmp_path):
    flash = str(tmp_path / "flash")
    shutil.copytree(long_match[0], flash)
    with board(flash, net_pacing=False) as vb:  # powered on
        vb.advance(2)
        restored = [line for line in vb.lines() if "match restored" in line]
        assert restored and int(restored[0].split()[-2]) >= 3000, vb.lines()[:10]
        vb.hold("new", 3.5)  # a new match
        vb.advance(0.5)
        for name in ("A.point", "A.point", "A.point", "A.end", "B.point"):
            vb.tap(name, 0.1, 0.4)
        vb.advance(2)
        no_trouble(vb)
        assert peak(vb) <= RUN_LIVE
        assert vb.chip(0x70) is not None
    with board(flash, net_pacing=False) as vb:  # and the new match is the one saved
        vb.advance(2)
        restored = [line for line in vb.lines() if "match restored" in line]
        assert restored and 5 <= int(restored[0].split()[-2]) < 10, vb.lines()[:10]  # the new match's few
        no_trouble(vb)


def test_a_heap_too_small_to_read_the_match_back_changes_nothing_on_the_flash(long_match, tmp_path):
    flash = str(tmp_path / "flash")
    shutil.copytree(long_match[0], flash)
    os.remove(os.path.join(flash, "holes"))
    before = flash_hashes(flash)
    with board(flash, heap="78K", net_pacing=False) as vb:  # the 3,000 entries do not fit
        vb.advance(3)
        for name in ("A.point", "B.point", "foul"):  # presses change nothing that is saved
            vb.tap(name, 0.1, 0.3)
        vb.advance(2)
        # E 24 either way: the board runs a match of the configuration's, held (nothing is
        # written), or, where what the failed read left takes the room the rest of the start
        # needs (the heap in pieces), it does not start at all.
        assert any(
            "not enough memory to read the saved match back" in line or "not enough memory to start (E 24)" in line
            for line in vb.lines()
        ), vb.lines()[:10]
        assert "Traceback" not in vb.stdout + vb.stderr
    assert flash_hashes(flash) == before
    with board(flash, net_pacing=False) as vb:  # powered on
        vb.advance(2)
        restored = [line for line in vb.lines() if "match restored" in line]
        assert restored and int(restored[0].split()[-2]) >= 3000
        no_trouble(vb)


# ---- a start short of memory -------------------------------------------------------------------


def _store_files(flash):
    """The store's files (the saved match, its journal, the reports): what a start must not change.
    The configuration's checked copy (config.good.json, config.ok) is written by the first
    start before anything else, from config.json; it is not the match."""
    return {path: h for path, h in flash_hashes(flash).items() if path.startswith("data")}


def _shows_e24(vb):
    from host_tools.simulator.segments import decode

    kinds = {(d.get("bus", 0), int(d["addr"], 16)): d["kind"] for d in WALL["displays"]}
    return [decode(chip.ram, kinds[key]).text for key, chip in vb.chips().items()].count("E 24")


@pytest.mark.parametrize("heap", ["56K", "64K", "70K"])
def test_a_first_start_in_a_heap_too_small_shows_e24_and_writes_no_match(firmware, tmp_path, heap):
    flash = flash_with(
        firmware, str(tmp_path / "flash"), {"board": "wall", "match": {"game": "straight_rail", "target": 200}}
    )
    with board(flash, heap=heap, net_pacing=False) as vb:
        vb.advance(2)
        vb.tap("A.point", 0.1, 0.3)  # nothing is scored, nothing saved
        vb.advance(1)
        text = vb.stdout + vb.stderr
        assert "Traceback" not in text and "task failed" not in text, text[-3000:]
        started = "carom: not enough memory to start (E 24)" in text
        held = "not enough memory to read the saved match back" in text
        assert started or held, text[-2000:]
        if started:
            assert _shows_e24(vb) >= 8, vb.lines()  # every display the definition has, found
    assert _store_files(flash) == {}


@pytest.mark.parametrize("heap", ["64K", "72K"])
def test_a_start_too_small_for_the_board_keeps_the_saved_long_match(long_match, tmp_path, heap):
    flash = str(tmp_path / "flash")
    shutil.copytree(long_match[0], flash)
    os.remove(os.path.join(flash, "holes"))
    before = _store_files(flash)
    with board(flash, heap=heap, net_pacing=False) as vb:
        vb.advance(2)
        text = vb.stdout + vb.stderr
        assert "Traceback" not in text and "task failed" not in text, text[-3000:]
        assert (
            "carom: not enough memory to start (E 24)" in text
            or "not enough memory to read the saved match back" in text
        ), text[-2000:]
    assert _store_files(flash) == before
    with board(flash, net_pacing=False) as vb:
        vb.advance(2)
        restored = [line for line in vb.lines() if "match restored" in line]
        assert restored and int(restored[0].split()[-2]) >= 3000
        no_trouble(vb)

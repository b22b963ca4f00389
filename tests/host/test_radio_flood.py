"""A flood of forged frames at the wall board while its own buttons score and its shot and
break clocks run: the real firmware on the virtual board, the flood from the radio hub.

The same script of presses and waits is played without and with a flood; what the wall
does must not change. The flood mixes random bytes, plausible heads with random tags,
version 1 frames, frames signed with another key, and frames signed with the pairing key
that must not act: replays below /radio.last, unknown commands and foul kinds, numbers
past 2**30-1, acknowledgements and challenges.

- 500 frames a second and a burst of 12 every 100 ms (more in every 10 ms poll than the
  radio task reads at once, RADIO_BATCH), handled in no virtual time: every I2C write to
  every chip (its bytes and its virtual instant), the buzzer and the flash (every file,
  byte for byte) are the same; the wall answers nothing; the remote scores afterwards.
- 1,000 frames a second and the bursts, each frame costing the wall 1.5 ms of CPU
  (vboard_fixtures/busy_radio_main.py): more work than time. Every display shows the same
  in the same order, what a press changes at most a poll and a batch later, no watchdog
  reset, the same journal.
- Forged sender addresses, one per frame, on the 32-bit MicroPython: the wall forgets every
  sender's address but the paired remote's whenever ESP-NOW's table of senders passes 32
  (instead of filling its heap with it), and shows E 44 for 10 s; its buttons, clocks and
  displays go on exactly as without the flood, and the paired remote is heard throughout
  (a stranger's 33 addresses locked it out until a restart before).
"""

import math
import os
import random
import shutil
import struct

import pytest

from helpers import KEY, REMOTE_MAC, flash_hashes, radio_pair, restored_match
from host_tools import firmware_path, micropython32_exe

RATE_MS = 2  # one forged frame every 2 ms (five in each 10 ms poll)...
BURST_EVERY_MS = 100  # ...and a burst of BURST at once every 100 ms
BURST = 12

# The wall's own buttons (boards/wall.json) and waits: the lag, points, ends of inning, the
# half-time break's clock started and stopped, a foul, the shot clock running out (the
# automatic time-out).
SCRIPT = [
    ("press", "A.point"),
    ("wait", 3),
    ("press", "A.point"),
    ("press", "A.point"),
    ("press", "A.point"),
    ("wait", 2),
    ("press", "A.end"),
    ("wait", 2),
    ("press", "break"),
    ("wait", 8),
    ("press", "break"),
    ("wait", 3),
    ("press", "B.point"),
    ("press", "foul"),
    ("wait", 2),
    ("press", "A.point"),
    ("press", "A.end"),
    ("wait", 23),
    ("press", "B.point"),
    ("wait", 1),
]


def make(tmp_path, firmware, name, power=True, **wall_options):
    match = {"game": "three_cushion", "target": 6, "shot_clock": 20, "break_s": 60}
    hub, wall, remote = radio_pair(tmp_path / name, firmware, match, seed=4, **wall_options)
    with open(os.path.join(wall.flash_dir, "radio.last"), "w") as f:
        f.write("3 100")  # the newest command acted on: frames up to (3, 100) are replays
    with open(os.path.join(remote.flash_dir, "remote.boot"), "w") as f:
        f.write("3")  # its next power-on is boot 4
    if power:
        start(hub, wall, remote)
    return hub, wall, remote


def start(hub, wall, remote):
    wall.vb.power_on()
    remote.vb.power_on()
    hub.advance(2)


def forged(rng):
    """Frames that must never act (the remote's own MAC as the sender in the frame)."""
    firmware_path()
    import radio

    h = radio.Hmac(bytes.fromhex(KEY))
    other = radio.Hmac(bytes(range(32)))
    kind = rng.randrange(9)
    if kind == 0:
        return rng.randbytes(rng.randint(1, 250))
    if kind == 1:  # a plausible head, a random tag
        return bytes([radio.VERSION, radio.T_COMMAND]) + REMOTE_MAC + rng.randbytes(radio.FRAME_LEN - 8)
    if kind == 2:  # version 1's layout, well signed as it was
        b = bytearray(48)
        struct.pack_into("<BB6sHIBB", b, 0, 1, 1, REMOTE_MAC, 9, rng.randrange(1, 1000), 0, 0)
        b[32:] = h.tag(bytes(b[:32]))
        return bytes(b)
    if kind == 3:  # another key
        return radio.encode(other, radio.T_COMMAND, REMOTE_MAC, 9, rng.randrange(1, 1000), 0, 0)
    if kind == 4:  # the pairing key: replays, below the newest number acted on, (3, 100)
        boot = rng.randrange(0, 4)  # (that one again would be acknowledged: a retransmission)
        counter = rng.randrange(0, 100) if boot == 3 else rng.randrange(0, 2**30)
        return radio.encode(h, radio.T_COMMAND, REMOTE_MAC, boot, counter, rng.randrange(15), 0)
    if kind == 5:  # the pairing key, a new number, an unknown command
        import controller  # every index past the wall's actions is unknown

        return radio.encode(
            h, radio.T_COMMAND, REMOTE_MAC, 9, rng.randrange(1, 1000), rng.randint(len(controller.ACTIONS), 255), 0
        )
    if kind == 6:  # ... a foul of an unknown kind
        return radio.encode(h, radio.T_COMMAND, REMOTE_MAC, 9, rng.randrange(1, 1000), 6, rng.randint(11, 255))
    if kind == 7:  # ... a number past 2**30-1
        return radio.encode(
            h, radio.T_COMMAND, REMOTE_MAC, rng.choice((9, 2**30, 2**32 - 1)), rng.randint(2**30, 2**32 - 1), 0, 0
        )
    # the pairing key, but an acknowledgement or a challenge (the wall's own kinds of frame)
    return radio.encode(h, rng.choice((radio.T_ACK, radio.T_CHALLENGE)), REMOTE_MAC, 9, 5, 0, 0, None, b"n" * 8)


class Flood:
    def __init__(self, hub, wall, seed, sources=None, rate_ms=RATE_MS):
        self.hub, self.wall = hub, wall
        self.rate_ms = rate_ms
        self.rng = random.Random(seed)
        self.sources = sources  # None: the remote's MAC; else a function giving each frame's address
        self.at_ms = None
        self.sent = 0

    def until(self, t_s):
        """Inject the flood's frames up to virtual second t_s (the wall's clock)."""
        end = t_s * 1000
        if self.at_ms is None:
            self.at_ms = math.ceil(self.wall.vb.now * 1000) + 1  # whole milliseconds, as the board's ticks
        while self.at_ms < end:
            n = BURST if round(self.at_ms) % BURST_EVERY_MS < self.rate_ms else 1
            for _ in range(n):
                src = REMOTE_MAC if self.sources is None else self.sources(self.rng)
                self.hub.inject(self.wall.vb, src, forged(self.rng), at=self.at_ms / 1000)
                self.sent += 1
            self.at_ms += self.rate_ms


STEP_S = 0.05  # frames are injected a step ahead (the board holds those still to come in its memory)


def run(hub, wall, flood, seconds):
    end = wall.vb.now + seconds
    while wall.vb.now < end - 1e-9:
        step = min(STEP_S, end - wall.vb.now)
        if flood is not None:
            flood.until(wall.vb.now + step)
        hub.advance(step)


def play(hub, wall, flood):
    for verb, arg in SCRIPT:
        if verb == "press":
            wall.vb.press(arg)
            run(hub, wall, flood, 0.1)
            wall.vb.release(arg)
            run(hub, wall, flood, 0.5)
        else:
            run(hub, wall, flood, arg)


def journal(wall):
    """The wall's match as its flash holds it: [(entry code, argument, whole second)]."""
    copy = os.path.join(os.path.dirname(wall.flash_dir), "journal-copy")
    shutil.rmtree(copy, ignore_errors=True)
    m = restored_match(wall.flash_dir, copy)
    return [(m.entry(i)[0], m.entry(i)[1], m.entry(i)[2] // 1000) for i in range(m.n)]


def what_the_wall_did(wall):
    vb = wall.vb
    return {
        "chips": {key: vb.chip_writes(key[1], key[0]) for key in sorted(vb.chips())},
        "sound": [(s.t_ms, s.freq, s.duty_u16) for s in vb.sounds],
        "flash": flash_hashes(wall.flash_dir),
        "fields": wall.state()["fields"],
    }


def test_a_flood_changes_nothing_the_wall_does(tmp_path, firmware):
    hub, wall, remote = make(tmp_path, firmware, "quiet")
    play(hub, wall, None)
    quiet = what_the_wall_did(wall)
    f = quiet["fields"]
    assert (f["A.score"], f["B.score"], f["A.innings"], f["B.innings"]) == ("   4", "   2", " 2", " 2")
    # The shot clock ran out once (the automatic time-out) and the break's clock ran: all shown.
    clock_writes = quiet["chips"][(0, 0x75)]
    assert len({data for _, data in clock_writes}) > 20

    hub, wall, remote = make(tmp_path, firmware, "flood")
    flood = Flood(hub, wall, seed=21)
    play(hub, wall, flood)
    flooded = what_the_wall_did(wall)
    assert flood.sent > 20000
    injected = [fr for fr in hub.frames if fr.kind == "injected"]
    assert len(injected) == flood.sent and all(fr.deliveries for fr in injected)  # handed to the wall's radio
    for key in quiet["chips"]:
        assert flooded["chips"][key] == quiet["chips"][key], key  # every byte, at the same virtual instant
    assert flooded["sound"] == quiet["sound"]
    assert flooded["flash"] == quiet["flash"]  # the journal, /radio.last: not a byte changed
    assert flooded["fields"] == quiet["fields"]
    assert [fr for fr in hub.frames if fr.sender == "wall"] == []  # nothing answered
    assert len(wall.vb.boots) == 1 and "Traceback" not in wall.vb.stderr
    assert "task failed" not in wall.vb.stdout and "flooded" not in wall.vb.stdout

    # The remote still scores after the flood.
    remote.vb.press("point")
    hub.advance(0.1)
    remote.vb.release("point")
    hub.advance(0.5)
    assert wall.state()["fields"]["B.score"] == "   3"  # "point": the player at the table
    acks = [fr for fr in hub.frames if fr.sender == "wall"]
    assert [(fr.data[1], struct.unpack_from("<II", fr.data, 8)) for fr in acks] == [(2, (4, 1))]


BUSY_MAIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vboard_fixtures", "busy_radio_main.py")
COST_MS = 1.5  # what each frame costs the wall in the saturated flood (busy_radio_main.py)
BATCH_MS = 4 * COST_MS  # errorcodes.RADIO_BATCH frames, then the radio task lets the others run
LATE_MS = 10 + BATCH_MS  # what a press shows may be a poll (errorcodes.POLL_MS) and a batch later
DISPLAY_MS = 100  # errorcodes.DISPLAY_MS: the clocks and marquees are redrawn this often
# The chips that change only with presses (boards/wall.json): scores, innings and runs, GD, high runs.
PRESS_CHIPS = {(bus, addr) for bus in (0, 1) for addr in (0x70, 0x71, 0x72, 0x73)}


def slow_cpu(wall):
    """The wall's main.py: its own, with every radio frame costing COST_MS (see busy_radio_main.py)."""
    main = os.path.join(wall.flash_dir, "main.py")
    os.replace(main, os.path.join(wall.flash_dir, "carom_main.py"))
    shutil.copyfile(BUSY_MAIN, main)


def is_probe(data):
    """The display task's probe of a chip quiet for a while (view.py: its brightness command
    once more, one byte 0xE0 | level): a display task's write, not a press's."""
    return len(data) == 1 and data[0] & 0xF0 == 0xE0


def test_a_flood_that_saturates_the_cpu_starves_no_task(tmp_path, firmware):
    """Each frame costs the wall 1.5 ms of its CPU and one comes every millisecond (and
    bursts): the radio task could run for ever. It handles RADIO_BATCH frames, then the
    buttons, clocks, displays, flash and watchdog have their turn: every display shows
    what it shows without the flood, in the same order; what a press changes at most
    LATE_MS later, a clock or a marquee within a redraw of the display task and a batch."""
    hub, wall, remote = make(tmp_path, firmware, "calm", power=False)
    slow_cpu(wall)
    start(hub, wall, remote)
    play(hub, wall, None)
    quiet = what_the_wall_did(wall)
    journal_quiet = journal(wall)

    hub, wall, remote = make(tmp_path, firmware, "saturated", power=False)
    slow_cpu(wall)
    start(hub, wall, remote)
    flood = Flood(hub, wall, seed=23, rate_ms=1)
    play(hub, wall, flood)
    busy = what_the_wall_did(wall)
    assert flood.sent > 40000
    late = 0
    for key in quiet["chips"]:
        # The probes of quiet chips (is_probe) come when a chip has been quiet long enough: a late
        # display task moves them, and with them whether one more falls in; the rest is the same.
        q = [w for w in quiet["chips"][key] if not is_probe(w[1])]
        b = [w for w in busy["chips"][key] if not is_probe(w[1])]
        assert [data for _, data in b] == [data for _, data in q], key  # the same, in the same order
        for (tq, _), (tb, _) in zip(q, b):
            if key in PRESS_CHIPS:  # a press shows at most a poll and a batch of frames later
                assert 0 <= tb - tq <= LATE_MS, (key, tq, tb)
                late = max(late, tb - tq)
            else:  # a clock or a marquee: within a period of the display task and a batch
                assert abs(tb - tq) <= DISPLAY_MS + BATCH_MS, (key, tq, tb)
    assert late > 0  # the flood did cost time
    assert busy["fields"] == quiet["fields"]
    assert journal(wall) == journal_quiet  # every entry, its time within the same second
    assert busy["flash"]["radio.last"] == quiet["flash"]["radio.last"]
    assert set(busy["flash"]) == set(quiet["flash"])
    assert [fr for fr in hub.frames if fr.sender == "wall"] == []
    assert len(wall.vb.boots) == 1 and not wall.vb.wdt_starts[1:]  # no watchdog reset
    assert "Traceback" not in wall.vb.stderr and "task failed" not in wall.vb.stdout


def test_forged_sender_addresses_lock_out_neither_the_wall_nor_its_remote(tmp_path, firmware):
    """On the 32-bit MicroPython with about the ESP32's heap, where ESP-NOW's table of
    30,000 senders (some 90 bytes each) would not fit. 160 KB rather than the chip's 112:
    the emulation parses every frame on the Python heap (the chip's driver does not), and
    that garbage needs room under a flood."""
    exe = micropython32_exe()
    if exe is None:
        pytest.skip("no 32-bit MicroPython (CAROM_MICROPYTHON32, ../shared/tools/micropython32)")
    esp32 = {"micropython": exe, "firmware_heap": "160K"}
    hub, wall, remote = make(tmp_path, firmware, "quiet32", **esp32)
    play(hub, wall, None)
    quiet = what_the_wall_did(wall)
    hub, wall, remote = make(tmp_path, firmware, "many", **esp32)
    flood = Flood(hub, wall, seed=22, sources=lambda rng: b"\x02" + rng.randbytes(5))
    play(hub, wall, flood)
    flooded = what_the_wall_did(wall)
    message = (0, 0x77)  # the message display shows E 44 (the radio is flooded), nothing else changes
    for key in quiet["chips"]:  # no E 24 for want of memory: every byte at the same virtual instant
        if key != message:
            assert flooded["chips"][key] == quiet["chips"][key], key
    assert flooded["sound"] == quiet["sound"] and flooded["flash"] == quiet["flash"]
    f = flooded["fields"]
    assert (f["A.score"], f["B.score"], f["A.innings"], f["B.innings"]) == ("   4", "   2", " 2", " 2")
    assert f["message"] == "E 44", f["message"]
    floods = [line for line in wall.vb.lines() if line.startswith("carom: radio frames from")]
    assert floods and floods[0] == (
        "carom: radio frames from 33 sender addresses: all but the paired remote's forgotten (E 44)"
    ), floods
    assert len(wall.vb.boots) == 1 and "Traceback" not in wall.vb.stderr and "task failed" not in wall.vb.stdout

    hub.advance(3)
    remote.vb.press("point")  # heard: the strangers' addresses were forgotten, not the remote's
    hub.advance(0.1)
    remote.vb.release("point")
    hub.advance(0.5)
    assert wall.state()["fields"]["B.score"] == "   3"
    assert len([fr for fr in hub.frames if fr.sender == "wall"]) == 1  # acknowledged
    hub.advance(11)  # no flood for longer than E 44 shows
    assert wall.state()["fields"]["message"] != "E 44"

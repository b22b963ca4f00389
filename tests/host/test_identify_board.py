"""The identify mode on the virtual board: the real firmware as `carom deploy` builds it (.mpy), its
board definition's identify button held while the power comes on, read from the bytes the chips
received, the pins, the buzzer's PWM and the console.

What is tried, for the wall board, the mini board and the referee box:
- a match played first (wall, mini), then the identify button held at power-on and released once
  the mode shows: every display first shows its field's label, then its bus and address; every
  segment of every cell (the point, a 7-segment display's colon) is lit alone at some point; the
  LEDs light one after another, never two at once; the buzzer sounds once;
- a tap shows the button's name on the message display (the board's `message` display, else its
  first) and on the console, with its GPIO;
- a long press leaves: nothing was written to the flash, the board restarts (a soft reset) and
  runs its app with the match as it was (the referee box: its app, which shows it is not paired);
- without the button held, identify.py is never loaded (a copy on the flash that says so when it
  is imported stays silent), and with it held it is;
- a display unplugged during the mode is said on the console once and the rest goes on; plugged
  back, it is said and drawn again;
- the referee box woken from deep sleep by a press on its identify button sends the press (a foul
  for the match): no identify mode.
"""

import pytest

from helpers import flash_hashes, radio_pair
from host_tools import firmware_path
from host_tools.simulator.scripted_board import ScriptedBoard
from host_tools.simulator.segments import decode
from host_tools.simulator.vboard import DEEPSLEEP_RESET

START = "identify: press a button"
DONE = "identify: done"
RUNNING = "carom: running on board %s"


def identify_module():
    firmware_path()
    import identify

    return identify


def enter_identify(sb):
    """As a person does it: the power off, the identify button held, the power on, the button
    released once the mode shows. Returns where the records stood at the power-on: {"pins": n,
    "writes": {(bus, addr): n}} (each chip's writes)."""
    vb = sb.vb
    name = sb.board["identify_button"]
    seen = len(vb.stdout)
    vb.power_off()
    mark = {
        "pins": len(vb.pin_changes),
        "writes": {k: len(vb.chip_writes(k[1], k[0])) for k in vb.chips()},
        "sounds": len(vb.sounds),
        "wdt": len(vb.wdt_starts),
    }
    vb.press(name)
    vb.power_on()
    vb.advance_until(lambda b: START in b.stdout[seen:], limit=10, step=0.05)
    vb.release(name)
    return mark


def frames(vb, d, mark):
    """The display RAM frames (16 bytes) display d received since `mark` (enter_identify's), in order."""
    writes = vb.chip_writes(d["addr"], d["bus"])[mark["writes"][(d["bus"], d["addr"])] :]
    return [(t, data[1:]) for t, data in writes if len(data) == 17 and data[0] == 0]


def lit_alone(ram, kind):
    """The one segment lit in a frame, (cell, bit) or "colon"; None when it is not exactly one."""
    reading = decode(ram, kind)
    lit = [(i, 1 << b) for i, c in enumerate(reading.cells) for b in range(16) if c.bits >> b & 1]
    if reading.colon:
        lit.append("colon")
    return lit[0] if len(lit) == 1 else None


def expected_text(kind, text):
    """What the segments of `text` (identify.cells: a point folds into the character before it)
    read as on a display of `kind`, drawn by the firmware's own driver."""
    firmware_path()
    import ht16k33

    class Bus:
        def writeto(self, addr, buf):
            if len(buf) == 17:  # the frame (the init's command bytes come after it)
                self.frame = bytes(buf)

    identify = identify_module()
    bus = Bus()
    chip = (ht16k33.Seg7x4 if kind == "seg7" else ht16k33.Seg14x4)(bus, 0x70)
    chars, dots = identify.cells(text)
    chip.set_window(chars, 0)
    for cell in range(4):
        if dots >> cell & 1:
            chip.set_dp(cell)
    chip.show()
    return decode(bus.frame[1:], kind).text


def scores(sb):
    """What the displays show of the match (the names' marquees left out: they move with time)."""
    return {k: v for k, v in sb.state()["fields"].items() if not k.endswith("name")}


# The buttons tapped and long-pressed in the mode: neither the identify nor the safe-boot button.
TAPPED = {"wall": ("A.point", "B.end"), "mini": ("point", "point"), "referee": ("miss", "point")}


@pytest.mark.parametrize("name", ["wall", "mini", "referee"])
def test_identify_mode_held_at_power_on(tmp_path, firmware, name):
    identify = identify_module()
    config = {"board": name, "match": {"game": "three_cushion", "target": 15}}
    with ScriptedBoard(name, str(tmp_path / "flash"), config, firmware=firmware) as sb:
        vb = sb.vb
        bd = sb.board
        if bd["role"] == "wall":  # a match under way: A breaks, two points, a miss
            for button in (
                ("point", "point", "point", "end") if name == "mini" else ("A.point", "A.point", "A.point", "A.end")
            ):
                assert sb.line("press " + button) is None
            before = scores(sb)
        flash_before = flash_hashes(sb.flash_dir)
        mark = enter_identify(sb)
        out_at = len(vb.stdout)
        cycle = (
            4 * identify.SHOW_MS + max(identify.segment_steps(d["kind"]) for d in bd["displays"]) * identify.SEGMENT_MS
        )
        vb.advance(cycle / 1000 + 0.5)

        for d in bd["displays"]:
            got = frames(vb, d, mark)  # from the power-on
            texts = [decode(ram, d["kind"]).text for _, ram in got]
            label = expected_text(d["kind"], identify.label(d["show"][0]["field"]))
            where = expected_text(d["kind"], " " + identify.address_text(d["bus"], d["addr"]))
            assert label in texts and where in texts, (d["addr"], label, where, texts[:8])
            assert texts.index(label) < texts.index(where), (d["addr"], texts[:8])  # the label first
            for part in d["show"]:  # a display with two fields: each one's label
                assert expected_text(d["kind"], identify.label(part["field"])) in texts, part
            alone = {lit_alone(ram, d["kind"]) for _, ram in got} - {None}
            per = 8 if d["kind"] == "seg7" else 15
            want = {(c, 1 << b) for c in range(4) for b in range(per)} | ({"colon"} if d["kind"] == "seg7" else set())
            assert alone == want, (d["addr"], sorted(want - alone, key=str))
        # spot checks, read as a person reads them
        first = bd["displays"][0]
        texts = [decode(ram, first["kind"]).text for _, ram in frames(vb, first, mark)]
        assert "A 5C" in texts and " 0.70" in texts, texts[:6]  # A SC: the 7-segment S reads as a 5

        led_pins = {vb.named_pins[n]: n for n in bd["leds"]}
        on, order = set(), []
        for ch in vb.pin_changes[mark["pins"] :]:
            if ch.pin not in led_pins or ch.level is None:
                continue
            lit = ch.level != (1 if bd["leds"][led_pins[ch.pin]]["active_low"] else 0)
            (on.add if lit else on.discard)(led_pins[ch.pin])
            assert len(on) <= 1, on  # one after another, never two at once
            if lit:
                order.append(led_pins[ch.pin])
        assert order[: len(led_pins)] == sorted(bd["leds"]), order

        tones = (
            [tone for tone in vb.tones() if tone.start_ms >= vb.sounds[mark["sounds"]].t_ms]
            if len(vb.sounds) > mark["sounds"]
            else []
        )
        if bd["buzzer"] is None:
            assert tones == []
        else:
            assert len(tones) == 1 and tones[0].freq == identify.BEEP_HZ, tones
            assert tones[0].end_ms is not None

        tapped, held = TAPPED[name]
        message = next(
            (d for d in bd["displays"] if any(p["field"] == "message" for p in d["show"])), bd["displays"][0]
        )
        pin = next(b["pin"] for b in bd["buttons"] if b["name"] == tapped)
        vb.tap(tapped)
        vb.advance(0.2)
        shown = expected_text(message["kind"], tapped[:5] if "." in tapped[:2] else tapped[:4])
        assert decode(vb.chip(message["addr"], message["bus"]).ram, message["kind"]).text == shown
        assert "identify: button %s (GPIO%d)" % (tapped, pin) in vb.stdout[out_at:]

        assert len(vb.wdt_starts) == mark["wdt"]  # no watchdog armed in the mode
        boots = len(vb.boots)
        vb.press(held)
        vb.advance_until(lambda b: DONE in b.stdout[out_at:], limit=3, step=0.05)
        assert len(vb.boots) == boots  # still held: no restart yet
        assert flash_hashes(sb.flash_dir) == flash_before  # nothing written by the mode
        vb.release(held)
        vb.advance(2)
        assert len(vb.boots) == boots + 1 and vb.boots[-1].kind == "vm"  # a soft reset
        after = vb.stdout[vb.stdout.index(DONE) :]
        assert "Traceback" not in vb.stdout + vb.stderr
        if bd["role"] == "wall":
            assert RUNNING % name in after
            assert "carom: match restored" in after
            assert scores(sb) == before  # the match where it was
            assert len(vb.wdt_starts) == mark["wdt"] + 1  # the app's
        else:
            assert sb.state()["displays"]["0x70"] == "E 41"  # the box's app: not paired
        assert "identify:" not in after[len(DONE) :].replace(DONE, "")


def test_identify_py_is_loaded_only_when_its_button_is_held(tmp_path):
    """The firmware as source (the simulator's), identify.py altered to say when it is imported."""
    with ScriptedBoard("wall", str(tmp_path / "flash"), {"board": "wall"}) as sb:
        vb = sb.vb
        path = vb.flash_path("/identify.py")
        with open(path) as f:
            source = f.read()
        with open(path, "w") as f:
            f.write('print("identify.py imported")\n' + source)
        for _ in range(2):
            vb.power_off()
            vb.power_on()
            vb.advance(1)
        assert vb.stdout.count(RUNNING % "wall") == 3
        assert "identify.py imported" not in vb.stdout
        enter_identify(sb)  # the probe works: held, it is imported
        assert "identify.py imported" in vb.stdout


def test_safe_boot_wins_when_both_buttons_are_held(tmp_path, firmware):
    with ScriptedBoard("wall", str(tmp_path / "flash"), {"board": "wall"}, firmware=firmware) as sb:
        vb = sb.vb
        seen = len(vb.stdout)
        vb.power_off()
        vb.press("new")  # the safe-boot button
        vb.press("foul")  # the identify button
        vb.power_on()
        vb.advance(1)
        vb.release("new")
        vb.release("foul")
        vb.advance(2)
        assert "safe boot (E 30)" in vb.stdout[seen:] and "identify:" not in vb.stdout[seen:]
        assert set(sb.state()["displays"].values()) == {"E 30"}


def test_a_display_unplugged_during_the_mode_does_not_stop_it(tmp_path, firmware):
    with ScriptedBoard("wall", str(tmp_path / "flash"), {"board": "wall"}, firmware=firmware) as sb:
        vb = sb.vb
        mark = enter_identify(sb)
        out_at = len(vb.stdout)
        vb.unplug(0x71, bus=1)
        vb.advance(2)
        assert vb.stdout[out_at:].count("identify: display 1.71 (B.innings, B.run) does not answer") == 1
        a_score = next(d for d in sb.board["displays"] if d["addr"] == 0x70 and d["bus"] == 0)
        drawn = len(frames(vb, a_score, mark))
        vb.advance(3)
        assert len(frames(vb, a_score, mark)) > drawn  # the others go on
        vb.tap("foul")
        vb.advance(0.2)
        assert decode(vb.chip(0x77).ram, "seg14").text == "FOUL"
        b_innings = {"addr": 0x71, "bus": 1}
        unplugged = len(frames(vb, b_innings, mark))
        vb.plug(0x71, bus=1)
        vb.advance(2)
        assert "identify: display 1.71 answers again" in vb.stdout[out_at:]
        assert len(frames(vb, b_innings, mark)) > unplugged  # drawn again
        vb.hold("A.end", 1.5)
        vb.advance(2)
        assert RUNNING % "wall" in vb.stdout[out_at:]


def test_the_referee_box_woken_by_its_identify_button_sends_the_press(tmp_path, firmware):
    """Paired, the box sleeps between presses; a press on foul (its identify button) wakes it from
    deep sleep: the foul goes to the wall, and no identify mode starts."""
    hub, wall, remote = radio_pair(tmp_path, firmware, {"game": "three_cushion", "target": 15}, seed=3)
    try:
        wall.vb.power_on()
        remote.vb.power_on()
        hub.advance(6)
        assert remote.vb.asleep
        remote.vb.press("point")  # the lag: A breaks
        hub.advance(0.1)
        remote.vb.release("point")
        hub.advance(1)
        remote.vb.press("foul")
        hub.advance(0.3)
        remote.vb.release("foul")
        hub.advance(1)
        assert remote.vb.boots[-1].cause == DEEPSLEEP_RESET
        assert "identify:" not in remote.vb.stdout
        assert wall.state()["leds"]["B.turn"] == 1  # A's foul ended his inning: the press reached the wall
    finally:
        wall.close()
        remote.close()

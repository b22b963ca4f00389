"""identify.py, the identify mode's pure parts and its cycle, on fake hardware (no time passes:
each step is handed its instant). Runs under pytest and the MicroPython unix port.

What is tried: a label for every field a board definition may show, four characters a
7-segment display can show (the text fields: a 14-segment one), no two alike; the address
text of every bus and address; points folded into the character before them; then the
wall board's and the referee box's displays through a whole cycle (labels, addresses, every
segment of every cell lit alone, the colon), the LEDs one after another, a press's name on
the message display, a long press that leaves, a display that stops answering.
"""

import json

from fwtest import raises

import boarddef
import ht16k33
import identify
from view_setup import FIELDS

TEXT_FIELDS = boarddef.TEXT_FIELDS


def _boards_dir():
    f = __file__
    i = f.rfind("tests/fw/")
    return f[:i] + "boards" if i > 0 else "boards"


BOARDS = _boards_dir()


class Bus:
    """Keeps each address's last frame; addresses in `dead` raise OSError(19)."""

    def __init__(self):
        self.frames = {}
        self.dead = set()
        self.writes = 0

    def writeto(self, addr, buf):
        if addr in self.dead:
            raise OSError(19)
        if len(buf) == 17:
            self.frames[addr] = bytes(buf)
        self.writes += 1
        return len(buf)


class Pin:
    def __init__(self, level=0):
        self.level = level

    def __call__(self):
        return self.level

    def value(self, v=None):
        if v is not None:
            self.level = 1 if v else 0
        return self.level


def cell_bits(frame, kind, cell):
    if kind == "seg7":
        return frame[1 + 2 * cell + (cell & 2)]
    return frame[1 + 2 * cell] | frame[2 + 2 * cell] << 8


def glyph_bits(kind, text):
    """The four cells' bits the driver writes for text (its own glyph table)."""
    bus = Bus()
    chip = (ht16k33.Seg7x4 if kind == "seg7" else ht16k33.Seg14x4)(bus, 0x70)
    chip.set_window(text, 0)
    chip.show()
    return [cell_bits(bus.frames[0x70], kind, c) for c in range(4)]


def test_every_field_has_a_label_its_display_can_show():
    seen = {}
    for field in FIELDS:
        text = identify.label(field)
        assert len(text) == 4, (field, text)
        kind = "seg14" if field in TEXT_FIELDS else "seg7"
        for c, bits in zip(text, glyph_bits(kind, text.encode())):
            assert (bits != 0) == (c != " "), (field, text, c)  # every letter has a glyph on its display
        assert text not in seen, (field, seen.get(text))
        seen[text] = field
        player = field.partition(".")[0] if "." in field else None
        assert text[0] == (player or text[0]) and (text[1] == " ") == (player is not None), (field, text)
    assert identify.label("A.score") == "A SC" and identify.label("B.innings") == "B IN"
    assert identify.label("clock") == "CLOC"
    raises(KeyError, identify.label, "A.nothing")


def test_address_text_and_its_cells():
    for bus in (0, 1):
        for addr in range(0x70, 0x78):
            text = identify.address_text(bus, addr)
            assert text == "%d.7%d" % (bus, addr - 0x70), text
            chars, dots = identify.cells(" " + text)
            assert chars == b" %d7%d" % (bus, addr - 0x70) and dots == 2, (chars, dots)


def test_cells_fold_a_point_into_the_character_before_it():
    assert identify.cells("A.point") == (b"APOINT", 1)
    assert identify.cells("foul.time") == (b"FOULTIME", 8)
    assert identify.cells("end") == (b"END", 0)
    assert identify.cells("a..b") == (b"A.B", 1)  # a second point has no character of its own left
    assert identify.cells(".x") == (b".X", 0)
    assert identify.segment_steps("seg7") == 33 and identify.segment_steps("seg14") == 60


def make(name):
    with open("%s/%s.json" % (BOARDS, name)) as f:
        board = boarddef.validate(json.loads(f.read()))
    buses = {b["bus"]: Bus() for b in board["i2c"]}
    chips = [
        (ht16k33.Seg14x4 if d["kind"] == "seg14" else ht16k33.Seg7x4)(buses[d["bus"]], d["addr"], 8)
        for d in board["displays"]
    ]
    leds = {n: Pin() for n in board["leds"]}
    pins = {}

    def make_pin(number, pull):
        pins[number] = Pin(1 if pull == "up" else 0)  # released: its pull's level
        return pins[number]

    ident = identify.Identify(board, chips, leds, None, make_pin)
    for spec in board["buttons"]:  # a button with no pull has an external resistor: released, its idle level
        pins[spec["pin"]].level = 1 if spec["active_low"] else 0
    return board, buses, ident, leds, pins


def frames_at(board, buses, ident, now):
    for _ in range(len(ident.chips)):
        ident.draw(ident.next_chip, now)
        ident.next_chip = (ident.next_chip + 1) % len(ident.chips)
    return [buses[d["bus"]].frames.get(d["addr"]) for d in board["displays"]]


def texts(board, frames):
    """Each display's cells as (bits per cell, colon)."""
    out = []
    for d, f in zip(board["displays"], frames):
        out.append(([cell_bits(f, d["kind"], c) for c in range(4)], d["kind"] == "seg7" and bool(f[5] & 2)))
    return out


def run_cycle(name):
    board, buses, ident, leds, pins = make(name)
    ident.begin(0)
    lit_alone = [set() for _ in board["displays"]]
    led_order = []
    shown = {}  # display -> texts seen
    for now in range(0, ident.cycle_ms, 10):
        ident.draw_leds(now)
        on = [n for n in sorted(leds) if leds[n].level != board["leds"][n]["active_low"]]
        assert len(on) <= 1, on  # one LED at a time
        if on and (not led_order or led_order[-1] != on[0]):
            led_order.append(on[0])
        for k, (bits, colon) in enumerate(texts(board, frames_at(board, buses, ident, now))):
            lit = [(c, b) for c, b in enumerate(bits) if b]
            if len(lit) == 1 and not colon and lit[0][1] & (lit[0][1] - 1) == 0:
                lit_alone[k].add(lit[0])
            elif colon and not lit:
                lit_alone[k].add("colon")
            shown.setdefault(k, set()).add(tuple(bits))
    for k, d in enumerate(board["displays"]):
        per = 8 if d["kind"] == "seg7" else 15
        want = {(c, 1 << s) for c in range(4) for s in range(per)} | ({"colon"} if d["kind"] == "seg7" else set())
        assert lit_alone[k] == want, (d["addr"], sorted(want - lit_alone[k], key=str))
        labels = [glyph_bits(d["kind"], identify.label(p["field"]).encode()) for p in d["show"]]
        for want_bits in labels:
            assert tuple(want_bits) in shown[k], (d["addr"], identify.label(d["show"][0]["field"]))
    return board, buses, ident, leds, pins, led_order


def test_the_wall_boards_cycle_labels_addresses_every_segment_and_the_leds():
    board, buses, ident, leds, pins, led_order = run_cycle("wall")
    assert led_order[:5] == sorted(board["leds"])  # each LED in turn
    # the address: " 0.70" on bus 0's 0x70, " 1.77" on bus 1's 0x77 (the point after the bus)
    frames = frames_at(board, buses, ident, identify.SHOW_MS)
    assert (
        texts(board, frames)[0][0]
        == glyph_bits("seg7", b" 070")[:1] + [glyph_bits("seg7", b" 070")[1] | 0x80] + glyph_bits("seg7", b" 070")[2:]
    )
    last = texts(board, frames)[15][0]
    assert last[1] == glyph_bits("seg7", b" 177")[1] | 0x80


def test_the_referee_boxs_one_display_shows_both_labels():
    board, buses, ident, leds, pins, led_order = run_cycle("referee")
    assert led_order[:2] == ["A.turn", "B.turn"]
    frames = [texts(board, frames_at(board, buses, ident, t))[0][0] for t in (0, 1000, 2000, 3000)]
    assert frames[0] == glyph_bits("seg7", b"A SC") and frames[2] == glyph_bits("seg7", b"B SC")
    assert frames[1] == frames[3]  # the address between


def test_a_press_shows_its_name_on_the_message_display_and_a_long_press_leaves():
    board, buses, ident, leds, pins = make("wall")
    ident.begin(0)
    message = [d["addr"] for d in board["displays"]].index(0x77)  # bus 0's 0x77 shows `message`
    assert ident.message == message
    foul = next(s for s in board["buttons"] if s["name"] == "foul")
    pins[foul["pin"]].level = 0  # active low: pressed
    for now in range(10, 200, 10):
        assert ident.poll(now) is None
    frames = frames_at(board, buses, ident, 200)
    assert texts(board, frames)[message][0] == glyph_bits("seg14", b"FOUL")
    assert texts(board, frames)[0][0] == glyph_bits("seg7", b"A SC")  # the others go on
    left = None
    now = 200
    while left is None and now < 3000:
        now += 10
        left = ident.poll(now)
    assert left == "foul" and now >= board["timings"]["long_ms"], now
    # a long name runs by: A.point -> "A.POI" first, then on to "OINT"
    point = next(s for s in board["buttons"] if s["name"] == "A.point")
    pins[foul["pin"]].level = 1
    pins[point["pin"]].level = 0
    for t in range(now, now + 100, 10):
        ident.poll(t)
    at = now + 100
    first = texts(board, frames_at(board, buses, ident, at))[message][0]
    assert first == [glyph_bits("seg14", b"APOI")[0] | 0x4000] + glyph_bits("seg14", b"APOI")[1:]
    end = texts(board, frames_at(board, buses, ident, at + 6 * identify.SCROLL_MS))[message][0]
    assert end == glyph_bits("seg14", b"OINT")


def test_a_button_held_at_the_start_is_no_press_and_a_dead_display_does_not_stop_the_rest():
    board, buses, ident, leds, pins = make("mini")
    end = next(s for s in board["buttons"] if s["name"] == "end")
    pins[end["pin"]].level = 0  # held since power-on
    ident.begin(0)
    for now in range(0, 3000, 10):
        assert ident.poll(now) is None  # held 3 s: not a long press, it was down before
    assert ident.shown is None
    buses[0].dead.add(0x70)
    frames = frames_at(board, buses, ident, 3000)
    assert ident.failed[0] == 1 and ident.failed[1] == 0
    buses[0].dead.clear()
    frames_at(board, buses, ident, 3000 + identify.RETRY_MS // 2)
    assert ident.failed[0] == 1  # tried again only after RETRY_MS
    frames = frames_at(board, buses, ident, 3000 + identify.RETRY_MS)
    assert ident.failed[0] == 0 and frames[0] is not None

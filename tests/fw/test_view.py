"""The view: which chip shows what, blinking, LEDs, dead chips; on CPython and MicroPython.

Expected frames are made by the driver's own set_text on a reference chip,
so each assertion reads as the text a person sees on that display.
"""

import boarddef
import rules
import view
import view_setup
from fwtest import SkipTest
from ht16k33_text import Seg7x4, Seg14x4


class FakeI2C:
    def __init__(self):
        self.writes = []
        self.dead = set()

    def writeto(self, addr, buf):
        if addr in self.dead:
            raise OSError(19)
        self.writes.append((addr, bytes(buf)))
        return len(buf)

    def take(self):
        w = self.writes
        self.writes = []
        return w


class FakePin:
    def __init__(self):
        self.v = None
        self.count = 0

    def value(self, v=None):
        if v is None:
            return self.v
        self.v = v
        self.count += 1


def build(name, **options):
    """A board (a name in boards/, or a definition as a dict) playing a match, its chips on fakes."""
    board = boarddef.load(name if isinstance(name, dict) else "boards/%s.json" % name)
    buses = {}
    chips = []
    for d in board["displays"]:
        bus = buses.setdefault(d["bus"], FakeI2C())
        cls = Seg14x4 if d["kind"] == "seg14" else Seg7x4
        chips.append(cls(bus, d["addr"]))
    leds = {}
    for name in board["leds"]:
        leds[name] = FakePin()
    options.setdefault("game", "three_cushion")
    options.setdefault("target", 15)
    m = rules.Match(**options)
    v = view.View(board, chips, leds, m)
    return board, buses, chips, leds, m, v


def chip_for(board, chips, field):
    for k, d in enumerate(board["displays"]):
        for part in d["show"]:
            if part["field"] == field:
                return chips[k]
    raise KeyError(field)


class NullI2C:
    """A bus that takes the bytes and allocates nothing (the test's buses record them)."""

    def writeto(self, addr, buf):
        return len(buf)


def quiet(chips):
    """The chips write to a NullI2C: a render can then be measured for what it allocates."""
    null = NullI2C()
    for chip in chips:
        chip._i2c = null


def looks(chip, text, colon=None):
    """The chip's frame equals what set_text(text) makes."""
    ref = (Seg14x4 if isinstance(chip, Seg14x4) else Seg7x4)(FakeI2C(), chip.addr)
    ref.set_text(text)
    if colon is not None:
        ref.set_colon(colon)
    if bytes(ref._frame) != bytes(chip._frame):
        raise AssertionError("chip 0x%x does not show %r" % (chip.addr, text))
    return True


def test_fields_match_the_board_definition_schema():
    assert view_setup.FIELDS == boarddef.FIELDS
    assert view_setup.LEDS == boarddef.LEDS


def test_wall_board_shows_every_field():
    board, buses, chips, leds, m, v = build("wall", breaker=rules.A, name_A="Kim", club_A="BC", name_B="Bo")
    v.new_match()
    for i in range(5):
        m.point(rules.NOBODY, 0)
    m.miss(rules.NOBODY, 0)
    m.point(rules.NOBODY, 0)
    m.miss(rules.NOBODY, 0)
    for i in range(3):
        m.miss(rules.NOBODY, 0)  # A 5 in 3 innings, B 1 in 3, A at the table
    v.render(0)
    c = lambda f: chip_for(board, chips, f)  # noqa: E731
    assert looks(c("A.score"), "   5")
    assert looks(c("B.score"), "   1")
    assert looks(c("A.innings"), " 3  ")  # innings in cells 0-1; the run is B's: blank here
    assert looks(c("A.average"), "1.666")  # 5/3, truncated like the state document
    assert looks(c("B.average"), "0.333")
    assert looks(c("A.high_run"), "   5")
    assert looks(c("A.target"), "  15") and looks(c("B.target"), "  15")  # each his own (the same here)
    assert looks(c("countdown"), "    ")
    assert looks(c("sets"), "    ")  # no sets in this match
    assert looks(c("clock"), " 000", colon=True)  # no break, no shot clock: the match's 0:00 (h:mm)
    assert looks(c("B.name"), "BO  ")  # four letters or fewer stand still, left-aligned
    assert looks(c("A.name"), "    ")  # "KIM - BC" runs as a marquee, entering from the right
    v.render(4 * view.SCROLL_MS)
    assert looks(c("A.name"), "KIM ")
    v.render(8 * view.SCROLL_MS)
    assert looks(c("A.name"), "- BC")


def test_run_shown_for_the_player_at_the_table():
    board, buses, chips, leds, m, v = build("wall", breaker=rules.A)
    m.point(rules.NOBODY, 0)
    m.point(rules.NOBODY, 0)
    v.render(0)
    assert looks(chip_for(board, chips, "A.innings"), " 1 2")
    assert looks(chip_for(board, chips, "B.innings"), " 0  ")
    m.miss(rules.NOBODY, 0)
    v.render(0)
    assert looks(chip_for(board, chips, "A.innings"), " 1  ")
    assert looks(chip_for(board, chips, "B.innings"), " 1 0")


def test_countdown_and_message_blink():
    board, buses, chips, leds, m, v = build("wall", breaker=rules.A, target=3)
    v.render(0)
    cd = chip_for(board, chips, "countdown")
    assert looks(cd, "   3") and cd.get_blink() == 2  # 1 Hz
    msg = chip_for(board, chips, "message")
    assert looks(msg, "    ")  # "LAST 3" runs by: it enters from the right
    v.render(1 * view.SCROLL_MS)
    assert looks(msg, "   L")
    v.render(4 * view.SCROLL_MS)
    assert looks(msg, "LAST")
    v.render(6 * view.SCROLL_MS)
    assert looks(msg, "ST 3")


def test_shot_clock_and_break_clock():
    board, buses, chips, leds, m, v = build("wall", breaker=rules.A, target=4, shot_clock=30)
    clock = chip_for(board, chips, "clock")
    v.render(0)
    assert looks(clock, "  30") and clock.get_blink() == 0
    v.render(20500)
    assert looks(clock, "  10") and clock.get_blink() == 1  # the last 10 s blink at 2 Hz
    m.point(rules.NOBODY, 21000)
    m.point(rules.NOBODY, 21000)
    m.miss(rules.NOBODY, 21000)
    assert m.break_request(rules.B, 21000) is None
    v.render(21000)
    assert looks(clock, " 300", colon=True) and clock.get_blink() == 0
    v.render(21000 + 121000)
    assert looks(clock, " 059", colon=True)  # 0:59
    v.render(22800)  # (22800 // SCROLL_MS) % (len("BREAK") + 4) == 4: the marquee shows its start
    assert looks(chip_for(board, chips, "message"), "BREA")


def test_result_blinks_winner_and_draw():
    board, buses, chips, leds, m, v = build("wall", breaker=rules.A, target=1, equalizing=False)
    m.point(rules.NOBODY, 0)
    v.render(0)
    assert chip_for(board, chips, "A.score").get_blink() == 2
    assert chip_for(board, chips, "B.score").get_blink() == 0
    board, buses, chips, leds, m, v = build("wall", breaker=rules.A, target=1)
    m.point(rules.NOBODY, 0)
    m.point(rules.NOBODY, 0)
    v.render(0)
    assert chip_for(board, chips, "A.score").get_blink() == 3
    assert chip_for(board, chips, "B.score").get_blink() == 3
    assert looks(chip_for(board, chips, "message"), "DRAW")


def test_leds_turn_spot_equalizing():
    board, buses, chips, leds, m, v = build("wall", breaker=rules.B, target=1)
    v.render(0)
    on = lambda name: leds[name].v ^ (1 if board["leds"][name]["active_low"] else 0)  # noqa: E731
    assert on("B.turn") == 1 and on("A.turn") == 0
    assert on("B.spot") == 1 and on("A.spot") == 0
    assert on("equalizing") == 0
    m.point(rules.NOBODY, 0)  # B broke and reached 1: A's equalizing inning
    v.render(0)
    assert on("A.turn") == 1 and on("B.turn") == 0 and on("equalizing") == 1
    writes = leds["A.turn"].count
    v.render(0)
    assert leds["A.turn"].count == writes  # unchanged LEDs are not written again


def test_mini_board_turn_as_decimal_point():
    board, buses, chips, leds, m, v = build("mini", breaker=rules.A)
    v.render(0)
    assert looks(chips[0], "   0.") and looks(chips[1], "   0")
    m.point(rules.NOBODY, 0)
    m.miss(rules.NOBODY, 0)
    v.render(0)
    assert looks(chips[0], "   1") and looks(chips[1], "   0.")


def test_only_changed_chips_are_written():
    board, buses, chips, leds, m, v = build("wall", breaker=rules.A, target=40)
    v.render(0)
    for bus in buses.values():
        bus.take()
    m.point(rules.NOBODY, 0)
    v.render(0)
    written = []
    for b, bus in sorted(buses.items()):
        for addr, data in bus.take():
            written.append((b, addr))
    # A's score, innings/run, average and high run change; nothing on B's side.
    assert sorted(written) == [(0, 0x70), (0, 0x71), (0, 0x72), (0, 0x73)], written
    v.render(0)
    assert all(not bus.take() for bus in buses.values())


def test_dead_chip_does_not_stop_the_others_and_shows_its_code():
    board, buses, chips, leds, m, v = build("wall", breaker=rules.A, target=40)
    buses[0].dead.add(0x70)  # A's score chip unplugged
    m.point(rules.NOBODY, 0)
    v.render(0)
    assert v.failed[0] == 1
    written = [a for a, _ in buses[0].take()]
    assert 0x71 in written and 0x70 not in written
    v.render(100)  # the error code appears on the message chip (bus 0, 0x77)
    assert looks(chip_for(board, chips, "message"), "E 70")
    buses[0].dead.clear()  # plugged back: retried after RETRY_MS, then all is well
    v.render(500)
    assert v.failed[0] == 1
    v.render(view.RETRY_MS + 100)
    assert v.failed[0] == 0
    w = [data for addr, data in buses[0].take() if addr == 0x70]
    assert len(w) == 4 and len(w[0]) == 17 and w[1] == b"\x21"  # full init: frame, then oscillator on
    v.render(view.RETRY_MS + 200)
    assert looks(chip_for(board, chips, "message"), "    ")
    assert v.first_failed() == -1


def test_render_does_not_allocate():
    try:
        import micropython

        micropython.heap_lock
    except (ImportError, AttributeError):
        raise SkipTest("needs micropython.heap_lock")
    board, buses, chips, leds, m, v = build("wall", breaker=rules.A, target=6, shot_clock=30)
    v.render(0)
    quiet(chips)
    point = lambda: m.point(rules.NOBODY, 1000)  # noqa: E731
    render = lambda: v.render(1000)  # noqa: E731
    micropython.heap_lock()
    try:
        for i in range(4):
            point()
            render()
    finally:
        micropython.heap_unlock()
    assert m.score[rules.A] == 4


def test_names_shown_in_plain_capitals():
    assert view_setup.display_text("Kovács Ödön") == b"KOVACS ODON"
    assert view_setup.display_text("Győző Szűcs - BC Pécs") == b"GYOZO SZUCS - BC PECS"
    assert view_setup.display_text("Straße") == b"STRASSE"
    assert view_setup.display_text("Ωmega") == b"?MEGA"
    assert view_setup.display_text("€ 中 😀x ý ÿ") == b"? ? ?X Y ?"  # 3- and 4-byte UTF-8; what has no base letter


def test_messages_are_found_in_the_packed_text_with_blanks_around():
    got = [bytes(view._TEXT[a : a + n]) for a, n in zip(view._MSG_AT, view._MSG_LEN)]
    assert got == [
        b"",
        b"LAG",
        b"BREAK",
        b"EQUALIZING INNING",
        b"DRAW",
        b"TIE-BREAK",
        b"FOUL",
        b"TIME",
        b"A WINS",
        b"B WINS",
        b"RESPOT",
        b"SPOTS",
        b"FROZEN",
        b"FREE BALL",
        b"MASSE",
        b"LAST 1",
        b"LAST 2",
        b"LAST 3",
        b"LAST 4",
        b"LAST 5",
        b"OUT",
    ]
    for a, n in zip(view._MSG_AT, view._MSG_LEN):
        if n:  # a marquee's window (4 cells, from 4 before the text to its end) sees only blanks around it
            assert view._TEXT[a - 4 : a] == b"    " and view._TEXT[a + n : a + n + 4] == b"    "
        else:  # no message: four blanks
            assert view._TEXT[a : a + 4] == b"    "


def test_a_message_marquee_from_the_packed_text_shows_what_the_message_alone_would():
    class Bus:
        def writeto(self, addr, buf):
            return len(buf)

    packed, alone = Seg14x4(Bus(), 0x70), Seg14x4(Bus(), 0x71)
    for a, n in zip(view._MSG_AT, view._MSG_LEN):
        text = bytes(view._TEXT[a : a + n])
        for step in range(n + 4):
            w = step - 4 if n > 4 else 0  # the marquee's window (View._draw's rule)
            packed.set_window(view._TEXT, a + w)
            alone.set_window(text, w)
            assert [packed.get_segments(k) for k in range(4)] == [alone.get_segments(k) for k in range(4)], (text, step)

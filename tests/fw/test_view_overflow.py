"""Never a wrong number on a display: every number field of every board definition,
on 7- and 14-segment chips, at its largest values shows the true number or the overflow (a dash
in every cell of the field), never its last digits. Runs on CPython and MicroPython.
"""

import json
import os

import boarddef
import rules
import view
from ht16k33_text import Seg7x4, Seg14x4
from test_view import FakeI2C, FakePin, build

INNINGS = (0, 9, 10, 99, 100, 999)
COUNTS = (0, 9, 10, 99, 100, 105, 999, 1000, 9999)  # runs, scores, targets
GDS = (
    0,
    666,
    667,
    1667,
    9994,
    9995,
    9999,
    10000,
    12345,
    99949,
    99950,
    99994,
    99995,
    99999,
    999499,
    999500,
    9999000,
)  # GD x 1000 (the largest real one: 9,999 in 1 inning)
BREAKS = (0, 59, 60, 300, 599, 600, 5999, 6000)  # the break's seconds: up to 99:59 and past it
SHOTS = (0, 9, 10, 60, 99, 100, 999)
ELAPSED_MIN = (0, 5, 59, 60, 67, 599, 600, 5999, 6000, 100000)  # the match's minutes: h:mm up to 99:59


class FakeMatch:
    """What the view reads of a match, each value set by the test."""

    def __init__(self):
        self.phase = rules.RUNNING
        self.result = rules.R_NONE if hasattr(rules, "R_NONE") else 0
        self.turn = rules.NOBODY
        self.shooter = rules.A
        self.run = 0
        self.score = [0, 0]
        self.innings = [0, 0]
        self.high_run = [0, 0]
        self.gd = [0, 0]
        self.targets = [0, 0]
        self.cd = -1
        self.break_s = -1
        self.shot_s = -1
        self.last_foul = -1
        self.respot = 0
        self.out = False
        self.elapsed_s = -1
        self.names = ["", ""]
        self.clubs = ["", ""]
        self.fmt = None  # a plain match (formats_wall.py draws a format match's extras)

    def average_x1000(self, p):
        return self.gd[p]

    def countdown(self):
        return self.cd

    def break_left_ms(self, now):
        return self.break_s * 1000 if self.break_s >= 0 else -1

    def shot_left_ms(self, now):
        return self.shot_s * 1000 if self.shot_s >= 0 else -1

    def elapsed_ms(self, now):
        return self.elapsed_s * 1000 if self.elapsed_s >= 0 else -1

    def out_next(self):
        return self.out

    def spot_ball(self):
        return rules.NOBODY


def _glyphs(chip):
    """Segment bits -> character, for what a number field can show."""
    table = {}
    for c in " -0123456789":
        table[chip._glyph(ord(c))] = c
    return table


def read(chip, at, width):
    """The text of cells at..at+width-1 as a person reads it (points as ".")."""
    table = _glyphs(chip)
    text = ""
    for cell in range(at, at + width):
        bits = chip.get_segments(cell)
        text += table[bits & ~chip.DP]
        if bits & chip.DP:
            text += "."
    return text


def boards():
    """Every board definition in boards/, and each again with its chips 14-segment."""
    for name in sorted(os.listdir("boards")):
        if name.endswith(".json"):
            yield name, boarddef.load("boards/" + name)
            with open("boards/" + name) as f:
                d = json.load(f)
            for disp in d["displays"]:
                disp["kind"] = "seg14"
                disp.pop("size", None)  # a 7-segment digit height is none of the 14-segment ones
            yield name + " (14-seg)", boarddef.load(d)


def make(board):
    chips = []
    for d in board["displays"]:
        chips.append((Seg14x4 if d["kind"] == "seg14" else Seg7x4)(FakeI2C(), d["addr"]))
    leds = {}
    for name in board.get("leds") or {}:
        leds[name] = FakePin()
    m = FakeMatch()
    return chips, m, view.View(board, chips, leds, m)


def slots(board, fields):
    for k, d in enumerate(board["displays"]):
        for part in d["show"]:
            if part["field"] in fields:
                yield k, part


def dashes(width):
    return "-" * width


def check_int(name, board, fields, values, put):
    """Each value in each slot of `fields`: the number itself, or dashes when it does not fit."""
    seen = 0
    for k, part in slots(board, fields):
        chips, m, v = make(board)
        for n in values:
            put(m, part["field"], n)
            v.invalidate()
            v.render(0)
            text = read(chips[k], part["at"], part["width"])
            fits = n < 10 ** part["width"]
            want = ("%" + str(part["width"]) + "d") % n if fits else dashes(part["width"])
            assert text == want, "%s %s = %d shows %r, not %r" % (name, part["field"], n, text, want)
            seen += 1
    return seen


def _player(field):
    return rules.A if field.startswith("A.") else rules.B


def _put_count(m, field, n):
    p = _player(field) if "." in field else 0
    f = field.split(".")[-1]
    if f == "score":
        m.score[p] = n
    elif f == "innings":
        m.innings[p] = n
    elif f == "run":
        m.shooter = p
        m.run = n
    elif f == "high_run":
        m.high_run[p] = n
    elif field in ("A.target", "B.target"):
        m.targets[p] = n
    elif f == "target":
        m.targets[0] = m.targets[1] = n
    elif f == "countdown":
        m.cd = n
    else:
        raise KeyError(field)


def test_run_of_105_on_the_wall_board_is_not_5():
    board, buses, chips, leds, m, v = build("wall", breaker=rules.A, game="straight_rail", target=200)
    for i in range(105):
        m.point(rules.NOBODY, 0)
    v.render(0)
    k = [i for i, d in enumerate(board["displays"]) if d["show"][-1]["field"] == "A.run"][0]
    assert read(chips[k], 0, 4) == " 1--"  # inning 1, run 105: too big for two cells
    hr = [i for i, d in enumerate(board["displays"]) if d["show"][0]["field"] == "A.high_run"][0]
    assert read(chips[hr], 0, 4) == " 105"
    m.miss(rules.NOBODY, 0)
    v.render(0)
    assert read(chips[k], 0, 4) == " 1  "


def test_every_count_field_of_every_board_shows_the_true_number_or_dashes():
    count_fields = ("score", "innings", "run", "high_run")
    fields = tuple(p + f for p in ("A.", "B.") for f in count_fields + ("target",)) + ("target",)
    seen = 0
    for name, board in boards():
        seen += check_int(name, board, fields, COUNTS + INNINGS, _put_count)
        seen += check_int(name, board, ("countdown",), range(6), _put_count)  # "last 5" at most
    assert seen > 0


def test_every_gd_field_shows_the_truncated_gd_or_dashes():
    seen = 0
    for name, board in boards():
        for k, part in slots(board, ("A.average", "B.average")):
            chips, m, v = make(board)
            w = part["width"]
            for x in GDS:
                m.gd[_player(part["field"])] = x
                v.invalidate()
                v.render(0)
                text = read(chips[k], part["at"], w)
                seen += 1
                if x // 1000 >= 10**w:  # not even its whole number fits
                    assert text == dashes(w), (name, x, text)
                    continue
                assert "-" not in text, (name, x, text)
                decimals = len(text) - 1 - text.index(".") if "." in text else 0
                drop = 10 ** (3 - decimals)
                assert int(text.replace(".", "")) == x // drop, (name, x, text)
    assert seen > 0


def test_every_clock_shows_the_true_time_or_dashes():
    seen = 0
    for name, board in boards():
        for k, part in slots(board, ("clock",)):
            chips, m, v = make(board)
            w = part["width"]
            for s in BREAKS:
                m.break_s = s
                v.invalidate()
                v.render(0)
                text = read(chips[k], part["at"], w)
                n = (s // 60) * 100 + s % 60 if w >= 3 else s
                if n >= 10**w:
                    want = dashes(w)
                elif w >= 3:
                    want = ("%" + str(w) + "s") % ("%03d" % n)
                else:
                    want = ("%" + str(w) + "d") % n
                assert text == want, (name, s, text, want)
                if chips[k].HAS_COLON and w == 4:
                    colon = chips[k]._frame[5] & 2
                    assert bool(colon) == (n < 10**w), (name, s)  # m:ss, not --:--
                seen += 1
            m.break_s = -1
            for s in SHOTS:
                m.shot_s = s
                v.invalidate()
                v.render(0)
                text = read(chips[k], part["at"], w)
                want = ("%" + str(w) + "d") % s if s < 10**w else dashes(w)
                assert text == want, (name, s, text, want)
                seen += 1
            m.shot_s = -1
            for minutes in ELAPSED_MIN:  # nothing else runs: the match's time as h:mm, rounded down
                m.elapsed_s = minutes * 60 + 59
                v.invalidate()
                v.render(0)
                text = read(chips[k], part["at"], w)
                n = (minutes // 60) * 100 + minutes % 60
                if w < 3:
                    want = " " * w  # no room for h:mm: blank, never a bare number of minutes
                elif n >= 10**w:
                    want = dashes(w)
                else:
                    want = ("%" + str(w) + "s") % ("%03d" % n)
                assert text == want, (name, minutes, text, want)
                if chips[k].HAS_COLON and w == 4:
                    assert bool(chips[k]._frame[5] & 2) == (n < 10**w), (name, minutes)
                seen += 1
            m.elapsed_s = -1
            v.invalidate()
            v.render(0)
            assert read(chips[k], part["at"], w) == " " * w  # the lag: blank
    assert seen > 0


def test_gd_on_the_wall_board_is_the_state_documents():
    """2/3 is 0.666 on both (truncated, rules.Match.average_x1000); with fewer cells than
    three decimals need, the document's GD truncated to what fits."""
    import matchdoc

    for runs in ((2, 0, 0), (1, 0, 0), (5, 0, 0), (1, 0, 0, 0, 0, 0, 0, 0), (40, 0, 0), (0, 7, 3, 1, 2, 9)):
        board, buses, chips, leds, m, v = build("wall", breaker=rules.A, game="straight_rail", target=200)
        for run in runs:
            for i in range(run):
                m.point(rules.NOBODY, 0)
            m.miss(rules.NOBODY, 0)  # A's inning
            m.miss(rules.NOBODY, 0)  # B's
        v.render(0)
        k = [i for i, d in enumerate(board["displays"]) if d["show"][0]["field"] == "A.average"][0]
        shown = read(chips[k], 0, 4)
        doc = matchdoc.doc(m, 0)["players"]["A"]["average"]
        x = int(round(doc * 1000))
        if x < 10000:
            want = "%d.%03d" % (x // 1000, x % 1000)
        else:
            x = x // 10
            want = "%d.%02d" % (x // 100, x % 100)
        assert shown == want, (runs, shown, want)


class NullI2C:
    def writeto(self, addr, buf):
        return len(buf)


def test_drawing_the_overflow_does_not_allocate():
    try:
        import micropython

        micropython.heap_lock
    except (ImportError, AttributeError):
        from fwtest import SkipTest

        raise SkipTest("needs micropython.heap_lock")
    for name, board in boards():
        chips, m, v = make(board)
        v.render(0)
        for chip in chips:
            chip._i2c = NullI2C()
        m.run = m.innings[0] = m.innings[1] = 999
        m.gd[0] = m.gd[1] = 9999000
        m.break_s = 6000
        micropython.heap_lock()
        try:
            v.invalidate()
            v.render(0)
            m.run = 9999
            m.break_s = -1
            m.shot_s = 9999
            v.render(1000)
            m.shot_s = -1
            m.elapsed_s = 6000 * 60
            v.render(2000)
            m.elapsed_s = 67 * 60
            v.render(3000)
        finally:
            micropython.heap_unlock()

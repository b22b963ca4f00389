"""host_tools.simulator.segments: decoding display RAM, and round trips through the firmware driver."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from host_tools import firmware_path
from host_tools.simulator import segments
from host_tools.simulator.segments import decode, decode_seg7, decode_seg14

firmware_path()
import ht16k33_text as ht16k33  # noqa: E402  (the driver with its text methods)


class Bus:
    def __init__(self):
        self.frame = None

    def writeto(self, addr, buf):
        if len(buf) == 17:
            self.frame = bytes(buf)


class Display:
    """A firmware driver whose RAM we can read back."""

    def __init__(self, cls):
        self.bus = Bus()
        self.d = cls(self.bus)
        self.d.show()

    def ram(self):
        self.d.show()
        return self.bus.frame[1:]

    def text(self, s):
        self.d.set_text(s)
        return self.ram()

    def number(self, n, **kw):
        self.d.set_number(n, **kw)
        return self.ram()


SEG7 = Display(ht16k33.Seg7x4)
SEG14 = Display(ht16k33.Seg14x4)
KIND = {"seg7": SEG7, "seg14": SEG14}
PRINTABLE = "".join(chr(c) for c in range(32, 127))


def test_examples_seg7():
    assert decode_seg7(SEG7.text("12:34")).text == "12:34"
    assert decode_seg7(SEG7.text("1.25")).text == " 1.25"
    assert decode_seg7(SEG7.text("-5")).text == "  -5"
    assert decode_seg7(SEG7.text("8.8.:8.8.")).text == "8.8.:8.8."
    assert decode_seg7(SEG7.text("")).text == "    "
    assert decode_seg7(SEG7.text("HELP")).text == "HELP"
    assert decode_seg7(SEG7.text("help")).text == "HELP"
    assert decode_seg7(SEG7.text(".5")).text == "   .5"
    assert decode_seg7(b"\x06\x00\x5b\x00\x02\x00\x4f\x00\x66\x00" + bytes(6)).text == "12:34"


def test_examples_seg14():
    assert decode_seg14(SEG14.text("ABCD")).text == "ABCD"
    assert decode_seg14(SEG14.text("1.25")).text == " 1.25"
    assert decode_seg14(SEG14.text("Hi!")).text == " Hi1."  # '!' is drawn as "1."
    assert decode_seg14(SEG14.text("a:|I")).text == "aIII"  # the same pattern reads one way
    assert decode_seg14(SEG14.text("?")).text == "   ?"
    assert decode_seg14(SEG14.text("")).text == "    "


def test_cells_and_raw_bits():
    r = decode_seg7(SEG7.text("1.2:34"))
    assert r.kind == "seg7" and r.colon and r.extra == 0
    assert [c.bits for c in r.cells] == [0x86, 0x5B, 0x4F, 0x66]
    one = r.cells[0]
    assert (one.char, one.dp, one.known) == ("1", True, True)
    assert one.names == ("b", "c", "dp")
    r = decode_seg14(SEG14.text("/"))
    assert r.cells[3].bits == 0x0C00 and r.cells[3].names == ("K", "L")
    assert r.cells[0].names == ()
    assert json.loads(json.dumps(r.as_dict()))["cells"][3]["segments"] == ["K", "L"]


def test_unknown_patterns_read_as_question_mark():
    ram = bytearray(16)
    ram[0] = 0x01  # segment a alone
    ram[2] = 0x81  # ... with its point
    ram[8] = 0x49  # a, d, g: no glyph
    r = decode_seg7(ram)
    assert r.text == "??. ?"
    assert [c.known for c in r.cells] == [False, False, True, False]
    ram = bytearray(16)
    ram[6], ram[7] = 0xFF, 0x3F  # everything but the point (DEL)
    assert decode_seg14(ram).text == "   ?"
    assert not decode_seg14(ram).cells[3].known
    assert decode_seg14(ram).cells[2].known  # blank is known


def test_frame_lengths_and_extras():
    assert decode_seg7(b"\x00" + SEG7.text("42")).text == "  42"  # 17-byte frame
    with pytest.raises(ValueError):
        decode_seg7(bytes(15))
    with pytest.raises(ValueError):
        decode_seg14(b"\x01" + bytes(16))  # 17 bytes must start at RAM 0x00
    with pytest.raises(ValueError):
        decode(bytes(16), "seg9")
    ram = bytearray(16)
    ram[4] = 0x0C  # the 1.2" backpack's left dots, colon off
    r = decode(ram, "seg7")
    assert not r.colon and r.extra == 0x0C and r.text == "    "


def test_tables_agree_with_adafruit():
    ada = pytest.importorskip("adafruit_ht16k33.segments")
    for i, ch in enumerate(PRINTABLE + "\x7f"):
        assert segments._SEG14_GLYPHS[ch] == ada.CHARS[2 * i] << 8 | ada.CHARS[2 * i + 1], ch
    for ch, bits in segments._SEG7_GLYPHS.items():
        if ch != " ":
            want = ada.NUMBERS[int(ch)] if ch.isdigit() else None
            assert want is None or bits == want
            assert decode_seg7(SEG7.text(ch)).cells[3].bits == bits, ch


def test_all_numbers_read_back():
    for n in range(-999, 10000):
        assert decode_seg7(SEG7.number(n)).text == "%4d" % n
        assert decode_seg14(SEG14.number(n)).text == "%4d" % n
    for n in range(-999, 10000):
        want = "%5.2f" % (n / 100)  # the point takes no cell: 4 cells, 5 characters
        assert decode_seg7(SEG7.number(n, decimals=2)).text == want
        assert decode_seg14(SEG14.number(n, decimals=2)).text == want


@settings(max_examples=2000, deadline=None)
@given(st.sampled_from(["seg7", "seg14"]), st.text(alphabet=PRINTABLE, max_size=12))
def test_round_trip_any_text(kind, text):
    disp = KIND[kind]
    ram = disp.text(text)
    reading = decode(ram, kind)
    assert len(reading.cells) == 4
    assert disp.text(reading.text) == ram, (text, reading.text)


def _canonical(kind):
    """Text made of 4 cells that read back as themselves."""
    if kind == "seg7":
        chars = "".join(segments._SEG7_GLYPHS)
    else:
        chars = "".join(sorted(set(segments._SEG14_READS.values()) - {"!", "?"}))
    cell = st.tuples(st.sampled_from(chars), st.booleans()).map(lambda t: t[0] + "." * t[1])
    return st.tuples(st.lists(cell, min_size=4, max_size=4), st.booleans())


@settings(max_examples=1000, deadline=None)
@given(st.data())
def test_canonical_text_reads_back_exactly(data):
    kind = data.draw(st.sampled_from(["seg7", "seg14"]))
    cells, colon = data.draw(_canonical(kind))
    if kind == "seg7" and colon:
        cells.insert(2, ":")
    text = "".join(cells)
    assert decode(KIND[kind].text(text), kind).text == text

"""firmware/ht16k33.py against Adafruit's adafruit_ht16k33.segments, byte for byte (CPython).

Both drivers talk to the same fake bus, which behaves like HT16K33 chips: a write whose
first byte is below 0x10 lands in display RAM from that address on, 0x2X sets the
oscillator, 0x8X the display/blink, 0xEX the brightness. Adafruit's side is always
fill(0) then print(text) then show(), so its visible result after scrolling the text
through is what ours must equal, for every length.

Deliberate differences, each asserted below so they stay deliberate:
- init order: ours sends brightness before display-on (no flash at full brightness);
  Adafruit sends display-on first. Same bytes, same final chip state.
- Adafruit lower()s characters for Seg7x4, so the Kelvin sign U+212A shows 'k' (a '-');
  ours reads only ASCII codes and shows every non-ASCII character blank.
"""

import pytest

pytest.importorskip("adafruit_ht16k33")
from adafruit_ht16k33 import segments as ada  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from host_tools import firmware_path  # noqa: E402

firmware_path()
import ht16k33_text as ht16k33  # noqa: E402  (the driver with its text methods)


class Chip:
    def __init__(self):
        self.ram = bytearray(16)
        self.osc = False
        self.on = False
        self.blink = 0
        self.brightness = 15  # HT16K33 power-on dimming is 16/16

    def state(self):
        return bytes(self.ram), self.osc, self.on, self.blink, self.brightness


class FakeBus:
    """What adafruit_bus_device.I2CDevice and our driver call, with HT16K33 chips behind it."""

    def __init__(self, addrs=(0x70,)):
        self.chips = {a: Chip() for a in addrs}
        self.log = []  # (addr, bytes) of every non-empty write
        self.locked = False

    def try_lock(self):
        if self.locked:
            return False
        self.locked = True
        return True

    def unlock(self):
        self.locked = False

    def scan(self):
        return sorted(self.chips)

    def readfrom_into(self, addr, buf, *, start=0, end=None):
        if addr not in self.chips:
            raise OSError(19)

    def writeto(self, addr, buf, *, start=0, end=None):
        if addr not in self.chips:
            raise OSError(19)
        data = bytes(buf)[start:end]
        if not data:  # I2CDevice's probe
            return 0
        self.log.append((addr, data))
        chip = self.chips[addr]
        cmd = data[0]
        if cmd < 0x10:
            for i, b in enumerate(data[1:]):
                chip.ram[(cmd + i) % 16] = b
        elif cmd & 0xF0 == 0x20:
            chip.osc = bool(cmd & 1)
        elif cmd & 0xF0 == 0x80:
            chip.on = bool(cmd & 1)
            chip.blink = (cmd >> 1) & 3
        elif cmd & 0xF0 == 0xE0:
            chip.brightness = cmd & 0x0F
        else:
            raise AssertionError("unexpected command 0x%02x" % cmd)
        return len(data)

    def take(self):
        log, self.log = self.log, []
        return log


KINDS = {"seg7": (ada.Seg7x4, ht16k33.Seg7x4), "seg14": (ada.Seg14x4, ht16k33.Seg14x4)}


class Pair:
    """An Adafruit display and ours, each on its own fake bus, both initialised."""

    def __init__(self, kind):
        ada_cls, our_cls = KINDS[kind]
        self.ada_bus, self.our_bus = FakeBus(), FakeBus()
        self.ada = ada_cls(self.ada_bus, auto_write=False)
        self.ours = our_cls(self.our_bus)
        self.ours.show()
        self.ada_bus.take()
        self.our_bus.take()

    def ada_ram(self, text):
        self.ada.fill(0)
        self.ada.print(text)
        self.ada.show()
        return bytes(self.ada_bus.chips[0x70].ram)

    def our_ram(self, text):
        self.ours.set_text(text)
        self.ours.show()
        return bytes(self.our_bus.chips[0x70].ram)

    def check(self, text):
        assert self.our_ram(text) == self.ada_ram(text), repr(text)

    def check_number(self, n, text, **kw):
        self.ours.set_number(n, **kw)
        self.ours.show()
        ours = bytes(self.our_bus.chips[0x70].ram)
        assert ours == self.ada_ram(text), (n, kw, text)


PAIRS = {"seg7": Pair("seg7"), "seg14": Pair("seg14")}


@pytest.fixture(params=["seg7", "seg14"])
def pair(request):
    return PAIRS[request.param]


@pytest.fixture
def seg7():
    return PAIRS["seg7"]


@pytest.fixture
def seg14():
    return PAIRS["seg14"]


# ---- commands ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["seg7", "seg14"])
def test_init_sequence(kind):
    ada_cls, our_cls = KINDS[kind]
    ada_bus, our_bus = FakeBus(), FakeBus()
    ada_cls(ada_bus)  # auto_write=True: clears RAM, then oscillator, display on, brightness
    our_cls(our_bus).show()
    ada_writes, our_writes = ada_bus.take(), our_bus.take()
    assert [w for _, w in ada_writes] == [b"\x00" * 17, b"\x21", b"\x81", b"\xef"]
    assert [w for _, w in our_writes] == [b"\x00" * 17, b"\x21", b"\xef", b"\x81"]
    assert sorted(our_writes) == sorted(ada_writes)
    assert our_bus.chips[0x70].state() == ada_bus.chips[0x70].state()


@pytest.mark.parametrize("level", range(16))
def test_brightness_commands(pair, level):
    pair.ours.set_brightness((level + 1) % 16)  # make sure the level really changes
    pair.ours.show()
    pair.our_bus.take()
    pair.ours.set_brightness(level)
    pair.ours.show()
    pair.ada.brightness = level / 15
    assert pair.our_bus.take() == pair.ada_bus.take() == [(0x70, bytes([0xE0 | level]))]


@pytest.mark.parametrize("rate", [1, 2, 3, 0])
def test_blink_commands(pair, rate):
    pair.ours.set_blink((rate + 1) % 4)
    pair.ours.show()
    pair.our_bus.take()
    pair.ours.set_blink(rate)
    pair.ours.show()
    pair.ada.blink_rate = rate
    assert pair.our_bus.take() == pair.ada_bus.take() == [(0x70, bytes([0x81 | rate << 1]))]


def test_one_write_of_17_bytes_per_change(pair):
    pair.ours.set_text("8.8.8.8.")
    pair.ours.show()
    pair.our_bus.take()
    pair.ours.set_text("1234")
    assert pair.ours.show() is True
    log = pair.our_bus.take()
    assert len(log) == 1 and len(log[0][1]) == 17
    pair.ours.set_text("1234")
    assert pair.ours.show() is False and pair.our_bus.take() == []


# ---- display RAM ---------------------------------------------------------------------

PRINTABLE = "".join(chr(c) for c in range(32, 127))


def test_blank(pair):
    for s in ("", " ", "    ", "        "):
        pair.check(s)


def test_all_numbers_as_text(pair):
    for n in range(-999, 10000):
        pair.check(str(n))
    for n in range(10000):
        pair.check("%04d" % n)


def test_set_number_matches_print(pair):
    for n in range(-999, 10000):
        pair.check_number(n, str(n))
    for d in (1, 2, 3):
        for n in range(-9999, 10000):
            digits = str(abs(n)).rjust(d + 1, "0")
            text = ("-" if n < 0 else "") + digits[:-d] + "." + digits[-d:]
            if len(text) - 1 > 4:  # the point takes no cell
                with pytest.raises(ValueError):
                    pair.ours.set_number(n, decimals=d)
                continue
            pair.check_number(n, text, decimals=d)
    for m in (2, 3, 4):
        for n in range(0, 10 ** (m - 1) + 3):
            pair.check_number(n, "%0*d" % (m, n), min_digits=m)
    pair.check_number(0, "", blank_zero=True)


def test_points_everywhere(pair):
    # every placement of points (and for seg7 a colon) around four digits
    import itertools

    for marks in itertools.product(("", ".", "..", ":", ".:", ":."), repeat=5):
        s = marks[0]
        for i, d in enumerate("1234"):
            s += d + marks[i + 1]
        pair.check(s)


def test_short_strings_exhaustively(pair):
    import itertools

    alphabet = "8. :-;"
    for n in range(1, 7):
        for chars in itertools.product(alphabet, repeat=n):
            pair.check("".join(chars))


def test_every_character_alone_and_in_pairs(pair):
    for c in range(256):
        pair.check(chr(c))
        pair.check(chr(c) + ".")
        pair.check("." + chr(c) + "..")
    for a in PRINTABLE:
        for b in PRINTABLE:
            pair.check(a + b)


def test_seven_segment_letters(seg7):
    for s in (
        "abcdefghijklmnopqrstuvwxyz",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "HELP",
        "Err ",
        "Go",
        "PLAY",
        "tIE",
        "rUn",
        "bAL",
        "End",
        "OFF",
        "-:--",
    ):
        for k in range(len(s)):
            seg7.check(s[k:])
            seg7.check(s[: k + 1])


def test_fourteen_segment_table(seg14):
    for i in range(0, len(PRINTABLE), 4):
        seg14.check(PRINTABLE[i : i + 4])
        seg14.check(PRINTABLE[i : i + 4] + ".")
    for c in PRINTABLE:
        seg14.check(c * 4)


def test_too_long_keeps_the_last_four_cells(pair):
    for s in ("12345", "1.2.3.4.5.6.", "SCRATCH", "12:345:678", PRINTABLE, "." * 9):
        pair.check(s)


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=255), max_size=14))
def test_random_text_seg7(text):
    PAIRS["seg7"].check(text)


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=255), max_size=14))
def test_random_text_seg14(text):
    PAIRS["seg14"].check(text)


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="0123456789.:;- ", max_size=10))
def test_random_numeric_text(text):
    PAIRS["seg7"].check(text)
    PAIRS["seg14"].check(text)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=PRINTABLE, max_size=8))
def test_bytes_same_as_str(text):
    for p in PAIRS.values():
        assert p.our_ram(text.encode()) == p.our_ram(text)


def test_colon_setter_matches_adafruit(seg7):
    seg7.ours.set_text("1234")
    seg7.ours.set_colon(True)
    seg7.ours.show()
    seg7.ada.fill(0)
    seg7.ada.print("1234")
    seg7.ada.colon = True
    seg7.ada.show()
    assert seg7.our_bus.chips[0x70].ram == seg7.ada_bus.chips[0x70].ram


def test_known_difference_non_ascii_lowercase(seg7):
    kelvin = "\u212a"
    assert seg7.our_ram(kelvin) == bytes(16)
    assert seg7.ada_ram(kelvin) == bytes([0, 0, 0, 0, 0, 0, 0, 0, 0x40]) + bytes(7)

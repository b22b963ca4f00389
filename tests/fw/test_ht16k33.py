"""ht16k33 driver: exact bytes on a fake bus. Runs under pytest and the MicroPython unix port."""

import sys

from fwtest import SkipTest, raises
from ht16k33_text import Seg7x4, Seg14x4

Z16 = b"\x00" * 16
INIT_7 = [b"\x00" + Z16, b"\x21", b"\xef", b"\x81"]  # frame, oscillator, brightness 15, on


class FakeI2C:
    """Records every (addr, bytes) write; addresses in `dead` raise OSError(errno)."""

    def __init__(self):
        self.writes = []
        self.dead = {}

    def writeto(self, addr, buf):
        if addr in self.dead:
            raise OSError(self.dead[addr])
        self.writes.append((addr, bytes(buf)))
        return len(buf)

    def take(self, addr=None):
        """The bytes written (to addr, or all as pairs) since the last take()."""
        w = self.writes
        self.writes = []
        if addr is None:
            return w
        for a, _ in w:
            assert a == addr, (a, addr)
        return [b for _, b in w]


def ready(cls=Seg7x4, addr=0x70):
    bus = FakeI2C()
    d = cls(bus, addr)
    assert d.show() is True
    bus.take()
    return bus, d


def frame7(d0=0, d1=0, colon=0, d2=0, d3=0):
    return bytes([0, d0, 0, d1, 0, colon, 0, d2, 0, d3]) + b"\x00" * 7


def text7(s):
    bus, d = ready()
    d.set_text(s)
    d.show()
    w = bus.take(0x70)
    return w[0] if w else b"\x00" + Z16


def test_constructor_does_not_touch_the_bus():
    bus = FakeI2C()
    Seg7x4(bus)
    Seg14x4(bus, addr=0x77)
    assert bus.writes == []


def test_init_bytes():
    bus = FakeI2C()
    d = Seg7x4(bus, addr=0x70)
    assert d.show() is True
    assert bus.take(0x70) == INIT_7
    assert d.show() is False
    assert bus.writes == []


def test_init_with_brightness_and_blink():
    bus = FakeI2C()
    d = Seg14x4(bus, addr=0x71, brightness=3, blink=Seg14x4.BLINK_1HZ)
    d.show()
    assert bus.take(0x71) == [b"\x00" + Z16, b"\x21", b"\xe3", b"\x85"]


def test_digits():
    assert text7("0123") == frame7(0x3F, 0x06, 0, 0x5B, 0x4F)
    assert text7("4567") == frame7(0x66, 0x6D, 0, 0x7D, 0x07)
    assert text7("89") == frame7(0, 0, 0, 0x7F, 0x6F)
    assert text7("12:34") == b"\x00\x06\x00\x5b\x00\x02\x00\x4f\x00\x66" + b"\x00" * 7


def test_signs_points_and_letters():
    assert text7("-12") == frame7(0, 0x40, 0, 0x06, 0x5B)
    assert text7("1.2.3.4.") == frame7(0x86, 0xDB, 0, 0xCF, 0xE6)
    assert text7(".5") == frame7(0, 0, 0, 0x80, 0x6D)
    assert text7("1..2") == frame7(0, 0x86, 0, 0x80, 0x5B)
    assert text7("HELP") == frame7(0x76, 0x79, 0, 0x38, 0x73)
    assert text7("help") == text7("HELP")
    assert text7("z") == frame7()  # no glyph: blank
    assert text7("12345") == frame7(0x5B, 0x4F, 0, 0x66, 0x6D)  # last four cells
    assert text7(b"12:34") == text7("12:34")


def test_colon_and_dp_setters():
    bus, d = ready()
    d.set_text("1234")
    d.set_colon(True)
    d.set_dp(1)
    d.show()
    assert bus.take(0x70) == [frame7(0x06, 0xDB, 0x02, 0x4F, 0x66)]
    d.set_colon(False)
    d.set_dp(1, False)
    d.show()
    assert bus.take(0x70) == [frame7(0x06, 0x5B, 0, 0x4F, 0x66)]
    raises(ValueError, d.set_dp, 4)
    d.set_text("12:34")
    d.set_text("1234")  # set_text owns the colon
    assert d.get_segments(0) == 0x06 and not d._frame[5]


def test_set_number():
    bus, d = ready()
    cases = [
        ((0,), frame7(0, 0, 0, 0, 0x3F)),
        ((42,), frame7(0, 0, 0, 0x66, 0x5B)),
        ((9999,), frame7(0x6F, 0x6F, 0, 0x6F, 0x6F)),
        ((-999,), frame7(0x40, 0x6F, 0, 0x6F, 0x6F)),
        ((125, 4, False, 2), frame7(0, 0x86, 0, 0x5B, 0x6D)),  # 1.25
        ((5, 4, False, 2), frame7(0, 0xBF, 0, 0x3F, 0x6D)),  # 0.05
        ((-5, 4, False, 1), frame7(0, 0x40, 0, 0xBF, 0x6D)),  # -0.5
        ((7, 4, False, 0, 3), frame7(0, 0x3F, 0, 0x3F, 0x07)),  # 007
        ((0, 4, True), frame7()),
    ]
    for args, want in cases:
        d.set_number(*args)
        d.show()
        assert bytes(d._frame) == want, (args, bytes(d._frame))
    e = raises(ValueError, d.set_number, 10000)
    assert "10000" in str(e)
    raises(ValueError, d.set_number, -1000)
    raises(ValueError, d.set_number, 100, 2)
    raises(ValueError, d.set_number, 1, 5)
    raises(TypeError, d.set_number, 1.5)
    assert bytes(d._frame) == frame7()  # a refused number changes nothing


def test_set_number_field_keeps_the_rest():
    bus, d = ready()
    d.set_text("P   ")
    d.set_colon(True)
    d.set_number(25, width=2)
    assert bytes(d._frame) == frame7(0x73, 0, 0x02, 0x5B, 0x6D)
    d.set_number(3, width=2, min_digits=2)
    assert bytes(d._frame) == frame7(0x73, 0, 0x02, 0x3F, 0x4F)


def test_seg14():
    bus, d = ready(Seg14x4, 0x72)
    d.set_text("AB:C")
    d.show()
    assert bus.take(0x72) == [b"\x00\xf7\x00\x8f\x12\x00\x12\x39\x00" + b"\x00" * 8]
    d.set_text("1.25")
    d.show()
    assert bus.take(0x72) == [b"\x00\x00\x00\x06\x40\xdb\x00\x69\x20" + b"\x00" * 8]
    d.set_text("!.")  # '!' uses the point itself, so '.' takes its own cell
    d.show()
    assert bus.take(0x72) == [b"\x00" + b"\x00" * 4 + b"\x06\x40\x00\x40" + b"\x00" * 8]
    d.set_segments(0, 0x7FFF)
    assert d.get_segments(0) == 0x7FFF
    d.set_number(-42)
    assert bytes(d._frame[1:9]) == b"\x00\x00\xc0\x00\xe6\x00\xdb\x00"


def test_blink():
    bus, d = ready()
    for rate, cmd in ((1, b"\x83"), (2, b"\x85"), (3, b"\x87"), (0, b"\x81")):
        d.set_blink(rate)
        assert d.show() is True
        assert bus.take(0x70) == [cmd]
    d.set_blink(Seg7x4.BLINK_OFF)  # unchanged: nothing to send
    assert d.show() is False
    raises(ValueError, d.set_blink, 4)
    raises(ValueError, d.set_blink, -1)


def test_brightness():
    bus, d = ready()
    for level in (0, 7, 15):
        d.set_brightness(level)
        d.show()
        assert bus.take(0x70) == [bytes([0xE0 | level])]
    d.set_brightness(15)
    assert d.show() is False


def test_bad_brightness():
    bus, d = ready()
    for bad in (-1, 16, 1.5):
        raises(ValueError, d.set_brightness, bad)
    raises(ValueError, Seg7x4, bus, 0x70, 16)
    assert d.show() is False


def test_bad_address():
    bus = FakeI2C()
    for bad in (0x6F, 0x78, 0x3C, -1):
        e = raises(ValueError, Seg7x4, bus, bad)
        assert hex(bad) in str(e), str(e)
    e = raises(ValueError, Seg14x4, bus, addr=0x78)
    assert "0x78" in str(e)
    assert bus.writes == []
    for good in range(0x70, 0x78):
        Seg14x4(bus, good)


def test_only_changed_chips_write_once():
    bus = FakeI2C()
    ds = [Seg7x4(bus, 0x70 + i) for i in range(8)]
    for d in ds:
        d.show()
    bus.take()
    for d in ds:
        d.set_number(0)
    ds[3].set_number(12)
    ds[3].set_text("12")  # same frame again
    wrote = [d.show() for d in ds]
    assert wrote == [True] * 8
    bus.take()
    ds[5].set_number(7)
    wrote = [d.show() for d in ds]
    assert wrote == [False] * 5 + [True, False, False]
    assert bus.take() == [(0x75, frame7(0, 0, 0, 0, 0x07))]
    ds[5].set_number(7)  # the same again: nothing to send
    assert [d.show() for d in ds] == [False] * 8
    assert bus.writes == []
    ds[5].set_number(8)
    ds[5].set_number(7)  # changed and changed back: the chip keeps no copy, so the frame goes again
    assert [d.show() for d in ds] == [False] * 5 + [True, False, False]
    assert bus.take() == [(0x75, frame7(0, 0, 0, 0, 0x07))]


def test_failing_bus_then_recovery():
    bus, d = ready()
    d.set_text("12")
    bus.dead[0x70] = 19  # ENODEV: chip unplugged
    e = raises(OSError, d.show)
    assert e.args[0] == 19
    bus.dead[0x70] = 110  # ETIMEDOUT
    assert raises(OSError, d.show).args[0] == 110
    assert bus.writes == []
    del bus.dead[0x70]
    d.set_text("13")
    assert d.show() is True  # the chip may have lost power: full init, current frame
    assert bus.take(0x70) == [frame7(0, 0, 0, 0x06, 0x4F), b"\x21", b"\xef", b"\x81"]
    assert d.show() is False


def test_failure_after_part_of_the_init():
    class FlakyI2C(FakeI2C):
        left = 2

        def writeto(self, addr, buf):
            if self.left == 0:
                raise OSError(5)
            self.left -= 1
            return FakeI2C.writeto(self, addr, buf)

    bus = FlakyI2C()
    d = Seg7x4(bus)
    assert raises(OSError, d.show).args[0] == 5
    assert bus.take(0x70) == INIT_7[:2]
    bus.left = -1
    assert d.show() is True
    assert bus.take(0x70) == INIT_7


def test_short_ack_count_is_an_error():
    class NackI2C(FakeI2C):
        def writeto(self, addr, buf):
            FakeI2C.writeto(self, addr, buf)
            return 3  # SoftI2C: the chip stopped acknowledging after 3 bytes

    bus = NackI2C()
    d = Seg7x4(bus)
    assert raises(OSError, d.show).args[0] == 5
    assert raises(OSError, d.show).args[0] == 5  # still dirty, still trying


def test_reinit():
    bus, d = ready()
    d.set_text("1")
    d.set_brightness(4)
    assert d.reinit() is True
    assert bus.take(0x70) == [frame7(0, 0, 0, 0, 0x06), b"\x21", b"\xe4", b"\x81"]
    assert d.show() is False


def test_clear():
    bus, d = ready()
    d.set_text("88:88")
    d.show()
    bus.take()
    d.clear()
    d.show()
    assert bus.take(0x70) == [b"\x00" + Z16]


class CountingI2C:
    """A fake bus that does not allocate: counts writes and keeps the last frame."""

    def __init__(self):
        self.count = 0
        self.last = bytearray(17)

    def writeto(self, addr, buf):
        self.count += 1
        last = self.last
        for i in range(len(buf)):
            last[i] = buf[i]
        return len(buf)


def _hot_path(d7, d14, texts):
    for s in texts:
        d7.set_text(s)
        d7.show()
        d14.set_text(s)
        d14.show()
    for n in (0, 7, 42, -5, 999, 9999, -999):
        d7.set_number(n)
        d7.show()
        d14.set_number(n, width=4, blank_zero=True)
        d14.show()
    d7.set_number(125, 4, False, 2)
    d7.set_number(5, width=3, min_digits=2, decimals=1)
    d7.set_dp(0)
    d7.set_colon(True)
    d7.show()
    d7.set_brightness(3)
    d7.set_blink(1)
    d7.show()


def test_no_allocation_on_set_and_show():
    if sys.implementation.name != "micropython":
        raise SkipTest("heap_lock needs MicroPython")
    import micropython

    bus = CountingI2C()
    d7 = Seg7x4(bus, 0x70)
    d14 = Seg14x4(bus, 0x71)
    texts = ("12:34", "1.2.3.4.", " -7", "HELP", "Go!.", "..", "", "12345678", b"9.9", "caf\xe9", "~`{}")
    _hot_path(d7, d14, texts)  # warm up outside the lock (first show() inits)
    d7.set_brightness(15)
    d7.set_blink(0)
    before = bus.count
    micropython.heap_lock()
    try:
        _hot_path(d7, d14, texts)
    finally:
        micropython.heap_unlock()
    assert bus.count > before + 20, bus.count - before
    assert bus.last[0] == 0x83  # the blink command was the last write


def test_set_number_in_a_left_field():
    """Two fields on one chip: innings in cells 0-1, the run in cells 2-3."""
    bus, d = ready()
    d.set_number(7, width=2, end=1)
    d.set_number(12, width=2)
    assert bytes(d._frame) == frame7(0, 0x07, 0, 0x06, 0x5B)
    d.set_number(23, width=2, end=1)
    assert bytes(d._frame) == frame7(0x5B, 0x4F, 0, 0x06, 0x5B)
    raises(ValueError, d.set_number, 123, 2, False, 0, 1, 1)  # does not fit
    raises(ValueError, d.set_number, 1, 3, False, 0, 1, 1)  # field leaves the chip
    assert bytes(d._frame) == frame7(0x5B, 0x4F, 0, 0x06, 0x5B)


def test_set_window_scrolls_without_slicing():
    bus, d = ready(Seg14x4, 0x71)
    ref = Seg14x4(FakeI2C(), 0x71)
    text = "KIM HO"
    for start in (-4, -1, 0, 2, 5, 6):
        d.set_window(text, start)
        shown = ""
        for k in range(4):
            i = start + k
            shown += text[i] if 0 <= i < len(text) else " "
        ref.set_text(shown)
        assert bytes(d._frame) == bytes(ref._frame), start


def test_standby_then_wake():
    bus, d = ready()
    d.set_text("12")
    d.show()
    bus.take()
    d.standby()
    assert bus.take(0x70) == [b"\x80", b"\x20"]  # display off, oscillator off
    assert d.show() is True  # the next show() sets the chip up again
    w = bus.take(0x70)
    assert w[1:] == [b"\x21", b"\xef", b"\x81"] and len(w[0]) == 17

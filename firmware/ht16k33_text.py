"""HT16K33 drivers with what only tools and tests use: text as Adafruit's print()
shows it, cells read back, a forced re-init, every argument checked (ValueError,
TypeError for a number that is not an int).

    from ht16k33_text import Seg7x4, Seg14x4      # ht16k33's classes, and these methods

Bytes and text rules equal Adafruit's print() on a cleared display (a test
checks them against adafruit-circuitpython-ht16k33). The board does not load
this module: its view writes numbers and windows of text (ht16k33.py).
"""

import ht16k33
from ht16k33names import COLON, DOT, LEVEL, NEED_BRIGHTNESS, RATE, SEMICOLON


def _check_range(what, value, low, high):
    if not isinstance(value, int) or not low <= value <= high:
        raise ValueError("%s %r not in %d..%d" % (what, value, low, high))


class _Text:
    # The checks, then ht16k33.Backpack's method (MicroPython's super() does not go on from
    # a mix-in to the driver's class).

    BLINK_OFF = 0  # set_blink's rates
    BLINK_2HZ = 1
    BLINK_1HZ = 2
    BLINK_HALF_HZ = 3

    def __init__(self, i2c, addr=0x70, brightness=15, blink=0):
        if not isinstance(addr, int) or not 0x70 <= addr <= 0x77:
            shown = hex(addr) if isinstance(addr, int) else repr(addr)
            raise ValueError("HT16K33 address %s not in 0x70..0x77" % shown)
        _check_range("brightness", brightness, 0, 15)
        _check_range("blink rate", blink, 0, 3)
        ht16k33.Backpack.__init__(self, i2c, addr, brightness, blink)

    def set_brightness(self, level):
        """Set the brightness, 0 (dimmest, still on) .. 15, sent by the next show()."""
        _check_range("brightness", level, 0, 15)
        if level != (self._state >> LEVEL) & 15:
            self._state = self._state & ~(15 << LEVEL) | level << LEVEL | NEED_BRIGHTNESS

    def set_blink(self, rate):
        _check_range("blink rate", rate, 0, 3)
        ht16k33.Backpack.set_blink(self, rate)

    def get_blink(self):
        """The blink rate set (0..3)."""
        return self._state >> RATE

    def set_dp(self, cell, on=True):
        self._check(cell)
        ht16k33.Backpack.set_dp(self, cell, on)

    def set_segments(self, cell, bits):
        self._check(cell)
        ht16k33.Backpack.set_segments(self, cell, bits)

    def _check(self, cell):
        _check_range("cell", cell, 0, 3)

    def set_number(self, n, width=4, blank_zero=False, decimals=0, min_digits=1, end=3):
        """set_number_at with its field and n checked (ValueError, TypeError) and blank_zero:
        True leaves the field blank for 0."""
        if not 1 <= width <= end + 1 or end > 3 or not 0 <= decimals <= 3 or not 1 <= min_digits <= 4:
            raise ValueError("bad width, end, decimals or min_digits")
        if not isinstance(n, int):
            raise TypeError("set_number needs an int")
        try:
            self._set_number(n, width, blank_zero, decimals, min_digits, end)
        except ValueError:  # the driver's says only the number
            raise ValueError("%d does not fit in %d cells" % (n, width)) from None

    def _set_number(self, n, width, blank_zero, decimals, min_digits, end):
        if blank_zero and n == 0:
            self.set_number_at(0, end, width, decimals, min_digits)  # its checks (an int, it fits)
            for cell in range(end + 1 - width, end + 1):
                self.set_segments(cell, 0)
            return
        self.set_number_at(n, end, width, decimals, min_digits)

    def reinit(self):
        """Send the full init sequence now (after the chip lost power); True or OSError."""
        self.set_bus(self._i2c)  # marks the chip for the whole init sequence
        return self.show()

    def clear(self):
        """Blank every cell, point and the colon."""
        for cell in range(4):
            self._put(cell, 0)
        if self.HAS_COLON:
            self.set_colon(False)

    def set_text(self, text):
        """Show text (str, bytes or bytearray), replacing every cell, point and the colon.

        Adafruit's print() on a cleared display, without allocating: the characters fill
        the cells from the right, so short text is right-aligned (pad with spaces to move
        it left). A '.' lights the point of the character before it; it takes a blank cell
        of its own when there is no such character, when that character is itself a '.'
        or already uses the point (14-segment '!' and '?'). On Seg7x4 ':' turns the colon
        on and ';' turns it off, the last one wins and neither takes a cell. Characters
        without a glyph show blank. Longer text keeps its LAST four cells, which is what
        Adafruit's print() leaves on the display after scrolling through it.
        """
        is_str = isinstance(text, str)
        dp = self.DP
        cell = 3
        i = len(text) - 1
        while cell >= 0 and i >= 0:
            c = ord(text[i]) if is_str else text[i]
            if self.HAS_COLON and (c == COLON or c == SEMICOLON):
                i -= 1
                continue
            if c == DOT:
                bits = dp
                j = self._previous(text, i, is_str)
                if j >= 0:
                    p = ord(text[j]) if is_str else text[j]
                    if p != DOT:
                        glyph = self._glyph(p)
                        if not glyph & dp:
                            bits |= glyph
                            i = j
            else:
                bits = self._glyph(c)
            self._put(cell, bits)
            cell -= 1
            i -= 1
        while cell >= 0:
            self._put(cell, 0)
            cell -= 1
        if self.HAS_COLON:
            on = False
            i = len(text) - 1
            while i >= 0:
                c = ord(text[i]) if is_str else text[i]
                if c == COLON or c == SEMICOLON:
                    on = c == COLON
                    break
                i -= 1
            self.set_colon(on)

    def _previous(self, text, i, is_str):
        # Index of the character before text[i] that takes a cell, or -1.
        i -= 1
        if self.HAS_COLON:
            while i >= 0:
                c = ord(text[i]) if is_str else text[i]
                if c != COLON and c != SEMICOLON:
                    break
                i -= 1
        return i

    def get_segments(self, cell):
        """The raw segment bits of cell 0..3 as they will be sent."""
        self._check(cell)
        i = 1 + 2 * cell + (cell & 2 if self.HAS_COLON else 0)  # where ht16k33's _put puts it
        return self._frame[i] | self._frame[i + 1] << 8


class Seg7x4(_Text, ht16k33.Seg7x4):
    pass


class Seg14x4(_Text, ht16k33.Seg14x4):
    pass

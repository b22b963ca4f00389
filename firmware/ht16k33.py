"""HT16K33 LED backpacks: 4-digit 7-segment (Seg7x4) and 14-segment (Seg14x4).

One object per chip, handed its bus. Setters change a 17-byte frame (byte 0 = RAM
address 0x00); show() alone uses the bus: one writeto() when a cell changed since the
chip last accepted the frame. Setters and show() do not allocate (except to raise). On
a bus error show() raises the OSError and redoes the full init at the next show(), so
a replugged chip comes back by itself; show(probe=True) asks a chip with nothing to
send whether it is still there (one command byte). What only tools and tests use (text as
Adafruit's print() shows it, reading cells back, a forced re-init, every argument
checked: address, brightness, blink rate, cell, set_number's field; set_brightness,
as the board sets its brightness once, when the chip is made) is in ht16k33_text.py, so the board keeps only this in RAM (its arguments come from a
checked board definition and configuration, and from the view, which keeps them in
range).

A chip keeps four attributes (a fifth would make every chip's attribute table 16 bytes
larger, 16 chips on the wall board): the bus, its address, the frame and `_state`, the
pending work (bits 0..3), the brightness (bits 4..7) and the blink rate (bits 8, 9)
(ht16k33names.py).
"""

from ht16k33names import FRAME_LEN, LEVEL, NEED_BLINK, NEED_BRIGHTNESS, NEED_FRAME, NEED_INIT, PENDING, RATE

try:
    from micropython import const
except ImportError:
    const = lambda x: x  # noqa: E731  (CPython)

_RAM = const(0x00)  # first display RAM address; byte 0 of every frame
_OSC_ON = const(0x21)
_DISPLAY_ON = const(0x81)  # | blink rate << 1
_BRIGHTNESS = const(0xE0)  # | level 0..15

_MINUS = const(0x2D)
_ZERO = const(0x30)
_EIO = const(5)

_COLON_BYTE = const(5)  # RAM 0x04 of the 7-segment backpacks
_COLON_BIT = const(0x02)

# Shared by every chip (one task draws at a time): a command byte, and set_number's
# field (width, decimals, min_digits, end) handed to its helpers without big call frames.
_CMD = bytearray(1)
_FIELD = bytearray(4)
_WIDTH = const(0)
_DECIMALS = const(1)
_MIN_DIGITS = const(2)
_END = const(3)

# 7-segment glyphs for ASCII 32..127, bit 0 = segment a ... bit 6 = g (bit 7 is the
# point). Adafruit's set: digits, '-', letters a..y in either case (k, m, w, x are
# shown as '-'); every other character is blank.
_GLYPHS7 = (
    b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x40\x00\x00"  #  !"#$%&'()*+,-./
    b"\x3f\x06\x5b\x4f\x66\x6d\x7d\x07\x7f\x6f\x00\x00\x00\x00\x00\x00"  # 0123456789:;<=>?
    b"\x00\x77\x7c\x39\x5e\x79\x71\x3d\x76\x30\x1e\x40\x38\x40\x54\x5c"  # @ABCDEFGHIJKLMNO
    b"\x73\x67\x50\x6d\x78\x3e\x1c\x40\x40\x6e\x00\x00\x00\x00\x00\x00"  # PQRSTUVWXYZ[\]^_
    b"\x00\x77\x7c\x39\x5e\x79\x71\x3d\x76\x30\x1e\x40\x38\x40\x54\x5c"  # `abcdefghijklmno
    b"\x73\x67\x50\x6d\x78\x3e\x1c\x40\x40\x6e\x00\x00\x00\x00\x00\x00"  # pqrstuvwxyz{|}~DEL
)

# 14-segment glyphs for ASCII 32..127, two bytes each (low, high) as they sit in RAM:
# bits 0..13 = A B C D E F G1 G2 H J K L M N, bit 14 = point. Same data as Adafruit's
# table; note '!' and '?' use the point bit themselves.
_GLYPHS14 = (
    b"\x00\x00\x06\x40\x20\x02\xce\x12\xed\x12\x24\x0c\x5d\x23\x00\x04"  #  !"#$%&'
    b"\x00\x24\x00\x09\xc0\x3f\xc0\x12\x00\x08\xc0\x00\x00\x00\x00\x0c"  # ()*+,-./
    b"\x3f\x0c\x06\x00\xdb\x00\x8f\x00\xe6\x00\x69\x20\xfd\x00\x07\x00"  # 01234567
    b"\xff\x00\xef\x00\x00\x12\x00\x0a\x40\x24\xc8\x00\x80\x09\xa3\x60"  # 89:;<=>?
    b"\xbb\x02\xf7\x00\x8f\x12\x39\x00\x0f\x12\xf9\x00\x71\x00\xbd\x00"  # @ABCDEFG
    b"\xf6\x00\x00\x12\x1e\x00\x70\x24\x38\x00\x36\x05\x36\x21\x3f\x00"  # HIJKLMNO
    b"\xf3\x00\x3f\x20\xf3\x20\xed\x00\x01\x12\x3e\x00\x30\x0c\x36\x28"  # PQRSTUVW
    b"\x00\x2d\x00\x15\x09\x0c\x39\x00\x00\x21\x0f\x00\x03\x0c\x08\x00"  # XYZ[\]^_
    b"\x00\x01\x58\x10\x78\x20\xd8\x00\x8e\x08\x58\x08\x71\x00\x8e\x04"  # `abcdefg
    b"\x70\x10\x00\x10\x0e\x00\x00\x36\x30\x00\xd4\x10\x50\x10\xdc\x00"  # hijklmno
    b"\x70\x01\x86\x04\x50\x00\x88\x20\x78\x00\x1c\x00\x04\x20\x14\x28"  # pqrstuvw
    b"\xc0\x28\x0c\x20\x48\x08\x49\x09\x00\x12\x89\x24\x20\x05\xff\x3f"  # xyz{|}~DEL
)


class Backpack:
    """Frame and bus handling shared by Seg7x4 and Seg14x4 (ht16k33_text checks its arguments).
    It is the 14-segment alphanumeric backpack itself (Seg14x4 is this class: one class less
    in RAM): character k at RAM 2k (low byte) and 2k+1 (high byte), point = bit 14;
    Seg7x4 changes the layout."""

    DP = 0x4000  # point bit of a cell
    MASK = 0xFFFF  # all bits of a cell
    HAS_COLON = False

    def __init__(self, i2c, addr=0x70, brightness=15, blink=0):
        """addr 0x70..0x77, brightness 0..15, blink 0..3: not checked here (ht16k33_text's
        classes check them)."""
        self._i2c = i2c
        self.addr = addr
        self._frame = bytearray(FRAME_LEN)
        self._frame[0] = _RAM
        # nothing has reached the chip yet: the whole init is pending
        self._state = NEED_INIT | brightness << LEVEL | blink << RATE

    # ---- bus ----------------------------------------------------------------------

    def show(self, probe=False):
        """Send what changed since the last successful show(); return True if it wrote.

        Normally that is one 17-byte writeto(), or nothing: with `probe`, nothing is
        the brightness command once more instead (2 bytes on the bus with the address;
        it changes nothing on the chip), to learn whether the chip still answers (an
        unplugged one raises, as below). The first show() and the
        first one after a failure send the whole init sequence instead: frame, 0x21,
        0xE0|brightness, 0x81|blink<<1. An OSError from the bus (ENODEV, ETIMEDOUT,
        EIO; also EIO for a write that was not fully acknowledged) propagates after the
        chip is marked for that full init, so nothing is lost by retrying later.
        """
        # One method, its frame within the 11 words MicroPython keeps on the C stack
        # (a larger one would be a heap allocation at every show).
        try:
            if self._state & NEED_INIT:  # frame, oscillator on, then brightness and blink below
                self._write(self._frame)
                self._write(_OSC_ON)
                self._state = self._state & ~PENDING | NEED_BRIGHTNESS | NEED_BLINK
            elif not self._state & PENDING:
                if probe:
                    self._write(_BRIGHTNESS | (self._state >> LEVEL) & 15)
                return probe
            if self._state & NEED_BRIGHTNESS:
                self._write(_BRIGHTNESS | (self._state >> LEVEL) & 15)
                self._state &= ~NEED_BRIGHTNESS
            if self._state & NEED_BLINK:
                self._write(_DISPLAY_ON | self._state >> RATE << 1)
                self._state &= ~NEED_BLINK
            if self._state & NEED_FRAME:
                self._write(self._frame)
                self._state &= ~NEED_FRAME
            return True
        except OSError:
            self._state |= NEED_INIT
            raise

    def standby(self):
        """Display off and oscillator off (the chip's lowest current); the next show() wakes it."""
        self._write(_DISPLAY_ON & 0xFE)
        self._write(_OSC_ON & 0xFE)
        self._state |= NEED_INIT

    def set_bus(self, i2c):
        """Use a new bus object (the old one was re-created); the next show() re-inits."""
        self._i2c = i2c
        self._state |= NEED_INIT

    def _write(self, buf):
        """Send buf (a frame), or a command byte given as an int."""
        if isinstance(buf, int):
            _CMD[0] = buf
            buf = _CMD
        acks = self._i2c.writeto(self.addr, buf)
        # machine.I2C returns the number of acknowledged bytes; SoftI2C does not raise
        # when the chip stops acknowledging halfway.
        if acks is not None and acks < len(buf):
            raise OSError(_EIO)

    # ---- settings, sent by the next show() -----------------------------------------

    def set_blink(self, rate):
        """Blink the whole display: 0 off, 1 at 2 Hz, 2 at 1 Hz, 3 at 0.5 Hz (not checked here;
        ht16k33_text names them: BLINK_OFF...)."""
        if rate != self._state >> RATE:
            self._state = self._state & 255 | rate << RATE | NEED_BLINK

    # ---- frame --------------------------------------------------------------------

    def set_code(self, code):
        """Show "E nn", an error code (errorcodes.py: the table)."""
        self.set_window(b"E   ", 0)
        self.set_number_at(code % 1000, 3, 3)

    def set_number_at(self, n, end, width, decimals=0, min_digits=1):
        """Show the int n right-aligned in the `width` cells ending at cell `end` (0..3),
        without a string. decimals=d lights the point d digits from the right and adds
        zeros so a digit stands before it (125, decimals=2 shows 1.25; 5 shows 0.05);
        min_digits adds leading zeros (5, min_digits=3 shows 005). A minus sign takes a
        cell. Points inside the field are rewritten; cells left of it and the colon are not
        touched. ValueError, with the frame unchanged, if n needs more than `width` cells.
        The field is not checked (the view's come from a checked board definition):
        ht16k33_text's set_number checks it, for tools and tests."""
        _FIELD[_WIDTH] = width
        _FIELD[_DECIMALS] = decimals
        _FIELD[_MIN_DIGITS] = min_digits
        _FIELD[_END] = end
        self._number(n)

    def _number(self, n):
        mag = -n if n < 0 else n
        digits = 1
        cell = mag
        while cell >= 10:
            cell //= 10
            digits += 1
        if digits <= _FIELD[_DECIMALS]:  # a digit before the point
            digits = _FIELD[_DECIMALS] + 1
        if digits < _FIELD[_MIN_DIGITS]:
            digits = _FIELD[_MIN_DIGITS]
        if (digits + 1 if n < 0 else digits) > _FIELD[_WIDTH]:
            raise ValueError(n)  # ht16k33_text's set_number says more
        cell = _FIELD[_END]
        while digits:  # from the right; the point `decimals` digits from the right
            bits = self._glyph(_ZERO + mag % 10)
            if cell != _FIELD[_END] and _FIELD[_END] - cell == _FIELD[_DECIMALS]:
                bits |= self.DP
            self._put(cell, bits)
            mag //= 10
            cell -= 1
            digits -= 1
        if n < 0:
            bits = self._glyph(_MINUS)
            self._put(cell, bits)
            cell -= 1
        while cell > _FIELD[_END] - _FIELD[_WIDTH]:  # the field's cells left of the number: blank
            self._put(cell, 0)
            cell -= 1

    def set_window(self, text, start):
        """Show text[start:start + 4] in the four cells, blank outside the text, without
        slicing (a marquee moves `start`); points off, the colon untouched."""
        cell = 0
        while cell < 4:
            c = start + cell
            c = text[c] if 0 <= c < len(text) else 32  # a blank (no segment lit)
            if isinstance(c, str):
                c = ord(c)
            self._put(cell, self._glyph(c))
            cell += 1

    def set_dp(self, cell, on=True):
        """Light (or put out) the point of cell 0..3 (not checked here), counted from the left."""
        i = 1 + 2 * cell + (cell & 2 if self.HAS_COLON else 0)  # where _put puts it
        bits = self._frame[i] | self._frame[i + 1] << 8
        self._put(cell, bits | self.DP if on else bits & ~self.DP)

    def set_segments(self, cell, bits):
        """Set the raw segment bits of cell 0..3 (not checked here; point bit included)."""
        self._put(cell, bits & self.MASK)

    # A cell's bits in the frame, for both kinds: two bytes (low, high) from RAM 2 * cell,
    # the 7-segment cells' at RAM 0, 2, 6, 8 (the colon at 4; their high bytes stay 0).

    def _glyph(self, c):
        if not 32 <= c < 128:
            return 0
        if self.MASK == 0xFF:
            return _GLYPHS7[c - 32]
        c = 2 * (c - 32)
        return _GLYPHS14[c] | _GLYPHS14[c + 1] << 8

    def _put(self, cell, bits):
        frame = self._frame
        cell = 1 + 2 * cell + (cell & 2 if self.HAS_COLON else 0)
        if frame[cell] != bits & 0xFF or frame[cell + 1] != bits >> 8:
            frame[cell] = bits & 0xFF
            frame[cell + 1] = bits >> 8
            self._state |= NEED_FRAME


class Seg7x4(Backpack):
    """4-digit 7-segment backpack (Adafruit 0.56" and 1.2"): digits at RAM 0, 2, 6, 8,
    colon at RAM 4 bit 1, point = bit 7 of each digit."""

    DP = 0x80
    MASK = 0xFF
    HAS_COLON = True

    def set_colon(self, on=True):
        """Turn the middle colon on or off (other bits of RAM 4 are kept)."""
        frame = self._frame
        bits = frame[_COLON_BYTE] | _COLON_BIT if on else frame[_COLON_BYTE] & ~_COLON_BIT
        if bits != frame[_COLON_BYTE]:
            frame[_COLON_BYTE] = bits
            self._state |= NEED_FRAME


Seg14x4 = Backpack  # 4-character 14-segment alphanumeric backpack (see Backpack)

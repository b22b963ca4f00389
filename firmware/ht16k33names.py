"""The names of the HT16K33 drivers' codes that both halves read: the frame's length, a chip's
`_state` bits, the characters that share a cell with the one before.

ht16k33.py is the board's driver; ht16k33_text.py adds what only tools and tests use, on the
same chips' state. The codes both read have their one home here: each imports them, and the
build compiles them in (host_tools/consts.py), so that no board loads this module.
"""

try:
    from micropython import const
except ImportError:
    const = lambda x: x  # noqa: E731  (CPython)

FRAME_LEN = const(17)  # byte 0: RAM address 0x00, then 16 bytes of display RAM

# A chip's _state: the work pending (bits 0..3), the brightness (from LEVEL), the blink rate
# (from RATE).
NEED_INIT = const(1)
NEED_BRIGHTNESS = const(2)
NEED_BLINK = const(4)
NEED_FRAME = const(8)  # a cell changed since the frame was last sent
PENDING = const(15)  # the NEED_ bits
LEVEL = const(4)  # the brightness from this bit (4 bits)
RATE = const(8)  # and the blink rate from this one (2 bits)

# Characters drawn into the cell before them (Adafruit's print()).
DOT = const(0x2E)
COLON = const(0x3A)
SEMICOLON = const(0x3B)

"""The HT16K33's lines of a 7-segment backpack, as the firmware lays them out (for bigdigits.py).

lines()                   [Line(what, COM n, ROW n)]: each digit, the colon and each segment,
                          read from the firmware's own Seg7x4 (firmware/ht16k33.py)
digit_coms(), colon_line(), segment_rows()    the same, by kind
row_name(n), com_name(n)  the datasheet's names of a ROW and a COM (ROW0/A2, COM0/AD)
"""

from collections import namedtuple

from .. import firmware_path

Line = namedtuple("Line", "what com row")

SEGMENT_NAMES = "abcdefg"
ROW_ALIASES = {0: "ROW0/A2", 1: "ROW1/A1", 2: "ROW2/A0"}
COM_ALIASES = {0: "COM0/AD", 1: "COM1/KS0", 2: "COM2/KS1", 3: "COM3/KS2"}


def row_name(n):
    """The datasheet's name of ROW n: ROW0/A2, ROW3/K1, ROW15/K13/INT."""
    if n in ROW_ALIASES:
        return ROW_ALIASES[n]
    return "ROW%d/K%d" % (n, n - 2) + ("/INT" if n == 15 else "")


def com_name(n):
    return COM_ALIASES.get(n, "COM%d" % n)


def _ram_bit(before, after):
    """(RAM address, bit) of the one bit that differs between two frames (byte 0 is the command)."""
    diff = [(i - 1, before[i] ^ after[i]) for i in range(1, len(before)) if before[i] != after[i]]
    assert len(diff) == 1 and diff[0][1].bit_count() == 1, diff
    addr, mask = diff[0]
    return addr, mask.bit_length() - 1


def lines():
    """[Line(what, COM n, ROW n)] for digits 1-4 (segment a), the colon and segments a-g, dp of
    digit 1, read from the firmware's Seg7x4: RAM address 2n is COMn's ROW0-ROW7, bit k ROWk
    (the datasheet's RAM map). The firmware runs unchanged: this is where it puts each one."""
    firmware_path()
    import ht16k33

    def where(change):
        disp = ht16k33.Seg7x4(None)
        before = bytes(disp._frame)
        change(disp)
        addr, bit = _ram_bit(before, bytes(disp._frame))
        return addr // 2, bit + 8 * (addr % 2)

    out = []
    for cell in range(4):
        com, _ = where(lambda d, c=cell: d.set_segments(c, 1))
        out.append(Line("digit %d" % (cell + 1), com, None))
    com, row = where(lambda d: d.set_colon(True))
    out.append(Line("colon", com, row))
    for k in range(8):
        _, row = where(lambda d, b=k: d.set_segments(0, 1 << b))
        out.append(Line("segment %s" % (SEGMENT_NAMES[k] if k < 7 else "dp"), None, row))
    return out


def digit_coms():
    return [ln.com for ln in lines() if ln.what.startswith("digit")]


def colon_line():
    return next(ln for ln in lines() if ln.what == "colon")


def segment_rows():
    return [ln.row for ln in lines() if ln.what.startswith("segment")]

"""Read HT16K33 display RAM the way a person reads the LEDs.

decode_seg7(ram) and decode_seg14(ram) take the 16 RAM bytes (or the driver's 17-byte
frame, whose byte 0 is the RAM address 0x00) of a 4-digit 7-segment or 14-segment
backpack and return a Reading: the text ("12:34", " 1.25", "  -5"), the colon, and one
Cell per position with its character, point and raw segment bits, so a web page can
draw the segments. A pattern no glyph uses reads as '?' (with Cell.known False).

The glyph tables here are written independently of firmware/ht16k33.py; the tests check
that driver -> decode -> driver gives the same RAM.
"""

from dataclasses import dataclass

SEG7_NAMES = ("a", "b", "c", "d", "e", "f", "g", "dp")
# Bit order of Adafruit's 14-segment backpacks: A top, B/C right, D bottom, E/F left,
# G1/G2 middle left/right, H top-left diagonal, J top centre, K top-right diagonal,
# L bottom-left diagonal, M bottom centre, N bottom-right diagonal, DP point.
SEG14_NAMES = ("A", "B", "C", "D", "E", "F", "G1", "G2", "H", "J", "K", "L", "M", "N", "DP")

SEG7_DP = 0x80
SEG14_DP = 0x4000
COLON_BIT = 0x02  # RAM 4 of the 7-segment backpacks; the 1.2" one also has 0x04, 0x08, 0x10

# What each character looks like, listed in order of preference: when two characters
# share a pattern the first one listed is how it reads.
_SEG7_GLYPHS = {
    " ": 0x00, "0": 0x3F, "1": 0x06, "2": 0x5B, "3": 0x4F, "4": 0x66, "5": 0x6D,
    "6": 0x7D, "7": 0x07, "8": 0x7F, "9": 0x6F, "-": 0x40,
    "A": 0x77, "b": 0x7C, "C": 0x39, "d": 0x5E, "E": 0x79, "F": 0x71, "G": 0x3D,
    "H": 0x76, "I": 0x30, "J": 0x1E, "L": 0x38, "n": 0x54, "o": 0x5C, "P": 0x73,
    "q": 0x67, "r": 0x50, "t": 0x78, "U": 0x3E, "v": 0x1C, "y": 0x6E,
}  # fmt: skip

# 14-segment patterns of ASCII 32..127, one 16-bit word per character.
_SEG14_WORDS = """
0000 4006 0220 12CE 12ED 0C24 235D 0400 2400 0900 3FC0 12C0 0800 00C0 0000 0C00
0C3F 0006 00DB 008F 00E6 2069 00FD 0007 00FF 00EF 1200 0A00 2440 00C8 0980 60A3
02BB 00F7 128F 0039 120F 00F9 0071 00BD 00F6 1200 001E 2470 0038 0536 2136 003F
00F3 203F 20F3 00ED 1201 003E 0C30 2836 2D00 1500 0C09 0039 2100 000F 0C03 0008
0100 1058 2078 00D8 088E 0858 0071 048E 1070 1000 000E 3600 0030 10D4 1050 00DC
0170 0486 0050 2088 0078 001C 2004 2814 28C0 200C 0848 0949 1200 2489 0520 3FFF
""".split()
_SEG14_GLYPHS = {chr(32 + i): int(w, 16) for i, w in enumerate(_SEG14_WORDS)}
_PREFERENCE = " 0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" + "".join(
    chr(c) for c in range(33, 128) if not chr(c).isalnum()
)


def _reverse(glyphs, order):
    out = {}
    for ch in order:
        if ch in glyphs:
            out.setdefault(glyphs[ch], ch)
    return out


_SEG7_READS = _reverse(_SEG7_GLYPHS, list(_SEG7_GLYPHS))
_SEG14_READS = _reverse(_SEG14_GLYPHS, _PREFERENCE)
_SEG14_READS.pop(0x3FFF)  # DEL lights everything: read it as unknown rather than invent a char


@dataclass(frozen=True)
class Cell:
    """One character position: what it reads as and which segments are lit."""

    char: str  # one character; ' ' when blank, '?' when the pattern is unknown
    dp: bool  # the point after the character is lit
    bits: int  # raw segment bits as in RAM, point bit included
    known: bool  # False when char is '?' because no glyph has this pattern
    names: tuple  # the lit segments, names from SEG7_NAMES or SEG14_NAMES

    def as_dict(self):
        return {"char": self.char, "dp": self.dp, "bits": self.bits, "known": self.known, "segments": list(self.names)}


@dataclass(frozen=True)
class Reading:
    kind: str  # "seg7" or "seg14"
    text: str  # what a person reads: 4 characters, a '.' after each lit point, ':' if on
    cells: tuple  # four Cell, left to right
    colon: bool  # 7-segment middle colon (always False for seg14)
    extra: int  # 7-segment RAM 4 without the colon bit (the 1.2" side dots), else 0

    def as_dict(self):
        return {
            "kind": self.kind,
            "text": self.text,
            "colon": self.colon,
            "extra": self.extra,
            "cells": [c.as_dict() for c in self.cells],
        }


def _ram(data):
    data = bytes(data)
    if len(data) == 17 and data[0] == 0:
        data = data[1:]
    if len(data) != 16:
        raise ValueError("need 16 bytes of display RAM (or a 17-byte frame starting with 0x00), got %d" % len(data))
    return data


def _names(bits, table):
    return tuple(name for i, name in enumerate(table) if bits >> i & 1)


def _cell(bits, dp_bit, reads, table):
    if bits in reads:  # the point is part of the glyph itself (none does on seg7)
        base, dp = bits, False
        if bits & dp_bit and (bits & ~dp_bit) in reads:
            base, dp = bits & ~dp_bit, True  # e.g. '!' on seg14 reads as "1."
    else:
        base, dp = bits & ~dp_bit, bool(bits & dp_bit)
    char = reads.get(base)
    return Cell(char if char is not None else "?", dp, bits, char is not None, _names(bits, table))


def _text(cells, colon_after=None):
    out = []
    for i, c in enumerate(cells):
        out.append(c.char + ("." if c.dp else ""))
        if i == colon_after:
            out.append(":")
    return "".join(out)


def decode_seg7(ram):
    """Read a 4-digit 7-segment backpack: digits at RAM 0, 2, 6, 8, colon at RAM 4."""
    ram = _ram(ram)
    cells = tuple(_cell(ram[pos], SEG7_DP, _SEG7_READS, SEG7_NAMES) for pos in (0, 2, 6, 8))
    colon = bool(ram[4] & COLON_BIT)
    return Reading("seg7", _text(cells, 1 if colon else None), cells, colon, ram[4] & ~COLON_BIT)


def decode_seg14(ram):
    """Read a 4-character 14-segment backpack: character k at RAM 2k (low), 2k+1 (high)."""
    ram = _ram(ram)
    cells = tuple(_cell(ram[2 * k] | ram[2 * k + 1] << 8, SEG14_DP, _SEG14_READS, SEG14_NAMES) for k in range(4))
    return Reading("seg14", _text(cells), cells, False, 0)


def decode(ram, kind):
    """decode_seg7 or decode_seg14 by name ("seg7" / "seg14")."""
    if kind == "seg7":
        return decode_seg7(ram)
    if kind == "seg14":
        return decode_seg14(ram)
    raise ValueError("unknown display kind %r (seg7 or seg14)" % (kind,))

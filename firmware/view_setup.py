"""The view's tables from a board definition, and names as display text.

Loaded by view.View when it is made and at each new match, then dropped
(cold.py): a running board keeps only the drawing code in RAM.

FIELDS and LEDS are what a board definition can show (boarddef.py checks
definitions against them); a field's code is its index here.
"""

from array import array

import rules
from errorcodes import ERROR_CHIP
from viewnames import STALE

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_CELLS = const(4)  # a name display's characters
_SCROLL_NEW = const(-1)  # view._scroll_at: the names' marquees start at the next render

PLAYER_FIELDS = ("score", "innings", "run", "high_run", "average", "name", "target")
SHARED_FIELDS = ("target", "countdown", "sets", "clock", "message")
FIELDS = tuple("A." + f for f in PLAYER_FIELDS) + tuple("B." + f for f in PLAYER_FIELDS) + SHARED_FIELDS
LEDS = ("A.turn", "B.turn", "A.spot", "B.spot", "equalizing")
_MESSAGE_FIELDS = ("message", "clock", "target")  # where error codes go, the first a board has

# Letters with accents shown as their base letter (names are ASCII on the displays), both
# cases (MicroPython's upper() knows only ASCII). Kept as two long strings and looked up with
# find(): iterating a str would intern every character as a qstr, in RAM for good.
_ACCENTED = "ÁÀÂÄÅÃáàâäåãÇçÉÈÊËéèêëÍÌÎÏíìîïÑñÓÒÔÖŐÕØóòôöőõøÚÙÛÜŰúùûüűÝýß"
_PLAIN = b"AAAAAAAAAAAACCEEEEEEEEIIIIIIIINNOOOOOOOOOOOOOOUUUUUUUUUUYYS"  # ß is SS


def display_text(text):
    """Upper-case ASCII bytes for the 14-segment displays; accents dropped, "?" for a
    character with no glyph."""
    out = bytearray()
    data = text.encode()
    i = 0
    while i < len(data):
        c = data[i]
        n = 1 if c < 0x80 else 2 if c < 0xE0 else 3 if c < 0xF0 else 4  # its UTF-8 length
        if n == 1:
            out.append(c - 32 if 97 <= c <= 122 else c if 32 <= c < 127 else 63)
        else:
            k = _ACCENTED.find(data[i : i + n].decode())
            out.append(_PLAIN[k] if k >= 0 else 63)
            if k == len(_PLAIN) - 1:
                out.append(_PLAIN[k])
        i += n
    return bytes(out)


def init(v, board, chips, leds, match):
    """View.__init__: fill view v's tables: its slots (display, field code, width, last
    cell), error codes of dead chips, blinking and retry state, the LEDs (each driven
    off); then the names; every slot to be drawn at the first render."""
    v.m = match
    v.chips = chips
    v.error = 0  # an error code the app wants shown (0: none)
    v.names = [b"", b"", b"", b""]  # A's and B's text shown, then their short forms
    displays = board["displays"]
    n = 0
    for d in displays:
        n += len(d["show"])
    v._disp = bytearray(n)
    v._field = bytearray(n)
    v._width = bytearray(n)
    v._end = bytearray(n)
    i = 0
    for k, d in enumerate(displays):
        for part in d["show"]:
            v._disp[i] = k
            v._field[i] = FIELDS.index(part["field"])
            v._width[i] = part["width"]
            v._end[i] = part["at"] + part["width"] - 1
            i += 1
    v._code = bytearray(len(displays))  # error code of a dead chip: 70..77, 80..87 on bus 1
    for k, d in enumerate(displays):
        v._code[k] = ERROR_CHIP + 10 * d.get("bus", 0) + (d["addr"] & 7)
    v._nslots = n
    v._blink = bytearray(len(displays))
    v._last = array("i", [STALE] * n)  # each slot's value when it was last drawn (View.invalidate)
    v._error_shown = 0
    v.failed = bytearray(len(displays))
    v._retry_at = array(
        "i", [0] * len(displays)
    )  # a dead chip's next try; a live one's last write (its period's start)
    v._leds = [leds.get(name) for name in LEDS]
    v._led_on = bytearray(len(LEDS))
    v._active_low = bytearray(len(LEDS))
    board_leds = board.get("leds") or {}
    for k, name in enumerate(LEDS):
        if name in board_leds:
            v._active_low[k] = 1 if board_leds[name]["active_low"] else 0
    for k, pin in enumerate(v._leds):  # off (View.render writes a pin only when it changes)
        if pin is not None:
            pin.value(v._active_low[k])
    v._turn_dp = v._leds[0] is None  # no turn LEDs: a point on the score shows the turn
    v.message_chip = -1  # where error codes go: the message chip, else the clock, else the target
    for name in _MESSAGE_FIELDS:
        code = FIELDS.index(name)
        for s in range(n):
            if v._field[s] == code and v.message_chip < 0:
                v.message_chip = v._disp[s]
    names(v)


def names(v):
    """The name marquees of v's match: name and club, in capitals without accents, and
    their short forms (short_name), the marquees to run once from the next render (the
    view then puts the short form in the name's place); and the
    format matches' half of the view when the match has sets, a shoot-out
    or a warm-up (formats_wall.py: it stays in RAM with the match, as formats.py does)."""
    m = v.m
    v.fmt = None  # first: short of memory below, the plain view still draws the match
    if m.fmt is not None:
        import formats_wall

        v.fmt = formats_wall
    given = [m.names[p] or ("PLAYER A", "PLAYER B")[p] for p in (rules.A, rules.B)]
    for p in (rules.A, rules.B):
        text = given[p] + " - " + m.clubs[p] if m.clubs[p] else given[p]
        v.names[p] = display_text(text)
        v.names[p + 2] = short_name(given[p], given[1 - p]) if len(v.names[p]) > _CELLS else v.names[p]
    v._scroll_at = _SCROLL_NEW


def short_name(name, other, cells=_CELLS):
    """What a name display shows once the name has run by: the surname (the name's last
    word: names are written given name first), cut to `cells`; "Dick Jaspers" -> JASP,
    "PLAYER A" -> A. When the other player's would be the same, the initial of the first
    word before it: "Jan Smit" and "Piet Smit" -> JSMI and PSMI. Capitals without accents."""
    words = display_text(name).split()
    if not words:
        return b""
    short = words[-1][:cells]
    theirs = display_text(other).split()
    if len(words) > 1 and theirs and theirs[-1][:cells] == short:
        short = words[0][:1] + words[-1][: cells - 1]
    return short

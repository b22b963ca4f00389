"""What to buy for one 4-digit display of big digits and its buffer stage (for bigdigits.py).

parts_list(design)        [Part]: example parts and rough prices, from the design's figures
"""

from collections import namedtuple

from . import parts
from .bigdigits import DESIGN, family, ohm_text, psu_example, resistors, supply
from .bigdigits_lines import digit_coms

Part = namedtuple("Part", "key what example price qty note")


def _resistor(key, what, ohm, qty, note):
    """A resistor's Part of value `ohm`: the catalogue's resistor (parts.py), its maker's code for it."""
    catalogued = parts.PARTS["resistor-led"]
    return Part(key, what, catalogued.example.format(code=parts.resistor_code(ohm)), catalogued.price, qty, note)


def parts_list(design=DESIGN):
    """[Part] for one 4-digit display of big digits and its buffer stage."""
    seg, dp, colon = resistors(design)
    fam = family(design)
    backpack = parts.PARTS["seg7-1.2"]
    out = [
        Part(
            "digit",
            '7-segment digit, 2.3" (57 mm), common cathode, red, %d LEDs in series per segment' % design.segment_leds,
            "Kingbright SC23-12SRWA",
            3.5,
            4,
            "read its datasheet: the segment's forward voltage over about 2 V is its LEDs in series",
        ),
        Part(
            "ht16k33",
            backpack.what + ", its display left off",
            backpack.example,
            backpack.price,
            1,
            'the HT16K33 of the display, as on the wall board: "+" on 5 V, IO on 3.3 V; its 1.2" '
            "display serves to test it first",
        ),
        Part(
            "buffer-row",
            "%s541, octal buffer (the segment lines, ROW0-ROW7)" % fam,
            "Texas Instruments SN%s541N" % fam,
            0.6,
            1,
            "",
        ),
        Part(
            "buffer-com",
            "%s540, octal inverting buffer (the digit lines, COM0-COM4)" % fam,
            "Texas Instruments SN%s540N" % fam,
            0.6,
            1,
            "5 of its 8 used",
        ),
        Part(
            "source",
            "TBD62783APG, 8-channel source driver (the segments' anodes from %g V)" % design.supply_v,
            "Toshiba TBD62783APG",
            1.5,
            1,
            "",
        ),
        Part(
            "sink",
            "ULN2803A, 8-channel Darlington sink (the digits' cathodes)",
            "Texas Instruments ULN2803AN",
            0.8,
            1,
            "5 of its 8 used",
        ),
        _resistor("r-seg", "resistor %s, %s (segments a-g)" % (ohm_text(seg.ohm), seg.rating), seg.ohm, 7, ""),
        _resistor("r-dp", "resistor %s, %s (the point)" % (ohm_text(dp.ohm), dp.rating), dp.ohm, 1, ""),
    ]
    if colon.ohm:
        out.append(
            _resistor(
                "r-colon",
                "resistor %s, %s (the colon, in series with its cathode)" % (ohm_text(colon.ohm), colon.rating),
                colon.ohm,
                1,
                "only with a colon",
            )
        )
    out += [
        _resistor(
            "r-pullup",
            "resistor %s (pull-ups, COM0-COM4, to the chip's VDD)" % ohm_text(design.com_pullup_ohm),
            design.com_pullup_ohm,
            len(digit_coms()) + 1,
            "",
        ),
        _resistor(
            "r-pulldown",
            "resistor %s (pull-downs, ROW3-ROW7)" % ohm_text(design.row_pulldown_ohm),
            design.row_pulldown_ohm,
            5,
            "none on ROW0-ROW2: see the warnings",
        ),
        _resistor(
            "r-bleed",
            "resistor %s (each segment line to ground)" % ohm_text(design.bleeder_ohm),
            design.bleeder_ohm,
            8,
            "",
        ),
        Part("c-ic", "capacitor 100 nF ceramic (one at each chip's supply pin)", "KEMET C320C104K5R5TA", 0.1, 4, ""),
        Part(
            "c-bulk",
            "capacitor 220 µF 25 V electrolytic (where the %g V enters the board)" % design.supply_v,
            "Panasonic EEU-FR1E221",
            0.3,
            1,
            "",
        ),
        Part(
            "sockets",
            "IC sockets: 2 × DIP-20, 2 × DIP-18",
            "any maker's turned-pin sockets",
            1.0,
            1,
            "the drivers can then be swapped",
        ),
        Part(
            "board",
            parts.PARTS["stripboard"].what.split(":")[0] + " (the stage)",
            parts.PARTS["stripboard"].example,
            parts.PARTS["stripboard"].price,
            1,
            "",
        ),
        Part(
            "cable",
            "ribbon cable, 16 ways (to the digits: 8 segments, 4 digits, the colon, spare)",
            "3M 3302/16",
            1.5,
            1,
            "a metre",
        ),
        Part(
            "psu",
            "power supply %g V, 2 A, 2.1 mm barrel plug (the LEDs)" % design.supply_v,
            psu_example(design),
            15.0,
            1,
            "one for up to %d such displays (see the supply)" % supply(design).displays_per_supply,
        ),
    ]
    return out

"""Bigger digits: 2.3" and larger 7-segment digits driven by the same HT16K33 and the same
firmware through a buffer stage, and which digit size reads at which distance.

    DESIGN                    the buffer stage as data (a Design: the LED supply, LEDs in series
                              per segment, the peak current, the resistors around the logic)
    FIGURES, SOURCES          each figure the arithmetic uses, with its source: a datasheet, a
                              maker's page, a rule of thumb, or an estimate made here (said so)
    parts_list(design)        what to buy for one 4-digit display: example parts, rough prices
    lines()                   each digit, the colon and each segment with its HT16K33 line, as
                              the firmware lays them out in the chip's RAM (firmware/ht16k33.py)
    share(kind), average_ma(), peak_for_ma()    the arithmetic of the 1/8 multiplex and the
                              16-step dimming
    string_ma(), resistors(), supply(), dissipation(), checks()   one LED string, the series
                              resistors, the 12 V supply, the heat in the drivers, the limits
    legible_m(), comfortable_m(), min_size_in()   digit height against reading distance
    schematic_svg(design)     the stage drawn by schemdraw from DESIGN (SVG)
    page_markdown(design)     docs/build/bigger-digits.md
    digit_size_markdown()     docs/build/digit-size.md
    write(out_dir)            all three (python -m host_tools.hardware.bigdigits OUT_DIR)

How the HT16K33 lights an LED (its datasheet, rev. 1.10): a ROW output sources, driven high
(VDD) in the slot of a COM whose RAM bit is 1 and open (Hi-z) otherwise; a COM output sinks,
driven low in its own slot of the 9-slot frame and open in the others. An LED from a ROW
(anode) to a COM (cathode) therefore lights when its ROW is high and its COM is low. Adafruit's
7-segment backpacks put the segments on ROW0-ROW7 and the digits on COM0, COM1, COM3, COM4
(the colon on COM2): common-cathode digits. The stage copies that AND with buffers: the ROW
side is active high and stays so (74HC541, then a source driver), the COM side is active low
and is inverted (pull-up, 74HC540) before the ULN2803A, whose inputs are active high.

Every function is pure: the same Design gives the same bytes.
"""

import math
import os
import sys
from collections import namedtuple

from .. import firmware_path
from . import parts, text

Figure = namedtuple("Figure", "value unit source note")
Design = namedtuple(
    "Design", "supply_v logic_v segment_leds point_leds colon_leds peak_ma com_pullup_ohm row_pulldown_ohm bleeder_ohm"
)
Part = namedtuple("Part", "key what example price qty note")
Line = namedtuple("Line", "what com row")

PRICE_DATE = parts.PRICE_DATE

# kind: datasheet (the maker of the chip or the display), maker (a board's maker), third party
# (named), rule of thumb (a trade's rule, named), estimated (here, with the reason beside it).
SOURCES = {
    "holtek": (
        "datasheet",
        (
            "Holtek, HT16K33 datasheet, rev. 1.10 (May 2011) and 1.20 (July 2017): block "
            'diagram ("Row driver output", "Common scan output", "Key scan output", '
            '"Device address source output"), Display Memory - RAM Structure, the LED '
            'drive mode waveforms ("1 Frame = 1056us*9 = 9.504ms"), Keyscan, Slave '
            'Addressing ("The slave address set is '
            'loaded into the HT16K33 at every frame"), Digital Dimming Data Input'
        ),
    ),
    "holtek-dc": (
        "datasheet",
        (
            "Holtek, HT16K33 datasheet: D.C. characteristics (ROW source 25 mA, COM sink "
            "200 mA, typical, at VDD 5 V; as also read by Adafruit's forum thread "
            '"HT16K33 Current Limits") and the operating voltage, 4.5-5.5 V'
        ),
    ),
    "adafruit-backpack": parts.SOURCES["adafruit-backpack"],
    "ti-uln2803a": (
        "datasheet",
        (
            "Texas Instruments, ULN2803A datasheet: 8 Darlington sinks, 50 V, 500 mA per "
            "output; VCE(sat) 0.9/1.0/1.2 V typical, 1.1/1.3/1.6 V maximum at "
            "100/200/350 mA; a 2.7 kOhm resistor in series with each input"
        ),
    ),
    "toshiba-tbd62783a": (
        "datasheet",
        (
            "Toshiba, TBD62783A datasheet (2016-05-11): 8-channel source type DMOS "
            "transistor array, VOUT 50 V max, IOUT -500 mA max for each channel, "
            "input voltage (output on) 2.0 V min, (output off) 0.6 V max"
        ),
    ),
    "hc-logic": (
        "datasheet",
        (
            "74HC540/74HC541 datasheets (e.g. Texas Instruments SN74HC540, SN74HC541): at "
            "VCC 4.5 V, VIH 3.15 V min, VIL 1.35 V max, VOH 3.98 V min at -4 mA; 74HCT: "
            "VIH 2.0 V, VIL 0.8 V"
        ),
    ),
    "displays": (
        "datasheet",
        (
            "red LED display datasheets: Kingbright ACSC03-41SURKWA (VF 1.85 V typical, "
            '2.35 V max at 10 mA for each LED) and a 0.56" display, SMA41056 (continuous '
            "25 mA per segment; peak 100 mA at 1/10 duty cycle, 0.1 ms pulse width)"
        ),
    ),
    "meanwell-gst25e": (
        "maker",
        (
            "Mean Well, GST25E datasheet: 25 W adapters, GST25E12-P1J 12 V 2.08 A, "
            "GST25E15-P1J 15 V 1.66 A, GST25E24-P1J 24 V 1.04 A"
        ),
    ),
    "sign-rule": (
        "rule of thumb",
        (
            "the sign makers' legibility rule: about 1 inch of letter height for "
            "each 30 ft of the farthest distance it can be read from (bright "
            "digits on a dark face read at least as well as printed letters)"
        ),
    ),
    "estimate": (
        "estimated",
        ("estimates made here, each with its reason beside it in host_tools/hardware/bigdigits.py"),
    ),
}


def _fig(value, unit, source, note=""):
    assert source in SOURCES, source
    return Figure(value, unit, source, note)


_HT = parts.CHIPS["ht16k33"]

FIGURES = {
    # the HT16K33's frame: 8 digit slots and a key-scan slot of 1056 us, a digit lit at most
    # 1024 us of its slot (16 us off on either side), in 16 steps
    "frame_us": _fig(9 * 1056, "µs", "holtek", "1 frame = 9 slots of 1056 µs: COM0-COM7 and the key scan"),
    "lit_us": _fig(
        1024, "µs", "holtek", "a digit's lit time in its slot at full brightness; 16 µs dark at either end of the slot"
    ),
    "gap_us": _fig(16, "µs", "holtek", "the dark time between two digits' lit times"),
    "coms": _fig(_HT["coms"].value, "", "holtek", "digits scanned in turn"),
    "dim_steps": _fig(
        _HT["dim_steps"].value, "", "holtek", "brightness level 0-15 lights (level + 1)/16 of a digit's lit time"
    ),
    "address_pulldown_ohm": _fig(
        39e3, "Ω", "holtek", 'on ROW0/A2, ROW1/A1, ROW2/A0 (Slave Addressing: "39KΩ*3"; A2~A0 read 0 when floating)'
    ),
    "vdd_min_v": _fig(4.5, "V", "holtek-dc", "the operating voltage's floor"),
    "vdd_max_v": _fig(5.5, "V", "holtek-dc", "the operating voltage's ceiling"),
    "row_ma": _fig(_HT["row_ma"].value, "mA", "holtek-dc", "a ROW output's source current"),
    # the drivers
    "uln_vce_typ": _fig(
        ((100, 0.9), (350, 1.2)),
        "(mA, V)",
        "ti-uln2803a",
        "VCE(sat), typical: a line through these two points, extended past 350 mA (estimated)",
    ),
    "uln_vce_max": _fig(((100, 1.1), (350, 1.6)), "(mA, V)", "ti-uln2803a", "VCE(sat), maximum: as above"),
    "uln_channel_ma": _fig(500, "mA", "ti-uln2803a", "a sink's rated current"),
    "uln_input_ohm": _fig(2700, "Ω", "ti-uln2803a", "in series with each input"),
    "uln_input_v": _fig(1.4, "V", "estimate", "two base-emitter drops behind the input resistor"),
    "tbd_channel_ma": _fig(500, "mA", "toshiba-tbd62783a", "a source's rated current"),
    "tbd_input_on_v": _fig(2.0, "V", "toshiba-tbd62783a", "input voltage (output on), min"),
    "tbd_input_off_v": _fig(0.6, "V", "toshiba-tbd62783a", "input voltage (output off), max"),
    "tbd_ron_ohm": _fig(
        5.0,
        "Ω",
        "estimate",
        "a DMOS source output's resistance, taken high; its datasheet's output-voltage table is the one to check",
    ),
    "driver_pd_mw": _fig(
        1000,
        "mW",
        "estimate",
        "what a DIP-18 driver may dissipate in still air at 25 °C, taken low (Toshiba gives 1.47 W for the TD62783APG)",
    ),
    "hc_vih_v": _fig(3.15, "V", "hc-logic", "74HC at VCC 4.5 V"),
    "hc_vil_v": _fig(1.35, "V", "hc-logic", "74HC at VCC 4.5 V"),
    "hct_vih_v": _fig(2.0, "V", "hc-logic", "74HCT"),
    "hct_vil_v": _fig(0.8, "V", "hc-logic", "74HCT"),
    "hc_voh_v": _fig(3.98, "V", "hc-logic", "at -4 mA, VCC 4.5 V"),
    "node_pf": _fig(30, "pF", "estimate", "a logic input and a few cm of wire on the board"),
    "diode_v": _fig(0.6, "V", "estimate", "the address jumper's diode"),
    # the LEDs
    "led_vf_v": _fig(1.85, "V", "displays", "one red LED at 10 mA, typical"),
    "led_vf_max_v": _fig(2.35, "V", "displays", "one red LED at 10 mA, maximum"),
    "led_vf_at_ma": _fig(10, "mA", "displays", "the current of those VF figures"),
    "led_rdyn_ohm": _fig(
        6.0, "Ω", "estimate", "how VF rises with current (the datasheets' I-V curves: some 0.3 V from 10 to 60 mA)"
    ),
    "led_dc_ma": _fig(25, "mA", "displays", "continuous current for each segment"),
    "led_pulse_ma": _fig(100, "mA", "displays", "peak current at 1/10 duty cycle and 0.1 ms pulses"),
    "led_pulse_us": _fig(100, "µs", "displays", "the pulse width of that rating"),
    # the supply
    "supply_a": _fig(
        {12.0: 2.08, 15.0: 1.66, 24.0: 1.04},
        "A",
        "meanwell-gst25e",
        "the rated output of a GST25E adapter, by its voltage",
    ),
    # reading distance
    "ft_per_inch": _fig(30, "ft", "sign-rule", "the farthest reading distance per inch of digit height"),
    "comfort": _fig(
        2 / 3.0,
        "",
        "estimate",
        "the share of that distance read at a glance, chosen here: "
        '20 ft per inch, so that 1.0" reads comfortably at 6 m',
    ),
}

# The stage for 2.3" digits. Every number on the page and in the picture follows from these.
DESIGN = Design(
    supply_v=12.0,  # the LED supply
    logic_v=5.0,  # the HT16K33's VDD (the 1.2" backpack's "+"), the 74HC540/541's VCC
    segment_leds=4,  # LEDs in series in a segment of a 2.3" digit (estimated: read the display's datasheet)
    point_leds=2,  # LEDs in the point (estimated, as above)
    colon_leds=2,  # the colon's two dots in series (two 5 mm LEDs, or the display's own)
    peak_ma=60.0,  # each string's peak: 8 strings on one digit = 480 mA, inside a ULN2803A output's 500 mA
    com_pullup_ohm=220e3,  # defines an idle COM (open) as high; weak, for the address jumpers' diodes
    row_pulldown_ohm=100e3,  # defines an idle ROW (open) as low, on ROW3-ROW7 only
    bleeder_ohm=10e3,  # each segment line to ground: the source driver's off-state leakage stays dark
)

E24 = (10, 11, 12, 13, 15, 16, 18, 20, 22, 24, 27, 30, 33, 36, 39, 43, 47, 51, 56, 62, 68, 75, 82, 91)
WIRE_PARTS = ("housing-5", "crimp")  # the backpack's 5-pin cable, as on the wall board (parts.py)


def fig(key):
    return FIGURES[key].value


def e24_at_least(ohm):
    """The E24 value at or above `ohm` (ohm > 0)."""
    decade = 10 ** math.floor(math.log10(ohm) - 1)
    for _ in range(3):
        for v in E24:
            if v * decade >= ohm * (1 - 1e-9):
                return v * decade
        decade *= 10
    raise ValueError(ohm)


def ohm_text(ohm):
    """A resistance as a reader wants it: 39 Ω, 4.7 kΩ, 220 kΩ."""
    if ohm >= 1e6:
        return "%g MΩ" % (ohm / 1e6)
    if ohm >= 1e3:
        return "%g kΩ" % round(ohm / 1e3, 3)
    return "%g Ω" % round(ohm, 1)


# ---- the chip's lines, as the firmware lays out a 7-segment backpack --------------------------

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


# ---- the multiplex ----------------------------------------------------------------------------


def share(kind="datasheet"):
    """The share of time one digit can be lit at full brightness: "rule" = 1/8 (eight digits in
    turn), "datasheet" = 1024 µs of each 9504 µs frame (the key-scan slot and the gaps)."""
    if kind == "rule":
        return 1.0 / fig("coms")
    return fig("lit_us") / float(fig("frame_us"))


def steps(level):
    """The sixteenths of a digit's lit time at brightness `level` 0-15 (the firmware's): level + 1."""
    if not 0 <= level <= fig("dim_steps") - 1:
        raise ValueError("brightness must be 0-15, not %r" % (level,))
    return level + 1


def average_ma(peak_ma, level=15, kind="datasheet"):
    """A string's average current: peak × share × n/16, n = level + 1."""
    return peak_ma * share(kind) * steps(level) / float(fig("dim_steps"))


def peak_for_ma(static_ma, level=15, kind="datasheet"):
    """The peak a string needs to look like `static_ma` lit steadily (the eye averages a
    flicker this fast: the Talbot-Plateau law)."""
    return static_ma / (share(kind) * steps(level) / float(fig("dim_steps")))


def pulse_us(level=15):
    """How long one lit pulse lasts at `level`."""
    return fig("lit_us") * steps(level) / float(fig("dim_steps"))


# ---- one LED string -----------------------------------------------------------------------------


def _line_fit(points):
    (x0, y0), (x1, y1) = points
    slope = (y1 - y0) / float(x1 - x0)  # V per mA
    return y0 - slope * x0, slope


def uln_vce(ma, which="typ"):
    """The ULN2803A's saturation voltage at `ma` (a line through the datasheet's points)."""
    a, b = _line_fit(fig("uln_vce_%s" % which))
    return a + b * ma


def led_vf(ma, which="typ"):
    """One LED's forward voltage at `ma`: the datasheet's VF at 10 mA plus the estimated rise."""
    base = fig("led_vf_v") if which == "typ" else fig("led_vf_max_v")
    return base + fig("led_rdyn_ohm") * (ma - fig("led_vf_at_ma")) / 1000.0


def string_ma(design, leds, ohm, lit=1, which="typ"):
    """The peak current (mA) in a string of `leds` LEDs through `ohm`, with `lit` strings sharing
    the digit's ULN2803A output: supply = I(R + Ron) + n VF(I) + VCE(lit × I), solved for I (every
    part a straight line in I). 0 when the supply cannot reach the LEDs' forward voltage."""
    a_vce, b_vce = _line_fit(fig("uln_vce_%s" % which))  # V, V/mA
    vf0 = (fig("led_vf_v") if which == "typ" else fig("led_vf_max_v")) - fig("led_rdyn_ohm") * fig(
        "led_vf_at_ma"
    ) / 1000.0
    headroom = design.supply_v - leds * vf0 - a_vce
    per_ma = (ohm + fig("tbd_ron_ohm") + leds * fig("led_rdyn_ohm")) / 1000.0 + lit * b_vce
    return max(0.0, headroom / per_ma)


def resistor_exact(design, leds, target_ma=None):
    """The resistance that gives `target_ma` (the design's peak) in a string of `leds` LEDs, lit
    alone on its digit (the ULN2803A's smallest drop: the highest current), typical parts."""
    i = design.peak_ma if target_ma is None else target_ma
    drop = design.supply_v - leds * led_vf(i) - uln_vce(i) - i * fig("tbd_ron_ohm") / 1000.0
    return drop / (i / 1000.0)


Resistor = namedtuple("Resistor", "what leds exact ohm ma_alone ma_full ma_worst watts rating")


def _rating(watts):
    for w, name in ((0.25, "1/4 W"), (0.5, "1/2 W"), (1.0, "1 W")):
        if watts <= w / 2.0:  # run at half its rating at most
            return name
    return "2 W"


def resistors(design):
    """One Resistor per kind of string: the segments (a-g), the point, and the colon's extra
    resistor (the colon hangs on segment b's line, ROW1, in its own slot, COM2: it gets segment
    b's resistor plus this one). For each: the E24 value at or above what the peak needs, the
    peak alone on its digit and with all 8 strings of the digit lit (typical parts), the worst
    (all lit, every LED at its maximum VF, the ULN2803A at its maximum drop), the watts it takes
    at full brightness with every digit lit, and the rating to buy."""
    out = []
    seg = None
    lit_full = 8  # seven segments and the point
    digits = len(digit_coms())  # a segment line is on in each digit's slot, segment b in the colon's too
    for what, leds, line_slots in (
        ("segments a-g", design.segment_leds, digits + 1),
        ("point (dp)", design.point_leds, digits),
        ("colon (extra)", design.colon_leds, 1),
    ):
        exact = resistor_exact(design, leds)
        if exact <= 0:
            raise ValueError(
                "%g V cannot light %d LEDs in series at %g mA (they need %.1f V and the drivers)"
                % (design.supply_v, leds, design.peak_ma, leds * led_vf(design.peak_ma))
            )
        if what.startswith("colon"):
            extra = max(0.0, exact - seg.ohm)
            ohm = e24_at_least(extra) if extra > 0.5 else 0
            total = seg.ohm + ohm
            alone = string_ma(design, leds, total, 1)
            full = alone  # the colon is alone in its slot
            worst = string_ma(design, leds, total, 1, "max")
            watts = (alone / 1000.0) ** 2 * ohm * share() if ohm else 0.0
            out.append(Resistor(what, leds, extra, ohm, alone, full, worst, watts, _rating(watts) if ohm else "-"))
            continue
        ohm = e24_at_least(exact)
        alone = string_ma(design, leds, ohm, 1)
        full = string_ma(design, leds, ohm, lit_full)
        worst = string_ma(design, leds, ohm, lit_full, "max")
        watts = (alone / 1000.0) ** 2 * ohm * share() * line_slots
        r = Resistor(what, leds, exact, ohm, alone, full, worst, watts, _rating(watts))
        if seg is None:
            seg = r
        out.append(r)
    return out


Supply = namedtuple("Supply", "peak_a average_a displays_per_supply")


def psu_amps(design):
    """The rated current of the GST25E adapter of the design's LED supply voltage."""
    try:
        return fig("supply_a")[design.supply_v]
    except KeyError:
        raise ValueError(
            "no %g V adapter in the catalogue (%s V)"
            % (design.supply_v, ", ".join("%g" % v for v in sorted(fig("supply_a"))))
        ) from None


def psu_example(design):
    return "Mean Well GST25E%02d-P1J" % design.supply_v


def supply(design, level=15):
    """One 4-digit display's draw from the LED supply: the peak (a digit with all 8 strings lit:
    one digit at a time), the average with every digit showing "8." and the colon lit at
    `level`, and how many such displays one GST25E adapter carries with parts.SUPPLY_MARGIN (their
    chips scan on their own clocks, so their peaks can meet)."""
    rs = resistors(design)
    seg, dp, colon = rs
    digit_ma = 7 * string_ma(design, design.segment_leds, seg.ohm, 8) + string_ma(design, design.point_leds, dp.ohm, 8)
    frame_ma = len(digit_coms()) * digit_ma + colon.ma_alone
    k = share() * steps(level) / float(fig("dim_steps"))
    peak = digit_ma / 1000.0
    n = int(psu_amps(design) / (peak * (1 + parts.SUPPLY_MARGIN)))
    return Supply(peak, frame_ma * k / 1000.0, n)


Heat = namedtuple("Heat", "uln_mw tbd_mw uln_channel_mw")


def dissipation(design):
    """The drivers' average heat at full brightness, every digit "8." and the colon lit: the
    ULN2803A (each digit's output at its drop for 8 strings, in its slot) and the TBD62783A
    (each string's current through its output's resistance, in every slot it is on)."""
    seg, dp, colon = resistors(design)
    i7 = string_ma(design, design.segment_leds, seg.ohm, 8)
    idp = string_ma(design, design.point_leds, dp.ohm, 8)
    digit_ma = 7 * i7 + idp
    s = share()
    channel = uln_vce(digit_ma) * digit_ma * s
    uln = len(digit_coms()) * channel + uln_vce(colon.ma_alone) * colon.ma_alone * s
    ron = fig("tbd_ron_ohm")
    slots = len(digit_coms())
    tbd_uw = ((7 * i7**2 + idp**2) * slots + colon.ma_alone**2) * ron * s  # mA² × Ω = µW
    return Heat(uln, tbd_uw / 1000.0, channel)


def family(design):
    """The buffers' logic family for the chip's VDD: 74HC at 5 V, 74HCT (TTL thresholds, still
    on 5 V) for a chip on 3.3 V."""
    return "74HC" if design.logic_v >= fig("vdd_min_v") else "74HCT"


def thresholds(design):
    """(VIH, VIL) of the buffers' inputs."""
    if family(design) == "74HC":
        return fig("hc_vih_v"), fig("hc_vil_v")
    return fig("hct_vih_v"), fig("hct_vil_v")


def address_leak_v(design):
    """The highest level an idle COM0 (held up by its pull-up) can put on ROW0-ROW2 through an
    address jumper's diode, against the chip's own 39 kΩ: it must read low at the buffer."""
    r = fig("address_pulldown_ohm")
    return (design.logic_v - fig("diode_v")) * r / (design.com_pullup_ohm + r)


def edge_us(design):
    """The time an idle COM (pull-up) or ROW (pull-down) takes to cross the buffer's threshold
    (0.69 RC, RC of the resistor and the node's capacitance): it must be well inside the
    datasheet's 16 µs gap between two digits."""
    r = max(design.com_pullup_ohm, design.row_pulldown_ohm)
    return 0.69 * r * fig("node_pf") * 1e-12 * 1e6


def checks(design):
    """The limits the design must keep, each (what, value, limit, ok)."""
    seg, dp, _ = resistors(design)
    digit_ma = 7 * seg.ma_full + dp.ma_full
    vih, vil = thresholds(design)
    heat = dissipation(design)
    out = [
        (
            "a digit's current in one ULN2803A output (8 strings lit)",
            "%.0f mA" % digit_ma,
            "%d mA" % fig("uln_channel_ma"),
            digit_ma <= fig("uln_channel_ma"),
        ),
        (
            "a string's peak against the LEDs' pulse rating (for %d µs pulses; ours last %.0f µs)"
            % (fig("led_pulse_us"), pulse_us()),
            "%.0f mA" % seg.ma_alone,
            "%d mA" % fig("led_pulse_ma"),
            seg.ma_alone <= fig("led_pulse_ma"),
        ),
        (
            "a string's average against the LEDs' continuous rating",
            "%.1f mA" % average_ma(seg.ma_alone),
            "%d mA" % fig("led_dc_ma"),
            average_ma(seg.ma_alone) <= fig("led_dc_ma"),
        ),
        (
            "the level an idle COM0 puts on ROW0-ROW2 through an address jumper",
            "%.2f V" % address_leak_v(design),
            "%.2f V (VIL)" % vil,
            address_leak_v(design) < vil,
        ),
        (
            "an idle line's edge (pull-up or pull-down and %d pF)" % fig("node_pf"),
            "%.1f µs" % edge_us(design),
            "%d µs (the gap)" % fig("gap_us"),
            edge_us(design) < fig("gap_us") / 2.0,
        ),
        (
            "a ROW's high (the chip's VDD) against the %s541's VIH" % family(design),
            "%g V" % design.logic_v,
            "%g V" % vih,
            design.logic_v >= vih,
        ),
        (
            "the ULN2803A's heat",
            "%.0f mW" % heat.uln_mw,
            "%d mW" % fig("driver_pd_mw"),
            heat.uln_mw <= fig("driver_pd_mw"),
        ),
        (
            "the TBD62783A's heat",
            "%.0f mW" % heat.tbd_mw,
            "%d mW" % fig("driver_pd_mw"),
            heat.tbd_mw <= fig("driver_pd_mw"),
        ),
    ]
    return out


# ---- the parts -----------------------------------------------------------------------------------


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
        Part(
            "r-seg",
            "resistor %s, %s (segments a-g)" % (ohm_text(seg.ohm), seg.rating),
            "Yageo CFR-25JB-52-%s" % parts.resistor_code(seg.ohm),
            0.05,
            7,
            "",
        ),
        Part(
            "r-dp",
            "resistor %s, %s (the point)" % (ohm_text(dp.ohm), dp.rating),
            "Yageo CFR-25JB-52-%s" % parts.resistor_code(dp.ohm),
            0.05,
            1,
            "",
        ),
    ]
    if colon.ohm:
        out.append(
            Part(
                "r-colon",
                "resistor %s, %s (the colon, in series with its cathode)" % (ohm_text(colon.ohm), colon.rating),
                "Yageo CFR-25JB-52-%s" % parts.resistor_code(colon.ohm),
                0.05,
                1,
                "only with a colon",
            )
        )
    out += [
        Part(
            "r-pullup",
            "resistor %s (pull-ups, COM0-COM4, to the chip's VDD)" % ohm_text(design.com_pullup_ohm),
            "Yageo CFR-25JB-52-%s" % parts.resistor_code(design.com_pullup_ohm),
            0.05,
            len(digit_coms()) + 1,
            "",
        ),
        Part(
            "r-pulldown",
            "resistor %s (pull-downs, ROW3-ROW7)" % ohm_text(design.row_pulldown_ohm),
            "Yageo CFR-25JB-52-%s" % parts.resistor_code(design.row_pulldown_ohm),
            0.05,
            5,
            "none on ROW0-ROW2: see the warnings",
        ),
        Part(
            "r-bleed",
            "resistor %s (each segment line to ground)" % ohm_text(design.bleeder_ohm),
            "Yageo CFR-25JB-52-%s" % parts.resistor_code(design.bleeder_ohm),
            0.05,
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


# ---- reading distance -----------------------------------------------------------------------------

FT_M = 0.3048
SIZES = (0.56, 1.0, 1.2, 2.3, 3.0, 4.0)  # digit heights on the market, inches
DISTANCES = (3, 4, 5, 6)  # metres from a carom table to the wall board


def legible_m(size_in):
    """The farthest distance a digit of `size_in` inches can be read from (the sign makers' rule)."""
    return size_in * fig("ft_per_inch") * FT_M


def comfortable_m(size_in):
    """The distance it reads from at a glance (the share chosen here of the farthest)."""
    return legible_m(size_in) * fig("comfort")


def min_size_in(distance_m, comfortable=True):
    """The smallest digit height (inches) for `distance_m`: read at a glance, or at all."""
    per_inch = fig("ft_per_inch") * FT_M * (fig("comfort") if comfortable else 1.0)
    return distance_m / per_inch


def _verdict(size_in, distance_m):
    if distance_m <= comfortable_m(size_in):
        return "comfortable"
    if distance_m <= legible_m(size_in):
        return "legible, not at a glance"
    return "too small"


def _drive(size_in):
    for key in ("seg7-0.56", "seg7-1.2"):
        p = parts.PARTS[key]
        if abs(float(key.split("-")[1]) - size_in) < 1e-9:
            n = p.figures["leds_per_segment"].value
            return "HT16K33 directly: %s, %d LED%s a segment" % (p.example.split(" (")[0], n, "s"[: n != 1])
    if size_in <= 1.2:
        return "HT16K33 directly, if its segments have 2 LEDs at most (no backpack of this size in the catalogue)"
    return "through the buffer stage ([bigger-digits.md](bigger-digits.md))"


# ---- the picture -----------------------------------------------------------------------------------


def schematic_svg(design=None):
    """The buffer stage, one segment line (ROW3/K1: segment d) and one digit line (COM0/AD:
    digit 1), drawn by schemdraw's SVG backend (text as <text>, no Matplotlib)."""
    import schemdraw
    import schemdraw.elements as elm
    from schemdraw import logic

    design = design or DESIGN
    seg = resistors(design)[0]
    fam = family(design)
    seg_row = segment_rows()[3]  # segment d: a ROW with no address role, so it has its pull-down
    digit_com = digit_coms()[0]
    col = colon_line()
    supply_label = "+%g V" % design.supply_v
    logic_label = "+%g V" % design.logic_v

    d = schemdraw.Drawing(canvas="svg", show=False)
    d.config(fontsize=12, unit=2.5, font="sans-serif", margin=0.4)
    # Every element is placed with an explicit direction: nothing inherits the last one's.
    ic = (
        elm.Ic(
            size=(3.2, 9.0),
            pins=[
                elm.IcPin(name="VDD", side="L", pos=0.9),
                elm.IcPin(name="SDA", side="L", pos=0.55),
                elm.IcPin(name="SCL", side="L", pos=0.45),
                elm.IcPin(name="VSS", side="L", pos=0.1),
                elm.IcPin(name=row_name(seg_row), side="R", pos=0.9, anchorname="ROW"),
                elm.IcPin(name=com_name(digit_com), side="R", pos=0.1, anchorname="COM"),
            ],
        )
        .at((0, 0))
        .right()
    )
    d += ic.label("HT16K33", loc="top").label('on the 1.2" backpack\n(its display off)', loc="bottom")
    d += elm.Line().left(0.75).at(ic.VDD)
    d += elm.Vdd().label(logic_label)
    d += elm.Line().left(0.75).at(ic.VSS)
    d += elm.Ground()
    d += elm.Line().left(3.0).at(ic.SDA).label("I2C, to the ESP32", loc="top")
    d += elm.Line().left(3.0).at(ic.SCL)

    # the segment line: ROW -> pull-down -> buffer -> source driver -> bleeder -> resistor -> LEDs
    d += elm.Line().right(1.0).at(ic.ROW)
    d += elm.Dot()
    d.push()
    d += elm.Resistor().down().label(ohm_text(design.row_pulldown_ohm), loc="bottom")
    d += elm.Ground()
    d.pop()
    d += elm.Line().right(0.75)
    d += logic.Buf().right().label("%s541" % fam, loc="top").label("1 of 8", loc="bottom")
    d += elm.Line().right(0.75)
    src = (
        elm.Ic(
            size=(4.2, 2.2),
            pins=[
                elm.IcPin(name="I1", side="L"),
                elm.IcPin(name="O1", side="R"),
                elm.IcPin(name="VCC", side="T"),
                elm.IcPin(name="GND", side="B"),
            ],
        )
        .right()
        .anchor("I1")
    )
    d += src.label("TBD62783A", loc="center", ofst=(0, -0.05))
    d += elm.Line().up(0.5).at(src.VCC)
    d += elm.Vdd().label(supply_label)
    d += elm.Line().down(0.25).at(src.GND)
    d += elm.Ground()
    d += elm.Line().right(1.0).at(src.O1)
    d += elm.Dot()
    d.push()
    d += elm.Resistor().down().label(ohm_text(design.bleeder_ohm), loc="bottom")
    d += elm.Ground()
    d.pop()
    d += elm.Line().right(0.5)
    d += elm.Resistor().right().label("%s, %s" % (ohm_text(seg.ohm), seg.rating), loc="top")
    d += elm.Line().right(0.75)
    d += elm.Dot()
    anode = d.here
    d.push()
    d += elm.Line().right(3.0).label("to segment d,\ndigits 2-4", loc="top")
    d.pop()
    for i in range(design.segment_leds):
        led = elm.LED().down()
        if i == 0:
            led = led.label("%d LEDs\nin series" % design.segment_leds, loc="bottom", ofst=0.2)
        d += led
    d += elm.Dot()
    d += elm.Line().down(0.5)
    sink = (
        elm.Ic(
            size=(3.4, 2.2),
            pins=[elm.IcPin(name="1B", side="L"), elm.IcPin(name="1C", side="T"), elm.IcPin(name="E", side="B")],
        )
        .right()
        .anchor("1C")
    )
    d += sink.label("ULN2803A", loc="center", ofst=(0.3, 0.0))
    d += elm.Line().down(0.25).at(sink.E)
    d += elm.Ground()

    # the digit line: COM -> pull-up -> inverting buffer -> the sink's input
    d += elm.Line().right(3.0).at(ic.COM)
    d += elm.Dot()
    d.push()
    d += elm.Resistor().up().label(ohm_text(design.com_pullup_ohm), loc="bottom")
    d += elm.Vdd().label(logic_label)
    d.pop()
    d += elm.Line().right(0.5)
    d += logic.Not().right().label("%s540" % fam, loc="top").label("1 of 5", loc="bottom")
    d += elm.Wire("|-").to(sink["1B"])
    cathode = (anode[0], anode[1] - design.segment_leds * 2.5)
    d += elm.Label().at((cathode[0] - 0.3, cathode[1] + 0.4)).label("digit 1's common cathode", halign="right")
    notes = [
        "The other lines alike:",
        "segments: %s-%s, each with its resistor;" % (row_name(0).split("/")[0], row_name(7).split("/")[0]),
        "  %s-%s: no pull-down (address pins)" % (row_name(0).split("/")[0], row_name(2).split("/")[0]),
        "digits 2-4: %s; colon: %s"
        % (", ".join(com_name(c).split("/")[0] for c in digit_coms()[1:]), com_name(col.com).split("/")[0]),
        "%s540/541 on %s; one ground for all" % (fam, logic_label),
    ]
    d += elm.Label().at((-1.5, -3.0)).label("\n".join(notes), halign="left", valign="top")
    return d.get_imagedata("svg").decode("utf-8")


# ---- the pages -------------------------------------------------------------------------------------


def _source_rows(keys):
    return ["- %s (%s)\n" % (SOURCES[k][1], SOURCES[k][0]) for k in keys]


def _ma(v):
    return text.ma(v)


def page_markdown(design=None):
    """docs/build/bigger-digits.md: when a builder needs the stage, how the chip's lines behave,
    the stage, its parts, how to connect it, the arithmetic, the warnings, the sources."""
    design = design or DESIGN
    seg, dp, colon = resistors(design)
    fam = family(design)
    ln = lines()
    digits = digit_coms()
    col = colon_line()
    rows = segment_rows()
    sup = supply(design)
    heat = dissipation(design)
    vih, vil = thresholds(design)
    out = []
    w = out.append
    w('# Bigger digits: 2.3" and larger from the same HT16K33\n\n')
    w(
        "<!-- Generated by `carom board docs` (make docs) from host_tools/hardware/bigdigits.py: edit that file, "
        "never this page. -->\n\n"
    )
    w(
        'A 2.3" digit reads at a glance up to %.0f m and can be read from %.0f m ([digit-size.md](digit-size.md)). '
        "Its segments are %d LEDs in series: about %.1f V at %g mA, more than the HT16K33 can give (it runs on "
        "%g-%g V and lights a segment from its own supply). Adafruit's backpacks stop at the 1.2\" one, 2 LEDs "
        "a segment. For anything bigger, a buffer stage between the chip and the digits switches a %g V supply "
        "the way the chip switches its own LEDs. The firmware, the board definition and the chip stay as they "
        "are: the display is still a `seg7` at its address.\n\n"
        % (
            comfortable_m(2.3),
            legible_m(2.3),
            design.segment_leds,
            design.segment_leds * led_vf(design.peak_ma),
            design.peak_ma,
            fig("vdd_min_v"),
            fig("vdd_max_v"),
            design.supply_v,
        )
    )
    w(
        "Nothing on this page was measured on a built stage: every figure is from a datasheet or estimated, "
        "and each says which ([Sources](#sources)). Build one digit first and check it (step 6 below).\n\n"
    )

    w(text.heading("md", "How the chip drives its LEDs"))
    w(
        "The HT16K33's datasheet (Holtek, rev. 1.10 and 1.20) names two kinds of LED outputs: ROW0-ROW15, \"Row driver "
        'output", and COM0-COM7, "Common scan output" (block diagram). Its RAM map puts COMn at RAM addresses '
        "2n and 2n + 1 and each bit on a ROW: \"Logic '1' in the RAM bit-map indicates the 'on' state of the "
        'corresponding LED Row" (Display Memory - RAM Structure). Its LED drive waveform scans "1 Frame = '
        "1056us*9 = 9.504ms\": eight COM slots and a key-scan slot, and its labels give the levels: in a COM's "
        "slot that COM is LOW, the other COMs are Hi-z (open); a ROW whose bit is 1 is Hi (VDD) in that slot, "
        "otherwise Hi-z. So **a ROW sources and a COM sinks**: an LED lights when its anode's ROW is high and its "
        "cathode's COM is low.\n\n"
    )
    w(
        "The firmware lays out a 7-segment backpack as Adafruit's library does (firmware/ht16k33.py; the table "
        "is read from it): the segments are ROW lines, the digits are COM lines. Adafruit's 7-segment backpacks "
        "are therefore wired with **common-cathode digits** (each digit's cathodes on its COM).\n\n"
    )
    trows = []
    for x in ln:
        if x.what.startswith("digit"):
            trows.append((x.what, com_name(x.com), "LOW (sinks the digit)", "Hi-z"))
    trows.append(("colon", "%s with %s" % (com_name(col.com), row_name(col.row)), "COM LOW, ROW Hi", "Hi-z"))
    for x in ln:
        if x.what.startswith("segment"):
            trows.append((x.what, row_name(x.row), "Hi (VDD) when lit, else Hi-z", "as that digit needs"))
    w(text.markdown(("on the display", "HT16K33 line", "in its digit's slot", "in the other slots"), trows))
    w(
        "\nThe lines' second names matter here. In the key-scan slot COM1-COM3 are KS0-KS2, driven high in "
        'turn ("KS0 has been selected (high level)", Keyscan), and ROW3-ROW15 are the key inputs K1-K13. '
        "ROW0-ROW2 are also the address inputs A2-A0, each held low by the chip's own %s: \"A2~A0 are set to "
        '0 when A2~A0 are floating", and 1 when joined "to an AD pin with a diode and resister"; COM0 is '
        'that AD pin, and "the slave address set is loaded into the HT16K33 at every frame" (Slave '
        "Addressing). A backpack's address jumpers are those diodes.\n\n" % ohm_text(fig("address_pulldown_ohm"))
    )

    w(text.heading("md", "The stage"))
    w("The stage copies the chip's rule, LED lit = ROW high AND COM low, onto the big digits:\n\n")
    w(
        "- **Segment lines (ROW, active high): not inverted.** %s541 (a CMOS buffer: it loads the ROW with "
        "a leakage current only, so the address inputs and the key inputs work as before), then a TBD62783A "
        "source driver whose output switches %g V onto the segment's anodes when its input is high (\"input "
        "voltage (output on) 2.0 V (MIN)\"). A Hi-z ROW must read low: %s to ground on ROW3-ROW7, the chip's "
        "own %s on ROW0-ROW2.\n"
        % (fam, design.supply_v, ohm_text(design.row_pulldown_ohm), ohm_text(fig("address_pulldown_ohm")))
    )
    w(
        "- **Digit lines (COM, active low): inverted.** A ULN2803A output sinks when its input is *high*. Fed "
        "a COM straight it would never sink: low in its digit's turn, open (floating) otherwise; with a pull-up "
        "alone it would sink every digit but the one whose turn it is. So a %s pull-up to the chip's VDD makes "
        "an idle COM high, and a %s540 inverts it: COM low → ULN2803A input high → the digit's cathodes "
        "sunk.\n" % (ohm_text(design.com_pullup_ohm), fam)
    )
    w(
        "- **Common-cathode digits**, as on Adafruit's backpacks: one ULN2803A output carries a whole digit "
        "(up to 8 strings), one TBD62783A output one segment line (one digit at a time).\n"
    )
    w(
        "- **Common-anode digits** work with the two drivers swapped and the same two buffers: %s540 → "
        "TBD62783A onto each digit's common anode, %s541 → ULN2803A onto each segment's cathodes. The "
        "inversion stays on the COM side either way: it comes from the chip, not from the digits.\n\n" % (fam, fam)
    )
    w(
        "Each segment string has its own resistor between the source driver and its anodes. A %s resistor "
        "from each segment line to ground keeps the off-state leakage of the source driver away from the "
        "LEDs. The key-scan slot and the 16 µs gaps between digits reach the big digits exactly as they reach "
        "the backpack's own LEDs, which show no ghosts.\n\n" % ohm_text(design.bleeder_ohm)
    )
    w(
        "![The buffer stage: one segment line (ROW3/K1) and one digit line (COM0/AD)](bigger-digits/"
        "buffer-stage.svg)\n\n"
    )
    w(
        "*Drawn by schemdraw from host_tools/hardware/bigdigits.py. The other segment lines and digit lines are "
        "the same; the %s540 and the ULN2803A use 5 of their 8 channels (COM0-COM4).*\n\n" % fam
    )

    w(text.heading("md", "Parts for one 4-digit display"))
    pl = parts_list(design)
    prow = [(p.qty, p.what, p.example, "%.2f" % p.price, "%.2f" % (p.price * p.qty), p.note) for p in pl]
    w(text.markdown(("qty", "part", "example", "EUR each", "EUR", "note"), prow, right=(0, 3, 4)))
    w(
        "\nAbout **%.0f EUR** (rough prices, euros with VAT for single pieces, %s: a budget, not a quote; any "
        'equivalent part does). Cable to the ESP32 as for a 1.2" backpack ([boards](boards/)).\n\n'
        % (sum(p.price * p.qty for p in pl), PRICE_DATE)
    )

    w(text.heading("md", "Connecting it, step by step"))
    w(
        "1. Solder the backpack's 1.2\" display and run it on the board as any display (`carom doctor`, the "
        "identify mode): chip, address and cable are then known good. Unsolder the display again, or take a "
        "second backpack.\n"
    )
    w(
        '2. Power: the backpack\'s "+" on 5 V and IO on 3.3 V, as for any 1.2" backpack; the %s540/541 on '
        "the same 5 V; the TBD62783A's VCC on %g V. **One ground** for the %g V supply, the 5 V and the "
        "ESP32, joined at the stage; the ULN2803A's ground wire goes straight to the %g V supply's minus.\n"
        % (fam, design.supply_v, design.supply_v, design.supply_v)
    )
    w(
        "3. The backpack's display pads carry the chip's lines: each pad is a pin of the 1.2\" display, so "
        "its line is that pin's function in the display's pin table (its datasheet): a segment pin is the ROW "
        "below, a digit's common pin the COM. Check each with a meter (continuity to the wire you solder) "
        "before powering up.\n"
    )
    w("4. Wire each line through its buffer and driver channel:\n\n")
    crow = []
    for i, c in enumerate(digits):
        crow.append(
            (
                "digit %d" % (i + 1),
                com_name(c),
                "%s540 A%d → Y%d" % (fam, i + 1, i + 1),
                "ULN2803A %dB → %dC" % (i + 1, i + 1),
                "digit %d's common cathode" % (i + 1),
            )
        )
    k = len(digits) + 1
    crow.append(
        (
            "colon",
            com_name(col.com),
            "%s540 A%d → Y%d" % (fam, k, k),
            "ULN2803A %dB → %dC" % (k, k),
            "the colon's cathode%s" % (" (through %s)" % ohm_text(colon.ohm) if colon.ohm else ""),
        )
    )
    for i, r in enumerate(rows):
        name = "segment %s" % (SEGMENT_NAMES[i] if i < 7 else "dp")
        res = seg if i < 7 else dp
        crow.append(
            (
                name,
                row_name(r),
                "%s541 A%d → Y%d" % (fam, i + 1, i + 1),
                "TBD62783A I%d → O%d" % (i + 1, i + 1),
                "through %s to %s of all 4 digits%s"
                % (ohm_text(res.ohm), name, " and the colon's anode" if r == col.row else ""),
            )
        )
    w(text.markdown(("on the display", "HT16K33 line", "buffer", "driver", "to"), crow))
    w(
        "\n5. The pull resistors: %s from each of COM0-COM4 to the chip's VDD; %s from each of ROW3-ROW7 to "
        "ground; nothing on ROW0-ROW2 (see the warnings). Tie the unused inputs of the %s540 (A6-A8) to VDD, "
        "the unused TBD62783A and ULN2803A inputs to ground, both output enables (OE1, OE2) of each %s54x to "
        "ground. 100 nF at each chip's supply pin, %s where the %g V comes in.\n"
        % (ohm_text(design.com_pullup_ohm), ohm_text(design.row_pulldown_ohm), fam, fam, "220 µF", design.supply_v)
    )
    w(
        "6. Before the digits, the drivers out of their sockets and the %g V off: an LED with 1 kΩ from each "
        "buffer output (Y) to ground, and the identify mode on (its button held at power-on): it lights each "
        "segment in turn (the %s541's Y) on each digit (the %s540's Y). Then the drivers in, one digit, %g V "
        "on, the identify mode again: every segment lights alone, nothing else glows. Then the rest.\n\n"
        % (design.supply_v, fam, fam, design.supply_v)
    )

    w(text.heading("md", "The arithmetic"))
    w(
        "**Brightness.** One digit is lit at most %d µs of each %d µs frame, %.1f %% of the time (the "
        "datasheet's waveform; the rule of thumb says 1/8 = 12.5 %%). Brightness level n (0-15, the board's "
        "`brightness`) lights (n + 1)/16 of that. A string's average current is its peak × %.3f × (n + 1)/16 "
        "(the rule: peak × 1/8 × (n + 1)/16). The eye averages a flicker this fast (%.0f Hz), so a string "
        "looks about as bright as one lit steadily at that average (a little less in fact: LEDs give less "
        "light per mA at high currents; estimated).\n\n"
        % (fig("lit_us"), fig("frame_us"), 100 * share(), share(), 1e6 / fig("frame_us"))
    )
    brow = []
    for level in (15, 11, 7, 3, 0):
        brow.append(
            (
                level,
                "%d/16" % steps(level),
                "%.0f µs" % pulse_us(level),
                _ma(average_ma(seg.ma_alone, level)),
                _ma(average_ma(seg.ma_alone, level, "rule")),
            )
        )
    w(
        text.markdown(
            ("brightness", "lit", "pulse", "average at %.0f mA peak" % seg.ma_alone, "by the 1/8 rule"),
            brow,
            right=(0, 1, 2, 3, 4),
        )
    )
    w(
        "\n**The peak a string needs** to look like a steady current (at full brightness, and at the board's "
        "usual level 7):\n\n"
    )
    qrow = []
    for ma in (5, 10, 20):
        p15, p7 = peak_for_ma(ma, 15), peak_for_ma(ma, 7)
        qrow.append((_ma(ma), _ma(p15), _ma(p7), "%.0f mA" % (8 * p15)))
    w(text.markdown(("looks like", "peak at 15", "peak at 7", "a digit's 8 strings at 15"), qrow, right=(0, 1, 2, 3)))
    w(
        "\nThe stage aims each string at **%g mA** peak: %d strings of a digit make %.0f mA in one ULN2803A "
        "output (rated %d mA), and the LEDs' peak rating is %d mA for %d µs pulses at 1/10 duty; ours last "
        "%.0f µs, ten times longer, so the stage stays well under it. With the E24 resistor below a string "
        "gets %s alone on its digit, which at full brightness looks like %s steady: bright indoors (display "
        "datasheets rate their light at 10 mA). More light needs two ULN2803A outputs in parallel for each "
        "digit (a second ULN2803A).\n\n"
        % (
            design.peak_ma,
            8,
            8 * design.peak_ma,
            fig("uln_channel_ma"),
            fig("led_pulse_ma"),
            fig("led_pulse_us"),
            pulse_us(),
            _ma(seg.ma_alone),
            _ma(average_ma(seg.ma_alone)),
        )
    )
    w(
        "**The resistors.** Supply = I × (R + the source's %s) + n × VF(I) + VCE(digit's current), with VF "
        "%.2f V at 10 mA (typical; %.2f V maximum) rising %.0f mV per mA, and the ULN2803A's VCE(sat) a line "
        "through its datasheet's points. R is the E24 value at or above what gives %g mA with the string "
        "alone on its digit (the smallest drop, the highest current); more strings lit on a digit raise the "
        "ULN2803A's drop and lower the current a little.\n\n"
        % (ohm_text(fig("tbd_ron_ohm")), fig("led_vf_v"), fig("led_vf_max_v"), fig("led_rdyn_ohm"), design.peak_ma)
    )
    rrow = []
    for r in (seg, dp, colon):
        rrow.append(
            (
                r.what,
                r.leds,
                "%.1f V" % (r.leds * led_vf(design.peak_ma)),
                ohm_text(r.exact),
                ohm_text(r.ohm) if r.ohm else "none",
                _ma(r.ma_alone),
                _ma(r.ma_full),
                _ma(r.ma_worst),
                "%.0f mW" % (r.watts * 1000),
                r.rating,
            )
        )
    w(
        text.markdown(
            (
                "string",
                "LEDs",
                "VF at %g mA" % design.peak_ma,
                "R needed",
                "R (E24)",
                "peak alone",
                "peak, digit full",
                "worst",
                "R's heat",
                "rating",
            ),
            rrow,
            right=(1, 2, 3, 4, 5, 6, 7, 8),
        )
    )
    w(
        "\nThe colon hangs on segment b's line in its own slot (%s): its extra resistor makes up for its "
        "fewer LEDs.\n\n" % com_name(col.com)
    )
    w(
        "*worst*: every LED of the string at its maximum VF and the ULN2803A at its maximum drop, %.0f %% of "
        "the typical current: such a segment looks dimmer than its neighbours. LEDs of one batch sit close "
        "together; a higher supply evens out the rest, at the price of more heat in the resistors:\n\n"
        % (100.0 * seg.ma_worst / seg.ma_full)
    )
    vrow = []
    for v in sorted({design.supply_v, design.supply_v + 3.0}):
        alt = resistors(design._replace(supply_v=v))[0]
        vrow.append(
            (
                "%g V" % v,
                ohm_text(alt.ohm),
                _ma(alt.ma_full),
                _ma(alt.ma_worst),
                "%.0f %%" % (100.0 * alt.ma_worst / alt.ma_full),
                "%.0f mW" % (alt.watts * 1000),
                alt.rating,
            )
        )
    w(
        text.markdown(
            ("supply", "R (segments)", "typical, digit full", "worst", "worst/typical", "R's heat", "rating"),
            vrow,
            right=(1, 2, 3, 4, 5),
        )
    )
    w("\n")
    w(
        "**The %g V supply.** A display draws one digit at a time: **%.2f A** peak (a digit of 8 strings), "
        '%.2f A on average with every digit "8." and the colon lit at full brightness. Displays scan on '
        "their own clocks, so their peaks add up: a %s (%g A) carries %d of them with the %d %% margin the "
        "board's 5 V supply has ([boards](boards/)). The 5 V side adds only the logic: a few mA.\n\n"
        % (
            design.supply_v,
            sup.peak_a,
            sup.average_a,
            psu_example(design),
            psu_amps(design),
            sup.displays_per_supply,
            parts.SUPPLY_MARGIN * 100,
        )
    )
    w(
        '**The drivers\' heat** at full brightness, every digit "8.": the ULN2803A %.0f mW (%.0f mW in each '
        "digit's output), the TBD62783A %.0f mW (estimated from its %s). Both well inside what a DIP-18 "
        "takes (about %d mW, estimated): no heatsink.\n\n"
        % (heat.uln_mw, heat.uln_channel_mw, heat.tbd_mw, ohm_text(fig("tbd_ron_ohm")), fig("driver_pd_mw"))
    )
    w(
        "**Logic levels.** The chip on %g V drives its lines to VDD; the %s540/541 read above %g V as high and "
        "below %g V as low; their outputs (at least %.2f V) turn on the TBD62783A (2.0 V) and the ULN2803A, "
        'whose %s input resistor takes about %.1f mA. A chip on 3.3 V (a 0.56" backpack) needs the 74HCT '
        "parts instead, still on 5 V, and its pull-ups on its own 3.3 V.\n\n"
        % (
            design.logic_v,
            fam,
            vih,
            vil,
            fig("hc_voh_v"),
            ohm_text(fig("uln_input_ohm")),
            (fig("hc_voh_v") - fig("uln_input_v")) / fig("uln_input_ohm") * 1000,
        )
    )
    w("**The limits, checked:**\n\n")
    w(
        text.markdown(
            ("what", "here", "limit", "ok"),
            [(a, b, c, "yes" if ok else "**NO**") for a, b, c, ok in checks(design)],
            right=(1, 2),
        )
    )
    w("\n")

    w(text.heading("md", "Warnings"))
    w(
        "- **Never a pull-down on ROW0-ROW2, and the COM pull-ups weak.** They are the address inputs, read at "
        "every frame through the chip's %s against the jumpers' diodes from COM0: a pull-down there can change "
        "the chip's address while it runs. And through a bridged jumper, an idle COM0 held high by its "
        "pull-up feeds ROW0-ROW2: with %s the most it puts there is %.2f V, below the %s's %g V (a stiffer "
        "pull-up would light segments a-c where they are off).\n"
        % (ohm_text(fig("address_pulldown_ohm")), ohm_text(design.com_pullup_ohm), address_leak_v(design), fam, vil)
    )
    w("- **Pull-ups to the chip's VDD**, not to the %g V nor to a 5 V the chip is not on.\n" % design.supply_v)
    w(
        "- **%g V never reaches the chip or the ESP32.** The TBD62783A's and ULN2803A's outputs go to the "
        "digits only; check with a meter before the first power-up.\n" % design.supply_v
    )
    w(
        "- **Common ground, and the LED current on its own wire.** Up to %.2f A returns through the ULN2803A "
        "in 1 ms pulses: on the I2C cable's ground it would disturb the bus.\n" % sup.peak_a
    )
    w(
        "- **The digits' own datasheet decides.** Check the segment's forward voltage (here %d LEDs × about "
        "%.1f V = %.1f V at %g mA) against the %g V: every check above follows from `DESIGN` in "
        "host_tools/hardware/bigdigits.py; change it there and run `make docs`.\n"
        % (
            design.segment_leds,
            led_vf(design.peak_ma),
            design.segment_leds * led_vf(design.peak_ma),
            design.peak_ma,
            design.supply_v,
        )
    )
    w(
        "- **The power budget of the board's page** counts each HT16K33's LEDs on 5 V; a chip driving this "
        "stage draws only its logic current there, and the LEDs draw from the %g V supply as above.\n\n"
        % design.supply_v
    )

    w(text.heading("md", "Sources"))
    w(
        "From datasheets and makers: the chip's behaviour and its lines, the drivers' and the buffers' "
        "ratings, the LEDs' VF and ratings, the supply. Estimated here (each reason in the source file): "
        "how VF rises with current, the source driver's resistance, a DIP-18's heat limit, the capacitance "
        "of a node, the address diode's drop, the comfort share of the reading distance. Measured: nothing "
        "yet.\n\n"
    )
    for key in (
        "holtek",
        "holtek-dc",
        "adafruit-backpack",
        "toshiba-tbd62783a",
        "ti-uln2803a",
        "hc-logic",
        "displays",
        "meanwell-gst25e",
        "estimate",
    ):
        w("- %s (%s)\n" % (SOURCES[key][1], SOURCES[key][0]))
    return "".join(out)


def digit_size_markdown():
    """docs/build/digit-size.md: which digit height reads at 3-6 m, which ones the HT16K33
    drives directly, and where bigger-digits.md takes over."""
    out = []
    w = out.append
    per_in = fig("ft_per_inch") * FT_M
    w("# Digit size for the distance\n\n")
    w(
        "<!-- Generated by `carom board docs` (make docs) from host_tools/hardware/bigdigits.py: edit that file, "
        "never this page. -->\n\n"
    )
    w(
        "A wall board is read by the players and the referee around the table: from about 3 m at its near end "
        "to 6 m at its far end. The sign makers' rule: about **1 inch of digit height for each %d ft** (%.2f m) "
        "of the farthest distance it can be read from. Read at a glance, between two shots, a digit wants to "
        "be nearer: this page takes %.0f %% of that distance, %.0f ft (%.2f m) per inch, a choice made here "
        "(an estimate, not a standard).\n\n"
        % (
            fig("ft_per_inch"),
            per_in,
            fig("comfort") * 100,
            fig("ft_per_inch") * fig("comfort"),
            per_in * fig("comfort"),
        )
    )
    w(text.heading("md", "By distance"))
    rows = []
    for dist in DISTANCES:
        rows.append(
            ("%d m" % dist, '%.2f"' % min_size_in(dist, comfortable=False), '%.2f"' % min_size_in(dist))
            + tuple(_verdict(s, dist) for s in (0.56, 1.2, 2.3))
        )
    w(
        text.markdown(
            ("distance", "smallest legible", "smallest at a glance", '0.56"', '1.2"', '2.3"'), rows, right=(1, 2)
        )
    )
    w("\n")
    w(text.heading("md", "By size"))
    rows = []
    for s in SIZES:
        rows.append(
            ('%g"' % s, "%d mm" % round(s * 25.4), "%.1f m" % comfortable_m(s), "%.1f m" % legible_m(s), _drive(s))
        )
    w(text.markdown(("digit", "height", "at a glance up to", "legible up to", "driven"), rows, right=(1, 2, 3)))
    w(
        '\nSo: 0.56" is marginal at 6 m (past its farthest distance, %.1f m); 1.0-1.2" read comfortably across '
        'the room; 2.3" leaves margin (at a glance up to %.0f m) for a large hall or weak eyes.\n\n'
        % (legible_m(0.56), comfortable_m(2.3))
    )
    w(text.heading("md", "What the HT16K33 drives directly"))
    w(
        "The chip lights a segment from its own supply (%g-%g V, Holtek), through one ROW output (%d mA, "
        "typical): room for 2 LEDs in series (2 × about %.1f V at %d mA), not for 3 (%.1f V). Adafruit's "
        "backpacks:\n\n"
        % (
            fig("vdd_min_v"),
            fig("vdd_max_v"),
            fig("row_ma"),
            led_vf(fig("row_ma")),
            fig("row_ma"),
            3 * led_vf(fig("row_ma")),
        )
    )
    rows = []
    for key in ("seg7-0.56", "seg7-1.2", "seg14-0.54"):
        p = parts.PARTS[key]
        pins = "; ".join('"%s" → %s' % (name, rail) + (" — %s" % note if note else "") for name, rail, note in p.pins)
        rows.append((p.what.split(", ", 1)[1], p.example, "%d" % p.figures["leds_per_segment"].value, pins))
    w(text.markdown(("backpack", "example", "LEDs a segment", "pins"), rows))
    w(
        '\nThe 1.2" backpack is the largest: its 2 LEDs a segment need 5 V on "+" (Adafruit: "Will not run '
        "on 3.3v!\"), while its IO pin sets the I2C level, so the bus stays at the ESP32's 3.3 V. Each board's "
        "page lists the backpacks it takes and their wiring ([boards](boards/)).\n\n"
    )
    w(text.heading("md", "Bigger"))
    w(
        'A 2.3" digit has about %d LEDs in series a segment (%.1f V at %g mA), larger ones more: beyond the '
        "chip's %g V. [bigger-digits.md](bigger-digits.md) gives the buffer stage that drives them from a %g V "
        "supply with the same chip and the same firmware.\n"
        % (
            DESIGN.segment_leds,
            DESIGN.segment_leds * led_vf(DESIGN.peak_ma),
            DESIGN.peak_ma,
            fig("vdd_max_v"),
            DESIGN.supply_v,
        )
    )
    return "".join(out)


# ---- writing -----------------------------------------------------------------------------------------

PAGES = (
    ("bigger-digits.md", page_markdown),
    ("bigger-digits/buffer-stage.svg", schematic_svg),
    ("digit-size.md", digit_size_markdown),
)


def write(out_dir):
    """Write the three files under `out_dir`; returns their paths."""
    written = []
    for rel, fn in PAGES:
        path = os.path.join(out_dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(fn())
        written.append(path)
    return written


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        sys.stderr.write("usage: python -m host_tools.hardware.bigdigits OUT_DIR\n")
        return 2
    for path in write(argv[0]):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

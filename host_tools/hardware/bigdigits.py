"""Bigger digits: 2.3" and larger 7-segment digits driven by the same HT16K33 and the same
firmware through a buffer stage, and which digit size reads at which distance.

    DESIGN                    the buffer stage as data (a Design: the LED supply, LEDs in series
                              per segment, the peak current, the resistors around the logic)
    FIGURES, SOURCES          each figure the arithmetic uses, with its source: a datasheet, a
                              maker's page, a rule of thumb, or an estimate made here (said so)
    share(kind), average_ma(), peak_for_ma()    the arithmetic of the 1/8 multiplex and the
                              16-step dimming
    string_ma(), resistors(), supply(), dissipation(), checks()   one LED string, the series
                              resistors, the 12 V supply, the heat in the drivers, the limits
    write(out_dir)            the three generated files (python -m host_tools.hardware.bigdigits OUT_DIR)

The other jobs have modules of their own beside this one, and their names are read from here
too (bigdigits.lines() and the like, loaded on first use through _ELSEWHERE):

    bigdigits_lines.py        lines(), row_name(), com_name(): each digit, the colon and each
                              segment with its HT16K33 line, as the firmware lays them out in
                              the chip's RAM (firmware/ht16k33.py)
    bigdigits_parts.py        parts_list(design): what to buy for one 4-digit display
    bigdigits_schematic.py    schematic_svg(design): the stage drawn by schemdraw (SVG)
    bigdigits_page.py         page_markdown(design): docs/build/bigger-digits.md; PAGES
    bigdigits_size.py         legible_m(), comfortable_m(), min_size_in(): digit height against
                              reading distance; digit_size_markdown(): docs/build/digit-size.md

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

import importlib
import math
import os
import sys
from collections import namedtuple

from . import parts
from .bigdigits_lines import digit_coms

Figure = namedtuple("Figure", "value unit source note")
Design = namedtuple(
    "Design", "supply_v logic_v segment_leds point_leds colon_leds peak_ma com_pullup_ohm row_pulldown_ohm bleeder_ohm"
)

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


# ---- the names of the other jobs, and writing ---------------------------------------------------

# Where each name of the jobs beside this module lives: bigdigits.NAME loads it on first use.
_ELSEWHERE = {
    "Line": "bigdigits_lines",
    "SEGMENT_NAMES": "bigdigits_lines",
    "lines": "bigdigits_lines",
    "colon_line": "bigdigits_lines",
    "segment_rows": "bigdigits_lines",
    "row_name": "bigdigits_lines",
    "com_name": "bigdigits_lines",
    "Part": "bigdigits_parts",
    "parts_list": "bigdigits_parts",
    "schematic_svg": "bigdigits_schematic",
    "page_markdown": "bigdigits_page",
    "PAGES": "bigdigits_page",
    "FT_M": "bigdigits_size",
    "SIZES": "bigdigits_size",
    "DISTANCES": "bigdigits_size",
    "legible_m": "bigdigits_size",
    "comfortable_m": "bigdigits_size",
    "min_size_in": "bigdigits_size",
    "digit_size_markdown": "bigdigits_size",
}


def __getattr__(name):
    if name not in _ELSEWHERE:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    return getattr(importlib.import_module("." + _ELSEWHERE[name], __package__), name)


def write(out_dir):
    """Write the three files under `out_dir`; returns their paths."""
    from .bigdigits_page import PAGES

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

"""Bigger digits: what it takes to drive 2.3" and larger digits with the same HT16K33 and firmware,
and which digit size reads at which distance.

    STAGE                   the buffer stage's design figures (supply, LEDs in a segment, peak current...)
    STAGE_PARTS             its parts: [(quantity per display, Part)] (parts.py's catalogue form)
    average_ma(peak, b)     a segment's average current at brightness b (power.py's multiplex arithmetic)
    peak_for(static, b)     the peak a segment needs to look like `static` mA of steady current
    resistor_ohm(stage)     the resistor in each segment line, from the supply, the string and the drivers
    schematic_svg(stage)    the schematic (schemdraw, its own SVG backend): one digit line, one segment line
    page_markdown(stage)    docs/build/bigger-digits.md
    digit_size_markdown()   docs/build/digit-size.md

The polarity, from Holtek's HT16K33 datasheet (rev. 1.10, "LED drive mode waveforms"): during a
digit's slot its COM output is pulled LOW (it sinks the digit's current) while the other COMs are
high impedance; each ROW output is driven HIGH (it sources a lit segment's current) or low; in the
key-scan slot that ends each 9.504 ms frame every COM is high impedance. Adafruit's 7-segment
backpacks hang common-cathode digits on COM0-4 (digit 0, 1, the colon, 2, 3) and their segments
a-g and the point on ROW0-7, which is what the firmware writes (bit n of a digit's byte is ROWn).

The stage keeps that: common-cathode big digits, each digit's cathode sunk by a ULN2803A channel
(the issue's "sink on the digit lines"), each segment line sourced from 12 V by a TBD62783A channel
("high-side drivers on the segment lines"). Both drivers switch ON on a HIGH input, so the ROW
lines drive the source driver directly, but a COM line is active LOW and high impedance when idle:
it needs a pull-up (idle = off) and an inverter (74HCT540) before the ULN2803A. Without that
inversion every digit but the selected one would light.
"""

from collections import namedtuple

from . import parts, power

# The design figures. Where one comes from: "datasheet" (named in SOURCES), "estimated" (here).
Stage = namedtuple("Stage", "supply_v leds_per_segment led_vf peak_ma source_drop_v sink_drop_v logic_v")
STAGE = Stage(
    supply_v=12.0,  # a 12 V supply for the LED strings (the 5 V for the chip stays)
    leds_per_segment=4,  # a 2.3" segment: 4 LED chips in series (Kingbright SC23-11SRWA: estimated from its Vf)
    led_vf=1.9,  # V per red LED chip at the peak current (estimated: typical red 1.85-2.0 V)
    peak_ma=50,  # the segment's peak current while its digit is selected (below)
    source_drop_v=1.0,  # TBD62783A output at 60 mA (estimated from its datasheet's curves, upper)
    sink_drop_v=1.6,  # ULN2803A with a whole digit's 8 segments on one channel (about 400 mA): its
                      # datasheet's upper Vce(sat), 1.6 V at 350 mA
    logic_v=5.0,  # the HT16K33 breakout on 5 V (its datasheet's 4.5-5.5 V)
)
PULSE_LIMIT_MA = 100  # a red LED chip's pulse rating at 1/10 duty, 0.1 ms (typical datasheets); the
                      # HT16K33's slot is 1 ms long, so stay well below it: 50 mA is the design point
SINK_CHANNEL_MA = 500  # ULN2803A: one output's rating (datasheet)
SEGMENTS = 8  # a, b, c, d, e, f, g and the point: one source channel each (ROW0-7)
DIGITS = 5  # COM0-4 on Adafruit's layout: four digits and the colon, one sink channel each

SOURCES = {
    "holtek": "Holtek, HT16K33 datasheet rev. 1.10: pin description (ROW0-15: LED row outputs; COM0-7: "
              "LED common outputs), \"LED drive mode waveforms\" (a COM low in its slot, high impedance "
              "otherwise; the rows driven high or low), operating voltage 4.5-5.5 V",
    "uln2803": "Texas Instruments, ULN2803A datasheet: 8 Darlington sinks, 500 mA a channel, input on at "
               "2.4 V or more (5 V TTL/CMOS)",
    "tbd62783": "Toshiba, TBD62783APG datasheet: 8 DMOS source drivers up to 50 V and 500 mA a channel, "
                "input on at 2.0 V or more (the UDN2981's successor)",
    "hct540": "Nexperia, 74HCT540 datasheet: octal inverting buffer, TTL input levels on 5 V",
    "adafruit-1427": "Adafruit, product 1427 (16x8 LED Matrix Driver Backpack, HT16K33 breakout): every "
                     "ROW and COM pin on a header, A0-A2 address pads",
    "bss138": "Adafruit, product 757 (4-channel I2C-safe bi-directional logic level converter, BSS138): "
              "3.3 V on one side, 5 V on the other",
}

STAGE_PARTS = [  # (per big-digit display of 4 digits and a colon, part)
    (1, parts.Part("ht16k33-breakout", "HT16K33 breakout with every ROW and COM pin on a header (instead "
                   "of a backpack)", "Adafruit 1427 (16x8 LED Matrix Driver Backpack)", 6.0, "pcs", {}, (), "")),
    (1, parts.Part("level-shifter", "I2C level shifter 3.3 V / 5 V (the chip on 5 V reads a high from 3.5 V)",
                   "Adafruit 757 (BSS138, 4 channels)", 4.0, "pcs", {}, (), "")),
    (1, parts.Part("tbd62783", "8-channel source driver, DIP-18 (the segment lines, from 12 V)",
                   "Toshiba TBD62783APG", 1.5, "pcs", {}, (), "")),
    (1, parts.Part("uln2803", "8-channel Darlington sink, DIP-18 (the digit lines)", "TI ULN2803AN", 0.8,
                   "pcs", {}, (), "")),
    (1, parts.Part("hct540", "octal inverting buffer, DIP-20 (a COM line is active low)", "Nexperia 74HCT540N",
                   0.6, "pcs", {}, (), "")),
    (DIGITS, parts.Part("pullup-10k", "resistor 10 kΩ, a COM line's pull-up (idle = off)",
                        "Yageo CFR-25JB-52-10K", 0.05, "pcs", {}, (), "")),
    (SEGMENTS, parts.Part("rseg", "resistor in a segment line (value below), 1/4 W", "Yageo CFR-25JB-52 series",
                          0.05, "pcs", {}, (), "")),
    (4, parts.Part("digit-2.3", "7-segment digit 2.3\" (57 mm), common cathode, red", "Kingbright SC23-11SRWA",
                   4.0, "pcs", {}, (), "")),
]


def duty(brightness):
    """The share of time a segment of a lit digit is on: 1/8 of the frame (one COM slot of eight),
    times the dimming step's (brightness + 1)/16 (power.chip_ma's arithmetic, the one home)."""
    return power.chip_ma(1, brightness) / parts.CHIPS["ht16k33"]["row_ma"].value


def average_ma(peak_ma, brightness):
    """A segment's average current at that brightness (0-15) for a peak current peak_ma."""
    return peak_ma * duty(brightness)


def peak_for(static_ma, brightness=15):
    """The peak current that gives the same average as `static_ma` of steady current."""
    return static_ma / duty(brightness)


def string_v(stage=STAGE):
    return stage.leds_per_segment * stage.led_vf


def resistor_ohm(stage=STAGE):
    """(Supply − the LED string − both drivers' drops) / the peak current."""
    left = stage.supply_v - string_v(stage) - stage.source_drop_v - stage.sink_drop_v
    if left <= 0:
        raise ValueError("%g V cannot drive %d LEDs of %g V through the drivers (%g V left)"
                         % (stage.supply_v, stage.leds_per_segment, stage.led_vf, left))
    return left / (stage.peak_ma / 1000)


def e12_above(ohm):
    """The E12 value at or above `ohm` (a resistor that lets at most the design current through)."""
    decade = 1
    while True:
        for v in (10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82):
            if v * decade >= ohm:
                return v * decade
        decade *= 10


def powers(stage=STAGE, brightness=15):
    """The watts of one display at full use ("8." on every digit and the colon's two): the
    resistors, the source driver, the sink driver, and the LED supply's current."""
    on = duty(brightness)
    r = e12_above(resistor_ohm(stage))
    peak = (stage.supply_v - string_v(stage) - stage.source_drop_v - stage.sink_drop_v) / r
    lit = SEGMENTS * 4 + 2  # every segment of four digits, the colon's two dots
    resistor_w = lit * peak ** 2 * r * on
    source_w = lit * peak * stage.source_drop_v * on
    sink_w = lit * peak * stage.sink_drop_v * on
    supply_ma = lit * peak * 1000 * on
    return {"resistor_w": resistor_w, "source_w": source_w, "sink_w": sink_w, "supply_ma": supply_ma,
            "peak_ma": peak * 1000, "digit_ma": SEGMENTS * peak * 1000}


def schematic_svg(stage=STAGE):
    """One segment line and one digit line through the buffer stage, drawn by schemdraw."""
    import schemdraw
    import schemdraw.elements as elm

    schemdraw.use("svg")
    r = e12_above(resistor_ohm(stage))
    d = schemdraw.Drawing(show=False)
    d.config(fontsize=11, unit=2.5)
    ht = d.add(elm.Ic(pins=[elm.IcPin(name="ROW0", side="right", slot="2/2"),
                            elm.IcPin(name="COM0", side="right", slot="1/2"),
                            elm.IcPin(name="VDD", side="top"), elm.IcPin(name="VSS", side="bottom")],
                      size=(3, 9), pinspacing=4).label("HT16K33\n(Adafruit 1427)", "center", fontsize=10))
    d.add(elm.Line().at(ht.VDD).up(0.6))
    d.add(elm.Vdd().label("+%g V" % stage.logic_v))
    d.add(elm.Ground().at(ht.VSS))
    # The segment line: ROW0 high = segment a lit -> the source driver puts 12 V on its string.
    d.add(elm.Line().at(ht.ROW0).right(2).label("ROW0 (segment a)", fontsize=9))
    src = d.add(elm.Ic(pins=[elm.IcPin(name="IN1", side="left"), elm.IcPin(name="OUT1", side="right"),
                             elm.IcPin(name="VS", side="top"), elm.IcPin(name="GND", side="bottom")],
                       size=(2.6, 3)).anchor("IN1").label("TBD62783A", "center", ofst=(0, -0.5), fontsize=10))
    d.add(elm.Line().at(src.VS).up(0.6))
    d.add(elm.Vdd().label("+%g V" % stage.supply_v))
    d.add(elm.Ground().at(src.GND))
    d.add(elm.Resistor().at(src.OUT1).right().label("%d Ω" % r))
    d.add(elm.LED().right().label("a: %d LEDs\nin series" % stage.leds_per_segment, "bottom", fontsize=9))
    d.add(elm.Line().right(1))
    d.add(elm.Line().down(4.5))
    cathode = d.here
    d.add(elm.Dot(open=True).label("digit 0's\ncommon cathode", "bottom", fontsize=9))
    # The digit line: COM0 low in its slot (high impedance otherwise) -> pulled up, inverted -> the
    # sink driver's input high -> it sinks the digit's cathode.
    d.add(elm.Line().at(ht.COM0).right(1.2))
    node = d.here
    d.add(elm.Dot())
    d.add(elm.Resistor().down(2.2).label("10 kΩ", "top", fontsize=9))
    d.add(elm.Dot(open=True).label("+%g V" % stage.logic_v, "bottom", fontsize=9))
    d.add(elm.Line().at(node).right(2.4).label("COM0 (digit 0)", "top", fontsize=9))
    inv = d.add(elm.Ic(pins=[elm.IcPin(name="A1", side="left"), elm.IcPin(name="Y1", side="right", invert=True)],
                       size=(2.2, 1.6)).anchor("A1").label("74HCT540", "top", ofst=0.4, fontsize=10))
    d.add(elm.Line().at(inv.Y1).right(1.2))
    snk = d.add(elm.Ic(pins=[elm.IcPin(name="I1", side="left"), elm.IcPin(name="O1", side="right"),
                             elm.IcPin(name="E", side="bottom")],
                       size=(2.4, 1.6)).anchor("I1").label("ULN2803A", "top", ofst=0.4, fontsize=10))
    d.add(elm.Ground().at(snk.E))
    d.add(elm.Line().at(snk.O1).tox(cathode[0]))
    d.add(elm.Line().toy(cathode))
    svg = d.get_imagedata("svg")
    return svg.decode("utf-8") if isinstance(svg, bytes) else svg


def _ma(x):
    return "%.1f mA" % x


def page_markdown(stage=STAGE):
    s = stage
    r_exact = resistor_ohm(s)
    r = e12_above(r_exact)
    pw = powers(s)
    out = ["# Bigger digits: 2.3\" and larger with the same HT16K33 and firmware\n\n",
           "<!-- Generated by `carom board docs` (make docs) from host_tools/hardware/bigdigits.py: edit that "
           "file, never this page. -->\n\n",
           "The HT16K33 backpacks drive digits up to 1.2\" directly ([digit-size.md](digit-size.md) says which "
           "size reads at your distance). A 2.3\" or larger digit has several LEDs in series in each segment "
           "(%d here: about %.1f V), more than the chip's %g V can drive. A buffer stage between the chip and "
           "the digits switches a %g V supply instead. The chip, its I2C address and the firmware stay as they "
           "are: the board definition still says `\"kind\": \"seg7\"` for that display.\n\n"
           % (s.leds_per_segment, string_v(s), s.logic_v, s.supply_v),
           "## How the HT16K33 drives its digits (its datasheet)\n\n",
           "- It shows one digit at a time, eight in turn (COM0-COM7), then a key-scan slot: a frame of 9.504 ms, "
           "so each digit is lit at most 1/8 of the time.\n",
           "- In a digit's slot its **COM line is pulled low** (it *sinks* the digit's current); the other COM "
           "lines are high impedance (not driven at all).\n",
           "- Each **ROW line is driven high** for a lit segment (it *sources* the current) and low for a dark "
           "one.\n",
           "- Adafruit's 7-segment backpacks wire **common-cathode** digits: digit 0, 1, the colon, digit 2, 3 on "
           "COM0-COM4, segments a-g and the point on ROW0-ROW7. The firmware writes that layout; the stage "
           "keeps it.\n\n",
           "## The stage, and why it needs an inverter\n\n",
           "Common-cathode big digits, as on the backpacks: each **segment line** gets a high-side (source) "
           "driver that puts %g V on the segment's LED string, and each **digit line** a low-side (sink) driver "
           "for the digit's common cathode.\n\n" % s.supply_v,
           "- A ROW line is high when its segment is lit: it drives the **TBD62783A** source driver's input "
           "directly (on at 2.0 V or more).\n",
           "- A COM line is **low** when its digit is selected and floats otherwise, while the **ULN2803A** "
           "sink switches on with a **high** input. So each COM line gets a 10 kΩ pull-up to %g V (a floating "
           "line reads \"off\") and a **74HCT540** inverter before the ULN2803A. Wired straight, every digit "
           "but the selected one would light.\n" % s.logic_v,
           "- Common-anode big digits (sold too) need the mirror image: ULN2803A sinks on the segment lines "
           "(straight from ROW), source drivers on the digit lines (through the inverter). Either way one "
           "side is inverted.\n\n",
           "![One segment line and one digit line through the buffer stage](bigger-digits/buffer-stage.svg)\n\n",
           "The drawing shows ROW0 (segment a) and COM0 (digit 0); the other seven segment lines and four "
           "digit lines are the same, one channel each on the same chips.\n\n",
           "## Parts for one 4-digit display\n\n",
           "| qty | part | example | EUR each |\n|---:|---|---|---:|\n"]
    total = 0
    for n, p in STAGE_PARTS:
        out.append("| %d | %s | %s | %.2f |\n" % (n, p.what, p.example, p.price))
        total += n * p.price
    out.append("\nAbout %d EUR a display. Prices are rough: euros with VAT at small shops, %s.\n\n"
               % (round(total), parts.PRICE_DATE))
    out.append("## The arithmetic\n\n")
    out.append("A segment is lit only in its digit's slot, 1/8 of the time, and the brightness setting "
               "(0-15) lights (brightness + 1)/16 of that slot. Its **average** current, which is what the "
               "eye sees, is the peak current × 1/8 × (brightness + 1)/16.\n\n")
    out.append("| peak current | average at brightness 15 | at 8 | at 4 |\n"
               "|---:|---:|---:|---:|\n")
    for peak in (20, 40, s.peak_ma, 80):
        out.append("| %d mA | %s | %s | %s |\n" % (peak, _ma(average_ma(peak, 15)), _ma(average_ma(peak, 8)),
                                                  _ma(average_ma(peak, 4))))
    out.append("\nTo look like %d mA of steady current at full brightness a segment needs %d mA peak. A "
               "red LED chip is commonly rated about %d mA in pulses at 1/10 duty of 0.1 ms; the HT16K33's "
               "slot is about 1 ms long, so the stage is designed for **%d mA peak**: %s average at full "
               "brightness, against %s for a backpack's segment driven by the chip itself (%g mA peak).\n\n"
               % (5, peak_for(5), PULSE_LIMIT_MA, s.peak_ma, _ma(average_ma(s.peak_ma, 15)),
                  _ma(average_ma(parts.CHIPS["ht16k33"]["row_ma"].value, 15)),
                  parts.CHIPS["ht16k33"]["row_ma"].value))
    out.append("**The segment resistor**: (%g V − %d × %.2f V for the LEDs − %.1f V in the source driver − "
               "%.1f V in the sink driver) / %d mA = %.0f Ω; take **%d Ω** (E12, at or above: the peak then "
               "is %.0f mA).\n\n" % (s.supply_v, s.leds_per_segment, s.led_vf, s.source_drop_v, s.sink_drop_v,
                                   s.peak_ma, r_exact, r, pw["peak_ma"]))
    out.append("**Currents and heat** for one display showing \"88:88\" at full brightness:\n\n")
    out.append("| what | figure |\n|---|---:|\n")
    out.append("| one digit's sink channel, every segment lit (its rating: %d mA) | %.0f mA peak |\n"
               % (SINK_CHANNEL_MA, pw["digit_ma"]))
    out.append("| the %g V supply, average | %.0f mA |\n" % (s.supply_v, pw["supply_ma"]))
    out.append("| the segment resistors, together | %.2f W |\n" % pw["resistor_w"])
    out.append("| the source driver (TBD62783A) | %.2f W |\n" % pw["source_w"])
    out.append("| the sink driver (ULN2803A, at its upper Vce(sat) of %g V) | %.2f W |\n\n" % (s.sink_drop_v, pw["sink_w"]))
    out.append("The 12 V supply, for all the big displays together (\"88:88\" at full brightness, a 25 % margin "
               "as for the wall board's 5 V):\n\n| big displays | 12 V current | supply at least |\n|---:|---:|---:|\n")
    for n in (1, 2, 4, 8):
        out.append("| %d | %.0f mA | %.2f A |\n" % (n, n * pw["supply_ma"], n * pw["supply_ma"] * 1.25 / 1000))
    out.append("\nFor example a Mean Well GST18E12-P1J (12 V 1.5 A) serves up to four. The HT16K33 breakouts stay "
               "on the wall board's 5 V and its I2C bus.\n\n")
    out.append("## Warnings\n\n")
    out.append("- **Ground**: the 12 V supply's minus, the 5 V supply's minus and the ESP32's ground are one "
               "ground. Without it nothing lights, or the wrong digits do.\n")
    out.append("- **The address pads share ROW0-ROW2** (the datasheet's ROW0/A2, ROW1/A1, ROW2/A0): the "
               "chip reads its address on those lines. The driver inputs load them, so a bridged pad may read "
               "as open. Not measured here: after wiring, `carom doctor` names the address each chip answers "
               "at (a chip at 0x70, no pad bridged, is safe).\n")
    out.append("- **The chip runs on %g V here** (its datasheet's 4.5-5.5 V; the drivers' inputs need its "
               "high level). On 5 V its I2C inputs read a high only from 3.5 V: put the level shifter between "
               "the ESP32's 3.3 V bus and the breakout, and nothing on the ESP32's side may pull SDA or SCL up "
               "to 5 V (its pins take 3.6 V at most).\n" % s.logic_v)
    out.append("- **Check your digits' datasheet**: the LEDs in a segment, their forward voltage and their "
               "pulse rating set the resistor; the figures here are a typical 2.3\" red digit's (estimated, "
               "not measured).\n\n")
    out.append("## Where the figures come from\n\n")
    for key in ("holtek", "uln2803", "tbd62783", "hct540", "adafruit-1427", "bss138"):
        out.append("- %s (datasheet)\n" % SOURCES[key])
    out.append("- Estimated here: the LEDs in a 2.3\" segment (%d) and their forward voltage (%.2f V), the "
               "drivers' drops at this current, the pulse rating (a typical red LED chip's). Nothing on this "
               "page was measured.\n" % (s.leds_per_segment, s.led_vf))
    return "".join(out)


# The sign makers' rule: a digit of H inches is legible up to about H x 30 ft (9.1 m), read at a
# glance; comfortable reading (a scoreboard read over a whole match, from any seat) at a third of it.
RULE_M_PER_INCH = 30 * 0.3048
COMFORT = 3
SIZES = (0.56, 1.0, 1.2, 2.3, 3.0, 4.0)


def legible_m(size):
    return size * RULE_M_PER_INCH


def comfortable_m(size):
    return legible_m(size) / COMFORT


def digit_size_markdown():
    direct = max(v for vs in _direct_sizes().values() for v in vs)
    out = ["# Which digit size reads at which distance\n\n",
           "<!-- Generated by `carom board docs` (make docs) from host_tools/hardware/bigdigits.py: edit that "
           "file, never this page. -->\n\n",
           "A scoreboard is read at 3-6 m from the table, from the players' chairs and the spectators' rows. "
           "The sign makers' rule is about **1\" of digit height per 30 ft (9.1 m)** as the farthest distance "
           "it can be read at a glance; for reading over a whole match, from any seat, take a third of that "
           "(this page's choice).\n\n",
           "| digit height | legible up to | comfortable up to | at 3 m | at 6 m |\n|---:|---:|---:|---|---|\n"]
    for size in SIZES:
        def verdict(m):
            return "comfortable" if comfortable_m(size) >= m else ("legible" if legible_m(size) >= m else "too small")
        out.append("| %g\" (%d mm) | %.1f m | %.1f m | %s | %s |\n" % (
            size, round(size * 25.4), legible_m(size), comfortable_m(size), verdict(3), verdict(6)))
    out.append("\nSo 0.56\" digits are marginal across a room (comfortable to %.1f m), 1.0-1.2\" are "
               "comfortable at 3 m and readable at 6 m, and 2.3\" leave margin at 6 m.\n\n" % comfortable_m(0.56))
    out.append("## What the HT16K33 drives directly\n\n")
    out.append("| kind | digit heights sold as HT16K33 backpacks | their LEDs |\n|---|---|---|\n")
    for kind, sizes in _direct_sizes().items():
        notes = []
        for size in sizes:
            p = parts.backpack(kind, size)
            notes.append("%s: %s (%s)" % (parts.size_text(size), p.example, _led_pin_note(kind, size)))
        out.append("| %s | %s | %s |\n" % (parts.KIND_NAMES[kind], ", ".join(parts.size_text(s) for s in sizes),
                                            "; ".join(notes)))
    out.append("\nUp to %s the chip drives the digits itself. The 1.2\" backpack has two LEDs in series in "
               "each segment: its **\"+\" pin needs 5 V** for the LEDs, while its **IO pin** takes the "
               "ESP32's 3.3 V so the I2C lines stay at the ESP32's level. On 3.3 V alone its digits stay "
               "dark or dim.\n\n" % parts.size_text(direct))
    out.append("A board definition says each display's size (`\"size\": 1.2`); the parts list and the power "
               "budget of each board follow it ([boards/wall.md](boards/wall.md)). Larger than %s: "
               "[bigger-digits.md](bigger-digits.md), a buffer stage with the same chip and firmware.\n"
               % parts.size_text(direct))
    return "".join(out)


def _direct_sizes():
    from .. import firmware_path

    firmware_path()
    import boarddef

    return {kind: tuple(sizes) for kind, sizes in boarddef.SIZES.items()}


def _led_pin_note(kind, size):
    key = "%s-%g" % (kind, size)
    pin = parts.LED_PIN.get(key, "+")
    return "LEDs on \"%s\"" % pin

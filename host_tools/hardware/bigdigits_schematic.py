"""The buffer stage of bigdigits.py drawn: docs/build/bigger-digits/buffer-stage.svg.

schematic_svg(design)     one segment line and one digit line, drawn by schemdraw from the
                          design (SVG; the same design gives the same bytes)
"""

from .bigdigits import DESIGN, family, ohm_text, resistors
from .bigdigits_lines import colon_line, com_name, digit_coms, row_name, segment_rows


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

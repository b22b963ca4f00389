"""Bigger digits (host_tools/hardware/bigdigits.py): the buffer stage's arithmetic, its schematic and the
digit-size page.

Tried: the multiplex arithmetic against the datasheet's own numbers (8 digit slots, 16 dimming steps)
worked out here; the segment resistor from the supply, the LED string and the drivers' drops; a
string too long for the supply refused; the schematic parses as SVG, names the chips and the pins of
the HT16K33 it uses, and is the same bytes in two processes; 24 V and eight LEDs a segment change
the page and the picture; the sign makers' rule (1" per 30 ft) behind the distance table."""

import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from host_tools import ROOT
from host_tools.hardware import bigdigits


def test_the_multiplex_arithmetic():
    for peak in (20, 50, 80):
        for b in (0, 4, 8, 15):
            expected = peak / 8 * (b + 1) / 16  # one slot of eight, (b + 1)/16 of the slot
            assert bigdigits.average_ma(peak, b) == pytest.approx(expected)
    assert bigdigits.peak_for(5) == pytest.approx(40)  # 5 mA steady at full brightness: 8 x 5 mA peak
    assert bigdigits.peak_for(5, 7) == pytest.approx(80)


def test_the_segment_resistor():
    s = bigdigits.STAGE
    exact = (s.supply_v - s.leds_per_segment * s.led_vf - s.source_drop_v - s.sink_drop_v) / (s.peak_ma / 1000)
    assert bigdigits.resistor_ohm() == pytest.approx(exact)
    r = bigdigits.e12_above(exact)
    assert r >= exact and r / exact < 1.22  # the next E12 value (steps of at most 21 %)
    assert [bigdigits.e12_above(x) for x in (9.5, 10, 10.1, 36, 39, 821, 1000)] == [10, 10, 12, 39, 39, 1000, 1000]
    p = bigdigits.powers()
    assert p["peak_ma"] <= s.peak_ma and p["digit_ma"] <= bigdigits.SINK_CHANNEL_MA
    with pytest.raises(ValueError, match="cannot drive 6 LEDs"):
        bigdigits.resistor_ohm(s._replace(leds_per_segment=6))


def test_the_schematic_is_svg_names_its_parts_and_is_the_same_every_time():
    svg = bigdigits.schematic_svg()
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    text = " ".join(t.strip() for t in root.itertext())
    for name in ("HT16K33", "ROW0", "COM0", "TBD62783A", "ULN2803A", "74HCT540", "+12 V", "+5 V", "10 kΩ",
                 "%d Ω" % bigdigits.e12_above(bigdigits.resistor_ohm())):
        assert name in text, name
    code = "import sys; from host_tools.hardware import bigdigits; sys.stdout.write(bigdigits.schematic_svg())"
    runs = [subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"}).stdout for seed in ("1", "2")]
    assert runs[0] == runs[1] == svg


def test_a_changed_stage_changes_the_page_and_the_picture():
    other = bigdigits.STAGE._replace(supply_v=24.0, leds_per_segment=8)
    page, svg = bigdigits.page_markdown(other), bigdigits.schematic_svg(other)
    assert page != bigdigits.page_markdown() and svg != bigdigits.schematic_svg()
    r = bigdigits.e12_above(bigdigits.resistor_ohm(other))
    assert "take **%d Ω**" % r in page and "a: 8 LEDs" in svg and "+24 V" in svg
    assert "(8 here: about 15.2 V)" in page


def test_the_distance_table_follows_the_rule():
    assert bigdigits.legible_m(1.0) == pytest.approx(30 * 0.3048)
    page = bigdigits.digit_size_markdown()
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in page.splitlines() if line.startswith("| ") and '"' in line.split("|")[1]}
    assert rows['0.56" (14 mm)'][3] == "too small"  # at 6 m: legible only to 5.1 m
    assert rows['1.2" (30 mm)'][2:4] == ["comfortable", "legible"]
    assert rows['2.3" (58 mm)'][2:4] == ["comfortable", "comfortable"]
    assert "[bigger-digits.md](bigger-digits.md)" in page

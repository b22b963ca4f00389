"""Bigger digits (host_tools/hardware/bigdigits.py): the buffer stage's arithmetic, its
schematic and its two pages.

What is tried:
- the multiplex arithmetic against the datasheet's own numbers written out here (1024 µs lit of
  a 9504 µs frame, 16 steps) and against the 1/8 rule; the peak for a steady look is the
  inverse of the average at every level;
- a string's current against an independent solution: the loop equation built here from the
  raw figures and solved by bisection, for 2 and 4 LEDs, 1 and 8 strings on a digit, typical
  and maximum parts; a digit's 8 strings solved together (they share one ULN2803A output)
  against the stage's peak; each series resistor is the smallest E24 value that keeps the
  string at or under its target;
- the lines the firmware uses (digits on COM0, COM1, COM3, COM4, the colon on COM2 with ROW1,
  segments a-dp on ROW0-ROW7: Adafruit's layout) and their datasheet names;
- the reading distances against the sign makers' rule worked out here (30 ft per inch);
- the schematic parses as SVG, names the chips, pins, rails and values it should, is the same
  bytes from two separate processes (run through `python -m ... OUT_DIR`, which writes the
  three files), and follows the data: a 15 V supply and 5 LEDs a segment change its labels and
  add LED symbols, one LED's worth per LED;
- the pages follow the data too (a 15 V supply, 3 LEDs a segment, a peak too high for the
  ULN2803A shows as a failed check), a supply too low for the LEDs is refused with a message;
- the checked-in docs/build pages and picture are what the generators make now.
"""

import hashlib
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from host_tools import ROOT
from host_tools.hardware import artefacts, bigdigits as bd

D = bd.DESIGN
SVG_NS = "{http://www.w3.org/2000/svg}"


def _texts(svg):
    root = ET.fromstring(svg)
    assert root.tag == SVG_NS + "svg"
    return ["".join(t.itertext()) for t in root.iter(SVG_NS + "text")]


# ---- the multiplex ----------------------------------------------------------------------------


def test_average_current_follows_the_datasheet_frame_and_the_one_eighth_rule():
    # the datasheet: a digit lit 1024 µs of a 9504 µs frame (9 slots of 1056 µs), level n lights (n+1)/16
    for level in (0, 7, 15):
        assert bd.average_ma(60, level) == pytest.approx(60 * 1024 / 9504 * (level + 1) / 16)
        assert bd.average_ma(60, level, "rule") == pytest.approx(60 / 8 * (level + 1) / 16)
    assert bd.average_ma(80, 15, "rule") == pytest.approx(10.0)
    assert bd.pulse_us(7) == pytest.approx(512)
    with pytest.raises(ValueError, match="0-15"):
        bd.average_ma(60, 16)


def test_the_peak_for_a_steady_look_is_the_inverse_of_the_average():
    for level in range(16):
        for kind in ("rule", "datasheet"):
            assert bd.average_ma(bd.peak_for_ma(10, level, kind), level, kind) == pytest.approx(10)
    assert bd.peak_for_ma(10, 15) == pytest.approx(10 * 9504 / 1024)


# ---- one LED string ---------------------------------------------------------------------------------


def _loop_ma(supply, leds, ohm, lit, which):
    """The string's current solved by bisection from the raw figures: the supply equals the drop
    in R and in the source (5 Ω, estimated), n LEDs' VF (the datasheet's at 10 mA, rising 6 Ω)
    and the ULN2803A's VCE(sat) for `lit` such strings (a line through its two points)."""
    f = bd.FIGURES
    vf10 = f["led_vf_v" if which == "typ" else "led_vf_max_v"].value
    (x0, y0), (x1, y1) = f["uln_vce_" + which].value

    def excess(i):  # mA -> volts left over
        vce = y0 + (y1 - y0) / (x1 - x0) * (lit * i - x0)
        vf = vf10 + 6.0 * (i - 10) / 1000
        return supply - i * (ohm + 5.0) / 1000 - leds * vf - vce

    lo, hi = 0.0, 1000.0
    if excess(lo) <= 0:
        return 0.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if excess(mid) > 0 else (lo, mid)
    return lo


@pytest.mark.parametrize(
    "leds, ohm, lit, which",
    [
        (4, 39, 1, "typ"),
        (4, 39, 8, "typ"),
        (4, 39, 8, "max"),
        (2, 110, 1, "typ"),
        (2, 110, 8, "max"),
        (4, 91, 8, "typ"),
    ],
)
def test_a_string_current_solves_its_loop(leds, ohm, lit, which):
    assert bd.string_ma(D, leds, ohm, lit, which) == pytest.approx(
        _loop_ma(D.supply_v, leds, ohm, lit, which), abs=1e-6
    )


def test_a_supply_below_the_leds_gives_no_current_and_a_design_on_it_is_refused():
    assert bd.string_ma(D._replace(supply_v=7.5), 4, 39) == 0.0 == _loop_ma(7.5, 4, 39, 1, "typ")
    with pytest.raises(ValueError, match="cannot light 4 LEDs"):
        bd.resistors(D._replace(supply_v=9.0))


def test_each_resistor_is_the_smallest_e24_value_that_keeps_its_string_at_its_target():
    seg, dp, colon = bd.resistors(D)
    for r in (seg, dp):
        assert r.ohm / 10 ** int(len(str(int(r.ohm))) - 2) in bd.E24
        assert bd.string_ma(D, r.leds, r.ohm) <= D.peak_ma
        lower = [v * 10**k for k in range(0, 4) for v in bd.E24 if v * 10**k < r.ohm][-1]
        assert bd.string_ma(D, r.leds, lower) > D.peak_ma
    # the colon: segment b's resistor plus its own, the same rule for the sum
    assert bd.string_ma(D, colon.leds, seg.ohm + colon.ohm) <= D.peak_ma
    assert colon.ma_alone == pytest.approx(bd.string_ma(D, colon.leds, seg.ohm + colon.ohm))


def test_a_full_digit_solved_as_one_circuit_matches_the_supply_peak():
    """Seven segment strings and the point share one ULN2803A output: solve the eight currents
    together (fixed-point on the shared VCE) and compare with the stage's figure."""
    seg, dp, _ = bd.resistors(D)
    f = bd.FIGURES
    (x0, y0), (x1, y1) = f["uln_vce_typ"].value
    currents = [50.0] * 8
    for _ in range(200):
        vce = y0 + (y1 - y0) / (x1 - x0) * (sum(currents) - x0)
        new = []
        for k in range(8):
            leds, ohm = (D.segment_leds, seg.ohm) if k < 7 else (D.point_leds, dp.ohm)
            # V = I (R + 5) + n (vf10 + 6 (I - 10)/1000) + vce, linear in I
            v0 = f["led_vf_v"].value - 6.0 * 10 / 1000
            new.append(max(0.0, (D.supply_v - leds * v0 - vce) / ((ohm + 5.0 + leds * 6.0) / 1000)))
        currents = new
    assert bd.supply(D).peak_a * 1000 == pytest.approx(sum(currents), rel=0.02)
    assert sum(currents) <= f["uln_channel_ma"].value


def test_the_limits_fail_where_they_should():
    assert all(ok for _, _, _, ok in bd.checks(D)), bd.checks(D)
    hot = dict((what.split(" (")[0], ok) for what, _, _, ok in bd.checks(D._replace(peak_ma=75.0)))
    assert hot["a digit's current in one ULN2803A output"] is False
    stiff = {what: ok for what, _, _, ok in bd.checks(D._replace(com_pullup_ohm=10e3))}
    assert stiff["the level an idle COM0 puts on ROW0-ROW2 through an address jumper"] is False
    # the level itself: (VDD - the diode) through the pull-up into the chip's 39 kΩ
    assert bd.address_leak_v(D) == pytest.approx((5.0 - 0.6) * 39e3 / (220e3 + 39e3))


# ---- the chip's lines ----------------------------------------------------------------------------------


def test_the_lines_are_adafruits_layout_with_the_datasheet_names():
    got = [(ln.what, ln.com, ln.row) for ln in bd.lines()]
    assert got[:5] == [
        ("digit 1", 0, None),
        ("digit 2", 1, None),
        ("digit 3", 3, None),
        ("digit 4", 4, None),
        ("colon", 2, 1),
    ]
    assert got[5:] == [("segment " + s, None, k) for k, s in enumerate(list("abcdefg") + ["dp"])]
    assert [bd.row_name(n) for n in (0, 1, 2, 3, 7, 15)] == [
        "ROW0/A2",
        "ROW1/A1",
        "ROW2/A0",
        "ROW3/K1",
        "ROW7/K5",
        "ROW15/K13/INT",
    ]
    assert [bd.com_name(n) for n in (0, 1, 3, 4)] == ["COM0/AD", "COM1/KS0", "COM3/KS2", "COM4"]


# ---- reading distance ----------------------------------------------------------------------------------


def test_reading_distances_follow_thirty_feet_per_inch():
    assert bd.legible_m(1.0) == pytest.approx(30 * 0.3048)
    assert bd.comfortable_m(1.0) == pytest.approx(20 * 0.3048)
    assert bd.min_size_in(6, comfortable=False) == pytest.approx(6 / 9.144)
    assert bd.legible_m(0.56) < 6 < bd.comfortable_m(1.0) < bd.comfortable_m(1.2)  # the reading of 3-6 m
    page = bd.digit_size_markdown()
    assert '| 6 m | 0.66" | 0.98" | too small | comfortable | comfortable |' in page
    assert "[bigger-digits.md](bigger-digits.md)" in page
    assert '"+" → 5V' in page and '"IO" → 3V3' in page  # the 1.2" backpack's pins, from parts.py


# ---- the picture ---------------------------------------------------------------------------------------


def test_the_schematic_is_svg_naming_its_parts_and_values():
    texts = _texts(bd.schematic_svg())
    joined = " ".join(texts)
    for name in (
        "HT16K33",
        "74HC541",
        "74HC540",
        "TBD62783A",
        "ULN2803A",
        "ROW3/K1",
        "COM0/AD",
        "VDD",
        "VSS",
        "SDA",
        "SCL",
        "I1",
        "O1",
        "VCC",
        "1B",
        "1C",
        "+12 V",
        "+5 V",
        "39 Ω, 1/4 W",
        "220 kΩ",
        "100 kΩ",
        "10 kΩ",
    ):
        assert name in texts or name in joined, name


def test_the_files_are_the_same_bytes_from_two_processes_and_equal_the_functions(tmp_path):
    outs = []
    for run in ("a", "b"):
        out = tmp_path / run
        r = subprocess.run(
            [sys.executable, "-m", "host_tools.hardware.bigdigits", str(out)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0, r.stderr
        outs.append({rel: (out / rel).read_bytes() for rel, _ in bd.PAGES})
    assert outs[0] == outs[1]
    for rel, fn in bd.PAGES:
        assert outs[0][rel] == fn().encode("utf-8"), rel
    assert len({hashlib.sha256(v).hexdigest() for v in outs[0].values()}) == 3


def test_the_picture_follows_the_supply_and_the_leds_in_a_segment():
    base = bd.schematic_svg()
    more = bd.schematic_svg(D._replace(supply_v=15.0, segment_leds=5))
    assert "+15 V" in _texts(more) and "+12 V" not in _texts(more)
    assert "5 LEDs\nin series" in " ".join(_texts(more)) or "5 LEDs" in " ".join(_texts(more))
    r15 = bd.resistors(D._replace(supply_v=15.0, segment_leds=5))[0]
    assert "%s, %s" % (bd.ohm_text(r15.ohm), r15.rating) in _texts(more)
    # one LED's worth of shapes per LED in the string
    three = bd.schematic_svg(D._replace(segment_leds=3)).count("<polygon")
    four, five = base.count("<polygon"), bd.schematic_svg(D._replace(segment_leds=5)).count("<polygon")
    assert five - four == four - three > 0


# ---- the pages -------------------------------------------------------------------------------------------


def test_the_page_follows_the_data():
    page = bd.page_markdown()
    assert "| segments a-g | 4 | 8.6 V |" in page and "39 Ω" in page
    assert "![The buffer stage" in page and "(bigger-digits/buffer-stage.svg)" in page
    assert "| digit 1 | COM0/AD | 74HC540 A1 → Y1 | ULN2803A 1B → 1C |" in page
    assert "**NO**" not in page
    p15 = bd.page_markdown(D._replace(supply_v=15.0))
    assert "switches 15 V onto" in p15 and "the TBD62783A's VCC on 15 V" in p15
    assert "| Mean Well GST25E15-P1J |" in p15 and "| Mean Well GST25E12-P1J |" not in p15
    r15 = bd.resistors(D._replace(supply_v=15.0))[0]
    assert "| segments a-g | 4 | 8.6 V | %s | %s |" % (bd.ohm_text(r15.exact), bd.ohm_text(r15.ohm)) in p15
    three = bd.page_markdown(D._replace(segment_leds=3))
    assert "3 LEDs in series" in three and "| segments a-g | 3 |" in three
    hot = bd.page_markdown(D._replace(peak_ma=75.0))
    assert "| a digit's current in one ULN2803A output (8 strings lit) |" in hot and "**NO**" in hot
    # a chip on 3.3 V takes the 74HCT parts
    assert "74HCT541" in bd.page_markdown(D._replace(logic_v=3.3))


def test_the_checked_in_pages_and_picture_are_what_the_generators_make():
    for rel, fn in bd.PAGES:
        with open(os.path.join(artefacts.DOCS, rel), "rb") as f:
            assert f.read() == fn().encode("utf-8"), "run `make docs`: %s is stale" % rel
    assert set(bd.PAGES) <= set(artefacts.PAGE_ROWS)

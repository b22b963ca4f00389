"""The wiring harness (WireViz YAML) made from a definition, and its drawing by WireViz over
Graphviz.

What is tried:
- every board: each GPIO the definition uses is a pin of the ESP32 connector with a wire on it;
  each backpack a connector with its maker's pin names, cabled from its bus strip, its address
  and jumpers in its label; a button's other side GND when active low, 3V3 when active high;
  the pull resistors of `pull: null` pins; the LEDs with their resistors; the rails;
- the YAML is the same text twice and parses back;
- the drawing, rendered twice from scratch (the cache emptied): the same SVG and PNG bytes; no
  Graphviz version in the SVG; both record the SHA-256 of the YAML they were drawn from, and
  a drawing of another YAML does not pass for this one (the check's test of a stale picture);
- a PNG or SVG without the record: drawn_from is None.
"""

import os
import shutil

import pytest
import yaml

from host_tools import ROOT, firmware_path
from host_tools.hardware import parts, wiring

firmware_path()
import boarddef  # noqa: E402

BOARDS = sorted(n[:-5] for n in os.listdir(os.path.join(ROOT, "boards")) if n.endswith(".json"))
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="no Graphviz dot (apt-get install graphviz)")


def load(name):
    return boarddef.load(os.path.join(ROOT, "boards", name + ".json"))


def ends(h):
    """{(connector, pin)} of every wire end in a harness."""
    out = set()
    for conn in h["connections"]:
        for side in (conn[0], conn[2]):
            ((name, pins),) = side.items()
            out.update((name, p) for p in pins)
    return out


@pytest.mark.parametrize("name", BOARDS)
def test_the_harness_has_every_pin_and_backpack(name):
    bd = load(name)
    h = wiring.harness(bd)
    wired = ends(h)
    gpios = {b["pin"] for b in bd["buttons"]} | {x["pin"] for x in bd["leds"].values()}
    for bus in bd["i2c"]:
        gpios |= {bus["sda"], bus["scl"]}
    if bd["buzzer"] is not None:
        gpios.add(bd["buzzer"])
    if bd["speaker"] is not None:  # the I2S amplifier's three pins
        gpios |= {bd["speaker"][k] for k in ("bck", "ws", "din")}
    esp = h["connectors"]["ESP32"]
    assert {p for p in esp["pins"] if p.startswith("GPIO")} == {"GPIO%d" % g for g in gpios}
    for g in gpios:
        assert ("ESP32", "GPIO%d" % g) in wired, g
    for d in bd["displays"]:
        c = h["connectors"]["B%d_0x%02x" % (d["bus"], d["addr"])]
        part = parts.backpack(d["kind"], parts.digit_size(bd, d))
        assert c["pins"] == [p for p, _, _ in part.pins]  # the maker's pin names
        assert "0x%02x" % d["addr"] in c["type"]
        for p in c["pins"]:
            assert ("B%d_0x%02x" % (d["bus"], d["addr"]), p) in wired
    for b in bd["buttons"]:
        sw = "SW_" + b["name"].replace(".", "_")
        conn = [c for c in h["connections"] if sw in c[2]][0]
        assert conn[0]["ESP32"] == ["GPIO%d" % b["pin"], "GND" if b["active_low"] else "3V3"]
    pulls = [b for b in bd["buttons"] if b["pull"] is None]
    if pulls:
        assert {"GPIO%d" % b["pin"] for b in pulls} <= set(h["connectors"]["PULLS"]["pins"])
    else:
        assert "PULLS" not in h["connectors"]
    for led in bd["leds"]:
        c = h["connectors"]["LED_" + led.replace(".", "_")]
        assert "%d Ω" % parts.led_ohm() in c["additional_components"][0]["type"]
    rails = set(parts.BOARD_RAILS[bd["role"]])
    assert rails <= set(esp["pins"])


def test_the_yaml_is_the_same_twice_and_parses():
    bd = load("wall")
    a, b = wiring.yaml_text(bd), wiring.yaml_text(bd)
    assert a == b
    assert yaml.safe_load(a)["connectors"]["ESP32"]["pins"] == wiring.harness(bd)["connectors"]["ESP32"]["pins"]


@needs_dot
def test_the_drawing_is_deterministic_and_records_its_source():
    bd = load("referee")  # every kind of part: a backpack, buttons, a pull resistor, LEDs, the buzzer
    yml = wiring.yaml_text(bd)
    wiring._drawn.clear()
    svg1, png1 = wiring.draw(yml)
    wiring._drawn.clear()
    svg2, png2 = wiring.draw(yml)
    assert svg1 == svg2 and png1 == png2
    assert svg1.startswith(b"<?xml") and b"</svg>" in svg1 and png1[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"graphviz version" not in svg1.lower()
    assert wiring.drawn_from(svg1) == wiring.drawn_from(png1) == wiring.source_hash(yml)
    assert wiring.is_current(bd, svg1) and wiring.is_current(bd, png1)
    for text in (b"GPIO34", b"0x70", b"B0_0x70"):
        assert text in svg1, text
    other = dict(bd, buzzer=16)  # another harness: its drawing is stale for this one
    assert not wiring.is_current(other, svg1) and not wiring.is_current(other, png1)


def test_a_drawing_without_its_record():
    png = wiring._png_with_text(
        b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\x0dIHDR" + b"\x00" * 13 + b"\x00" * 4, b"other", b"x"
    )
    assert wiring.drawn_from(png) is None
    assert wiring.drawn_from(b"<?xml version='1.0'?><svg></svg>") is None

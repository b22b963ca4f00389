"""The parts list, the power budget and the pin table of a board, against counts and sums made
here from the board files (read as plain JSON, not through boarddef) and the catalogue's figures.

What is tried:
- every board in boards/: each part's quantity counted from its JSON (backpacks by kind and digit
  size, buttons, LEDs and their resistors, the pull resistors of pins with `pull: null`, the
  buzzer, housings and crimps by the backpacks' pin counts, cable metres from the catalogue's
  lengths); the CSV parses with its header and each total is qty x price;
- a display without "size": the role's default (1.2" on a wall board, 0.56" on a remote), said
  so in the parts list; a 1.2" display on a remote: the warning that a LiPo cell has no 5 V;
- the power budget of mini and wall against a hand calculation (segments x ROW current / 8 x
  (brightness + 1)/16; "8." in every digit and the colon), the rail sums and the supply picked;
- the referee's battery life against a hand calculation from AWAKE_MS and SHOW_MS as
  firmware/app_remote.py sets them (read here with a regex), and a longer AWAKE_MS costing more;
- the pin table: every GPIO a definition uses, its pull and level, and each address with the
  A0/A1/A2 pads a hand-made table gives.
"""

import copy
import csv
import io
import json
import math
import os
import re

import pytest

from host_tools import ROOT, firmware_path
from host_tools.hardware import bom, parts, pins, power

firmware_path()
import boarddef  # noqa: E402

BOARDS = sorted(n[:-5] for n in os.listdir(os.path.join(ROOT, "boards")) if n.endswith(".json"))
DEFAULT = {("wall", "seg7"): 1.2, ("wall", "seg14"): 0.54, ("remote", "seg7"): 0.56, ("remote", "seg14"): 0.54}
PINS_OF = {"seg7-0.56": 4, "seg7-1.2": 5, "seg14-0.54": 5}  # the backpacks' headers, as their makers fit them


def raw(name):
    with open(os.path.join(ROOT, "boards", name + ".json")) as f:
        return json.load(f)


def displays(d):
    return d.get("displays", [])


def qty(bd, key):
    return sum(line.qty for line in bom.lines(bd) if line.part.key == key)


@pytest.mark.parametrize("name", BOARDS)
def test_quantities_are_counted_from_the_definition(name):
    d = raw(name)
    bd = boarddef.load(d)
    role = d["role"]
    # backpacks by kind and digit height
    want = {}
    for disp in displays(d):
        key = "%s-%g" % (disp["kind"], disp.get("size", DEFAULT[(role, disp["kind"])]))
        want[key] = want.get(key, 0) + 1
    got = {line.part.key: line.qty for line in bom.lines(bd) if line.part.key.startswith("seg")}
    assert got == want
    assert qty(bd, "esp32-firebeetle" if role == "remote" else "esp32-devkitc") == 1
    assert qty(bd, "button-tactile" if role == "remote" else "button-arcade") == len(d["buttons"])
    assert qty(bd, "led") == qty(bd, "resistor-led") == len(d.get("leds", {}))
    assert qty(bd, "resistor-pull") == sum(1 for b in d["buttons"].values() if b["pull"] is None)
    assert qty(bd, "buzzer") == (0 if d.get("buzzer") is None else 1)
    fours = sum(n for k, n in want.items() if PINS_OF[k] == 4)
    fives = sum(n for k, n in want.items() if PINS_OF[k] == 5)
    assert qty(bd, "housing-4") == fours and qty(bd, "housing-5") == fives
    assert qty(bd, "crimp") == 4 * fours + 5 * fives
    if role == "wall":
        assert qty(bd, "dc-jack") == 1 and qty(bd, "battery") == 0
        assert sum(line.qty for line in bom.lines(bd) if line.part.key.startswith("supply-")) == 1
        n = parts.LENGTHS["wall"]
        two = (
            len(d["buttons"]) * n["button"]
            + len(d.get("leds", {})) * n["led"]
            + (n["buzzer"] if d.get("buzzer") is not None else 0)
        )
        assert qty(bd, "cable-2") == math.ceil(two * 2 - 1e-9) / 2
        assert qty(bd, "cable-%d" % 5) == (math.ceil(fives * n["display"] * 2 - 1e-9) / 2 if fives else 0)
    else:
        assert qty(bd, "battery") == 1 and qty(bd, "dc-jack") == 0
        assert not [line for line in bom.lines(bd) if line.part.key.startswith(("supply-", "cable-"))]


@pytest.mark.parametrize("name", BOARDS)
def test_the_csv_parses_and_adds_up(name):
    bd = boarddef.load(raw(name))
    rows = list(csv.DictReader(io.StringIO(bom.report(bd, "csv"))))
    assert tuple(rows[0].keys()) == bom.CSV_COLUMNS
    assert [r["item"] for r in rows] == [line.part.key for line in bom.lines(bd)]
    for r in rows:
        assert abs(float(r["qty"]) * float(r["price_eur_each"]) - float(r["price_eur_total"])) < 0.006, r
        assert r["example"] and r["part"] and r["unit"] in ("pcs", "m")
    assert len(rows) == len(bom.lines(bd))


def test_a_display_without_a_size_takes_its_roles_default():
    d = raw("wall")
    for disp in d["displays"]:
        disp.pop("size", None)
    bd = boarddef.load(d)
    assert all("size" not in disp for disp in bd["displays"])  # the normalized definition stays as small
    got = {line.part.key: line.qty for line in bom.lines(bd) if line.part.key.startswith("seg")}
    assert got == {"seg7-1.2": 13, "seg14-0.54": 3}
    assert "no size given: the wall board's default" in bom.report(bd)
    r = raw("referee")
    del r["displays"][0]["size"]
    assert [line.part.key for line in bom.lines(boarddef.load(r)) if line.part.key.startswith("seg")] == ["seg7-0.56"]
    # a 1.2" display on a remote: its LEDs need 5 V, which a LiPo cell does not give
    r["displays"][0]["size"] = 1.2
    b = power.budget(boarddef.load(r))
    assert b.warnings and "needs 5 V" in b.warnings[0] and "0x70" in b.warnings[0]
    assert "Warning: " in power.report(boarddef.load(r))


def test_a_size_not_sold_is_no_part():
    with pytest.raises(ValueError, match='no seg7 backpack of 0.8" digits'):
        parts.backpack("seg7", 0.8)


# ---- the power budget -------------------------------------------------------------------------------

ROW = parts.CHIPS["ht16k33"]["row_ma"].value
COMS = parts.CHIPS["ht16k33"]["coms"].value
WORST7 = 4 * (7 + 1) + 1  # "8." in each of four digits, and the colon
WORST14 = 4 * (14 + 1)  # every segment and the point of each of four characters
TYPICAL7 = 4 * (6 + 2 + 5 + 5 + 4 + 5 + 6 + 3 + 7 + 6) / 10.0  # the segments of 0..9, on average


def by_what(b, start):
    rows = [r for r in b.rows if r.what.startswith(start)]
    assert len(rows) == 1, (start, rows)
    return rows[0]


def test_the_segments_counted_from_the_fonts_are_the_hand_counts():
    assert power.segments("seg7") == (WORST7, TYPICAL7)
    assert power.segments("seg14")[0] == WORST14


def test_the_budget_of_mini_by_hand():
    bd = boarddef.load(raw("mini"))
    b = power.budget(bd)
    level = bd["displays"][0]["brightness"]
    full = WORST7 * ROW / COMS
    for d in bd["displays"]:
        r = by_what(b, "bus 0 0x%02x " % d["addr"])
        assert r.rail == "5V"  # a 1.2" backpack's LEDs
        assert r.full == pytest.approx(full)
        assert r.worst == pytest.approx(full * (level + 1) / 16)
        assert r.typical == pytest.approx(TYPICAL7 * ROW / COMS * (level + 1) / 16)
    esp = parts.CHIPS["esp32"]
    chips = 2 * parts.CHIPS["ht16k33"]["logic_ma"].value  # on 5V: a 1.2" backpack's "+" feeds its chip too
    five = 2 * full + chips
    three = esp["wifi_tx_ma"].value + parts.PARTS["esp32-devkitc"].figures["overhead_ma"].value
    assert b.rails["5V"][2] == pytest.approx(five)
    assert b.rails["3V3"][2] == pytest.approx(three)
    need = (five + three) * (1 + parts.SUPPLY_MARGIN)
    assert b.need_ma == pytest.approx(need)
    smallest = min(
        (p for p in parts.PARTS.values() if p.key.startswith("supply-") and p.figures["a"].value * 1000 >= need),
        key=lambda p: p.figures["a"].value,
    )
    assert b.supply is smallest


def test_the_wall_boards_supply_covers_every_segment_at_full_brightness():
    d = raw("wall")
    bd = boarddef.load(d)
    b = power.budget(bd)
    n7 = sum(1 for x in d["displays"] if x["kind"] == "seg7")
    n14 = len(d["displays"]) - n7
    leds = n7 * WORST7 * ROW / COMS + n14 * WORST14 * ROW / COMS  # all on 5V: "+" and VHi
    amp = parts.PARTS["amp-i2s"].figures["max_ma"].value if d.get("speaker") else 0  # speaking at full volume
    assert b.rails["5V"][2] == pytest.approx(leds + n7 * parts.CHIPS["ht16k33"]["logic_ma"].value + amp)
    led_ma = (3.3 - parts.PARTS["led"].figures["vf_v"].value) / parts.led_ohm() * 1000
    three = (
        parts.CHIPS["esp32"]["wifi_tx_ma"].value
        + parts.PARTS["esp32-devkitc"].figures["overhead_ma"].value
        + n14 * parts.CHIPS["ht16k33"]["logic_ma"].value
        + len(d["leds"]) * led_ma
        + parts.PARTS["buzzer"].figures["ma"].value
        + sum(1 for x in d["buttons"].values() if x["pull"] is None) * 3.3 / 10000 * 1000
    )
    assert b.rails["3V3"][2] == pytest.approx(three)
    assert b.supply.figures["a"].value * 1000 >= (b.rails["5V"][2] + three) * (1 + parts.SUPPLY_MARGIN)
    text = power.report(bd)
    assert b.supply.example in text and "%d %% margin" % (parts.SUPPLY_MARGIN * 100) in text


def test_a_led_resistor_from_the_leds_figures():
    vf = parts.PARTS["led"].figures["vf_v"].value
    target = parts.PARTS["led"].figures["target_ma"].value
    ohm = parts.led_ohm()
    assert ohm >= (3.3 - vf) / target * 1000  # never more than the target current
    assert (3.3 - vf) / ohm * 1000 > 0.8 * target  # the next E12 value up, not far off
    assert parts.led_resistor().example.endswith("%dR" % ohm if ohm < 1000 else "K")


def _app_remote_ms():
    with open(os.path.join(ROOT, "firmware", "app_remote.py")) as f:
        src = f.read()
    return (
        int(re.search(r"^AWAKE_MS = (\d+)", src, re.M).group(1)),
        int(re.search(r"^SHOW_MS = (\d+)", src, re.M).group(1)),
    )


def test_the_referees_battery_by_hand():
    d = raw("referee")
    bd = boarddef.load(d)
    awake_ms, show_ms = _app_remote_ms()
    assert power.remote_times() == (awake_ms, show_ms)
    esp = {k: f.value for k, f in parts.CHIPS["esp32"].items()}
    level = d["brightness"]
    display = TYPICAL7 * ROW / COMS * (level + 1) / 16
    led = (3.3 - parts.PARTS["led"].figures["vf_v"].value) / parts.led_ohm() * 1000
    press = (
        (power.WAKE_S + power.FIRMWARE_S) * esp["cpu_ma"]  # the chip's start, then the firmware's
        + (power.EXCHANGE_S + awake_ms / 1000.0) * (esp["wifi_listen_ma"] + display + led)
        + show_ms / 1000.0 * (esp["light_sleep_ma"] + display + led)
    )
    bt = power.battery(bd)
    assert bt.press_mas == pytest.approx(press)
    sleep_ua = (
        parts.PARTS["esp32-firebeetle"].figures["deep_sleep_ua"].value + parts.CHIPS["ht16k33"]["standby_ua"].value
    )
    assert bt.sleep_ua == pytest.approx(sleep_ua)
    day = power.PRESSES_PER_MATCH * power.MATCHES_PER_DAY * press / 3600 + sleep_ua * 24 / 1000
    cell = parts.PARTS["battery"].figures
    assert bt.life_days == pytest.approx(cell["mah"].value * cell["usable"].value / day)
    text = power.report(bd, "md")
    assert "AWAKE_MS = %d and SHOW_MS = %d" % (awake_ms, show_ms) in text
    assert "**about %d days**" % bt.life_days in text and "DevKitC" in text


def test_a_longer_awake_time_costs_battery(monkeypatch):
    bd = boarddef.load(raw("referee"))
    awake_ms, show_ms = _app_remote_ms()
    before = power.battery(bd)
    monkeypatch.setattr(power, "remote_times", lambda: (awake_ms + 1000, show_ms))
    after = power.battery(bd)
    radio = parts.CHIPS["esp32"]["wifi_listen_ma"].value
    assert after.press_mas - before.press_mas > 1.0 * radio  # a second more with the radio on
    assert after.life_days < before.life_days


# ---- the pin table ------------------------------------------------------------------------------------

JUMPERS = {
    0x70: (),
    0x71: ("A0",),
    0x72: ("A1",),
    0x73: ("A0", "A1"),
    0x74: ("A2",),
    0x75: ("A0", "A2"),
    0x76: ("A1", "A2"),
    0x77: ("A0", "A1", "A2"),
}


def test_jumpers_of_every_address():
    for addr, pads in JUMPERS.items():
        assert pins.jumpers(addr) == pads
    with pytest.raises(ValueError):
        pins.jumpers(0x78)


@pytest.mark.parametrize("name", BOARDS)
def test_the_pin_table_shows_every_pin_and_every_addresss_jumpers(name):
    d = raw(name)
    bd = boarddef.load(d)
    text = pins.table(bd, "text")
    lines = text.splitlines()

    def row(gpio):
        found = [ln for ln in lines if re.match(r"GPIO%d\s" % gpio, ln)]
        assert len(found) == 1, (gpio, found)
        return found[0]

    buses = d.get("i2c") or []
    buses = [buses] if isinstance(buses, dict) else buses
    for bus in buses:
        assert "I2C bus %d SDA" % bus["bus"] in row(bus["sda"])
        assert "I2C bus %d SCL" % bus["bus"] in row(bus["scl"])
    for bname, b in d["buttons"].items():
        r = row(b["pin"])
        assert 'button "%s"' % bname in r
        assert (" low " if b["active_low"] else " high ") in r + " "
        if b["pull"] is None:
            assert "external 10 kΩ pull-%s" % ("up" if b["active_low"] else "down") in r
        else:
            assert "internal pull-%s" % b["pull"] in r
    for lname, led in d.get("leds", {}).items():
        pin = led if isinstance(led, int) else led["pin"]
        assert 'LED "%s"' % lname in row(pin)
    if d.get("buzzer") is not None:
        assert "buzzer" in row(d["buzzer"])
    used = {int(m) for m in re.findall(r"^GPIO(\d+)\s", text, re.M)}
    assert len(used) == len([ln for ln in lines if re.match(r"GPIO\d+\s", ln)])  # one row a pin
    md = pins.table(bd, "md")
    for disp in displays(d):
        addr = int(disp["addr"], 16)
        bus = disp.get("bus", buses[0]["bus"])
        bridge = " + ".join(JUMPERS[addr]) or "none (as shipped)"
        assert re.search(r"^\| %d \| 0x%02x \| %s \|" % (bus, addr, re.escape(bridge)), md, re.M), (bus, addr)
    for rail in ("GND", "3V3", "5V" if d["role"] == "wall" else "BAT"):
        assert re.search(r"^\| %s \|" % rail, md, re.M), rail


def test_a_changed_address_changes_its_jumpers():
    d = copy.deepcopy(raw("mini"))
    d["displays"][1]["addr"] = "0x75"
    md = pins.table(boarddef.load(d), "md")
    assert "| 0 | 0x75 | A0 + A2 |" in md and "0x71" not in md

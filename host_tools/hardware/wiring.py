"""The wiring of a board as a WireViz harness, drawn by WireViz over Graphviz (SVG and PNG).

    harness(bd)        the harness: {"connectors", "cables", "connections"} (WireViz's schema)
    cables(bd)         each cable or wire of it: (name, cores, metres, "cable" or "wire")
    yaml_text(bd)      the harness as WireViz YAML (what wiring.yml holds)
    svg(bd), png(bd)   the drawing (bytes), rendered once per harness and kept for the other
    source_hash(yml)   the SHA-256 a drawing records of the YAML it was drawn from
    drawn_from(data)   that hash, read back from an SVG or a PNG (None if it has none)

How a board is laid out: a main board (stripboard) carries the ESP32 board, one bus strip per
I2C bus (a row of pin headers where every backpack's cable plugs in: SDA, SCL, 3V3, 5V, GND),
the external pull resistors and the DC jack's leads; from it a cable goes to each backpack,
button, LED and the buzzer. So sixteen backpacks are sixteen short cables off two strips,
never one long chain. The displays' 5 V goes from the jack to the strips, not through the
ESP32 board. A remote is the same in one box, in hook-up wire, its LiPo cell in the board's
socket.

Every drawing records the SHA-256 of the YAML it was drawn from (an XML comment in the SVG, a
tEXt chunk in the PNG): `carom board docs --check` compares that with the YAML the definition
makes now, so a checked-in picture is stale exactly when its harness changed, whichever
Graphviz version and fonts drew it. The bytes themselves are deterministic for one Graphviz
(no dates; Graphviz's version comment is removed).
"""

import hashlib
import re
import struct
import zlib

import yaml

from . import parts
from .pins import chip_rows, jumper_text, pulls

COLORS = {
    "SDA": "BU",
    "SCL": "YE",
    "3V3": "OG",
    "5V": "RD",
    "GND": "BK",
    "BAT": "RD",
    "signal": "GN",
    "led": "VT",
    "buzzer": "WH",
    "i2s": "GY",
    "speaker": "BN",
}
_HASH_KEY = b"carom-wiring-yml-sha256"
_SVG_MARK = "<!-- carom: drawn from wiring.yml sha256 %s -->"


def _designator(kind, name):
    return "%s_%s" % (kind, re.sub(r"[^A-Za-z0-9]", "_", name))


def _gpio(pin):
    return "GPIO%d" % pin


class _Plan:
    def __init__(self, bd):
        self.bd = bd
        self.role = bd["role"]
        self.lengths = parts.LENGTHS[self.role]
        self.connectors = {}
        self.cables = {}
        self.connections = []
        self.kinds = {}  # cable name -> "cable" or "wire"

    def connector(self, name, **kw):
        self.connectors[name] = kw

    def cable(self, a, a_pins, b, b_pins, rails, use, notes=None):
        """A cable of len(a_pins) cores from connector a's pins to connector b's pins; `rails`
        names each core's signal (its colour); `use` picks its length (parts.LENGTHS)."""
        name = "W%d" % (len(self.cables) + 1)
        inside = self.role == "remote" or use == "link"
        length = self.lengths[use]
        spec = {
            "wirecount": len(a_pins),
            "colors": [COLORS.get(r, "GN") for r in rails],
            "length": round(length, 2),
            "gauge": "0.14 mm2" if inside else "0.25 mm2",
            "type": "hook-up wire" if inside else "LiYY %d × 0.25 mm²" % len(a_pins),
        }
        if notes:
            spec["notes"] = notes
        self.cables[name] = spec
        self.kinds[name] = "wire" if inside else "cable"
        self.connections.append([{a: list(a_pins)}, {name: list(range(1, len(a_pins) + 1))}, {b: list(b_pins)}])
        return name


def _plan(bd):
    p = _Plan(bd)
    role = bd["role"]
    board = parts.esp32_board(role)
    marks = parts.PIN_MARKS.get(board.key, {})
    chips = chip_rows(bd)
    ext = pulls(bd)
    rails_of_bus = {}
    for c in chips:
        for _, rail, _ in c.part.pins:
            rails_of_bus.setdefault(c.bus, set()).add(rail)

    # the ESP32 board: the GPIOs in use, then its rails
    labels = _gpio_labels(bd)
    gpios = sorted(labels)
    power = list(parts.BOARD_RAILS[role])
    pins = [_gpio(g) for g in gpios] + power
    pinlabels = [labels[g] + (" (%s)" % marks[g] if g in marks else "") for g in gpios] + [
        {"5V": "from the DC jack", "BAT": "the LiPo cell", "3V3": "out: the regulator", "GND": "ground"}[r]
        for r in power
    ]
    p.connector("ESP32", type=board.what, subtype=board.example, pins=pins, pinlabels=pinlabels)

    if role == "wall":
        p.connector(
            "JACK",
            type=parts.PARTS["dc-jack"].what,
            subtype="from the 5 V supply",
            pins=["+", "-"],
            pinlabels=["5 V", "GND"],
        )
        p.cable("JACK", ["+", "-"], "ESP32", ["5V", "GND"], ["5V", "GND"], "link")
    else:
        cell = parts.PARTS["battery"]
        p.connector("CELL", type=cell.what, subtype=cell.example, pins=["+", "-"], pinlabels=["3.7 V", "GND"])
        p.cable(
            "CELL",
            ["+", "-"],
            "ESP32",
            ["BAT", "GND"],
            ["BAT", "GND"],
            "link",
            notes="the cell's own leads, in the board's JST-PH socket",
        )

    # one bus strip per I2C bus, a cable from it to each backpack
    for bus in bd["i2c"]:
        need = rails_of_bus.get(bus["bus"], set())
        strip = ["SDA", "SCL", "3V3"] + (["5V"] if "5V" in need else []) + ["GND"]
        name = "BUS%d" % bus["bus"]
        p.connector(
            name,
            type="I2C bus %d strip (on the main board)" % bus["bus"],
            subtype="%d kHz: SDA GPIO%d, SCL GPIO%d" % (bus["freq"] // 1000, bus["sda"], bus["scl"]),
            pins=strip,
        )
        p.cable(
            "ESP32",
            [_gpio(bus["sda"]), _gpio(bus["scl"]), "3V3", "GND"],
            name,
            ["SDA", "SCL", "3V3", "GND"],
            ["SDA", "SCL", "3V3", "GND"],
            "link",
        )
        if "5V" in need:
            src = "JACK" if role == "wall" else "ESP32"
            p.cable(src, ["+", "-"] if role == "wall" else ["BAT", "GND"], name, ["5V", "GND"], ["5V", "GND"], "link")
        for c in chips:
            if c.bus != bus["bus"]:
                continue
            d = "B%d_0x%02x" % (c.bus, c.addr)
            p.connector(
                d,
                type="%s backpack at 0x%02x" % (parts.backpack_name(c.kind, c.size), c.addr),
                subtype="%s; bridge %s" % (c.part.example.split(" (")[0], jumper_text(c.addr)),
                notes="shows %s" % c.shows,
                pins=[pin for pin, _, _ in c.part.pins],
            )
            order = [pin for pin, _, _ in c.part.pins]
            rails = [rail for _, rail, _ in c.part.pins]
            p.cable(name, rails, d, order, rails, "display")

    # the pull resistors the ESP32 has not got: on the main board
    if ext:
        ohm = parts.PARTS["resistor-pull"].figures["ohm"].value
        ppins = [_gpio(pin) for _, pin, _ in ext]
        ends = sorted({"3V3" if way == "up" else "GND" for _, _, way in ext})
        p.connector(
            "PULLS",
            type="%d kΩ pull resistors (on the main board)" % (ohm // 1000),
            pins=ppins + ends,
            pinlabels=["%s to %s" % (b["name"], "3V3" if way == "up" else "GND") for b, _, way in ext]
            + ["" for _ in ends],
        )
        p.cable("ESP32", ppins + ends, "PULLS", ppins + ends, ["signal"] * len(ppins) + ends, "link")

    # buttons: the pin and the other side (GND when active low, 3V3 when active high)
    for b in bd["buttons"]:
        d = _designator("SW", b["name"])
        other = "GND" if b["active_low"] else "3V3"
        acts = b["action"] or "-"
        if b["long_action"]:
            acts += "; long: %s" % b["long_action"]
        p.connector(
            d,
            type="button %s" % b["name"],
            subtype=acts,
            pins=["NO", "C"],
            pinlabels=["to %s" % _gpio(b["pin"]), "to %s" % other],
        )
        p.cable("ESP32", [_gpio(b["pin"]), other], d, ["NO", "C"], ["signal", other], "button")

    # LEDs, each through its resistor (in series, at the main board)
    ohm = parts.led_ohm()
    for name, led in sorted(bd["leds"].items()):
        d = _designator("LED", name)
        if led["active_low"]:
            a, k = ("3V3", _gpio(led["pin"]))
        else:
            a, k = (_gpio(led["pin"]), "GND")
        p.connector(
            d,
            type="LED %s" % name,
            subtype=parts.PARTS["led"].example,
            pins=["A", "K"],
            pinlabels=["anode, through %d Ω" % ohm, "cathode"],
            additional_components=[
                {"type": "resistor %d Ω in series with the anode (at the main board)" % ohm, "qty": 1}
            ],
        )
        p.cable("ESP32", [a, k], d, ["A", "K"], ["led" if a != "3V3" else "3V3", "GND" if k == "GND" else "led"], "led")

    if bd["buzzer"] is not None:
        p.connector("BUZZER", type="piezo buzzer", subtype=parts.PARTS["buzzer"].example, pins=["+", "-"])
        p.cable("ESP32", [_gpio(bd["buzzer"]), "GND"], "BUZZER", ["+", "-"], ["buzzer", "GND"], "buzzer")
    spk = bd.get("speaker")
    if spk is not None:
        amp = parts.PARTS["amp-i2s"]
        p.connector(
            "AMP",
            type="I2S amplifier, MAX98357A",
            subtype=amp.example,
            pins=["VIN", "GND", "BCLK", "LRC", "DIN", "GAIN", "+", "-"],
            pinlabels=[
                "5V",
                "GND",
                "bit clock",
                "word select",
                "data",
                "%d dB: %s" % (spk["gain_db"], parts.GAIN_WIRING[spk["gain_db"]]),
                "speaker +",
                "speaker -",
            ],
        )
        p.cable(
            "ESP32",
            ["5V" if role == "wall" else "BAT", "GND", _gpio(spk["bck"]), _gpio(spk["ws"]), _gpio(spk["din"])],
            "AMP",
            ["VIN", "GND", "BCLK", "LRC", "DIN"],
            ["5V", "GND", "i2s", "i2s", "i2s"],
            "link",
            notes="the amplifier on the main board, beside the ESP32",
        )
        p.connector("SPEAKER", type="loudspeaker 8 Ω", subtype=parts.PARTS["speaker"].example, pins=["+", "-"])
        p.cable(
            "AMP",
            ["+", "-"],
            "SPEAKER",
            ["+", "-"],
            ["speaker", "speaker"],
            "link",
            notes="the speaker in the same case, facing the room",
        )
    return p


def _gpio_labels(bd):
    """{GPIO: what it is wired to} of each GPIO the board uses."""
    labels = {}
    for bus in bd["i2c"]:
        labels[bus["sda"]] = "I2C %d SDA" % bus["bus"]
        labels[bus["scl"]] = "I2C %d SCL" % bus["bus"]
    for b in bd["buttons"]:
        labels[b["pin"]] = "button %s" % b["name"]
    for name, led in bd["leds"].items():
        labels[led["pin"]] = "LED %s" % name
    if bd["buzzer"] is not None:
        labels[bd["buzzer"]] = "buzzer"
    spk = bd.get("speaker")
    if spk is not None:
        labels[spk["bck"]] = "I2S BCLK"
        labels[spk["ws"]] = "I2S LRC"
        labels[spk["din"]] = "I2S DIN"
    return labels


# WireViz's look: parts written out in each node (not as BOM numbers), ranks 1 inch apart
# (WireViz's 2 makes the wall board's drawing 60 inches wide), the PNG at 72 dpi.
OPTIONS = {"mini_bom_mode": False}
TWEAK = {"override": {"graph": {"ranksep": "1", "dpi": "72"}}}
PNG_COLORS = 64  # the PNG as a palette image: a third of the size, the same to the eye


def harness(bd):
    p = _plan(bd)
    return {
        "options": OPTIONS,
        "tweak": TWEAK,
        "connectors": p.connectors,
        "cables": p.cables,
        "connections": p.connections,
    }


def cables(bd):
    """(name, cores, metres, "cable" or "wire") of each cable of the harness."""
    p = _plan(bd)
    return [(n, c["wirecount"], c["length"], p.kinds[n]) for n, c in p.cables.items()]


def yaml_text(bd):
    head = (
        "# The wiring of board %r, made from %s by `carom board wiring` (host_tools/hardware/wiring.py).\n"
        "# WireViz draws it: `wireviz wiring.yml`. Edit the board definition, not this file.\n"
        % (bd["name"], "boards/%s.json" % bd["name"])
    )
    return head + yaml.safe_dump(harness(bd), sort_keys=False, allow_unicode=True, width=120)


def source_hash(yml):
    return hashlib.sha256(yml.encode("utf-8")).hexdigest()


_drawn = {}  # the last drawing: {yml: (svg, png)}


def draw(yml):
    """(svg bytes, png bytes) of a harness's YAML, by WireViz over Graphviz; each records the
    YAML's hash. One drawing is kept, so svg() and png() of one board render once."""
    if yml in _drawn:
        return _drawn[yml]
    from wireviz import wireviz as wv

    svg_text, png_data = wv.parse(yaml.safe_load(yml), return_types=("svg", "png"))
    digest = source_hash(yml)
    svg_text = re.sub(r"<!-- Generated by graphviz[^>]*-->\n?", "", svg_text)
    svg_text = re.sub(r"(<svg\b)", (_SVG_MARK % digest) + "\n\\1", svg_text, count=1)
    out = (svg_text.encode("utf-8"), _png_with_text(_palette(png_data), _HASH_KEY, digest.encode("ascii")))
    _drawn.clear()
    _drawn[yml] = out
    return out


def svg(bd):
    return draw(yaml_text(bd))[0]


def png(bd):
    return draw(yaml_text(bd))[1]


def _palette(data):
    """Graphviz's RGBA PNG as a PNG_COLORS-colour palette image (Pillow, which WireViz uses)."""
    import io

    from PIL import Image

    im = Image.open(io.BytesIO(data)).convert("RGB")
    q = im.quantize(colors=PNG_COLORS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    q.save(out, "PNG", optimize=True)
    return out.getvalue()


def _png_with_text(data, key, value):
    """The PNG with a tEXt chunk (key, value) after its header chunk."""
    sig, rest = data[:8], data[8:]
    if sig != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    ihdr_len = struct.unpack(">I", rest[:4])[0]
    ihdr = rest[: 12 + ihdr_len]
    body = key + b"\0" + value
    chunk = struct.pack(">I", len(body)) + b"tEXt" + body + struct.pack(">I", zlib.crc32(b"tEXt" + body) & 0xFFFFFFFF)
    return sig + ihdr + chunk + rest[12 + ihdr_len :]


def drawn_from(data):
    """The YAML hash a drawing records (SVG or PNG bytes), or None."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        pos = 8
        while pos + 8 <= len(data):
            n, kind = struct.unpack(">I4s", data[pos : pos + 8])
            if kind == b"tEXt":
                key, _, value = data[pos + 8 : pos + 8 + n].partition(b"\0")
                if key == _HASH_KEY:
                    return value.decode("ascii", "replace")
            if kind == b"IDAT":
                return None
            pos += 12 + n
        return None
    m = re.search(rb"<!-- carom: drawn from wiring.yml sha256 ([0-9a-f]{64}) -->", data[:4096])
    return m.group(1).decode("ascii") if m else None


def is_current(bd, data):
    """Whether a drawing was drawn from the harness the definition makes now."""
    return drawn_from(data) == source_hash(yaml_text(bd))


svg.is_current = is_current
png.is_current = is_current

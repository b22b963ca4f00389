"""The pin table of a board: each ESP32 GPIO and what it connects to (pull resistor, active
level), each I2C bus (SDA, SCL, frequency, its chips), each chip's address and the address
jumpers to bridge for it, and the rails.

    gpio_rows(bd)        one Gpio per pin in use, by GPIO number
    chip_rows(bd)        one Chip per display: bus, address, jumpers, backpack, what it shows
    jumpers(addr)        the pads to bridge for an address: ("A0", "A2") for 0x75
    pulls(bd)            the external pull resistors: (button, GPIO, "up" or "down")
    rails(bd)            (rail, what feeds it, what it feeds)
    table(bd, fmt)       all of it as text or Markdown ("text" or "md")

An HT16K33 backpack answers at 0x70 + A0 + 2 × A1 + 4 × A2, each An being 1 when its pad is
bridged with solder (the pads are marked A0, A1, A2 on the back of Adafruit's backpacks).
"""

from collections import namedtuple

from . import parts, text

Gpio = namedtuple("Gpio", "gpio what pull active note")
Chip = namedtuple("Chip", "bus addr kind jumpers part size shows")

BASE_ADDR = 0x70
INPUT_ONLY = range(34, 40)  # GPIO34-39: inputs without internal pulls (boarddef says so too)


def jumpers(addr):
    """The address pads to bridge for `addr` (0x70..0x77): A0 = 1, A1 = 2, A2 = 4."""
    n = addr - BASE_ADDR
    if not 0 <= n <= 7:
        raise ValueError("0x%02x is not an HT16K33 address (0x70..0x77)" % addr)
    return tuple("A%d" % i for i in range(3) if n >> i & 1)


def jumper_text(addr):
    j = jumpers(addr)
    return " + ".join(j) if j else "none (as shipped)"


def shows_text(display):
    show = display["show"]
    if len(show) == 1 and show[0]["at"] == 0 and show[0]["width"] == display["digits"]:
        return show[0]["field"]
    return ", ".join(
        "%s (digit%s %s)"
        % (
            s["field"],
            "s" if s["width"] > 1 else "",
            s["at"] if s["width"] == 1 else "%d-%d" % (s["at"], s["at"] + s["width"] - 1),
        )
        for s in show
    )


def chip_rows(bd):
    out = []
    for d in bd["displays"]:
        size = parts.digit_size(bd, d)
        out.append(
            Chip(
                d["bus"], d["addr"], d["kind"], jumpers(d["addr"]), parts.backpack(d["kind"], size), size, shows_text(d)
            )
        )
    return out


def pulls(bd):
    """The pull resistors a board needs besides the ESP32's own: (button, gpio, "up"/"down")."""
    return [(b, b["pin"], "up" if b["active_low"] else "down") for b in bd["buttons"] if b["pull"] is None]


def _button_text(b):
    acts = b["action"] or ""
    if b["long_action"]:
        acts += (", " if acts else "") + "long: " + b["long_action"]
    return 'button "%s" (%s) to %s' % (b["name"], acts, "GND" if b["active_low"] else "3V3")


def gpio_rows(bd):
    rows = []
    for bus in bd["i2c"]:
        chips = sum(1 for d in bd["displays"] if d["bus"] == bus["bus"])
        for line, pin in (("SDA", bus["sda"]), ("SCL", bus["scl"])):
            rows.append(
                Gpio(
                    pin,
                    "I2C bus %d %s (%d chip%s)" % (bus["bus"], line, chips, "s"[: chips != 1]),
                    "10 kΩ on each backpack, to 3V3",
                    "-",
                    "",
                )
            )
    ext = {pin: way for _, pin, way in pulls(bd)}
    board = parts.esp32_board(bd["role"])
    marks = parts.PIN_MARKS.get(board.key, {})
    ohm = parts.PARTS["resistor-pull"].figures["ohm"].value
    for b in bd["buttons"]:
        if b["pull"] is None:
            pull = "external %d kΩ pull-%s to %s" % (
                ohm // 1000,
                ext[b["pin"]],
                "3V3" if ext[b["pin"]] == "up" else "GND",
            )
        else:
            pull = "internal pull-%s" % b["pull"]
        note = "input only, no internal pulls" if b["pin"] in INPUT_ONLY else ""
        if b["pin"] in marks:
            note += "; marked %s on the %s" % (marks[b["pin"]], board.example.split(" (")[0])
        rows.append(Gpio(b["pin"], _button_text(b), pull, "low" if b["active_low"] else "high", note))
    for name, led in sorted(bd["leds"].items()):
        if led["active_low"]:
            what = 'LED "%s": 3V3, %d Ω, anode; cathode to the pin' % (name, parts.led_ohm())
        else:
            what = 'LED "%s" through %d Ω, cathode to GND' % (name, parts.led_ohm())
        rows.append(Gpio(led["pin"], what, "-", "low" if led["active_low"] else "high", "lit when active"))
    if bd["buzzer"] is not None:
        rows.append(Gpio(bd["buzzer"], "piezo buzzer +, its - to GND", "-", "PWM", ""))
    spk = bd.get("speaker")
    if spk is not None:
        for key, pin, what in (("bck", "BCLK", "bit clock"), ("ws", "LRC", "word select"), ("din", "DIN", "data")):
            rows.append(Gpio(spk[key], "I2S amplifier %s (%s)" % (pin, what), "-", "I2S", "the voice"))
    rows.sort(key=lambda r: r.gpio)
    return rows


def rails(bd):
    """(rail, fed by, feeds) for GND, 5V (a wall board) or BAT (a remote), and 3V3."""
    role = bd["role"]
    chips = chip_rows(bd)
    feeds = {"5V": [], "3V3": []}
    for c in chips:
        for pin, rail, _ in c.part.pins:
            if rail in feeds:
                label = 'the %s backpacks\' "%s"' % (parts.backpack_name(c.kind, c.size), pin)
                if label not in feeds[rail]:
                    feeds[rail].append(label)
    if any(not b["active_low"] for b in bd["buttons"]):
        feeds["3V3"].append("the buttons' common side (active high)")
    if any(way == "up" for _, _, way in pulls(bd)):
        feeds["3V3"].append("the external pull-ups")
    out = [
        (
            "GND",
            "the supply's minus" if role == "wall" else "the cell's minus",
            "everything: one ground shared by the ESP32 board, every backpack, button, LED and the buzzer",
        )
    ]
    if role == "wall":
        loads = ["the ESP32 board's 5V pin"] + feeds["5V"]
        out.append(
            (
                "5V",
                "the 5 V supply, through the DC jack",
                ", ".join(loads) + " (the displays' 5 V goes from the jack straight to the bus strips, "
                "not through the ESP32 board)",
            )
        )
    else:
        out.append(("BAT", "the LiPo cell, in the board's JST-PH socket", "the board's regulator (and charger)"))
        if feeds["5V"]:
            out.append(("5V", "nothing on a battery: a boost converter would be needed", ", ".join(feeds["5V"])))
    out.append(("3V3", "the ESP32 board's 3V3 pin (its regulator)", ", ".join(["the ESP32"] + feeds["3V3"])))
    return out


def table(bd, fmt="text"):
    """The pin table, buses, addresses and rails: fmt "text" or "md"."""
    out = []
    out.append(text.heading(fmt, "ESP32 pins", 3))
    out.append(
        text.table(
            fmt,
            ("GPIO", "connects to", "pull", "active", "note"),
            [("GPIO%d" % r.gpio, r.what, r.pull, r.active, r.note) for r in gpio_rows(bd)],
        )
    )
    for w in bd.get("warnings") or ():
        out.append("Warning: %s\n" % w)
    out.append("\n")
    if bd["i2c"]:
        out.append(text.heading(fmt, "I2C buses", 3))
        rows = []
        for bus in bd["i2c"]:
            chips = [d for d in bd["displays"] if d["bus"] == bus["bus"]]
            rows.append(
                (
                    bus["bus"],
                    "GPIO%d" % bus["sda"],
                    "GPIO%d" % bus["scl"],
                    "%d kHz" % (bus["freq"] // 1000),
                    ", ".join("0x%02x" % d["addr"] for d in chips) or "none",
                )
            )
        out.append(text.table(fmt, ("bus", "SDA", "SCL", "frequency", "chips"), rows))
        most = max(sum(1 for d in bd["displays"] if d["bus"] == bus["bus"]) for bus in bd["i2c"])
        if most > 1:
            out.append(
                "\nEach backpack has its own 10 kΩ pull-ups on SDA and SCL: the %d on one bus make %.2f kΩ "
                "together, %.1f mA to pull a line low at 3.3 V, within the 3 mA of I2C's standard.\n\n"
                % (most, 10.0 / most, 3.3 / (10.0 / most))
            )
        else:
            out.append("\nThe backpack has its own 10 kΩ pull-ups on SDA and SCL: none to add.\n\n")
        out.append(text.heading(fmt, "Chips and their address jumpers", 3))
        rows = [
            (c.bus, "0x%02x" % c.addr, jumper_text(c.addr), parts.backpack_name(c.kind, c.size), c.shows)
            for c in chip_rows(bd)
        ]
        out.append(text.table(fmt, ("bus", "address", "bridge", "backpack", "shows"), rows))
        out.append("\nAddress = 0x70 + A0 + 2 × A1 + 4 × A2, each pad counting when bridged with solder.\n\n")
    out.append(text.heading(fmt, "Rails", 3))
    out.append(text.table(fmt, ("rail", "fed by", "feeds"), rails(bd)))
    return "".join(out)

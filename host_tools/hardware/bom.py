"""The bill of materials of a board, counted from its definition: one line per kind of part.

    lines(bd)            [Line(part, qty, note)]: the ESP32 board, each backpack by kind and
                         digit size, buttons, LEDs and their resistors, the pull resistors where a
                         pin has none, the buzzer, the supply (or a remote's cell), connectors,
                         cable (metres, from the wiring's cables)
    report(bd, fmt)      as "text", "md" or "csv"

Prices are rough (parts.PRICE_DATE): a budget, not a quote.
"""

import csv
import io
import math
from collections import namedtuple

from . import parts, pins, power, text, wiring

Line = namedtuple("Line", "part qty note")
CSV_COLUMNS = ("item", "qty", "unit", "part", "example", "price_eur_each", "price_eur_total", "note")


def _names(items):
    return ", ".join(items)


def _metres(m):
    return math.ceil(m * 2 - 1e-9) / 2.0  # rounded up to half a metre


def lines(bd):
    role = bd["role"]
    out = [Line(parts.esp32_board(role), 1, "")]
    groups = {}
    for d in bd["displays"]:
        size = parts.digit_size(bd, d)
        groups.setdefault((d["kind"], size), []).append(d)
    for (kind, size), ds in sorted(groups.items(), key=lambda kv: (list(parts.KIND_NAMES).index(kv[0][0]), kv[0][1])):
        defaulted = [d for d in ds if "size" not in d]
        note = "bus/address " + _names("%d/0x%02x" % (d["bus"], d["addr"]) for d in ds)
        if defaulted:
            note += "; %d with no size given: the %s board's default" % (len(defaulted), role)
        out.append(Line(parts.backpack(kind, size), len(ds), note))
    if bd["buttons"]:
        out.append(Line(parts.button(role), len(bd["buttons"]), _names(b["name"] for b in bd["buttons"])))
    if bd["leds"]:
        n = len(bd["leds"])
        out.append(Line(parts.PARTS["led"], n, _names(sorted(bd["leds"]))))
        out.append(
            Line(
                parts.led_resistor(),
                n,
                "one in series with each LED: (3.3 V - %.2f V) / %d Ω = %.1f mA"
                % (parts.PARTS["led"].figures["vf_v"].value, parts.led_ohm(), parts.led_ma()),
            )
        )
    ext = pins.pulls(bd)
    if ext:
        out.append(
            Line(
                parts.PARTS["resistor-pull"],
                len(ext),
                _names("pull-%s on GPIO%d (%s)" % (way, pin, b["name"]) for b, pin, way in ext),
            )
        )
    if bd["buzzer"] is not None:
        out.append(Line(parts.PARTS["buzzer"], 1, "GPIO%d" % bd["buzzer"]))
    spk = bd.get("speaker")
    if spk is not None:
        out.append(
            Line(
                parts.PARTS["amp-i2s"],
                1,
                "BCLK GPIO%d, LRC GPIO%d, DIN GPIO%d; %d dB: GAIN %s"
                % (spk["bck"], spk["ws"], spk["din"], spk["gain_db"], parts.GAIN_WIRING[spk["gain_db"]]),
            )
        )
        out.append(Line(parts.PARTS["speaker"], 1, "on the amplifier's + and -"))
    if role == "wall":
        b = power.budget(bd)
        out.append(
            Line(
                b.supply,
                1,
                "%.1f A needed at full brightness with a %d %% margin (see Power)"
                % (b.need_ma / 1000.0, parts.SUPPLY_MARGIN * 100),
            )
        )
        out.append(Line(parts.PARTS["dc-jack"], 1, ""))
    else:
        out.append(Line(parts.PARTS["battery"], 1, "see Battery for its life"))
    ways = {}
    for d in bd["displays"]:
        n = len(parts.backpack(d["kind"], parts.digit_size(bd, d)).pins)
        ways[n] = ways.get(n, 0) + 1
    for n, count in sorted(ways.items()):
        out.append(Line(parts.PARTS["housing-%d" % n], count, "at the backpacks' %d-pin headers" % n))
    if ways:
        out.append(Line(parts.PARTS["crimp"], sum(n * c for n, c in ways.items()), "one per housing way"))
    out.append(Line(parts.PARTS["stripboard"], 1, ""))
    out.extend(_cable_lines(bd, role))
    return out


def _cable_lines(bd, role):
    """The cable by its cores and the hook-up wire, in metres, from the wiring's cables."""
    out = []
    cable = {}
    wire = 0.0
    for _, cores, metres, kind in wiring.cables(bd):
        if kind == "wire":
            wire += cores * metres
        else:
            cable[cores] = cable.get(cores, 0.0) + metres
    for cores, metres in sorted(cable.items()):
        out.append(Line(parts.PARTS["cable-%d" % cores], _metres(metres), parts.LENGTHS_NOTE["cable"]))
    if wire:
        out.append(Line(parts.PARTS["wire"], _metres(wire), parts.LENGTHS_NOTE["wire"][role]))
    return out


def _qty(line):
    return "%g" % line.qty


def total(bd):
    return sum(line.qty * line.part.price for line in lines(bd))


def report(bd, fmt="text"):
    ls = lines(bd)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(CSV_COLUMNS)
        for line in ls:
            p = line.part
            w.writerow(
                (
                    p.key,
                    _qty(line),
                    p.unit,
                    p.what,
                    p.example,
                    "%.2f" % p.price,
                    "%.2f" % (p.price * line.qty),
                    line.note,
                )
            )
        return buf.getvalue()
    rows = [
        (
            _qty(line),
            line.part.unit,
            line.part.what,
            line.part.example,
            "%.2f" % line.part.price,
            "%.2f" % (line.part.price * line.qty),
            line.note,
        )
        for line in ls
    ]
    out = [text.table(fmt, ("qty", "unit", "part", "example", "EUR each", "EUR", "note"), rows, right=(0, 4, 5))]
    out.append(
        "\nAbout %.0f EUR in all. Prices are rough: euros with VAT for one piece at small shops, %s; "
        "a budget, not a quote. Any part equal to the example does.\n" % (total(bd), parts.PRICE_DATE)
    )
    sizes = []
    for d in bd["displays"]:
        if "size" not in d:
            sizes.append("bus %d 0x%02x" % (d["bus"], d["addr"]))
    if sizes:
        out.append(
            "\nDigit size not given for %s: the default for a %s board (host_tools/hardware/parts.py "
            'DEFAULT_SIZE). Give a display a "size" in the definition to choose.\n' % (_names(sizes), bd["role"])
        )
    notes = []
    for line in ls:
        if line.part.note and line.part.note not in notes:
            notes.append("%s: %s." % (line.part.example, line.part.note))
    if notes:
        out.append("\n" + "".join("- %s\n" % n for n in notes))
    return "".join(out)

"""The power budget of a board: each chip's current at the board's brightness and at full
brightness, the ESP32 with Wi-Fi, the LEDs, the buzzer, the pull resistors; the total on each
rail and the supply it needs with a stated margin. A remote (role "remote") runs on a LiPo
cell: its budget is the charge of one press and the days a charge lasts.

    segments(kind)       (worst, typical) segments lit on one chip, from the firmware's fonts
    chip_ma(lit, brightness)   a chip's LED current: lit segments × ROW current / 8 × (brightness + 1)/16
    budget(bd)           a Budget: rows (what, rail, typical, worst at the board's brightness,
                         worst at full), rail totals, the supply chosen
    battery(bd)          a Battery: the charge of a press, per day, the life (a remote)
    report(bd, fmt)      all of it as text or Markdown, each figure's source named

How an HT16K33 lights its LEDs (its datasheet): it scans 8 digits (COM0-7) in turn, so a
digit's segments are lit at most 1/8 of the time; each lit segment draws the ROW output's
current (25 mA typical at 5 V; two LEDs in series on a 1.2" digit draw the same current,
from 5 V); brightness n lights (n + 1)/16 of each digit's slot. So a chip draws
lit segments × 25 mA / 8 × (n + 1)/16 on average. "Worst" is every segment a chip can light
on (each digit's widest glyph with its point, and the colon): the firmware never shows that
on all four digits at once, so it is an upper bound; "typical" is the average glyph of the
firmware's font (digits for 7-segment chips, letters for 14-segment ones).
"""

import ast
import math
import os
from collections import namedtuple

from .. import firmware_path
from . import parts, text
from .pins import pulls

Row = namedtuple("Row", "what rail typical worst full source")
Budget = namedtuple("Budget", "rows rails need_ma supply warnings")
Battery = namedtuple(
    "Battery", "press_mas phases sleep_ua per_day_mah life_days part assumptions usable_mah presses_per_day display_mas"
)

# A remote's day, for its battery life (estimated: the numbers a referee's box meets at a club
# or a tournament; change them here and the docs follow).
PRESSES_PER_MATCH = 160  # a match to 40: some 75 points, 80 innings ended, a few fouls, undos, breaks
MATCHES_PER_DAY = 12
WAKE_S = 0.5  # the ESP32's start after a deep-sleep wake up to MicroPython's first line (estimated)
# main.py's first line to the frame sent: `make bench` (its remote section, 2026-12-05) measured
# 7.0 ms on the 32-bit MicroPython, 1.1-1.6 s on the chip by its estimate; the high end here.
FIRMWARE_S = 1.6
EXCHANGE_S = 0.05  # a command and its acknowledgement over ESP-NOW (remote.py resends every 50 ms)


SUPPLY = "from the supply (5V and 3V3)"
RAIL_NAMES = {"5V": "5V (the displays' LEDs)", "3V3": "3V3 (the ESP32 board's regulator)"}


def _fig(chip, key):
    return parts.CHIPS[chip][key].value


def segments(kind):
    """(worst, typical) lit segments on one 4-digit chip of `kind`, from the firmware's fonts:
    worst = the widest glyph plus the point in every cell, plus the colon of a 7-segment chip;
    typical = the average digit (7-segment) or capital letter (14-segment), no point."""
    firmware_path()
    import ht16k33

    if kind == "seg7":
        glyphs = [ht16k33._GLYPHS7[c - 32] for c in range(32, 128)]
        common = [ht16k33._GLYPHS7[ord(c) - 32] for c in "0123456789"]
        colon = 1 if ht16k33.Seg7x4.HAS_COLON else 0
    else:
        t = ht16k33._GLYPHS14
        glyphs = [t[2 * i] | t[2 * i + 1] << 8 for i in range(96)]
        common = [t[2 * (ord(c) - 32)] | t[2 * (ord(c) - 32) + 1] << 8 for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"]
        colon = 0
    cells = 4
    worst = cells * (max(bin(g).count("1") for g in glyphs) + 1) + colon
    typical = cells * sum(bin(g).count("1") for g in common) / float(len(common))
    return worst, typical


def chip_ma(lit, brightness):
    """A chip's average LED current: lit segments × ROW current / COM slots × (brightness + 1)/16."""
    return lit * _fig("ht16k33", "row_ma") / _fig("ht16k33", "coms") * (brightness + 1) / _fig("ht16k33", "dim_steps")


def full_level():
    return int(_fig("ht16k33", "dim_steps")) - 1


def _rail(part, pin):
    return parts.rail_of(part, pin)


def budget(bd):
    """The board's rows and rail totals (mA): typical (its brightness, typical digits, Wi-Fi
    listening, half the LEDs), worst at its brightness, worst at full brightness (every
    segment, Wi-Fi transmitting, every LED, the buzzer, every pull resistor conducting)."""
    rows = []
    warnings = []
    full = full_level()
    logic = {}
    for d in bd["displays"]:
        size = parts.digit_size(bd, d)
        part = parts.backpack(d["kind"], size)
        worst, typical = segments(d["kind"])
        b = d["brightness"]
        rail = _rail(part, parts.LED_PIN[part.key])
        if bd["role"] == "remote" and rail == "5V":
            warnings.append(
                "the %s backpack at bus %d 0x%02x needs 5 V for its LEDs: a LiPo cell gives "
                '3.0-4.2 V (add a 5 V boost converter, or take 0.56" digits)'
                % (parts.backpack_name(d["kind"], size), d["bus"], d["addr"])
            )
        rows.append(
            Row(
                "bus %d 0x%02x %s" % (d["bus"], d["addr"], parts.backpack_name(d["kind"], size)),
                rail,
                chip_ma(typical, b),
                chip_ma(worst, b),
                chip_ma(worst, full),
                "ht16k33",
            )
        )
        chip_rail = _rail(part, parts.CHIP_PIN[part.key])
        logic[chip_rail] = logic.get(chip_rail, 0) + 1
    for rail, n in sorted(logic.items()):
        i = n * _fig("ht16k33", "logic_ma")
        rows.append(
            Row(
                "the %s HT16K33 chip%s %s" % (n, "s"[: n != 1], "themselves" if n != 1 else "itself"),
                rail,
                i,
                i,
                i,
                "estimate",
            )
        )
    board = parts.esp32_board(bd["role"])
    listen, tx = _fig("esp32", "wifi_listen_ma"), _fig("esp32", "wifi_tx_ma")
    rows.append(Row("ESP32, Wi-Fi listening / transmitting", "3V3", listen, tx, tx, "esp32"))
    over = board.figures.get("overhead_ma")
    if over:
        rows.append(
            Row(
                "the ESP32 board's own parts (regulator, USB chip, LED)",
                "3V3",
                over.value,
                over.value,
                over.value,
                over.source,
            )
        )
    n = len(bd["leds"])
    if n:
        each = parts.led_ma()
        rows.append(
            Row(
                "%d LED%s through %d Ω (half lit / all)" % (n, "s"[: n != 1], parts.led_ohm()),
                "3V3",
                each * math.ceil(n / 2.0),
                each * n,
                each * n,
                "kingbright",
            )
        )
    if bd["buzzer"] is not None:
        b = parts.PARTS["buzzer"].figures["ma"]
        rows.append(Row("buzzer (silent / sounding)", "3V3", 0.0, b.value, b.value, b.source))
    if bd.get("speaker") is not None:
        amp = parts.PARTS["amp-i2s"].figures
        rows.append(
            Row(
                "I2S amplifier and speaker (silent / speaking at full volume)",
                "5V",
                amp["idle_ma"].value,
                amp["max_ma"].value,
                amp["max_ma"].value,
                amp["max_ma"].source,
            )
        )
    ext = len(pulls(bd))
    if ext:
        each = 3.3 / parts.PARTS["resistor-pull"].figures["ohm"].value * 1000.0
        rows.append(
            Row(
                "%d external pull resistor%s (pressed)" % (ext, "s"[: ext != 1]),
                "3V3",
                0.0,
                each * ext,
                each * ext,
                "estimate",
            )
        )
    rails = {}
    for r in rows:
        t = rails.setdefault(r.rail, [0.0, 0.0, 0.0])
        t[0] += r.typical
        t[1] += r.worst
        t[2] += r.full
    need = None
    supply = None
    if bd["role"] == "wall":
        # the ESP32 board's regulator is linear: what 3V3 draws, 5V gives
        five = [a + b for a, b in zip(rails.get("5V", [0.0] * 3), rails.get("3V3", [0.0] * 3))]
        rails[SUPPLY] = five
        need = five[2] * (1 + parts.SUPPLY_MARGIN)
        fits = [p for p in parts.supplies() if p.figures["a"].value * 1000 >= need]
        if not fits:  # 16 chips (two buses of 8) at full brightness stay well inside the largest
            raise ValueError("%.1f A needed: no supply in the catalogue gives it" % (need / 1000.0))
        supply = fits[0]
    return Budget(rows, rails, need, supply, warnings)


def remote_times():
    """(AWAKE_MS, SHOW_MS) as firmware/app_remote.py sets them (read from its source)."""
    path = os.path.join(firmware_path(), "app_remote.py")
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ("AWAKE_MS", "SHOW_MS"):
                found[node.targets[0].id] = ast.literal_eval(node.value)
    return found["AWAKE_MS"], found["SHOW_MS"]


def battery(bd, firmware_s=FIRMWARE_S):
    """A remote's battery life: the charge (mA s) of one press, awake then showing, the sleep
    current, the charge a day and the days a charge lasts. firmware_s: main.py's start to
    the frame sent, on the chip."""
    awake_ms, show_ms = remote_times()
    display = sum(chip_ma(segments(d["kind"])[1], d["brightness"]) for d in bd["displays"])
    led = parts.led_ma() if bd["leds"] else 0.0  # the turn lamp of the player at the table
    cpu, listen = _fig("esp32", "cpu_ma"), _fig("esp32", "wifi_listen_ma")
    light = _fig("esp32", "light_sleep_ma")
    radio_s = EXCHANGE_S + awake_ms / 1000.0
    phases = [
        ("waking: the ESP32 starts, radio off (estimated)", WAKE_S, cpu),
        ("the firmware's start to the command sent (make bench's estimate)", firmware_s, cpu),
        ("radio on: the command, its acknowledgement, then AWAKE_MS", radio_s, listen + display + led),
        ("showing: SHOW_MS in light sleep, the display and a turn LED lit", show_ms / 1000.0, light + display + led),
    ]
    press = sum(s * i for _, s, i in phases)
    board = parts.esp32_board("remote")
    sleep_ua = board.figures["deep_sleep_ua"].value + len(bd["displays"]) * _fig("ht16k33", "standby_ua")
    per_day = PRESSES_PER_MATCH * MATCHES_PER_DAY * press / 3600.0 + sleep_ua / 1000.0 * 24
    cell = parts.PARTS["battery"]
    usable = cell.figures["mah"].value * cell.figures["usable"].value
    assumptions = [
        "%d presses a match (a match to 40: some 75 points, 80 innings ended, a few fouls, undos and "
        "breaks), %d matches a day" % (PRESSES_PER_MATCH, MATCHES_PER_DAY),
        "AWAKE_MS = %d and SHOW_MS = %d, read from firmware/app_remote.py" % (awake_ms, show_ms),
        "the start after a wake: %.1f s to MicroPython's first line (estimated; not yet measured on a "
        "board), then %.1f s to the command sent (make bench: the firmware's start on the 32-bit MicroPython, "
        "times the chip's estimated slowness)" % (WAKE_S, firmware_s),
        "the display at its brightness showing typical digits (the average digit of the firmware's font)",
    ]
    display_mas = (radio_s + show_ms / 1000.0) * display
    return Battery(
        press,
        phases,
        sleep_ua,
        per_day,
        usable / per_day,
        cell,
        assumptions,
        usable,
        PRESSES_PER_MATCH * MATCHES_PER_DAY,
        display_mas,
    )


def report(bd, fmt="text"):
    """The power budget (and a remote's battery life) as text or Markdown."""
    b = budget(bd)
    brightness = sorted({d["brightness"] for d in bd["displays"]})
    bright = "/".join(str(x) for x in brightness) or "-"
    out = []
    out.append(
        text.table(
            fmt,
            ("what", "rail", "typical", "worst at brightness %s" % bright, "worst at full (15)", "figures from"),
            [
                (r.what, r.rail, text.ma(r.typical), text.ma(r.worst), text.ma(r.full), parts.SOURCES[r.source][0])
                for r in b.rows
            ],
            right=(2, 3, 4),
        )
    )
    out.append("\n")
    rails = [
        (RAIL_NAMES.get(rail, rail), text.ma(t[0]), text.ma(t[1]), text.ma(t[2]))
        for rail, t in sorted(b.rails.items(), key=lambda kv: (kv[0] == SUPPLY, kv[0]))
    ]
    out.append(
        text.table(
            fmt, ("total", "typical", "worst at brightness %s" % bright, "worst at full"), rails, right=(1, 2, 3)
        )
    )
    out.append("\n")
    for w in b.warnings:
        out.append("Warning: %s.\n\n" % w)
    worst, typical = segments("seg7")
    w14, t14 = segments("seg14")
    out.append(
        "Typical: the board's brightness, typical digits (7-segment %.1f segments a chip, 14-segment "
        "%.1f), Wi-Fi listening, half the LEDs. Worst: every segment a chip can light (%d on a "
        '7-segment chip: "8." in each digit and the colon; %d on a 14-segment one), Wi-Fi '
        "transmitting, every LED, the buzzer, every pull resistor conducting. A chip draws lit "
        "segments × %g mA / %d × (brightness + 1)/16.\n\n"
        % (typical, t14, worst, w14, _fig("ht16k33", "row_ma"), _fig("ht16k33", "coms"))
    )
    small = [d for d in bd["displays"] if parts.backpack(d["kind"], parts.digit_size(bd, d)).figures.get("typical_ma")]
    if small:
        fig = parts.backpack("seg7", 0.56).figures["typical_ma"]
        out.append(
            'A cross-check: Adafruit gives about %d mA for a 0.56" display on 3.3 V "for most uses"; this '
            "budget's typical digits at full brightness make %s: the 25 mA a segment of the datasheet (at 5 V) "
            "is an upper figure on 3.3 V.\n\n" % (fig.value, text.ma(chip_ma(segments("seg7")[1], full_level())))
        )
    if bd["role"] == "wall":
        five = b.rails[SUPPLY][2]
        out.append(
            "Supply: %s A needed (%s worst at full brightness + %d %% margin for the supply's "
            "tolerance, a warm cabinet and ageing): %s, e.g. %s.\n"
            % (
                "%.1f" % (b.need_ma / 1000.0),
                text.ma(five),
                parts.SUPPLY_MARGIN * 100,
                text.bold(fmt, b.supply.what),
                b.supply.example,
            )
        )
        if "5V" in b.rails:
            out.append(
                "\nThe displays' 5 V (%s at full brightness) goes from the DC jack straight to the bus "
                "strips, not through the ESP32 board, which carries only its own current.\n" % text.ma(b.rails["5V"][2])
            )
    else:
        out.append(battery_report(bd, fmt))
    out.append("\nSources:\n\n")
    used = sorted(
        {r.source for r in b.rows} | ({"lucidar", "adafruit-lipo", "esp32"} if bd["role"] != "wall" else {"meanwell"})
    )
    for key in used:
        out.append("- %s\n" % parts.source_line(key))
    return "".join(out)


def battery_report(bd, fmt="text"):
    bt = battery(bd)
    cell = bt.part
    out = []
    out.append(text.heading(fmt, "Battery", 3))
    out.append(
        "%s, %d mAh (%d %% usable: %d mAh), on a %s.\n\n"
        % (
            cell.example,
            cell.figures["mah"].value,
            cell.figures["usable"].value * 100,
            bt.usable_mah,
            parts.esp32_board("remote").example,
        )
    )
    rows = [(what, "%.2f s" % s, text.ma(i), "%.1f mA s" % (s * i)) for what, s, i in bt.phases]
    rows.append(("one press", "", "", "%.1f mA s" % bt.press_mas))
    out.append(text.table(fmt, ("a press", "time", "current", "charge"), rows, right=(1, 2, 3)))
    sleep_day = bt.sleep_ua * 24 / 1000.0
    awake_day = bt.presses_per_day * bt.press_mas / 3600.0
    out.append(
        "\nAsleep: %.1f µA (the board in deep sleep, measured by lucidar.me, and each display's HT16K33 "
        "in standby, estimated).\n\n" % bt.sleep_ua
    )
    out.append(
        "A day: %d presses × %.1f mA s = %.1f mAh awake + %.2f mAh asleep = %s: a charge "
        "lasts %s at %d matches a day (%d days at one match a day). The display makes %.0f %% of a "
        "press's charge: its brightness (in the definition) is what to turn down for a longer life.\n\n"
        % (
            bt.presses_per_day,
            bt.press_mas,
            awake_day,
            sleep_day,
            text.bold(fmt, "%.1f mAh" % bt.per_day_mah),
            text.bold(fmt, "about %d days" % bt.life_days),
            MATCHES_PER_DAY,
            bt.usable_mah / (PRESSES_PER_MATCH * bt.press_mas / 3600.0 + sleep_day),
            100.0 * bt.display_mas / bt.press_mas,
        )
    )
    devkit = parts.PARTS["esp32-devkitc"].figures["overhead_ma"].value
    out.append(
        "Why not a DevKitC: asleep it still draws %.1f mA (measured by lucidar.me: its regulator and "
        "USB-serial chip), %.0f mAh a day doing nothing: the same box would last %d days at %d matches a "
        "day, and one left in a drawer would be flat in %d days (this one: after %d days asleep, longer "
        "than the cell keeps its own charge).\n\nAssumptions:\n\n"
        % (
            devkit,
            devkit * 24,
            bt.usable_mah / (awake_day + devkit * 24),
            MATCHES_PER_DAY,
            bt.usable_mah / (devkit * 24),
            bt.usable_mah / sleep_day,
        )
    )
    for a in bt.assumptions:
        out.append("- %s\n" % a)
    return "".join(out)

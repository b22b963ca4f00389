"""The catalogue of parts: one home for each fact about a part.

Every line of a parts list (bom.py), every figure of a power budget (power.py) and every
pin label of a wiring diagram (wiring.py) comes from here. Each part has an example
(maker and part number: any equivalent part does), a rough price, and the electrical
figures the power budget needs; each figure names its source (SOURCES): a datasheet, a
maker's product page, a third party's measurement, or an estimate made here (said so).

Prices are rough: euros with VAT for one piece, as small shops sold them at PRICE_DATE,
to size a budget, never a quote.

    PARTS[key]                 a Part: what, example, price, unit, figures, pins, note
    CHIPS[key]                 the figures of a chip several parts carry (ESP32, HT16K33)
    SOURCES[key]               (kind, citation) of a figure
    backpack(kind, size)       the Part of an HT16K33 backpack
    digit_size(bd, display)    the digit height of a display: its "size", else the default
    esp32_board(role), button(role), supplies()   the part a board's role takes
"""

from collections import namedtuple

PRICE_DATE = "December 2026"

# kind: datasheet (the maker of the chip), maker (the maker of the board or module, its
# product page or guide), measured (by a third party, named), estimated (here, with the reason).
SOURCES = {
    "ht16k33": (
        "datasheet",
        "Holtek, HT16K33 datasheet rev. 1.10: D.C. characteristics (ROW source "
        "current, as also quoted in Adafruit's forum thread \"HT16K33 Current "
        'Limits") and the LED drive timing (8 COM slots of 1056 µs and a key-scan '
        "slot: a 9.504 ms frame; 16-step dimming)",
    ),
    "esp32": (
        "datasheet",
        'Espressif, ESP32 Series Datasheet: "Power consumption by power modes" and '
        '"RF current consumption" (Wi-Fi receive/listen 95-100 mA, transmit 802.11b '
        "at 19.5 dBm 240 mA, light sleep 0.8 mA, modem sleep at 240 MHz 30-68 mA, "
        "internal pull resistors 45 kΩ)",
    ),
    "adafruit-backpack": (
        "maker",
        'Adafruit, "Adafruit LED Backpacks" guide: pin names; the 1.2" '
        'backpack\'s 2 LEDs in series per segment need 5 V on "+" (IO sets the '
        "I2C level); the 0.54\" alphanumeric's VHi feeds its LEDs 5 V, VIO its "
        "chip; 10 kΩ I2C pull-ups on each backpack; address 0x70 + A0 + 2 A1 "
        "+ 4 A2",
    ),
    "adafruit-featherwing": (
        "maker",
        'Adafruit, "7-Segment LED FeatherWings" guide: a 0.56" display on 3.3 V draws "about 40 mA for most uses"',
    ),
    "kingbright": ("datasheet", "Kingbright, WP7113SRD/D datasheet: forward voltage 1.85 V typical at 20 mA"),
    "lucidar": (
        "measured",
        'lucidar.me, "Power consumption of ESP32 boards": deep sleep measured on '
        "an ESP32-DevKitC V4 (3.8 mA: its regulator, USB-serial chip and power LED) "
        "and a FireBeetle 2 ESP32-E with its low-power pad cut (11.6 µA)",
    ),
    "devkitc": (
        "maker",
        "Espressif, ESP32-DevKitC V4 user guide: powered by USB, or the 5V pin, or the 3V3 pin, one at a time",
    ),
    "meanwell": ("maker", "Mean Well, GST18E/GST25E/GST60A adapter datasheets: 5 V at 3 A, 4 A and 6 A"),
    "adafruit-lipo": (
        "maker",
        "Adafruit, product 2011: LiPo cell 3.7 V 2000 mAh with a JST-PH plug and a protection circuit",
    ),
    "max98357a": (
        "datasheet",
        "Analog Devices (Maxim), MAX98357A/MAX98357B datasheet: I2S input, class D, 3.2 W into 4 Ω "
        "at 5 V (10 % THD), efficiency 92 % into 8 Ω, quiescent current 2.4 mA; the GAIN pin: 15 dB "
        "(100 kΩ to GND), 12 dB (GND), 9 dB (open), 6 dB (VDD), 3 dB (100 kΩ to VDD); as wired on "
        "Adafruit's breakout (product 3006, SD pulled up: the amplifier on, left and right mixed)",
    ),
    "estimate": ("estimated", "estimates made here, each with its reason beside it in host_tools/hardware/parts.py"),
}

Figure = namedtuple("Figure", "value unit source note")
Part = namedtuple("Part", "key what example price unit figures pins note")


def _fig(value, unit, source, note=""):
    assert source in SOURCES, source
    return Figure(value, unit, source, note)


# Figures of the chips that several parts carry.
CHIPS = {
    "esp32": {
        "wifi_listen_ma": _fig(100, "mA", "esp32", "Wi-Fi/ESP-NOW receiving or listening (95-100 mA)"),
        "wifi_tx_ma": _fig(240, "mA", "esp32", "Wi-Fi transmitting, 802.11b at 19.5 dBm"),
        "cpu_ma": _fig(
            68,
            "mA",
            "esp32",
            "CPU at 240 MHz, radio off (modem sleep, upper figure): the MicroPython start after a wake",
        ),
        "light_sleep_ma": _fig(0.8, "mA", "esp32", "light sleep"),
        "pull_kohm": _fig(45, "kΩ", "esp32", "internal pull-up/pull-down"),
    },
    "ht16k33": {
        "row_ma": _fig(
            25,
            "mA",
            "ht16k33",
            "peak current of one lit segment (a ROW output sources it, "
            "a COM output sinks the digit's): typical at VDD 5 V; less "
            "at 3.3 V, so an upper figure there",
        ),
        "coms": _fig(
            8,
            "",
            "ht16k33",
            "digits scanned in turn (COM0-7): each lit at most 1/8 of the "
            "time (the datasheet's frame gives 10.8 %: 14 % below the 1/8 "
            "used here)",
        ),
        "dim_steps": _fig(16, "", "ht16k33", "brightness 0-15 lights (level + 1)/16 of each COM slot"),
        "logic_ma": _fig(
            1,
            "mA",
            "estimate",
            "the chip itself, oscillator and scanning (a small "
            "CMOS chip; the datasheet's no-load figure was not at hand)",
        ),
        "standby_ua": _fig(
            10,
            "µA",
            "estimate",
            "standby (oscillator and display off: the firmware's "
            "standby() on the remote): a pessimistic figure for a "
            "CMOS chip at rest",
        ),
    },
}

# The ESP32 board's pins a harness uses: GPIO n is "GPIOn"; the rails.
BOARD_RAILS = {"wall": ("5V", "3V3", "GND"), "remote": ("BAT", "3V3", "GND")}

PARTS = {}


def _part(key, what, example, price, unit="pcs", figures=None, pins=(), note=""):
    PARTS[key] = Part(key, what, example, price, unit, figures or {}, tuple(pins), note)


# ---- the ESP32 boards ---------------------------------------------------------------------------

_part(
    "esp32-devkitc",
    "ESP32 board (ESP32-WROOM-32E module, 4 MB flash, USB)",
    "Espressif ESP32-DevKitC-32E (ESP32-DevKitC V4)",
    10.0,
    figures={
        "overhead_ma": _fig(
            3.8, "mA", "lucidar", "its regulator, USB-serial chip and power LED: drawn whatever the ESP32 does"
        )
    },
    note="fed 5 V on its 5V pin from the supply: never the supply and USB at once (Espressif's "
    "guide), so unplug the supply before a USB cable goes in; GPIO36 and GPIO39 are marked "
    "VP and VN on it",
)
_part(
    "esp32-firebeetle",
    "ESP32 board for a battery (low-quiescent regulator, LiPo charger, JST-PH socket)",
    "DFRobot FireBeetle 2 ESP32-E (DFR0654)",
    10.0,
    figures={
        "deep_sleep_ua": _fig(
            11.6, "µA", "lucidar", "the whole board in deep sleep, its low-power pad cut (0.5 mA uncut)"
        )
    },
    note="cut its low-power pad (the RGB LED's supply) or it draws 0.5 mA asleep; charge the cell "
    "through its USB-C socket. A DevKitC is no battery board: 3.8 mA asleep (its regulator and "
    "USB chip) would empty the cell in weeks doing nothing",
)

# ---- HT16K33 backpacks: (kind, digit height in inches) ------------------------------------------

# Every segment a chip can light: the firmware's fonts (ht16k33.py) say how many a digit has.
_part(
    "seg7-0.56",
    'HT16K33 backpack, 4-digit 7-segment, 0.56" digits',
    'Adafruit 878 (0.56" 4-Digit 7-Segment Display w/I2C Backpack, red)',
    12.0,
    figures={
        "leds_per_segment": _fig(1, "", "adafruit-backpack", "one LED per segment"),
        "typical_ma": _fig(40, "mA", "adafruit-featherwing", 'on 3.3 V, "for most uses" (a cross-check of the budget)'),
    },
    pins=(
        ("+", "3V3", 'chip and LEDs: 3.3 V (its I2C pull-ups go to "+": 5 V there would reach the ESP32\'s pins)'),
        ("-", "GND", ""),
        ("D", "SDA", ""),
        ("C", "SCL", ""),
    ),
    note="runs on 3.3 V as Adafruit sells it (Holtek rates the chip 4.5-5.5 V): red, yellow and green "
    "stay bright, blue and white are dimmer",
)
_part(
    "seg7-1.2",
    'HT16K33 backpack, 4-digit 7-segment, 1.2" digits',
    'Adafruit 1270 (1.2" 4-Digit 7-Segment Display w/I2C Backpack, red)',
    15.0,
    figures={"leds_per_segment": _fig(2, "", "adafruit-backpack", "two LEDs in series per segment: 5 V needed")},
    pins=(
        ("D", "SDA", ""),
        ("C", "SCL", ""),
        ("+", "5V", "chip and LEDs: 5 V (will not light on 3.3 V)"),
        ("-", "GND", ""),
        ("IO", "3V3", "the I2C level: 3.3 V, the ESP32's"),
    ),
    note='"+" on 5 V (two LEDs in series per segment), IO on 3.3 V so the bus stays at the ESP32\'s level',
)
_part(
    "seg14-0.54",
    'HT16K33 backpack, 4-character 14-segment (alphanumeric), 0.54" characters',
    'Adafruit 1911 (Quad Alphanumeric Display, red, 0.54" digits w/ I2C Backpack, STEMMA QT)',
    13.0,
    figures={"leds_per_segment": _fig(1, "", "adafruit-backpack", "one LED per segment")},
    pins=(
        ("VIO", "3V3", "the chip and the I2C level: 3.3 V"),
        ("GND", "GND", ""),
        ("SCL", "SCL", ""),
        ("SDA", "SDA", ""),
        ("VHi", "5V", "the LEDs: 5 V (the STEMMA QT revision's pin)"),
    ),
    note="VHi on 5 V feeds the LEDs, VIO on 3.3 V the chip and the bus (older revisions have no VHi: "
    "VCC on 3.3 V then feeds both, dimmer)",
)

# ---- buttons, LEDs, resistors, buzzer ------------------------------------------------------------

_part(
    "button-arcade",
    "push button, momentary, normally open, 30 mm (hit by players and referees)",
    "Sanwa OBSF-30 (snap-in arcade button)",
    3.0,
)
_part(
    "button-tactile",
    "push button, momentary, normally open, 12 mm tactile (in a handheld box)",
    "Omron B3F-4055 (with a B32-series cap)",
    0.5,
)
_part(
    "led",
    "LED, 5 mm, red (turn, spot and equalizing lamps)",
    "Kingbright WP7113SRD/D",
    0.2,
    figures={
        "vf_v": _fig(1.85, "V", "kingbright", "forward voltage"),
        "target_ma": _fig(10, "mA", "estimate", "bright enough in a lit hall, well inside the ESP32 pin's 40 mA"),
    },
)
_part(
    "resistor-led",
    "resistor {ohm} Ω, 1/4 W, for an LED (its value from the LED's figures)",
    "Yageo CFR-25JB-52-{code}",
    0.05,
)
_part(
    "resistor-pull",
    "resistor 10 kΩ, 1/4 W: a pull-up or pull-down where the pin has none",
    "Yageo CFR-25JB-52-10K",
    0.05,
    figures={
        "ohm": _fig(
            10000,
            "Ω",
            "estimate",
            "a usual pull: 0.33 mA while pressed, stiff enough against a 3 m button cable's noise",
        )
    },
)
_part(
    "buzzer",
    "piezo buzzer (driven by PWM straight from a pin)",
    "TDK PS1240P02BT",
    1.0,
    figures={
        "ma": _fig(
            1,
            "mA",
            "estimate",
            "a piezo disc is a capacitor of some tens of nF: well under a milliampere at 2-4 kHz from 3.3 V",
        )
    },
    pins=(("+", "", ""), ("-", "GND", "")),
)

_part(
    "amp-i2s",
    "I2S class-D amplifier breakout, MAX98357A (the board's voice: boards' \"speaker\")",
    "Adafruit 3006 (MAX98357A I2S Class-D Mono Amp)",
    7.0,
    figures={
        "idle_ma": _fig(2.4, "mA", "max98357a", "quiescent, silent"),
        "max_ma": _fig(
            390,
            "mA",
            "estimate",
            "at most 1.8 W into the 8 Ω speaker at 5 V with 92 % efficiency: 1.8 / 0.92 / 5 V; speech "
            "averages far less (its peaks are short)",
        ),
    },
    pins=(
        ("VIN", "5V", ""),
        ("GND", "GND", ""),
        ("BCLK", "", "bit clock"),
        ("LRC", "", "word select"),
        ("DIN", "", "data"),
        ("GAIN", "", "gain"),
        ("SD", "", "left open: on, left and right mixed"),
    ),
)
_part(
    "speaker",
    "loudspeaker 8 Ω, 2 W, 50 mm (to the amplifier's + and -: never to GND)",
    "Visaton K 50 SQ - 8 Ω",
    5.0,
    pins=(("+", "", ""), ("-", "", "")),
)

# How the amplifier's GAIN pin is wired for each gain (boards' speaker.gain_db).
GAIN_WIRING = {
    15: "100 kΩ to GND",
    12: "to GND",
    9: "left open",
    6: "to VIN (5 V)",
    3: "100 kΩ to VIN (5 V)",
}

# ---- power -----------------------------------------------------------------------------------------

_part(
    "supply-3a",
    "power supply 5 V 3 A, 2.1 mm barrel plug",
    "Mean Well GST18E05-P1J",
    12.0,
    figures={"a": _fig(3, "A", "meanwell", "rated output")},
)
_part(
    "supply-4a",
    "power supply 5 V 4 A, 2.1 mm barrel plug",
    "Mean Well GST25E05-P1J",
    15.0,
    figures={"a": _fig(4, "A", "meanwell", "rated output")},
)
_part(
    "supply-6a",
    "power supply 5 V 6 A, 2.1 mm barrel plug",
    "Mean Well GST60A05-P1J",
    22.0,
    figures={"a": _fig(6, "A", "meanwell", "rated output")},
)
_part(
    "dc-jack",
    "DC barrel jack 2.1 mm, panel mount (the supply's way in)",
    "Adafruit 610 (panel mount 2.1 mm DC barrel jack)",
    2.0,
)
_part(
    "battery",
    "LiPo cell 3.7 V 2000 mAh with a protection circuit and a JST-PH plug",
    "Adafruit 2011",
    13.0,
    figures={
        "mah": _fig(2000, "mAh", "adafruit-lipo", "capacity"),
        "usable": _fig(
            0.8,
            "",
            "estimate",
            "the share a 3.3 V board gets out of it before its regulator runs out of headroom, as it ages",
        ),
    },
    note="check the plug's polarity against the board's socket before plugging in: JST-PH cells "
    "are sold wired both ways",
)

# ---- connectors and cable ---------------------------------------------------------------------------

_part("housing-4", "crimp housing 1×4, 2.54 mm (onto a backpack's 4-pin header)", "Molex 22-01-3047", 0.2)
_part("housing-5", "crimp housing 1×5, 2.54 mm (onto a backpack's 5-pin header)", "Molex 22-01-3057", 0.2)
_part("crimp", "crimp terminal for those housings", "Molex 08-50-0114", 0.05)
_part(
    "stripboard",
    "stripboard 2.54 mm, about 100 × 160 mm: the I2C bus strips, the pull-ups, the ESP32 board's socket",
    "any maker's (a Veroboard-type board)",
    5.0,
)
_part("cable-2", "cable, 2 cores of 0.25 mm² (buttons, LEDs, buzzer)", "LAPP UNITRONIC LiYY 2 × 0.25", 0.8, unit="m")
_part(
    "cable-4",
    "cable, 4 cores of 0.25 mm² (the I2C buses, 4-pin backpacks)",
    "LAPP UNITRONIC LiYY 4 × 0.25",
    1.2,
    unit="m",
)
_part("cable-5", "cable, 5 cores of 0.25 mm² (5-pin backpacks)", "LAPP UNITRONIC LiYY 5 × 0.25", 1.4, unit="m")
_part(
    "wire",
    "hook-up wire 0.14 mm², stranded (on the main board, inside a box)",
    "LAPP UNITRONIC LiFY 0.14",
    0.3,
    unit="m",
)

# Cable lengths per connection (metres), by the board's role. "link": hook-up wire on the main
# board (ESP32 board to the bus strips, the pull resistors, the DC jack). A wall board's
# displays spread over a panel about a metre wide and its buttons reach the table's side; a
# remote is one box, every connection a short wire.
LENGTHS = {
    "wall": {"link": 0.1, "display": 0.5, "button": 3.0, "led": 0.5, "buzzer": 0.3},
    "remote": {"link": 0.1, "display": 0.15, "button": 0.15, "led": 0.15, "buzzer": 0.15},
}
LENGTHS_NOTE = {
    "cable": "estimated: the displays over a panel about 1 m wide (0.5 m each), the buttons on 3 m "
    "cables to the table's side, the LEDs 0.5 m, the buzzer 0.3 m",
    "wire": {
        "wall": "the links on the main board, 0.1 m each",
        "remote": "every connection inside the box, 0.1-0.15 m each",
    },
}

# A display's digit height when its definition gives none, per the board's role and kind: a
# wall board is read from the table, 3 to 6 m away, where 0.56" is marginal and 1.2" (the
# largest the HT16K33 drives directly) is comfortable; a remote is read at arm's length and
# has only its battery's 3.3 V, on which the 1.2" backpack's LEDs do not light. The
# 14-segment backpacks come in one size.
DEFAULT_SIZE = {("wall", "seg7"): 1.2, ("wall", "seg14"): 0.54, ("remote", "seg7"): 0.56, ("remote", "seg14"): 0.54}

SUPPLY_MARGIN = 0.25  # the supply's rating over the worst case: its tolerance, a warm cabinet, ageing
LED_SUPPLY_V = 3.3  # an LED hangs on an ESP32 pin
E12 = (10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82)


def _e12_at_least(ohm):
    decade = 1
    while True:
        for v in E12:
            if v * decade >= ohm:
                return v * decade
        decade *= 10


def led_ohm():
    """The LED's series resistor: the E12 value at or above (3.3 V - Vf) / the target current."""
    f = PARTS["led"].figures
    return _e12_at_least((LED_SUPPLY_V - f["vf_v"].value) / (f["target_ma"].value / 1000.0))


def led_ma():
    """The current an LED draws through led_ohm() from a 3.3 V pin."""
    return (LED_SUPPLY_V - PARTS["led"].figures["vf_v"].value) / led_ohm() * 1000.0


def led_resistor():
    """The LED resistor's Part with its value (led_ohm()) filled in: "Yageo CFR-25JB-52-150R"."""
    p = PARTS["resistor-led"]
    ohm = led_ohm()
    return p._replace(what=p.what.format(ohm=ohm), example=p.example.format(code=resistor_code(ohm)))


def resistor_code(ohm):
    """A resistor's value as makers print it in part numbers: 150R, 4R7, 10K, 1K2."""
    if ohm < 1000:
        return ("%gR" % ohm).replace(".", "R")
    k = ohm / 1000.0
    return "%dK" % k if k == int(k) else ("%g" % k).replace(".", "K")


def size_text(size):
    return '%g"' % size


KIND_NAMES = {"seg7": "7-segment", "seg14": "14-segment"}
# Which of a backpack's pins feeds its LEDs, and which its chip (the HT16K33's VDD).
LED_PIN = {"seg7-0.56": "+", "seg7-1.2": "+", "seg14-0.54": "VHi"}
CHIP_PIN = {"seg7-0.56": "+", "seg7-1.2": "+", "seg14-0.54": "VIO"}
# The ESP32 board's own marks for a GPIO, where its silkscreen does not say GPIOn.
PIN_MARKS = {"esp32-devkitc": {36: "VP", 39: "VN"}}


def backpack_name(kind, size):
    """'1.2" 7-segment', as a reader names a backpack."""
    return "%s %s" % (size_text(size), KIND_NAMES[kind])


def backpack(kind, size):
    """The Part of an HT16K33 backpack of this kind and digit height (ValueError if none is sold)."""
    key = "%s-%g" % (kind, size)
    if key not in PARTS:
        raise ValueError("no %s backpack of %s digits in the catalogue" % (kind, size_text(size)))
    return PARTS[key]


def digit_size(bd, display):
    """A display's digit height in inches: its "size", else DEFAULT_SIZE for the board's role."""
    return display.get("size") or DEFAULT_SIZE[(bd["role"], display["kind"])]


def esp32_board(role):
    return PARTS["esp32-firebeetle" if role == "remote" else "esp32-devkitc"]


def button(role):
    return PARTS["button-tactile" if role == "remote" else "button-arcade"]


def supplies():
    """The 5 V supplies in the catalogue, smallest first."""
    return sorted((p for p in PARTS.values() if p.key.startswith("supply-")), key=lambda p: p.figures["a"].value)


def rail_of(part, pin):
    """The rail ("5V", "3V3", "GND", "SDA", "SCL" or "") a part's pin goes to."""
    for name, rail, _ in part.pins:
        if name == pin:
            return rail
    raise KeyError(pin)


def source_line(key):
    kind, text = SOURCES[key]
    return "%s (%s)" % (text, kind)

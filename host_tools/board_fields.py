"""What each field of a board definition (boards/<name>.json) is, in a reader's words:
docs/reference/board-definition.md.

firmware/boarddef.py checks a definition (the board does it at every start, the host tools too); its
docstring says the schema for its readers, and the board keeps no text of it. This table is the
same schema as rows to look up. A test (tests/host/test_docs_reference.py) checks it against
boarddef.py: each object's keys here are exactly the keys boarddef accepts there, the required
ones are the ones it refuses to go without, and the timings' defaults and ranges are its TIMINGS.
"""


def _rows(table):
    """The fields of a table written a line each: key | its value | "required" or its default | what it is."""
    return tuple(tuple(cell.strip() for cell in line.split(" | ")) for line in table.strip().splitlines())


# Each object of the definition: (its path, what it is, its fields). A field: (key, its value,
# "required" or its default, what it is). NAME stands for a button's or an LED's name.
OBJECTS = (
    (
        "",
        "The board: one JSON object, the file `boards/<name>.json`",
        _rows(
            """
schema | 1 | 1 | the schema's version
name | 1..24 of `[a-z0-9_-]` | required | the board's name: the file's name without `.json`
role | `wall` or `remote` | required | a wall scoreboard, or a referee's handheld remote
description | text, 1..200 characters | required | what the board is, in a line
chip | `esp32` | `esp32` | the chip whose pins are checked (the only one so far)
i2c | a bus, or a list of 1 or 2 | none | the I2C buses of the displays; needed with displays
brightness | integer 0..15 | 8 | every display's brightness, unless it has its own
displays | a list of displays | none | the HT16K33 chips, 4 digits each; a wall board needs one
buttons | an object `{NAME: button}` | required | the buttons; at least one has an action
leds | an object `{NAME: led}` | none | the LEDs
buzzer | a GPIO, or null | null | the buzzer's pin
speaker | an object, or null | null | an I2S amplifier of the MAX98357A kind and its speaker: the referee's calls spoken
timings | an object | the defaults below | the button timings of every button
safe_boot_button | a button's NAME, or null | null | held at power-on: safe boot (the app does not start; E 30)
identify_button | a button's NAME, or null | null | held at power-on: the identify mode (each display shows its field and address, then each segment; the LEDs and the buzzer in turn; a press shows the button's name); not the safe_boot_button
"""
        ),
    ),
    (
        "i2c",
        "An I2C bus (the ESP32 has two; one bus holds at most 8 HT16K33, 0x70..0x77)",
        _rows(
            """
bus | 0 or 1 | required | the bus's id, which a display names
sda | a GPIO | required | the data pin
scl | a GPIO | required | the clock pin
freq | integer 10000..400000 | 400000 | the bus's clock in Hz
"""
        ),
    ),
    (
        "displays[]",
        "A display: one HT16K33 chip and its 4 digits",
        _rows(
            """
addr | a hex string `"0x70"`..`"0x77"` | required | the chip's I2C address (a string: JSON has no hex)
kind | `seg7` or `seg14` | required | 7-segment digits, or 14-segment characters (letters)
bus | 0 or 1 | the only bus | the bus the chip is on; required when there are two
brightness | integer 0..15 | the board's | this display's brightness
show | a field, or a list of parts | required | what it shows: a field on the whole chip, or parts of it (below), not overlapping
size | a digit height in inches (see Sizes) | per kind and role | the backpack's digit height; the parts list and the power budget follow it
"""
        ),
    ),
    (
        "displays[].show[]",
        "A part of a display: a field on some of its digits",
        _rows(
            """
field | a field (see Fields) | required | what these digits show
at | 0..3 | required | the first digit (0 is the leftmost)
width | 1..4 | required | how many digits
"""
        ),
    ),
    (
        "buttons.NAME",
        "A button",
        _rows(
            """
pin | a GPIO | required | its input pin
active_low | true or false | required | pressed reads low (a button to GND)
pull | `up`, `down` or null | required | the internal pull resistor (null: an external one)
action | an action, or null | required | what a press does
long_action | an action, or null | null | what a long press does; with one, the short press is reported on release
lockout | true or false | false | ignored for `timings.lockout_ms` after the turn passes
debounce_ms | as in timings | the board's timings | this button's own debounce time
long_ms | as in timings | the board's timings | this button's own long-press time
stuck_ms | as in timings | the board's timings | this button's own stuck time
"""
        ),
    ),
    (
        "leds.NAME",
        "An LED (NAME: one of the LEDs below): a GPIO, or an object",
        _rows(
            """
pin | a GPIO | required | its output pin
active_low | true or false | false | lit when the pin is low
"""
        ),
    ),
    (
        "speaker",
        "An I2S amplifier (MAX98357A) and its speaker: the wall board speaks the referee's calls",
        _rows(
            """
bck | a GPIO | required | the bit clock (BCLK)
ws | a GPIO | required | the word select (LRC)
din | a GPIO | required | the data (DIN)
gain_db | 3, 6, 9, 12 or 15 | 9 | the gain the amplifier's GAIN pin is wired for (9: the pin left open)
"""
        ),
    ),
    (
        "timings",
        "The button timings (config.json's `buttons` section overrides them); debounce < long < stuck",
        _rows(
            """
debounce_ms | integer 0..500 | 50 | a change shorter than this is contact bounce
long_ms | integer 100..10000 | 1000 | a press held this long is a long press
stuck_ms | integer 500..120000 | 5000 | a button held this long is stuck: E 1x
lockout_ms | integer 0..5000 | 400 | the lockout buttons are ignored this long after the turn passes
"""
        ),
    ),
)

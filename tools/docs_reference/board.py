"""docs/reference/board-definition.md: a board definition's fields, from host_tools/board_fields.py
(checked against firmware/boarddef.py by a test) and the lists boarddef.py checks against."""

import os

from host_tools import ROOT, firmware_path
from host_tools.board_fields import OBJECTS

from .md import cell, code, head, table

SOURCES = ("firmware/boarddef.py", "host_tools/board_fields.py")
INTRO = """
A board is data: one JSON file in `boards/`, checked by `firmware/boarddef.py` on the board at
every start and by the host tools (`carom board`, `carom deploy`). Adding a board means adding a
file, never editing code. Unknown keys are errors (a typo must not pass silently); every object
may also carry a `"comment"` text, which is ignored. An error names the file, the field and what
is wrong: `boards/wall.json: displays[2].addr: 0x80 is not in 0x70..0x77`.
"""


def _examples():
    names = sorted(f[:-5] for f in os.listdir(os.path.join(ROOT, "boards")) if f.endswith(".json"))
    out = []
    for name in names:
        page = os.path.join(ROOT, "docs", "build", "boards", name + ".md")
        link = " ([its page](../build/boards/%s.md))" % name if os.path.exists(page) else ""
        out.append("- `boards/%s.json`%s" % (name, link))
    return "The example boards:\n\n" + "\n".join(out) + "\n"


def _pins(boarddef):
    usable = [p for p in boarddef._PINS if p not in boarddef._UART0]
    strapping = ["GPIO %d: %s" % (p, why) for p, why in sorted(boarddef._STRAPPING.items())]
    return (
        "## Pins (ESP32)\n\n"
        "- Usable: GPIO %s. A pin is used once.\n"
        "- Refused: GPIO %s (the flash) and %s (the REPL's serial port).\n"
        "- Input only, without internal pulls (`pull` must be null: fit an external resistor; no LED, "
        "buzzer or I2C): GPIO %s.\n"
        "- Strapping pins give a warning: %s. A pull-up on GPIO 12 is refused.\n"
        % (
            ", ".join(str(p) for p in usable),
            ", ".join(str(p) for p in boarddef._FLASH),
            " and ".join(str(p) for p in boarddef._UART0),
            ", ".join(str(p) for p in boarddef._INPUT_ONLY),
            "; ".join(strapping),
        )
    )


def page():
    firmware_path()
    import boarddef
    import view_setup

    out = [head("Board definition", SOURCES, INTRO), _examples()]
    for path, what, fields in OBJECTS:
        out.append("## %s\n\n%s.\n" % (code(path) if path else "The board", cell(what)))
        rows = [[code(k), cell(v), cell(d), cell(w)] for k, v, d, w in fields]
        out.append(table(["field", "value", "default", "what it is"], rows))
    out.append(
        "## Fields\n\nWhat a display can show (`show`, `field`): %s. %s need letters: a `seg14` chip. "
        "A field may appear on several chips.\n"
        % (
            ", ".join(code(f) for f in view_setup.FIELDS),
            ", ".join(code(f) for f in boarddef.TEXT_FIELDS),
        )
    )
    out.append("## LEDs\n\nThe LEDs a board may have (`leds`): %s.\n" % ", ".join(code(x) for x in view_setup.LEDS))
    out.append(
        "## Actions\n\nWhat a button may do (`action`, `long_action`; `firmware/controller.py`): %s.\n"
        % ", ".join(code(a) for a in boarddef.ACTIONS)
    )
    sizes = "; ".join("`%s`: %s" % (kind, ", ".join("%g" % s for s in sizes)) for kind, sizes in boarddef.SIZES.items())
    out.append("## Sizes\n\nThe digit heights (inches) of the HT16K33 backpacks sold, per kind: %s.\n" % sizes)
    out.append(_pins(boarddef))
    return "\n".join(out)

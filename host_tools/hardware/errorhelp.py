"""Each `E nn` a board shows, as the builder reads it: what he sees, the likely cause, what to check.

    CODES          {errorcodes.py's name: Code(codes, sees, cause, check, short)}
    codes_of(n)    the codes a name stands for: ERROR_STUCK -> "E 10-E 1x", ERROR_CHIP -> "E 70-77, E 80-87"
    where_shown(bd)  the display that shows a running board's codes, or None (firmware/view_setup.py's order)
    markdown()     the page docs/build/error-codes.md: what the builder sees and checks
    reference()    the page docs/reference/error-codes.md: each code's name and meaning, to look up
    lines(bd)      one short line per code, for the card on the table (card.py)

The codes themselves are firmware/errorcodes.py's, the one table: a test checks that every code
there has its entry here and that no entry names a code that is not there.
"""

from collections import namedtuple

from .. import firmware_path

Code = namedtuple("Code", "sees cause check short")
REMOTE_ONLY = ("ERROR_NO_ACK", "ERROR_NOT_PAIRED", "ERROR_BOOT_COUNTER", "ERROR_BOOT_LIMIT")  # app_remote.py's

# What each code says to the person in front of the board. `sees`: where and how it shows; `cause`:
# the likely reason; `check`: what to do; `short`: the card's one line (a player's words).
CODES = {
    "ERROR_STUCK": Code(
        "E 1x on the message display while a button is held (x: the button's number, on the card); the button "
        "does nothing until it is let go",
        "a button held down longer than its stuck time (5 s): a jammed or shorted button, a cable pinched, or a "
        "GPIO 34-39 input without its external pull resistor (it floats and reads pressed)",
        "let the button go; if the code stays, unplug the button's cable: gone, the button or its cable is "
        "shorted; still there, check the pull resistor (carom board pins NAME lists them) and hold the identify "
        "button at power-on to see each button's name as it is pressed",
        "a button is held down (x: its number); let it go",
    ),
    "ERROR_CONFIG": Code(
        "E 20 on the message display after a start; the board runs",
        "config.json is not valid (a hand edit, a file cut short): the board runs its last good configuration",
        "carom doctor names the key and what is wrong; carom config set KEY=VALUE or carom config import FILE "
        "writes a checked one",
        "the settings file is damaged: the last good settings run",
    ),
    "ERROR_BOARD": Code(
        "E 21 on the message display (the wall board's layout runs), or blinking on every display that answers "
        "when no board definition can be read at all",
        "boards/NAME.json, the board definition config.json names, is missing or damaged on the board",
        "carom deploy --board NAME puts it back; carom doctor checks it",
        "the board definition is missing or damaged",
    ),
    "ERROR_CONFIG_DEFAULTS": Code(
        "E 22 on the message display after a start; the board runs with the defaults",
        "config.json is not valid and there is no last good copy (a first start after a bad edit)",
        "carom doctor names what is wrong; carom config set or carom config import writes a checked one",
        "the settings file is damaged: the defaults run",
    ),
    "ERROR_STORE": Code(
        "E 23 on the message display for 10 s after a start; the match is back as far as it could be read",
        "the saved match was damaged (a flash error) or went back in time; what could be read is back",
        "check the score against the paper or the players; if it comes back at every start, carom doctor "
        "checks the flash's free space and carom report reads what is saved",
        "the saved match was damaged: check the score",
    ),
    "ERROR_MEMORY": Code(
        "E 24 blinking on the message display; the press that caused it was not taken",
        "the board ran out of memory for an event, a report or the saved match; nothing saved is lost: the "
        "saved match stays on the flash",
        "power the board off and on (the match comes back); if it comes back at once, carom doctor shows the "
        "free RAM; report it with the board's console output",
        "out of memory: restart the board, nothing is lost",
    ),
    "ERROR_VOICE": Code(
        "E 25 on the message display for 10 s (at a start, or when a call needs a clip); the board goes on "
        "speaking the calls it can",
        "the voice pack on the board (voice.pack) has a damaged clip, or lacks one a call needs; that clip is "
        "skipped, the match and the other calls go on",
        "make the pack again with carom voice and copy it with carom deploy --voice; the console names the "
        "clip's number (firmware/voicenames.py)",
        "a voice clip is damaged: carom voice, then deploy --voice",
    ),
    "ERROR_SAFE_BUTTON": Code(
        "E 30 blinking on every display; the board does nothing else",
        "safe boot: the safe-boot button was held while the power came on (on purpose, for maintenance, or a "
        "button stuck or shorted)",
        "power off and on without holding it; if it stays, that button's wiring is shorted: check it",
        "safe boot: a button was held at power-on",
    ),
    "ERROR_CRASH_LOOP": Code(
        "E 31 blinking on every display; the board does nothing else",
        "safe boot after three crashes in a row (a firmware fault, or hardware that hangs the bus)",
        "carom doctor, then carom deploy again; carom doctor --identify to see the wiring; report the board's "
        "console output",
        "safe boot after repeated crashes: call the organiser",
    ),
    "ERROR_NO_ACK": Code(
        "E 40 on the referee box's display after a press",
        "the wall board did not answer the box: it is off, out of range, or paired with another box",
        "check the wall board is on; press again nearer to it; pair them again with carom pair",
        "referee box: the wall board did not answer",
    ),
    "ERROR_NOT_PAIRED": Code(
        "E 41 on the referee box's display",
        "the box has no wall board to talk to (no radio.peer or radio.key in its config.json)",
        "pair it with its wall board: carom pair --wall WALL_PORT --remote BOX_PORT",
        "referee box: not paired",
    ),
    "ERROR_BOOT_COUNTER": Code(
        "E 42 on the referee box's display; nothing is sent",
        "the box could not save its boot counter on its flash (a full or damaged flash)",
        "carom doctor on the box's port (its flash's free space); the next press tries again",
        "referee box: cannot save its counter",
    ),
    "ERROR_BOOT_LIMIT": Code(
        "E 43 on the referee box's display; nothing is sent",
        "the box's boot counter reached its limit (after about a billion starts)",
        "pair it again with carom pair (that restarts the counter)",
        "referee box: pair it again",
    ),
    "ERROR_RADIO_FLOOD": Code(
        "E 44 on the wall board's message display; its own buttons still work",
        "radio frames from too many sender addresses: other ESP-NOW devices nearby, or someone flooding it; the "
        "wall forgot every address but its referee box's, which it still hears (E 44 goes after 10 s)",
        "nothing to do if it goes; if it keeps coming back, find the other ESP-NOW devices near the table",
        "much radio traffic from strangers: the referee box is still heard",
    ),
    "ERROR_CHIP": Code(
        "E 7n (bus 0) or E 8n (bus 1) on the message display, n the display's address minus 0x70: E 72 is the "
        "display at 0x72 on bus 0; that display stays dark or frozen",
        "the display at that bus and address does not answer: unplugged, a loose wire, or its address jumpers "
        "set to another address",
        "carom doctor names the display, its field and its place and what answers instead; hold the identify "
        "button at power-on to see each display's bus.address",
        "a display does not answer (7: bus 0, 8: bus 1; then its address)",
    ),
}


def codes_of(name):
    """The codes an errorcodes.py name stands for, as the board shows them."""
    firmware_path()
    import errorcodes

    value = getattr(errorcodes, name)
    if name == "ERROR_STUCK":
        return "E %d-E %d" % (value, value + 9)
    if name == "ERROR_CHIP":
        return "E %d-%d, E %d-%d" % (value, value + 7, value + 10, value + 17)
    return "E %d" % value


def names():
    """errorcodes.py's code names (ERROR_*), in the order of their codes."""
    firmware_path()
    import errorcodes

    return sorted((n for n in dir(errorcodes) if n.startswith("ERROR_")), key=lambda n: getattr(errorcodes, n))


def where_shown(bd):
    """The display (of the normalized definition bd) where a running board shows its codes: the first
    showing message, else clock, else target (view_setup.py's own order); None when it has none."""
    firmware_path()
    import view_setup

    for field in view_setup._MESSAGE_FIELDS:  # the firmware's order, read, not restated
        for d in bd["displays"]:
            if any(p["field"] == field for p in d["show"]):
                return d
    return None


def markdown():
    out = [
        "# Error codes: what the board shows, and what to check\n\n",
        "<!-- Generated by `carom board docs` (make docs) from firmware/errorcodes.py and "
        "host_tools/hardware/errorhelp.py: edit those, never this page. -->\n\n",
        "A board says what is wrong with `E` and a number. A running wall board shows it on its message "
        "display (a board without one: on its clock, else its target display); a board that cannot start "
        "shows it blinking on every display that answers; the referee box on its own display. "
        "`carom doctor --device PORT` says the same in words. The first mistakes a builder makes, and how "
        "each shows, are on [first-mistakes.md](first-mistakes.md).\n\n",
        "| code | what you see | likely cause | what to check |\n|---|---|---|---|\n",
    ]
    for name in names():
        c = CODES[name]
        out.append("| %s | %s | %s | %s |\n" % (codes_of(name), c.sees, c.cause, c.check))
    return "".join(out)


def reference():
    """docs/reference/error-codes.md (tools/docs_reference writes it): each code, its name in the
    firmware, the boards that show it and its meaning (the card's line); what to check is on the
    builder's page, markdown() above, and only there."""
    out = [
        "# Error codes\n\n",
        "Generated by `make docs` from `firmware/errorcodes.py`, `host_tools/hardware/errorhelp.py`: do not edit.\n\n",
        "Each `E` and a number a board shows, its name in the firmware (`firmware/errorcodes.py`) and "
        "what it means. What you see, the likely cause and what to check: "
        "[the builder's page](../build/error-codes.md).\n\n",
        "| code | name | on the card of | what it means |\n|---|---|---|---|\n",
    ]
    for name in names():
        who = "a referee box" if name in REMOTE_ONLY else "a wall board"
        out.append("| %s | `%s` | %s | %s |\n" % (codes_of(name), name, who, CODES[name].short))
    return "".join(out)


def lines(bd):
    """[(code text, short line)] for the card of board bd: the codes its role shows (a referee box
    only its own, a wall board all but those), E 1x with this board's buttons numbered."""
    firmware_path()
    import errorcodes

    remote = bd["role"] == "remote"
    out = []
    for name in names():
        if (name in REMOTE_ONLY) != remote:
            continue
        code = codes_of(name)
        short = CODES[name].short
        if name == "ERROR_STUCK":
            first = errorcodes.ERROR_STUCK
            code = "E %d-E %d" % (first, first + len(bd["buttons"]) - 1)
            short += ": " + ", ".join("%d %s" % (first + i, b["name"]) for i, b in enumerate(bd["buttons"]))
        if name == "ERROR_CHIP":
            buses = sorted({d["bus"] for d in bd["displays"]})
            code = ", ".join(
                "E %d-%d" % (errorcodes.ERROR_CHIP + 10 * b, errorcodes.ERROR_CHIP + 10 * b + 7) for b in buses
            )
        out.append((code, short))
    return out

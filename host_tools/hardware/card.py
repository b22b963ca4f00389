"""The card for the table: one printed page per board, for a player or referee who never reads a manual.

    card_html(bd)        the page (HTML and CSS, no script, nothing fetched), from the normalized definition;
                         its style is card.css, inlined into each page
    message_words()      [(word, meaning, in a set match)] of every word the message display can show
    ACTION_WORDS         what each button action does (controller.ACTIONS: a test checks every one has its words)

Everything on it comes from the definition (the buttons, their hold times, the lock-out, the LEDs, the
buttons held at power-on) and from the firmware (the message display's words: view.py's and
formats_rare.py's own texts, read here; the E-codes: errorcodes.py, through errorhelp.py).
`carom board card NAME [--pdf FILE]` writes it; `carom board docs` keeps docs/build/boards/NAME/card.html.
"""

import functools
import html
import os
import re

from .. import firmware_path
from . import errorhelp

CSS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "card.css")  # the card's style

# What a press does, by the action a board definition gives a button (firmware/controller.py's ACTIONS).
ACTION_WORDS = {
    "point": "a point (a carom) for the player at the table; in the lag: A won it and breaks",
    "miss": "a miss: the inning ends, the turn passes; in the lag: B won it and breaks",
    "A.point": "a point for A; in the lag: A won it and breaks",
    "A.miss": "A's inning ends (a miss): the turn passes",
    "B.point": "a point for B; in the lag: B won it and breaks",
    "B.miss": "B's inning ends (a miss): the turn passes",
    "foul": "a foul by the player at the table: the inning ends, that stroke scores nothing (I.9.2)",
    "foul.touch": "a foul: a ball touched by hand, clothes or cue (I.9.2 d-f)",
    "foul.push": "a foul: a push shot (I.9.2 g)",
    "foul.jump": "a foul: a ball jumped off the table (I.9.2 b)",
    "foul.time": "a foul: the shot clock ran out",
    "undo": "takes the last entry back; again for the one before (newest first)",
    "break": "the half-time break (I.4): starts it once a player has half his target, ends it early",
    "timeout": "a time-out: this shot may take 60 s",
    "new_match": "a new match (the finished one stays in the board's reports)",
    "next_set": "the next set, once a set is over",
    "warmup": "the warm-up: A's, then B's; once more ends it",
}

# What the message display's words mean (the words themselves are the firmware's: message_words()).
# A number in a word (LAST 3, SHOOT-OUT 2) is written n here.
WORD_MEANINGS = {
    "LAG": "the lag decides who breaks (I.1)",
    "BREAK": "the half-time break runs (I.4)",
    "EQUALIZING INNING": "the last inning, to equal the innings (I.8.3)",
    "DRAW": "the match is a draw (I.8.4)",
    "TIE-BREAK": "a draw that may not stand: a tie-break decides",
    "FOUL": "a foul ended the inning (I.9.2)",
    "TIME": "the shot clock ran out: a foul",
    "A WINS": "A won the match",
    "B WINS": "B won the match",
    "RESPOT": "frozen ball: all three balls to the starting position",
    "SPOTS": "frozen ball: the frozen balls to their spots",
    "FROZEN": "frozen ball: the player chooses how to go on (II.2.7, II.3.3)",
    "FREE BALL": "frozen ball: play the free ball",
    "MASSE": "frozen ball: a masse away from it",
    "LAST n": "blinking: n points still needed by the player at the table (III.4.11)",
    "OUT": "blinking: the next carom must bring a ball out of the area (II.1.2, II.2.3)",
    "SET OVER": "the set is over: the next set starts with NEW",
    "SHOOT-OUT n": "the shoot-out, round n: it decides the set",
    "WARM-UP A": "A's warm-up runs (its time on the clock)",
    "WARM-UP B": "B's warm-up runs",
}

LED_WORDS = {
    "A.turn": "lit: A is at the table",
    "B.turn": "lit: B is at the table",
    "A.spot": "lit: A plays the spot (yellow) ball",
    "B.spot": "lit: B plays the spot (yellow) ball",
    "equalizing": "lit: the equalizing inning runs (I.8.3)",
}


def _words(text):
    return [w.strip().decode() for w in bytes(text).split(b"    ") if w.strip()]


def message_words():
    """[(word as the card writes it, its meaning, True when only a set match shows it)]: every text
    firmware/view.py and formats_rare.py put on the message display, a number in it written n."""
    firmware_path()
    import formats_rare
    import view

    out = []
    for text, formats in ((view._TEXT, False), (formats_rare._TEXT, True)):
        for word in _words(text):
            word = re.sub(r"\d+$", "n", word)
            if word not in [w for w, _, _ in out]:
                out.append((word, WORD_MEANINGS[word], formats))
    return out


def _seconds(ms):
    s = ms / 1000
    return ("%.1f" % s).rstrip("0").rstrip(".") + " s"


def _label(name):
    return name.split(".", 1)[-1].upper() if name.count(".") == 1 and name[0] in "AB" else name.upper()


def _button_rows(bd):
    rows = []
    for b in bd["buttons"]:
        who = {"A": "player A's ", "B": "player B's "}.get(b["name"][0] if b["name"][1:2] == "." else "", "")
        press = ACTION_WORDS.get(b["action"], "") if b["action"] else "nothing"
        held = ("held %s: %s" % (_seconds(b["long_ms"]), ACTION_WORDS[b["long_action"]])) if b["long_action"] else ""
        rows.append((who + _label(b["name"]), press, held, b["lockout"]))
    return rows


def _esc(s):
    return html.escape(s, quote=True)


@functools.cache
def _css():
    """card.css, read once."""
    with open(CSS, encoding="utf-8") as f:
        return f.read()


def card_html(bd):
    """The card of the board `bd` (a normalized definition) as one printable HTML page."""
    name = bd["name"]
    remote = bd["role"] == "remote"
    out = [
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
        "<title>%s: the card for the table</title>\n" % _esc(name),
        "<!-- Generated by carom board card from boards/%s.json: edit that file, never this one. -->\n" % _esc(name),
        "<style>\n%s</style>\n</head>\n<body>\n" % _css(),
    ]
    what = "the referee box" if remote else "the scoreboard"
    out.append("<h1>%s: %s</h1>\n<p>%s.</p>\n" % (_esc(name), what, _esc(bd["description"].rstrip("."))))

    out.append(
        "<h2>%s</h2>\n<table>\n<tr><th>button</th><th>press</th><th>hold</th></tr>\n"
        % ("Keys" if remote else "Buttons")
    )
    for label, press, held, _ in _button_rows(bd):
        out.append('<tr><td class="key">%s</td><td>%s</td><td>%s</td></tr>\n' % (_esc(label), _esc(press), _esc(held)))
    out.append("</table>\n")
    locked = [label for label, _, _, lockout in _button_rows(bd) if lockout]
    if locked:
        out.append(
            '<p class="note">Just after the turn passes, %s %s ignored for %s: a press then is not '
            "counted twice. A button held %s does nothing until it is let go (E 1x).</p>\n"
            % (
                ", ".join(locked),
                "is" if len(locked) == 1 else "are",
                _seconds(bd["timings"]["lockout_ms"]),
                _seconds(max(b["stuck_ms"] for b in bd["buttons"])),
            )
        )
    at_power = []
    if bd.get("identify_button"):
        at_power.append(
            "<b>%s</b>: the wiring check (each display shows what it is for; a press shows the "
            "button's name; hold any button to leave)" % _esc(_label(bd["identify_button"]))
        )
    if bd.get("safe_boot_button"):
        at_power.append(
            "<b>%s</b>: safe boot (E 30: nothing runs; for maintenance)" % _esc(_label(bd["safe_boot_button"]))
        )
    if at_power:
        out.append('<p class="note">Held while the power comes on: %s.</p>\n' % "; ".join(at_power))

    shown = errorhelp.where_shown(bd)
    has_message = any(p["field"] == "message" for d in bd["displays"] for p in d["show"])
    out.append('<div class="cols"><div>\n')
    if remote:
        out.append(
            "<h2>Its display</h2>\n<p>The score as the wall board acknowledged it, A's then B's "
            "(<b>AA:BB</b>); in a set match the sets won after a set (<b>2-1</b>), the shoot-out's runs, "
            "<b>UP A</b> / <b>UP b</b> during a warm-up. It goes dark a few seconds after a press to save "
            "the battery; a press wakes it and is sent.</p>\n"
        )
    elif has_message:
        out.append('<h2>The message display</h2>\n<table class="small">\n')
        for word, meaning, formats in message_words():
            out.append(
                '<tr><td class="key">%s</td><td>%s%s</td></tr>\n'
                % (_esc(word), _esc(meaning), " (a set match)" if formats else "")
            )
        out.append("</table>\n")
    else:
        out.append(
            "<h2>Messages</h2>\n<p>This board has no message display: the scores say it all. Its codes "
            "show only when it cannot start (blinking on every display); <i>carom doctor</i> says the "
            "rest.</p>\n"
        )

    if remote:
        where = "on the box's display"
    elif shown is not None:
        where = "on the %s display" % shown["show"][0]["field"]
    else:
        where = "blinking on every display, when it cannot start"
    out.append("</div><div>\n")
    if bd.get("leds"):
        out.append("<h2>Lights</h2>\n<table>\n")
        for led in bd["leds"]:
            out.append('<tr><td class="key">%s</td><td>%s</td></tr>\n' % (_esc(led), _esc(LED_WORDS[led])))
        out.append("</table>\n")

    out.append('<h2>Codes (E nn, %s)</h2>\n<table class="small">\n' % _esc(where))
    for code, short in errorhelp.lines(bd):
        out.append('<tr><td class="key">%s</td><td>%s</td></tr>\n' % (_esc(code), _esc(short)))
    out.append("</table>\n")
    out.append(
        '<p class="note">A code that stays: tell the organiser. Nothing of the match is lost: the board '
        "keeps it through a power cut.</p>\n</div></div>\n"
    )
    out.append("</body>\n</html>\n")
    return "".join(out)

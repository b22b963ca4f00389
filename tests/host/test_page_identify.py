"""The identify mode from the simulator page, in Debian's Chromium: its control starts the mode as a
person does (the power off, the board's identify button held, the power on, released once the mode
shows), and the page draws what the firmware then writes.

What is tried on the wall board: the control is clicked; the hint line says what to do; the score
display draws its label (A SC, whose 7-segment S reads as a 5), then its bus and address, then one
segment at a time; the identify button is up again; a click on A.point shows its name on the
message display; a long press (Shift and the button's key) leaves, the board restarts and the
page shows the match's hint again. An identify action with a field it does not take is refused.
"""

import json
import urllib.error
import urllib.request

from helpers import wait_for
from test_web import sim_page
from tools.run.sim import READ_JS

BOARD = '.board[data-board="0"]'


def shown(page, key):
    """The text the page was told a display reads (its figure's data-text)."""
    return page.get_attribute('%s figure[data-chip="%s"]' % (BOARD, key), "data-text")


def lit_segments(page, key):
    """The polygons the page drew lit on a display: [(cell, segment)] and the colon."""
    chip = page.evaluate(READ_JS, key)
    return [(i, seg) for i, names in enumerate(chip["cells"]) for seg in names] + (["colon"] if chip["colon"] else [])


def test_the_page_control_starts_the_identify_mode(browser):
    with sim_page(browser) as (sim, p):
        page = p.page
        page.click('%s [data-action="identify"]' % BOARD)
        say = "%s .say" % BOARD
        wait_for(lambda: page.get_attribute(say, "data-phase"), "identify", 30, "the hint's phase")
        assert page.text_content(say) == (
            "Identify mode: press a button to see its name (on 0.77); hold one 1 s to leave"
        )
        texts = []

        def score_display():
            texts.append(shown(page, "0x70"))
            return texts

        wait_for(
            score_display,
            lambda t: "A 5C" in t and " 0.70" in t[t.index("A 5C") :],
            30,
            "the score display's label, then its bus and address",
        )
        wait_for(lambda: lit_segments(page, "0x70"), lambda s: len(s) == 1, 30, "one segment lit alone")
        assert page.get_attribute('%s button[data-button="foul"]' % BOARD, "data-down") == "false"  # released

        page.click('%s button[data-button="A.point"]' % BOARD)
        wait_for(lambda: shown(page, "0x77"), "A.POI", 30, "A.point's name on the message display")
        wait_for(
            lambda: any("identify: button A.point (GPIO34)" in line for line in p.log_lines()),
            True,
            30,
            "the board's console line in the page's log",
        )

        req = urllib.request.Request(
            sim.url + "/api/boards/0/action",
            json.dumps({"do": "identify", "on": True}).encode(),
            {"Content-Type": "application/json"},
        )
        try:
            urllib.request.urlopen(req, timeout=30)
            raise AssertionError("an identify action with a field it does not take was taken")
        except urllib.error.HTTPError as e:
            assert e.code == 400 and json.loads(e.read()) == {"error": 'identify takes no other field, not "on"'}

        page.keyboard.press("Shift+Z")  # A.end's key, held: a long press
        wait_for(lambda: page.get_attribute(say, "data-phase"), "lag", 30, "the match's hint again")
        wait_for(
            lambda: any("carom: running on board wall" in line for line in p.log_lines()[-8:]),
            True,
            30,
            "the board's app running again",
        )
        p.wait_text("A.score", "   0", timeout=30)
        assert p.errors == []

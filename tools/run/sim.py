"""`carom sim` as a person starts it, and its page read back from what it drew: the lit SVG polygons
of each digit, decoded here into text (nothing is read from the match state).  The page tests
(tests/host/test_web.py and test_page_*.py) and tools/pictures.py use it.
"""

import json
import re
import urllib.request

from host_tools import ROOT
from host_tools.simulator.segments import SEG14_NAMES, decode_seg14
from tools.run import LineProcess, wait_for


# The seven-segment digits, written out here independently of the firmware and the page.
SEG7_DIGITS = {
    "": " ",
    "abcdef": "0",
    "bc": "1",
    "abdeg": "2",
    "abcdg": "3",
    "bcfg": "4",
    "acdfg": "5",
    "acdefg": "6",
    "abc": "7",
    "abcdefg": "8",
    "abcdfg": "9",
    "g": "-",
}


class Sim(LineProcess):
    """`carom sim` (or `make sim`) as a subprocess: its URL, its output, a clean stop."""

    name = "carom sim"

    def __init__(self, cmd, cwd=ROOT, env=None, timeout=60):
        super().__init__(cmd, cwd, env)
        self.url = self.wait_line(r"the simulator is at (http://\S+)", timeout).group(1)
        self.flash = [m.group(1) for m in (re.search(r"flash (\S+)$", x) for x in self.lines) if m]

    def gave_up(self):
        self.stop()

    def post(self, board, action):
        req = urllib.request.Request(
            self.url + "/api/boards/%d/action" % board,
            json.dumps(action).encode(),
            {"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())


# ---- reading what the page drew ------------------------------------------------------------

READ_JS = """(key) => {
  const f = document.querySelector('.board[data-board="0"] figure[data-chip="' + key + '"]');
  const cells = [...f.querySelectorAll('g.cell')].map(
      g => [...g.querySelectorAll('polygon.on')].map(p => p.dataset.seg));
  const colon = f.querySelectorAll('g.colon polygon.on').length > 0;
  return {cells, colon, lit: f.dataset.lit, present: f.dataset.present, blink: f.dataset.blink,
          brightness: f.dataset.brightness};
}"""


class Page:
    """One browser tab on the simulator, read through what it drew."""

    def __init__(self, page, layout):
        self.page = page
        self.fields = {}  # field -> (chip key, kind, at, width)
        for d in layout["displays"]:
            for part in d["show"]:
                self.fields[part["field"]] = (d["key"], d["kind"], part["at"], part["width"])
        if "countdown" not in self.fields and "sets" in self.fields:  # the sets field shows it
            self.fields["countdown"] = self.fields["sets"]
        if "target" not in self.fields and "A.target" in self.fields:  # each player's own target
            self.fields["target"] = self.fields["A.target"]

    def chip(self, key):
        return self.page.evaluate(READ_JS, key)

    def text(self, field):
        """The field as the page's lit segments read: '   5', '5.000', ' 3:00', 'LAG '."""
        key, kind, at, width = self.fields[field]
        chip = self.chip(key)
        out = ""
        for i, names in enumerate(chip["cells"][at : at + width], start=at):
            if kind == "seg7":
                digit = "".join(sorted(n for n in names if n != "dp"))
                out += SEG7_DIGITS.get(digit, "?") + ("." if "dp" in names else "")
            else:  # back to RAM bits, then host_tools/simulator/segments.py reads the 14-segment glyph
                bits = sum(1 << SEG14_NAMES.index(n) for n in names)
                cell = decode_seg14(bytes([bits & 0xFF, bits >> 8] + [0] * 14)).cells[0]
                out += cell.char + ("." if cell.dp else "")
            if kind == "seg7" and i == 1 and chip["colon"]:
                out += ":"
        return out

    def led(self, name):
        return self.page.get_attribute('.board[data-board="0"] [data-led="%s"]' % name, "data-on")

    def button(self, name):
        return self.page.locator('.board[data-board="0"] button[data-button="%s"]' % name)

    def wait_text(self, field, expected, timeout=10.0):
        return wait_for(lambda: self.text(field), expected, timeout, "the page's %s" % field)

    def vtime(self):
        """The board's virtual time as the page last heard it."""
        return float(self.page.get_attribute('.board[data-board="0"]', "data-t"))

    def let_pass(self, seconds):
        """Wait until `seconds` of the board's virtual time passed (a loaded machine runs it slower)."""
        start = self.vtime()
        wait_for(self.vtime, lambda t: t >= start + seconds, 10 + seconds * 4, "virtual time")

    def lit_polygons(self):
        return self.page.locator('.board[data-board="0"] .face polygon.on').count()

    def log_lines(self):
        return self.page.locator('.board[data-board="0"] .log li').all_inner_texts()


def open_page(browser, sim, width=1500, height=950):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(sim.url)
    page.wait_for_selector("body[data-ready=true]")
    page.wait_for_selector('#link[data-state="live"]')
    view = Page(page, sim.get("/api/boards")["boards"][0])
    view.errors = errors
    return view

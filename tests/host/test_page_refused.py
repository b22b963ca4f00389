"""A refused press says so on the page, in Debian's Chromium, with the sound off.

The firmware prints one line for each press it refuses or ignores in the lock-out
(`carom: refused <action>: <reason>` on its console); the page marks the button pressed for it
("✕ refused" for a moment, the reason in its tooltip) and its log says "<button> refused:
<reason>" in the firmware's words.  Checked: a press in the lock-out after the turn passed,
B's POINT while A is at the table, BREAK before half-time, a short tap on NEW, and, with
`--remote`, the referee box's press the wall refused, marked on the box's own button.
"""

import re

from helpers import CAROM, free_port, wait_for
from host_tools import firmware_path
from test_page_match import not_cut
from test_web import stop_and_check
from tools.run.sim import Sim, open_page


def reason(name):
    firmware_path()
    import reasons

    return getattr(reasons, name)


class Refusals:
    def __init__(self, p, board=0):
        self.p = p
        self.board = board
        self.seen = 0

    def log(self):
        return [x for x in self.p.page.locator('.board[data-board="0"] .log li[data-kind="refused"]').all_inner_texts()]

    def next(self, button, words=None, board=None):
        """Wait for the next refusal in the wall's log: it names `button` and has `words` (the
        firmware's reason), and the button pressed for it shows the mark; the reason logged."""
        board = self.board if board is None else board

        def new():
            lines = self.log()[self.seen :]
            return [x for x in lines if re.search(r"\b%s refused: \S" % re.escape(button), x)]

        line = wait_for(new, lambda v: bool(v), 15, "%s refused in the log" % button)[0]
        self.seen = len(self.log())
        if words:
            assert words in line, (words, line)
        btn = self.p.page.locator('.board[data-board="%d"] button[data-button="%s"]' % (board, button.split()[-1]))
        wait_for(lambda: btn.get_attribute("data-refused"), "true", 5, "the mark on %s" % button)
        mark = btn.evaluate("b => getComputedStyle(b, '::after').content")
        assert "refused" in mark, mark
        assert "refused: " in btn.get_attribute("title")
        wait_for(lambda: btn.get_attribute("data-refused"), "false", 10, "the mark on %s gone" % button)
        return line.split("refused: ", 1)[1]


def test_refused_presses_are_marked_and_logged(browser):
    sim = Sim([CAROM, "sim", "--listen", "127.0.0.1:%d" % free_port()], timeout=90)
    try:
        p = open_page(browser, sim)
        r = Refusals(p)
        assert p.page.get_attribute("#sound", "aria-pressed") == "false"
        # Two quick clicks: the first says A breaks, the second comes within the lock-out
        # (the server holds each 100 ms and leaves 100 ms between them: inside 400 ms).
        p.button("A.point").click()
        p.button("A.point").click()
        r.next("A.point", "locked out")
        wait_for(lambda: p.led("A.turn"), "1", what="A's turn LED")
        assert p.text("A.score") == "   0"  # the lock-out kept it
        p.let_pass(0.5)
        p.button("B.point").click()  # A is at the table
        r.next("B.point", reason("NOT_AT_TABLE"))
        p.button("break").click()  # before half-time
        r.next("break", reason("BREAK_NOT_HALF"))
        p.button("new").click()  # a short tap: not a new match
        said = r.next("new")
        assert said.strip()
        assert p.text("A.score") == "   0" and p.text("B.score") == "   0"
        assert p.errors == []
    finally:
        stop_and_check(sim)


def test_the_referee_box_press_refused_by_the_wall(browser):
    sim = Sim([CAROM, "sim", "--remote", "--listen", "127.0.0.1:%d" % free_port()], timeout=90)
    try:
        p = open_page(browser, sim, 1280, 720)
        r = Refusals(p)
        box = '.board[data-board="1"] button[data-button="%s"]'
        p.page.click(box % "point")  # in the lag: A breaks
        wait_for(lambda: p.led("A.turn"), "1", what="A's turn LED")
        p.let_pass(0.5)
        p.page.click(box % "break")  # before half-time: refused by the wall
        said = r.next("the referee box's break", reason("BREAK_NOT_HALF"), board=1)
        assert said
        # Both hint lines, in the narrowest layout (the box beside the wall board at 1280 wide), whole.
        for board in (0, 1):
            sel = '.board[data-board="%d"] .say' % board
            assert "A at the table" in p.page.inner_text(sel)
            assert not_cut(p.page, sel), p.page.inner_text(sel)
        assert p.errors == []
    finally:
        stop_and_check(sim)

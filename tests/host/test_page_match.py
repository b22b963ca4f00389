"""The page as a club uses it: names and match options from the form, and the hint
line that says what to press, through a whole match and a set match, in Debian's Chromium.

The form writes config.json through the board's serial console (the raw REPL, as `carom config
set`): the page's log says a host tool used the raw REPL, the board restarts, and the names show
on its displays.  A bad value is refused with the firmware's own words (config_edit, the schema
the board checks with) and nothing is written.  The hint line is checked against the phase the
page is told, in a person's words: the lag, a player at the table, the half-time break, the
equalizing inning, the end; then a warm-up, a set over and a shoot-out.
"""

import json
import os

from helpers import CAROM, free_port, wait_for
from host_tools import firmware_path
from test_web import stop_and_check
from tools.run.sim import Sim, open_page


def form(page):
    page.click('.board[data-board="0"] [data-action="match-form"]')
    page.wait_for_selector("dialog#match-form[open]")


def submit(page):
    """Write to the board; the status once it is no longer busy: (state, text)."""
    page.click('[data-action="save-config"]')
    page.wait_for_function(
        "() => { const s = document.querySelector('.form-status');"
        " return s.dataset.state && s.dataset.state !== 'busy'; }",
        timeout=90000,
    )
    return page.get_attribute(".form-status", "data-state"), page.text_content(".form-status")


def fill(page, values, new_match=False):
    for key, value in values.items():
        sel = '#match-form [name="%s"]' % key
        if page.eval_on_selector(sel, "e => e.tagName") == "SELECT":
            page.select_option(sel, value)
        else:
            page.fill(sel, value)
    if new_match:
        page.check('#match-form [name="new_match"]')


def new_match_from_form(page, values):
    """The open form filled with `values` and "a new match" ticked, written to the board (it must
    say ok) and closed: the status's text."""
    fill(page, values, new_match=True)
    state, text = submit(page)
    assert state == "ok", text
    page.click('#match-form button:has-text("Close")')
    return text


class Hint:
    def __init__(self, p):
        self.p = p
        self.sel = '.board[data-board="0"] .say'

    def wait(self, phase, *words, timeout=15):
        """Wait until the page is told `phase` and its hint line, as shown, has every one of `words`."""

        def now():
            return self.p.page.get_attribute(self.sel, "data-phase"), self.p.page.inner_text(self.sel)

        text = wait_for(
            now,
            lambda v: v[0] == phase and all(w in v[1] for w in words),
            timeout,
            "the hint for %s with %r" % (phase, words),
        )[1]
        assert not_cut(self.p.page, self.sel), "the hint %r is cut" % text
        return text


def not_cut(page, sel):
    """The element shows all its text: nothing hidden past its box."""
    return page.eval_on_selector(sel, "e => e.scrollHeight <= e.clientHeight && e.scrollWidth <= e.clientWidth")


def press(p, name, times=1):
    for _ in range(times):
        p.button(name).click()


def test_form_and_hints_through_a_match(browser, tmp_path):
    flash = str(tmp_path / "flash")
    os.makedirs(flash)
    sim = Sim([CAROM, "sim", "--listen", "127.0.0.1:%d" % free_port(), "--flash", flash], timeout=90)
    try:
        p = open_page(browser, sim, 1280, 720)
        page = p.page
        hint = Hint(p)
        hint.wait("lag", "POINT", "breaks")
        # END says it is a miss, on the button itself.
        assert "miss" in p.button("A.end").inner_text().lower()

        # A bad value: the firmware's schema words it, nothing is written.
        firmware_path()
        import config_edit

        try:
            config_edit.set_path({}, "match.target", "0", "")
        except ValueError as e:
            expected = str(e)
        else:
            raise AssertionError("the firmware takes a target of 0")
        before = open(os.path.join(flash, "config.json"), "rb").read()
        form(page)
        values = page.eval_on_selector_all("#match-form [name]", "es => es.map(e => [e.name, e.value])")
        assert ("match.target", "30") in [tuple(v) for v in values]  # the board's configuration, defaults filled in
        assert all("password" not in n and "key" not in n for n, _ in values)
        fill(page, {"match.target": "0"})
        state, text = submit(page)
        assert state == "error" and expected in text, (expected, text)
        assert open(os.path.join(flash, "config.json"), "rb").read() == before

        # Names, clubs and a target of 4, and a new match with them.
        text = new_match_from_form(
            page, {"players.A.name": "ANNA", "players.A.club": "BSV", "players.B.name": "BELA", "match.target": "4"}
        )
        assert "wrote config.json" in text and 'players.A.name: null -> "ANNA"' in text
        saved = json.load(open(os.path.join(flash, "config.json")))
        assert saved["players"]["A"] == {"name": "ANNA", "club": "BSV"} and saved["match"]["target"] == 4
        log = "\n".join(p.log_lines())
        assert "raw REPL" in log and "writing config.json through the serial console" in log
        p.wait_text("A.name", "ANNA", timeout=30)
        p.wait_text("B.name", "BELA")
        p.wait_text("target", "   4")

        # The whole match, hint by hint.
        hint.wait("lag", "POINT")
        press(p, "A.point")
        hint.wait("running", "A at the table", "POINT", "END is a miss")
        p.let_pass(0.5)  # the lock-out after the turn passed
        press(p, "A.point", 2)
        p.wait_text("A.score", "   2")
        press(p, "A.end")
        hint.wait("running", "B at the table")
        p.let_pass(0.5)
        press(p, "break")  # B asks for the half-time break (A has half of 4)
        hint.wait("break", "break", "BREAK")
        press(p, "B.point")  # his first point ends the break
        p.wait_text("B.score", "   1")
        hint.wait("running", "B at the table")
        press(p, "B.end")
        hint.wait("running", "A at the table")
        p.let_pass(0.5)
        press(p, "A.point", 2)
        hint.wait("equalizing", "Equalizing", "B's last", "END")
        p.let_pass(0.5)
        press(p, "B.end")
        hint.wait("finished", "Match over", "A wins", "Hold NEW 3 s")
        page.keyboard.press("Shift+N")  # held 3.5 s: a new match
        hint.wait("lag", "POINT", timeout=30)
        assert p.text("A.score") == "   0"

        # A set match with a warm-up and the shoot-out, from the form.
        form(page)
        new_match_from_form(
            page, {"match.target": "1", "match.sets": "2", "match.shootout": "on", "match.warmup_s": "60"}
        )
        hint.wait("lag", "POINT", timeout=30)
        page.keyboard.press("Shift+B")  # break held: A's warm-up
        hint.wait("warmup", "Warm-up", "BREAK")
        p.let_pass(0.3)
        press(p, "break")  # a short press ends it
        hint.wait("lag", "POINT")
        press(p, "A.point")  # A breaks
        hint.wait("running", "A at the table")
        p.let_pass(0.5)
        press(p, "A.point")  # 1 of 1: B's equalizing inning
        hint.wait("equalizing", "B's last")
        p.let_pass(0.5)
        press(p, "B.end")
        hint.wait("set_over", "Set over", "NEW", "next set")
        press(p, "new")  # a short press: the next set, B breaks
        hint.wait("running", "B at the table")
        p.let_pass(0.5)
        press(p, "B.point")  # B has the set's target; A equalizes
        hint.wait("equalizing", "A's last")
        p.let_pass(0.5)
        press(p, "A.point")  # a drawn set: the shoot-out
        hint.wait("shootout", "Shoot-out", "POINT")
        assert p.errors == []
    finally:
        stop_and_check(sim)


def test_the_form_never_shows_a_secret(tmp_path):
    """A board with Wi-Fi and MQTT passwords: the form's values hold none of them."""
    flash = str(tmp_path / "flash")
    os.makedirs(flash)
    secret = "correct-horse-battery"
    with open(os.path.join(flash, "config.json"), "w") as f:
        json.dump({"board": "wall", "players": {"A": {"name": "KIM"}}, "wifi": {"ssid": "club", "password": secret}}, f)
    sim = Sim([CAROM, "sim", "--listen", "127.0.0.1:%d" % free_port(), "--flash", flash], timeout=90)
    try:
        raw, _ = sim.get("/api/boards/0/config", raw=True)
        got = json.loads(raw)
        assert got["values"]["players.A.name"] == "KIM"
        assert secret.encode() not in raw and b"password" not in raw and b"wifi" not in raw
    finally:
        stop_and_check(sim)


def test_the_mini_board_hint_names_its_own_buttons(browser):
    """boards/mini.json has only POINT and END (END held 3 s: a new match): the hint says so."""
    sim = Sim([CAROM, "sim", "--board", "mini", "--listen", "127.0.0.1:%d" % free_port()], timeout=90)
    try:
        p = open_page(browser, sim, 1280, 720)
        hint = Hint(p)
        hint.wait("lag", "POINT says A breaks", "END says B breaks")
        p.button("end").click()  # B breaks
        hint.wait("running", "B at the table", "END is a miss")
        assert "A.point" not in [b["name"] for b in sim.get("/api/boards")["boards"][0]["buttons"]]
        assert p.errors == []
    finally:
        stop_and_check(sim)

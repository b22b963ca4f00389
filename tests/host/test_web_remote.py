"""`carom sim --remote`: the referee box beside the wall board, in a real browser (Debian's Chromium).

The wall and a referee remote (boards/referee.json) run paired on one radio hub; the test
clicks the remote's buttons on the page and reads back what the page drew: the wall's
score from its lit segments, the remote's display (lit only while it is awake: 0.3 s of radio
and 3 s more in light sleep after an acknowledgement; read on every animation frame) and its
"asleep" mark.
"""

from helpers import CAROM, free_port, wait_for
from test_web import stop_and_check
from tools.run.sim import Sim, open_page

SEG7 = {"0": "abcdef", "1": "bc", "2": "abdeg"}

REMOTE_SHOWS_JS = """([cells, colon]) => {
  const f = document.querySelector('.board[data-board="1"] figure[data-chip="0x70"]');
  if (!f) return false;
  const drawn = [...f.querySelectorAll('g.cell')].map(
      g => [...g.querySelectorAll('polygon.on')].map(p => p.dataset.seg).sort().join(""));
  const colonOn = f.querySelectorAll('g.colon polygon.on').length > 0;
  return colonOn === colon && drawn.length === cells.length && drawn.every((d, i) => d === cells[i]);
}"""


def remote_shows(page, text, timeout_ms=10000):
    """Wait until the remote's display, as drawn, reads `text` ("01:00"), checked on every frame."""
    cells = ["".join(sorted(SEG7[c])) for c in text.replace(":", "")]
    page.wait_for_function(REMOTE_SHOWS_JS, arg=[cells, ":" in text], polling="raf", timeout=timeout_ms)


def test_the_referee_box_scores_on_the_wall(browser):  # noqa: F811
    sim = Sim([CAROM, "sim", "--remote", "--listen", "127.0.0.1:%d" % free_port()], timeout=90)
    try:
        boards = sim.get("/api/boards")["boards"]
        assert [b["board"] for b in boards] == ["wall", "referee"]
        assert [b["name"] for b in boards[1]["buttons"]] == [
            "point",
            "miss",
            "foul",
            "foul.time",
            "undo",
            "break",
            "timeout",
            "new",
        ]
        p = open_page(browser, sim)
        page = p.page
        remote = '.board[data-board="1"]'
        assert page.text_content(remote + " .face-name") == "Referee box"
        # The referee box is drawn to the right of the wall board, and smaller.
        wall_box = page.locator('.board[data-board="0"] .face').bounding_box()
        remote_box = page.locator(remote + " .face").bounding_box()
        assert remote_box["x"] >= wall_box["x"] + wall_box["width"]
        assert remote_box["width"] * remote_box["height"] < wall_box["width"] * wall_box["height"] / 3
        assert page.locator(remote + " [data-led]").count() == 2
        assert page.locator(remote + " figure[data-chip]").count() == 1
        # Between presses it sleeps: its display and LEDs dark, "asleep" on its panel.
        wait_for(lambda: page.text_content(remote + " .remote-sleep"), "asleep", what="the remote asleep")
        assert page.locator(remote + " polygon.on").count() == 0
        assert p.text("A.score") == "   0" and p.text("message") == "LAG "
        # First press of "point" in the lag: A breaks (the wall's A turn LED), acknowledged on the remote.
        page.locator(remote + ' button[data-button="point"]').click()
        remote_shows(page, "00:00")
        wait_for(lambda: p.led("A.turn"), "1", what="A's turn LED on the wall")
        wait_for(lambda: page.text_content(remote + " .remote-sleep"), "asleep", what="the remote asleep again")
        p.let_pass(0.5)  # the wall's lock-out after the turn passes (400 ms)
        # Second press: A scores.  The wall's score as drawn, and the remote's summary AA:BB.
        page.locator(remote + ' button[data-button="point"]').click()
        remote_shows(page, "01:00")
        p.wait_text("A.score", "   1")
        wait_for(
            lambda: page.get_attribute(remote + ' [data-led="A.turn"]', "data-on"),
            "0",
            what="the remote's LEDs dark once it sleeps",
        )
        wait_for(lambda: page.locator(remote + " polygon.on").count(), 0, what="the remote's display dark")
        assert p.errors == []
    finally:
        stop_and_check(sim)
    for folder in sim.flash:
        assert not __import__("os").path.exists(folder), "the temporary flash %s was left behind" % folder

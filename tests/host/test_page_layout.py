"""The simulator page fits a laptop's and a desktop's screen ("Layout"), in Debian's Chromium.

At 1280x720 and at 1920x1080, for the wall board alone and with `--remote`, every button of every
board (the wall's, the referee box's) and every tool of the panel is inside the window without
scrolling, no two buttons overlap, and each "Displays plugged in" label and each display's
label shows its whole text.
The referee box's display is labelled from boards/referee.json: what it shows, the score.
"""

import json
import os

import pytest

from helpers import CAROM, free_port
from host_tools import ROOT
from test_web import stop_and_check
from tools.run.sim import Sim

SIZES = [(1280, 720), (1920, 1080)]

# Every clickable thing a person needs (the boards' buttons, the panels' tools) and what each
# "Displays plugged in" label shows against the room it has.
MEASURE_JS = """() => {
  const box = e => { const r = e.getBoundingClientRect();
                     return {x: r.left, y: r.top, w: r.width, h: r.height}; };
  const visible = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden";
  return {
    page: {w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight},
    buttons: [...document.querySelectorAll('.board button')].filter(visible).map(
        b => ({name: (b.closest('.board').dataset.board) + ':' + (b.dataset.button || b.dataset.action || b.textContent),
               press: b.classList.contains('press'), ...box(b)})),
    labels: [...document.querySelectorAll('.board figcaption span')].map(
        s => ({text: s.textContent, scroll: s.scrollWidth, client: s.clientWidth})),
    plugs: [...document.querySelectorAll('.plug')].map(l => {
        const s = l.querySelector('.plug-name');
        return {text: s.textContent, scroll: s.scrollWidth, client: s.clientWidth,
                right: s.getBoundingClientRect().right, panel: l.closest('.panel').getBoundingClientRect().right};
    }),
  };
}"""


@pytest.fixture(scope="module", params=["wall", "remote"])
def sim(request):
    extra = ["--remote"] if request.param == "remote" else []
    s = Sim([CAROM, "sim", *extra, "--listen", "127.0.0.1:%d" % free_port()], timeout=90)
    s.kind = request.param
    yield s
    stop_and_check(s)


def overlap(a, b):
    return (
        a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"] and a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"]
    )


@pytest.mark.parametrize("width,height", SIZES)
def test_every_button_in_view(browser, sim, width, height, tmp_path):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        page.goto(sim.url)
        page.wait_for_selector("body[data-ready=true]")
        page.wait_for_selector("body[data-fitted=true]")
        page.wait_for_selector('#link[data-state="live"]')
        got = page.evaluate(MEASURE_JS)
        page.screenshot(path=str(tmp_path / ("%s-%dx%d.png" % (sim.kind, width, height))))
        assert got["page"]["w"] <= width and got["page"]["h"] <= height, "the page scrolls at %dx%d: %r" % (
            width,
            height,
            got["page"],
        )
        presses = [b for b in got["buttons"] if b["press"]]
        boards = sim.get("/api/boards")["boards"]
        assert len(presses) == sum(len(b["buttons"]) for b in boards)  # each board's every button is drawn
        for b in got["buttons"]:
            assert b["w"] > 20 and b["h"] > 16, b
            assert 0 <= b["x"] and b["x"] + b["w"] <= width and 0 <= b["y"] and b["y"] + b["h"] <= height, (
                "%s is outside the %dx%d window: %r" % (b["name"], width, height, b)
            )
        for i, a in enumerate(presses):
            for b in presses[i + 1 :]:
                assert not overlap(a, b), (a, b)
        assert len(got["plugs"]) == sum(len(b["displays"]) for b in boards if b["role"] == "wall")
        for p in got["plugs"]:
            assert p["scroll"] <= p["client"] and p["right"] <= p["panel"], "the label %r is cut: %r" % (p["text"], p)
        for label in got["labels"]:  # each display's label over its own digits, whole
            assert label["scroll"] <= label["client"], "the label %r is cut: %r" % (label["text"], label)
        if sim.kind == "remote":
            wall = page.locator('.board[data-board="0"] .face').bounding_box()
            box = page.locator('.board[data-board="1"] .face').bounding_box()
            assert box["x"] >= wall["x"] + wall["width"] and box["x"] + box["width"] <= width
    finally:
        context.close()


def test_the_referee_box_display_says_what_it_shows(browser, sim):
    """Labelled from its board definition's "show", and that says the score (AA:BB), never CLOCK."""
    if sim.kind != "remote":
        pytest.skip("the referee box is drawn with --remote")
    with open(os.path.join(ROOT, "boards", "referee.json")) as f:
        show = json.load(f)["displays"][0]["show"]
    fields = [show] if isinstance(show, str) else [p["field"] for p in show]
    layout = sim.get("/api/boards")["boards"][1]
    assert [p["field"] for p in layout["displays"][0]["show"]] == fields
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    try:
        page.goto(sim.url)
        page.wait_for_selector("body[data-ready=true]")
        labels = page.locator('.board[data-board="1"] figure[data-chip="0x70"] figcaption span').all_inner_texts()
        assert len(labels) == len(fields)
        text = " ".join(labels).upper()
        assert "SCORE" in text and "CLOCK" not in text, labels
    finally:
        context.close()

"""The hall's TV: at 1920x1080 with 12 and 24 tables, every name whole, the game and its
target on a line of their own, the latest results in a strip always in view.

Boards are simulated with loadgen (real state documents from the firmware's modules) publishing
to a real mosquitto; `carom hall` runs as a subprocess; the page is read back in Chromium at
1920x1080: every name and game line is measured (its scrollWidth against its clientWidth, its box
inside its tile and the tiles above the strip), as a person would see them cut.
"""

import random

import paho.mqtt.client as paho
import pytest

from helpers import needs_mosquitto, wait_for as _wait_for
from tools.hall.loadgen import Board, SimTable
from test_hall import running_hall
from tools.run.hall import Page


def wait_for(fn, expected, timeout=30.0, what=""):
    """helpers.wait_for with room for a loaded machine (other suites running): a bound, not a pause."""
    return _wait_for(fn, expected, timeout, what)


pytestmark = needs_mosquitto

# Long names, up to config.json's 24 characters (the wide letters too).
LONG = (
    "Therese Klompenhouwer",
    "Torbjorn Blomdahl",
    "Frederic Caudron",
    "Semih Sayginer",
    "Marco Zanetti",
    "Tran Quyet Chien",
    "Marie-Christine Lefebvre",
    "Wolfgang Wawrzyniakowski",
    "Jean-Baptiste Delacroix",
    "Maximilian Oberhuemer",
    "Eddy Leppens",
    "Dick Jaspers",
    "Nikos Polychronopoulos",
    "Raymond Ceulemans",
    "Filipos Kasidokostas",
    "Murat Naci Coklu",
    "Dani Sanchez",
    "Jeremy Bury",
    "Glenn Hofman",
    "Sameh Sidhom",
    "Daniel Sanchez Tejedor",
    "Kim Haeng-jik",
    "Zanetti Marco Antonio",
    "Ludger Havlik",
)
GAMES = {
    0: ("three_cushion", 40, ""),
    1: ("three_cushion", 30, "target_A=30 target_B=22"),
    2: ("one_cushion", 100, "innings_limit=50"),
    3: ("balkline_47_2", 200, "sets=2 deciding_target=100"),
}

MEASURE = """() => {
  const tiles = [...document.querySelectorAll('.tile')];
  const strip = document.getElementById('strip').getBoundingClientRect();
  const cut = [];
  for (const t of tiles) {
    const box = t.getBoundingClientRect();
    if (box.bottom > strip.top + 1 || box.top < 0) cut.push(t.dataset.table + ': tile below the strip or off the screen');
    for (const e of t.querySelectorAll('.t-name, .t-game, .t-fmt, .p-name')) {
      if (!e.textContent || getComputedStyle(e).display === 'none') continue;
      const r = e.getBoundingClientRect();
      if (getComputedStyle(e).visibility === 'hidden' || e.scrollWidth > e.clientWidth
          || e.scrollHeight > e.clientHeight + 1 || r.right > box.right + 1 || r.bottom > box.bottom + 1
          || r.left < box.left - 1)
        cut.push(t.dataset.table + ' ' + e.className + ': ' + e.textContent + ' (' + e.scrollWidth + '>' + e.clientWidth + ')');
    }
  }
  const px = s => [...document.querySelectorAll(s)].map(e => parseFloat(getComputedStyle(e).fontSize));
  return {tiles: tiles.length, cut, strip: [strip.top, strip.bottom, innerHeight, strip.left, strip.right, innerWidth],
          names: Object.fromEntries(tiles.map(t => [t.dataset.table,
            [...t.querySelectorAll('.p-name')].map(e => e.textContent)])),
          games: Object.fromEntries(tiles.map(t => [t.dataset.table, t.querySelector('.t-game').textContent])),
          gameLine: tiles.every(t => { const g = t.querySelector('.t-game').getBoundingClientRect(),
                                            n = t.querySelector('.t-name').getBoundingClientRect();
                                       return g.top >= n.bottom - 1; }),
          smallestName: Math.min(...px('.p-name')), smallestGame: Math.min(...px('.t-game')),
          strip_items: [...document.querySelectorAll('#strip-items .strip-item')].map(e => {
            const r = e.getBoundingClientRect();
            return [e.textContent, e.hidden || (r.top >= strip.top && r.bottom <= innerHeight && r.right <= innerWidth),
                    !e.hidden]; })};
}"""


@pytest.fixture(scope="module")
def hall():
    with running_hall() as h:
        yield h


def tables(hall, n, first=1):
    """n tables, each with two long names and a named table ("Table 12"), playing; the boards stay connected."""
    rng = random.Random(n)
    sims, boards = [], []
    for i in range(n):
        game, target, options = GAMES[i % 4]
        names = (LONG[(2 * i) % len(LONG)], LONG[(2 * i + 1) % len(LONG)])
        s = SimTable(
            "tv%d" % (first + i),
            rng,
            game=game,
            target=target,
            names=names,
            options=options,
            name="Table %d" % (first + i),
        )
        # Each check's matches start at their own time: a report with a table, players and start
        # the hall has seen is a correction of that result, not a new one (the two checks' first
        # tables have the same players, and were made within one second now and then).
        s.started_at += 100000 * n
        for _ in range(rng.randint(1, 12)):
            s.step()
        b = Board("127.0.0.1", hall.broker_port, s.table).wait()
        b.state(s.doc())
        sims.append(s)
        boards.append(b)
    return sims, boards


def tv_check(browser, hall, count):
    sims, boards = tables(hall, count)
    try:
        before = len(hall.get("/api/results")["results"])
        for b, s in zip(boards[:3], sims[:3]):  # three results: the strip
            b.report(s.report_doc()).wait_for_publish(5)
        wait_for(lambda: len(hall.get("/api/results")["results"]), before + 3, what="three results")
        page = Page(browser, hall.url, 1920, 1080)
        wait_for(lambda: page.page.evaluate("document.querySelectorAll('.tile').length"), count, what="the tiles")
        got = wait_for(
            lambda: page.page.evaluate(MEASURE),
            lambda g: len(g["strip_items"]) == min(12, before + 3),
            what="the strip",
        )
        print(
            "%d tables: the smallest name %.1f px, the smallest game line %.1f px"
            % (count, got["smallestName"], got["smallestGame"])
        )
        assert got["cut"] == [], got["cut"]
        for s in sims:  # every name whole, as the board sent it
            doc = s.doc()
            assert got["names"][s.table] == [doc["players"]["A"]["name"], doc["players"]["B"]["name"]]
        for i, s in enumerate(sims):  # the game and its target, whole, on a line of their own
            game = got["games"][s.table]
            want = {
                0: "Three-cushion · 40",
                1: "Three-cushion · 30:22",
                2: "One-cushion · 100 in 50",
                3: "Balkline 47/2 · 200 · best of 3",
            }[i % 4]
            assert game == want, (s.table, game)
        assert got["gameLine"]
        top, bottom, height, left, right, width = got["strip"]
        assert 0 <= top and bottom <= height == 1080 and left == 0 and right == width == 1920  # in view
        assert all(inside for _, inside, _ in got["strip_items"]), got["strip_items"]  # shown whole, or not at all
        assert sum(shown for _, _, shown in got["strip_items"]) >= 3
        newest = sims[2].doc()["players"]
        assert got["strip_items"][0][0] == "%s%s %s – %s %s" % (  # the newest first
            "Table 3",
            newest["A"]["name"],
            newest["A"]["score"],
            newest["B"]["score"],
            newest["B"]["name"],
        )
        # Readable across the hall: the smallest name is still a TV's text.
        assert got["smallestName"] >= (16 if count <= 12 else 12), got["smallestName"]
        assert got["smallestGame"] >= 12, got["smallestGame"]
        # The page does not scroll for them: the strip is at the screen's bottom without scrolling.
        assert page.page.evaluate("window.scrollY") == 0
        page.close()
        return got
    finally:
        for b in boards:
            b.close()
        clear(hall, sims)  # the next check starts with no tables


def clear(hall, sims):
    """The tables' retained topics cleared (MQTT's empty retained payload): their matches go."""
    c = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="carom-test-tv-cleaner")
    c.connect("127.0.0.1", hall.broker_port, 30)
    c.loop_start()
    for s in sims:
        for kind in ("state", "status"):
            c.publish("carom/%s/%s" % (s.table, kind), b"", qos=1, retain=True).wait_for_publish(5)
    c.disconnect()
    c.loop_stop()
    wait_for(
        lambda: [t["table"] for t in hall.get("/api/tables")["tables"] if t["state"] is not None],
        [],
        what="the tables cleared",
    )


def test_12_tables_every_name_whole(hall, browser):
    tv_check(browser, hall, 12)


def test_24_tables_every_name_whole(hall, browser):
    tv_check(browser, hall, 24)

"""`make pictures` (`python -m tools.pictures [--out docs/pictures] [NAME ...]`): every picture in the
docs, taken from the running software in Debian's Chromium (Playwright), as a person would see it.

Each picture starts what it shows as a person starts it (`carom sim` on a free port; a mosquitto of
its own, `carom hall` and simulated boards publishing to it; a virtual board and `carom report`),
plays a fixed scripted match and writes one PNG.  PICTURES below is the list (tests/host/
test_pictures.py checks that each is in docs/pictures/).  A line on stderr says which picture is
being made and which file it wrote.

Reruns give the same pictures: the matches are scripted (seeded strokes for the hall's boards),
the hall's boards and the virtual board keep a fixed clock (SHOWN_AT), and the hall's pages stand at
that time in UTC with an en-GB locale.  What still moves between runs: the simulator's virtual time
(its page's header and log, a few tenths of a second apart, as the board follows real time).
"""

import argparse
import collections
import contextlib
import json
import os
import pathlib
import random
import shutil
import struct
import sys
import tempfile
import time

from host_tools import ROOT
from tools.run import CAROM, board_def, carom, lay_out_flash, wait_for
from tools.run.mosquitto import Mosquitto, free_port

OUT = os.path.join(ROOT, "docs", "pictures")
SHOWN_AT = 1773516600  # 2026-03-14 19:30 UTC: the hall's clock, its pages' clock and the report's board clock
PAGE_CLOCK = {"timezone_id": "UTC", "locale": "en-GB"}
BROKER_PORT = 1883  # the hall's TV shows its broker's address: the usual port when it is free


def say(text):
    print("pictures: " + text, file=sys.stderr, flush=True)


class Studio:
    """What the pictures share: the browser (started at the first picture that needs it) and a
    temporary folder (removed at the end)."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="carom-pictures-")
        self._playwright = None
        self._browser = None

    @property
    def browser(self):
        if self._browser is None:
            from playwright.sync_api import sync_playwright

            from tools.run.chromium import launch

            self._playwright = sync_playwright().start()
            self._browser = launch(self._playwright)
        return self._browser

    def folder(self, name):
        """A new folder of its own in the temporary one."""
        return tempfile.mkdtemp(prefix=name + "-", dir=self.tmp)

    def close(self):
        if self._browser is not None:
            self._browser.close()
            self._playwright.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)


def next_frame(page):
    """After the page drew what it has (two animation frames)."""
    page.wait_for_function("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))")


# ---- the simulator ---------------------------------------------------------------------------------


@contextlib.contextmanager
def simulator_page(studio, *options, config=None, width=1280, height=720):
    """`carom sim` on a free port (with `config` as the boards' config.json), its page open: the page
    reader of tools/run/sim.py."""
    from tools.run.sim import Sim, open_page

    cmd = [CAROM, "sim", "--listen", "127.0.0.1:%d" % free_port(), *options]
    if config is not None:
        path = os.path.join(studio.folder("sim-config"), "config.json")
        with open(path, "w") as f:
            json.dump(config, f)
        cmd += ["--config", path]
    sim = Sim(cmd, timeout=90)
    try:
        p = open_page(studio.browser, sim, width, height)
        p.wait_text("A.score", "   0")
        yield p
        assert p.errors == [], p.errors
        p.page.context.close()
    finally:
        sim.stop()


def sim_config(target):
    """The simulator's boards' config.json: Anna against Bela, three-cushion to `target`."""
    return {
        "board": "wall",
        "players": {"A": {"name": "ANNA"}, "B": {"name": "BELA"}},
        "match": {"game": "three_cushion", "target": target},
    }


def press(p, button, lit_after):
    """Click the wall board's `button` on the page; wait until the LED `lit_after` is lit and the
    lock-out after a turn has passed."""
    p.button(button).click()
    wait_for(lambda: p.led(lit_after), "1", what="%s lit after %s" % (lit_after, button))
    p.let_pass(0.5)


def simulator(studio, path):
    """Anna 2, Bela 0 in a three-cushion match to 3: Anna broke, ran 2 and missed; Bela is at the
    table, the countdown (Bela needs 3) blinks, caught lit, and the message display runs LAST 3."""
    with simulator_page(studio, config=sim_config(3)) as p:
        p.wait_text("A.name", "ANNA")
        press(p, "A.point", "A.turn")  # the lag: Anna breaks
        for score in ("   1", "   2"):
            p.button("A.point").click()
            p.wait_text("A.score", score)
        press(p, "A.end", "B.turn")
        p.wait_text("countdown", "   3")
        # The countdown blinks (1 Hz, timed by the page's own clock): that clock is stopped in a lit
        # half.  The message display runs "LAST 3" a step every 0.3 s (the board's): the picture is
        # taken while it reads LAST, and kept if it still does once taken (else at the next turn).
        countdown = '.board[data-board="0"] figure[data-chip="%s"]' % p.fields["countdown"][0]
        p.page.clock.install()
        p.page.clock.pause_at(time.time() + 1)
        to_lit = """(sel) => { const hz = parseFloat(document.querySelector(sel).dataset.blink || "0");
            const phase = (performance.now() / 1000 * hz) % 1;
            return phase < 0.5 ? 0 : Math.ceil((1 - phase) / hz * 1000) + 20; }"""  # ms to the next lit half
        ms = p.page.evaluate(to_lit, countdown)
        if ms:
            p.page.clock.run_for(ms)
        wait_for(lambda: p.page.get_attribute(countdown, "data-dark"), "false", what="the countdown lit")
        p.page.mouse.move(0, 0)  # off the last button clicked (else drawn as under the pointer)
        for _ in range(10):
            p.wait_text("message", "LAST", 15)
            p.page.screenshot(path=path)
            if p.text("message") == "LAST":
                return
        raise RuntimeError("the message display moved on while each of 10 pictures was taken")


def referee_box(studio, path):
    """`carom sim --remote`: the referee box beside the wall board, awake after its BREAK, which the
    wall refused before half-time ("✕ refused" on the box's BREAK, the wall's reason in the log)."""
    with simulator_page(studio, "--remote", config=sim_config(30)) as p:
        box = '.board[data-board="1"] button[data-button="%s"]'
        p.page.click(box % "point")  # in the lag: A breaks
        wait_for(lambda: p.led("A.turn"), "1", what="A's turn LED")
        p.let_pass(0.5)
        p.page.click(box % "break")  # before half-time: the wall refuses it
        wait_for(lambda: p.page.get_attribute(box % "break", "data-refused"), "true", 15, "the mark on the box's BREAK")
        p.page.screenshot(path=path)


# ---- the hall ----------------------------------------------------------------------------------------


@contextlib.contextmanager
def running_hall(studio, *options):
    """A mosquitto of its own (on BROKER_PORT when it is free) and `carom hall` connected to it."""
    from tools.run.hall import HallProc

    try:
        broker = Mosquitto(BROKER_PORT).start()
    except RuntimeError:  # the port is taken (a broker of this machine's own)
        broker = Mosquitto().start()
    try:
        hall = HallProc(broker.port, *options)
        try:
            hall.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
            hall.broker_port = broker.port
            yield hall
        finally:
            hall.stop()
    finally:
        broker.close()


@contextlib.contextmanager
def demo_hall(studio):
    """tools/hall/loadgen.py's showcase (twelve tables, one in each state a tile shows, the offline
    board's power cut) publishing to a running hall, on a clock standing at SHOWN_AT: (hall, shown)."""
    from tools.hall.loadgen import DemoHall, showcase

    def clock():
        return SHOWN_AT

    with running_hall(studio) as hall:
        shown = showcase(target=15, clock=clock)
        # The finished matches' reports are sent one after the other (a board sends its report as it
        # connects: the results strip would list them in the order they happened to arrive).
        finished = [(i, t, t.last_report) for i, (_, t) in enumerate(shown) if t.finished()]
        for _, t, _ in finished:
            t.last_report = None
        demo = DemoHall("127.0.0.1", hall.broker_port, "carom", [t for _, t in shown], random.Random(1), 0, clock)
        try:
            for n, (i, t, report) in enumerate(finished, start=1):
                t.last_report = report
                demo.boards[i].report(report)
                wait_for(lambda: len(hall.get("/results.json")), n, 30, "%d reports in the results" % n)
            demo.power_cut([what for what, _ in shown].index("offline"), 60)
            want = {t.table: ["offline" if what == "offline" else "online", t.doc()] for what, t in shown}
            want = json.loads(json.dumps(want))  # as the hall's API gives them back

            def tables():
                got = {t["table"]: [t["status"], t.get("state")] for t in hall.get("/api/tables")["tables"]}
                return {k: v for k, v in got.items() if k in want}

            wait_for(tables, want, 30, "every showcase table on the hall")
            yield hall, shown
        finally:
            demo.close()


def hall_tv(studio, path):
    """The hall's TV at 1920x1080: the showcase's twelve tables (the lag, a run, the break, the
    equalizing inning, a draw, a win, the tiebreak, a handicap, a set over, the shoot-out, the
    warm-up, an offline board) and the latest results."""
    from tools.run.hall import Page

    with demo_hall(studio) as (hall, shown):
        page = Page(studio.browser, hall.url, 1920, 1080, fixed_time=SHOWN_AT, **PAGE_CLOCK)
        page.wait_scores(shown)
        off = shown[[what for what, _ in shown].index("offline")][1].table
        page.wait_tile(off, lambda t: t["status"] == "offline", "the offline tile")
        wait_for(lambda: len(page.results()), lambda n: n >= 2, what="the results strip")
        next_frame(page.page)
        page.page.screenshot(path=path)
        page.close()


OVERLAY_TABLE = "run"  # the showcase's table the overlay shows: a player in the middle of a run


def overlay(studio, path):
    """/overlay/<table> for one showcase table (a run under way), as streaming software lays it over
    the video: the score bar, on a transparent background."""
    with demo_hall(studio) as (hall, shown):
        table = dict(shown)[OVERLAY_TABLE]
        context = studio.browser.new_context(viewport={"width": 1280, "height": 720}, **PAGE_CLOCK)
        page = context.new_page()
        page.clock.set_fixed_time(SHOWN_AT)
        page.goto(hall.url + "/overlay/" + table.table)
        score = str(table.doc()["players"]["A"]["score"])
        wait_for(
            lambda: page.evaluate("() => document.querySelector('.ov-row[data-player=A] .ov-score').textContent"),
            score,
            what="the overlay's score",
        )
        next_frame(page)
        box = page.locator("#bar").bounding_box()
        margin = 16
        clip = {
            "x": max(0, box["x"] - margin),
            "y": max(0, box["y"] - margin),
            "width": box["width"] + 2 * margin,
            "height": box["height"] + 2 * margin,
        }
        page.screenshot(path=path, clip=clip, omit_background=True)
        context.close()


def organiser(studio, path):
    """The organiser's page with a tournament under way: a knock-out of 8 players, three-cushion to 5,
    on four tables; the quarter-finals played, both semi-finals under way, the final to come."""
    from host_tools.hall.setups import Keys
    from tools.hall.tourneyrun import TournamentRun, get
    from tools.run.hall import ORGANISER_ROWS_JS, organiser_page

    folder = studio.folder("tournament")
    keys = Keys(os.path.join(folder, "hall-keys.json"))
    tables = ["t1", "t2", "t3", "t4"]
    for t in tables:
        keys.new_key(t)
    with running_hall(studio, "--db", os.path.join(folder, "cup.sqlite"), "--keys", keys.path) as hall:
        # The boards hold each setup until this script plays it: the tables finish in the same
        # order every run.  The hall gives the free tables their next matches a moment after a
        # report (in one pass for all that came): a semi-final goes to the first free table once both
        # its quarter-finals are done, whenever that pass comes, so t1 and t2 get them.
        run = TournamentRun(hall.url, hall.broker_port, keys, tables, seed=3, code=hall.code, hold=True, epoch=SHOWN_AT)
        try:
            run.organise(players=8, fmt="knockout", target=5, seed=5)
            for done, board in enumerate(run.boards, start=1):  # the quarter-finals
                board.play_held()
                wait_for(
                    lambda: [m["status"] for m in get(hall.url, "/api/tournament")["matches"]].count("done"),
                    done,
                    30,
                    "%d matches done" % done,
                )
            playing = {b.table: b.play_held(strokes=7).doc()["players"] for b in run.boards[:2]}  # the semi-finals
            page = organiser_page(studio.browser, hall, 1400, 1000, fixed_time=SHOWN_AT, **PAGE_CLOCK)

            def shown():
                rows = page.page.evaluate(ORGANISER_ROWS_JS)
                return all("finished" in rows.get(b.table, "") for b in run.boards[2:]) and all(
                    rows.get(t, "").endswith(" %d:%d" % (p["A"]["score"], p["B"]["score"])) for t, p in playing.items()
                )

            wait_for(shown, True, 30, "the organiser's tables: two semi-finals under way, two tables free")
            next_frame(page.page)
            page.page.screenshot(path=path, full_page=True)
            page.close()
        finally:
            run.close()


# ---- the match report ------------------------------------------------------------------------------------

REPORT_MATCH = (  # (button, virtual seconds before it): Anna against Bela, three-cushion to 4
    ("A.point", 0),  # the lag: Anna breaks
    ("A.point", 40),
    ("A.end", 30),
    ("B.point", 50),
    ("B.end", 20),
    ("A.point", 0),
    ("A.end", 60),
    ("break", 0),  # Bela asks for the half-time break
    ("break", 0),  # and ends it
    ("B.point", 0),
    ("B.point", 40),
    ("B.end", 0),
    ("A.point", 30),
    ("A.point", 45),  # 4: Anna reaches the target; Bela's equalizing inning
    ("B.end", 20),
)


def report(studio, path):
    """A score sheet as `carom report --format html` writes it, from a virtual wall board (its clock
    set to SHOWN_AT) that played REPORT_MATCH with its buttons: Anna wins 4-3 in three innings."""
    from host_tools.simulator.vboard import VirtualBoard

    config = {
        "board": "wall",
        "name": "Table 2",
        "players": {"A": {"name": "Anna", "club": "Wien"}, "B": {"name": "Bela", "club": "Graz"}},
        "match": {"game": "three_cushion", "target": 4},
    }
    flash = lay_out_flash(os.path.join(studio.folder("report"), "flash"), config)
    vb = VirtualBoard(flash, board=board_def("wall"), serial=True, rtc_epoch=SHOWN_AT)
    try:
        vb.power_on()
        vb.advance(1)
        for button, before in REPORT_MATCH:
            vb.advance(before)
            vb.tap(button)  # 100 ms down, 100 ms up
            vb.advance(0.5)  # past the lock-out after the turn passes
        vb.run_realtime()
        out = studio.folder("report")
        got = carom("report", "--device", vb.serial_path, "--format", "html", "--out", out, timeout=120)
        if got.returncode != 0:
            raise RuntimeError("carom report failed:\n" + got.stdout + got.stderr)
    finally:
        vb.close()
    (sheet,) = os.listdir(out)
    page = studio.browser.new_page(viewport={"width": 1100, "height": 900})
    page.goto(pathlib.Path(out, sheet).as_uri())
    page.screenshot(path=path, full_page=True)
    page.close()


# ---- the list ------------------------------------------------------------------------------------------

# size: (width, height) in pixels, None where the page's content decides it
Picture = collections.namedtuple("Picture", "name make size what")

PICTURES = (
    Picture("simulator.png", simulator, (1280, 720), "the simulator page mid-match (carom sim)"),
    Picture("referee-box.png", referee_box, (1280, 720), "the referee box's refused BREAK (carom sim --remote)"),
    Picture("hall-tv.png", hall_tv, (1920, 1080), "the hall's TV, twelve tables (carom hall, loadgen's showcase)"),
    Picture("organiser.png", organiser, (1400, None), "the organiser's page, a knock-out under way (carom hall)"),
    Picture("overlay.png", overlay, (None, None), "a table's streaming overlay (carom hall)"),
    Picture("report.png", report, (1100, None), "a score sheet (carom report, from a virtual board)"),
)


def png_size(path):
    """(width, height) of a PNG file; ValueError if it is not one."""
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise ValueError("%s is not a PNG" % path)
    return struct.unpack(">II", head[16:24])


def main(argv=None):
    names = [p.name for p in PICTURES]
    ap = argparse.ArgumentParser(prog="python -m tools.pictures", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=OUT, help="the folder the PNGs go to (default docs/pictures)")
    ap.add_argument("names", nargs="*", metavar="NAME", help="only these (%s; .png may be left off)" % ", ".join(names))
    args = ap.parse_args(argv)
    wanted = [n if n.endswith(".png") else n + ".png" for n in args.names] or names
    unknown = [n for n in wanted if n not in names]
    if unknown:
        ap.error("no picture %s (there are %s)" % (", ".join(unknown), ", ".join(names)))
    out = args.out
    os.makedirs(out, exist_ok=True)
    studio = Studio()
    try:
        for p in PICTURES:
            if p.name not in wanted:
                continue
            path = os.path.join(out, p.name)
            say("%s: %s ..." % (p.name, p.what))
            start = time.monotonic()
            p.make(studio, path)
            say("wrote %s (%dx%d) in %.0f s" % (os.path.relpath(path), *png_size(path), time.monotonic() - start))
    finally:
        studio.close()


if __name__ == "__main__":
    main()

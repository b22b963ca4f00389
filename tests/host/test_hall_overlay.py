"""/overlay/<table>: a score overlay for streaming software, read as a person (and OBS) sees it.

A board (loadgen: real state documents) publishes through a real mosquitto to `carom hall`; the
overlay is opened in Chromium.  Checked: the names, scores, innings, the run, the countdown and the
shot clock as the board's state says; the page's background is transparent (a screenshot without
a background: its pixels outside the score bar have alpha 0, inside it they do not); only that
table's events reach it (another table's updates never do: its own stream, /events/<table>).
"""

import json
import socket
import struct
import threading
import urllib.error
import zlib

import pytest

from helpers import needs_mosquitto, wait_for as _wait_for
from tools.hall.loadgen import Board, SimTable
from test_hall import running_hall


def wait_for(fn, expected, timeout=30.0, what=""):
    """helpers.wait_for with room for a loaded machine (other suites running): a bound, not a pause."""
    return _wait_for(fn, expected, timeout, what)


pytestmark = needs_mosquitto

READ_JS = """() => {
  const q = s => document.querySelector(s).textContent;
  const side = p => ({name: q('.ov-row[data-player=' + p + '] .ov-name'), score: q('.ov-row[data-player=' + p + '] .ov-score'),
                      innings: q('.ov-row[data-player=' + p + '] .ov-inn'),
                      at_table: document.querySelector('.ov-row[data-player=' + p + ']').dataset.atTable});
  return {table: q('#ov-table'), game: q('#ov-game'), A: side('A'), B: side('B'), run: q('#ov-run'),
          countdown: q('#ov-countdown'), shot: q('#ov-shot'), phase: q('#ov-phase'),
          html_bg: getComputedStyle(document.documentElement).backgroundColor,
          body_bg: getComputedStyle(document.body).backgroundColor, applied: window.applied};
}"""


def png_rgba(data):
    """A PNG screenshot (8-bit RGBA, not interlaced, as Chromium writes it) -> (width, height, rows of bytes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunk = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert (depth, color, interlace) == (8, 6, 0), (depth, color, interlace)
        elif kind == b"IDAT":
            idat += chunk
    raw = zlib.decompress(idat)
    stride = width * 4
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 4] if i >= 4 else 0
            b = prev[i]
            c = prev[i - 4] if i >= 4 else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows


class Stream:
    """An event stream read on a thread: [(kind, data)]."""

    def __init__(self, url, path):
        host, port = url.split("//", 1)[1].rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), 10)
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: %s:%s\r\n\r\n" % (path, host, port)).encode())
        self.events = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buf = b""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return
                buf += chunk
                while b"\n\n" in buf:
                    block, buf = buf.split(b"\n\n", 1)
                    kind = data = None
                    for line in block.decode().split("\n"):
                        if line.startswith("event: "):
                            kind = line[7:]
                        elif line.startswith("data: "):
                            data = json.loads(line[6:])
                    if kind:
                        self.events.append((kind, data))
        except OSError:
            pass

    def ready(self):
        """Once its snapshot arrived: every later event reaches this stream."""
        wait_for(lambda: [k for k, _ in list(self.events)], lambda ks: "snapshot" in ks, what="the stream's snapshot")
        return self

    def tables(self, kind="table"):
        return [d["table"] for k, d in list(self.events) if k == kind]

    def close(self):
        self.sock.close()


@pytest.fixture
def hall():
    with running_hall() as h:
        yield h


def test_overlay_shows_one_table_live_on_a_transparent_page(hall, browser):
    t5 = SimTable(
        "t5", target=3, names=("Therese Klompenhouwer", "Torbjorn Blomdahl"), options="shot_clock=40", name="Table 5"
    )
    t6 = SimTable("t6", target=30, names=("Anna Kovacs", "Bela Nagy"))
    b5, b6 = Board("127.0.0.1", hall.broker_port, "t5").wait(), Board("127.0.0.1", hall.broker_port, "t6").wait()
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        b5.state(t5.doc())
        b6.state(t6.doc())
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.add_init_script(
            "window.applied = []; document.addEventListener('overlay:applied',"
            " e => window.applied.push(e.detail.table));"
        )
        page.goto(hall.url + "/overlay/t5")
        page.wait_for_selector("body[data-ready=true][data-state=match]", state="attached")
        overlay = Stream(hall.url, "/events/t5").ready()
        everything = Stream(hall.url, "/events").ready()
        # t5 plays: A breaks and scores one; his run goes on, the shot clock runs, 2 to go.
        t5.line("point")
        b5.state(t5.doc())
        got = wait_for(lambda: page.evaluate(READ_JS), lambda g: g["A"]["score"] == "1", what="t5's point")
        assert got["A"] == {"name": "Therese Klompenhouwer", "score": "1", "innings": "1", "at_table": "true"}
        assert got["B"] == {"name": "Torbjorn Blomdahl", "score": "0", "innings": "0", "at_table": "false"}
        assert got["table"] == "t5" and got["game"] == "Three-cushion · 3"  # its name comes with a report
        assert got["run"] == "Run 1" and got["countdown"] == "Last 2" and got["phase"] == ""
        first = int(got["shot"].split()[0])
        assert got["shot"] == "%d s" % first and 30 < first <= 40, got["shot"]  # 40 s from the board's document
        # The shot clock counts down on the overlay between the board's documents.
        wait_for(
            lambda: int(page.evaluate(READ_JS)["shot"].split()[0]),
            lambda s: s < first,
            timeout=20,
            what="the shot clock counting down",
        )
        # The other table plays (three updates), then t5 again: the overlay hears of t5 only.
        for _ in range(3):
            t6.line("point")
            b6.state(t6.doc())
        wait_for(lambda: everything.tables().count("t6"), 3, what="t6's updates on the dashboard's stream")
        for line in ("point", "point"):
            t5.line(line)
        b5.state(t5.doc())
        got = wait_for(lambda: page.evaluate(READ_JS), lambda g: g["A"]["score"] == "3", what="t5 at 3")
        doc = t5.doc()
        assert doc["equalizing_inning"] and got["phase"] == "Equalizing inning" and got["B"]["at_table"] == "true"
        assert got["countdown"] == "Last %d" % doc["countdown"]  # B's points to go
        wait_for(lambda: overlay.tables().count("t5"), 2, what="t5's updates on the overlay's stream")
        assert set(overlay.tables()) == {"t5"} and "t6" not in json.dumps(overlay.events)
        assert set(got["applied"]) == {"t5"}
        t5.line("miss")
        b5.state(t5.doc())
        b5.report(t5.report_doc()).wait_for_publish(5)
        got = wait_for(
            lambda: page.evaluate(READ_JS), lambda g: g["phase"] == "Therese Klompenhouwer wins", what="t5's result"
        )
        assert got["shot"] == "" and got["run"] == ""
        wait_for(lambda: page.evaluate(READ_JS)["table"], "Table 5", what="the table's name from its report")
        assert [k for k, _ in overlay.events if k == "result"] == ["result"]
        # Transparent: the page's own background and the pixels around the bar.
        assert got["html_bg"] == "rgba(0, 0, 0, 0)" and got["body_bg"] == "rgba(0, 0, 0, 0)"
        width, height, rows = png_rgba(page.screenshot(omit_background=True))
        assert (width, height) == (1280, 720)
        bar = page.evaluate(
            "(() => { const r = document.getElementById('bar').getBoundingClientRect();"
            " return [r.left, r.top, r.right, r.bottom]; })()"
        )
        alpha = [[rows[y][x * 4 + 3] for x in range(0, width, 8)] for y in range(0, height, 8)]
        outside = [
            a
            for yi, line in enumerate(alpha)
            for xi, a in enumerate(line)
            if not (bar[0] - 24 <= xi * 8 <= bar[2] + 24 and bar[1] - 24 <= yi * 8 <= bar[3] + 24)
        ]  # its shadow
        inside = [
            alpha[y // 8][x // 8]
            for y in range(int(bar[1]) + 8, int(bar[3]) - 8, 8)
            for x in range(int(bar[0]) + 8, int(bar[2]) - 8, 8)
        ]
        assert outside and max(outside) == 0  # the video shows through everywhere else
        assert inside and min(inside) > 128  # the bar itself is opaque enough to read
        assert not errors, errors
        overlay.close()
        everything.close()
    finally:
        context.close()
        b5.close()
        b6.close()


def test_overlay_of_a_table_not_heard_of_waits(hall, browser):
    """A table with no board yet: the overlay shows nothing (transparent) until its first state."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    b = None
    try:
        page = context.new_page()
        page.goto(hall.url + "/overlay/t9")
        page.wait_for_selector("body[data-ready=true][data-state=none]", state="attached")
        assert page.evaluate("getComputedStyle(document.getElementById('bar')).display") == "none"
        b = Board("127.0.0.1", hall.broker_port, "t9").wait()
        t = SimTable("t9", target=3, names=("Anna Kovacs", "Bela Nagy"))
        b.state(t.doc())
        page.wait_for_selector("body[data-state=match]", state="attached")
        assert page.text_content('.ov-row[data-player="A"] .ov-name') == "Anna Kovacs"
        # Not a table id: no page.
        with pytest.raises(urllib.error.HTTPError) as e:
            hall.get("/overlay/T9%3Cx%3E")
        assert e.value.code == 404
    finally:
        context.close()
        if b is not None:
            b.close()

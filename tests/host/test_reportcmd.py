"""`carom report`: a match played with the virtual wall board's buttons, pulled as reports.

The real firmware keeps the finished match in /data/history/ (the board's clock
is set, so the report has times); `carom report` pulls it through mpremote and
writes JSON, CSV, HTML and PDF.  (Not tests/fw/test_report.py: that one tests
firmware/report.py itself.)
"""

import csv
import json
import os

import pytest

from helpers import SETS_MATCH, SHOOTOUT_MATCH, board_def, carom, innings, lay_out_flash, needs_mpremote
from host_tools.reports.match import Match
from host_tools.reports.pdf import find_chromium
from host_tools.reports.sheets import render_html, write_reports
from host_tools.simulator.vboard import VirtualBoard

RUNNING = "carom: running on board wall"
CLOCK = 1764497400  # 2025-11-30 10:10:00 on the board's clock

pytestmark = needs_mpremote

CONFIG = {
    "board": "wall",
    "name": "Table 7",
    "players": {"A": {"name": "Kim", "club": "Seoul"}, "B": {"name": "Zanetti", "club": "Roma"}},
    "match": {"game": "three_cushion", "target": 2},
}


def start(tmp_path, config):
    vb = VirtualBoard(lay_out_flash(tmp_path / "flash", config), board=board_def("wall"), serial=True, rtc_epoch=CLOCK)
    vb.power_on()
    vb.advance(1)
    assert RUNNING in vb.stdout
    return vb


def press(vb, button):
    vb.tap(button)  # 100 ms down, 100 ms up
    vb.advance(0.5)  # past the 400 ms lock-out after the turn passes


@pytest.fixture
def played(tmp_path):
    """A three-cushion match to 2, played with the buttons: Kim breaks, Zanetti wins 2-1."""
    vb = start(tmp_path, CONFIG)
    for button in (
        "A.point",  # in the lag: Kim breaks
        "A.point",  # Kim 1
        "A.end",  # Kim misses
        "B.point",
        "B.end",  # Zanetti 1, misses
        "foul",  # Kim fouls: his second inning ends with 0
        "B.point",
    ):  # Zanetti 2: the target, and he is not the breaker: he wins
        press(vb, button)
    history = vb.flash_path("/data/history")
    assert os.listdir(history) == ["000001.json"]
    vb.run_realtime()
    yield vb
    vb.close()


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_report_of_a_match_played_with_the_buttons(played, tmp_path):
    vb = played
    out_dir = tmp_path / "reports"
    formats = ["json", "csv", "html"] + (["pdf"] if find_chromium() else [])
    got = carom("report", "--device", vb.serial_path, "--format", ",".join(formats), "--out", str(out_dir), timeout=120)
    assert got.returncode == 0, got.stdout + got.stderr
    assert "match 1: Kim 1 - 2 Zanetti, Zanetti wins (target reached)" in got.stdout

    # JSON: the board's report, whole
    with open(vb.flash_path("/data/history/000001.json")) as f:
        on_board = json.load(f)
    with open(out_dir / "match-000001.json") as f:
        doc = json.load(f)
    assert doc == on_board
    assert doc["report"]["table"] == "Table 7" and doc["report"]["started_at"] >= CLOCK
    assert doc["players"]["A"]["runs"] == [1, 0] and doc["players"]["B"]["runs"] == [1, 1]

    # CSV: one row per match, one per inning
    (m,) = read_csv(out_dir / "matches.csv")
    assert {k: m[k] for k in ("match", "table", "game", "target", "breaker", "result", "winner", "ended_by")} == {
        "match": "1",
        "table": "Table 7",
        "game": "three_cushion",
        "target": "2",
        "breaker": "A",
        "result": "B",
        "winner": "Zanetti",
        "ended_by": "target",
    }
    assert [m["A_" + k] for k in ("name", "club", "ball", "score", "innings", "average", "high_run", "fouls")] == [
        "Kim",
        "Seoul",
        "spot",
        "1",
        "2",
        "0.500",
        "1",
        "1",
    ]
    assert [m["B_" + k] for k in ("name", "club", "ball", "score", "innings", "average", "high_run", "fouls")] == [
        "Zanetti",
        "Roma",
        "white",
        "2",
        "2",
        "1.000",
        "1",
        "0",
    ]
    assert m["started_at"].startswith("2025-11-30 10:1") and m["ended_at"] >= m["started_at"]
    assert (m["A_review_used"], m["B_review_used"]) == ("False", "False")
    assert int(m["elapsed_s"]) == doc["elapsed_s"] <= int(m["duration_s"])  # the lag is not match time
    rows = read_csv(out_dir / "innings.csv")
    assert [(r["player"], r["inning"], r["run"], r["total"], r["fouls"]) for r in rows] == [
        ("A", "1", "1", "1", ""),
        ("B", "1", "1", "1", ""),
        ("A", "2", "0", "1", "other"),
        ("B", "2", "1", "2", ""),
    ]
    assert all(r["start"].startswith("2025-11-30") and r["end"] for r in rows)
    assert [r["start"] for r in rows] == sorted(r["start"] for r in rows)

    # HTML: the score sheet
    page = page_with(
        out_dir / "match-000001.html",
        "Match report",
        "Three-cushion",
        "Table 7",
        "Kim",
        "Zanetti",
        "Seoul",
        "Roma",
        "Zanetti wins",
        "Referee",
        "Player A: Kim",
        "Player B: Zanetti",
        "<th>GD</th>",
        "0.500",
        "2025-11-30",
    )
    body = page.split("<tbody>\n")[1].split("</tbody>")[0]
    assert body.count("<tr>") == 2  # two innings rows
    assert '<td class="n">2</td><td>0</td><td>1</td><td class="mark">F</td><td>1</td><td>2</td>' in body
    if "pdf" in formats:
        data = (out_dir / "match-000001.pdf").read_bytes()
        assert data.startswith(b"%PDF-") and len(data) > 2000
    # The board was reset at the end: the app runs again, the finished match restored.
    vb.wait_for(lambda b: b.stdout.count(RUNNING) >= 2)


def test_no_matches_yet_and_no_pdf_converter(tmp_path):
    vb = start(tmp_path, {"board": "wall"})
    try:
        vb.run_realtime()
        got = carom(
            "report", "--device", vb.serial_path, "--out", str(tmp_path / "out"), "--format", "all", timeout=120
        )
        assert got.returncode == 0, got.stderr
        assert "no finished matches on" in got.stdout and not os.path.exists(tmp_path / "out")
    finally:
        vb.close()
    got = carom("report", "--device", "/dev/null", "--format", "pdf", env={"CAROM_CHROMIUM": "/nonexistent/chrome"})
    assert got.returncode == 1 and got.stderr.startswith("carom: PDF needs Chromium")
    got = carom("report", "--device", "/dev/null", "--format", "docx")
    assert got.returncode == 1 and "unknown report format 'docx'" in got.stderr


def test_score_sheet_running_totals_and_marks():
    doc = {
        "game": "balkline_47_2",
        "target": 50,
        "breaker": "B",
        "spot_ball": "B",
        "result": "draw",
        "ended_by": "target",
        "players": {
            "A": {
                "name": "Ann",
                "score": 8,
                "innings": 3,
                "runs": [3, 0, 5],
                "average": 2.667,
                "high_run": 5,
                "fouls": 0,
            },
            "B": {
                "name": "Bo <b>",
                "score": 8,
                "innings": 3,
                "runs": [1, 2, 5],
                "average": 2.667,
                "high_run": 5,
                "fouls": 1,
            },
        },
        "report": {
            "innings": [
                {"player": "B", "inning": 2, "fouls": ["touched"], "break": True},
                {"player": "A", "inning": 3, "equalizing": True},
            ],
            "started_at": None,
            "signatures": {"referee": "", "A": "", "B": ""},
        },
    }
    m = Match(4, doc)
    assert [(r["inning"], r["A"], r["B"]) for r in m.rows()] == [
        (1, (3, 3, ""), (1, 1, "")),
        (2, (0, 3, ""), (2, 3, "FH")),
        (3, (5, 8, "E"), (5, 8, "")),
    ]
    page = render_html(m)
    assert "Bo &lt;b&gt;" in page and "<b>" not in page.split("<body>")[1]
    assert "Balkline 47/2" in page and "Draw (target reached)" in page and "board clock not set" in page
    # A report from before the board kept the reviews and the match time: neither is made up.
    assert "<th>Duration</th>" in page and "Match time" not in page and "<th>Review</th><td></td><td></td>" in page
    assert m.summary_row()["elapsed_s"] == "" and m.summary_row()["A_review_used"] == ""


def page_with(path, *texts):
    """The text of the HTML page at `path`, once each of `texts` is found in it."""
    page = path.read_text()
    for text in texts:
        assert text in page, text
    return page


def firmware_match(gen, lines, started_at=1764489600):
    """A Match from the firmware's own report of the referee's `lines` (tests/fw's rules, on CPython)."""
    from host_tools import firmware_path

    firmware_path()
    import referee
    import report

    r = referee.Referee()
    for line in lines:
        assert r.line(line) is None, line
    return Match(gen, report.build(r.match, r.now, started_at, None, "Table 2", "wall"))


def test_abandoned_left_reviews_and_match_time(tmp_path):
    """Abandoned (I.8.2: loses and is excluded) reads apart from left (I.4.3: loses the
    match) in every format; the reviews used and the match time (from the first stroke: the lag
    and a review after the end not counted) are on the sheet and in the CSV."""
    abandoned = firmware_match(
        1,
        [
            "new game=three_cushion target=5 name_A=Anna name_B=Bela",
            "wait 30",
            "review A",
            "lag_tie",
            "lag A",
            "choose A break",
            "wait 10",
            "point",
            "wait 20",
            "miss",
            "wait 3605",
            "point",
            "abandon B",
            "wait 60",
            "review B",
        ],
    )
    left = firmware_match(
        2, ["new game=straight_rail target=50 breaker=B name_A=Anna name_B=Bela", "wait 12", "point", "left B"]
    )
    assert abandoned.result_text() == ("Anna wins (Bela abandoned: loses and is excluded from the competition, I.8.2)")
    assert left.result_text() == "Anna wins (Bela left his place: loses the match, I.4.3)"
    written = write_reports([abandoned, left], ["json", "csv", "html"], str(tmp_path))
    assert sorted(os.path.basename(p) for p in written) == [
        "innings.csv",
        "match-000001.html",
        "match-000001.json",
        "match-000002.html",
        "match-000002.json",
        "matches.csv",
    ]
    with open(tmp_path / "match-000001.json") as f:
        doc = json.load(f)
    assert (doc["ended_by"], doc["review_used"], doc["elapsed_s"]) == ("abandoned", {"A": True, "B": True}, 3635)
    rows = read_csv(tmp_path / "matches.csv")
    assert [(r["result"], r["winner"], r["ended_by"]) for r in rows] == [
        ("A", "Anna", "abandoned"),
        ("A", "Anna", "left"),
    ]
    assert [(r["A_review_used"], r["B_review_used"], r["elapsed_s"], r["duration_s"]) for r in rows] == [
        ("True", "True", "3635", "3665"),
        ("False", "False", "12", "12"),
    ]
    page = page_with(
        tmp_path / "match-000001.html",
        "Result: Anna wins (Bela abandoned: loses and is excluded from the competition, I.8.2)",
        "<th>Match time</th><td>1:00:35</td>",
        "<th>Review</th><td>used</td><td>used</td>",
        "(from the new match to its end: 1:01:05)",
        "<th>Start</th><td>08:00</td><th>End</th><td>09:01</td>",
    )
    page = (tmp_path / "match-000002.html").read_text()
    assert "Result: Anna wins (Bela left his place: loses the match, I.4.3)" in page and "abandoned" not in page
    assert "<th>Review</th><td>not used</td><td>not used</td>" in page and "<th>Match time</th><td>0:00:12</td>" in page


def test_no_such_match_fails_and_writes_nothing(played, tmp_path):
    """Tried: `carom report --match 99` on a board whose only finished match is 1 (it
    exited 0), and `--match 1 --match 99`: both fail naming 99 and what the board has; nothing written."""
    vb = played
    for wanted in (["99"], ["1", "--match", "99"]):
        got = carom(
            "report", "--device", vb.serial_path, "--out", str(tmp_path / "out"), "--match", *wanted, timeout=120
        )
        assert got.returncode == 1, got.stdout + got.stderr
        assert got.stderr.strip() == "carom: no match 99 on %s (its finished matches: 1); nothing was written" % (
            vb.serial_path
        ), got.stderr
        assert not os.path.exists(tmp_path / "out")


def test_out_that_cannot_be_a_folder_is_refused_before_the_board(tmp_path):
    """Tried: `carom report -d DEV --out FILE` (a FileExistsError traceback after reading the
    board) and `--out FILE/sub`: refused before the port is opened (the port here does not exist, and
    the error is about --out, not the port)."""
    existing = tmp_path / "reports.txt"
    existing.write_text("keep me")
    device = str(tmp_path / "ttyNONE")
    got = carom("report", "--device", device, "--out", str(existing))
    assert got.returncode == 1 and "Traceback" not in got.stderr, got.stderr
    assert got.stderr.strip() == "carom: --out %s is a file, not a folder; nothing was read from the board" % existing
    got = carom("report", "--device", device, "--out", str(existing / "sub"))
    assert got.returncode == 1 and got.stderr.strip() == (
        "carom: --out %s cannot be made: %s is a file; nothing was read from the board" % (existing / "sub", existing)
    )
    assert existing.read_text() == "keep me"
    got = carom("report", "--device", device, "--out", str(tmp_path / "new"))  # a folder that can be made:
    assert got.returncode == 1 and "cannot open %s (no such port)" % device in got.stderr  # on to the port


def test_handicap_sets_and_shootout_in_every_format(tmp_path):
    """The sheet, the CSV and the command's line say "30:22 handicap" (each player's
    target), "sets 2:1 (2:1, 0:2, 1:0)" with the innings set by set (each set's totals from 0)
    and the match's totals over all sets, and "1:1, shoot-out 2:1" with every round's runs."""
    handicap = firmware_match(
        1,
        [
            "new game=straight_rail target_A=30 target_B=22 name_A=Anna name_B=Bela",
            "lag A",
            "choose A break",
            "point",
            "miss",
            "point",
            "point",
            "miss",
            "abandon B",
        ],
    )
    sets = firmware_match(2, SETS_MATCH)
    shootout = firmware_match(3, SHOOTOUT_MATCH)
    assert [m.format() for m in (handicap, sets, shootout)] == [
        "30:22 handicap",
        "sets 2:1 (2:1, 0:2, 1:0)",
        "1:1, shoot-out 2:1",
    ]
    assert shootout.result_text() == "Anna wins (shoot-out 2:1)"
    assert [(r["inning"], r["A"], r["B"]) for r in sets.rows(2)] == [(1, (0, 0, "E"), (2, 2, ""))]
    assert shootout.shootout_rows() == [(1, 1, 1), (2, 2, 1)]
    write_reports([handicap, sets, shootout], ["csv", "html"], str(tmp_path))
    rows = read_csv(tmp_path / "matches.csv")
    assert [(r["target"], r["format"], r["A_target"], r["B_target"]) for r in rows] == [
        ("", "30:22 handicap", "30", "22"),
        ("1", "sets 2:1 (2:1, 0:2, 1:0)", "1", "1"),
        ("2", "1:1, shoot-out 2:1", "2", "2"),
    ]
    assert [(r["A_score"], r["B_score"], r["A_innings"], r["A_average"]) for r in rows][1] == ("3", "3", "4", "0.750")
    assert rows[2]["ended_by"] == "shootout" and rows[2]["winner"] == "Anna"
    inns = [r for r in read_csv(tmp_path / "innings.csv") if r["match"] == "2"]
    assert [(r["set"], r["player"], r["inning"], r["run"], r["total"]) for r in inns] == [
        ("1", "A", "1", "1", "1"),
        ("1", "B", "1", "1", "1"),
        ("1", "A", "2", "1", "2"),
        ("1", "B", "2", "0", "1"),
        ("2", "B", "1", "2", "2"),
        ("2", "A", "1", "0", "0"),
        ("3", "B", "1", "0", "0"),
        ("3", "A", "1", "1", "1"),
    ]
    inns = [r for r in read_csv(tmp_path / "innings.csv") if r["match"] == "3"]
    assert [(r["shootout"], r["player"], r["inning"], r["run"], r["total"], r["fouls"]) for r in inns] == [
        ("False", "A", "1", "1", "1", ""),
        ("False", "B", "1", "1", "1", ""),
        ("True", "A", "1", "1", "", ""),
        ("True", "B", "1", "1", "", ""),
        ("True", "A", "2", "2", "", "push"),
        ("True", "B", "2", "1", "", ""),
    ]
    page = page_with(
        tmp_path / "match-000001.html",
        "Straight rail to 30:22 points, 30:22 handicap",
        "<th>Target</th><td>30:22 points</td>",
        "<th>Target</th><td>30</td><td>22</td>",
        "<th>Format</th><td>30:22 handicap</td>",
    )
    page = (tmp_path / "match-000002.html").read_text()
    body = page.split("<tbody>\n")[1].split("</tbody>")[0]
    assert [line for line in body.splitlines() if "Set" in line] == [
        '<tr class="set"><th colspan="7">Set 1: 2:1</th></tr>',
        '<tr class="set"><th colspan="7">Set 2: 0:2</th></tr>',
        '<tr class="set"><th colspan="7">Set 3: 1:0</th></tr>',
    ]
    for text in (
        "<th>Sets</th><td>first to 2; the deciding set to 1</td>",
        '<tr><th>Sets</th><td colspan="3">2</td><td colspan="3">1</td></tr>',
        '<tr><th>Score</th><td colspan="3">3</td><td colspan="3">3</td></tr>',
        '<tr><th>GD</th><td colspan="3">0.750</td><td colspan="3">0.750</td></tr>',
    ):
        assert text in page, text
    page = page_with(
        tmp_path / "match-000003.html",
        "<th>Shoot-out round</th><th>A: Anna</th><th>B: Bela</th>",
        "<tr><td>2</td><td>2</td><td>1</td></tr>",
        "Result: Anna wins (shoot-out 2:1)",
        "<th>Format</th><td>1:1, shoot-out 2:1</td>",
    )


def test_opening_break_and_half_time_break_rows(tmp_path):
    """The sheet's "Breaks: yes" marked the player who made the opening break while B had
    taken the half-time break. Now one row says who made the opening break (played the first
    inning) and one who took the half-time break, in which inning; matches.csv has break_by."""
    m = firmware_match(
        1,
        [
            "new game=three_cushion target=4 name_A=Anna name_B=Bela",
            "lag A",
            "choose A break",
            *innings(1, 1, 1),
            "break_request B",
            "resume",
            "point",
            "point",
            "miss",
            "point",
            "point",
            "miss",
        ],
    )
    assert (m.opening_breaker(), m.half_time_break(), m.doc["break_taken"]) == ("A", ("B", 2), True)
    write_reports([m], ["csv", "html"], str(tmp_path))
    page = page_with(
        tmp_path / "match-000001.html",
        "<tr><th>Opening break</th><td>yes</td><td></td></tr>",
        "<tr><th>Half-time break</th><td></td><td>taken in inning 2</td></tr>",
        "<th>Opening break</th><td>Anna</td>",
        "H the half-time break was asked for in that inning",
    )
    assert "<th>Breaks</th>" not in page and "<th>Breaker</th>" not in page
    body = page.split("<tbody>\n")[-1].split("</tbody>")[0]
    assert (
        '<td class="n">2</td><td>1</td><td>2</td><td class="mark"></td><td>2</td><td>3</td>'
        '<td class="mark">H</td>' in body
    )
    (row,) = read_csv(tmp_path / "matches.csv")
    assert (row["breaker"], row["break_taken"], row["break_by"]) == ("A", "True", "B")
    # No half-time break: the row is there and empty; a set match has none (its breaks are between sets).
    plain = firmware_match(
        2, ["new game=straight_rail target=2 breaker=B name_A=Anna name_B=Bela", "point", "point", "miss"]
    )
    assert "<tr><th>Half-time break</th><td></td><td></td></tr>" in render_html(plain)
    assert "<tr><th>Opening break</th><td></td><td>yes</td></tr>" in render_html(plain)
    assert plain.summary_row()["break_by"] == ""
    sets = firmware_match(
        3,
        [
            "new game=three_cushion target=1 sets=2 name_A=Anna name_B=Bela",
            "lag A",
            "choose A break",
            "point",
            "miss",
            "next_set",
            "miss",
            "point",
        ],
    )
    assert "Half-time break" not in render_html(sets) and sets.opening_breaker() == "A"


def test_the_sheet_has_margins_on_screen_and_none_added_in_print(browser, tmp_path):
    """The HTML sheet had no margins on screen (its table touched the window's edges).
    On screen it is an A4 page's width with white margins, centred; printed, @page gives the
    margins and the body adds none (the PDF is as before)."""
    m = firmware_match(
        1,
        [
            "new game=three_cushion target=4 name_A=Anna club_A=Wien name_B=Bela club_B=Graz",
            "lag A",
            "choose A break",
            "wait 40",
            "point",
            "wait 30",
            "miss",
            "wait 50",
            "point",
            "wait 20",
            "miss",
            "point",
            "wait 60",
            "miss",
            "break_request B",
            "resume",
            "point",
            "wait 40",
            "point",
            "miss",
            "wait 30",
            "point",
            "wait 45",
            "point",
            "wait 20",
            "miss",
        ],
    )
    write_reports([m], ["html"], str(tmp_path))
    url = (tmp_path / "match-000001.html").as_uri()
    for width, height in ((1280, 720), (1920, 1080), (800, 600)):
        page = browser.new_page(viewport={"width": width, "height": height})
        try:
            page.goto(url)
            box = page.locator("table.meta").bounding_box()
            sheet = page.locator("body").bounding_box()
            mm = 96 / 25.4  # CSS pixels per millimetre
            assert box["x"] - sheet["x"] >= 10 * mm and sheet["x"] + sheet["width"] - box["x"] - box["width"] >= 10 * mm
            assert page.locator("h1").bounding_box()["y"] >= 10 * mm
            if width >= 210 * mm:  # a page's width, centred, the grey around it
                assert sheet["width"] <= 210 * mm + 1 and abs(sheet["x"] - (width - sheet["x"] - sheet["width"])) <= 2
            page.emulate_media(media="print")
            printed = page.locator("table.meta").bounding_box()
            assert printed["x"] == 0 and page.locator("h1").bounding_box()["y"] == 0
        finally:
            page.close()


def test_power_cuts_before_the_first_match_leave_it_number_1(tmp_path):
    """ "Match no. 20" on the first match of a fresh flash. Each boot before the first press
    (a power cut, `carom config`, `carom doctor`: each resets the board) took a new number; the
    number a person sees counts matches: the first match after a fresh flash is 1, the next 2."""
    vb = start(tmp_path, CONFIG)
    try:
        for _ in range(3):  # three boots with nothing played
            vb.power_off()
            vb.power_on()
            vb.advance(1)
        for button in ("A.point", "A.point", "A.end", "B.point", "B.end", "foul", "B.point"):
            press(vb, button)
        assert os.listdir(vb.flash_path("/data/history")) == ["000001.json"]
        vb.hold("new", 3.5)  # the next match, after two more boots
        vb.advance(1)
        for _ in range(2):
            vb.power_off()
            vb.power_on()
            vb.advance(1)
        for button in ("B.point", "B.point", "B.point", "B.end", "A.point", "A.point", "A.end"):
            press(vb, button)
        vb.run_realtime()
        got = carom(
            "report", "--device", vb.serial_path, "--format", "html", "--out", str(tmp_path / "out"), timeout=120
        )
        assert got.returncode == 0, got.stdout + got.stderr
        assert sorted(os.listdir(tmp_path / "out")) == ["match-000001.html", "match-000002.html"]
        assert "<th>Match no.</th><td>2</td>" in (tmp_path / "out" / "match-000002.html").read_text()
    finally:
        vb.close()

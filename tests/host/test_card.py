"""The card for the table (host_tools/hardware/card.py) and each E-code as a builder reads it
(errorhelp.py): generated from the board definition and the firmware's own texts.

Tried: every action the firmware knows has its words; every button of wall, mini and referee is on its
card with its press, its hold and hold time; a copy of a definition with a button renamed, a hold time
changed and a lock-out removed changes the card to match; the message display's words are exactly the
ones the firmware can show; every code of errorcodes.py has its entry and line; the HTML parses, closes
every tag and fetches nothing; Chromium prints each card on exactly one page."""

import copy
import html.parser
import os
import re

import pytest

from helpers import board_def, carom
from host_tools import firmware_path
from host_tools.boards import load_board
from host_tools.hardware import card, errorhelp

firmware_path()
import boarddef  # noqa: E402
import controller  # noqa: E402
import errorcodes  # noqa: E402

BOARDS = ("wall", "mini", "referee")


def test_every_action_has_its_words():
    assert set(card.ACTION_WORDS) == set(controller.ACTIONS)
    assert all(card.ACTION_WORDS.values())


@pytest.mark.parametrize("name", BOARDS)
def test_each_button_with_its_press_and_hold(name):
    bd = load_board(name)
    page = card.card_html(bd)
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))
    for b in bd["buttons"]:
        label = b["name"].split(".", 1)[-1].upper()
        assert label in text, label
        assert html.escape(card.ACTION_WORDS[b["action"]], quote=True) in page, b
        if b["long_action"]:
            held = "held %s s: %s" % (("%g" % (b["long_ms"] / 1000)), card.ACTION_WORDS[b["long_action"]])
            assert held in text, held
    if bd.get("identify_button"):
        assert "Held while the power comes on" in text and "the wiring check" in text


def test_a_changed_definition_changes_the_card():
    raw = board_def("wall")
    before = card.card_html(boarddef.validate(copy.deepcopy(raw)))
    raw["buttons"]["brk"] = raw["buttons"].pop("break")  # renamed
    raw["buttons"]["brk"]["long_ms"] = 2500  # held longer
    raw["buttons"]["foul"]["lockout"] = False  # no lock-out
    after = card.card_html(boarddef.validate(raw))
    buttons = lambda page: page.split("<h2>", 3)[1]  # noqa: E731  (the Buttons section)
    assert ">BRK<" in buttons(after) and ">BREAK<" in buttons(before) and ">BREAK<" not in buttons(after)
    assert "held 2.5 s: the warm-up" in after and "held 2.5 s" not in before
    lockout = re.search(r"Just after the turn passes, (.*?) (?:is|are) ignored", after).group(1)
    assert "FOUL" not in lockout and "FOUL" in re.search(r"Just after the turn passes, (.*?) are", before).group(1)
    # the stuck-button codes follow the buttons' order (their index in the button group)
    assert "%d brk" % (errorcodes.ERROR_STUCK + sorted(raw["buttons"]).index("brk")) in after


def test_the_message_words_are_the_firmwares():
    import formats_rare
    import view

    shown = set()
    for text in (view._TEXT, bytes(formats_rare._TEXT)):
        for word in text.decode().split("    "):
            word = word.strip()
            if word:
                shown.add(re.sub(r"[0-9]+$", "n", word))
    assert {w for w, _, _ in card.message_words()} == shown == set(card.WORD_MEANINGS)
    wall = card.card_html(load_board("wall"))
    for word in shown:
        assert ">%s<" % html.escape(word) in wall, word
    mini = card.card_html(load_board("mini"))  # no message display: no words, says where codes go
    assert ">LAG<" not in mini and "no message display" in mini


def test_every_code_has_its_help_and_its_line():
    names = sorted(n for n in dir(errorcodes) if n.startswith("ERROR_"))
    assert sorted(errorhelp.CODES) == names
    page = errorhelp.markdown()
    for n in names:
        assert "| %s |" % errorhelp.codes_of(n) in page, n
    wall, referee = load_board("wall"), load_board("referee")
    wall_codes = [c for c, _ in errorhelp.lines(wall)]
    referee_codes = [c for c, _ in errorhelp.lines(referee)]
    assert "E 10-E 16" in wall_codes and "E 70-77, E 80-87" in wall_codes and "E 40" not in wall_codes
    assert referee_codes == [
        "E %d" % errorcodes.ERROR_NO_ACK,
        "E %d" % errorcodes.ERROR_NOT_PAIRED,
        "E %d" % errorcodes.ERROR_BOOT_COUNTER,
        "E %d" % errorcodes.ERROR_BOOT_LIMIT,
    ]
    for board in (wall, referee):
        page = card.card_html(board)
        for code, short in errorhelp.lines(board):
            assert ">%s<" % code in page and html.escape(short, quote=True) in page
    assert errorhelp.where_shown(load_board("mini")) is None
    assert errorhelp.where_shown(wall)["show"][0]["field"] == "message"


class _Tags(html.parser.HTMLParser):
    VOID = {"meta", "br", "img", "link", "hr", "input"}

    def __init__(self):
        super().__init__()
        self.open, self.refs = [], []

    def handle_starttag(self, tag, attrs):
        self.refs += [v for k, v in attrs if k in ("src", "href")]
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, (tag, self.open)
        self.open.pop()


@pytest.mark.parametrize("name", BOARDS)
def test_the_html_closes_its_tags_and_fetches_nothing(name):
    page = card.card_html(load_board(name))
    p = _Tags()
    p.feed(page)
    p.close()
    assert p.open == [] and p.refs == []
    assert "url(" not in page and "<script" not in page and "@import" not in page


@pytest.mark.parametrize("name", BOARDS)
def test_chromium_prints_each_card_on_one_page(name, tmp_path):
    from host_tools.reports.pdf import find_chromium

    if find_chromium() is None:
        pytest.skip("no Chromium to print with (tools/deps.sh installs Debian's)")
    out = carom("board", "card", name, "--out", str(tmp_path / "c.html"), "--pdf", str(tmp_path / "c.pdf"), timeout=180)
    assert out.returncode == 0, out.stderr
    pdf = (tmp_path / "c.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-")
    assert len(re.findall(rb"/Type\s*/Page(?!s)", pdf)) == 1
    assert os.path.getsize(tmp_path / "c.html") > 1000

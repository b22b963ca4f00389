"""`carom board ...` and the generated docs of docs/build/boards/, as a builder and a contributor
meet them.

What is tried:
- the checked-in docs/build/boards/ are what the generators make now from boards/*.json (this is
  the test that fails when a board is edited without `make docs`);
- a copy of the boards in a folder of their own: a pin and an address of one board changed (a
  button moved to GPIO35, which has no pull-up, and a display to 0x75): `carom board docs
  --check` fails naming exactly that board's five files, stale, and no other; `carom board docs`
  rewrites those five and no other; every one of them now tells the new pin and address where
  it should (the pin table, the pull resistor in the parts list and the power budget, the
  jumpers, the wiring YAML and both drawings); the check passes;
- a board a user adds to boards/ (a copy of mini under a new name) gets its page and files; once
  removed, the check names its files as of no board, and `carom board docs` removes them;
- the commands' errors: no such board (the boards listed), a definition file with a wrong
  field (boarddef's message), an unknown format (usage), an --out folder that cannot be made; `carom board`
  alone; `carom board parts` of a definition file by path; `carom board wiring` writes three files.
"""

import csv
import io
import json
import os
import shutil

import pytest

from host_tools import ROOT, firmware_path
from host_tools.boards import board_names
from host_tools.hardware import artefacts, wiring

from helpers import carom, ok

firmware_path()
import boarddef  # noqa: E402

FILES = ("{n}.md", "{n}/parts.csv", "{n}/wiring.yml", "{n}/wiring.svg", "{n}/wiring.png")  # at least these
ROWS = [path for path, _ in artefacts.BOARD_ROWS]  # every file of a board
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="no Graphviz dot (apt-get install graphviz)")


def test_the_checked_in_docs_are_what_the_boards_make_now():
    boards = [boarddef.load(os.path.join(ROOT, "boards", n + ".json")) for n in board_names()]
    problems = artefacts.check(boards, artefacts.DOCS, all_names=board_names())
    assert problems == [], "run `make docs`: %s" % problems
    for n in board_names():
        for f in FILES:
            assert os.path.isfile(os.path.join(artefacts.DOCS, "boards", f.format(n=n)))


@pytest.fixture
def place(tmp_path):
    """A copy of boards/ and of the checked-in docs, and `carom` running on them."""
    boards = tmp_path / "boards"
    shutil.copytree(os.path.join(ROOT, "boards"), boards)
    docs = tmp_path / "docs"
    shutil.copytree(artefacts.DOCS, docs)
    # what make docs makes and git does not keep (each board's card), made as make docs makes it
    artefacts.write([boarddef.load(os.path.join(ROOT, "boards", n + ".json")) for n in board_names()], str(docs))

    def run(*args):
        return carom("board", *args, env={"CAROM_BOARDS": str(boards)})

    return {"boards": boards, "docs": docs, "run": run}


def edit(path, fn):
    with open(path) as f:
        d = json.load(f)
    fn(d)
    with open(path, "w") as f:
        json.dump(d, f, indent=1)


def read(path):
    with open(path, "rb") as f:
        return f.read()


@needs_dot
def test_a_changed_pin_and_address_reach_every_file(place):
    run, docs = place["run"], place["docs"]
    assert "current" in ok(run("docs", "--check", "--out", str(docs)))
    before = {f.format(n="mini"): read(docs / "boards" / f.format(n="mini")) for f in FILES}
    card = read(docs / "boards" / "mini" / "card.html")
    others = {
        p: read(p)
        for p in (docs / "boards").rglob("*")
        if p.is_file() and "mini" not in p.name and p.parent.name != "mini"
    }

    def change(d):
        d["buttons"]["end"].update(pin=35, pull=None)  # GPIO35: input only, no pull-up of its own
        d["displays"][1]["addr"] = "0x75"

    edit(place["boards"] / "mini.json", change)
    out = run("docs", "--check", "--out", str(docs))
    assert out.returncode == 1, out
    named = [line.rsplit(": ", 1) for line in out.stderr.splitlines() if not line.startswith("carom:")]
    stale = {p.rsplit("boards/", 1)[1] for p, _ in named}
    assert set(before) <= stale and all(p.startswith("mini") for p in stale), stale  # mini's, and only mini's
    assert {what for _, what in named} == {"stale"}
    assert "%d generated files are not current (run `make docs`)" % len(stale) in out.stderr.splitlines()[-1]

    out = ok(run("docs", "--out", str(docs)))
    total = len(board_names()) * len(ROWS) + len(artefacts.PAGE_ROWS)
    assert "%d files written, %d current" % (len(stale), total - len(stale)) in out
    after = {f: read(docs / "boards" / f) for f in before}
    assert all(after[f] != before[f] for f in before)
    assert read(docs / "boards" / "mini" / "card.html") == card  # the card names no pin and no address
    assert others == {p: read(p) for p in others}  # the other boards' files untouched

    page = after["mini.md"].decode()
    assert '| GPIO35 | button "end"' in page and "external 10 kΩ pull-up to 3V3" in page
    assert "GPIO33" not in page
    assert "| 0 | 0x75 | A0 + A2 |" in page and "0x71" not in page
    assert 'bus 0 0x75 1.2" 7-segment' in page  # the power budget's row
    assert "1 external pull resistor (pressed)" in page
    rows = list(csv.DictReader(io.StringIO(after["mini/parts.csv"].decode())))
    pull = [r for r in rows if r["item"] == "resistor-pull"]
    assert pull and pull[0]["qty"] == "1" and "GPIO35" in pull[0]["note"]
    assert [r["note"] for r in rows if r["item"] == "seg7-1.2"] == ["bus/address 0/0x70, 0/0x75"]
    yml = after["mini/wiring.yml"].decode()
    assert "GPIO35" in yml and "B0_0x75" in yml and "GPIO33" not in yml and "PULLS" in yml
    digest = wiring.source_hash(yml)
    for f in ("mini/wiring.svg", "mini/wiring.png"):
        assert wiring.drawn_from(after[f]) == digest
    assert b"GPIO35" in after["mini/wiring.svg"] and b"B0_0x75" in after["mini/wiring.svg"]
    assert "current" in ok(run("docs", "--check", "--out", str(docs)))


@needs_dot
def test_a_board_a_user_adds_gets_its_pages(place):
    run, docs = place["run"], place["docs"]
    shutil.copy(place["boards"] / "mini.json", place["boards"] / "club.json")
    out = run("docs", "--out", str(docs))
    assert out.returncode == 1 and '"mini" does not match the file name' in out.stderr  # boarddef's check
    edit(place["boards"] / "club.json", lambda d: d.update(name="club"))
    out = run("docs", "--check", "--out", str(docs))
    assert out.returncode == 1
    assert sorted(
        ln.split(": ")[0].rsplit("boards/", 1)[1] for ln in out.stderr.splitlines() if ln.endswith(": missing")
    ) == sorted(f.format(name="club") for f in ROWS if f not in artefacts.BUILT_ONLY)  # the card: made, not kept
    assert "%d files written" % len(ROWS) in ok(run("docs", "--out", str(docs)))
    page = read(docs / "boards" / "club.md").decode()
    assert page.startswith("# Board `club`") and "boards/club.json" in page and "(club/wiring.png)" in page
    ok(run("docs", "--check", "--out", str(docs)))

    os.remove(place["boards"] / "club.json")
    out = run("docs", "--check", "--out", str(docs))
    assert out.returncode == 1 and "club.md: no board club in boards/" in out.stderr
    out = ok(run("docs", "--out", str(docs)))
    assert not (docs / "boards" / "club.md").exists() and not (docs / "boards" / "club").exists()
    ok(run("docs", "--check", "--out", str(docs)))


def test_the_commands_errors(place, tmp_path):
    run = place["run"]
    out = run("parts", "nosuch")
    names = sorted(n[:-5] for n in os.listdir(place["boards"]) if n.endswith(".json"))
    assert out.returncode == 1 and out.stderr.strip() == "carom: no board 'nosuch'; boards: %s" % ", ".join(names)
    bad = tmp_path / "mine.json"
    with open(os.path.join(ROOT, "boards", "mini.json")) as f:
        d = json.load(f)
    d["name"] = "mine"
    d["displays"][0]["size"] = 0.8
    bad.write_text(json.dumps(d))
    out = run("pins", str(bad))
    assert out.returncode == 1
    assert out.stderr.strip() == "carom: %s: displays[0].size: 0.8 is not a seg7 digit height: 0.56, 1.2 (inches)" % bad
    out = run("parts", "mini", "--format", "pdf")
    assert out.returncode == 2 and "carom: board parts: argument --format/-f: invalid choice" in out.stderr
    (tmp_path / "a-file").write_text("")
    out = run("wiring", "mini", "--out", str(tmp_path / "a-file" / "wiring"))
    assert out.returncode == 1 and out.stderr.startswith("carom: cannot make the folder %s" % (tmp_path / "a-file"))
    out = run()
    assert out.returncode == 1
    assert "carom: board: say what to make: parts, power, pins, wiring, card, docs" in out.stderr
    out = run("docs", "nosuch", "--check")
    assert out.returncode == 1 and "no board 'nosuch'" in out.stderr


def test_parts_of_a_definition_file(place, tmp_path):
    mine = tmp_path / "mine.json"
    with open(os.path.join(ROOT, "boards", "referee.json")) as f:
        d = json.load(f)
    d["name"] = "mine"
    mine.write_text(json.dumps(d))
    rows = list(csv.DictReader(io.StringIO(ok(place["run"]("parts", str(mine), "--format", "csv")))))
    assert [r["qty"] for r in rows if r["item"] == "button-tactile"] == [str(len(d["buttons"]))]
    text = ok(place["run"]("power", str(mine)))
    assert "Battery" in text and "a charge lasts about" in text


@needs_dot
def test_wiring_writes_three_files(place, tmp_path):
    out = place["run"]("wiring", "mini", "--out", str(tmp_path))
    assert ok(out).split() == [str(tmp_path / ("mini." + e)) for e in ("yml", "svg", "png")]
    assert "drawing the wiring of mini (WireViz over Graphviz)" in out.stderr
    yml = (tmp_path / "mini.yml").read_text()
    assert wiring.drawn_from(read(tmp_path / "mini.svg")) == wiring.source_hash(yml)
    assert read(tmp_path / "mini.png")[:4] == b"\x89PNG"

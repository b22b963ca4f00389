"""`carom sim --headless`: the scripted mode on both interpreters, and its errors."""

import json
import os
import subprocess
import sys

import pytest

from host_tools import ROOT
from host_tools.simulator.scripted_rules import scripted_docs

EXAMPLES = os.path.join(ROOT, "examples")
CAROM = [sys.executable, "-m", "host_tools"]


def example(name):
    with open(os.path.join(EXAMPLES, name)) as f:
        return f.readlines()


def run_carom(*args, stdin=""):
    return subprocess.run(CAROM + list(args), input=stdin, capture_output=True, text=True, cwd=ROOT)


# examples/*_presses.txt are the virtual board's press lines (tests/host/test_docs_examples.py runs them).
@pytest.mark.parametrize(
    "name", sorted(n for n in os.listdir(EXAMPLES) if n.endswith(".txt") and not n.endswith("_presses.txt"))
)
def test_examples_same_on_micropython_and_cpython(name):
    lines = example(name)
    mp = [d for _, d in scripted_docs(lines, "micropython")]
    cp = [d for _, d in scripted_docs(lines, "cpython")]
    assert len(mp) == len(cp) == sum(1 for line in lines if line.strip() and not line.lstrip().startswith("#"))
    for a, b in zip(mp, cp):
        assert a == b
    assert all(d["refused"] is None for d in mp), [d["refused"] for d in mp]


def final(name):
    return [d for _, d in scripted_docs(example(name), "micropython")][-1]


def test_example_three_cushion_equalizing():
    d = final("three_cushion_equalizing.txt")
    assert d["result"] == "A" and d["closed"]
    assert d["players"]["A"]["runs"] == [2, 3] and d["players"]["B"]["runs"] == [1, 2]
    assert d["players"]["A"]["name"] == "Anna Kovacs" and d["players"]["B"]["club"] == "Pecsi KSE"
    assert d["players"]["B"]["fouls"] == 1


def test_example_draw_and_extension():
    docs = [d for _, d in scripted_docs(example("draw_and_extension.txt"), "cpython")]
    assert any(d["result"] == "draw" for d in docs)
    d = docs[-1]
    assert d["target"] == 5 and d["result"] == "B"
    assert d["players"]["A"]["innings"] == d["players"]["B"]["innings"] == 2


def test_example_shot_clock():
    d = final("shot_clock.txt")
    assert d["players"]["A"]["timeouts_left"] == 1 and d["players"]["B"]["timeouts_left"] == 2
    assert d["players"]["B"]["fouls"] == 1 and d["shot_clock"] == {"left_s": 54, "limit_s": 60}


def test_cli_prints_one_json_line_per_event_with_refused():
    out = run_carom(
        "sim", "--headless", stdin="new game=straight_rail target=5 breaker=B\npoint\npoint A\n\n# c\nbogus\n"
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 4
    docs = [json.loads(line) for line in lines]
    assert [d["refused"] for d in docs[:2]] == [None, None]
    assert docs[2]["refused"] == "that player is not at the table"
    assert docs[3]["refused"] == "unknown event 'bogus'"
    assert docs[3]["players"]["B"]["score"] == 1
    assert list(docs[0])[:3] == ["version", "game", "target"]  # reading order


def test_cli_errors_are_one_line_on_stderr():
    out = run_carom("sim", "--headless", "--script", "/no/such/file")
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.startswith("carom: cannot read the script /no/such/file")
    out = run_carom("sim", "--board", "nope", "--listen", "127.0.0.1:0")
    assert out.returncode == 1 and out.stderr.startswith("carom: ")
    out = run_carom("--help")
    assert out.returncode == 0 and "sim" in out.stdout


def test_cli_garbage_input_never_tracebacks():
    junk = (
        "\n".join(
            [
                "\x00\x01",
                "point point point",
                "new game=",
                "foul A",
                "wait 1e9",
                'new "',
                "extend -5",
                "lag_fault A",
                "é",
                "choose B break",
            ]
        )
        + "\n"
    )
    for args in (("sim", "--headless"), ("sim", "--headless", "--cpython")):
        out = run_carom(*args, stdin=junk)
        assert out.returncode == 0, out.stderr
        assert "Traceback" not in out.stderr
        docs = [json.loads(line) for line in out.stdout.splitlines()]
        assert len(docs) == 10 and all(d["refused"] for d in docs), docs


def run_bytes(*args, stdin=b""):
    return subprocess.run(CAROM + list(args), input=stdin, capture_output=True, cwd=ROOT)


BAD_BYTES = b"new game=three_cushion target=3 name_A=K\xffM\n\xc3\npoint\n"


@pytest.mark.parametrize("interpreter", [[], ["--cpython"]])
def test_bytes_that_are_not_utf8_are_refused_lines(tmp_path, interpreter):
    """Tried: bytes that are not UTF-8 on `carom sim --headless`'s stdin (a
    UnicodeEncodeError traceback) and in a --script file (UnicodeDecodeError). Each such line is
    refused with the reason, nothing of it applied (not even with the bad byte replaced: the name
    K\ufffdM is not taken), and the next lines go on."""
    script = tmp_path / "bad.txt"
    script.write_bytes(BAD_BYTES)
    for out in (
        run_bytes("sim", "--headless", *interpreter, stdin=BAD_BYTES),
        run_bytes("sim", "--headless", *interpreter, "--script", str(script)),
    ):
        assert out.returncode == 0 and b"Traceback" not in out.stderr, out.stderr
        docs = [json.loads(line) for line in out.stdout.decode().splitlines()]
        assert [d["refused"] for d in docs] == [
            "not UTF-8 text (byte 0xff at column 41)",
            "not UTF-8 text (byte 0xc3 at column 1)",
            "the lag decides who breaks first",
        ]
        assert docs[0]["target"] == 30 and docs[0]["players"]["A"]["name"] == ""  # the `new` was not applied
    # --pretty shows the refused line whole (events were cut), the bad byte as U+FFFD.
    long_bad = b"new game=three_cushion target=3 name_A=K\xffM name_B=" + b"B" * 80 + b"\n"
    out = run_bytes("sim", "--headless", *interpreter, "--pretty", stdin=long_bad)
    (line,) = out.stdout.decode().splitlines()
    assert line.startswith(long_bad.decode("utf-8", "replace").strip() + " ") and "REFUSED: not UTF-8" in line, line


@pytest.mark.parametrize("interpreter", [[], ["--cpython"]])
def test_a_huge_line_is_refused_and_the_next_one_applies(interpreter):
    """Tried: a 500,000-character line (split was quadratic: MemoryError on MicroPython,
    then a JSONDecodeError traceback). Refused as too long, read a block at a time; then the next
    line applies. A line of exactly 4096 characters is taken."""
    stdin = ("point " + "A" * 500000 + "\n" + "new game=three_cushion target=3" + " " * 4065 + "\n").encode()
    out = run_bytes("sim", "--headless", *interpreter, stdin=stdin)
    assert out.returncode == 0 and b"Traceback" not in out.stderr, out.stderr
    docs = [json.loads(line) for line in out.stdout.decode().splitlines()]
    assert [d["refused"] for d in docs] == ["line too long (more than 4096 characters)", None]
    assert docs[1]["target"] == 3


def test_scripted_board_refuses_bad_lines(tmp_path):
    """Tried: non-UTF-8 and 10,000-character lines on `carom sim --headless --board wall`."""
    stdin = b"press A.\xffpoint\n" + b"wait " + b"1" * 10000 + b"\nwait 0.1\n"
    out = run_bytes("sim", "--headless", "--board", "wall", "--flash", str(tmp_path / "flash"), stdin=stdin)
    assert out.returncode == 0 and b"Traceback" not in out.stderr, out.stderr
    docs = [json.loads(line) for line in out.stdout.decode().splitlines()]
    assert [d["refused"] for d in docs] == [
        None,
        "not UTF-8 text (byte 0xff at column 9)",
        "line too long (more than 4096 characters)",
        None,
    ]


@pytest.mark.parametrize("extra", [[], ["--boards", "2"], ["--remote"], ["--headless", "--board", "wall"]])
def test_flash_that_is_not_a_folder(tmp_path, extra):
    """Tried: `carom sim --flash FILE` and `--flash /proc/nope` (NotADirectoryError and
    FileNotFoundError tracebacks), also with --boards 2, --remote and --headless --board wall;
    and --flash FILE/sub. Each a `carom:` line before any board starts; the file is untouched."""
    afile = tmp_path / "afile"
    afile.write_text("keep")
    cases = [
        (str(afile), "carom: --flash %s is a file, not a folder" % afile),
        (str(afile / "sub"), "carom: --flash %s cannot be made: %s is a file, not a folder" % (afile / "sub", afile)),
        ("/proc/nope", "carom: --flash /proc/nope cannot be made"),
    ]
    for flash, message in cases:
        out = run_carom("sim", "--listen", "127.0.0.1:0", "--flash", flash, *extra)
        assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
        assert out.stderr.startswith(message), out.stderr
        assert "serial console" not in out.stdout + out.stderr  # no board started
    assert afile.read_text() == "keep"
    if extra == ["--boards", "2"]:
        (tmp_path / "two").mkdir()
        (tmp_path / "two" / "board2").write_text("")
        out = run_carom("sim", "--listen", "127.0.0.1:0", "--flash", str(tmp_path / "two"), *extra)
        assert out.returncode == 1 and "board2 is a file, not a folder" in out.stderr, out.stderr
    if extra == ["--remote"]:
        (tmp_path / "f-remote").write_text("")
        out = run_carom("sim", "--listen", "127.0.0.1:0", "--flash", str(tmp_path / "f"), *extra)
        assert out.returncode == 1 and "f-remote is a file, not a folder" in out.stderr, out.stderr


def test_script_that_cannot_be_read():
    """Tried: --script on a folder and on a missing file."""
    for path in ("/proc", "/nonexistent/script.txt"):
        out = run_carom("sim", "--headless", "--script", path)
        assert out.returncode == 1 and out.stderr.startswith("carom: cannot read the script %s" % path), out.stderr


def test_unicode_digits_are_refused_on_both_interpreters():
    """CPython's int() took `target=\u0663` and `target=\uff11\uff10`; MicroPython's does not."""
    lines = ["new game=three_cushion target=\u0663\n", "new game=three_cushion target=\uff11\uff10\n", "wait \u0663\n"]
    for interpreter in ("micropython", "cpython"):
        docs = [d for _, d in scripted_docs(lines, interpreter)]
        refused = [d["refused"] or "" for d in docs]
        assert [r.split(", not ")[0] for r in refused] == [
            "target must be a whole number",
            "target must be a whole number",
            "wait needs seconds",
        ], refused


def test_an_extension_of_an_innings_limited_match_plays_to_its_total():
    """The extension ended after one inning each on the innings limit (README "Readings
    and choices": an extension is played without the innings limit, to its new total)."""
    lines = [
        "new game=three_cushion target=2 breaker=A innings_limit=1\n",
        "point A\n",
        "point A\n",
        "point B\n",
        "point B\n",
        "extend 3\n",
        "miss A\n",
        "miss B\n",
        "point A\n",
        "point B\n",
        "extend 4\n",
    ]
    for interpreter in ("micropython", "cpython"):
        docs = [d for _, d in scripted_docs(lines, interpreter)]
        assert [d["refused"] for d in docs] == [None] * len(lines), interpreter
        assert docs[4]["result"] == "draw" and docs[4]["ended_by"] == "target"
        assert docs[7]["phase"] == "running" and docs[7]["turn"] == "A"
        assert docs[9]["result"] == "draw" and docs[9]["ended_by"] == "target"
        assert docs[10]["phase"] == "running" and docs[10]["target"] == 4


EVENT_WORDS = """new game=three_cushion target=3 shot_clock=40 timeout_s=30
lag_tie
review A
lag A
choose A break
wait 7
foul jumped B red
frozen
frozen_choice masse
new game=balkline_47_1 target=20 breaker=A
call entre anchor
point
call out
call dedans
abandon B
"""


def test_the_new_words_print_every_key_in_reading_order():
    """The rarer events' words through `carom sim --headless` (MicroPython): each line's document has its
    keys in scripted_rules' reading order, and every key (also inside spots, area, lag,
    review_used, options) is one the order knows, so none is put at the end unnoticed."""
    from host_tools.simulator.scripted_rules import INNER_ORDER, KEY_ORDER

    got = run_carom("sim", "--headless", stdin=EVENT_WORDS)
    assert got.returncode == 0, got.stderr
    docs = [json.loads(line) for line in got.stdout.splitlines()]
    assert len(docs) == EVENT_WORDS.count("\n") and all(d["refused"] is None for d in docs), docs[-1]
    for d in docs:
        assert list(d) == KEY_ORDER
        for k, order in INNER_ORDER.items():
            if isinstance(d[k], dict):
                assert list(d[k]) == [x for x in order if x in d[k]] and set(d[k]) <= set(order), (k, d[k])
    assert docs[1]["lag"] == {"chooser": None, "collisions": 0, "ties": 1}
    assert docs[5]["elapsed_s"] == 7 and docs[5]["options"]["timeout_s"] == 30 and docs[5]["review_used"]["A"]
    assert (docs[6]["respot"], docs[6]["respot_balls"], docs[6]["spots"]) == (
        "three_cushion",
        ["B", "red"],
        {"A": "centre", "B": "baulk", "red": "top"},
    )
    assert [d["respot"] for d in docs[7:9]] == ["choice", "masse"]
    assert docs[11]["area"] == {"anchor": True, "caroms": 1, "limit": 1, "out_next": True}
    assert docs[12]["area"] is None and docs[12]["last_call"] == "out"
    assert (docs[14]["result"], docs[14]["ended_by"]) == ("A", "abandoned")
    pretty = run_carom("sim", "--headless", "--pretty", stdin=EVENT_WORDS)
    assert pretty.returncode == 0 and len(pretty.stdout.splitlines()) == len(docs), pretty.stderr
    lines = pretty.stdout.splitlines()
    # The whole event stands at the start of its line (it was cut to 28 characters), then the helps.
    assert lines[0].startswith("new game=three_cushion target=3 shot_clock=40 timeout_s=30 "), lines[0]
    assert "lag ties 1" in lines[1] and "review used A" in lines[2]
    assert "time 0:00:07" in lines[5]
    assert "respot three_cushion (B red) spots A:centre B:baulk red:top" in lines[6], lines[6]
    assert "respot choice" in lines[7] and "respot masse" in lines[8]
    assert "anchor 0/1 OUT" in lines[10] and "anchor 1/1 OUT" in lines[11], lines[10:12]  # 47/1: every carom
    assert "area" not in lines[12] and "anchor" not in lines[12]
    assert "area 1/1 OUT" in lines[13]
    assert lines[14].endswith("result A  by abandoned") and "area" not in lines[14], lines[14]


FORMAT_WORDS = """new game=three_cushion target_A=3 target_B=2 warmup_s=60 breaker=A
warmup A
wait 30
warmup B
resume
new game=three_cushion target=2 sets=2 deciding_target=1 shootout=on innings_limit=1
lag A
choose A break
point
point
miss
next_set
point
miss
point
miss
miss
point
miss
"""


def test_format_words_print_every_key_in_reading_order():
    """The formats' words (handicap, warm-up, sets, shoot-out) through `carom sim --headless`
    (MicroPython): every key of the document, the new ones inside sets, shootout, warmup,
    options and players.X.match too, is one the reading order knows, in its place."""
    from host_tools.simulator.scripted_rules import INNER_ORDER, KEY_ORDER, MATCH_ORDER, PLAYER_ORDER

    got = run_carom("sim", "--headless", stdin=FORMAT_WORDS)
    assert got.returncode == 0, got.stderr
    docs = [json.loads(line) for line in got.stdout.splitlines()]
    assert len(docs) == FORMAT_WORDS.count("\n") and all(d["refused"] is None for d in docs), docs[-1]
    for d in docs:
        assert list(d) == KEY_ORDER
        for k, order in INNER_ORDER.items():
            if isinstance(d[k], dict):
                assert list(d[k]) == [x for x in order if x in d[k]] and set(d[k]) <= set(order), (k, d[k])
        for p in ("A", "B"):
            assert list(d["players"][p]) == PLAYER_ORDER
            if d["players"][p]["match"] is not None:
                assert list(d["players"][p]["match"]) == MATCH_ORDER
    assert docs[0]["target"] is None and [docs[0]["players"][p]["target"] for p in "AB"] == [3, 2]
    assert docs[2]["warmup"] == {"player": "A", "left_s": 30} and docs[3]["warmup"]["player"] == "B"
    assert docs[4]["warmup"] is None and docs[4]["phase"] == "running"
    assert docs[10]["phase"] == "set_over" and docs[10]["sets"] == {
        "to_win": 2,
        "number": 1,
        "won": {"A": 1, "B": 0},
        "scores": [[2, 0]],
    }
    assert docs[11]["sets"]["number"] == 2 and docs[11]["turn"] == "B"
    assert docs[14]["shootout"] is None
    assert docs[15]["phase"] == "shootout" and docs[15]["shootout"] == {"rounds": [], "played": 0, "current": [0, 0]}
    assert docs[16]["turn"] == "A" and docs[17]["shootout"]["current"] == [1, 0]  # the set's breaker (B) first
    assert docs[18]["shootout"] == {"rounds": [[1, 0]], "played": 1, "current": None}
    assert (docs[18]["result"], docs[18]["ended_by"], docs[18]["sets"]["scores"]) == ("A", "shootout", [[2, 0], [1, 1]])
    assert docs[18]["players"]["A"]["match"]["score"] == 3 and docs[18]["options"]["deciding_target"] == 1
    # The --pretty line says the same: the targets, the warm-up's clock, the set, the shoot-out's round.
    lines = run_carom("sim", "--headless", "--pretty", stdin=FORMAT_WORDS).stdout.splitlines()
    assert len(lines) == len(docs)
    assert "targets 3:2" in lines[0] and "warm-up A 0:30" in lines[2] and "warm-up B 1:00" in lines[3]
    assert "set 1, sets 1:0" in lines[10] and "set 2, sets 1:0" in lines[11]
    assert "shoot-out round 1 0:0" in lines[15] and "shoot-out round 1 1:0" in lines[17]
    assert "shoot-out round 1" in lines[18] and "1:0" not in lines[18].split("shoot-out")[1]


def test_the_grammar_lists_every_word_and_option():
    """The scripted mode page's grammar has every event the referee takes (firmware/referee.py),
    every option of `new`, every call and frozen choice: a new word cannot go undocumented."""
    import re

    from host_tools import firmware_path

    firmware_path()
    import referee

    with open(os.path.join(ROOT, "docs", "scripted.md"), encoding="utf-8") as f:
        section = f.read().split("\n## ")[0]  # the page's first part: the grammar
    grammar = section.split("```\n")[1]
    words = set(re.findall(r"[A-Za-z_]+", grammar))
    with open(os.path.join(ROOT, "firmware", "referee.py"), encoding="utf-8") as f:
        source = f.read()
    events = set(re.findall(r'name == "([a-z_]+)"', source))
    options = set(referee._INT_OPTIONS + referee._TEXT_OPTIONS) | {
        "game",
        "breaker",
        "breaker_ball",
        "equalizing",
        "draw",
        "shootout",
    }
    calls = {"entre", "dedans", "a_cheval", "out", "anchor", "start", "free_ball", "masse", "jumped", "red"}
    assert len(events) >= 23 and {"lag_tie", "abandon", "review", "frozen", "frozen_choice"} <= events
    assert events | options | calls <= words, sorted((events | options | calls) - words)
    doc_grammar = [line.strip() for line in referee.__doc__.splitlines() if line.startswith("    ")]
    assert doc_grammar and doc_grammar[0].startswith("point")
    for line in doc_grammar:  # the docstring's grammar, item for item (its <kind>s the README spells out)
        for item in re.split(r"\s{3,}", line):
            if item and not item.startswith(("(", "[", "new ")):
                assert item.split(" <kind>")[0] in grammar, item


def test_the_virtual_board_pretty_lines_have_the_whole_line_and_what_the_displays_show(tmp_path):
    """`--pretty` showed a cut event; with `--board` it was not taken at all (JSON came out).
    The board's pretty line: the script line whole, then each display field as it reads, the LEDs
    lit, the cues heard, a refusal."""
    from host_tools.simulator.scripted_board import run_script
    from host_tools.simulator.scripted_rules import Refused

    out = []
    long_line = "wait 0.5" + " " * 40 + "   "  # longer than 28 characters, trailing blanks stripped
    run_script(
        "mini",
        [
            "press point",
            "press point",
            long_line,
            "# a comment",
            "",
            "press end",
            "press nothing",
            Refused("\ufffdpress", "not UTF-8 text (byte 0xff at column 1)"),
        ],
        out.append,
        str(tmp_path / "flash"),
        pretty_lines=True,
    )
    lines = "".join(out).splitlines()
    assert len(lines) == 7, lines
    assert lines[0].startswith("(power on)") and "A.score 0  B.score 0" in lines[0]
    assert lines[2].startswith("press point ") and "A.score 1.  B.score 0" in lines[2]
    assert lines[3].startswith("wait 0.5 ") and "A.score 1." in lines[3]
    assert lines[4].startswith("press end ") and "B.score 0." in lines[4]
    assert lines[5].startswith("press nothing ") and lines[5].endswith(
        "REFUSED: no button 'nothing' on board mini; buttons: end point"
    ), lines[5]
    assert lines[6].startswith("\ufffdpress ") and "REFUSED: not UTF-8 text" in lines[6]
    out = []
    run_script(
        "wall",
        ["press A.point", "press A.point", "press B.point"],
        out.append,
        str(tmp_path / "wall"),
        config={"board": "wall", "players": {"A": {"name": "Anna Karenina"}}},
        pretty_lines=True,
    )
    lines = "".join(out).splitlines()
    assert "message LAG" in lines[0] and "lit" not in lines[0]
    assert "A.score 1 " in lines[2] and "A.run 1 " in lines[2] and "lit A.spot A.turn" in lines[2], lines[2]
    assert "sound accept" in lines[2]
    from host_tools.simulator.scripted_board import pretty

    state = {
        "line": "press A.point",
        "fields": {"A.name": "ER A", "B.name": "    ", "A.score": None},
        "blink": {"0x70": "2Hz"},
        "leds": {"A.turn": 1, "B.turn": 0},
        "sound": [],
        "powered": True,
        "refused": None,
        "_chips": {"A.name": "0x70"},
    }
    assert pretty(state) == "%-28s %s" % ("press A.point", 'A.name "ER A"*  A.score --  lit A.turn')
    assert "press B.point" in lines[3] and "B.score 0 " in lines[3] and "REFUSED" not in lines[3]

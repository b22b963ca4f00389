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


@pytest.mark.parametrize("name", sorted(n for n in os.listdir(EXAMPLES) if n.endswith(".txt")))
def test_examples_same_on_micropython_and_cpython(name):
    lines = example(name)
    mp = [d for _, d in scripted_docs(lines, "micropython")]
    cp = [d for _, d in scripted_docs(lines, "cpython")]
    assert len(mp) == len(cp) == sum(1 for l in lines if l.strip() and not l.lstrip().startswith("#"))
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
    out = run_carom("sim", "--headless", stdin="new game=straight_rail target=5 breaker=B\npoint\npoint A\n\n# c\nbogus\n")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 4
    docs = [json.loads(l) for l in lines]
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
    junk = "\n".join(["\x00\x01", "point point point", "new game=", "foul A", "wait 1e9", 'new "',
                      "extend -5", "lag_fault A", "é", "choose B break"]) + "\n"
    for args in (("sim", "--headless"), ("sim", "--headless", "--cpython")):
        out = run_carom(*args, stdin=junk)
        assert out.returncode == 0, out.stderr
        assert "Traceback" not in out.stderr
        docs = [json.loads(l) for l in out.stdout.splitlines()]
        assert len(docs) == 10 and all(d["refused"] for d in docs), docs

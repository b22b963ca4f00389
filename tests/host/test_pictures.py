"""`make pictures` (tools/pictures.py): the docs' pictures, taken from the running software.

Checked: docs/pictures/ holds every picture the tool knows (its PICTURES list), each a PNG of the
size the tool makes it, and nothing else; the tool, run as a person runs it, writes one (the
simulator's: `carom sim` and Chromium) into another folder, saying so on stderr; an unknown name
is refused before anything starts.
"""

import os
import subprocess
import sys

import pytest

from host_tools import ROOT
from tools.pictures import PICTURES, png_size
from tools.run.chromium import CHROMIUM

DOCS = os.path.join(ROOT, "docs", "pictures")


def pictures(*args):
    return subprocess.run(
        [sys.executable, "-m", "tools.pictures", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def size_ok(got, want):
    """`want`: (width, height), None where the page's content decides it."""
    return all(w is None or g == w for g, w in zip(got, want))


def test_every_picture_the_tool_knows_is_in_docs():
    names = [p.name for p in PICTURES]
    assert sorted(os.listdir(DOCS)) == sorted(names), "make pictures writes docs/pictures/ (tools/pictures.py)"
    for p in PICTURES:
        got = png_size(os.path.join(DOCS, p.name))
        assert size_ok(got, p.size) and min(got) >= 100, (p.name, got, p.size)


def test_an_unknown_picture_is_refused_before_anything_starts(tmp_path):
    out = pictures("--out", str(tmp_path / "out"), "simulator", "nosuch")
    assert out.returncode == 2 and "no picture nosuch.png (there are simulator.png, " in out.stderr, out
    assert not (tmp_path / "out").exists()


def test_the_tool_makes_the_simulators_picture(tmp_path):
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed (tools/deps.sh installs it)")
    out = pictures("--out", str(tmp_path), "simulator")
    assert out.returncode == 0, out.stdout + out.stderr
    assert os.listdir(tmp_path) == ["simulator.png"]
    (picture,) = [p for p in PICTURES if p.name == "simulator.png"]
    assert png_size(str(tmp_path / "simulator.png")) == picture.size == (1280, 720)
    assert os.path.getsize(tmp_path / "simulator.png") > 50_000  # a page drawn, not a blank one
    lines = out.stderr.splitlines()
    assert lines[0].startswith("pictures: simulator.png: the simulator page mid-match"), lines
    assert lines[-1].startswith("pictures: wrote ") and "simulator.png (1280x720)" in lines[-1], lines

"""The figures' page (docs/develop/figures.md) is made from what `make bench` printed.

What is tried: tools/bench/figures.py makes the expected page from a fake run (its date, its
commit, a tree with and without local changes, a section that failed after printing, one that
failed before); the page is written whole (no temporary file left); the commit and the local
changes are read from git, the page itself not counted as a change; and the page in the checkout
has its header line (a date, a commit) and a heading for each of the bench's sections, in order.
"""

import os
import re
import subprocess

from host_tools import ROOT
from tools.bench import figures

MACHINE = "vm (AMD EPYC, 2 CPUs)"
CHIP = (
    "## The chip's time, estimated (CPU only: the flash, radio and I2C take their own time)\n"
    "this machine, 32-bit MicroPython: 250000 pystones/s\n"
    "the chip is 151 to 224 times slower: every 'chip' figure below is a host time times that\n"
    "\n"
)
RULES = "## Rules core\n(rules_section failed: RuntimeError: no MicroPython)\n\n"
RADIO_WHY = 'RuntimeError: it printed nothing: Traceback\n  File "/main.py", line 92\nAttributeError: no SIGNED\n'
RADIO = "(radio_section failed: %s)\n\n" % RADIO_WHY
SECTIONS = [
    ("The chip's time", CHIP, None),
    ("The rules core", RULES, "RuntimeError: no MicroPython"),
    ("The firmware's heap", "", "OSError: [Errno 28] No space left on device"),
    ("The remote's radio", RADIO, RADIO_WHY),
]
HEADER = re.compile(
    r"^Measured by `make bench` on \d{4}-\d\d-\d\d at commit [0-9a-f]{7,}( with local changes)? on .+\.$"
)


def test_the_page_is_made_from_what_the_sections_printed():
    text = figures.page(SECTIONS, "2026-12-05", "33c7b06", False, MACHINE)
    lines = text.splitlines()
    assert "# The figures" in lines
    assert "Measured by `make bench` on 2026-12-05 at commit 33c7b06 on vm (AMD EPYC, 2 CPUs)." in lines
    assert figures.HOW_TO_READ in lines
    assert "chip" in figures.HOW_TO_READ and "ratios" in figures.HOW_TO_READ
    chip = text.index("## The chip's time\n")
    rules = text.index("## The rules core\n")
    heap = text.index("## The firmware's heap\n")
    assert chip < rules < heap
    # Each section's output as printed, in a text block under its heading.
    assert text[chip:rules] == "## The chip's time\n\n```text\n" + CHIP.strip("\n") + "\n```\n\n"
    assert text[rules:heap] == (
        "## The rules core\n\n**This section failed on this run**: RuntimeError: no MicroPython\n\n"
        "```text\n## Rules core\n(rules_section failed: RuntimeError: no MicroPython)\n```\n\n"
    )
    radio = text.index("## The remote's radio\n")
    assert text[heap:radio] == (
        "## The firmware's heap\n\n**This section failed on this run**: OSError: [Errno 28] No space left on device\n\n"
    )
    # A reason of several lines (a board's traceback): its first line, the whole in the block.
    assert text[radio:] == (
        "## The remote's radio\n\n**This section failed on this run**: RuntimeError: it printed nothing: Traceback"
        " (in full below)\n\n```text\n" + RADIO.strip("\n") + "\n```\n"
    )
    assert sum(1 for line in lines if HEADER.match(line)) == 1


def test_a_tree_with_local_changes_says_so():
    text = figures.page(SECTIONS[:1], "2026-12-06", "0123abcd", True, MACHINE)
    line = "Measured by `make bench` on 2026-12-06 at commit 0123abcd with local changes on vm (AMD EPYC, 2 CPUs)."
    assert line in text.splitlines() and HEADER.match(line)


def test_the_page_is_written_whole(tmp_path):
    path = str(tmp_path / "figures.md")
    with open(path, "w") as f:
        f.write("the last run's page\n")
    text = figures.page(SECTIONS, "2026-12-05", "33c7b06", False, MACHINE)
    assert figures.write(text, path) == path
    with open(path, encoding="utf-8") as f:
        assert f.read() == text
    assert os.listdir(tmp_path) == ["figures.md"]  # the temporary file renamed over it


def git(root, *args):
    subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"] + list(args),
        cwd=root,
        check=True,
        capture_output=True,
    )


def test_the_commit_and_the_local_changes_come_from_git(tmp_path):
    root = str(tmp_path)
    page = os.path.join(root, "docs", "develop", "figures.md")
    os.makedirs(os.path.dirname(page))
    with open(os.path.join(root, "rules.py"), "w") as f:
        f.write("A = 0\n")
    with open(page, "w") as f:
        f.write("# The figures\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "the first")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
    commit, dirty = figures.checkout(root)
    assert head.startswith(commit) and len(commit) >= 7 and not dirty
    with open(page, "w") as f:
        f.write("# The figures, the last run's\n")
    assert figures.checkout(root) == (commit, False)  # the bench's own page is not a change
    with open(os.path.join(root, "rules.py"), "w") as f:
        f.write("A = 1\n")
    assert figures.checkout(root) == (commit, True)
    assert figures.checkout(str(tmp_path / "docs")) == (commit, True)  # from a folder inside it too
    assert figures.machine_name().endswith(" CPUs)")


def test_the_checked_in_page_is_a_run_of_this_bench():
    """docs/develop/figures.md has its header line and a heading for each section the bench runs,
    in order: a section added to the bench fails here until `make bench` has run."""
    from tools.bench.__main__ import SECTIONS as BENCH

    with open(figures.PAGE, encoding="utf-8") as f:
        text = f.read()
    lines = text.splitlines()
    assert [line for line in lines if HEADER.match(line)], "no header line on %s" % figures.PAGE
    outside = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)  # a section prints its own "## " line
    headings = [line[3:] for line in outside.splitlines() if line.startswith("## ")]
    assert headings == [title for title, _ in BENCH], (
        "%s is not from a run of this bench: run `make bench`" % os.path.relpath(figures.PAGE, ROOT)
    )

"""docs/develop/figures.md: the page of `make bench`'s figures, made from what the bench printed.

    run = checkout()                      # (short commit, whether the tree has local changes)
    text = page(sections, date, commit, dirty, machine_name())
    write(text)                           # docs/develop/figures.md, atomically

sections: [(title, what the section printed, why it failed or None)], in the order they ran. The
page holds each section's output as printed, under a heading of its title: no figure on it is
typed, and the pages that explain the figures (benchmarks.md, memory.md) link to its headings.
"""

import os
import platform
import subprocess

from host_tools import ROOT

PAGE = os.path.join(ROOT, "docs", "develop", "figures.md")
TITLE = "# The figures"
# What the bench writes is not a local change of the tree it measures.
NOT_A_CHANGE = (os.path.relpath(PAGE, ROOT).replace(os.sep, "/"),)
HOW_TO_READ = (
    "How to read it: the machine is shared with other work, so the ratios and the counts (bytes, "
    "allocations, entries, writes, MemoryErrors) say more than the rates and the times, which move "
    'from run to run; every figure marked "chip" is an estimate, a time measured here scaled by the '
    "measured ratio in [The chip's time](#the-chips-time). What each figure measures, how, and its "
    "goal: [The benchmarks](benchmarks.md)."
)


def machine_name():
    """This machine in words: its name and its processor, "vm (AMD EPYC, 2 CPUs)"."""
    cpu = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    cpu = cpu or platform.processor() or platform.machine()
    return "%s (%s, %d CPUs)" % (platform.node() or "this machine", cpu, os.cpu_count() or 1)


def checkout(root=ROOT):
    """(the short commit of HEAD, whether the tree has changes git would show, figures.md aside);
    ("unknown", False) outside a git checkout."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown", False
    changed = [line[3:] for line in status.splitlines() if line[3:] not in NOT_A_CHANGE]
    return commit, bool(changed)


def header(date, commit, dirty, machine):
    """The page's line that says when, at which commit and where the figures were measured."""
    return "Measured by `make bench` on %s at commit %s%s on %s." % (
        date,
        commit,
        " with local changes" if dirty else "",
        machine,
    )


def page(sections, date, commit, dirty, machine):
    """The page's text: the title, the header line, how to read it, then each section's heading and
    its output in a text block (a section that failed says so, with what it printed before)."""
    out = [
        "<!-- Written by `make bench` (tools/bench/figures.py): run it again, do not edit. -->",
        "",
        TITLE,
        "",
        header(date, commit, dirty, machine),
        "",
        HOW_TO_READ,
        "",
    ]
    for title, printed, failed in sections:
        out += ["## " + title, ""]
        lines = printed.strip("\n").splitlines()
        if failed:
            why = failed.strip().splitlines() or ["(no reason given)"]
            more = " (in full below)" if len(why) > 1 and lines else ""
            out += ["**This section failed on this run**: %s%s" % (why[0].rstrip(), more), ""]
        if lines:
            out += ["```text"] + [line.rstrip() for line in lines] + ["```", ""]
        elif not failed:
            out += ["(it printed nothing)", ""]
    return "\n".join(out)


def write(text, path=PAGE):
    """The page written whole or not at all: a temporary file beside it, then renamed over it."""
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    return path

"""Every command in README.md and in the documentation's pages (docs/, but for docs/build/: its
own test, test_docs_build.py, runs those as a builder does) runs as shown.

The commands are read from the pages themselves: each line of a ```sh block, and each inline
`.venv/bin/...` command. Each one is either run here or named in NOT_RUN with the reason (it needs
a real board, the hall's network, or it is the test suite itself); a command that is neither fails
the test, so a new example cannot slip by unchecked.

How they run: with `sh -c`, in a scratch folder that links `.venv` and `examples` to the
repository's (so `--flash sim-flash` is made there, not in the checkout). The only change made to a
command: the simulator page's `--listen` is a free loopback port (added when the command has
none), so it cannot meet another server on 8080.

- The scripted mode (`carom sim --headless`, without `--board`) must exit 0 with no line refused
  (`REFUSED` in `--pretty`, `"refused"` not null in JSON).
- The virtual board (`--headless --board`) the same, its JSON lines' `refused` null.
- The simulator page (`carom sim` without `--headless`) must print each board's serial console and
  the URL, answer GET /api/boards with as many boards as asked for (`--boards N`, `--remote`: the
  referee box too), and stop on Ctrl-C with exit 0.

Where a page shows what a command prints (a block after a paragraph that ends "prints ...:"),
the command's output must have those lines: "…" stands for any text, and in the blocks of
NUMBERS_VARY any number for any number (figures measured on the machine).
"""

import json
import os
import re
import subprocess
import urllib.request

import pytest

from helpers import LineProcess, free_port
from host_tools import ROOT

# The pages whose commands this test runs: README.md and docs/**/*.md but docs/build/.
PAGES_READ = ["README.md"] + sorted(
    os.path.relpath(os.path.join(d, f), ROOT)
    for d, _, files in os.walk(os.path.join(ROOT, "docs"))
    for f in files
    if f.endswith(".md") and not os.path.relpath(d, ROOT).startswith(os.path.join("docs", "build"))
)

# Commands not run, by a piece of their text, with why.
NOT_RUN = {
    "/dev/ttyUSB0": "talks to a real board on a serial port (tests/host/test_deploy.py, test_configcmd.py, "
    "test_reportcmd.py, test_doctor.py run these commands against virtual boards)",
    "carom hall --broker 192.168.1.10": "the hall's MQTT broker on the club's network (tests/host/test_hall*.py "
    "run carom hall against a local mosquitto)",
    "carom hall --broker broker.local": "the hall's MQTT broker on the club's network",
    "tools.hall.loadgen": "needs an MQTT broker on port 1883 and runs until stopped "
    "(tests/host/test_hall_load.py runs it against a local mosquitto)",
    "make test": "the test suite itself",
    "make sim": "tests/host/test_web_newcomer.py runs `make sim` in a fresh clone",
    "sh tools/deps.sh": "installs Debian's packages: make test runs it before the tests",
    "--recordings club-hu/": "needs a club's recordings (tests/host/test_speech_vboard.py makes a pack from WAV files)",
}
# Output blocks whose figures are measured on the machine: any number stands for any number there.
NUMBERS_VARY = ("carom sim: heap:",)


# ---- reading the pages -----------------------------------------------------------------------------


def blocks(text):
    """[(line number, language, body, the prose before it)] of the fenced blocks."""
    out = []
    last_end = 0
    for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M):
        line = text.count("\n", 0, m.start()) + 1
        out.append((line, m.group(1), m.group(2), text[last_end : m.start()]))
        last_end = m.end()
    return out


def strip_comment(line):
    """A shell line without its trailing `# ...` comment (a # inside quotes stays)."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def commands(text):
    """[(line number, command)]: the lines of the ```sh blocks, and the inline `.venv/bin/...`
    commands of the prose."""
    out = []
    for line, lang, body, prose in blocks(text):
        if lang == "sh":
            for k, raw in enumerate(body.splitlines()):
                cmd = strip_comment(raw)
                if cmd:
                    out.append((line + 1 + k, cmd))
    fenced = [(m.start(), m.end()) for m in re.finditer(r"^```.*?^```", text, re.S | re.M)]
    for m in re.finditer(r"`(\.venv/bin/[^`]+)`", text):
        if not any(a <= m.start() < b for a, b in fenced):
            out.append((text.count("\n", 0, m.start()) + 1, m.group(1)))
    return sorted(out)


def shown_outputs(text):
    """[(line number, output lines, the ```sh block's commands before it)] of the blocks a page
    says a command prints: a plain block right after a paragraph that ends "prints ...:"."""
    out = []
    last_sh = []
    for line, lang, body, prose in blocks(text):
        if lang == "sh":
            last_sh = [strip_comment(x) for x in body.splitlines() if strip_comment(x)]
            continue
        para = prose.strip().split("\n\n")[-1]
        if not lang and para.endswith(":") and re.search(r"\bprints\b", para):
            out.append((line, body.splitlines(), list(last_sh), para))
    return out


def not_run_reason(cmd):
    for piece, why in NOT_RUN.items():
        if piece in cmd:
            return why
    return None


def kind(cmd):
    """ "scripted", "board", "page", "voice", or None (not a command this test knows how to run)."""
    if "carom sim" not in cmd:
        return "voice" if cmd.startswith(".venv/bin/carom voice ") else None
    if "--headless" in cmd:
        return "board" if "--board" in cmd else "scripted"
    return "page"


def _read(page):
    with open(os.path.join(ROOT, page), encoding="utf-8") as f:
        return f.read()


TEXTS = {page: _read(page) for page in PAGES_READ}
COMMANDS = [("%s:%d" % (page, n), c) for page, text in TEXTS.items() for n, c in commands(text)]
RUN = [(n, c) for n, c in COMMANDS if not_run_reason(c) is None]
SHOWN = [
    ("%s:%d" % (page, n), lines, sh, para) for page, text in TEXTS.items() for n, lines, sh, para in shown_outputs(text)
]


def test_every_command_is_run_or_has_a_reason():
    unknown = [(n, c) for n, c in RUN if kind(c) is None]
    assert not unknown, (
        "commands of the pages this test neither runs nor skips with a reason: %r; make it a command "
        "this test runs (carom sim ...), or name it in NOT_RUN with why it cannot run here" % unknown
    )
    kinds = {kind(c) for _, c in RUN}
    assert kinds == {"scripted", "board", "page", "voice"}, kinds  # the pages' examples were found
    assert len(COMMANDS) >= 20


def test_the_shown_outputs_are_found():
    shown = SHOWN
    firsts = [lines[0][:30] for _, lines, _, _ in shown]
    assert any(f.startswith("carom sim: heap:") for f in firsts), firsts
    assert any(f.startswith("lag A ") for f in firsts), firsts


# ---- running them ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """A folder where the commands run: .venv and examples linked to the repository's."""
    folder = tmp_path_factory.mktemp("readme")
    for name in (".venv", "examples"):
        os.symlink(os.path.join(ROOT, name), folder / name)
    return folder


def run_shell(cmd, cwd, timeout=300):
    return subprocess.run(
        ["sh", "-c", cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def needs_32bit(cmd):
    if "--micropython 32" not in cmd:
        return
    from host_tools.commands.sim import interpreter_arg
    from host_tools.errors import CommandError

    try:
        interpreter_arg("32")
    except CommandError as e:
        pytest.skip("no 32-bit MicroPython here: %s" % e)


def matches(shown, got, numbers_vary):
    """Whether the output line `got` reads as the page's `shown` ("…": any text; with
    numbers_vary, any number for a number)."""
    pattern = ""
    for piece in re.split(r"(…|\d[\d,]*)", shown):
        if piece == "…":
            pattern += ".*"
        elif piece and piece[0].isdigit() and numbers_vary:
            pattern += r"\d[\d,]*"
        else:
            pattern += re.escape(piece)
    return re.fullmatch(pattern, got) is not None


def check_shown(cmd, output):
    """The pages' shown output of `cmd`, if it shows one, is in `output` (its lines, in order)."""
    got = output.splitlines()
    checked = 0
    for line, lines, sh, para in SHOWN:
        owner = owner_of(lines, sh, para)
        if owner != cmd:
            continue
        vary = any(lines[0].startswith(p) for p in NUMBERS_VARY)
        at = 0
        for want in lines:
            while at < len(got) and not matches(want, got[at], vary):
                at += 1
            assert at < len(got), "%s shows %r after %r; it printed:\n%s" % (line, want, cmd, output)
            at += 1
        checked += 1
    return checked


def owner_of(lines, sh, para):
    """Which command of the ```sh block before it an output block is: "The second prints" names
    it; else the one whose output it is by its first line (the heap line: the first with --heap)."""
    ordinals = {"first": 0, "second": 1, "third": 2}
    m = re.search(r"\bThe (first|second|third) prints\b", para)
    if m:
        return sh[ordinals[m.group(1)]]
    heap = [c for c in sh if "--heap" in c]
    if lines[0].startswith("carom sim: heap:") and heap:
        return heap[0]
    raise AssertionError("an output block of a page (%r) names no command of the block before it" % lines[0])


def json_lines(stdout):
    out = []
    for line in stdout.splitlines():
        out.append(json.loads(line))
    return out


HEADLESS = [(n, c) for n, c in RUN if kind(c) in ("scripted", "board")]
PAGES = [(n, c) for n, c in RUN if kind(c) == "page"]


@pytest.mark.parametrize("line,cmd", HEADLESS, ids=[n for n, _ in HEADLESS])
def test_headless_example_runs_as_shown(line, cmd, scratch):
    needs_32bit(cmd)
    got = run_shell(cmd, scratch)
    assert got.returncode == 0, "%s: %s\nexit %d\n%s%s" % (
        line,
        cmd,
        got.returncode,
        got.stdout,
        got.stderr,
    )
    assert "Traceback" not in got.stderr and not re.search(r"^carom: ", got.stderr, re.M), got.stderr
    assert got.stdout.strip(), "%s printed nothing: %s" % (line, cmd)
    if "--pretty" in cmd:
        refused = [x for x in got.stdout.splitlines() if "REFUSED" in x]
    else:
        refused = [(d.get("line"), d["refused"]) for d in json_lines(got.stdout) if d.get("refused") is not None]
    assert not refused, "%s: %s refused %r" % (line, cmd, refused)
    check_shown(cmd, got.stdout + got.stderr)


VOICE = [(n, c) for n, c in RUN if kind(c) == "voice"]


@pytest.mark.parametrize("line,cmd", VOICE, ids=[n for n, _ in VOICE])
def test_voice_example_makes_a_pack(line, cmd, scratch):
    """carom voice LANGUAGE (espeak-ng, which make test installs): the pack folder it names."""
    got = run_shell(cmd, scratch)
    assert got.returncode == 0, "%s: %s\nexit %d\n%s%s" % (line, cmd, got.returncode, got.stdout, got.stderr)
    language = cmd.split()[2]
    assert (scratch / "voices" / language / "voice.pack").stat().st_size > 0


def test_the_shown_outputs_are_checked(scratch):
    """Each output block belongs to a command that the tests above run (its lines checked there)."""
    run = {c for _, c in HEADLESS}
    for line, lines, sh, para in SHOWN:
        assert owner_of(lines, sh, para) in run, "%s: its command is not run" % line


class Sim(LineProcess):
    name = "carom sim"


def page_command(cmd, port):
    """The command with its --listen on a free loopback port."""
    listen = "127.0.0.1:%d" % port
    if re.search(r"--listen\s+\S+", cmd):
        return re.sub(r"--listen\s+\S+", "--listen " + listen, cmd)
    return cmd + " --listen " + listen


@pytest.mark.parametrize("line,cmd", PAGES, ids=[n for n, _ in PAGES])
def test_page_example_starts_and_serves(line, cmd, scratch):
    m = re.search(r"--boards\s+(\d+)", cmd)
    walls = int(m.group(1)) if m else 1
    boards = walls + (1 if "--remote" in cmd else 0)
    sim = Sim(["sh", "-c", "exec " + page_command(cmd, free_port())], cwd=scratch)
    try:
        for k in range(1, boards + 1):
            sim.wait_line(r"carom sim: board %d: serial console (/dev/\S+)" % k, timeout=120)
        sim.url = sim.wait_line(r"the simulator is at (http://\S+)", timeout=120).group(1)
        got = sim.get("/api/boards")
        listed = got["boards"] if isinstance(got, dict) and "boards" in got else got
        assert len(listed) == boards, got
        with urllib.request.urlopen(sim.url + "/", timeout=10) as r:
            assert r.status == 200 and b"<html" in r.read().lower()
        assert sim.stop() == 0, "\n".join(sim.lines)
        assert not [x for x in sim.lines if "Traceback" in x or x.startswith("carom: ")], "\n".join(sim.lines)
    finally:
        sim.kill()

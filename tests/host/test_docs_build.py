"""The builder's pages (docs/build/) as a newcomer follows them: every command runs as written.

Each line of every ```sh block in docs/build/ is run here, in page order, or named in NOT_RUN with the
reason; a command that is neither fails the test, so a new step cannot slip by unchecked. How:

- in a scratch folder that links `.venv` to the repository's, with `sh -c`;
- `/dev/ttyUSB0` is a virtual wall board's serial port and `/dev/ttyUSB1` a virtual referee box's
  (both start with an empty flash, as from the shop, and follow real time); `carom flash` talks to an
  emulated ESP32 ROM loader instead (esp32-mock-bootloader on a TCP port), with an image made here
  under the page's file name;
- `carom doctor --identify` runs until the test, as a person would, presses a button on the board
  (its name must be printed) and then holds one (the command must end by itself, exit 0).

Every command must exit 0. Also checked: what the pages quote the tools saying (first-mistakes.md's
and flashing.md's text blocks) is what they say; what getting-started.md says the board shows at its
first start is what the virtual wall board's displays show once the page's commands ran; the
releases flashing.md names are the code's; every relative link of every page reaches a file.
"""

import os
import re
import subprocess
import sys

from helpers import board_def, make_image, needs_mpremote, start_mock_bootloader, wait_until
from host_tools import MICROPYTHON_OLDEST, ROOT, micropython_tested, release_text
from host_tools.boards import board_names
from host_tools.simulator.vboard import VirtualBoard

DOCS = os.path.join(ROOT, "docs", "build")
# Commands not run, by a piece of their text, with why.
NOT_RUN = {
    "make venv": "makes the .venv these tests run in",
}
PORTS = {"/dev/ttyUSB0": "wall", "/dev/ttyUSB1": "referee"}
# The pages whose commands talk to a board, in the order a builder follows them (the wall board
# built and flashed by the first two, the box by the third, the host tools on the wall after).
ON_A_BOARD = ("getting-started.md", "flashing.md", "referee-box.md", "host-tools.md")
ESP32 = 0  # the chip id in an image's header
ESP32_S3 = 9

pytestmark = needs_mpremote


def pages():
    out = []
    for top, _, names in os.walk(DOCS):
        out += [os.path.join(top, n) for n in sorted(names) if n.endswith(".md")]
    return sorted(out)


def commands(path):
    """[(line number, command)] of the ```sh blocks of one page."""
    text = open(path, encoding="utf-8").read()
    out = []
    for m in re.finditer(r"^```sh\n(.*?)^```", text, re.S | re.M):
        first = text.count("\n", 0, m.start()) + 2
        for i, line in enumerate(m.group(1).splitlines()):
            if line.strip() and not line.lstrip().startswith("#"):
                out.append((first + i, line.strip()))
    return out


def quoted(path):
    """The ```text blocks of one page (also those indented in a list item), each as one string."""
    text = open(path, encoding="utf-8").read()
    out = []
    for m in re.finditer(r"^( *)```text\n(.*?)^ *```", text, re.S | re.M):
        indent = len(m.group(1))
        out.append("\n".join(line[indent:] for line in m.group(2).splitlines()).strip())
    return out


def section(path, heading):
    """The text of a page from the heading that starts with `heading` to the next one."""
    text = open(path, encoding="utf-8").read()
    m = re.search(r"^## %s.*?\n(.*?)(?=^## |\Z)" % re.escape(heading), text, re.S | re.M)
    assert m, "%s: no section %r" % (path, heading)
    return " ".join(m.group(1).split())


def not_run(cmd):
    return next((why for piece, why in NOT_RUN.items() if piece in cmd), None)


def test_every_command_is_known():
    """Each command is one this test runs (carom, mpremote devs) or has a reason not to be."""
    for path in pages():
        for line, cmd in commands(path):
            assert not_run(cmd) or cmd.startswith((".venv/bin/carom ", ".venv/bin/mpremote devs")), (
                "%s:%d: %s: neither run by the tests nor in NOT_RUN" % (os.path.relpath(path, ROOT), line, cmd)
            )


class Bench:
    """The scratch folder, the two virtual boards and the mock ROM loader the pages' commands meet."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.scratch = os.path.join(tmp, "scratch")
        os.makedirs(self.scratch)
        os.symlink(os.path.join(ROOT, ".venv"), os.path.join(self.scratch, ".venv"))
        self.boards = {}
        for port, name in PORTS.items():
            vb = VirtualBoard(os.path.join(tmp, name), board=board_def(name), serial=True)
            vb.power_on()
            vb.run_realtime()
            self.boards[port] = vb
        self.mock, port = start_mock_bootloader(tmp)
        self.mock_url = "socket://127.0.0.1:%d" % port

    def close(self):
        for vb in self.boards.values():
            vb.close()
        self.mock.kill()
        self.mock.wait(timeout=10)
        self.mock.stderr.close()

    def command(self, cmd, chip=ESP32):
        """The command as it runs here, and the virtual board it talks to (or None)."""
        board = None
        if " flash " in cmd:
            image = re.search(r"--firmware (\S+)", cmd).group(1)
            with open(os.path.join(self.scratch, image), "wb") as f:
                f.write(make_image(chip, seed=1))
            for port in PORTS:
                cmd = cmd.replace(port, self.mock_url)
            return cmd, None
        for port, vb in self.boards.items():
            if port in cmd:
                cmd = cmd.replace(port, vb.serial_path)
                board = board or vb
        return cmd, board

    def run(self, cmd, timeout=240):
        return subprocess.run(
            ["sh", "-c", cmd],
            cwd=self.scratch,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    def identify(self, cmd, vb):
        """`carom doctor --identify`: a press shows its name here, a long press ends it (exit 0)."""
        proc = subprocess.Popen(
            ["sh", "-c", cmd],
            cwd=self.scratch,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        lines = []
        try:
            import threading

            reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
            reader.start()
            wait_until(
                lambda: any(ln.startswith("  press a button") for ln in lines) or proc.poll() is not None,
                timeout=60,
                what="the identify mode's first line",
            )
            assert proc.poll() is None, "".join(lines) + proc.stderr.read()
            button = "foul" if "foul" in vb.buttons else sorted(vb.buttons)[0]
            vb.tap(button)
            wait_until(
                lambda: any(ln.startswith("  button %s (GPIO" % button) for ln in lines),
                timeout=30,
                what="the name of the button pressed",
            )
            vb.press(button)
            out = proc.wait(timeout=60)
            vb.release(button)
            reader.join(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        return out, "".join(lines), proc.stderr.read()


def shown(vb, field):
    """What the wall board's display for `field` shows of it, without the blanks around it."""
    from host_tools.simulator.segments import decode

    for d in board_def("wall")["displays"]:
        parts = [{"field": d["show"], "at": 0, "width": 4}] if isinstance(d["show"], str) else d["show"]
        for part in parts:
            if part["field"] == field:
                text = decode(vb.chip(int(d["addr"], 16), d["bus"]).ram, d["kind"]).text.replace(".", "")
                return text[part["at"] : part["at"] + part["width"]].strip()
    raise AssertionError("no display shows %s" % field)


def check_first_start(vb):
    """getting-started.md's step 10 against the wall board after the page's commands (its names and
    target set in step 8): each value the page quotes is on the displays it names."""
    page = os.path.join(DOCS, "getting-started.md")
    said = section(page, "10.")
    names = dict(re.findall(r"players\.([AB])\.name=(\S+)", open(page, encoding="utf-8").read()))
    target = re.search(r"match\.target=(\d+)", open(page, encoding="utf-8").read()).group(1)
    expected = {
        "message": "LAG",
        "A.score": "0",
        "B.score": "0",
        "A.innings": "0",
        "B.innings": "0",
        "A.average": "0000",
        "B.average": "0000",
        "A.target": target,
        "B.target": target,
        "A.name": names["A"],
        "B.name": names["B"],
    }
    for words in (
        "the message display says `LAG`",
        "both scores `0`",
        "innings `0`",
        "averages `0.000`",
        "both targets the configured one (`%s`)" % target,
        "(or the names you set)",
    ):
        assert words in said, "getting-started.md step 10 no longer says %r" % words
    wait_until(lambda: shown(vb, "message") == "LAG", timeout=30, what="the first start's LAG")
    got = {field: shown(vb, field) for field in expected}
    assert got == expected


def test_every_page_runs_as_written(tmp_path):
    bench = Bench(str(tmp_path))
    ran = []
    said = {}  # the one result line of a flash command, as the page would show it
    try:
        for page in ON_A_BOARD:
            if page == "flashing.md":
                check_first_start(bench.boards["/dev/ttyUSB0"])  # getting-started.md is done
            for line, cmd in commands(os.path.join(DOCS, page)):
                if not_run(cmd):
                    continue
                where = "%s:%d: %s" % (page, line, cmd)
                run, vb = bench.command(cmd)
                if "--identify" in cmd:
                    code, out, err = bench.identify(run, vb)
                else:
                    done = bench.run(run)
                    code, out, err = done.returncode, done.stdout, done.stderr
                assert code == 0, "%s\nexit %d\nstdout:\n%s\nstderr:\n%s" % (where, code, out[-3000:], err[-3000:])
                ran.append(cmd)
                if " deploy " in cmd and "--board wall" in cmd:
                    assert "carom: running on board wall" in out + err, where  # as the page says
                if " doctor " in cmd and "--identify" not in cmd:
                    assert out.rstrip().splitlines()[-1].startswith("all good"), where
                if " flash " in cmd:
                    said[cmd] = out.strip().replace(bench.mock_url, "/dev/ttyUSB0")
        # flashing.md: an image for another chip, refused
        run, _ = bench.command(
            ".venv/bin/carom flash --device /dev/ttyUSB0 --firmware ESP32_GENERIC_S3.bin", chip=ESP32_S3
        )
        refused = bench.run(run)
        assert refused.returncode == 1, refused.stdout + refused.stderr
        said["refused"] = refused.stderr.strip().splitlines()[-1].replace(bench.mock_url, "/dev/ttyUSB0")
    finally:
        bench.close()

    def any_size(text):  # the image's size is the reader's own
        return re.sub(r"\(\d+ bytes\)", "(N bytes)", text)

    page = [any_size(q) for q in quoted(os.path.join(DOCS, "flashing.md"))]
    for cmd, line in said.items():
        assert any_size(line) in page, "flashing.md does not show what %s says:\n%s" % (cmd, line)
    others = [c for p in pages() if os.path.basename(p) not in ON_A_BOARD for _, c in commands(p) if not not_run(c)]
    for cmd in others:  # a page outside the path above: its commands must not need a board
        assert "/dev/tty" not in cmd, cmd
        done = bench.run(cmd)
        assert done.returncode == 0, (cmd, done.stderr[-2000:])
    # what the pages promise was made
    for made in ("wall-parts.csv", "wiring/wall.svg", "wiring/wall.png", "wall-card.pdf"):
        assert os.path.getsize(os.path.join(bench.scratch, made)) > 0, made
    assert len(ran) >= 15


def test_the_quoted_messages_are_what_the_tools_say(tmp_path):
    """first-mistakes.md quotes doctor's and carom's own lines: each is made here by the code for the
    fault the page describes (a port missing and one held are met for real)."""
    from host_tools.boards import load_board
    from host_tools.commands.doctor import Checklist, check_release, diagnose_i2c

    page = open(os.path.join(DOCS, "first-mistakes.md"), encoding="utf-8").read()
    quoted = [b.strip() for b in re.findall(r"^```text\n(.*?)^```", page, re.S | re.M)]
    full = list(range(0x70, 0x78))
    bus0 = "I2C bus 0 (SDA 21, SCL 22): "
    said = []
    for bd, scan in (
        (load_board("mini"), {0: [0x70, 0x73]}),  # B.score with A1 bridged too
        (load_board("wall"), {0: [a for a in full if a != 0x72], 1: full}),  # 0x72 took another's
        (load_board("wall"), {0: [], 1: full}),
    ):  # nothing on bus 0
        said += ["FAIL  " + bus0 + t for mark, bus, t in diagnose_i2c(bd, scan) if mark == "fail"]
    import io

    c = Checklist(out=io.StringIO())
    check_release({"version": "1.20.0"}, "MicroPython 1.20.0 on Generic ESP32 module with ESP32", c)
    said += ["FAIL  " + p for p in c.problems]
    missing = subprocess.run(
        [sys.executable, "-m", "host_tools", "doctor", "--device", "/dev/ttyUSB0-none"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    said += [ln.strip().replace("/dev/ttyUSB0-none", "/dev/ttyUSB0") for ln in missing.stdout.splitlines()]
    deploy = subprocess.run(
        [sys.executable, "-m", "host_tools", "deploy", "--device", "/dev/ttyUSB0-none", "--board", "wall"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    said += [ln.strip().replace("/dev/ttyUSB0-none", "/dev/ttyUSB0") for ln in deploy.stderr.splitlines()]
    vb = VirtualBoard(tmp_path / "flash", board=board_def("wall"), serial=True)
    try:
        vb.power_on()
        vb.run_realtime()
        holder = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import serial, sys, time; s = serial.Serial(sys.argv[1], "
                "exclusive=True); print('held', flush=True); time.sleep(120)",
                vb.serial_path,
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert holder.stdout.readline().strip() == "held"
            held = subprocess.run(
                [sys.executable, "-m", "host_tools", "doctor", "--device", vb.serial_path],
                capture_output=True,
                text=True,
                timeout=60,
                cwd=ROOT,
            )
            said += [ln.strip().replace(vb.serial_path, "/dev/ttyUSB0") for ln in held.stdout.splitlines()]
            mp = subprocess.run(
                [os.path.join(os.path.dirname(sys.executable), "mpremote"), "connect", vb.serial_path, "fs", "ls"],
                capture_output=True,
                text=True,
                timeout=60,
            )
            mp_said = mp.stderr.strip().splitlines()[-1].replace(vb.serial_path, "/dev/ttyUSB0")
        finally:
            holder.kill()
            holder.wait()
    finally:
        vb.close()
    for q in quoted:
        assert q in said, "first-mistakes.md quotes a line no tool says now:\n%s\nthey say:\n%s" % (q, "\n".join(said))
    assert "(mpremote says `%s`.)" % mp_said.replace("mpremote: ", "") in page.replace("\n", " ")


def test_the_releases_named_are_the_codes():
    page = open(os.path.join(DOCS, "flashing.md"), encoding="utf-8").read()
    assert "| the oldest the firmware runs on | **%s** |" % release_text(MICROPYTHON_OLDEST) in page
    tested = micropython_tested()
    assert tested and "**%s**" % tested in page


def test_every_link_reaches_a_file():
    """Every relative link of every page reaches a file in the checkout, or one `make docs` makes
    that git does not keep (each board's card)."""
    from host_tools.hardware import artefacts

    built = {
        os.path.normpath(os.path.join(DOCS, artefacts.BOARDS_SUBDIR, row.format(name=name)))
        for name in board_names()
        for row in artefacts.BUILT_ONLY
    }
    for path in pages():
        text = open(path, encoding="utf-8").read()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            dest = os.path.normpath(os.path.join(os.path.dirname(path), target.split("#")[0]))
            assert os.path.exists(dest) or dest in built, "%s links %s: no such file" % (
                os.path.relpath(path, ROOT),
                target,
            )

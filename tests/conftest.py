"""Put firmware/ and tests/fw on sys.path so firmware tests run under pytest too."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for p in (os.path.join(ROOT, "firmware"), os.path.join(HERE, "fw")):
    if p not in sys.path:
        sys.path.insert(0, p)


def pytest_report_header(config):
    """One line saying which 32-bit MicroPython the heap tests run on, or that they are skipped."""
    sys.path.insert(0, ROOT)
    from host_tools import micropython32_exe

    exe = micropython32_exe()
    if exe is None:
        return ("32-bit MicroPython: none (CAROM_MICROPYTHON32, or ../shared/tools/micropython32/micropython): "
                "SKIPPED the heap tests (tests/host/test_heap32.py) and the 32-bit runs")
    return "32-bit MicroPython: %s" % exe

"""The referee remote's wake from deep sleep, on the 32-bit MicroPython with a stock ESP32's
112 KB, the firmware as `carom deploy` builds it: a press wakes the box, the firmware starts,
the command goes out (tools/bench/remote.py; `make bench` prints its figures).

What is tried: three presses, each a wake from deep sleep answered by a frame. The start
loads none of the wall board's running code (no asyncio, no rules core, no app, controller
for its list of actions only) and startup.py is gone by the send; the live heap at the send
stays below 32 KB (27,424 bytes measured on 2026-12-05: 57,600 before the remote's start
left the wall's app out). Skipped without the 32-bit MicroPython.
"""

import pytest

from host_tools import micropython32_exe
from tools.bench import remote

pytestmark = pytest.mark.skipif(
    micropython32_exe() is None,
    reason="no 32-bit MicroPython (CAROM_MICROPYTHON32, or ../shared/tools/micropython32/micropython)",
)


def test_a_press_wakes_the_remote_which_loads_only_its_own_code():
    r = remote.run(presses=3)
    assert len(r["us"]) == 3  # every press woke it and was sent
    loaded = set(r["modules"])
    assert {"app_remote", "remote", "radio", "buttons"} <= loaded
    assert not loaded & {
        "asyncio",
        "asyncio.core",
        "rules",
        "app",
        "startup",
        "view",
        "store",
        "rules_setup",
        "config",
        "boarddef",
    }, loaded
    assert max(r["live"]) < 32 * 1024, r["live"]

"""The error codes a board shows as "E nn": the one table; and the wall board's timings.

A wall board shows its code on the message display (or the clock, or the
target, where a board has no message display); the remote on its display;
a board that cannot start on every chip it finds. ht16k33's set_code() draws
"E nn" on a chip (view.py, startup.py, app_remote.py).

code       name                   what
1x         ERROR_STUCK + x        button x stuck: held longer than stuck_ms; ignored until
                                  released (controller.py)
20         ERROR_CONFIG           config.json invalid: the last good configuration runs
                                  (config.py)
21         ERROR_BOARD            the board definition is missing or damaged: the wall board's
                                  runs; when that cannot be read either, E 21 on every HT16K33
                                  found on the wall board's buses (startup.py)
22         ERROR_CONFIG_DEFAULTS  config.json invalid and no good copy: the defaults run
23         ERROR_STORE            the saved match was damaged or went back: what could be read
                                  is back (for 10 s; startup.py, app.py)
24         ERROR_MEMORY           out of memory: an event, a report or the saved match could
                                  not be handled; the saved match stays on the flash (app.py)
25         ERROR_VOICE            the voice pack is damaged: a clip damaged (found at the start)
                                  or missing (when a call needs it) is skipped, the match goes
                                  on (for 10 s; speech_setup.py)
30         ERROR_SAFE_BUTTON      safe boot: the safe_boot_button held at power-on
31         ERROR_CRASH_LOOP       safe boot: three crash resets in a row
40         ERROR_NO_ACK           remote: the wall board did not answer (app_remote.py)
41         ERROR_NOT_PAIRED       remote: no radio.peer / radio.key in config.json
42         ERROR_BOOT_COUNTER     remote: its boot counter could not be saved: nothing is sent
43         ERROR_BOOT_LIMIT       remote: its boot counter reached 2**30-1: pair again
44         ERROR_RADIO_FLOOD      wall: radio frames from too many sender addresses; all but the
                                  paired remote's were forgotten (10 s; app.py)
70..77     ERROR_CHIP + addr & 7  the chip at 0x70..0x77 on bus 0 does not answer (view.py)
80..87     ERROR_CHIP + 10 + ...  the same on bus 1

The running wall board's timings are named here too (app.py's POLL_MS and the like).

The one home of these numbers: the modules that show a code or keep a timing import it
from here, and the build compiles it into each (host_tools/consts.py), so that no board
loads this module (each name a loaded module holds is interned for good: README, Memory on
the chip).
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


ERROR_STUCK = const(10)
ERROR_CONFIG = const(20)
ERROR_BOARD = const(21)
ERROR_CONFIG_DEFAULTS = const(22)
ERROR_STORE = const(23)
ERROR_MEMORY = const(24)
ERROR_VOICE = const(25)
ERROR_SAFE_BUTTON = const(30)
ERROR_CRASH_LOOP = const(31)
ERROR_NO_ACK = const(40)
ERROR_NOT_PAIRED = const(41)
ERROR_BOOT_COUNTER = const(42)
ERROR_BOOT_LIMIT = const(43)
ERROR_RADIO_FLOOD = const(44)
ERROR_CHIP = const(70)  # + 10 * bus + (address & 7)

# The running wall board's timings, in milliseconds.
POLL_MS = const(10)  # the buttons are polled this often
CLOCK_MS = const(100)  # the match clocks run, and the log's next chunk is made ahead of need
DISPLAY_MS = const(100)  # the clocks and marquees are redrawn
SAVE_MS = const(10)  # the save task looks for what changed
WDT_MS = const(5000)  # machine.WDT's timeout
FEED_MS = const(1000)  # the watchdog is fed this often while the tasks beat
HEALTHY_MS = const(30000)  # running this long clears the crash count
STORE_ERROR_MS = const(10000)  # E 23, E 24, E 25 and E 44 show this long
RADIO_BATCH = const(4)  # radio frames handled per step of the radio task, then the others run
RADIO_SENDERS = const(32)  # sender addresses ESP-NOW may keep (peers_table) before the wall stops reading

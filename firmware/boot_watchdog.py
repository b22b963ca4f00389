"""Feed the armed watchdog from a timer while the app's tasks are not running.

The ESP32's watchdog cannot be disarmed once armed. After Ctrl-C (mpremote, the
REPL) or a soft reset from mpremote's raw REPL (which runs boot.py, not main.py),
no task feeds it; this timer does, until the app starts again and stops it.
"""

import machine

_timer = None


def start(wdt=None, period_ms=1000):
    global _timer
    stop()
    if wdt is None:
        wdt = machine.WDT(timeout=5000)
    _timer = machine.Timer(0)
    _timer.init(period=period_ms, callback=lambda t: wdt.feed())


def stop():
    global _timer
    if _timer is not None:
        _timer.deinit()
        _timer = None

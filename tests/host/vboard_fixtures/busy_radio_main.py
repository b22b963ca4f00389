# main.py for tests/host/test_radio_flood.py: the firmware's own main.py (copied to the
# flash as carom_main.py), with every radio frame the wall handles costing COST_US of
# virtual time, as a slow CPU would: nothing else runs meanwhile (idle() lets time pass,
# frames arrive, buttons change, the watchdog counts, but no task is scheduled).

import _vb_core
import app

COST_US = 1500

_frame = app.Board.radio_frame


def radio_frame(self, msg):
    end = _vb_core.now_us + COST_US
    try:
        return _frame(self, msg)
    finally:
        while _vb_core.now_us < end:
            _vb_core.idle(end)


app.Board.radio_frame = radio_frame

import carom_main  # noqa: E402,F401

"""The times a wall board puts in its match reports (firmware/app.py's wall_clock), read on
CPython with a stand-in `time`: the ESP32 port's time.time() counts from 2000, the unix port's
(and the virtual board's) from 1970; reports carry seconds since 1970 either way."""

import calendar
import sys
import types

import pytest

from host_tools import firmware_path

MOMENT = calendar.timegm((2026, 12, 5, 20, 30, 0))  # a set clock: 5 Dec 2026, 20:30 UTC
SINCE_2000 = MOMENT - calendar.timegm((2000, 1, 1, 0, 0, 0))


class Clock:
    """time as a port has it: time() from its epoch, gmtime(0) that epoch's first second."""

    def __init__(self, now, epoch_year):
        self.now = now
        self.epoch_year = epoch_year

    def time(self):
        return self.now

    def gmtime(self, secs):
        assert secs == 0
        return (self.epoch_year, 1, 1, 0, 0, 0, 5 if self.epoch_year == 2000 else 3, 1)


@pytest.fixture
def app(monkeypatch):
    firmware_path()
    monkeypatch.setitem(sys.modules, "machine", types.ModuleType("machine"))  # app.py imports it; unused here
    monkeypatch.delitem(sys.modules, "app", raising=False)
    import app

    yield app
    sys.modules.pop("app", None)


@pytest.mark.parametrize("now, epoch_year", [(SINCE_2000, 2000), (MOMENT, 1970)], ids=["esp32", "unix"])
def test_a_set_clock_gives_seconds_since_1970(app, monkeypatch, now, epoch_year):
    monkeypatch.setattr(app, "time", Clock(now, epoch_year))
    assert app.wall_clock(0) == MOMENT
    assert app.wall_clock(-90) == MOMENT - 90  # a match restored 90 s after its last entry


@pytest.mark.parametrize("now, epoch_year", [(12, 2000), (946684812, 1970)], ids=["esp32", "unix"])
def test_a_clock_never_set_gives_no_time(app, monkeypatch, now, epoch_year):
    """A board without a set clock starts at 2000-01-01: no time rather than a wrong one."""
    monkeypatch.setattr(app, "time", Clock(now, epoch_year))
    assert app.wall_clock(0) is None

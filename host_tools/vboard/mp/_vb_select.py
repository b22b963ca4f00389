# Virtual `select` (installed as sys.modules["select"]). asyncio waits with
# poll().ipoll(ms); here that wait is an idle() on the virtual clock. Every
# poller also watches the control pipe, so a waiting board hears the host.

import select as _real_select

import _vb_core as core

POLLIN = _real_select.POLLIN
POLLOUT = _real_select.POLLOUT
POLLERR = _real_select.POLLERR
POLLHUP = _real_select.POLLHUP


class _Poll:
    def __init__(self):
        self._real = core.new_real_poller()

    def register(self, obj, mask=POLLIN | POLLOUT):
        self._real.register(obj, mask)

    def modify(self, obj, mask):
        self._real.modify(obj, mask)

    def unregister(self, obj):
        self._real.unregister(obj)

    def poll(self, timeout=-1):
        return self._wait(timeout)

    def ipoll(self, timeout=-1, flags=0):
        events = self._wait(timeout)
        if flags & 1:
            for obj, _ in events:
                self._real.modify(obj, 0)
        return events

    def _wait(self, timeout):
        events = core.user_events(self._real)
        if events:
            return events
        if timeout == 0:
            core.spin(core.SPIN_ZERO_POLL)
            return events
        if timeout > 0:
            # May return [] early after a soft interrupt: asyncio then re-checks
            # its queue and polls again, as after a timeout.
            return core.idle(core.now_us + timeout * 1000, self._real)
        # An endless poll returns only with events (asyncio relies on it).
        while True:
            events = core.idle(None, self._real)
            if events:
                return events


def poll():
    return _Poll()

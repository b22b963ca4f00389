# Virtual `select` (installed as sys.modules["select"]). asyncio waits with
# poll().ipoll(ms); here that wait is an idle() on the virtual clock.
#
# What can be registered:
# - emulated objects that answer `_vb_poll(mask)` with their ready events
#   without waiting: sockets (mp/_vb_socket.py: the real socket is polled with
#   a zero timeout, or not at all while the Wi-Fi link is down), ESPNow;
# - anything a real poll object takes (sys.stdin, files, pipes).
# The poller tells idle() whether it awaits a network socket (awaits_net) and
# can wait for those in real time (net_wait): that is how a board waiting on
# the network keeps virtual time in step with real time (see _vb_core).

import select as _real_select

import _vb_core as core

POLLIN = _real_select.POLLIN
POLLOUT = _real_select.POLLOUT
POLLERR = _real_select.POLLERR
POLLHUP = _real_select.POLLHUP
POLLPRI = getattr(_real_select, "POLLPRI", 2)

_ALWAYS = POLLERR | POLLHUP  # reported whether asked for or not, as poll(2) does


class _Poll:
    def __init__(self):
        self._entries = []  # [obj, mask, emulated]
        self._real = None  # a real poll object for plain objects

    def _find(self, obj):
        for e in self._entries:
            if e[0] is obj:
                return e
        return None

    def register(self, obj, mask=POLLIN | POLLOUT):
        e = self._find(obj)
        emulated = hasattr(obj, "_vb_poll")
        if e is None:
            self._entries.append([obj, mask, emulated])
        else:
            e[1] = mask
        if not emulated:
            if self._real is None:
                self._real = _real_select.poll()
            self._real.register(obj, mask)

    def modify(self, obj, mask):
        e = self._find(obj)
        if e is None:
            raise OSError(2)  # ENOENT, as the port raises
        e[1] = mask
        if not e[2]:
            self._real.modify(obj, mask)

    def unregister(self, obj):
        e = self._find(obj)
        if e is None:
            return
        self._entries.remove(e)
        if not e[2]:
            self._real.unregister(obj)

    def poll(self, timeout=-1):
        return self._wait(timeout)

    def ipoll(self, timeout=-1, flags=0):
        events = self._wait(timeout)
        if flags & 1:
            for obj, _ in events:
                self.modify(obj, 0)
        return events

    # ---- what idle() asks

    def ready(self):
        """(obj, events) of everything ready now, without waiting."""
        out = []
        plain = False
        for obj, mask, emulated in self._entries:
            if emulated:
                if mask:
                    ev = obj._vb_poll(mask)
                    if ev:
                        out.append((obj, ev))
            else:
                plain = True
        if plain:
            for obj, ev in self._real.poll(0):
                e = self._find(obj)
                if e is not None and e[1]:  # a one-shot entry (mask 0) stays quiet
                    out.append((obj, ev & (e[1] | _ALWAYS)))
        return out

    def awaits_net(self):
        for obj, mask, emulated in self._entries:
            if mask and emulated and obj._vb_net_fd(mask) is not None:
                return True
        return False

    def net_wait(self, ms):
        """Wait up to `ms` real milliseconds for an awaited socket; True if one is ready."""
        p = _real_select.poll()
        n = 0
        for obj, mask, emulated in self._entries:
            if mask and emulated:
                fd = obj._vb_net_fd(mask)
                if fd is not None:
                    p.register(fd, mask)
                    n += 1
        return bool(n and p.poll(ms))

    def _wait(self, timeout):
        events = self.ready()
        if events:
            return events
        if timeout == 0:
            core.spin(core.SPIN_ZERO_POLL)
            return events
        if timeout > 0:
            # May return [] early after a soft interrupt: asyncio then re-checks
            # its queue and polls again, as after a timeout.
            return core.idle(core.now_us + timeout * 1000, self)
        # An endless poll returns only with events (asyncio relies on it).
        while True:
            events = core.idle(None, self)
            if events:
                return events


def poll():
    return _Poll()

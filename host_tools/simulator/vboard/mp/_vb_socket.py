# Emulated `socket` (installed as sys.modules["socket"] and "usocket"): the
# port's real sockets, reached only while the board's Wi-Fi has an IP.
#
# Every address is "outside": 127.0.0.1 is the host machine, where the test's
# servers run (an echo server, mosquitto). An address the access point routes
# (AccessPoint(routes=...): the hall's broker for `carom sim --hall`) is looked
# up as the route's target: getaddrinfo() gives the target's address. The real socket is always
# non-blocking; a blocking call (or one with a timeout) waits in idle(), so
# timers and the watchdog keep running and virtual time keeps step with the
# real time the peer takes (see _vb_core: pacing).
#
# While the link is down (no access point, Wi-Fi not connected):
# - connect() raises OSError(EHOSTUNREACH) at once, as lwIP does without a
#   route; getaddrinfo() of a name raises OSError(-202) (a literal address
#   still parses);
# - a connection already open goes silent, as TCP over a lost link does:
#   nothing arrives (reads would block), and what is written is held and sent
#   when the link comes back (retransmitted). The peer notices nothing but
#   the silence (an MQTT broker's keepalive, for one).
# Errors carry the unix port's errno numbers (the `errno` module's), not the
# ESP32's newlib ones: compare with errno.EXXX, not with literal numbers.

import errno
import select as _real_select
import socket as _real

import _vb_core as core
import _vb_network as net

AF_INET = _real.AF_INET
AF_INET6 = _real.AF_INET6
SOCK_STREAM = _real.SOCK_STREAM
SOCK_DGRAM = _real.SOCK_DGRAM
SOCK_RAW = _real.SOCK_RAW
SOL_SOCKET = _real.SOL_SOCKET
SO_REUSEADDR = _real.SO_REUSEADDR
SO_BROADCAST = _real.SO_BROADCAST
SO_KEEPALIVE = _real.SO_KEEPALIVE
IP_ADD_MEMBERSHIP = _real.IP_ADD_MEMBERSHIP
IPPROTO_IP = 0
IPPROTO_TCP = 6
IPPROTO_UDP = 17
TCP_NODELAY = 1
MSG_DONTWAIT = _real.MSG_DONTWAIT
MSG_PEEK = _real.MSG_PEEK

_POLLIN = _real_select.POLLIN
_POLLOUT = _real_select.POLLOUT
_EAI_FAIL = -202  # what the ESP32 port raises when a name cannot be looked up

_open = []  # sockets not closed yet


def _tell_count():
    core.send("sock %d" % len(_open))


def _attempt(op, *args):
    """op(*args) on the non-blocking real socket; None where it would block."""
    try:
        return op(*args)
    except OSError as e:
        if e.errno != errno.EAGAIN:
            raise
        return None


def _literal(host):
    if isinstance(host, (bytes, bytearray)):
        host = host.decode()
    parts = host.split(".")
    if len(parts) != 4:
        return False
    for p in parts:
        if not p or not p.isdigit():
            return False
    return True


def getaddrinfo(host, port, af=0, type=0, proto=0, flags=0):
    if not net.link_up() and not _literal(host):
        raise OSError(_EAI_FAIL)
    if net.link_up():
        to = net.route(host, port)  # the access point's route for that address (carom sim --hall)
        if to is not None:
            host, port = to
    return _real.getaddrinfo(host, port, af, type, proto, flags)


def inet_pton(af, text):
    return _real.inet_pton(af, text)


def inet_ntop(af, data):
    return _real.inet_ntop(af, data)


def _link_changed(up):
    if up:
        for s in _open:
            if s._held:
                s._flush()


net.link_listeners.append(_link_changed)


class socket:
    def __init__(self, af=AF_INET, type=SOCK_STREAM, proto=0, _sock=None):
        self._s = _sock if _sock is not None else _real.socket(af, type, proto)
        self._s.setblocking(False)
        self._timeout = None  # None: blocking; 0: non-blocking; else seconds
        self._held = b""  # written while the link was down
        self._closed = False
        self._rp = _real_select.poll()
        self._rp.register(self._s, 0)
        _open.append(self)
        _tell_count()

    def __repr__(self):
        return "<socket>"

    # ---- what the virtual select asks

    def _vb_poll(self, mask):
        if self._closed:
            return 0
        if not net.link_up():
            return mask & _POLLOUT  # written bytes are held
        if self._held:
            self._flush()
            if self._held:
                mask &= ~_POLLOUT
        self._rp.modify(self._s, mask)
        ev = self._rp.poll(0)
        return ev[0][1] if ev else 0

    def _vb_net_fd(self, mask):
        if self._closed or not net.link_up():
            return None
        return self._s

    # ---- helpers

    def _flush(self):
        try:
            n = self._s.write(self._held)
        except OSError:
            return  # the connection broke: the next read or write says so
        if n:
            self._held = self._held[n:]

    def _wait(self, mask):
        """Wait (blocking mode, or up to the timeout) until `mask` is ready."""
        import _vb_select

        p = _vb_select._Poll()
        p.register(self, mask)
        t = self._timeout
        deadline = None if t is None else core.now_us + int(t * 1000000)
        while True:
            ev = p.ready()
            if ev:
                return ev[0][1]
            if deadline is not None and core.now_us >= deadline:
                raise OSError(errno.ETIMEDOUT)
            core.idle(deadline, p)

    def _check(self):
        if self._closed:
            raise OSError(errno.EBADF)

    def _read_op(self, op):
        """Run a read that returns None when nothing is there (stream style)."""
        self._check()
        while True:
            if net.link_up():
                r = _attempt(op)
                if r is not None:
                    return r
            if self._timeout == 0:
                return None
            self._wait(_POLLIN)

    def _write_op(self, data, op):
        self._check()
        while True:
            if not net.link_up():
                self._held += bytes(data)
                return len(data)
            if self._held:
                self._flush()
            if not self._held:
                n = _attempt(op, data)
                if n is not None:
                    return n
            if self._timeout == 0:
                return None
            self._wait(_POLLOUT)

    # ---- the socket API

    def setblocking(self, flag):
        self._timeout = None if flag else 0

    def settimeout(self, value):
        self._timeout = None if value is None else float(value) if value else 0

    def setsockopt(self, level, optname, value):
        if level == IPPROTO_TCP:
            return  # TCP_NODELAY: nothing to do on loopback
        self._s.setsockopt(level, optname, value)

    def bind(self, addr):
        self._check()
        self._s.bind(addr)

    def listen(self, backlog=2):
        self._check()
        self._s.listen(backlog)

    def accept(self):
        def op():
            return self._s.accept()

        r = self._read_op(op)
        if r is None:
            raise OSError(errno.EAGAIN)
        return socket(_sock=r[0]), r[1]

    def connect(self, addr):
        self._check()
        if not net.link_up():
            raise OSError(errno.EHOSTUNREACH)
        try:
            self._s.connect(addr)
            return
        except OSError as e:
            if e.errno != errno.EINPROGRESS or self._timeout == 0:
                raise
        self._wait(_POLLOUT)
        try:
            self._s.connect(addr)  # reports how the connection attempt ended
        except OSError as e:
            if e.errno != errno.EISCONN:
                raise

    def recv(self, bufsize, flags=0):
        r = self._read_op(lambda: self._s.recv(bufsize))
        if r is None:
            raise OSError(errno.EAGAIN)
        return r

    def recvfrom(self, bufsize):
        r = self._read_op(lambda: self._s.recvfrom(bufsize))
        if r is None:
            raise OSError(errno.EAGAIN)
        return r

    def read(self, size=-1):
        if size is None or size < 0:
            return self._read_op(lambda: self._s.read())
        return self._read_op(lambda: self._s.read(size))

    def readinto(self, buf, nbytes=-1):
        if nbytes is None or nbytes < 0:
            return self._read_op(lambda: self._s.readinto(buf))
        return self._read_op(lambda: self._s.readinto(buf, nbytes))

    def readline(self):
        return self._read_op(lambda: self._s.readline())

    def write(self, buf):
        return self._write_op(buf, self._s.write)

    def send(self, buf):
        n = self._write_op(buf, self._s.send)
        if n is None:
            raise OSError(errno.EAGAIN)
        return n

    def sendall(self, buf):
        mv = memoryview(buf)
        off = 0
        while off < len(mv):
            n = self._write_op(mv[off:], self._s.write)
            if n is None:
                raise OSError(errno.EAGAIN)
            off += n

    def sendto(self, buf, addr):
        self._check()
        if not net.link_up():
            raise OSError(errno.EHOSTUNREACH)
        return self._s.sendto(buf, addr)

    def makefile(self, mode="rb", buffering=0):
        return self

    def close(self):
        if self._closed:
            return
        self._closed = True
        try:
            self._rp.unregister(self._s)
        except (OSError, KeyError):
            pass
        self._s.close()
        if self in _open:
            _open.remove(self)
        _tell_count()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

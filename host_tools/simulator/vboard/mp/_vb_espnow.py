# Emulated `espnow` (installed as sys.modules["espnow"]): the ESP32 port's
# ESPNowBase (ports/esp32/modespnow.c) and its espnow.py wrapper, with frames
# carried by the host's radio hub (host_tools/simulator/vboard/radio.py).
#
# send() asks the host ("nt ..."), which answers with the radio's ack: the
# peer's interface is on, on this channel, and the hub did not lose the frame.
# Frames for this board come as "nrx" lines stamped with their arrival time
# and are put in the receive buffer when the virtual clock reaches it (a core
# timer); a full buffer drops them (rxbuf bytes, 13 bytes of header each, as
# the C ring buffer). Errors are the port's: OSError(-12389,
# "ESP_ERR_ESPNOW_NOT_INIT") and so on (ESP_ERR_ESPNOW_BASE is 0x3064); a
# message over 250 bytes is refused by esp_now_send() with
# OSError(-12390, "ESP_ERR_ESPNOW_ARG").

from micropython import const

import _vb_core as core
import _vb_network as net

MAX_DATA_LEN = const(250)
ADDR_LEN = const(6)
KEY_LEN = const(16)
MAX_TOTAL_PEER_NUM = const(20)
MAX_ENCRYPT_PEER_NUM = const(6)

_ERR_BASE = const(12388)
_NOT_INIT = const(1)
_ARG = const(2)
_FULL = const(4)
_NOT_FOUND = const(5)
_EXIST = const(7)
_IF = const(8)
_CHAN = const(9)
_ERR_NAMES = {
    1: "NOT_INIT",
    2: "ARG",
    3: "NO_MEM",
    4: "FULL",
    5: "NOT_FOUND",
    6: "INTERNAL",
    7: "EXIST",
    8: "IF",
    9: "CHAN",
}
_PKT_HEADER = const(13)  # magic, length, time_ms (4), rssi, peer (6)
_BROADCAST = b"\xff\xff\xff\xff\xff\xff"

_active = False
_rxbuf = 526  # config(rxbuf=...), used at the next active(True)
_capacity = 0
_used = 0
_timeout_ms = 300000
_buffer = []  # [src, data, rssi, ticks_ms]
_peers = []  # [mac, lmk, channel, ifidx, encrypt]
_pmk = b"PMK1234567890123"
_irq = None
_irq_arg = None
_tx_packets = 0
_tx_responses = 0
_tx_failures = 0
_rx_packets = 0
_rx_dropped = 0
peers_table = {}  # {mac: [rssi, time_ms]}, as ESPNow.peers_table


def _err(code):
    raise OSError(-(_ERR_BASE + code), "ESP_ERR_ESPNOW_" + _ERR_NAMES[code])


def _initialised():
    if not _active:
        _err(_NOT_INIT)


def _mac(mac):
    mac = bytes(mac)
    if len(mac) != 6:
        raise ValueError("invalid buffer length")
    return mac


def _find(mac):
    for p in _peers:
        if p[0] == mac:
            return p
    return None


def _unicast(mac):
    return not (mac[0] & 1)


def _arrive(src, dst, rssi, lmk, data):
    """A frame reached this board's radio (called from a core timer)."""
    global _used, _rx_packets, _rx_dropped
    if not _active:
        return  # the radio acknowledged it; nobody listens
    if lmk is not None:
        p = _find(src)
        if p is None or not p[4] or p[1].hex() != lmk:
            return  # encrypted with a key we do not share: dropped by the driver
    size = _PKT_HEADER + len(data)
    if size >= _capacity - _used - 1:
        _rx_dropped += 1
        return
    _used += size
    _buffer.append((src, data, rssi, _ticks()))
    _rx_packets += 1
    core.kick()
    if _irq is not None:
        _irq(_irq_arg)


core.radio_listener = _arrive


def _ticks():
    import _vb_time

    return _vb_time.ticks_ms()


class ESPNow:
    # Static buffers for alloc free receipt of messages with ESPNow.irecv().
    _data = [None, bytearray(MAX_DATA_LEN)]
    _none_tuple = (None, None)

    def __init__(self):
        pass

    peers_table = peers_table

    def active(self, flag=None):
        global _active, _capacity, _used
        if flag is not None:
            if flag and not _active:
                _active = True
                _capacity = _rxbuf
                _used = 0
                del _buffer[:]
            elif not flag and _active:
                _active = False
                del _buffer[:]
                del _peers[:]
            net.espnow_active = _active
            net._report()
        return _active

    def init(self):
        self.active(True)

    def deinit(self):
        self.active(False)

    def config(self, *args, **kw):
        global _rxbuf, _timeout_ms
        for key, value in kw.items():
            if key == "rxbuf":
                if value >= 0:
                    _rxbuf = int(value)
            elif key == "timeout_ms":
                _timeout_ms = int(value)
            elif key in ("rate", "pm"):
                pass
            else:
                raise TypeError("unexpected keyword argument '%s'" % key)
        if not args:
            return None
        if args[0] == "rxbuf":
            return _rxbuf
        if args[0] == "timeout_ms":
            return _timeout_ms
        raise ValueError("unknown config param")

    def irq(self, callback, arg=None):
        global _irq, _irq_arg
        if callback is not None and not callable(callback):
            raise ValueError("invalid handler")
        _irq = callback
        _irq_arg = self if arg is None else arg

    def stats(self):
        return (_tx_packets, _tx_responses, _tx_failures, _rx_packets, _rx_dropped)

    def any(self):
        _initialised()
        return bool(_buffer)

    def recvinto(self, data, timeout_ms=None):
        global _used
        _initialised()
        if not isinstance(data, list) or len(data) < 2:
            raise ValueError("ESPNow.recvinto(): Invalid argument")
        t = _timeout_ms if timeout_ms is None else int(timeout_ms)
        if not _buffer and t != 0:
            deadline = None if t < 0 else core.now_us + t * 1000
            while not _buffer:
                if deadline is not None and core.now_us >= deadline:
                    break
                core.idle(deadline)
        if not _buffer:
            return 0
        src, msg, rssi, when = _buffer.pop(0)
        _used -= _PKT_HEADER + len(msg)
        entry = peers_table.get(src)
        if entry is None:
            entry = [rssi, when]
            peers_table[src] = entry
        else:
            entry[0] = rssi
            entry[1] = when
        for key in peers_table:  # the key object, as the C code returns it
            if key == src:
                data[0] = key
                break
        buf = data[1]
        if isinstance(buf, bytearray):
            buf[:] = msg
        if len(data) >= 4:
            data[2] = rssi
            data[3] = when
        return len(msg)

    def irecv(self, timeout_ms=None):
        n = self.recvinto(self._data, timeout_ms)
        return self._data if n else self._none_tuple

    def recv(self, timeout_ms=None):
        n = self.recvinto(self._data, timeout_ms)
        return [bytes(x) for x in self._data] if n else self._none_tuple

    def __iter__(self):
        return self

    def __next__(self):
        return self.irecv()

    def send(self, mac, msg=None, sync=None):
        global _tx_packets, _tx_responses, _tx_failures
        _initialised()
        if msg is None:  # send(msg): to every peer
            msg, mac = mac, None
            sync = True
        sync = sync is None or bool(sync)
        if isinstance(msg, str):
            msg = msg.encode()
        msg = bytes(msg)
        if mac:
            targets = [_find(_mac(mac))]
            if targets[0] is None:
                _err(_NOT_FOUND)
        else:
            targets = [p for p in _peers if _unicast(p[0])]
            if not targets:
                _err(_NOT_FOUND)
        if len(msg) > MAX_DATA_LEN:
            _err(_ARG)
        failures = _tx_failures
        for p in targets:
            ifidx = p[3]
            if not (net._sta_active if ifidx == 0 else net._ap_active):
                _err(_IF)
            if p[2] and p[2] != net.channel():
                _err(_CHAN)
            src = net._sta_mac if ifidx == 0 else net._ap_mac
            lmk = p[1].hex() if p[4] and _unicast(p[0]) else "-"
            reply = core.request(
                "nt %d %d %s %s %s %s" % (core.now_us, ifidx, src.hex(), p[0].hex(), lmk, msg.hex() if msg else "-"),
                "NT",
            )
            _tx_packets += 1
            _tx_responses += 1
            if reply != "NT 1":
                _tx_failures += 1
        return not (sync and _tx_failures != failures)

    def set_pmk(self, pmk):
        global _pmk
        _pmk = _key(pmk)

    def add_peer(self, mac, lmk=None, channel=None, ifidx=None, encrypt=None):
        _initialised()
        mac = _mac(mac)
        peer = [mac, b"\x00" * 16, 0, 0, False]
        _update(peer, lmk, channel, ifidx, encrypt)
        if _find(mac) is not None:
            _err(_EXIST)
        if len(_peers) >= MAX_TOTAL_PEER_NUM:
            _err(_FULL)
        if peer[4] and sum(1 for p in _peers if p[4]) >= MAX_ENCRYPT_PEER_NUM:
            _err(_FULL)
        _peers.append(peer)

    def mod_peer(self, mac, lmk=None, channel=None, ifidx=None, encrypt=None):
        _initialised()
        peer = _find(_mac(mac))
        if peer is None:
            _err(_NOT_FOUND)
        _update(peer, lmk, channel, ifidx, encrypt)

    def del_peer(self, mac):
        _initialised()
        peer = _find(_mac(mac))
        if peer is None:
            _err(_NOT_FOUND)
        _peers.remove(peer)

    def get_peer(self, mac):
        _initialised()
        peer = _find(_mac(mac))
        if peer is None:
            _err(_NOT_FOUND)
        return tuple(peer)

    def get_peers(self):
        _initialised()
        return tuple(tuple(p) for p in _peers if _unicast(p[0]))

    def peer_count(self):
        _initialised()
        return (len(_peers), sum(1 for p in _peers if p[4]))

    # ---- for asyncio (aioespnow) and select.poll

    def _vb_poll(self, mask):
        if not _active:
            return 0
        return (mask & 1 if _buffer else 0) | (mask & 4)  # POLLIN, POLLOUT

    def _vb_net_fd(self, mask):
        return None


def _key(k):
    k = bytes(k)
    if len(k) != KEY_LEN:
        raise ValueError("invalid buffer length")
    return k


def _update(peer, lmk, channel, ifidx, encrypt):
    if lmk is not None:
        peer[4] = bool(lmk)
        if peer[4]:
            peer[1] = _key(lmk)
    if channel is not None:
        channel = int(channel)
        if not 0 <= channel <= 14:
            raise ValueError("invalid channel")
        peer[2] = channel
    if ifidx is not None:
        ifidx = int(ifidx)
        if ifidx not in (0, 1):
            raise ValueError("invalid ifidx")
        peer[3] = ifidx
    if encrypt is not None:
        peer[4] = bool(encrypt)

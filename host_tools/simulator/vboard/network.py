"""A virtual board's radio, host side: its MAC addresses, its access point
(wifi.py), its ESP-NOW frames through a RadioHub (radio.py). The board's
side: mp/_vb_network.py, mp/_vb_socket.py, mp/_vb_espnow.py."""

import collections
import json
import weakref

from .drive import locked
from .errors import BoardError
from .radio import mac_text
from .wifi import AccessPoint

_MAC_PREFIX = b"\x24\x0a\xc4\x00\x00"  # an Espressif OUI
_live_boards = weakref.WeakSet()  # open boards: their default MACs differ


def _free_mac():
    """The first default MAC no open board has: 24:0a:c4:00:00:01, then :05, :09..."""
    used = set()
    for b in list(_live_boards):
        used.add(b.unique_id)
    n = 1
    while n < 256:
        mac = _MAC_PREFIX + bytes((n,))
        if mac not in used:
            return mac
        n += 4
    raise BoardError("no free default MAC: give unique_id")


class BoardNetwork:
    """The VirtualBoard's MACs, Wi-Fi and ESP-NOW."""

    def _init_identity(self, unique_id):
        self.unique_id = _free_mac() if unique_id is None else bytes(unique_id)
        if len(self.unique_id) != 6:
            raise BoardError("unique_id: 6 bytes")
        _live_boards.add(self)

    def _init_network(self):
        self._proc_start_us = 0
        self._radio = None  # the radio's state as the firmware set it (None: no process)
        self._radio_inbox = collections.deque()  # (t_us, src, dst, rssi, lmk, data, RadioFrame) to deliver
        self._hub = None
        self.radio_sent = []  # (t_ms, dst, data, acked) of every ESP-NOW frame this board sent
        self._link = (False, None)  # (connected, ip)
        self._net_waiting = False
        self._next_us = None  # when the firmware runs next by itself (None: never, or unknown)
        self.open_sockets = 0

    def _join(self, wifi, radio):
        """Attach to the access point and the hub."""
        self._ap = AccessPoint.of(wifi)
        if self._ap is not None:
            self._ap.attach(self)
        if radio is not None:
            radio.add(self)

    def _leave(self):
        """Detach from the access point and the hub (close())."""
        _live_boards.discard(self)
        if self._ap is not None:
            self._ap.detach(self)
        if self._hub is not None:
            self._hub.remove(self)

    # ---- ESP-NOW frames

    def _radio_send(self, parts):
        """An ESP-NOW frame from the firmware ("nt"); returns the radio's ack."""
        t, src, dst = int(parts[1]), bytes.fromhex(parts[3]), bytes.fromhex(parts[4])
        lmk = None if parts[5] == "-" else parts[5]
        data = b"" if parts[6] == "-" else bytes.fromhex(parts[6])
        hub = self._hub
        acked = hub.transmit(self, t, src, dst, lmk, data) if hub is not None else bool(dst[0] & 1)
        self.radio_sent.append((t / 1000, dst, data, acked))
        return acked

    def _radio_lines(self):
        """The frames waiting for this board, as "nrx" lines to send before a command."""
        out = []
        inbox = self._radio_inbox
        while inbox:
            at, src, dst, rssi, lmk, data, frame = inbox.popleft()
            if at < self._proc_start_us - 1000 and frame.kind == "sent":
                frame.lost.append(self.name)  # sent before this process started: the chip was off
                continue
            t = max(at, self._now_us)
            frame.deliveries.append((self.name, t / 1000))
            out.append("nrx %d %s %s %d %s %s\n" % (t, src.hex(), dst.hex(), rssi, lmk or "-", data.hex() or "-"))
        return "".join(out)

    def _drop_inbox(self):
        while self._radio_inbox:
            frame = self._radio_inbox.popleft()[6]
            frame.lost.append(self.name)

    # ---- the board as its RadioHub sees it (radio.py): the hub's side of the board

    @property
    def hub(self):
        """The RadioHub carrying this board's ESP-NOW frames (None: none)."""
        return self._hub

    @hub.setter
    def hub(self, hub):
        """Set by RadioHub.add() and remove() only (the hub's side of the board):
        to put a board on a hub, hub.add(board) or VirtualBoard(..., radio=hub)."""
        self._hub = hub

    def hears(self, dst, channel):
        """Whether this board's radio takes a frame to `dst` on `channel` now
        (asked by the hub, for each frame sent)."""
        r = self._radio
        if self._state != "on" or r is None or r["channel"] != channel:
            return False
        if dst[0] & 1:  # broadcast or multicast
            return r["sta"] or r["ap"]
        return (r["sta"] and dst == r["sta_mac"]) or (r["ap"] and dst == r["ap_mac"])

    def receive_frame(self, at_us, src, dst, rssi, lmk, data, frame):
        """The hub hands this board a frame (`frame`: its RadioFrame; lmk: the key
        as hex, or None): the firmware's ESP-NOW gets it at virtual time `at_us`,
        or at once if that is past, when the host next talks to the board."""
        self._radio_inbox.append((at_us, src, dst, rssi, lmk, data, frame))

    def next_event_us(self, t_us, slice_us):
        """The hub's next step for this board (virtual µs), None for none: the
        next instant the firmware runs by itself (`slice_us` after `t_us` while it
        waits on a network socket), its timed wake-up from deep sleep, or the
        arrival of a frame waiting for it, whichever comes first."""
        if self._state == "on":
            cand = t_us + slice_us if self._net_waiting else self._next_us
        elif self._state == "asleep":
            cand = self._wake_us
        else:
            cand = None
        for item in list(self._radio_inbox):
            if cand is None or item[0] < cand:
                cand = item[0]
        return cand

    @locked
    def advance_to(self, t_us):
        """Run until virtual time `t_us` (the hub's steps, see RadioHub.advance);
        a board that is off or asleep loses the frames waiting for it."""
        if t_us > self._now_us:
            self._run_until(t_us)
        if self._state != "on":
            self._drop_inbox()

    # ---- what the firmware set

    @property
    def mac(self):
        """The Wi-Fi station's MAC (= unique_id, the base MAC), as the firmware
        reports it (config(mac=...) may change it)."""
        r = self._radio
        return r["sta_mac"] if r is not None else self.unique_id

    @property
    def ap_mac(self):
        r = self._radio
        return r["ap_mac"] if r is not None else self.unique_id[:5] + bytes(((self.unique_id[5] + 1) & 0xFF,))

    @property
    def mac_text(self):
        """ "24:0a:c4:00:00:01": the form config.json's radio.peer takes."""
        return mac_text(self.mac)

    @property
    def radio_state(self):
        """{"sta", "ap": interface active, "channel", "espnow": active, "sta_mac", "ap_mac"},
        None while no firmware runs."""
        return self._radio

    # ---- Wi-Fi

    @property
    def access_point(self):
        return self._ap

    @property
    def wifi_connected(self):
        """The station has an IP (what sta.isconnected() says)."""
        return self._link[0]

    @property
    def ip(self):
        return self._link[1]

    @property
    def waiting_on_network(self):
        """At the last stop of its clock the firmware was waiting on a network
        socket (run_realtime() keeps such a board in step with real time)."""
        return self._net_waiting

    def set_wifi(self, wifi):
        """Another access point (AccessPoint, dict, or None: no network)."""
        with self._lock:
            if self._ap is not None:
                self._ap.detach(self)
            self._ap = AccessPoint.of(wifi)
            if self._ap is not None:
                self._ap.attach(self)
        self.wifi_changed()

    def wifi_down(self):
        """Take the access point down (every board on it loses its link)."""
        self._require_ap().down()

    def wifi_up(self):
        self._require_ap().up()

    def _require_ap(self):
        if self._ap is None:
            raise BoardError("the board has no access point (VirtualBoard(..., wifi=...))")
        return self._ap

    @locked
    def wifi_changed(self):
        """The board's access point went up or down, or it has another one: the
        running firmware is told (the access point's side of the board, called by
        AccessPoint.up()/down() for each board attached to it)."""
        if self._state == "on":
            cfg = self._ap.config() if self._ap is not None else None
            self._command("wifi", json.dumps(cfg).encode().hex() if cfg is not None else "-")

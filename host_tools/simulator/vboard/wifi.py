"""The Wi-Fi access point virtual boards connect to (host side).

    ap = AccessPoint("hall", "secret123", channel=6)
    wall = VirtualBoard(flash, board=wall_def, wifi=ap)     # or wifi={"ssid": ..., "password": ...}
    ap.down()          # every board on it loses its link (isconnected() False, sockets go silent)
    ap.up()            # they connect again (the firmware's connect() keeps trying, as on an ESP32)

    # The hall's network: what the boards' config.json calls 192.168.1.10:1883 is the broker on this machine
    hall = AccessPoint("hall", "", routes={("192.168.1.10", 1883): ("127.0.0.1", 18830)})

What the board does with it is in mp/_vb_network.py (connect timing, status
codes) and mp/_vb_socket.py (sockets while the link is down).
"""

import threading
import weakref


class AccessPoint:
    """An access point: SSID, password ("" for an open network), channel (the
    ESP-NOW radio of a connected board follows it), whether it is up, how long
    a connection takes (virtual seconds, scan + association + DHCP), the
    subnet the boards get addresses in (x.y.z.100+), the RSSI boards see.

    routes: {(host, port): (host, port)}: where a connection from a board goes
    when it looks up that address (a name or a literal address, as the board's
    config.json gives it): the first is the address on the hall's network, the
    second a real one on this machine (`carom sim --hall`: the broker the
    boards' MQTT client reaches). Other addresses are reached as they are."""

    def __init__(self, ssid, password="", channel=1, up=True, connect_s=1.5, subnet="192.168.1", rssi=-55, routes=None):
        if not 1 <= int(channel) <= 14:
            raise ValueError("a 2.4 GHz channel is 1..14")
        self.routes = {}
        for (host, port), (to_host, to_port) in (routes or {}).items():
            for h, p in ((host, port), (to_host, to_port)):
                if not isinstance(h, str) or not h or not isinstance(p, int) or not 1 <= p <= 65535:
                    raise ValueError("a route is (host, port) -> (host, port), port 1..65535: not %r" % ((h, p),))
            self.routes[(host, port)] = (to_host, to_port)
        self.ssid = ssid
        self.password = password or ""
        self.channel = int(channel)
        self.connect_s = float(connect_s)
        self.subnet = subnet
        self.rssi = int(rssi)
        self._up = bool(up)
        self._boards = weakref.WeakSet()
        self._lock = threading.Lock()

    @classmethod
    def of(cls, spec):
        """An AccessPoint from what VirtualBoard(wifi=...) takes: one, a dict, or None."""
        if spec is None or isinstance(spec, AccessPoint):
            return spec
        if isinstance(spec, dict):
            return cls(**spec)
        raise TypeError("wifi: an AccessPoint or a dict of its arguments, not %r" % (spec,))

    def __repr__(self):
        return "AccessPoint(%r, channel=%d, %s)" % (self.ssid, self.channel, "up" if self._up else "down")

    @property
    def is_up(self):
        return self._up

    def config(self):
        """What the board is told (JSON-able)."""
        return {
            "ssid": self.ssid,
            "password": self.password,
            "channel": self.channel,
            "up": self._up,
            "connect_ms": int(self.connect_s * 1000),
            "subnet": self.subnet,
            "rssi": self.rssi,
            "routes": [[h, p, th, tp] for (h, p), (th, tp) in sorted(self.routes.items())],
        }

    def down(self):
        """Switch the access point off: connected boards lose their link at once."""
        self._set(False)

    def up(self):
        """Switch it on again: boards still trying to connect get in."""
        self._set(True)

    def _set(self, up):
        with self._lock:
            self._up = up
            boards = list(self._boards)
        for b in boards:
            b.wifi_changed()

    def attach(self, board):
        """A board joins this access point (the board's side: VirtualBoard(wifi=...),
        set_wifi()); up() and down() then call its wifi_changed()."""
        with self._lock:
            self._boards.add(board)

    def detach(self, board):
        """A board leaves this access point (set_wifi(), close())."""
        with self._lock:
            self._boards.discard(board)

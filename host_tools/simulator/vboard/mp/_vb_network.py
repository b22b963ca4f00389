# Emulated `network` (installed as sys.modules["network"]): the ESP32 port's
# WLAN (ports/esp32/network_wlan.c), on the virtual clock.
#
# The access point is the host's: its SSID, password, channel and whether it
# is up come in the boot configuration ("wifi") and in "wifi" commands
# (VirtualBoard.wifi_down() / wifi_up()). A connect() succeeds connect_ms of
# virtual time later if the access point is up with that SSID and password;
# otherwise it fails (NO_AP_FOUND after 2 s, AUTH_FAIL after 1 s) and, as on
# the ESP32, tries again for as long as connect was asked for (`reconnects`).
# The access point going down drops the link at once (reason BEACON_TIMEOUT).
#
# MAC addresses as on an ESP32: machine.unique_id() is the base MAC, the
# station's MAC; the soft AP's is the base MAC + 1 (last byte).
#
# The radio's state (interfaces active, channel, ESP-NOW on, MACs) is told to
# the host ("radio"), which routes ESP-NOW frames by it; link changes
# ("link") tell it and wake the sockets (mp/_vb_socket.py).

from micropython import const

import _vb_core as core

STA_IF = const(0)
AP_IF = const(1)

STAT_IDLE = const(1000)
STAT_CONNECTING = const(1001)
STAT_GOT_IP = const(1010)
STAT_BEACON_TIMEOUT = const(200)
STAT_NO_AP_FOUND = const(201)
STAT_WRONG_PASSWORD = const(202)
STAT_ASSOC_FAIL = const(203)
STAT_HANDSHAKE_TIMEOUT = const(204)
_REASON_ASSOC_LEAVE = const(8)

AUTH_OPEN = const(0)
AUTH_WEP = const(1)
AUTH_WPA_PSK = const(2)
AUTH_WPA2_PSK = const(3)
AUTH_WPA_WPA2_PSK = const(4)
AUTH_WPA2_ENTERPRISE = const(5)
AUTH_WPA3_PSK = const(6)
AUTH_WPA2_WPA3_PSK = const(7)
AUTH_WAPI_PSK = const(8)
AUTH_OWE = const(9)
AUTH_MAX = const(10)

MODE_11B = const(1)
MODE_11G = const(2)
MODE_11N = const(4)
MODE_LR = const(8)

PHY_LAN8710 = const(0)

_NO_AP_MS = const(2000)  # a scan that finds nothing
_AUTH_FAIL_MS = const(1000)

_ap = None  # the host's access point: {"ssid", "password", "channel", "up", "connect_ms", "subnet"}
_sta_active = False
_ap_active = False
_requested = False  # connect() asked for, not disconnect()ed: keep trying
_connected = False  # got an IP
_reason = 0  # why the last attempt failed / the link was lost
_conf_reconnects = 0  # 0: for ever (as conf_wifi_sta_reconnects)
_attempts = 0  # failed attempts since connect() (wifi_sta_reconnects)
_ssid = ""
_password = ""
_channel = 1  # the radio's channel when not connected (config(channel=...))
_sta_mac = b"\x24\x0a\xc4\x00\x00\x01"
_ap_mac = b"\x24\x0a\xc4\x00\x00\x02"
_ap_ssid = ""
_ap_password = ""
_ap_authmode = AUTH_OPEN
_ap_hidden = False
_hostname = "esp32"
_static = None  # ifconfig((ip, mask, gw, dns)) set by the firmware
_txpower = 20.0
_pm = 1
_reported = None
espnow_active = False  # set by the espnow module
link_listeners = []  # called with (up) when the station gets or loses its IP


class _Attempt:
    """The pending outcome of a connection attempt: a core timer."""

    def __init__(self):
        self.deadline = 0
        self.outcome = 0

    def start(self, delay_ms, outcome):
        self.deadline = core.now_us + delay_ms * 1000
        self.outcome = outcome
        if self not in core.timers:
            core.timers.append(self)

    def cancel(self):
        if self in core.timers:
            core.timers.remove(self)

    def fire(self):
        self.cancel()
        _attempt_done(self.outcome)


_attempt = _Attempt()


def setup(cfg, unique_id):
    global _ap, _sta_mac, _ap_mac
    _ap = cfg.get("wifi")
    _sta_mac = bytes(unique_id)
    _ap_mac = _sta_mac[:5] + bytes(((_sta_mac[5] + 1) & 0xFF,))
    core.net_listener = _host_changed
    _report()


def _host_changed(hexcfg):
    """The host changed the access point ("wifi" command)."""
    global _ap
    import json

    _ap = None if hexcfg is None else json.loads(bytes.fromhex(hexcfg).decode())
    if _connected and not _ap_ok():
        _lose(STAT_BEACON_TIMEOUT)
    elif _requested and not _connected and _sta_active:
        # The next attempt sees the new access point; one in progress keeps its outcome.
        if _attempt not in core.timers:
            _try()
    core.kick()


def _ap_ok():
    return _ap is not None and _ap.get("up", True)


def _try():
    """Start a connection attempt (esp_wifi_connect)."""
    ap = _ap
    if not _ap_ok() or ap.get("ssid", "") != _ssid:
        _attempt.start(_NO_AP_MS, STAT_NO_AP_FOUND)
    elif (ap.get("password") or "") != _password:
        _attempt.start(_AUTH_FAIL_MS, STAT_WRONG_PASSWORD)
    else:
        _attempt.start(int(ap.get("connect_ms", 1500)), STAT_GOT_IP)


def _attempt_done(outcome):
    global _connected, _reason
    if outcome == STAT_GOT_IP and _ap_ok() and _ap.get("ssid", "") == _ssid:
        _connected = True
        _reason = 0
        _report()
        core.send("link %d 1 %s" % (core.now_us, _ip()))
        _tell_links(True)
        return
    _reason = outcome if outcome != STAT_GOT_IP else STAT_NO_AP_FOUND
    _retry()


def _retry():
    """After a disconnection (a failed attempt, a lost link): try again, as
    network_wlan.c's event handler does, unless `reconnects` are used up."""
    global _attempts
    if not (_requested and _sta_active):
        return
    if _conf_reconnects:
        _attempts += 1
        if _attempts >= _conf_reconnects:
            return
    _try()


def _lose(reason):
    global _connected, _reason
    was = _connected
    _connected = False
    _reason = reason
    if was:
        _report()
        core.send("link %d 0 -" % core.now_us)
        _tell_links(False)
    _retry()


def _tell_links(up):
    for f in link_listeners:
        f(up)
    core.kick()


def link_up():
    """The station has an IP: sockets reach the host's network."""
    return _connected


def route(host, port):
    """Where the access point sends a connection to (host, port): the (host, port) of its
    route for that address (wifi.py: AccessPoint(routes=...)), or None (reached as it is)."""
    if isinstance(host, (bytes, bytearray)):
        host = host.decode()
    for r in (_ap or {}).get("routes") or ():
        if r[0] == host and r[1] == int(port):
            return r[2], r[3]
    return None


def channel():
    """The radio's channel: the access point's while connected, else the one configured."""
    if _connected and _ap is not None:
        return int(_ap.get("channel", 1))
    return _channel


def _ip():
    if _static is not None:
        return _static[0]
    subnet = (_ap or {}).get("subnet", "192.168.1")
    return "%s.%d" % (subnet, 100 + _sta_mac[5] % 150)


def _report():
    """Tell the host the radio's state when it changed."""
    global _reported
    state = "radio %d %d %d %d %s %s" % (
        _sta_active,
        _ap_active,
        channel(),
        espnow_active,
        _sta_mac.hex(),
        _ap_mac.hex(),
    )
    if state != _reported:
        _reported = state
        core.send(state)


def _not_started():
    raise OSError("Wifi Not Started")


_wlan_objs = []


class WLAN:
    IF_STA = const(0)
    IF_AP = const(1)
    PM_NONE = const(0)
    PM_PERFORMANCE = const(1)
    PM_POWERSAVE = const(2)
    SEC_OPEN = const(0)
    SEC_WEP = const(1)
    SEC_WPA = const(2)
    SEC_WPA2 = const(3)
    SEC_WPA_WPA2 = const(4)
    SEC_WPA2_ENT = const(5)
    SEC_WPA3 = const(6)
    SEC_WPA2_WPA3 = const(7)

    def __new__(cls, interface_id=STA_IF):  # static on the ESP32 (wlan_sta_obj, wlan_ap_obj)
        if interface_id not in (STA_IF, AP_IF):
            raise ValueError("invalid WLAN interface identifier")
        if not _wlan_objs:
            for i in (STA_IF, AP_IF):
                obj = object.__new__(WLAN)
                obj._if = i
                _wlan_objs.append(obj)
        return _wlan_objs[interface_id]

    def __init__(self, interface_id=STA_IF):
        pass

    def __repr__(self):
        return "<WLAN %s>" % ("STA" if self._if == STA_IF else "AP")

    def active(self, is_active=None):
        global _sta_active, _ap_active, _requested
        if is_active is not None:
            on = bool(is_active)
            if self._if == STA_IF:
                if _sta_active and not on:
                    _attempt.cancel()
                    _requested = False
                    if _connected:
                        _lose(_REASON_ASSOC_LEAVE)
                _sta_active = on
            else:
                _ap_active = on
            _report()
        return _sta_active if self._if == STA_IF else _ap_active

    def connect(self, ssid=None, key=None, *, bssid=None):
        global _ssid, _password, _requested, _attempts
        if not (_sta_active or _ap_active):
            _not_started()
        if self._if != STA_IF and not _sta_active:
            raise OSError("Wifi Invalid Mode")
        if ssid is not None:
            _ssid = ssid.decode() if isinstance(ssid, (bytes, bytearray)) else str(ssid)
            _password = ""
        if key is not None:
            _password = key.decode() if isinstance(key, (bytes, bytearray)) else str(key)
        if bssid is not None and len(bssid) != 6:
            raise ValueError
        _attempt.cancel()
        if _connected:
            _requested = False
            _lose(_REASON_ASSOC_LEAVE)  # esp_wifi_connect while connected: associates again
        _attempts = 0
        _requested = True
        _try()

    def disconnect(self):
        global _requested, _reason
        _requested = False
        _attempt.cancel()
        if _connected:
            _lose(_REASON_ASSOC_LEAVE)
        else:
            _reason = _REASON_ASSOC_LEAVE

    def isconnected(self):
        if self._if == STA_IF:
            return _connected
        return False  # no station ever joins the board's own access point here

    def status(self, param=None):
        if param is None:
            if self._if != STA_IF:
                return None
            if _connected:
                return STAT_GOT_IP
            if _requested and (_conf_reconnects == 0 or _attempts < _conf_reconnects):
                return STAT_CONNECTING
            if _reason == 0:
                return STAT_IDLE
            return _reason
        if param == "rssi":
            if self._if != STA_IF:
                raise OSError("STA required")
            if not _connected:
                raise OSError("Wifi Not Connected")
            return int((_ap or {}).get("rssi", -55))
        if param == "stations":
            if self._if != AP_IF:
                raise OSError("AP required")
            return []
        raise ValueError("unknown status param")

    def scan(self):
        if not _sta_active:
            raise OSError("STA must be active")
        if not _ap_ok():
            return []
        ap = _ap
        bssid = bytes.fromhex(ap.get("bssid", "30aea4000001"))
        auth = AUTH_WPA2_PSK if ap.get("password") else AUTH_OPEN
        return [(ap.get("ssid", "").encode(), bssid, int(ap.get("channel", 1)), int(ap.get("rssi", -55)), auth, False)]

    def config(self, *args, **kw):
        if args and kw:
            raise TypeError("either pos or kw args are allowed")
        if kw:
            for key, value in kw.items():
                self._config_set(key, value)
            _report()
            return None
        if len(args) != 1:
            raise TypeError("can query only one param")
        return self._config_get(args[0])

    def _config_set(self, key, value):
        """config(key=value): one parameter set."""
        global _channel, _ap_ssid, _ap_password, _ap_authmode, _ap_hidden
        global _hostname, _conf_reconnects, _txpower, _pm
        if key == "mac":
            self._set_mac(value)
        elif key == "channel":
            if not (_sta_active or _ap_active):
                _not_started()
            if not 1 <= int(value) <= 14:
                raise OSError("Wifi Invalid Argument")
            _channel = int(value)
        elif key in ("ssid", "essid"):
            self._require(AP_IF)
            _ap_ssid = value.decode() if isinstance(value, (bytes, bytearray)) else str(value)
        elif key in ("key", "password"):
            self._require(AP_IF)
            _ap_password = str(value)
        elif key in ("security", "authmode"):
            self._require(AP_IF)
            _ap_authmode = int(value)
        elif key == "hidden":
            self._require(AP_IF)
            _ap_hidden = bool(value)
        elif key in ("dhcp_hostname", "hostname"):
            _hostname = str(value)
        elif key == "reconnects":
            self._require(STA_IF)
            _conf_reconnects = 0 if int(value) == -1 else int(value) + 1
        elif key == "txpower":
            _txpower = float(value)
        elif key in ("pm", "ps_mode"):
            _pm = int(value)
        elif key in ("protocol", "max_clients"):
            pass
        else:
            raise ValueError("unknown config param")

    def _set_mac(self, value):
        """config(mac=...): this interface's MAC address (6 bytes)."""
        global _sta_mac, _ap_mac
        if len(value) != 6:
            raise ValueError("invalid buffer length")
        if self._if == STA_IF:
            _sta_mac = bytes(value)
        else:
            _ap_mac = bytes(value)

    def _config_get(self, key):
        """config(key): one parameter's value."""
        if key == "mac":
            return _sta_mac if self._if == STA_IF else _ap_mac
        if key in ("ssid", "essid"):
            return _ssid if self._if == STA_IF else _ap_ssid
        if key == "channel":
            return channel()
        if key in ("dhcp_hostname", "hostname"):
            return _hostname
        if key == "reconnects":
            self._require(STA_IF)
            return _conf_reconnects - 1
        if key == "txpower":
            return _txpower
        if key in ("pm", "ps_mode"):
            return _pm
        if key in ("security", "authmode"):
            self._require(AP_IF)
            return _ap_authmode
        if key == "hidden":
            self._require(AP_IF)
            return _ap_hidden
        raise ValueError("unknown config param")

    def _require(self, if_no):
        if self._if != if_no:
            raise OSError("STA required" if if_no == STA_IF else "AP required")

    def ifconfig(self, conf=None):
        global _static
        if conf is not None:
            if len(conf) != 4:
                raise ValueError
            _static = tuple(str(x) for x in conf)
            return None
        if self._if == AP_IF:
            return ("192.168.4.1", "255.255.255.0", "192.168.4.1", "0.0.0.0") if _ap_active else ("0.0.0.0",) * 4
        if not _connected:
            return ("0.0.0.0",) * 4
        if _static is not None:
            return _static
        subnet = (_ap or {}).get("subnet", "192.168.1")
        return (_ip(), "255.255.255.0", subnet + ".1", subnet + ".1")

    def ipconfig(self, *args, **kw):
        if kw:
            return None
        c = self.ifconfig()
        key = args[0] if args else None
        if key == "addr4":
            return (c[0], c[1])
        if key == "gw4":
            return c[2]
        if key == "dhcp4":
            return _static is None
        raise ValueError("unexpected key")


def hostname(name=None):
    global _hostname
    if name is None:
        return _hostname
    _hostname = str(name)


_country = "01"


def country(code=None):
    global _country
    if code is None:
        return _country
    _country = str(code)


def phy_mode(mode=None):
    return MODE_11B | MODE_11G | MODE_11N

"""The wall board's app: the hardware from the board definition, and the tasks.

This module (with main.py) is the only one that touches `machine`.  It reads
config.json (config.py: the schema) and boards/<board>.json, builds the I2C buses, chips, LEDs,
buzzer and buttons, and runs four asyncio tasks:

- buttons: polls every button every POLL_MS, hands events to the controller;
- clock: lets the match clocks run (break, shot clock, automatic entries);
- display: redraws the clocks and marquees and retries dead chips;
- watchdog: feeds machine.WDT only while the three tasks above are alive.

Safe boot: the board's safe_boot_button held at power-on, or three crash
resets in a row (counted in RTC memory), starts no app and no watchdog and
shows an error code on every display; the REPL stays free.
"""

import asyncio
import gc
import json
import os
import sys
import time

import machine

import rules

BOARDS_DIR = "boards"
RADIO_FILE = "radio.last"  # the newest accepted remote command's (boot, counter)
STORE_DIR = "/data"  # the match journal and the history (not "/store": a folder would shadow store.py)

POLL_MS = 10
CLOCK_MS = 100
DISPLAY_MS = 100
WDT_MS = 5000
FEED_MS = 1000
HEALTHY_MS = 30000  # running this long clears the crash count
CRASHES_FOR_SAFE_BOOT = 3

# Error codes shown as "E nn" (config.py: 20 invalid config, last good one runs;
# 22 invalid config and no good copy, defaults run).
ERROR_BOARD = 21  # the board definition is missing or invalid: the wall board runs
ERROR_STORE = 23  # the saved match was damaged: what could be read was restored (shown 10 s)
STORE_ERROR_MS = 10000
ERROR_SAFE_BUTTON = 30  # safe boot: button held at power-on
ERROR_CRASH_LOOP = 31  # safe boot: crashed three times in a row

_RTC_MAGIC = b"CR"


# ---- configuration and board -----------------------------------------------------

def load_config():
    """(config, error code): config.json, else the last good one, else the defaults."""
    import config

    cfg, code, msg = config.load()
    if code:
        print("config:", msg)
    del sys.modules["config"]
    gc.collect()
    return cfg, code


def load_board(name, timings=None):
    """The normalized board definition; boarddef is dropped afterwards to free its RAM.
    `timings` (the configuration's button timings) override the board's where set."""
    import boarddef

    try:
        board = boarddef.load("%s/%s.json" % (BOARDS_DIR, name))
    finally:
        del sys.modules["boarddef"]
        gc.collect()
    for key, value in (timings or {}).items():
        if value is None:
            continue
        board["timings"][key] = value
        for spec in board["buttons"]:
            if key in spec:
                spec[key] = value
    return board


# ---- crash counting and safe boot ---------------------------------------------------

# RTC memory (kept through soft and watchdog resets, lost at power-off):
# b"CR", crash count, crashed flag (our exception handler), watchdog armed flag (boot.py).

def _rtc_state():
    mem = machine.RTC().memory()
    if len(mem) >= 5 and mem[:2] == _RTC_MAGIC:
        return mem[2], mem[3], mem[4]
    return 0, 0, 0


def _rtc_write(count, crashed, armed):
    machine.RTC().memory(_RTC_MAGIC + bytes((min(count, 255), crashed, armed)))


def crash_count(cause=None):
    """Count this boot if it follows a crash (watchdog, or our exception handler)."""
    count, crashed, armed = _rtc_state()
    if cause is None:
        cause = machine.reset_cause()
    if cause == machine.WDT_RESET or crashed:
        count += 1
    else:
        count = 0
    _rtc_write(count, 0, armed)
    return count


def _set_crash_flag():
    count, crashed, armed = _rtc_state()
    _rtc_write(count, 1, armed)


def _clear_crash_count():
    count, crashed, armed = _rtc_state()
    _rtc_write(0, crashed, armed)


def _arm_watchdog():
    """Arm machine.WDT; boot.py feeds it from a timer after a soft reset (see boot.py)."""
    import boot_watchdog

    boot_watchdog.stop()  # boot.py's feeding timer, if it runs: the tasks feed it now
    count, crashed, armed = _rtc_state()
    _rtc_write(count, crashed, 1)
    return machine.WDT(timeout=WDT_MS)


def safe_button_held(board):
    """The safe-boot button pressed on every one of 5 samples over 40 ms."""
    name = board.get("safe_boot_button")
    if not name:
        return False
    for spec in board["buttons"]:
        if spec["name"] == name:
            pin = make_pin(spec["pin"], spec["pull"])
            for _ in range(5):
                if not (pin() ^ (1 if spec["active_low"] else 0)):
                    return False
                time.sleep_ms(10)
            return True
    return False


# ---- hardware ------------------------------------------------------------------------

def make_pin(num, pull):
    p = machine.Pin.PULL_UP if pull == "up" else (machine.Pin.PULL_DOWN if pull == "down" else None)
    return machine.Pin(num, machine.Pin.IN, p)


def make_bus(spec):
    return machine.I2C(spec["bus"], scl=machine.Pin(spec["scl"]), sda=machine.Pin(spec["sda"]), freq=spec["freq"])


def make_chips(board, buses, brightness):
    import ht16k33

    chips = []
    for d in board["displays"]:
        cls = ht16k33.Seg14x4 if d["kind"] == "seg14" else ht16k33.Seg7x4
        level = d["brightness"] if brightness is None else brightness
        chips.append(cls(buses[d["bus"]], d["addr"], level))
    return chips


def make_leds(board):
    leds = {}
    for name, spec in (board.get("leds") or {}).items():
        leds[name] = machine.Pin(spec["pin"], machine.Pin.OUT)
    return leds


def make_buzzer(board, volume):
    import sound

    pwm = None
    if board.get("buzzer") is not None:
        pwm = machine.PWM(machine.Pin(board["buzzer"]), freq=2000, duty_u16=0)
    return sound.Buzzer(pwm, volume)


def show_code(chips, code):
    """Show "E nn" on every chip that answers (safe boot, fatal errors)."""
    for chip in chips:
        try:
            chip.set_window("E   ", 0)
            chip.set_number(code, 3)
            chip.set_blink(2)
            chip.show()
        except OSError:
            pass


# ---- the running board ------------------------------------------------------------------

class Board:
    """Everything the tasks share."""

    def __init__(self, board, config, error=0):
        import buttons
        import controller
        import rules
        import view

        # Keep only what the running board needs (the whole definition is ~5 KB of RAM).
        self.name = board["name"]
        self.i2c_specs = board["i2c"]
        self.chip_bus = [d["bus"] for d in board["displays"]]
        self.buses = {}
        for spec in board["i2c"]:
            self.buses[spec["bus"]] = make_bus(spec)
        self.chips = make_chips(board, self.buses, config["display"]["brightness"])
        self.leds = make_leds(board)
        self.buzzer = make_buzzer(board, config["sound"]["volume"])
        options = match_options(config)
        self.match = rules.Match(**options)
        self.view = view.View(board, self.chips, self.leds, self.match)
        self.view.error = error
        self.group = buttons.ButtonGroup.from_board(board, make_pin)
        self.ctrl = controller.Controller(self.match, self.view, self.buzzer, self.group, options)
        self.table = config["name"]
        self.restore()
        self.rx = None
        radio_cfg = config["radio"]
        if radio_cfg["peer"] and radio_cfg["key"]:
            self.setup_radio(radio_cfg)
        self.mqtt = None
        if config["wifi"]["ssid"] and config["mqtt"]["host"]:
            self.setup_mqtt(config)
        self.beats = bytearray(3)  # heartbeats of the buttons, clock and display tasks
        self.wdt = None

    # ---- never lose a match ----------------------------------------------------------
    #
    # The display is written first, the flash right after, in the same step of the
    # task: the press-to-display path stays allocation-free and fast, and a power
    # cut can lose at most the last press, which the board then visibly lacks.

    def restore(self):
        import store

        now = time.ticks_ms()
        self.store = store.MatchStore(STORE_DIR)
        if self.store.restore(self.match, now) and self.match.n:
            print("carom: match restored,", self.match.n, "entries")
            self.view.new_match()
            self.started_at = _wall_clock(-self.match.entry(self.match.n - 1)[2] // 1000)
        else:
            # Nothing saved, or a match nothing happened in yet: the configuration's
            # options and names (`carom config set` applies at the next start).
            self.match.new(now, **self.ctrl.options)
            self.view.new_match()
            self.store.begin(self.match)
            self.started_at = _wall_clock(0)
        if self.store.errors:
            print("carom: the saved match was damaged (errors %d); what could be read is back" % self.store.errors)
            self.view.error = ERROR_STORE
            self._error_until = time.ticks_add(now, STORE_ERROR_MS)
        else:
            self._error_until = None
        self._matches = self.ctrl.matches
        self._reported = self.match.phase == rules.FINISHED

    def persist(self):
        """Save what changed since the last call (cheap when nothing did)."""
        m = self.match
        if self.ctrl.matches != self._matches:
            self._matches = self.ctrl.matches
            self.store.begin(m)
            self.started_at = _wall_clock(0)
            self._reported = False
        elif self.store.count != m.n or m.closed != self.store.closed:
            self.store.sync(m)
        else:
            return
        finished = m.phase == rules.FINISHED
        if finished and not self._reported:
            self.save_report()
        self._reported = finished

    def save_report(self):
        import report

        now = time.ticks_ms()
        doc = report.build(self.match, now, self.started_at, _wall_clock(0), self.table, self.name)
        text = json.dumps(doc)
        self.store.save_report(text)
        del sys.modules["report"]
        if self.mqtt is not None:
            self.send_report(self.store.report_name(), text)

    # ---- the hall: Wi-Fi and MQTT -------------------------------------------------------
    #
    # <prefix>/<table>/state   the state document, retained, on every change
    # <prefix>/<table>/status  "online", or "offline" (the last will)
    # <prefix>/<table>/report  each finished match, QoS 1; kept on flash until the
    #                          broker has it, sent again after a power cut if it had not

    def setup_mqtt(self, config):
        import mqtt

        m = config["mqtt"]
        self.wifi = config["wifi"]
        table = m["table"]
        if not table:  # a name of its own: boards must never share topics or a client id
            import network

            mac = network.WLAN(network.STA_IF).config("mac")
            table = "t" + "".join("%02x" % b for b in mac[3:])
        self.topic = m["prefix"] + "/" + table + "/"
        status = self.topic + "status"
        self.mqtt = mqtt.Client("carom-" + table, m["host"], m["port"], m["user"] or None, m["password"] or None,
                                keepalive=30, will=(status, b"offline", True, 1), birth=(status, b"online", True, 1))
        self._published = None
        print("carom: publishing to", m["host"], "as", self.topic + "*")

    def send_report(self, name, text):
        self.mqtt.publish(self.topic + "report", text.encode(), qos=1, on_ack=lambda topic: _write_sent(name))

    def resend_reports(self):
        """Reports finished while the broker was away (or unacknowledged at a power cut)."""
        sent = _read_sent()
        for name in self.store.reports():
            if sent is None or name > sent:
                try:
                    text = self.store.read_report(name)
                except (OSError, ValueError):
                    continue
                self.send_report(name, text if isinstance(text, str) else text.decode())

    async def wifi_task(self):
        import network

        sta = network.WLAN(network.STA_IF)
        sta.active(True)
        while True:
            if not sta.isconnected():
                try:
                    sta.connect(self.wifi["ssid"], self.wifi["password"])
                except OSError as e:
                    print("wifi:", e)
                for _ in range(100):  # up to 10 s, without blocking the loop
                    if sta.isconnected():
                        break
                    await asyncio.sleep_ms(100)
            await asyncio.sleep_ms(2000)

    async def publish_task(self):
        """The state document after every change (off the button path: this allocates)."""
        import matchdoc

        m = self.match
        while True:
            key = (self.ctrl.matches, m.n, m.closed)
            if key != self._published:
                self._published = key
                self.mqtt.state(self.topic + "state", json.dumps(matchdoc.doc(m, time.ticks_ms())).encode())
            await asyncio.sleep_ms(200)

    # ---- the referee remote -------------------------------------------------------------

    def setup_radio(self, radio_cfg):
        import espnow
        import network

        import radio

        sta = network.WLAN(network.STA_IF)
        sta.active(True)
        self.peer = radio.mac_bytes(radio_cfg["peer"])
        self.espnow = espnow.ESPNow()
        self.espnow.active(True)
        self.espnow.add_peer(self.peer)
        key = bytes(int(radio_cfg["key"][i:i + 2], 16) for i in range(0, 64, 2))
        self.rx = radio.Receiver(key, self.peer, sta.config("mac"), _read_last())
        if radio_cfg["wall_buttons"] != "all":
            self.ctrl.limit(radio_cfg["wall_buttons"])
        print("carom: paired with the remote", radio_cfg["peer"])

    async def radio_task(self):
        """Commands from the paired remote: acted on once, acknowledged every time."""
        e = self.espnow
        rx = self.rx
        while True:
            while e.any():
                mac, msg = e.irecv(0)
                if msg is None:
                    break
                got = rx.receive(msg)
                if got is None:
                    continue
                command, arg, seq, new = got
                if new:
                    # The sequence number first: a power cut then loses at most this command
                    # (its acknowledgement never went out), never counts it twice.
                    _write_last(seq)
                    self.ctrl.remote(command, arg, time.ticks_ms())
                    self.persist()
                try:
                    e.send(self.peer, rx.ack(seq, command, arg, self.ctrl.summary()), False)
                except OSError:
                    pass  # the remote sends again; it gets the next acknowledgement
            await asyncio.sleep_ms(POLL_MS)

    async def buttons_task(self):
        group = self.group
        ctrl = self.ctrl
        ticks_ms = time.ticks_ms
        beats = self.beats
        while True:
            now = ticks_ms()
            group.poll(now)
            if group.pending():
                while group.pending():
                    e = group.get()
                    ctrl.press(e >> 8, e & 0xFF, now)
                self.persist()
            beats[0] = (beats[0] + 1) & 0xFF
            await asyncio.sleep_ms(POLL_MS)

    async def clock_task(self):
        ctrl = self.ctrl
        beats = self.beats
        store = self.store
        match = self.match
        while True:
            ctrl.tick(time.ticks_ms())
            if store.count != match.n:  # the clock added entries (a time-out, a time foul)
                self.persist()
            beats[1] = (beats[1] + 1) & 0xFF
            await asyncio.sleep_ms(CLOCK_MS)

    async def display_task(self):
        v = self.view
        beats = self.beats
        failures = 0
        while True:
            now = time.ticks_ms()
            if self._error_until is not None and time.ticks_diff(now, self._error_until) >= 0:
                self._error_until = None
                if v.error == ERROR_STORE:
                    v.error = 0
            v.render(now)
            # A bus whose chips all stop answering is built anew (a stuck SDA line).
            failures = failures + 1 if v.first_failed() >= 0 else 0
            if failures == 50:
                self.reinit_buses()
                failures = 0
            beats[2] = (beats[2] + 1) & 0xFF
            await asyncio.sleep_ms(DISPLAY_MS)

    def reinit_buses(self):
        for spec in self.i2c_specs:
            bus = make_bus(spec)
            self.buses[spec["bus"]] = bus
            for k in range(len(self.chips)):
                if self.chip_bus[k] == spec["bus"] and self.view.failed[k]:
                    self.chips[k].set_bus(bus)

    async def watchdog_task(self):
        seen = bytearray(3)
        start = time.ticks_ms()
        healthy = False
        while True:
            await asyncio.sleep_ms(FEED_MS)
            alive = True
            for i in range(3):
                if self.beats[i] == seen[i]:
                    alive = False
                seen[i] = self.beats[i]
            if alive:
                self.wdt.feed()
                if not healthy and time.ticks_diff(time.ticks_ms(), start) > HEALTHY_MS:
                    healthy = True
                    _clear_crash_count()
            else:
                print("watchdog: a task stopped; not feeding")

    async def run(self):
        # Armed before any task runs, so a driver that hangs at its first call is caught too.
        self.wdt = _arm_watchdog()
        asyncio.get_event_loop().set_exception_handler(_exception_handler)
        self.view.render(time.ticks_ms())
        tasks = [
            asyncio.create_task(self.buttons_task()),
            asyncio.create_task(self.clock_task()),
            asyncio.create_task(self.display_task()),
            asyncio.create_task(self.buzzer.run()),
            asyncio.create_task(self.watchdog_task()),
        ]
        if self.rx is not None:
            tasks.append(asyncio.create_task(self.radio_task()))
        if self.mqtt is not None:
            self.resend_reports()
            tasks.append(asyncio.create_task(self.wifi_task()))
            tasks.append(asyncio.create_task(self.mqtt.run()))
            tasks.append(asyncio.create_task(self.publish_task()))
        print("carom: running on board", self.name)
        await asyncio.gather(*tasks)

    def keep_feeding(self):
        """After Ctrl-C (mpremote, the REPL) the watchdog cannot be stopped: feed it from a timer."""
        if self.wdt is not None:
            import boot_watchdog

            boot_watchdog.start(self.wdt, FEED_MS)


def _wall_clock(offset_s):
    """Seconds since 1970 plus offset_s, or None while the board's clock is not set."""
    t = time.time()
    return t + offset_s if t > 1600000000 else None


def match_options(cfg):
    """rules.Match keyword arguments from the configuration (config.match_options, inlined
    so the board does not keep config.py in RAM)."""
    options = {}
    for key, value in cfg["match"].items():
        options[key] = value
    for p in ("A", "B"):
        options["name_" + p] = cfg["players"][p]["name"]
        options["club_" + p] = cfg["players"][p]["club"]
    return options


SENT_FILE = "mqtt.sent"  # the newest report the broker acknowledged


def _read_text(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


def _write_text(path, text):
    """Write a small file atomically (temporary file, then rename); a flash error is ignored."""
    try:
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.rename(path + ".tmp", path)
    except OSError:
        pass


def _read_sent():
    return _read_text(SENT_FILE) or None


def _write_sent(name):
    if (_read_sent() or "") < name:
        _write_text(SENT_FILE, name)


def _read_last():
    try:
        boot, counter = _read_text(RADIO_FILE).split()
        return int(boot), int(counter)
    except ValueError:
        return (0, 0)


def _write_last(seq):
    """Kept so that a frame replayed after the wall board restarts is still refused."""
    _write_text(RADIO_FILE, "%d %d" % seq)


def _exception_handler(loop, context):
    print("carom: task failed:", context.get("message"))
    exc = context.get("exception")
    if exc is not None:
        sys.print_exception(exc)
    _set_crash_flag()
    machine.reset()


def main(heap_at_start=0):
    """Start the board: safe boot, or the app. Returns only to the REPL."""
    config, error = load_config()
    try:
        board = load_board(config["board"], config["buttons"])
    except (OSError, ValueError) as e:
        print("carom: board %r: %s" % (config["board"], e))
        if config["board"] == "wall":
            return
        board = load_board("wall", config["buttons"])
        error = ERROR_BOARD
    if board["role"] == "remote":
        import app_remote

        buses = {}
        for spec in board["i2c"]:
            buses[spec["bus"]] = make_bus(spec)
        app_remote.run(board, config, make_pin, make_chips(board, buses, config["display"]["brightness"]))
        return
    crashes = crash_count()
    safe = 0
    if safe_button_held(board):
        safe = ERROR_SAFE_BUTTON
    elif crashes >= CRASHES_FOR_SAFE_BOOT:
        safe = ERROR_CRASH_LOOP
    if safe:
        print("carom: safe boot (E %d): no app, no watchdog" % safe)
        buses = {}
        for spec in board["i2c"]:
            buses[spec["bus"]] = make_bus(spec)
        show_code(make_chips(board, buses, 15), safe)
        return
    b = Board(board, config, error)
    del board, config
    gc.collect()
    used = gc.mem_alloc()
    print("carom: heap in use %d bytes, %d of them the app's; free %d" % (used, used - heap_at_start, gc.mem_free()))
    try:
        asyncio.run(b.run())
    except KeyboardInterrupt:
        print("carom: stopped (Ctrl-C); the watchdog is fed by a timer")
        b.keep_feeding()
    finally:
        asyncio.new_event_loop()

"""Starting a board: configuration, board definition, safe boot, hardware, the saved match.

    board = startup.start(machine, heap_at_start)   # main.py; None: nothing to run (safe boot, ...)
    # main.py then drops this module from RAM and runs board.serve()

Reads config.json (config.py: the schema) and boards/<board>.json, builds the
I2C buses, chips, LEDs, buzzer and buttons from the definition, restores the
saved match, sets up MQTT and the radio, and arms the watchdog. A remote board
(role "remote") runs app_remote.py instead.

Safe boot: the board's safe_boot_button held at power-on, or three crash
resets in a row (counted in RTC memory), starts no app and no watchdog and
shows an error code on every display; the REPL stays free. A board
definition that cannot be read falls back to the wall board's; when that
cannot be read either, the board scans the wall board's buses and shows
E 21 on every HT16K33 it finds, so the wall is never dark.

The identify mode (identify.py, a wiring check): the board's identify_button held at
power-on (after safe boot's check; on a remote not at a wake from deep sleep) runs it
on the hardware made here until a long press; then a soft reset starts the board as
usual, in a heap the mode never touched.

The hardware is handed in: main.py (or a test's main) passes its `machine` module
to start() or build(); this module never imports it.
"""

import gc
import sys
import time

import cold
import confignames
from errorcodes import (
    ERROR_BOARD,
    ERROR_CRASH_LOOP,
    ERROR_MEMORY,
    ERROR_SAFE_BUTTON,
    ERROR_STORE,
    STORE_ERROR_MS,
    WDT_MS,
)
from storenames import ERR_MEMORY
from voicenames import PACK_FILE  # a board without a voice pack keeps nothing for a voice

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# Private constants, compiled in: the names of a module loaded only at the start would stay
# interned for good (cold.py). The error codes and the timings are errorcodes.py's.
_BOARDS_DIR = const("boards")
_CRASHES_FOR_SAFE_BOOT = const(3)
_STORE_DIR = const("/data")  # the match journal and the history (not "/store": a folder would shadow store.py)
_CPU_HZ = const(240000000)  # the running board's clock (a stock image starts at 160 MHz)
_OUT_OF_MEMORY = b"E24"  # in RTC memory: the start ran out of memory (app.py's record is 5 bytes)
machine = None  # the board's machine module, as start() or build() was handed it

# The wall board's I2C buses (boards/wall.json), for showing an error when no board
# definition can be read at all.
_FALLBACK_BUSES = const(((0, 22, 21), (1, 33, 32)))  # (bus, scl, sda); a test checks them against wall.json
_FALLBACK_SEG14 = const(((0, 0x76), (0, 0x77), (1, 0x76)))  # its 14-segment chips (bus, address); the others: 7


# What checks it: config.py, and controller.py, whose ACTIONS it checks radio.wall_buttons against.
_CONFIG_CHECKERS = const(("config", "controller"))


def load_config():
    """(config, error code): config.json, else the last good one, else the defaults. Checked
    by config.py when it changed since it was last checked (checked.py)."""
    code = [0]

    def check():
        with cold.Rare():
            import config

            cfg, code[0], msg = config.load()
        if code[0]:
            print("config:", msg)
        return cfg, code[0] == 0

    with cold.Rare():
        import checked

        cfg = checked.load(confignames.FILE, "config.ok", check, _CONFIG_CHECKERS)
    return cfg, code[0]


def load_board(name, timings=None):
    """The normalized board definition (boarddef.py, loaded for it and dropped, when the file
    changed since it was last checked: checked.py), without the displays' digit sizes (only
    the host's parts list reads them). `timings` (the configuration's button
    timings) override the board's where set."""
    path = "%s/%s.json" % (_BOARDS_DIR, name)

    def check():
        with cold.Rare():
            import boarddef

            return boarddef.load(path, False), True

    with cold.Rare():
        import checked

        board = checked.load(path, path[:-5] + ".ok", check, "boarddef")
    for key, value in (timings or {}).items():
        if value is None:
            continue
        board["timings"][key] = value
        for spec in board["buttons"]:
            if key in spec:
                spec[key] = value
    return board


# ---- crash counting and safe boot ---------------------------------------------------


def crash_count(cause=None):
    """Count this boot if it follows a crash (watchdog, or the app's exception handler)."""
    import app  # the wall board's (the remote's start never loads it)

    count, crashed, armed = app.rtc_state()
    if cause is None:
        cause = machine.reset_cause()
    if cause == machine.WDT_RESET or crashed:
        count += 1
    else:
        count = 0
    app.rtc_write(count, 0, armed)
    return count


def arm_watchdog():
    """Arm machine.WDT; boot.py feeds it from a timer after a soft reset (see boot.py)."""
    feeder = sys.modules.get("boot_watchdog")  # boot.py's feeding timer runs only if boot.py loaded it
    if feeder is not None:
        feeder.stop()  # the tasks feed the watchdog now
    import app

    count, crashed, armed = app.rtc_state()
    app.rtc_write(count, crashed, 1)
    return machine.WDT(timeout=WDT_MS)


def button_held(board, key):
    """The button board[key] names (safe_boot_button, identify_button) pressed on every one
    of 5 samples over 40 ms."""
    name = board.get(key)
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


def identify(hw=None, board=None, config=None):
    """The identify mode (identify.py, loaded for it and dropped) on the board's hardware, until a
    long press on a button; nothing is written to the flash. From the REPL, with the app stopped
    (`carom doctor --identify`): `import machine, startup; startup.identify(machine)`."""
    if hw is not None:
        _hand_in(hw)
    if board is None:
        config = load_config()[0]
        board = load_board(config["board"], config["buttons"])
    chips = make_chips(board, make_buses(board), config["display"]["brightness"])
    with cold.Rare():
        import identify

        identify.run(board, chips, make_leds(board), make_buzzer(board, 0), make_pin)
    gc.collect()


# ---- hardware ------------------------------------------------------------------------


def make_pin(num, pull):
    p = machine.Pin.PULL_UP if pull == "up" else (machine.Pin.PULL_DOWN if pull == "down" else None)
    return machine.Pin(num, machine.Pin.IN, p)


def make_bus(bus, scl, sda, freq):
    return machine.I2C(bus, scl=machine.Pin(scl), sda=machine.Pin(sda), freq=freq)


def make_buses(board):
    buses = {}
    for spec in board["i2c"]:
        buses[spec["bus"]] = make_bus(spec["bus"], spec["scl"], spec["sda"], spec["freq"])
    return buses


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
            chip.set_code(code)
            chip.set_blink(2)
            chip.show()
        except OSError:
            pass


def show_code_anywhere(code):
    """No board definition at all: E nn on every HT16K33 found on the wall board's buses."""
    import ht16k33

    chips = []
    for bus, scl, sda in _FALLBACK_BUSES:
        try:
            i2c = make_bus(bus, scl, sda, 100000)
            found = i2c.scan()
        except (OSError, ValueError):
            continue
        for addr in found:
            if 0x70 <= addr <= 0x77:
                kind = ht16k33.Seg14x4 if (bus, addr) in _FALLBACK_SEG14 else ht16k33.Seg7x4
                chips.append(kind(i2c, addr))
    show_code(chips, code)
    return len(chips)


# ---- the wall board --------------------------------------------------------------------


def match_options(cfg, every=False):
    """rules.Match keyword arguments from the configuration (config.match_options, inlined
    so the board does not load config.py again): only the options that differ from the rules'
    defaults (rules_setup.DEFAULTS: the dict the board keeps for every new match stays small),
    or with `every` all of them (no import: restore() starts its match with these)."""
    DEFAULTS = {}
    if not every:
        with cold.Rare():
            from rules_setup import DEFAULTS

    options = {}
    for key, value in cfg["match"].items():
        if every or key not in DEFAULTS or DEFAULTS[key] != value or type(DEFAULTS[key]) is not type(value):
            options[key] = value  # only what differs from the rules' defaults: the dict stays small
    for p in ("A", "B"):
        for key in ("name", "club"):
            if cfg["players"][p][key]:
                options[key + "_" + p] = cfg["players"][p][key]
    return options


def _hand_in(hw):
    global machine
    machine = hw


def build(board, config, error=0, hw=None):
    """The running wall board (app.Board) from the definition and the configuration (`hw`:
    the machine module, when start() was not what handed it in). The saved match is read
    back first, while little else is in the heap: its log then lies low, and reading it
    (store_snapshot.py, loaded and dropped) has the most room."""
    if hw is not None:
        _hand_in(hw)
    import app
    import store

    import rules  # noqa: F401  (resident: loaded before the rare block below, which drops what it loads)

    st = store.MatchStore(_STORE_DIR)
    with cold.Rare():
        import rules_setup  # loaded once, first (low in the heap), for the restore and the options

        match, held, started_at = restore(st, match_options(config, True))
        options = match_options(config)
        del rules_setup
    load_code(config)
    import controller
    import view

    i2c_specs = [(spec["bus"], spec["scl"], spec["sda"], spec["freq"]) for spec in board["i2c"]]
    buses = make_buses(board)
    chips = make_chips(board, buses, config["display"]["brightness"])
    buzzer = make_buzzer(board, config["sound"]["volume"])
    v = view.View(board, chips, make_leds(board), match)
    with cold.Rare():
        import buttons_setup

        group = buttons_setup.from_board(board, make_pin)
    ctrl = controller.Controller(match, v, buzzer, group, options)
    ctrl.locked = held  # nothing is scored on a match that would not be saved
    error_until = None
    if st.errors & ~ERR_MEMORY:
        print("carom: the saved match was damaged or went back (errors %d); what could be read is back" % st.errors)
        v.error = ERROR_STORE
        error_until = time.ticks_add(time.ticks_ms(), STORE_ERROR_MS)
    else:
        v.error = error
    radio_cfg = config["radio"]
    receiver = espnow = None
    if radio_cfg["peer"] and radio_cfg["key"]:
        receiver, espnow = setup_radio(ctrl, radio_cfg)
    hall = wifi = topic = None
    if config["wifi"]["ssid"] and config["mqtt"]["host"]:
        hall, wifi, topic = setup_mqtt(config)
    b = app.Board(
        name=board["name"],
        table=config["name"],
        match=match,
        store=st,
        started_at=started_at,
        view=v,
        ctrl=ctrl,
        group=group,
        buzzer=buzzer,
        buses=buses,
        chips=chips,
        i2c_specs=i2c_specs,
        chip_bus=bytes(d["bus"] for d in board["displays"]),
        error_until=error_until,
        radio=receiver,
        espnow=espnow,
        hall=hall,
        wifi=wifi,
        topic=topic,
    )
    if board.get("speaker") is not None and config["voice"]["on"] and _exists(PACK_FILE):
        # Asked last (what asking leaves is garbage above the board's objects); copies: the
        # configuration's own dicts lie low, among what the start lets go (kept, they would cut
        # its free room in two). A board without a pack keeps nothing for a voice.
        b.voice_setup = (dict(board["speaker"]), dict(config["voice"]), None)  # the voice: app_cold.start
    return b


def _exists(path):
    import os

    try:
        os.stat(path)
        return True
    except OSError:
        return False


def restore(st, options):
    """(match, held, started_at): the match saved in store st back, or a new one from the
    configuration. held is True when the saved match could not be read for want of memory: it
    stays on the flash (the store writes nothing, E 24) and the board waits for a restart or a
    new match."""
    import app
    import rules

    m = rules.Match(**options)
    now = time.ticks_ms()
    for attempt in (0, 1):
        try:
            restored = st.restore(m, now)
            break
        except MemoryError:
            gc.collect()
    else:
        # What the attempt left in the match (its log's chunks, read so far) goes, and a new
        # match of the configuration's (Match() makes one) takes its place on the displays;
        # nothing of it is saved (the store is held). The rest of the start has the room it
        # needs, E 24 shows.
        m = None
        st.held = True  # also when loading store_snapshot.py was what failed: nothing is written
        gc.collect()
        m = rules.Match(**options)
        print("carom: not enough memory to read the saved match back; it stays on the flash (E 24)")
        return m, True, None
    if restored and m.n:
        print("carom: match restored,", m.n, "entries")
        return m, False, app.wall_clock(-m.entry(m.n - 1)[2] // 1000)
    # Nothing saved, or a match nothing happened in yet: the configuration's
    # options and names (`carom config set` applies at the next start). Over a match
    # nothing happened in, it is begun now; with nothing saved, the save task begins it
    # (app.Board.persist), so a first start that runs out of memory has written nothing.
    m.new(now, **options)
    if st.gen:
        st.begin(m)
    return m, False, app.wall_clock(0)


def setup_mqtt(config):
    """(hall, wifi, topic): what the board needs to publish (app.Board.wifi_task starts MQTT
    once on the network)."""
    m = config["mqtt"]
    wifi = (config["wifi"]["ssid"], config["wifi"]["password"])
    table = m["table"]
    if not table:  # a name of its own: boards must never share topics or a client id
        import network

        mac = network.WLAN(network.STA_IF).config("mac")
        table = "t" + "".join("%02x" % x for x in mac[3:])
    topic = m["prefix"] + "/" + table + "/"
    print("carom: publishing to", m["host"], "as", topic + "*")
    return (
        ("carom-" + table, m["host"], m["port"], m["user"] or None, m["password"] or None, m["keepalive_s"]),
        wifi,
        topic,
    )


def setup_radio(ctrl, radio_cfg):
    """(receiver, espnow): the paired remote's link (the controller told which wall buttons
    stay allowed). config.py checked the address and the key (remote.mac_bytes
    and hex_key's forms): they are only read here, without loading remote.py, whose names
    would stay interned for good."""
    from binascii import unhexlify

    import espnow
    import network

    import radio

    sta = network.WLAN(network.STA_IF)
    sta.active(True)
    peer = unhexlify(radio_cfg["peer"].replace(":", ""))
    e = espnow.ESPNow()
    e.active(True)
    e.add_peer(peer)
    key = unhexlify(radio_cfg["key"])
    receiver = radio.Receiver(key, peer, sta.config("mac"), read_last())
    if radio_cfg["wall_buttons"] != "all":
        with cold.Rare():
            import buttons_setup

            ctrl.allowed = buttons_setup.allowed(radio_cfg["wall_buttons"])
    print("carom: paired with the remote", radio_cfg["peer"])
    return receiver, e


def read_last():
    """The newest accepted remote command's (boot, counter), or None when it is lost or
    unreadable (the wall then asks the remote to prove a command is new: radio.py)."""
    import app
    import radio

    try:
        with open(app.RADIO_FILE) as f:
            words = f.read(32).split()  # "boot counter": a damaged file may be anything
        boot, counter = int(words[0]), int(words[1])
        if len(words) == 2 and 0 <= boot <= radio.MAX_BOOT and 0 <= counter <= radio.MAX_COUNTER:
            return boot, counter
    except (OSError, ValueError, IndexError):
        pass
    return None


# ---- the start ---------------------------------------------------------------------------


def start(hw, heap_at_start=0):
    """Build the board for config.json with the machine module `hw`: the wall board
    (app.Board) or the referee remote (app_remote.Remote), each to serve(); None when there
    is nothing to serve (safe boot, no board definition at all, not enough memory to
    start: E 24, nothing written to the flash)."""
    _hand_in(hw)
    rtc = machine.RTC()
    if rtc.memory() == _OUT_OF_MEMORY:  # the start before this soft reset ran out of memory
        rtc.memory(b"")
        return out_of_memory()
    try:
        return _start()
    except (MemoryError, ImportError):  # MicroPython's import can take the one for the other
        pass
    # The heap the start leaves is in pieces (every name it loaded stays interned): E 24 is
    # shown by a fresh one, after a soft reset that RTC memory tells it is for that.
    rtc.memory(_OUT_OF_MEMORY)
    machine.soft_reset()


def out_of_memory():
    """E 24 after a start that ran out of memory, from a fresh heap: on the displays of the
    board's definition, else on any found on the wall's buses; nothing else is loaded, the
    store writes nothing (a saved match stays on the flash as it was, for a start with
    more room: a power cycle tries again)."""
    print("carom: not enough memory to start (E %d); the saved match stays on the flash" % ERROR_MEMORY)
    try:
        config, _ = load_config()
        board = load_board(config["board"], config["buttons"])
    except (OSError, ValueError, MemoryError):
        board = None
    try:
        if board is None:
            show_code_anywhere(ERROR_MEMORY)
        else:
            show_code(make_chips(board, make_buses(board), 15), ERROR_MEMORY)
    except MemoryError:
        pass
    return None


def _start():
    config, error = load_config()
    try:
        board = load_board(config["board"], config["buttons"])
    except (OSError, ValueError) as e:
        print("carom: board %r: %s" % (config["board"], e))
        try:
            board = load_board("wall", config["buttons"])
        except (OSError, ValueError) as e:
            print("carom: board 'wall': %s; E %d on every display found" % (e, ERROR_BOARD))
            show_code_anywhere(ERROR_BOARD)
            return None
        error = ERROR_BOARD
    if board["role"] == "remote":
        # Not at a wake from deep sleep: a press on any button wakes the box (the identify
        # button's too: a foul for the match). Held with the safe-boot button: neither.
        if (
            machine.reset_cause() != machine.DEEPSLEEP_RESET
            and button_held(board, "identify_button")
            and not button_held(board, "safe_boot_button")
        ):
            identify(None, board, config)
            machine.soft_reset()  # a fresh heap for the app: nothing of the mode stays in RAM
        machine.freq(_CPU_HZ)  # a wake's work done sooner: less of the battery, not more
        import app_remote  # the remote's own: none of the wall board's app

        return app_remote.Remote(
            board, config, make_pin, make_chips(board, make_buses(board), config["display"]["brightness"])
        )
    crashes = crash_count()
    safe = 0
    if button_held(board, "safe_boot_button"):
        safe = ERROR_SAFE_BUTTON
    elif crashes >= _CRASHES_FOR_SAFE_BOOT:
        safe = ERROR_CRASH_LOOP
    if safe:
        print("carom: safe boot (E %d): no app, no watchdog" % safe)
        show_code(make_chips(board, make_buses(board), 15), safe)
        return None
    if button_held(board, "identify_button"):
        identify(None, board, config)
        machine.soft_reset()  # a fresh heap for the app: nothing of the mode stays in RAM
    # A stock image runs the CPU at 160 MHz; the board runs at 240: its report's and restore's
    # steps are half again as quick (the bench's chip estimates are at 240 MHz).
    machine.freq(_CPU_HZ)
    load_code(config)
    b = build(board, config, error)
    # Armed before any task runs, so a driver that hangs at its first call is caught too.
    b.wdt = arm_watchdog()
    return b


# The order of a start keeps the heap in one piece: config.py and boarddef.py come and
# go first; the running board's code then fills the room they left, low in the heap;
# the board's objects follow, and the top of the heap is left free.

_RUNNING = ("buttons", "controller", "view", "ht16k33", "sound", "store")


def load_code(config):
    """Load the running board's modules."""
    for name in _RUNNING:
        __import__(name)
    if config["radio"]["peer"] and config["radio"]["key"]:
        __import__("radio")
    gc.collect()

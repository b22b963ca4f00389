"""Board definitions: load and check boards/<name>.json.

A board is DATA: adding one means adding a JSON file, never editing code.
Runs on MicroPython and CPython (host tools validate boards too).  On the
device, load the board at boot, keep the returned dict and drop this module.

    board = boarddef.load("boards/wall.json")   # or load(a_dict)

Errors are ValueError("<file>: <field path>: <what is wrong>"), one line,
e.g. "boards/wall.json: displays[2].addr: 0x80 is not in 0x70..0x77".
Unknown keys are errors (a typo must not pass silently); every object may
also carry a "comment" string, which is ignored.

The JSON schema (schema 1)
--------------------------
schema       1 (optional)
name         board name, [a-z0-9_-], 1..24 chars; equals the file name
role         "wall" (the scoreboard) or "remote" (a referee handheld)
description  text
chip         "esp32" (optional; the only pin table so far)
i2c          one bus {"bus": 0|1, "sda": pin, "scl": pin, "freq": 10000..400000}
             or a list of up to two (the ESP32 has two I2C controllers; one
             bus holds at most 8 HT16K33, 0x70..0x77).  Needed if displays.
brightness   0..15, the default for every display (optional, default 8)
displays     list of HT16K33 chips, 4 digits each:
               addr        hex STRING "0x70".."0x77" (JSON has no hex literals;
                           integers are refused, so one spelling only)
               kind        "seg7" or "seg14"
               bus         the i2c bus id (required when there are two buses)
               brightness  0..15 (optional, overrides the board's)
               show        a field name (the whole chip shows it), or a list
                           of {"field": name, "at": 0..3, "width": 1..4}
                           (digit 0 is the leftmost), not overlapping.
               size        the digit height in inches (optional): one of
                           SIZES[kind], the HT16K33 backpacks sold (seg7 0.56
                           or 1.2, seg14 0.54); the parts list and the power
                           budget follow it (host_tools/hardware/, which
                           applies a default per kind and role when absent).
             Fields: A./B. score, innings, run, high_run, average, name,
             target (each player's own) and target (the player at the
             table's), countdown (the player at the table's points left in
             the last 5 or 3; in a set match, the set score between them),
             sets (the set score of a set match, a:b: 4 cells of a seg7 show
             2:1; blank in a plain match), clock, message.  name and message need letters, so a seg14 chip.  A
             field may appear on several chips.
buttons      {name: {"pin": n, "active_low": bool, "pull": "up"|"down"|null,
                     "action": action|null, "long_action": action|null,
                     "lockout": bool (optional, default false),
                     "debounce_ms"/"long_ms"/"stuck_ms" (optional overrides)}}
             A button with a long_action reports its short press on release
             (see buttons.py).  lockout: ignored for timings.lockout_ms after
             the turn passes (ButtonGroup.lock).  At least one action.
             Actions: controller.ACTIONS (boarddef.ACTIONS is the same tuple).
leds         {name: pin} or {name: {"pin": n, "active_low": bool}};
             names: A.turn, B.turn, A.spot, B.spot, equalizing.
buzzer       pin or null
speaker      an I2S amplifier of the MAX98357A kind and its speaker (the referee's calls
             spoken: speech.py), or null (optional, default null):
             {"bck": pin, "ws": pin, "din": pin, "gain_db": 3|6|9|12|15}: the bit clock,
             word select (LRC) and data pins; the gain its GAIN pin is wired for
             (optional, default 9: the pin left open).  The amplifier's inputs neither
             pull nor drive their pins, so a strapping pin keeps its default at reset
             there: no warning for it.
timings      {"debounce_ms", "long_ms", "stuck_ms", "lockout_ms"}, each optional
             (defaults 50, 1000, 5000, 400); debounce < long < stuck.
safe_boot_button  a button name held at power-on for safe boot, or null
identify_button   a button name held at power-on for the identify mode (identify.py:
             every display shows its field and bus.address, then each segment; the LEDs
             and the buzzer in turn; a press shows the button's name), or null.  Not
             the safe_boot_button (held together, safe boot wins).  On a remote, never
             at a wake from deep sleep (a press wakes the box: it is sent).

Pins (ESP32): GPIO 0-5, 12-19, 21-23, 25-27, 32-39; 6-11 are the flash and
1/3 the REPL UART (refused); 34-39 are input only (no LED, buzzer, I2C) and
have no internal pulls (pull must be null: fit an external resistor).  A
pin is used once.  Strapping pins 0, 2, 5, 12, 15 give warnings; a pull-up
on GPIO12 is refused (it selects 1.8 V flash at reset).

The normalized definition (what load/validate return)
-----------------------------------------------------
Every optional key is filled in; "i2c" is always a list ([] if none);
displays get "bus", "digits" (4), "brightness" and "show" as a list of
{"field", "at", "width"}; "addr" is an int; "size" only when the file
gives it and `sizes` is true (no default is filled in; the board's start
loads with sizes=False: it draws no size, and the checked form it keeps
and reads at every start (checked.py) holds no float to allocate).
"buttons" is a LIST of dicts with "name" added, sorted by name (the index
is the button's index in buttons.ButtonGroup), each with all keys above
and its timings filled in.
"leds" values are {"pin", "active_low"}.  Added: "warnings" (list of
strings) and "source" (file path or None).
"""

import json

import jsonwhole  # a file cut short is refused on every release
from controller import ACTIONS  # what a button can do (the one list)
from view_setup import FIELDS, LEDS  # what a view can show

SCHEMA = 1
ROLES = ("wall", "remote")
KINDS = ("seg7", "seg14")
DIGITS = 4
TEXT_FIELDS = ("A.name", "B.name", "message")  # need a seg14 chip
# Digit heights (inches) of the HT16K33 backpacks sold, per kind: 4-digit
# 7-segment 0.56" and 1.2", 4-character 14-segment 0.54".
SIZES = {"seg7": (0.56, 1.2), "seg14": (0.54,)}
PULLS = ("up", "down", None)
GAINS_DB = (3, 6, 9, 12, 15)  # a MAX98357A's gains, set by how its GAIN pin is wired
TIMINGS = (  # key, default, min, max
    ("debounce_ms", 50, 0, 500),
    ("long_ms", 1000, 100, 10000),
    ("stuck_ms", 5000, 500, 120000),
    ("lockout_ms", 400, 0, 5000),
)

# ESP32 (WROOM/WROVER) GPIO facts.
_PINS = (0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 25, 26, 27) + tuple(range(32, 40))
_FLASH = (6, 7, 8, 9, 10, 11)
_UART0 = (1, 3)
_INPUT_ONLY = (34, 35, 36, 37, 38, 39)
_STRAPPING = {
    0: "held low at reset it starts the download mode",
    2: "it must be low or floating at reset",
    5: "it sets the SDIO timing at reset",
    12: "high at reset it selects 1.8 V flash",
    15: "low at reset it silences the boot log",
}

_TOP = (
    "schema",
    "name",
    "role",
    "description",
    "chip",
    "i2c",
    "brightness",
    "displays",
    "buttons",
    "leds",
    "buzzer",
    "speaker",
    "timings",
    "safe_boot_button",
    "identify_button",
)


def load(path_or_dict, sizes=True):
    """Load a board from a JSON file path, or check a dict; return the
    normalized definition (sizes: keep each display's "size", which only the
    host's parts list reads).  Raises ValueError (OSError if no such file)."""
    if isinstance(path_or_dict, dict):
        return validate(path_or_dict, None, sizes)
    path = path_or_dict
    with open(path) as f:
        text = f.read()
    try:
        d = json.loads(text)
    except ValueError as e:
        raise ValueError("%s: not valid JSON: %s" % (path, e))
    if not jsonwhole.whole(text):  # what json.loads lets by before MicroPython v1.26.0
        raise ValueError("%s: not valid JSON: cut short (an object or a list is not closed)" % path)
    return validate(d, path, sizes)


def validate(d, source=None, sizes=True):
    """Check the board dict d; return the normalized definition.  `source`
    (a file path) prefixes error messages and is checked against "name";
    sizes=False leaves each display's "size" out (checked all the same)."""
    try:
        out = _board(d, source)
    except ValueError as e:
        if source is None:
            raise
        raise ValueError("%s: %s" % (source, e))
    if not sizes:
        for c in out["displays"]:
            c.pop("size", None)
    out["source"] = source
    return out


def _err(path, msg):
    raise ValueError("%s: %s" % (path, msg))


def _show(v):
    try:
        return json.dumps(v)
    except Exception:
        return repr(v)


def _q(name):
    return '["%s"]' % name


def _obj(v, path, allowed, required=()):
    if type(v) is not dict:
        _err(path, "expected an object, got %s" % _show(v))
    for k in sorted(v):
        if k == "comment":
            _str(v[k], path + ".comment", 0, 1000)
        elif k not in allowed:
            _err(
                path,
                "unknown key %s (expected %s)" % (_show(k), ", ".join(allowed)),
            )
    for k in required:
        if k not in v:
            _err(path, "missing key %s" % _show(k))
    return v


def _int(v, path, lo, hi):
    if type(v) is not int:
        _err(path, "%s is not an integer" % _show(v))
    if not lo <= v <= hi:
        _err(path, "%d is not in %d..%d" % (v, lo, hi))
    return v


def _bool(v, path):
    if type(v) is not bool:
        _err(path, "%s is not true or false" % _show(v))
    return v


def _str(v, path, lo, hi):
    if type(v) is not str:
        _err(path, "%s is not a string" % _show(v))
    if not lo <= len(v) <= hi:
        _err(path, "%s: length is not in %d..%d" % (_show(v), lo, hi))
    return v


def _choice(v, path, choices):
    if v not in choices:
        _err(
            path,
            "%s is not one of %s" % (_show(v), ", ".join(_show(c) for c in choices)),
        )
    return v


def _name(v, path, chars):
    _str(v, path, 1, 24)
    for c in v:
        if not ("a" <= c <= "z" or "0" <= c <= "9" or c in chars):
            _err(path, "%s: character %s is not allowed" % (_show(v), _show(c)))
    return v


def _basename(source):
    base = source.replace("\\", "/").rpartition("/")[2]
    if base.endswith(".json"):
        base = base[:-5]
    return base


class _Pins:
    """The pins in use: number -> field path; warnings collected."""

    def __init__(self):
        self.used = {}
        self.warnings = []

    def take(self, v, path, output=False, pull=None, strap_free=False):
        """Pin v for `path`; strap_free: what it drives is an input that neither pulls nor drives
        it (an I2S amplifier's), so a strapping pin keeps its internal default at reset: no warning."""
        _int(v, path, 0, 39)
        if v in _FLASH:
            _err(path, "GPIO%d is wired to the flash" % v)
        if v in _UART0:
            _err(path, "GPIO%d is the REPL UART" % v)
        if v not in _PINS:
            _err(path, "GPIO%d does not exist on the ESP32" % v)
        if output and v in _INPUT_ONLY:
            _err(path, "GPIO%d is input only" % v)
        if pull is not None and v in _INPUT_ONLY:
            _err(
                path,
                "GPIO%d has no internal pull-%s: use pull null and an external resistor" % (v, pull),
            )
        if v == 12 and pull == "up":
            _err(path, "GPIO12 pulled up at reset selects 1.8 V flash: the board will not boot")
        if v in self.used:
            _err(path, "GPIO%d is already used by %s" % (v, self.used[v]))
        self.used[v] = path
        if v in _STRAPPING and not strap_free:
            self.warnings.append("%s: GPIO%d is a strapping pin: %s" % (path, v, _STRAPPING[v]))
        return v


def _board(d, source):
    _obj(d, "board", _TOP, ("name", "role", "description", "buttons"))
    schema = d.get("schema", SCHEMA)
    if type(schema) is not int or schema != SCHEMA:
        _err("schema", "%s is not %d" % (_show(schema), SCHEMA))
    name = _name(d["name"], "name", "_-")
    if source is not None and _basename(source) != name:
        _err("name", "%s does not match the file name" % _show(name))
    out = {
        "schema": SCHEMA,
        "name": name,
        "role": _choice(d["role"], "role", ROLES),
        "description": _str(d["description"], "description", 1, 200),
        "chip": _choice(d.get("chip", "esp32"), "chip", ("esp32",)),
        "brightness": _int(d.get("brightness", 8), "brightness", 0, 15),
    }
    pins = _Pins()

    # timings first: the buttons inherit them
    t = _obj(d.get("timings", {}), "timings", tuple(k[0] for k in TIMINGS))
    timings = {}
    for key, default, lo, hi in TIMINGS:
        timings[key] = _int(t.get(key, default), "timings." + key, lo, hi)
    _order(timings, "timings")
    out["timings"] = timings

    out["i2c"] = buses = _i2c(d.get("i2c"), pins)
    out["displays"] = _displays(d.get("displays", []), buses, out["brightness"])
    if out["role"] == "wall" and not out["displays"]:
        _err("displays", "a wall board needs at least one display")

    out["buttons"] = buttons = _buttons(d["buttons"], pins, timings)

    leds = _obj(d.get("leds", {}), "leds", LEDS)
    out["leds"] = {}
    for k in sorted(leds):
        v = leds[k]
        p = "leds" + _q(k)
        if type(v) is dict:
            _obj(v, p, ("pin", "active_low"), ("pin",))
            al = _bool(v.get("active_low", False), p + ".active_low")
            pin = pins.take(v["pin"], p + ".pin", output=True)
        else:
            al = False
            pin = pins.take(v, p, output=True)
        out["leds"][k] = {"pin": pin, "active_low": al}

    bz = d.get("buzzer")
    out["buzzer"] = None if bz is None else pins.take(bz, "buzzer", output=True)
    out["speaker"] = _speaker(d.get("speaker"), pins)

    out["safe_boot_button"] = sb = _button_name(d, "safe_boot_button", buttons)
    ib = _button_name(d, "identify_button", buttons)
    if ib is not None and ib == sb:
        _err("identify_button", "%s is the safe_boot_button: name another button" % _show(ib))
    out["identify_button"] = ib
    out["warnings"] = pins.warnings
    return out


def _speaker(s, pins):
    """The I2S amplifier: its three pins, its gain."""
    if s is None:
        return None
    _obj(s, "speaker", ("bck", "ws", "din", "gain_db"), ("bck", "ws", "din"))
    out = {}
    for key in ("bck", "ws", "din"):
        out[key] = pins.take(s[key], "speaker." + key, output=True, strap_free=True)
    g = s.get("gain_db", 9)
    if g not in GAINS_DB or type(g) is not int:
        _err("speaker.gain_db", "%s is not one of %s" % (_show(g), ", ".join([str(x) for x in GAINS_DB])))
    out["gain_db"] = g
    return out


def _button_name(d, key, buttons):
    """d[key]: a button's name, or None."""
    v = d.get(key)
    if v is not None:
        names = [b["name"] for b in buttons]
        if v not in names:
            _err(key, "%s is not a button (buttons: %s)" % (_show(v), ", ".join(names) or "none"))
    return v


def _order(t, path):
    if not t["debounce_ms"] < t["long_ms"] < t["stuck_ms"]:
        _err(
            path,
            "need debounce_ms < long_ms < stuck_ms, got %d, %d, %d" % (t["debounce_ms"], t["long_ms"], t["stuck_ms"]),
        )


def _i2c(v, pins):
    if v is None:
        return []
    if type(v) is dict:
        items = [(v, "i2c")]
    elif type(v) is list:
        if not 1 <= len(v) <= 2:
            _err("i2c", "the ESP32 has 1 or 2 I2C buses, got %d" % len(v))
        items = [(b, "i2c[%d]" % i) for i, b in enumerate(v)]
    else:
        _err("i2c", "expected a bus object or a list of them, got %s" % _show(v))
    buses = []
    for b, p in items:
        _obj(b, p, ("bus", "sda", "scl", "freq"), ("bus", "sda", "scl"))
        bus = _int(b["bus"], p + ".bus", 0, 1)
        for o in buses:
            if o["bus"] == bus:
                _err(p + ".bus", "bus %d is defined twice" % bus)
        buses.append(
            {
                "bus": bus,
                "sda": pins.take(b["sda"], p + ".sda", output=True),
                "scl": pins.take(b["scl"], p + ".scl", output=True),
                "freq": _int(b.get("freq", 400000), p + ".freq", 10000, 400000),
            }
        )
    return buses


def _displays(v, buses, brightness):
    if type(v) is not list:
        _err("displays", "expected a list, got %s" % _show(v))
    if v and not buses:
        _err("i2c", "the displays need an i2c bus")
    out = []
    addrs = {}  # (bus, addr) -> path
    for i, c in enumerate(v):
        p = "displays[%d]" % i
        _obj(c, p, ("addr", "kind", "bus", "brightness", "show", "size"), ("addr", "kind", "show"))
        a = c["addr"]
        if type(a) is not str or not a.startswith("0x"):
            _err(p + ".addr", '%s: write the address as a hex string, e.g. "0x70"' % _show(a))
        try:
            addr = int(a, 16)
        except ValueError:
            _err(p + ".addr", "%s is not a hex number" % _show(a))
        if not 0x70 <= addr <= 0x77:
            _err(p + ".addr", "0x%02x is not in 0x70..0x77" % addr)
        if "bus" in c:
            bus = _int(c["bus"], p + ".bus", 0, 1)
            if bus not in [b["bus"] for b in buses]:
                _err(p + ".bus", "bus %d is not in i2c" % bus)
        elif len(buses) > 1:
            _err(p, 'missing key "bus" (there are two i2c buses)')
        else:
            bus = buses[0]["bus"]
        if (bus, addr) in addrs:
            _err(p + ".addr", "0x%02x is already used on bus %d by %s" % (addr, bus, addrs[(bus, addr)]))
        addrs[(bus, addr)] = p
        kind = _choice(c["kind"], p + ".kind", KINDS)
        out.append(
            {
                "bus": bus,
                "addr": addr,
                "kind": kind,
                "digits": DIGITS,
                "brightness": _int(c.get("brightness", brightness), p + ".brightness", 0, 15),
                "show": _show_list(c["show"], p + ".show", kind),
            }
        )
        if "size" in c:
            out[-1]["size"] = _size(c["size"], p + ".size", kind)
    return out


def _size(v, path, kind):
    sizes = SIZES[kind]
    if type(v) is not float or v not in sizes:
        _err(
            path,
            "%s is not a %s digit height: %s (inches)"
            % ("%g" % v if type(v) is float else _show(v), kind, ", ".join("%g" % s for s in sizes)),
        )
    return v


def _show_list(v, path, kind):
    if type(v) is str:
        parts = [({"field": v, "at": 0, "width": DIGITS}, path, True)]
    elif type(v) is list and v:
        parts = [(s, "%s[%d]" % (path, i), False) for i, s in enumerate(v)]
    else:
        _err(path, "expected a field name or a non-empty list of {field, at, width}, got %s" % _show(v))
    out = []
    taken = [None] * DIGITS
    for s, p, whole in parts:
        if not whole:
            _obj(s, p, ("field", "at", "width"), ("field", "at", "width"))
        fp = path if whole else p + ".field"
        f = s["field"]
        if type(f) is not str or f not in FIELDS:
            _err(fp, "%s is not a field (fields: %s)" % (_show(f), ", ".join(FIELDS)))
        if f in TEXT_FIELDS and kind != "seg14":
            _err(fp, "%s needs letters: use a seg14 display" % f)
        at = _int(s["at"], p + ".at", 0, DIGITS - 1)
        width = _int(s["width"], p + ".width", 1, DIGITS - at)
        for j in range(at, at + width):
            if taken[j] is not None:
                _err(p, "digit %d is already used by %s" % (j, taken[j]))
            taken[j] = f
        out.append({"field": f, "at": at, "width": width})
    return out


def _buttons(v, pins, timings):
    if type(v) is not dict:
        _err("buttons", "expected an object {name: button}, got %s" % _show(v))
    out = []
    for name in sorted(v):
        p = "buttons" + _q(name)
        _name(name, p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ._-")
        s = v[name]
        _obj(
            s,
            p,
            ("pin", "active_low", "pull", "action", "long_action", "lockout", "debounce_ms", "long_ms", "stuck_ms"),
            ("pin", "active_low", "pull", "action"),
        )
        active_low = _bool(s["active_low"], p + ".active_low")
        pull = _choice(s["pull"], p + ".pull", PULLS)
        if (pull == "down" and active_low) or (pull == "up" and not active_low):
            _err(
                p + ".pull",
                "pull-%s with active_low %s reads pressed while released" % (pull, "true" if active_low else "false"),
            )
        pin = pins.take(s["pin"], p + ".pin", pull=pull)
        action = s["action"]
        if action is not None:
            _choice(action, p + ".action", ACTIONS)
        long_action = s.get("long_action")
        if long_action is not None:
            _choice(long_action, p + ".long_action", ACTIONS)
        if action is None and long_action is None:
            _err(p, "has no action and no long_action")
        b = {
            "name": name,
            "pin": pin,
            "active_low": active_low,
            "pull": pull,
            "action": action,
            "long_action": long_action,
            "lockout": _bool(s.get("lockout", False), p + ".lockout"),
        }
        for key, default, lo, hi in TIMINGS[:3]:
            b[key] = _int(s.get(key, timings[key]), p + "." + key, lo, hi)
        _order(b, p)
        out.append(b)
    return out

"""The board's configuration: config.json, its schema, load and save.

The schema is defined once, here, and used by the firmware (MicroPython) and
by the host tools (CPython imports this module from firmware/).

    cfg, code, msg = config.load()      # on the board: never raises
    if code:
        print("config:", msg)           # and show "E %d" % code
    match = rules.Match(**config.match_options(cfg))

Every section and key is optional in the file (a section may also be null);
normalize(d) fills in the defaults and returns a complete new dict.  Errors
are ValueError, one line, "<file>: <field path>: <what is wrong>":

    config.json: match.target: 0 is not in 1..9999
    config.json: match.targte: unknown key (expected game, target, ...)
    config.json: players.A.name: 5 is not a string

Unknown keys are errors (a typo must not pass silently); so are wrong types
(true is not an integer here, 5 is not a string).  The values of SECRET keys
never appear in an error message; redact(d) hides them for logs.

set_path/get_path (editing by dotted path, for `carom config set` and the
REPL) live in config_edit.py, imported only when called.  On the device, load
at boot and keep the dict; the module can be dropped from sys.modules after.

The schema
----------
board          board definition name, [a-z0-9_-] 1..24 (boards/<board>.json); "wall"
name           this table's display name, e.g. "Table 3"; text 0..24; ""
players.A / players.B
  name, club   text 0..24; ""
match          the game defaults (the ranges rules.Match.new checks)
  game         straight_rail, balkline_47_2, balkline_47_1, balkline_71_2,
               one_cushion, three_cushion; "three_cushion"
  target       1..9999; 30
  innings_limit  0..999 (0: none); 0
  equalizing   true/false; true
  draw         true/false; true
  shot_clock   0 (off) or 10..300 s; 0
  timeouts     null (the rules' default) or 0..9; null
  timeout_s    null (one more shot period) or 10..300: a time-out's extra seconds; null
  break_s      0..3600; 180
  breaker_ball "spot" or "white"; "spot"
  target_A, target_B  null (the target) or 1..9999: a handicap's own targets; null
  sets         0 (none) or 1..9: the sets to win, each to the target; 0
  deciding_target  null (the target) or 1..9999: the deciding set's, with sets; null
  shootout     true/false: a level end that may not stand goes to a shoot-out
               (with draw false, or sets); false
  warmup_s     0..900: each player's warm-up before the first stroke (0: none); 0
display.brightness  null (each display's own, from the board) or 0..15; null
sound.volume   0..100; 50 (the buzzer's cues)
voice          the referee's calls spoken (a board with a "speaker" and a voice pack)
  on           true/false; true
  volume       0..100 (0: silent); 80
  language     hu, en, de: the pack `carom deploy --voice` should copy; "hu"
  calls        "all" or a list of countdown, zero, foul, equalizing, end, break, clock,
               timeout, set; "all"
  totals       true/false: each point's running total too; false
buttons        timing overrides, each null (the board's) or a number:
  debounce_ms 0..500, long_ms 100..10000, stuck_ms 500..120000,
  lockout_ms 0..5000; those given must keep debounce < long < stuck
radio          (pairing with a referee remote)
  peer         the remote's MAC "aa:bb:cc:dd:ee:ff" (or 12 hex digits) or null
  key          SECRET: 32 bytes as 64 hex digits, or null
  wall_buttons what the wall buttons may still do while a remote is paired:
               "all" or a list of actions, e.g. ["point", "miss"]; "all"
wifi           ssid: text 0..32 bytes ("" = no Wi-Fi);
               password SECRET: "" (open) or 8..63 chars
mqtt           host: "" (no MQTT) or a host name/address [A-Za-z0-9.-] up to 64;
               port 1..65535 (1883); user text 0..64; password SECRET 0..64;
               table [a-z0-9_-] 0..24; prefix topic prefix [A-Za-z0-9_/-]
               1..64, not starting or ending with "/" ("carom");
               keepalive_s 5..600 (30): a silent board's will comes after 1.5x this
hall           (the hall's setups: publisher_hall.py)
  key          SECRET: 32 bytes as 64 hex digits, or null (no setups taken, reports sent unsigned)

Normalized: every key present; peer and key lower case, peer with colons.

Files
-----
config.json       what the user wrote (any subset of the schema)
config.good.json  a copy of the last config.json that validated; written when
                  a valid config.json is loaded (only if it differs) or saved
config.json.tmp   save() writes here, then renames over config.json (LittleFS
                  renames atomically: a power cut leaves the old or the new file;
                  FAT unlinks, then renames: if config.json is missing and the
                  .tmp is valid, load() finishes that rename)
No config.json at all means the defaults (delete it to reset the board); the
good copy is then removed so that it cannot bring old settings back later.

Error codes (load's second value; the app shows "E nn"; errorcodes.py has every code)
  0                      all good (or no config.json yet: the defaults)
  ERROR_CONFIG = 20      config.json is invalid: the last good configuration runs
  ERROR_CONFIG_DEFAULTS = 22  config.json is invalid and there is no valid good
                         copy: the defaults run
"""

import json
import os

import jsonwhole  # a file cut short is refused on every release
from confignames import (
    FILE,
    F_BYTES,
    F_NULL,
    F_OR_ZERO,
    F_SECRET,
    REDACTED,
    T_ACTIONS,
    T_BOOL,
    T_CHOICE,
    T_HEX,
    T_ID,
    T_INT,
    T_MAC,
    T_NAMES,
    T_OBJ,
    T_TEXT,
)
from errorcodes import ERROR_CONFIG, ERROR_CONFIG_DEFAULTS

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


from controller import ACTIONS  # the wall buttons' actions (radio.wall_buttons)
from matchwords import GAMES, MAX_INNINGS_LIMIT, MAX_TARGET
from voicenames import CALLS, LANGUAGES

MAX_BYTES = 4096  # a longer file is refused before it is parsed (RAM)

# Private constants, compiled in: a start that checks config.json (the first after a deploy)
# would keep every name this module holds interned for good (the schema's codes are
# confignames.py's, load()'s errorcodes.py's: the build compiles those in too).
_NAME_CHARS = const("abcdefghijklmnopqrstuvwxyz0123456789_-")
_HOST_CHARS = const("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")
_TOPIC_CHARS = const("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-/")


# One entry per key: (key, kind, default, lo, hi, flags, extra).
_PLAYER = (
    ("name", T_TEXT, "", 0, 24, 0, None),
    ("club", T_TEXT, "", 0, 24, 0, None),
)
SCHEMA = (
    ("board", T_ID, "wall", 1, 24, 0, _NAME_CHARS),
    ("name", T_TEXT, "", 0, 24, 0, None),
    (
        "players",
        T_OBJ,
        None,
        0,
        0,
        0,
        (
            ("A", T_OBJ, None, 0, 0, 0, _PLAYER),
            ("B", T_OBJ, None, 0, 0, 0, _PLAYER),
        ),
    ),
    (
        "match",
        T_OBJ,
        None,
        0,
        0,
        0,
        (
            ("game", T_CHOICE, "three_cushion", 0, 0, 0, GAMES),
            ("target", T_INT, 30, 1, MAX_TARGET, 0, None),
            ("innings_limit", T_INT, 0, 0, MAX_INNINGS_LIMIT, 0, None),
            ("equalizing", T_BOOL, True, 0, 0, 0, None),
            ("draw", T_BOOL, True, 0, 0, 0, None),
            ("shot_clock", T_INT, 0, 10, 300, F_OR_ZERO, None),
            ("timeouts", T_INT, None, 0, 9, F_NULL, None),
            ("timeout_s", T_INT, None, 10, 300, F_NULL, None),  # a time-out's extra seconds; null: one shot period
            ("break_s", T_INT, 180, 0, 3600, 0, None),
            ("breaker_ball", T_CHOICE, "spot", 0, 0, 0, ("spot", "white")),
            ("target_A", T_INT, None, 1, MAX_TARGET, F_NULL, None),
            ("target_B", T_INT, None, 1, MAX_TARGET, F_NULL, None),
            ("sets", T_INT, 0, 0, 9, 0, None),
            ("deciding_target", T_INT, None, 1, MAX_TARGET, F_NULL, None),
            ("shootout", T_BOOL, False, 0, 0, 0, None),
            ("warmup_s", T_INT, 0, 0, 900, 0, None),
        ),
    ),
    ("display", T_OBJ, None, 0, 0, 0, (("brightness", T_INT, None, 0, 15, F_NULL, None),)),
    ("sound", T_OBJ, None, 0, 0, 0, (("volume", T_INT, 50, 0, 100, 0, None),)),
    (
        "voice",
        T_OBJ,
        None,
        0,
        0,
        0,
        (
            ("on", T_BOOL, True, 0, 0, 0, None),
            ("volume", T_INT, 80, 0, 100, 0, None),
            ("language", T_CHOICE, "hu", 0, 0, 0, tuple(LANGUAGES.split())),
            ("calls", T_NAMES, "all", 0, 0, 0, tuple(CALLS.split())),
            ("totals", T_BOOL, False, 0, 0, 0, None),
        ),
    ),
    (
        "buttons",
        T_OBJ,
        None,
        0,
        0,
        0,
        (  # the ranges of boarddef.TIMINGS (a test checks)
            ("debounce_ms", T_INT, None, 0, 500, F_NULL, None),
            ("long_ms", T_INT, None, 100, 10000, F_NULL, None),
            ("stuck_ms", T_INT, None, 500, 120000, F_NULL, None),
            ("lockout_ms", T_INT, None, 0, 5000, F_NULL, None),
        ),
    ),
    (
        "radio",
        T_OBJ,
        None,
        0,
        0,
        0,
        (
            ("peer", T_MAC, None, 0, 0, F_NULL, None),
            ("key", T_HEX, None, 32, 32, F_NULL | F_SECRET, None),
            ("wall_buttons", T_ACTIONS, "all", 0, 0, 0, None),
            ("channel", T_INT, None, 1, 14, F_NULL, None),
        ),
    ),
    (
        "wifi",
        T_OBJ,
        None,
        0,
        0,
        0,
        (
            ("ssid", T_TEXT, "", 0, 32, F_BYTES, None),
            ("password", T_TEXT, "", 8, 63, F_SECRET | F_OR_ZERO, None),
        ),
    ),
    (
        "mqtt",
        T_OBJ,
        None,
        0,
        0,
        0,
        (
            ("host", T_ID, "", 0, 64, 0, _HOST_CHARS),
            ("port", T_INT, 1883, 1, 65535, 0, None),
            ("user", T_TEXT, "", 0, 64, 0, None),
            ("password", T_TEXT, "", 0, 64, F_SECRET, None),
            ("table", T_ID, "", 0, 24, 0, _NAME_CHARS),
            ("prefix", T_ID, "carom", 1, 64, 0, _TOPIC_CHARS),
            ("keepalive_s", T_INT, 30, 5, 600, 0, None),
        ),
    ),
    ("hall", T_OBJ, None, 0, 0, 0, (("key", T_HEX, None, 32, 32, F_NULL | F_SECRET, None),)),
)


# ---- checking -------------------------------------------------------------------


def normalize(d, source=FILE):
    """Check the config dict d; return a complete new dict (defaults filled in).
    Raises ValueError("<source>: <field path>: <what is wrong>")."""
    try:
        if type(d) is not dict:
            raise ValueError("expected an object, got %s" % _show(d, 0))
        out = _section(d, SCHEMA, "")
        _order(out["buttons"])
        _formats(out["match"])
        return out
    except ValueError as e:
        if source:
            raise ValueError("%s: %s" % (source, e))
        raise


def _formats(m):
    """The match options that go together (as rules.Match.new has them)."""
    if m["deciding_target"] is not None and not m["sets"]:
        _err("match.deciding_target", "goes with match.sets (0: no sets)")
    if m["shootout"] and m["draw"] and not m["sets"]:
        _err("match.shootout", "decides a draw that may not stand: set match.draw false, or match.sets")


validate = normalize


def defaults():
    """The complete configuration with every default."""
    return normalize({})


def _err(path, msg):
    raise ValueError("%s: %s" % (path, msg))


def _key(prefix, k):
    """The path of key k under prefix; an odd key is quoted (one line)."""
    if type(k) is not str or not k:
        return prefix + _show(k, 0)
    for c in k:
        if c not in _NAME_CHARS and c not in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
            k = _show(k, 0)
            break
    return prefix + k


def _show(v, flags):
    """v for an error message: JSON, one line, short; secrets hidden."""
    if flags & F_SECRET:
        return "(hidden)"
    try:
        s = json.dumps(v)
    except Exception:  # noqa: BLE001 -- e.g. too deeply nested
        s = "(%s)" % type(v).__name__
    if len(s) > 40:
        s = s[:37] + "..."
    return s


def _section(d, schema, prefix):
    keys = [e[0] for e in schema]
    for k in d:
        if k not in keys:
            _err(_key(prefix, k), "unknown key (expected %s)" % ", ".join(keys))
    out = {}
    for e in schema:
        key = e[0]
        path = prefix + key
        if e[1] == T_OBJ:
            v = d.get(key)
            if v is None:
                v = {}
            elif type(v) is not dict:
                _err(path, "expected an object, got %s" % _show(v, 0))
            out[key] = _section(v, e[6], path + ".")
        elif key in d:
            out[key] = _value(d[key], e, path)
        else:
            out[key] = e[2]
    return out


def _value(v, e, path):
    kind, lo, flags, extra = e[1], e[3], e[5], e[6]
    if v is None:
        if flags & F_NULL:
            return None
        # falls through: the type check names what is expected
    if kind == T_INT:
        return _int_value(v, e, path)
    if kind == T_BOOL:
        if type(v) is not bool:
            _err(path, "%s is not true or false" % _show(v, flags))
        return v
    if kind == T_CHOICE:
        if type(v) is not str or v not in extra:
            _err(path, "%s is not one of %s" % (_show(v, flags), ", ".join(extra)))
        return v
    if kind == T_ACTIONS:
        return _names(v, path, ACTIONS, "actions")
    if kind == T_NAMES:
        return _names(v, path, extra, "names")
    if type(v) is not str:
        _err(path, "%s is not a string" % _show(v, flags))
    if kind == T_HEX:
        if len(v) != 2 * lo or not _is_hex(v):
            _err(path, "%s is not %d bytes as %d hex digits" % (_show(v, flags), lo, 2 * lo))
        return v.lower()
    if kind == T_MAC:
        return _mac(v, path)
    return _text_value(v, e, path)


def _int_value(v, e, path):
    """An integer in lo..hi (or 0, with F_OR_ZERO)."""
    lo, hi, flags = e[3], e[4], e[5]
    if type(v) is not int:
        _err(path, "%s is not an integer" % _show(v, flags))
    if flags & F_OR_ZERO and v == 0:
        return v
    if not lo <= v <= hi:
        _err(path, "%d is not %sin %d..%d" % (v, "0 (off) or " if flags & F_OR_ZERO else "", lo, hi))
    return v


def _text_value(v, e, path):
    """A string of lo..hi characters (_F_BYTES: bytes in UTF-8): text (_T_TEXT) without
    control characters, or a name (_T_ID) of the characters in `extra`."""
    kind, lo, hi, flags, extra = e[1], e[3], e[4], e[5], e[6]
    n = len(v)
    if kind == T_TEXT:
        for c in v:
            o = ord(c)
            if o < 32 or 127 <= o < 160 or 0xD800 <= o < 0xE000:
                _err(path, "%s: control character %d is not allowed" % (_show(v, flags), o))
        if flags & F_BYTES:
            n = len(v.encode())
    else:  # T_ID
        for c in v:
            if c not in extra:
                _err(path, "%s: character %s is not allowed" % (_show(v, flags), _show(c, flags)))
        if "/" in extra and (v[:1] == "/" or v[-1:] == "/"):
            _err(path, "%s must not start or end with /" % _show(v, flags))
    if not (lo <= n <= hi or (flags & F_OR_ZERO and n == 0)):
        _err(
            path,
            "%s: length %d is not %sin %d..%d" % (_show(v, flags), n, "0 or " if flags & F_OR_ZERO else "", lo, hi),
        )
    if flags & F_SECRET and v == REDACTED:
        _err(path, "%s is the redacted placeholder, not a value" % _show(v, 0))
    return v


def _is_hex(s):
    for c in s:
        if c not in "0123456789abcdefABCDEF":
            return False
    return True


def _mac(v, path):
    h = v
    if len(v) == 17:  # aa:bb:cc:dd:ee:ff (MicroPython has no v[2::3])
        h = v[0:2] + v[3:5] + v[6:8] + v[9:11] + v[12:14] + v[15:17]
        if v[2] + v[5] + v[8] + v[11] + v[14] != ":::::":
            h = ""
    if len(h) != 12 or not _is_hex(h):
        _err(path, '%s is not a MAC address like "aa:bb:cc:dd:ee:ff"' % _show(v, 0))
    h = h.lower()
    return ":".join([h[i : i + 2] for i in range(0, 12, 2)])


def _names(v, path, names, what):
    if v == "all":
        return v
    if type(v) is not list:
        _err(path, '%s is not "all" or a list of %s' % (_show(v, 0), what))
    for i, a in enumerate(v):
        p = "%s[%d]" % (path, i)
        if type(a) is not str or a not in names:
            _err(p, "%s is not one of %s" % (_show(a, 0), ", ".join(names)))
        if a in v[:i]:
            _err(p, "%s is listed twice" % _show(a, 0))
    return list(v)


def _order(t):
    """The button timings given must keep debounce_ms < long_ms < stuck_ms."""
    last = None
    for key in ("debounce_ms", "long_ms", "stuck_ms"):
        v = t[key]
        if v is None:
            continue
        if last is not None and not t[last] < v:
            _err("buttons." + key, "%d is not above %s %d" % (v, last, t[last]))
        last = key


# ---- using it -------------------------------------------------------------------


def match_options(cfg):
    """The keyword arguments of rules.Match.new from a normalized config."""
    m = cfg["match"]
    opts = {}
    for k in m:
        opts[k] = m[k]
    for p in ("A", "B"):
        opts["name_" + p] = cfg["players"][p]["name"]
        opts["club_" + p] = cfg["players"][p]["club"]
    return opts


def redact(d):
    """A deep copy of d (any shape) with every non-empty SECRET value "***"."""
    return _redact(d, SCHEMA)


def _redact(d, schema):
    out = _copy(d)
    if type(out) is not dict:
        return out
    for e in schema:
        key = e[0]
        if key not in out:
            continue
        if e[1] == T_OBJ:
            out[key] = _redact(out[key], e[6])
        elif e[5] & F_SECRET and out[key] is not None and out[key] != "":
            out[key] = REDACTED
    return out


def _copy(v):
    if type(v) is dict:
        out = {}
        for k in v:
            out[k] = _copy(v[k])
        return out
    if type(v) is list:
        return [_copy(x) for x in v]
    return v


# ---- files ----------------------------------------------------------------------


def good_path(path=FILE):
    """config.json -> config.good.json"""
    if path.endswith(".json"):
        return path[:-5] + ".good.json"
    return path + ".good"


def load(path=FILE, fs=os):
    """(config, code, message): the normalized config and 0, None; or, if the
    file is invalid, the last good config (code _ERROR_CONFIG) or the defaults
    (_ERROR_CONFIG_DEFAULTS) and the one-line reason.  Never raises.

    `fs` supplies rename and remove (and open, if it has one)."""
    good = good_path(path)
    try:
        raw = _read(path, fs)
        if raw is None:
            raw = _finish_save(path, fs)
        if raw is None:  # no config.json: the defaults; a stale good copy must not come back
            _remove(good, fs)
            return defaults(), 0, None
        cfg = _parse(raw, path)
    except Exception as e:  # noqa: BLE001 -- anything at all: fall back, never brick
        msg = _line(e, path)
    else:
        try:
            if _read(good, fs) != raw:
                _write(good, raw, fs)
        except Exception:  # noqa: BLE001 -- the copy is a spare; the config is good
            pass
        return cfg, 0, None
    try:
        raw = _read(good, fs)
        if raw is not None:
            return _parse(raw, good), ERROR_CONFIG, msg
    except Exception:  # noqa: BLE001
        pass
    try:
        cfg = defaults()
    except Exception:  # noqa: BLE001 -- cannot happen; the schema's defaults are valid
        cfg = None
    return cfg, ERROR_CONFIG_DEFAULTS, msg


def save(d, path=FILE, fs=os):
    """Check d, then write it to `path` atomically (path.tmp, then rename) and
    to the good copy.  Returns the normalized config.  Raises ValueError (d is
    invalid; nothing written) or OSError."""
    cfg = normalize(d, path)
    try:
        text = json.dumps(d, indent=2, ensure_ascii=False)
    except TypeError:  # MicroPython: no options (and it writes UTF-8 as it is)
        text = json.dumps(d)
    raw = text.encode() + b"\n"
    if len(raw) > MAX_BYTES:
        raise ValueError("%s: %d bytes is more than %d" % (path, len(raw), MAX_BYTES))
    _write(path, raw, fs)
    _write(good_path(path), raw, fs)
    return cfg


def _line(e, path):
    msg = str(e) if isinstance(e, ValueError) else "%s: %s" % (path, repr(e))
    return msg.replace("\n", " ")


def _open(fs, path, mode):
    o = None if fs is os else getattr(fs, "open", None)  # CPython's os.open is not open
    return o(path, mode) if o else open(path, mode)


def _read(path, fs):
    """The file's bytes, or None if there is no such file."""
    try:
        f = _open(fs, path, "rb")
    except OSError as e:
        if e.args and e.args[0] == 2:  # ENOENT
            return None
        raise
    try:
        raw = f.read(MAX_BYTES + 1)
    finally:
        f.close()
    return raw


def _finish_save(path, fs):
    """A save cut between FAT's unlink of the old file and the rename (LittleFS
    renames atomically) left a complete, valid path.tmp: finish it."""
    raw = _read(path + ".tmp", fs)
    if raw is None:
        return None
    try:
        _parse(raw, path)
    except Exception:  # noqa: BLE001 -- a torn .tmp is no config
        return None
    fs.rename(path + ".tmp", path)
    return raw


def _parse(raw, path):
    if len(raw) > MAX_BYTES:
        raise ValueError("%s: more than %d bytes" % (path, MAX_BYTES))
    try:
        d = json.loads(raw.decode())
    except ValueError as e:  # UnicodeError is a ValueError
        raise ValueError("%s: not valid JSON: %s" % (path, e))
    if not jsonwhole.whole(raw):  # what json.loads lets by before MicroPython v1.26.0
        raise ValueError("%s: not valid JSON: cut short (an object or a list is not closed)" % path)
    return normalize(d, path)


def _write(path, raw, fs):
    import store

    store.replace(path, raw, None if fs is os else fs)  # CPython's os.open is not open


def _remove(path, fs):
    try:
        fs.remove(path)
    except Exception:  # noqa: BLE001 -- usually: no such file
        pass


# ---- editing: in config_edit.py (host tools, the REPL), imported only when used ------


def set_path(d, path, text, source=FILE):
    """config_edit.set_path: d with one key set from command-line text (a new dict)."""
    import config_edit

    return config_edit.set_path(d, path, text, source)


def get_path(d, path, source=FILE):
    """config_edit.get_path: the value at a dotted path, defaults filled in."""
    import config_edit

    return config_edit.get_path(d, path, source)

"""config.py: the schema, normalize, load (last good fallback), save (atomic),
set_path/get_path (config_edit.py) and redact.

Runs under pytest and the MicroPython unix port, both started from the repo
root.  Files go to a fresh folder under /tmp (tempfile on CPython); on
MicroPython the saves are also run on a LittleFS in RAM, with power cut after
every single block write.
"""

import json
import os

from fwtest import SkipTest, raises

import config
import config_edit
import rules
import rules_setup


def _root():
    f = __file__
    i = f.rfind("tests/fw/")
    if i > 0:  # absolute __file__ (pytest)
        return f[:i]
    return ""  # relative __file__ (MicroPython): cwd is the repo root


EXAMPLE = _root() + "examples/config.json"


def example():
    with open(EXAMPLE) as f:
        return json.loads(f.read())


# ---- temp folders and files ---------------------------------------------------------

_made = [0]


def tmpdir():
    try:
        import tempfile

        return tempfile.mkdtemp(prefix="carom_config_")
    except ImportError:  # MicroPython
        import time

        _made[0] += 1
        d = "/tmp/carom_config_%d_%d" % (time.time_ns(), _made[0])
        os.mkdir(d)
        return d


def rmtree(d):
    for name in os.listdir(d):
        os.remove(d + "/" + name)
    os.rmdir(d)


def in_tmpdir(test):
    """test(d, path) run in a new folder d (removed after), path its config.json."""

    def run():
        d = tmpdir()
        try:
            test(d, d + "/config.json")
        finally:
            rmtree(d)

    return run


def write(path, data):
    if type(data) is str:
        data = data.encode()
    with open(path, "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def complete(cfg):
    """cfg is a complete normalized configuration."""
    assert cfg == config.normalize(cfg), cfg
    for e in config.SCHEMA:
        assert e[0] in cfg, e[0]
    return cfg


def one_line(msg, path):
    assert "\n" not in msg, msg
    assert msg.startswith("config.json: " + path + ": "), (path, msg)
    return msg


# ---- the schema ------------------------------------------------------------------------


def test_example_validates():
    cfg = complete(config.normalize(example()))
    assert cfg["name"] == "Table 3"
    assert cfg["players"]["A"] == {"name": "Kim Ho", "club": "BC Budapest"}
    assert cfg["match"]["target"] == 40 and cfg["match"]["shot_clock"] == 40
    assert cfg["match"]["timeouts"] is None and cfg["match"]["timeout_s"] is None
    assert cfg["buttons"] == {"debounce_ms": None, "long_ms": 800, "stuck_ms": None, "lockout_ms": 500}
    assert cfg["radio"]["wall_buttons"] == ["point", "miss", "undo"]
    # every key of the schema is spelled out in the example ("a full example")
    d = example()
    for e in config.SCHEMA:
        assert e[0] in d, e[0]
        if e[1] == config.T_OBJ:
            for sub in e[6]:
                assert sub[0] in d[e[0]], (e[0], sub[0])


# The match options of a configuration that sets none: the rules' own defaults, every option but
# the breaker (the lag decides it) and the players' names and clubs (the players' section).
DEFAULT_MATCH = {k: v for k, v in rules_setup.DEFAULTS.items() if k != "breaker" and k[:5] not in ("name_", "club_")}


def test_defaults():
    d = config.defaults()
    assert d == config.normalize({}) and complete(d)
    assert d["board"] == "wall" and d["name"] == ""
    assert d["players"] == {"A": {"name": "", "club": ""}, "B": {"name": "", "club": ""}}
    assert d["match"] == DEFAULT_MATCH
    assert d["display"] == {"brightness": None}  # None: each display's own brightness
    assert d["sound"] == {"volume": 50}
    assert d["buttons"] == {"debounce_ms": None, "long_ms": None, "stuck_ms": None, "lockout_ms": None}
    assert d["radio"] == {"peer": None, "key": None, "wall_buttons": "all", "channel": None}
    assert d["wifi"] == {"ssid": "", "password": ""}
    assert d["mqtt"] == {
        "host": "",
        "port": 1883,
        "user": "",
        "password": "",
        "table": "",
        "prefix": "carom",
        "keepalive_s": 30,
    }


def test_partial_file_gets_the_other_defaults_and_null_sections():
    cfg = config.normalize({"match": {"target": 25}, "players": {"B": {"name": "Kim"}}, "wifi": None})
    assert cfg["match"]["target"] == 25 and cfg["match"]["game"] == "three_cushion"
    assert cfg["players"]["B"] == {"name": "Kim", "club": ""}
    assert cfg["players"]["A"] == {"name": "", "club": ""}
    assert cfg["wifi"] == config.defaults()["wifi"]  # a null section is the defaults


def test_normalize_is_idempotent_and_does_not_touch_its_input():
    d = example()
    before = json.dumps(d)
    n = config.normalize(d)
    assert json.dumps(d) == before
    assert config.normalize(n) == n
    n["match"]["target"] = 1  # a new dict, not shared with the input
    assert d["match"]["target"] == 40


def test_values_normalized():
    cfg = config.normalize({"radio": {"peer": "240AC4123456", "key": "AB" * 32}})
    assert cfg["radio"]["peer"] == "24:0a:c4:12:34:56"
    assert cfg["radio"]["key"] == "ab" * 32
    assert config.normalize({"radio": {"peer": "24:0A:C4:12:34:56"}})["radio"]["peer"] == "24:0a:c4:12:34:56"


# Each: what is tried, the broken config, the field path named, a part of the message.
BROKEN = (
    ("top level not an object", [1, 2], None, "expected an object"),
    ("typo at the top", {"bord": "wall"}, "bord", "unknown key (expected board, name,"),
    ("typo in a section", {"match": {"targte": 25}}, "match.targte", "unknown key"),
    ("typo in a player", {"players": {"A": {"nmae": "Kim"}}}, "players.A.nmae", "unknown key"),
    ("player C", {"players": {"C": {}}}, "players.C", "unknown key (expected A, B)"),
    ("odd key quoted", {"match": {"a b\n": 1}}, 'match."a b\\n"', "unknown key"),
    ("section not an object", {"match": 30}, "match", "expected an object, got 30"),
    ("section a list", {"players": []}, "players", "expected an object"),
    ("board upper case", {"board": "Wall"}, "board", 'character "W" is not allowed'),
    ("board empty", {"board": ""}, "board", "length 0 is not in 1..24"),
    ("board too long", {"board": "w" * 25}, "board", "length 25 is not in 1..24"),
    ("board an int", {"board": 3}, "board", "3 is not a string"),
    ("name too long", {"name": "T" * 25}, "name", "length 25 is not in 0..24"),
    ("name with a newline", {"name": "Table\n3"}, "name", "control character 10"),
    ("name with DEL", {"name": "Table\x7f"}, "name", "control character 127"),
    ("player name an int", {"players": {"A": {"name": 5}}}, "players.A.name", "5 is not a string"),
    ("club null", {"players": {"B": {"club": None}}}, "players.B.club", "null is not a string"),
    ("club too long", {"players": {"B": {"club": "x" * 25}}}, "players.B.club", "length 25"),
    ("unknown game", {"match": {"game": "pool"}}, "match.game", '"pool" is not one of straight_rail,'),
    ("game an int", {"match": {"game": 5}}, "match.game", "5 is not one of"),
    ("target 0", {"match": {"target": 0}}, "match.target", "0 is not in 1..9999"),
    ("target 10000", {"match": {"target": 10000}}, "match.target", "10000 is not in 1..9999"),
    ("target a string", {"match": {"target": "25"}}, "match.target", '"25" is not an integer'),
    ("target a float", {"match": {"target": 25.0}}, "match.target", "is not an integer"),
    ("target true (bool is not an int)", {"match": {"target": True}}, "match.target", "true is not an integer"),
    ("target null", {"match": {"target": None}}, "match.target", "null is not an integer"),
    ("innings_limit -1", {"match": {"innings_limit": -1}}, "match.innings_limit", "-1 is not in 0..999"),
    ("innings_limit 1000", {"match": {"innings_limit": 1000}}, "match.innings_limit", "not in 0..999"),
    ("equalizing 1", {"match": {"equalizing": 1}}, "match.equalizing", "1 is not true or false"),
    ("draw a string", {"match": {"draw": "yes"}}, "match.draw", '"yes" is not true or false'),
    ("shot_clock 5", {"match": {"shot_clock": 5}}, "match.shot_clock", "5 is not 0 (off) or in 10..300"),
    ("shot_clock 301", {"match": {"shot_clock": 301}}, "match.shot_clock", "301 is not 0 (off) or in 10..300"),
    ("timeouts 10", {"match": {"timeouts": 10}}, "match.timeouts", "10 is not in 0..9"),
    ("timeouts false", {"match": {"timeouts": False}}, "match.timeouts", "false is not an integer"),
    ("timeout_s 5", {"match": {"timeout_s": 5}}, "match.timeout_s", "5 is not in 10..300"),
    ("deciding set without sets", {"match": {"deciding_target": 11}}, "match.deciding_target", "goes with match.sets"),
    ("shoot-out with draws", {"match": {"shootout": True}}, "match.shootout", "decides a draw that may not stand"),
    ("sets 10", {"match": {"sets": 10}}, "match.sets", "10 is not in 0..9"),
    ("break_s 3601", {"match": {"break_s": 3601}}, "match.break_s", "3601 is not in 0..3600"),
    ("breaker_ball red", {"match": {"breaker_ball": "red"}}, "match.breaker_ball", "is not one of spot, white"),
    ("brightness 16", {"display": {"brightness": 16}}, "display.brightness", "16 is not in 0..15"),
    ("brightness on", {"display": {"brightness": True}}, "display.brightness", "true is not an integer"),
    ("volume 101", {"sound": {"volume": 101}}, "sound.volume", "101 is not in 0..100"),
    ("volume null", {"sound": {"volume": None}}, "sound.volume", "null is not an integer"),
    ("debounce 501", {"buttons": {"debounce_ms": 501}}, "buttons.debounce_ms", "501 is not in 0..500"),
    ("long_ms 99", {"buttons": {"long_ms": 99}}, "buttons.long_ms", "99 is not in 100..10000"),
    ("stuck_ms 200000", {"buttons": {"stuck_ms": 200000}}, "buttons.stuck_ms", "not in 500..120000"),
    ("lockout_ms -1", {"buttons": {"lockout_ms": -1}}, "buttons.lockout_ms", "-1 is not in 0..5000"),
    (
        "long not above debounce",
        {"buttons": {"debounce_ms": 300, "long_ms": 300}},
        "buttons.long_ms",
        "300 is not above debounce_ms 300",
    ),
    (
        "stuck not above long",
        {"buttons": {"long_ms": 3000, "stuck_ms": 2000}},
        "buttons.stuck_ms",
        "2000 is not above long_ms 3000",
    ),
    (
        "stuck not above debounce (long unset)",
        {"buttons": {"debounce_ms": 500, "stuck_ms": 500}},
        "buttons.stuck_ms",
        "is not above debounce_ms",
    ),
    ("peer short", {"radio": {"peer": "aa:bb:cc"}}, "radio.peer", "is not a MAC address"),
    ("peer with dashes", {"radio": {"peer": "aa-bb-cc-dd-ee-ff"}}, "radio.peer", "is not a MAC address"),
    ("peer not hex", {"radio": {"peer": "gg:bb:cc:dd:ee:ff"}}, "radio.peer", "is not a MAC address"),
    ("peer a list of bytes", {"radio": {"peer": [1, 2, 3, 4, 5, 6]}}, "radio.peer", "is not a string"),
    ("key 16 bytes", {"radio": {"key": "ab" * 16}}, "radio.key", "is not 32 bytes as 64 hex digits"),
    ("key not hex", {"radio": {"key": "zz" * 32}}, "radio.key", "is not 32 bytes"),
    ("wifi password the redacted placeholder", {"wifi": {"password": "***"}}, "wifi.password", "length 3"),
    ("mqtt password redacted", {"mqtt": {"password": "***"}}, "mqtt.password", "redacted placeholder"),
    (
        "wall_buttons a typo",
        {"radio": {"wall_buttons": ["point", "pont"]}},
        "radio.wall_buttons[1]",
        '"pont" is not one of point, miss,',
    ),
    ("wall_buttons twice", {"radio": {"wall_buttons": ["miss", "miss"]}}, "radio.wall_buttons[1]", "listed twice"),
    ("wall_buttons a word", {"radio": {"wall_buttons": "some"}}, "radio.wall_buttons", 'is not "all" or a list'),
    ("wall_buttons null", {"radio": {"wall_buttons": None}}, "radio.wall_buttons", 'is not "all"'),
    ("ssid 33 bytes", {"wifi": {"ssid": "s" * 33}}, "wifi.ssid", "length 33 is not in 0..32"),
    ("ssid 17 chars, 34 bytes", {"wifi": {"ssid": "\u00e9" * 17}}, "wifi.ssid", "length 34"),
    ("wifi password 7 chars", {"wifi": {"password": "1234567"}}, "wifi.password", "length 7 is not 0 or in 8..63"),
    ("wifi password 64 chars", {"wifi": {"password": "p" * 64}}, "wifi.password", "length 64"),
    ("mqtt host with a port", {"mqtt": {"host": "broker:1883"}}, "mqtt.host", 'character ":" is not allowed'),
    ("mqtt port 0", {"mqtt": {"port": 0}}, "mqtt.port", "0 is not in 1..65535"),
    ("mqtt port 65536", {"mqtt": {"port": 65536}}, "mqtt.port", "65536 is not in 1..65535"),
    ("mqtt port a string", {"mqtt": {"port": "1883"}}, "mqtt.port", "is not an integer"),
    ("mqtt keepalive 4 s", {"mqtt": {"keepalive_s": 4}}, "mqtt.keepalive_s", "4 is not in 5..600"),
    ("mqtt keepalive 601 s", {"mqtt": {"keepalive_s": 601}}, "mqtt.keepalive_s", "601 is not in 5..600"),
    ("mqtt user an int", {"mqtt": {"user": 7}}, "mqtt.user", "7 is not a string"),
    ("mqtt table with a slash", {"mqtt": {"table": "t/3"}}, "mqtt.table", 'character "/" is not allowed'),
    ("mqtt prefix with #", {"mqtt": {"prefix": "carom/#"}}, "mqtt.prefix", 'character "#" is not allowed'),
    ("mqtt prefix ends with /", {"mqtt": {"prefix": "carom/"}}, "mqtt.prefix", "must not start or end with /"),
    ("mqtt prefix empty", {"mqtt": {"prefix": ""}}, "mqtt.prefix", "length 0 is not in 1..64"),
)


def test_broken_configs_name_their_field():
    for what, d, path, part in BROKEN:
        e = raises(ValueError, config.normalize, d)
        msg = str(e)
        if path is None:
            assert msg.startswith("config.json: ") and "\n" not in msg, (what, msg)
        else:
            one_line(msg, path)
        assert part in msg, (what, part, msg)


def test_validate_is_normalize_and_source_prefix():
    assert config.validate({}) == config.defaults()
    e = raises(ValueError, config.validate, {"match": {"target": 0}}, "/flash/config.json")
    assert str(e) == "/flash/config.json: match.target: 0 is not in 1..9999", str(e)
    e = raises(ValueError, config.normalize, {"match": {"target": 0}}, None)
    assert str(e) == "match.target: 0 is not in 1..9999", str(e)


def test_secret_values_never_in_messages():
    for d, secret in (
        ({"wifi": {"password": "hunter2"}}, "hunter2"),
        ({"wifi": {"password": 12345678}}, "12345678"),
        ({"radio": {"key": "c0ffee" * 8}}, "c0ffee"),
        ({"mqtt": {"password": "pw\n" + "x" * 70}}, "pw"),
    ):
        msg = str(raises(ValueError, config.normalize, d))
        assert secret not in msg and "(hidden)" in msg, msg


def test_long_values_are_shortened_in_messages():
    msg = str(raises(ValueError, config.normalize, {"name": "x" * 1000}))
    assert len(msg) < 120, msg


def test_ranges_are_the_rules_ranges():
    # every value the schema takes, rules.Match.new takes, and the other way round
    tried = (
        ("game", rules.GAMES + ("pool", "")),
        ("target", (-1, 0, 1, 30, rules.MAX_TARGET, rules.MAX_TARGET + 1)),
        ("innings_limit", (-1, 0, 1, rules.MAX_INNINGS_LIMIT, rules.MAX_INNINGS_LIMIT + 1)),
        ("shot_clock", (-1, 0, 1, 9, 10, 300, 301)),
        ("timeouts", (None, -1, 0, 9, 10)),
        ("timeout_s", (None, -1, 0, 9, 10, 300, 301)),
        ("target_A", (None, 0, 1, rules.MAX_TARGET, rules.MAX_TARGET + 1)),
        ("target_B", (None, 0, 1, rules.MAX_TARGET, rules.MAX_TARGET + 1)),
        ("sets", (-1, 0, 1, 9, 10)),
        ("deciding_target", (None, 0, 11)),  # alone: it goes with sets, both refuse
        ("shootout", (False, True)),  # alone (draw on, no sets): both refuse the shoot-out
        ("warmup_s", (-1, 0, 300, 900, 901)),
        ("break_s", (-1, 0, 3600, 3601)),
        ("breaker_ball", ("spot", "white", "red")),
        ("equalizing", (True, False)),
        ("draw", (True, False)),
    )
    m = rules.Match()
    for key, values in tried:
        for v in values:
            try:
                config.normalize({"match": {key: v}})
                ok = True
            except ValueError:
                ok = False
            refused = m.new(0, **{key: v})
            assert ok == (refused is None), (key, v, ok, refused)
    assert config.normalize({})["match"]["target"] == 30
    assert config.SCHEMA[3][0] == "match"
    assert config.SCHEMA[3][6][0][6] is rules.GAMES  # the rules' own constant


def test_timings_and_actions_are_boarddef_s():
    import boarddef

    assert config.ACTIONS == boarddef.ACTIONS
    buttons = [e for e in config.SCHEMA if e[0] == "buttons"][0][6]
    assert [(e[0], e[3], e[4]) for e in buttons] == [(t[0], t[2], t[3]) for t in boarddef.TIMINGS]


def test_match_options_start_a_match():
    cfg = config.normalize(example())
    opts = config.match_options(cfg)
    assert opts == dict(
        DEFAULT_MATCH,
        target=40,
        innings_limit=50,
        shot_clock=40,
        break_s=300,
        name_A="Kim Ho",
        club_A="BC Budapest",
        name_B="Nagy Peter",
        club_B="Debreceni BC",
    ), opts
    m = rules.Match(**opts)
    assert m.names == ["Kim Ho", "Nagy Peter"] and m.clubs == ["BC Budapest", "Debreceni BC"]
    assert m.timeouts0 == 4  # null: the rules' default (with a shot clock: 3 below target 40, else 4)
    assert m.timeout_ms == 40000  # null: a time-out gives one more shot period
    opts["timeout_s"] = 20
    assert rules.Match(**opts).timeout_ms == 20000
    assert rules.Match(**config.match_options(config.defaults())).targets == [30, 30]


# ---- load: the last good configuration ----------------------------------------------------


@in_tmpdir
def test_load_no_file_gives_the_defaults(d, path):
    cfg, code, msg = config.load(path)
    assert (code, msg) == (0, None)
    assert cfg == config.defaults()
    assert os.listdir(d) == []  # nothing written


@in_tmpdir
def test_load_valid_file_keeps_a_good_copy(d, path):
    text = json.dumps(example())
    write(path, text)
    cfg, code, msg = config.load(path)
    assert (code, msg) == (0, None)
    assert cfg == config.normalize(example())
    assert read(d + "/config.good.json") == text.encode()  # byte for byte
    assert sorted(os.listdir(d)) == ["config.good.json", "config.json"]  # no .tmp left


# Each: what is tried, the bytes config.json is corrupted to, a part of the message.
CORRUPT = (
    ("invalid JSON: single quotes", b"{'match': {'target': 40}}", "config.json: not valid JSON"),
    ("invalid JSON: a bare word", b'{"match": {"draw": yes}}', "config.json: not valid JSON"),
    ("invalid JSON: two objects", b'{"name": "T1"} {"name": "T2"}', "config.json: not valid JSON"),
    ("truncated file", b'{"board": "wall", "match": {"tar', "config.json: not valid JSON"),
    ("empty file", b"", "config.json: not valid JSON"),
    ("not UTF-8", b'{"name": "\xff\xfe"}', "config.json: not valid JSON"),
    ("zero bytes (a flash page never written)", b"\x00" * 64, "config.json: not valid JSON"),
    ("a list", b"[]", "config.json: expected an object"),
    ("a bad value", b'{"match": {"target": 0}}', "config.json: match.target: 0 is not in 1..9999"),
    ("a typo", b'{"sound": {"volum": 10}}', "config.json: sound.volum: unknown key"),
    ("a bool for an int", b'{"display": {"brightness": true}}', "config.json: display.brightness: true is not"),
    ("too big", b'{"name": "' + b"x" * config.MAX_BYTES + b'"}', "config.json: more than 4096 bytes"),
)


@in_tmpdir
def test_load_invalid_file_runs_the_last_good(d, path):
    good = json.dumps(example()).encode()
    write(path, good)
    expected, code, _ = config.load(path)
    assert code == 0
    for what, raw, part in CORRUPT:
        write(path, raw)
        cfg, code, msg = config.load(path)
        assert code == config.ERROR_CONFIG == 20, (what, code)
        assert cfg == expected, what  # the good values run
        assert part in msg and "\n" not in msg, (what, msg)
        assert msg.startswith(path), (what, msg)
        assert read(d + "/config.good.json") == good, what  # never overwritten by a bad file
        assert read(path) == raw, what  # the bad file is left for the user to fix
    write(path, json.dumps({"match": {"target": 25}}))  # fixed: it runs, and is the new good copy
    cfg, code, msg = config.load(path)
    assert (code, msg, cfg["match"]["target"]) == (0, None, 25)
    write(path, b"{")
    cfg, code, msg = config.load(path)
    assert code == 20 and cfg["match"]["target"] == 25 and cfg["match"]["game"] == "three_cushion"


@in_tmpdir
def test_load_every_truncation_of_the_example(d, path):
    # a file cut short at any byte (an upload that stopped) runs the last good config
    full = read(EXAMPLE)
    write(path, b'{"name": "Table 9"}')
    assert config.load(path)[1] == 0
    for n in range(len(full.rstrip())):  # the last "}" and before
        write(path, full[:n])
        cfg, code, msg = config.load(path)
        assert code == 20 and cfg["name"] == "Table 9", (n, code, msg)
    write(path, full)
    assert config.load(path) == (config.normalize(example()), 0, None)


@in_tmpdir
def test_load_invalid_file_without_a_good_copy_runs_the_defaults(d, path):
    for what, raw, part in CORRUPT:
        write(path, raw)
        cfg, code, msg = config.load(path)
        assert code == config.ERROR_CONFIG_DEFAULTS == 22, (what, code)
        assert cfg == config.defaults(), what
        assert part in msg, (what, msg)
        assert not exists(d + "/config.good.json"), what
    # a corrupt good copy is no better than none
    write(d + "/config.good.json", b'{"match": {"target": 99999}}')
    cfg, code, msg = config.load(path)
    assert code == 22 and cfg == config.defaults()
    assert "more than 4096 bytes" in msg  # the reason is config.json's, not the copy's


@in_tmpdir
def test_load_without_config_json_forgets_an_old_good_copy(d, path):
    # deleting config.json resets to the defaults; the old copy must not come back later
    write(path, json.dumps({"match": {"target": 25}}))
    assert config.load(path)[1] == 0
    os.remove(path)
    cfg, code, msg = config.load(path)
    assert (code, msg) == (0, None) and cfg == config.defaults()
    assert os.listdir(d) == []
    write(path, "{")
    cfg, code, msg = config.load(path)
    assert code == 22 and cfg == config.defaults()


class CountingFS:
    """os for load/save, counting the files opened for writing; can fail on cue."""

    def __init__(self, fail_open=False, fail_rename=False):
        self.writes = []
        self.renames = []
        self.fail_open = fail_open
        self.fail_rename = fail_rename

    def open(self, path, mode):
        if self.fail_open:
            raise OSError(5)  # EIO
        if "w" in mode:
            self.writes.append(path.rpartition("/")[2])
        return open(path, mode)

    def rename(self, a, b):
        if self.fail_rename:
            raise OSError(28)  # ENOSPC, or the power went
        self.renames.append((a.rpartition("/")[2], b.rpartition("/")[2]))
        os.rename(a, b)

    def remove(self, path):
        os.remove(path)


@in_tmpdir
def test_load_writes_the_good_copy_only_when_it_changed(d, path):
    write(path, json.dumps(example()))
    fs = CountingFS()
    for _ in range(3):
        assert config.load(path, fs)[1] == 0
    assert fs.writes == ["config.good.json.tmp"], fs.writes  # once: flash is not worn at each boot
    assert fs.renames == [("config.good.json.tmp", "config.good.json")]


def test_load_never_raises_when_the_filesystem_fails():
    cfg, code, msg = config.load("/tmp/whatever/config.json", CountingFS(fail_open=True))
    assert code == 22 and cfg == config.defaults()
    assert msg.startswith("/tmp/whatever/config.json: ") and "5" in msg, msg

    class Broken:
        pass  # no open (so the builtin one), no rename, no remove

    d = tmpdir()
    try:
        write(d + "/config.json", b"{}")
        cfg, code, msg = config.load(d + "/config.json", Broken())  # the good copy cannot be written
        assert (code, msg) == (0, None) and cfg == config.defaults()
        cfg, code, msg = config.load(d + "/nothing.json", Broken())  # cannot remove a stale copy
        assert (code, msg) == (0, None)
    finally:
        rmtree(d)


@in_tmpdir
def test_load_a_directory_instead_of_a_file(d, path):
    os.mkdir(d + "/config.json")
    cfg, code, msg = config.load(d + "/config.json")
    assert code == 22 and cfg == config.defaults() and msg.startswith(d + "/config.json: "), msg
    os.rmdir(d + "/config.json")


# ---- save: atomic -----------------------------------------------------------------------


@in_tmpdir
def test_save_writes_atomically_and_keeps_the_good_copy(d, path):
    fs = CountingFS()
    cfg = config.save(example(), path, fs)
    assert cfg == config.normalize(example())
    assert fs.writes == ["config.json.tmp", "config.good.json.tmp"], fs.writes
    assert fs.renames == [("config.json.tmp", "config.json"), ("config.good.json.tmp", "config.good.json")]
    assert sorted(os.listdir(d)) == ["config.good.json", "config.json"]
    assert json.loads(read(path)) == example()  # what was given, not the filled-in dict
    assert read(d + "/config.good.json") == read(path)
    assert config.load(path, fs) == (cfg, 0, None)
    assert len(fs.writes) == 2  # the good copy was already right
    # saving again replaces the file (os.rename over an existing file)
    cfg2 = config.save({"match": {"target": 7}}, path)
    assert cfg2["match"]["target"] == 7
    assert config.load(path)[0] == cfg2
    assert sorted(os.listdir(d)) == ["config.good.json", "config.json"]


@in_tmpdir
def test_save_refuses_an_invalid_config_and_writes_nothing(d, path):
    config.save({"name": "Table 1"}, path)
    before = read(path)
    e = raises(ValueError, config.save, {"match": {"target": 0}}, path)
    assert str(e) == path + ": match.target: 0 is not in 1..9999", str(e)
    raises(ValueError, config.save, {"matc": {}}, path)
    assert read(path) == before
    assert sorted(os.listdir(d)) == ["config.good.json", "config.json"]


def largest():
    """A valid config as long as the schema allows (4-byte UTF-8 characters everywhere)."""
    wide = "\U0001f3b1"  # billiard ball emoji, 4 bytes in UTF-8
    player = {"name": wide * 24, "club": wide * 24}
    return {
        "board": "b" * 24,
        "name": wide * 24,
        "players": {"A": player, "B": player},
        "match": config.normalize({"match": {"innings_limit": 999, "target": 9999}})["match"],
        "display": {"brightness": 15},
        "sound": {"volume": 100},
        "buttons": {"debounce_ms": 500, "long_ms": 10000, "stuck_ms": 120000, "lockout_ms": 5000},
        "radio": {"peer": "aa:bb:cc:dd:ee:ff", "key": "ab" * 32, "wall_buttons": list(config.ACTIONS)},
        "wifi": {"ssid": wide * 8, "password": wide * 63},
        "mqtt": {
            "host": "h" * 64,
            "port": 65535,
            "user": wide * 64,
            "password": wide * 64,
            "table": "t" * 24,
            "prefix": "p" * 64,
        },
    }


@in_tmpdir
def test_save_the_largest_config_fits(d, path):
    big = largest()
    cfg = config.save(big, path)
    assert len(read(path)) <= config.MAX_BYTES
    assert config.load(path) == (cfg, 0, None)
    assert cfg["players"]["B"]["club"] == big["players"]["B"]["club"]


@in_tmpdir
def test_save_power_cut_before_the_rename_leaves_the_old_file(d, path):
    config.save({"match": {"target": 25}}, path)
    raises(OSError, config.save, {"match": {"target": 50}}, path, CountingFS(fail_rename=True))
    cfg, code, msg = config.load(path)  # the .tmp is ignored
    assert code == 0 and cfg["match"]["target"] == 25


@in_tmpdir
def test_load_finishes_a_save_cut_between_unlink_and_rename(d, path):
    # FAT renames over a file by unlinking it first: a cut there leaves only the .tmp
    config.save({"match": {"target": 25}}, path)
    write(path + ".tmp", json.dumps({"match": {"target": 50}}))
    os.remove(path)
    cfg, code, msg = config.load(path)
    assert (code, msg, cfg["match"]["target"]) == (0, None, 50)
    assert sorted(os.listdir(d)) == ["config.good.json", "config.json"]
    assert json.loads(read(d + "/config.good.json")) == {"match": {"target": 50}}
    # a torn .tmp (cut while it was written) is not taken: no config.json means the defaults
    write(path + ".tmp", b'{"match": {"tar')
    os.remove(path)
    assert config.load(path) == (config.defaults(), 0, None)


class RAMBlockDev:
    """A block device in RAM for os.VfsLfs2; after `budget` writes or erases it
    refuses all the others (the power went)."""

    def __init__(self, block_size=512, blocks=32, data=None):
        self.block_size = block_size
        self.data = bytearray(block_size * blocks) if data is None else bytearray(data)
        self.budget = -1  # unlimited
        self.ops = 0

    def _spend(self):
        if self.budget >= 0 and self.ops >= self.budget:
            raise OSError(5)
        self.ops += 1

    # No allocation here: a VfsLfs2 left to the GC syncs from its finaliser, heap locked.
    def readblocks(self, n, buf, off=0):
        a = n * self.block_size + off
        data = self.data
        for i in range(len(buf)):
            buf[i] = data[a + i]

    def writeblocks(self, n, buf, off=None):
        self._spend()
        if off is None:
            off = 0
        a = n * self.block_size + off
        data = self.data
        for i in range(len(buf)):
            data[a + i] = buf[i]

    def ioctl(self, op, arg):
        if op == 4:  # block count
            return len(self.data) // self.block_size
        if op == 5:  # block size
            return self.block_size
        if op == 6:  # erase
            self._spend()
            a = arg * self.block_size
            data = self.data
            for i in range(a, a + self.block_size):
                data[i] = 0xFF
            return 0
        return 0


def _lfs():
    if not hasattr(os, "VfsLfs2"):
        raise SkipTest("no os.VfsLfs2 here (MicroPython only)")
    return os.VfsLfs2


def test_save_and_load_on_littlefs():
    lfs = _lfs()
    bdev = RAMBlockDev()
    lfs.mkfs(bdev)
    vfs = lfs(bdev)  # a Vfs has open, rename, remove: the `fs` of load and save
    assert config.load("config.json", vfs) == (config.defaults(), 0, None)
    config.save({"match": {"target": 25}}, "config.json", vfs)
    config.save({"match": {"target": 50}}, "config.json", vfs)  # rename over the old one
    assert sorted([x[0] for x in vfs.ilistdir("/")]) == ["config.good.json", "config.json"]
    cfg, code, msg = config.load("config.json", lfs(RAMBlockDev(data=bdev.data)))  # remounted
    assert code == 0 and cfg["match"]["target"] == 50


def test_save_on_littlefs_survives_a_power_cut_anywhere():
    # the power goes after every possible number of block writes of a save:
    # the remounted file system holds the old or the new config, never a broken one
    lfs = _lfs()
    bdev = RAMBlockDev()
    lfs.mkfs(bdev)
    vfs = lfs(bdev)
    config.save({"match": {"target": 25}}, "config.json", vfs)
    before = bytes(bdev.data)
    bdev.ops = 0
    config.save({"match": {"target": 50}}, "config.json", vfs)
    total = bdev.ops
    assert total > 2, total
    seen = set()
    for budget in range(total + 1):
        dev = RAMBlockDev(data=before)
        vfs = lfs(dev)
        dev.budget = budget
        try:
            config.save({"match": {"target": 50}}, "config.json", vfs)
        except OSError:
            pass
        dev.budget = -1
        cfg, code, msg = config.load("config.json", lfs(RAMBlockDev(data=dev.data)))
        assert code == 0, (budget, code, msg)
        assert cfg["match"]["target"] in (25, 50), budget
        seen.add(cfg["match"]["target"])
    assert seen == set((25, 50)), seen


# ---- set_path / get_path -------------------------------------------------------------------


def test_set_path_parses_by_the_schema_type():
    d = {}
    assert config.set_path(d, "match.target", "25") == {"match": {"target": 25}}
    assert config.set_path(d, "match.target", " 25 ")["match"]["target"] == 25
    assert config.set_path(d, "buttons.lockout_ms", "-0")["buttons"]["lockout_ms"] == 0
    for text, value in (("on", True), ("off", False), ("true", True), ("False", False), ("ON", True)):
        assert config.set_path(d, "match.draw", text)["match"]["draw"] is value, text
    assert config.set_path(d, "match.timeouts", "null")["match"]["timeouts"] is None
    assert config.set_path(d, "match.timeouts", "3")["match"]["timeouts"] == 3
    assert config.set_path(d, "display.brightness", "null") == {"display": {"brightness": None}}
    assert config.set_path(d, "players.A.name", "Kim Ho") == {"players": {"A": {"name": "Kim Ho"}}}
    assert config.set_path(d, "players.A.name", "null")["players"]["A"]["name"] == "null"  # a string
    assert config.set_path(d, "players.A.name", "") == {"players": {"A": {"name": ""}}}
    assert config.set_path(d, "radio.peer", "24:0A:C4:12:34:56")["radio"]["peer"] == "24:0A:C4:12:34:56"
    assert config.set_path(d, "radio.peer", "null")["radio"]["peer"] is None
    assert config.set_path(d, "radio.key", "ab" * 32)["radio"]["key"] == "ab" * 32
    assert config.set_path(d, "radio.wall_buttons", "point, miss")["radio"]["wall_buttons"] == ["point", "miss"]
    assert config.set_path(d, "radio.wall_buttons", "all")["radio"]["wall_buttons"] == "all"
    assert config.set_path(d, "radio.wall_buttons", "none")["radio"]["wall_buttons"] == []
    assert config.set_path(d, "match.game", "one_cushion")["match"]["game"] == "one_cushion"
    assert config.set_path(d, "board", "mini") == {"board": "mini"}
    assert config.set_path(d, "match.target", 12)["match"]["target"] == 12  # a value is taken as it is
    assert d == {}


def test_whole_takes_plain_ascii_digits_only():
    """One function reads every number from text (config set, the scripted mode); int()
    alone takes Arabic-Indic and fullwidth digits on CPython, not on MicroPython."""
    for text, value in (("0", 0), ("10", 10), ("-3", -3), ("-0", 0), ("007", 7), ("9999", 9999)):
        assert config_edit.whole(text) == value, text
    for text in (
        "",
        "-",
        "+5",
        " 5",
        "5 ",
        "2.5",
        "1e3",
        "0x10",
        "1_0",
        "--1",
        "abc",
        "\u0663",
        "\uff11\uff10",
        "\u00b9",
        "1\u0660",
        "\u06f5",
        "\u0969",
    ):
        assert config_edit.whole(text) is None, text
    for text in ("\u0663", "\uff11\uff10"):
        e = raises(ValueError, config.set_path, {}, "match.target", text)
        assert "is not an integer" in str(e), str(e)


def test_set_path_returns_a_new_dict():
    d = example()
    before = json.dumps(d)
    new = config.set_path(d, "players.B.club", "BC Eger")
    assert json.dumps(d) == before  # the input is unchanged, all the way down
    assert new["players"]["B"]["club"] == "BC Eger"
    assert new["players"]["A"] == d["players"]["A"]
    new["radio"]["wall_buttons"].append("foul")
    assert d["radio"]["wall_buttons"] == ["point", "miss", "undo"]
    assert config.set_path(None, "name", "Table 1") == {"name": "Table 1"}
    assert config.set_path({"match": None}, "match.target", "5") == {"match": {"target": 5}}


def test_set_path_refusals_name_the_field():
    for what, d, path, text, field, part in (
        ("not a number", {}, "match.target", "abc", "match.target", '"abc" is not an integer'),
        ("a float", {}, "match.target", "2.5", "match.target", '"2.5" is not an integer'),
        ("out of range", {}, "match.target", "0", "match.target", "0 is not in 1..9999"),
        ("null where not allowed", {}, "match.target", "null", "match.target", '"null" is not an integer'),
        ("a bool word", {}, "match.draw", "maybe", "match.draw", '"maybe" is not on, off, true or false'),
        ("1 is not a bool", {}, "match.draw", "1", "match.draw", "is not on, off, true or false"),
        ("unknown key", {}, "match.targte", "5", "match.targte", "unknown key (expected game,"),
        ("unknown section", {}, "matc.target", "5", "matc", "unknown key (expected board,"),
        ("below a value", {}, "match.target.x", "5", "match.target.x", "match.target is not a section"),
        ("a whole section", {}, "match", "5", "match", "a section, not a value"),
        ("empty path", {}, "", "5", '""', "unknown key"),
        ("bad name", {}, "players.A.name", "x" * 30, "players.A.name", "length 30"),
        ("bad action", {}, "radio.wall_buttons", "point,pnt", "radio.wall_buttons[1]", '"pnt" is not one of'),
        ("order", {"buttons": {"long_ms": 1000}}, "buttons.stuck_ms", "900", "buttons.stuck_ms", "is not above"),
        ("section not an object", {"match": 3}, "match.target", "5", "match", "expected an object, got 3"),
        ("input not an object", [1], "match.target", "5", "config", "expected an object"),
        ("another field already bad", {"sound": {"volume": 500}}, "match.target", "5", "sound.volume", "500"),
    ):
        e = raises(ValueError, config.set_path, d, path, text)
        one_line(str(e), field)
        assert part in str(e), (what, str(e))


def test_get_path():
    d = example()
    assert config.get_path(d, "match.target") == 40
    assert config.get_path(d, "players.A.name") == "Kim Ho"
    assert config.get_path({}, "sound.volume") == 50  # the default
    assert config.get_path({}, "mqtt") == config.defaults()["mqtt"]
    assert config.get_path({"radio": {"peer": "AABBCCDDEEFF"}}, "radio.peer") == "aa:bb:cc:dd:ee:ff"
    one_line(str(raises(ValueError, config.get_path, {}, "sound.volum")), "sound.volum")
    one_line(str(raises(ValueError, config.get_path, {"sound": {"volume": 500}}, "sound.volume")), "sound.volume")
    assert config_edit.get_path is not None  # the module the board does not load at boot


# ---- redact ---------------------------------------------------------------------------------


def test_redact_hides_every_secret():
    d = config.set_path(example(), "radio.key", "c0ffee00" * 8)
    d = config.set_path(d, "wifi.password", "hunter2hunter2")
    d = config.set_path(d, "mqtt.password", "s3cret")
    before = json.dumps(d)
    r = config.redact(d)
    assert json.dumps(d) == before  # a copy
    text = json.dumps(r)
    for secret in ("c0ffee", "hunter2", "s3cret"):
        assert secret not in text, secret
    assert r["radio"]["key"] == r["wifi"]["password"] == r["mqtt"]["password"] == "***"
    assert r["radio"]["peer"] == d["radio"]["peer"] and r["players"] == d["players"]  # the rest stays
    r["players"]["A"]["name"] = "x"
    assert d["players"]["A"]["name"] == "Kim Ho"
    # unset secrets stay visibly unset; any shape is fine (e.g. a broken file's contents)
    n = config.redact(config.defaults())
    assert n["radio"]["key"] is None and n["wifi"]["password"] == "" and n == config.defaults()
    assert config.redact({"wifi": 3, "radio": {"key": 12}, "x": 1}) == {"wifi": 3, "radio": {"key": "***"}, "x": 1}
    assert config.redact([1]) == [1] and config.redact(None) is None
    # a redacted config is not taken back as the real one
    e = raises(ValueError, config.normalize, config.redact(d))
    assert "radio.key" in str(e) or "mqtt.password" in str(e), str(e)


def test_the_formats_options_start_such_a_match():
    # A handicap, sets with a shorter deciding set, the shoot-out and a warm-up: through the
    # config to the rules core, which then has the formats (formats.py) with these options.
    cfg = config.normalize(
        {
            "match": {
                "target": 15,
                "target_A": 15,
                "target_B": 11,
                "sets": 3,
                "deciding_target": 11,
                "shootout": True,
                "warmup_s": 300,
            }
        }
    )
    m = rules.Match(**config.match_options(cfg))
    assert m.targets == [15, 11] and m.fmt is not None
    assert (m.sets_to_win, m.deciding_target, m.shootout, m.warmup_ms) == (3, 11, True, 300000)
    plain = rules.Match(**config.match_options(config.defaults()))
    assert plain.fmt is None and plain.targets == [30, 30]


def test_the_board_keeps_only_the_options_that_differ_and_they_start_the_same_match():
    # startup.match_options (the board's, kept for every new match) leaves out what equals the
    # rules' defaults; the match it starts is the one the full options start.
    import matchdoc

    try:
        import startup
    except ImportError:  # startup.py imports app.py, which imports machine: CPython has none
        raise SkipTest("startup.py needs app.py, which needs machine")
    for d in (
        example(),
        {},
        {"match": {"equalizing": False, "draw": False, "shootout": True, "sets": 0}},
        {"match": {"sets": 3, "deciding_target": 11, "target_A": 20, "warmup_s": 60, "break_s": 180}},
        {"players": {"A": {"name": "Kim"}}, "match": {"innings_limit": 0, "shot_clock": 40}},
    ):
        cfg = config.normalize(d)
        full = config.match_options(cfg)
        kept = startup.match_options(cfg)
        assert set(kept) <= set(full) and all(kept[k] == full[k] for k in kept)
        a, b = rules.Match(**full), rules.Match(**kept)
        assert matchdoc.doc(a, 0) == matchdoc.doc(b, 0), d
    assert startup.match_options(config.defaults()) == {}  # the rules' defaults, all of them


def test_config_names_its_codes_from_their_homes():
    """The schema's codes are confignames.py's, load()'s errorcodes.py's: config.X is theirs."""
    import confignames
    import errorcodes

    assert config.T_OBJ == confignames.T_OBJ == 8 and config.REDACTED == confignames.REDACTED == "***"
    assert config.ERROR_CONFIG_DEFAULTS == errorcodes.ERROR_CONFIG_DEFAULTS == 22


def test_a_file_cut_short_is_never_whole():
    from jsonwhole import whole

    # MicroPython before v1.26.0 reads {"a": {"b": 1} as whole: the check of its own says it is not
    assert whole(b'{"a": {"b": 1}, "c": [1, "}]"], "d": "\\"{"}')
    for cut in (b'{"a": {"b": 1}', b'{"a": [1, 2]', b'{"a": "x}', b'{"a": "\\"}', b"{", b'{"a": {"b": {}}'):
        assert not whole(cut), cut
    full = read(EXAMPLE).rstrip()
    assert whole(full)
    assert [n for n in range(len(full)) if whole(full[:n])] == [0]  # only the empty cut, refused by json

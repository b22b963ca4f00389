"""boarddef.py: the shipped boards validate; broken definitions give a
one-line ValueError naming the file and the offending field.

Runs under pytest and the MicroPython unix port, both started from the repo
root, so "boards/..." relative to the working directory works in both.
"""

import json
import os

from fwtest import raises

import boarddef


def _boards_dir():
    f = __file__
    i = f.rfind("tests/fw/")
    if i > 0:  # absolute __file__ (pytest)
        return f[:i] + "boards"
    return "boards"  # relative __file__ (MicroPython): cwd is the repo root


BOARDS = _boards_dir()


def raw(name):
    """The board's JSON as a fresh dict (safe to break)."""
    with open("%s/%s.json" % (BOARDS, name)) as f:
        return json.loads(f.read())


def broken(name, mutate, *expect):
    """Break board `name` with mutate(d); the error must be one line that
    starts with the file and contains every string in `expect`."""
    d = raw(name)
    mutate(d)
    src = "boards/%s.json" % name
    e = raises(ValueError, boarddef.validate, d, src)
    msg = str(e)
    assert "\n" not in msg, msg
    assert msg.startswith(src + ": "), msg
    for s in expect:
        assert s in msg, (s, msg)
    return msg


def _set(d, path, value):
    """d at a path like ("displays", 2, "addr") becomes value."""
    for k in path[:-1]:
        d = d[k]
    d[path[-1]] = value


def setter(*path_and_value):
    path, value = path_and_value[:-1], path_and_value[-1]
    return lambda d: _set(d, path, value)


def deleter(*path):
    def f(d):
        for k in path[:-1]:
            d = d[k]
        del d[path[-1]]

    return f


# --- the shipped boards --------------------------------------------------------


def test_shipped_boards_validate():
    for name in ("wall", "mini", "referee"):
        b = boarddef.load("%s/%s.json" % (BOARDS, name))
        assert b["name"] == name
        assert b["warnings"] == [], b["warnings"]
        assert b["source"].endswith(name + ".json")


def test_wall_board_normalized():
    b = boarddef.load(BOARDS + "/wall.json")
    assert b["role"] == "wall"
    assert [x["bus"] for x in b["i2c"]] == [0, 1]
    assert len(b["displays"]) == 16
    d0 = b["displays"][0]
    assert d0 == {
        "bus": 0,
        "addr": 0x70,
        "kind": "seg7",
        "digits": 4,
        "brightness": 8,
        "show": [{"field": "A.score", "at": 0, "width": 4}],
        "size": 1.2,
    }
    assert b["displays"][1]["show"] == [
        {"field": "A.innings", "at": 0, "width": 2},
        {"field": "A.run", "at": 2, "width": 2},
    ]
    shown = []
    for c in b["displays"]:
        for s in c["show"]:
            shown.append(s["field"])
    for f in ("score", "innings", "run", "high_run", "average", "name", "target"):  # each his own target
        assert "A." + f in shown and "B." + f in shown, f
    for f in ("countdown", "sets", "clock", "message"):
        assert f in shown, f
    assert "target" not in shown  # the shared target (the player at the table's): A.target and B.target do
    assert b["buttons"][names_of(b).index("new")]["action"] == "next_set"
    assert b["buttons"][names_of(b).index("break")]["long_action"] == "warmup"
    names = [x["name"] for x in b["buttons"]]
    assert names == sorted(["A.point", "A.end", "B.point", "B.end", "foul", "break", "new"])
    ap = b["buttons"][names.index("A.point")]
    assert ap["action"] == "A.point" and ap["long_action"] == "undo" and ap["lockout"] is True
    assert ap["pull"] is None and ap["pin"] == 34
    assert b["buttons"][names.index("new")]["long_ms"] == 3000
    assert b["buttons"][names.index("foul")]["long_ms"] == 1000
    assert b["leds"]["A.turn"] == {"pin": 18, "active_low": False}
    assert set(b["leds"]) == set(boarddef.LEDS)
    assert b["safe_boot_button"] == "new"
    assert b["timings"] == {"debounce_ms": 50, "long_ms": 1000, "stuck_ms": 5000, "lockout_ms": 400}


def test_mini_and_referee_defaults_filled_in():
    m = boarddef.load(BOARDS + "/mini.json")
    assert m["i2c"] == [{"bus": 0, "sda": 21, "scl": 22, "freq": 400000}]  # one object -> list
    assert [c["show"][0]["field"] for c in m["displays"]] == ["A.score", "B.score"]
    assert len(m["buttons"]) == 2
    assert m["leds"] == {} and m["buzzer"] is None
    assert m["timings"]["lockout_ms"] == 400 and m["brightness"] == 8
    r = boarddef.load(BOARDS + "/referee.json")
    assert r["role"] == "remote"
    assert len(r["displays"]) == 1 and r["displays"][0]["brightness"] == 4
    actions = set()
    for x in r["buttons"]:
        actions.add(x["action"])
        actions.add(x["long_action"])
    for a in ("point", "miss", "foul", "foul.time", "undo", "break", "timeout", "new_match"):
        assert a in actions, a


def test_load_accepts_a_dict_and_then_has_no_source_prefix():
    b = boarddef.load(raw("mini"))
    assert b["source"] is None
    d = raw("mini")
    d["brightness"] = 99
    e = raises(ValueError, boarddef.load, d)
    assert str(e) == "brightness: 99 is not in 0..15", str(e)


def test_load_reports_bad_json_and_missing_file():
    # a name of its own: make test runs both MicroPython builds and pytest at once
    path = "/tmp/boarddef_test_bad_%s.json" % "".join("%02x" % b for b in os.urandom(4))
    with open(path, "w") as f:
        f.write('{"name": "x", ')  # truncated file
    try:
        e = raises(ValueError, boarddef.load, path)
    finally:
        os.remove(path)
    assert str(e).startswith(path + ": not valid JSON"), str(e)
    raises(OSError, boarddef.load, "/tmp/boarddef_no_such_board.json")


# --- broken definitions: each names the field -----------------------------------


def test_display_address_out_of_range_exact_message():
    # addr 0x80 on the third chip: the example message from the brief
    msg = broken("wall", setter("displays", 2, "addr", "0x80"))
    assert msg == "boards/wall.json: displays[2].addr: 0x80 is not in 0x70..0x77", msg


def test_display_address_spelling():
    # an integer address (112) is refused: one spelling, the hex string
    broken("wall", setter("displays", 0, "addr", 112), "displays[0].addr", "hex string")
    # "0x7g" is not hex
    broken("wall", setter("displays", 0, "addr", "0x7g"), "displays[0].addr", "not a hex number")
    # "70" without 0x
    broken("mini", setter("displays", 1, "addr", "70"), "displays[1].addr")


def test_duplicate_display_address_on_one_bus():
    # second chip of mini also at 0x70
    broken(
        "mini", setter("displays", 1, "addr", "0x70"), "displays[1].addr: 0x70 is already used on bus 0 by displays[0]"
    )
    # the same address on the other bus is fine: the wall board does it
    boarddef.validate(raw("wall"))


def test_display_kind_and_show_values():
    # kind "seg8"
    broken("mini", setter("displays", 0, "kind", "seg8"), "displays[0].kind", '"seg8"')
    # a typo in a field name
    broken("mini", setter("displays", 0, "show", "A.scroe"), "displays[0].show", '"A.scroe" is not a field')
    # a field in a list part that does not exist
    broken("wall", setter("displays", 1, "show", 1, "field", "A.runs"), "displays[1].show[1].field")
    # a name on a 7-segment chip
    broken("wall", setter("displays", 6, "kind", "seg7"), "displays[6].show", "seg14")
    # show empty list, and a number
    broken("mini", setter("displays", 0, "show", []), "displays[0].show")
    broken("mini", setter("displays", 0, "show", 7), "displays[0].show")


def test_display_size():
    # the digit height (inches) as the file gives it, from the sizes sold for its kind
    w = boarddef.load(BOARDS + "/wall.json")
    for c in w["displays"]:
        assert c["size"] == (1.2 if c["kind"] == "seg7" else 0.54), c
        assert c["size"] in boarddef.SIZES[c["kind"]]
    assert boarddef.load(BOARDS + "/referee.json")["displays"][0]["size"] == 0.56
    # absent: no key is added (no default in the running board's dict)
    d = raw("mini")
    del d["displays"][0]["size"]
    b = boarddef.validate(d)
    assert "size" not in b["displays"][0] and b["displays"][1]["size"] == 1.2
    # a size not sold for the kind, a 7-segment size on a 14-segment chip, other types
    msg = broken("mini", setter("displays", 0, "size", 0.8), "displays[0].size", "0.8 is not a seg7 digit height")
    assert "0.56, 1.2 (inches)" in msg, msg
    broken("wall", setter("displays", 6, "size", 1.2), "displays[6].size", "not a seg14 digit height", "0.54")
    broken("mini", setter("displays", 1, "size", "1.2"), "displays[1].size", '"1.2" is not a seg7 digit height')
    broken("mini", setter("displays", 1, "size", 1), "displays[1].size", "1 is not a seg7 digit height")
    # the board's start loads without sizes (it draws none): checked all the same, none kept
    b = boarddef.load(BOARDS + "/wall.json", False)
    assert [c for c in b["displays"] if "size" in c] == []
    assert b["displays"] == [dict((k, v) for k, v in c.items() if k != "size") for c in w["displays"]]
    d = raw("mini")
    d["displays"][0]["size"] = 0.8
    e = raises(ValueError, boarddef.validate, d, None, False)
    assert "displays[0].size: 0.8 is not a seg7 digit height" in str(e), e
    broken("mini", setter("displays", 1, "size", True), "displays[1].size", "true is not a seg7 digit height")


def test_show_parts_must_fit_and_not_overlap():
    # run at digit 1 overlaps innings (digits 0-1)
    broken(
        "wall", setter("displays", 1, "show", 1, "at", 1), "displays[1].show[1]", "digit 1 is already used by A.innings"
    )
    # run 3 wide from digit 2 leaves the chip
    broken("wall", setter("displays", 1, "show", 1, "width", 3), "displays[1].show[1].width", "3 is not in 1..2")
    # at 4: there is no digit 4
    broken("wall", setter("displays", 1, "show", 1, "at", 4), "displays[1].show[1].at")
    # a part without "width"
    broken("wall", deleter("displays", 1, "show", 0, "width"), "displays[1].show[0]", 'missing key "width"')


def test_unknown_keys_are_errors():
    # typo in a display key
    broken("mini", lambda d: d["displays"][0].update({"shwo": "A.score"}), "displays[0]", 'unknown key "shwo"')
    # typo at the top level
    broken("mini", lambda d: d.update({"buzer": 4}), "board", 'unknown key "buzer"')
    # typo in a button key: the long action would silently vanish
    broken(
        "mini",
        lambda d: d["buttons"]["point"].update({"long_actoin": "undo"}),
        'buttons["point"]',
        'unknown key "long_actoin"',
    )
    # typo in timings, in i2c
    broken("mini", setter("timings", {"debounce": 30}), "timings", 'unknown key "debounce"')
    broken("mini", lambda d: d["i2c"].update({"frequency": 100000}), "i2c", 'unknown key "frequency"')
    # a comment must be a string
    broken("mini", lambda d: d["i2c"].update({"comment": 5}), "i2c.comment")


def test_missing_keys():
    broken("mini", deleter("description"), "board", 'missing key "description"')
    broken("mini", deleter("buttons", "point", "active_low"), 'buttons["point"]', 'missing key "active_low"')
    broken("mini", deleter("displays", 0, "addr"), "displays[0]", 'missing key "addr"')


def test_i2c_errors():
    # displays but no bus
    broken("mini", deleter("i2c"), "i2c: the displays need an i2c bus")
    # 1 MHz is beyond the HT16K33
    broken("mini", setter("i2c", "freq", 1000000), "i2c.freq", "1000000 is not in 10000..400000")
    # both wall buses numbered 0
    broken("wall", setter("i2c", 1, "bus", 0), "i2c[1].bus", "defined twice")
    # two buses and a display that does not say which
    broken("wall", deleter("displays", 3, "bus"), "displays[3]", '"bus"')
    # a display on a bus that does not exist
    broken("mini", setter("displays", 0, "bus", 1), "displays[0].bus: bus 1 is not in i2c")
    # i2c a string
    broken("mini", setter("i2c", "21,22"), "i2c")
    # bus 2 (the ESP32 has 0 and 1)
    broken("mini", setter("i2c", "bus", 2), "i2c.bus", "2 is not in 0..1")


def test_pin_errors():
    # an LED on the I2C data pin
    broken("wall", setter("leds", "A.turn", 21), 'leds["A.turn"]: GPIO21 is already used by i2c[0].sda')
    # two buttons on one pin
    broken(
        "mini",
        setter("buttons", "end", "pin", 32),
        'buttons["point"].pin: GPIO32 is already used by buttons["end"].pin',
    )
    # the flash pins, a pin that does not exist, the REPL UART
    broken("mini", setter("buttons", "end", "pin", 6), 'buttons["end"].pin', "flash")
    broken("mini", setter("buttons", "end", "pin", 20), 'buttons["end"].pin', "does not exist")
    broken("mini", setter("buttons", "end", "pin", 1), 'buttons["end"].pin', "UART")
    broken("mini", setter("buttons", "end", "pin", 40), 'buttons["end"].pin', "40 is not in 0..39")
    # a pin as a string, and as true (a bool is not an int here, on either interpreter)
    broken("mini", setter("buttons", "end", "pin", "33"), 'buttons["end"].pin', "not an integer")
    broken("mini", setter("buttons", "end", "pin", True), 'buttons["end"].pin', "not an integer")
    # input-only pins: no internal pull, no outputs
    broken("mini", setter("buttons", "end", "pin", 35), 'buttons["end"].pin', "no internal pull-up")
    broken("wall", setter("leds", "A.spot", 37), 'leds["A.spot"]', "input only")
    broken("wall", setter("buzzer", 38), "buzzer", "input only")
    broken("wall", setter("i2c", 1, "scl", 39), "i2c[1].scl", "input only")
    # GPIO12 with a pull-up stops the ESP32 from booting
    broken("mini", setter("buttons", "end", "pin", 12), 'buttons["end"].pin', "1.8 V")


def test_strapping_pins_only_warn():
    d = raw("mini")
    d["buttons"]["end"]["pin"] = 0
    d["leds"] = {"A.turn": {"pin": 2, "active_low": True}}
    b = boarddef.validate(d)
    assert len(b["warnings"]) == 2, b["warnings"]
    assert b["warnings"][0].startswith('buttons["end"].pin: GPIO0 is a strapping pin')
    assert b["leds"]["A.turn"] == {"pin": 2, "active_low": True}


def test_button_errors():
    # pull "upp"
    broken("mini", setter("buttons", "end", "pull", "upp"), 'buttons["end"].pull', '"upp"')
    # active low with a pull-down: always reads pressed
    broken("mini", setter("buttons", "end", "pull", "down"), 'buttons["end"].pull', "reads pressed")
    # active high with a pull-up
    broken("mini", setter("buttons", "end", "active_low", False), 'buttons["end"].pull')
    # active_low "yes"
    broken("mini", setter("buttons", "end", "active_low", "yes"), 'buttons["end"].active_low', "not true or false")
    # unknown actions
    broken("wall", setter("buttons", "foul", "action", "fowl"), 'buttons["foul"].action', '"fowl" is not one of')
    broken("wall", setter("buttons", "A.point", "long_action", "undo!"), 'buttons["A.point"].long_action')
    # neither action nor long action
    broken(
        "wall",
        lambda d: (setter("buttons", "new", "long_action", None)(d), setter("buttons", "new", "action", None)(d)),
        'buttons["new"]',
        "no action",
    )
    # a bad button name, and buttons as a list
    broken(
        "mini",
        lambda d: d["buttons"].update({"my button": d["buttons"].pop("end")}),
        'buttons["my button"]',
        "character",
    )
    broken("mini", setter("buttons", []), "buttons: expected an object")
    # lockout "true" (a string)
    broken("mini", setter("buttons", "point", "lockout", "true"), 'buttons["point"].lockout')


def test_timing_errors():
    # long_ms not above debounce_ms
    broken(
        "mini",
        setter("timings", {"debounce_ms": 300, "long_ms": 200}),
        "timings: need debounce_ms < long_ms < stuck_ms",
    )
    # negative debounce
    broken("mini", setter("timings", {"debounce_ms": -1}), "timings.debounce_ms", "-1 is not in 0..500")
    # a per-button long_ms beyond the board's stuck_ms
    broken("mini", setter("buttons", "end", "long_ms", 6000), 'buttons["end"]: need debounce_ms < long_ms < stuck_ms')
    # lockout_ms 1.5 (a float)
    broken("mini", setter("timings", {"lockout_ms": 1.5}), "timings.lockout_ms", "not an integer")


def test_board_level_errors():
    # the file is mini.json but says "wall"
    broken("mini", setter("name", "wall"), "name", "does not match the file name")
    # upper case in the name
    broken("mini", setter("name", "Mini"), "name", "character")
    # an unknown role
    broken("mini", setter("role", "scoreboard"), "role", '"scoreboard" is not one of "wall", "remote"')
    # a wall board without displays (and no i2c)
    broken(
        "mini", lambda d: d.update({"displays": [], "i2c": None}), "displays: a wall board needs at least one display"
    )
    # brightness 16, schema 2, chip esp8266
    broken("mini", setter("brightness", 16), "brightness: 16 is not in 0..15")
    broken("mini", setter("schema", 2), "schema: 2 is not 1")
    broken("mini", setter("chip", "esp8266"), "chip")
    # a LED that is not known
    broken("wall", lambda d: d["leds"].update({"A.turm": 5}), "leds", 'unknown key "A.turm"')
    # safe boot button that is not a button
    broken("mini", setter("safe_boot_button", "reset"), "safe_boot_button", '"reset" is not a button')
    # the whole board a list
    e = raises(ValueError, boarddef.validate, [], "boards/x.json")
    assert str(e) == "boards/x.json: board: expected an object, got []", str(e)


def test_identify_button():
    """Each shipped board names its identify button; any other button may be it, or none (null,
    or the key left out: None in the normalized definition); a name that is no button, a value
    that is no name, and the safe-boot button itself are refused."""
    for name, button, safe in (("wall", "foul", "new"), ("mini", "end", "point"), ("referee", "foul", "undo")):
        b = boarddef.load("%s/%s.json" % (BOARDS, name))
        assert b["identify_button"] == button and b["safe_boot_button"] == safe, name
    d = raw("mini")
    d["identify_button"] = "point"
    d["safe_boot_button"] = "end"
    assert boarddef.validate(d)["identify_button"] == "point"
    d["identify_button"] = None
    assert boarddef.validate(d)["identify_button"] is None
    del d["identify_button"]
    assert boarddef.validate(d)["identify_button"] is None
    broken(
        "mini", setter("identify_button", "reset"), "identify_button", '"reset" is not a button (buttons: end, point)'
    )
    broken("wall", setter("identify_button", 25), "identify_button", "25 is not a button")
    broken("wall", setter("identify_button", "new"), "identify_button", '"new" is the safe_boot_button')
    broken("referee", setter("identify_button", "undo"), "identify_button", "safe_boot_button")
    broken("wall", setter("identify_button", "Foul"), "identify_button", '"Foul" is not a button')


def test_remote_board_may_have_no_display():
    d = raw("referee")
    d["displays"] = []
    d["i2c"] = None
    b = boarddef.validate(d, "boards/referee.json")
    assert b["displays"] == [] and b["i2c"] == []


def names_of(b):
    return [x["name"] for x in b["buttons"]]

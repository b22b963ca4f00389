"""`carom config` against a virtual board running the real firmware, through mpremote.

A setting changes what the board's displays show once it restarts (read from
the bytes the firmware wrote to the emulated HT16K33 chips); a bad value is
refused before anything is written: the board's config.json stays the same,
byte for byte.  Secrets are *** unless --secrets.
"""

import json
import os

from helpers import board_def, carom, lay_out_flash, needs_mpremote, ok, start_running
from host_tools.simulator.segments import decode

RUNNING = "carom: running on board wall"

pytestmark = needs_mpremote


def start(tmp_path, config, **kw):
    return start_running(lay_out_flash(tmp_path / "flash", config), **kw)


def text(vb, addr, bus=0):
    d = next(d for d in board_def("wall")["displays"] if int(d["addr"], 16) == addr and d["bus"] == bus)
    return decode(vb.chip(addr, bus).ram, d["kind"]).text


def lit_brightness(vb):
    return {c.brightness for c in vb.chips().values() if c.lit}


def test_set_names_and_brightness_shows_on_the_displays(tmp_path):
    vb = start(tmp_path, {"board": "wall"}, tcp=0)  # over a pyserial URL this time
    try:
        assert lit_brightness(vb) == {8}  # the board definition's
        assert text(vb, 0x76).strip() != "KIM"
        runs = vb.stdout.count(RUNNING)
        out = ok(carom("config", "--device", vb.serial_url, "set", "players.A.name=KIM", "display.brightness=3"))
        assert 'players.A.name: null -> "KIM"' in out and "display.brightness: null -> 3" in out
        assert "reset; the board started with the new configuration" in out
        with open(vb.flash_path("/config.json")) as f:
            assert json.load(f) == {"board": "wall", "players": {"A": {"name": "KIM"}}, "display": {"brightness": 3}}
        assert not os.path.exists(vb.flash_path("/config.json.tmp"))
        vb.wait_for(lambda b: b.stdout.count(RUNNING) > runs)
        vb.wait_for(lambda b: lit_brightness(b) == {3})  # at once, on every display
        # The names are the match's: a saved match nothing happened in yet takes the new ones at once
        # (one that has started keeps its own until a new match).
        assert "note: names, clubs and match options apply now if the saved match has not started" in out
        vb.wait_for(lambda b: text(b, 0x76) == "KIM ")
        # set, then get back what the board has
        assert ok(carom("config", "--device", vb.serial_url, "get", "players.A.name")).strip() == "KIM"
        assert ok(carom("config", "--device", vb.serial_url, "get", "display.brightness")).strip() == "3"
        assert ok(carom("config", "--device", vb.serial_url, "get", "match.target")).strip() == "30"  # a default
    finally:
        vb.close()


BAD = [
    (["set", "display.brightness=16"], "display.brightness: 16 is not in 0..15"),
    (["set", "match.target=0"], "match.target: 0 is not in 1..9999"),
    (["set", "match.target=ten"], 'match.target: "ten" is not an integer'),
    (["set", "players.B.name=" + "X" * 25], "players.B.name"),
    (["set", "match.game=snooker"], "match.game"),
    (["set", "match.equalizing=maybe"], "match.equalizing"),
    (["set", "buttons.debounce_ms=300", "buttons.long_ms=200"], "buttons.long_ms"),
    (["set", "players.B.name=OK", "display.brightness=99"], "display.brightness"),  # one bad: none written
    (["set", "colour=red"], "colour: unknown key"),
    (["set", "players.A.name"], "KEY=VALUE"),
    (["set", "board=nosuchboard"], "no boards/nosuchboard.json on the board"),
    (["set", "match.shootout=on"], "match.shootout: decides a draw that may not stand"),  # alone: draw on, no sets
]


def test_keys_valid_only_together_are_set_in_one_command():
    # Each value is checked alone by its own type and range before connecting; what goes with other
    # keys (the shoot-out with sets or draw off, the deciding target with sets) on the whole file.
    from host_tools.commands.config import apply_settings
    from host_tools.errors import CommandError

    new = apply_settings({"board": "wall"}, ["match.sets=2", "match.shootout=on", "match.deciding_target=11"])
    assert new["match"] == {"sets": 2, "shootout": True, "deciding_target": 11}
    new = apply_settings({"board": "wall", "match": {"draw": False}}, ["match.shootout=on"])
    assert new["match"] == {"draw": False, "shootout": True}
    for settings, message in (
        (["match.shootout=on"], "match.shootout: decides a draw that may not stand"),
        (["match.deciding_target=11"], "match.deciding_target: goes with match.sets"),
        (["match.sets=2", "match.shootout=maybe"], "match.shootout"),
        (["match.sets=99"], "match.sets"),
    ):
        try:
            apply_settings({"board": "wall"}, settings)
        except CommandError as e:
            assert message in str(e) and "nothing was written" in str(e), (settings, e)
        else:
            raise AssertionError("accepted: %r" % settings)


def test_bad_values_are_refused_and_nothing_is_written(tmp_path):
    vb = start(tmp_path, {"board": "wall", "players": {"A": {"name": "Kim"}}, "match": {"target": 25}}, serial=True)
    try:
        path = vb.flash_path("/config.json")
        with open(path, "rb") as f:
            before = f.read()
        inode = os.stat(path).st_ino
        bad_file = tmp_path / "bad.json"
        bad_file.write_text(json.dumps({"board": "wall", "match": {"target": -1}}))
        not_json = tmp_path / "broken.json"
        not_json.write_text('{"board": "wall",')
        cases = BAD + [
            (["import", str(bad_file)], "bad.json: match.target: -1 is not in 1..9999"),
            (["import", str(not_json)], "broken.json is not valid JSON"),
        ]
        for args, message in cases:
            out = carom("config", "--device", vb.serial_path, *args)
            assert out.returncode == 1, (args, out.stdout, out.stderr)
            assert out.stderr.startswith("carom: ") and message in out.stderr, (args, out.stderr)
            assert "Traceback" not in out.stderr
            with open(path, "rb") as f:
                assert f.read() == before, args  # byte for byte
            assert os.stat(path).st_ino == inode and not os.path.exists(path + ".tmp"), args
        # Refused or not, the board is reset at the end: the app runs again.
        vb.wait_for(lambda b: b.stdout.endswith(RUNNING + "\n"))
    finally:
        vb.close()


def test_secrets_show_export_import(tmp_path):
    vb = start(tmp_path, {"board": "wall"}, serial=True)
    try:
        dev = vb.serial_path
        ok(
            carom(
                "config",
                "--device",
                dev,
                "--no-reset",
                "set",
                "wifi.ssid=Hall 2",
                "wifi.password=hunter2hunter",
                "name=Table 7",
                "match.game=one_cushion",
                "match.target=40",
                "buttons.long_ms=1500",
            )
        )
        shown = ok(carom("config", "--device", dev, "show"))
        assert "hunter2hunter" not in shown
        full = json.loads(shown)
        assert full["wifi"] == {"ssid": "Hall 2", "password": "***"}
        assert full["match"]["game"] == "one_cushion" and full["buttons"]["long_ms"] == 1500
        assert full["sound"]["volume"] == 50  # show fills in the defaults
        secrets = json.loads(ok(carom("config", "--device", dev, "show", "--secrets")))
        assert secrets["wifi"]["password"] == "hunter2hunter"
        assert ok(carom("config", "--device", dev, "get", "wifi.password")).strip() == "***"
        # export (redacted), edit, import: the *** keeps the board's password
        exported = tmp_path / "table7.json"
        ok(carom("config", "--device", dev, "export", str(exported)))
        d = json.loads(exported.read_text())
        assert d["wifi"]["password"] == "***" and "sound" not in d  # the file as written, not the defaults
        d["players"] = {"B": {"name": "Zanetti", "club": "Roma"}}
        exported.write_text(json.dumps(d))
        out = ok(carom("config", "--device", dev, "import", str(exported)))
        assert 'players.B.name: null -> "Zanetti"' in out and "hunter2hunter" not in out
        with open(vb.flash_path("/config.json")) as f:
            on_board = json.load(f)
        assert on_board["wifi"]["password"] == "hunter2hunter"
        assert on_board["players"]["B"] == {"name": "Zanetti", "club": "Roma"}
        # an import whose secret is *** while the board has none is refused
        out = carom("config", "--device", dev, "import", str(tmp_path / "x.json"))
        assert out.returncode == 1 and "cannot read" in out.stderr
        (tmp_path / "mqtt.json").write_text(json.dumps({"board": "wall", "mqtt": {"password": "***"}}))
        out = carom("config", "--device", dev, "import", str(tmp_path / "mqtt.json"))
        assert out.returncode == 1 and "mqtt.password" in out.stderr and "nothing was written" in out.stderr
        assert ok(carom("config", "--device", dev, "export", "-", "--secrets")).count("hunter2hunter") == 1
    finally:
        vb.close()


def test_invalid_config_says_what_the_board_shows(tmp_path):
    """Tried: `carom config show` on an invalid config.json said "E 20" even when the
    board shows E 22. With its good copy (config.good.json, written at a boot on a valid file) the
    board runs that and shows E 20; without it, the defaults and E 22: show, get and doctor say so,
    and the board, reset, shows that code on its message display."""
    vb = start(tmp_path, {"board": "wall"}, serial=True)
    try:
        assert os.path.exists(vb.flash_path("/config.good.json"))
        vb.write_file("/config.json", json.dumps({"board": "wall", "match": {"target": 0}}))
        out = carom("config", "--device", vb.serial_path, "--no-reset", "show")
        assert out.returncode == 1 and "Traceback" not in out.stderr
        assert out.stderr.strip() == (
            "carom: the board's config.json is invalid (the board runs its last good configuration "
            "(config.good.json), showing E 20): config.json: match.target: 0 is not in 1..9999"
        ), out.stderr
        os.remove(vb.flash_path("/config.good.json"))
        for args in (["show"], ["get", "match.target"]):
            out = carom("config", "--device", vb.serial_path, "--no-reset", *args)
            assert out.returncode == 1 and out.stderr.strip() == (
                "carom: the board's config.json is invalid (the board has no good copy of it, so it runs the "
                "defaults, showing E 22): config.json: match.target: 0 is not in 1..9999"
            ), out.stderr
        vb.write_file("/config.json", '{"board": "wall", ')
        out = carom("config", "--device", vb.serial_path, "--no-reset", "show")
        assert out.returncode == 1 and "not valid JSON" in out.stderr and "showing E 22" in out.stderr, out.stderr
        out = carom("doctor", "--device", vb.serial_path)
        assert out.returncode == 1 and "showing E 22" in out.stdout, out.stdout
        vb.wait_for(
            lambda b: any(
                text(b, d["addr"] if isinstance(d["addr"], int) else int(d["addr"], 16), d["bus"]).strip() == "E 22"
                for d in board_def("wall")["displays"]
            ),
            timeout=30,
        )
    finally:
        vb.close()


def test_bad_value_refused_before_the_port(tmp_path):
    """Tried: `carom config -d <missing port> set display.brightness=16` reported the
    port; now the value is checked first (and `set` without '=', an unknown key, an import file
    that the schema refuses): the error names the value, not the port."""
    device = str(tmp_path / "ttyNONE")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"board": "wall", "display": {"brightness": 99}}))
    for args, message in [
        (["set", "display.brightness=16"], "display.brightness"),
        (["set", "players.A.name=KIM", "match.target=-1"], "match.target"),
        (["set", "nokey=1"], "nokey"),
        (["set", "display.brightness"], "KEY=VALUE"),
        (["import", str(bad)], "display.brightness"),
    ]:
        out = carom("config", "--device", device, *args)
        assert out.returncode == 1 and out.stderr.startswith("carom: ") and "Traceback" not in out.stderr, out.stderr
        assert message in out.stderr and device not in out.stderr, (args, out.stderr)
    out = carom("config", "--device", device, "set", "display.brightness=3")  # a good value: on to the port
    assert out.returncode == 1 and "cannot open %s (no such port)" % device in out.stderr, out.stderr

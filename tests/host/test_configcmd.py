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
]


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
        cases = BAD + [(["import", str(bad_file)], "bad.json: match.target: -1 is not in 1..9999"),
                       (["import", str(not_json)], "broken.json is not valid JSON")]
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
        ok(carom("config", "--device", dev, "--no-reset", "set", "wifi.ssid=Hall 2", "wifi.password=hunter2hunter",
                 "name=Table 7", "match.game=one_cushion", "match.target=40", "buttons.long_ms=1500"))
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

"""`carom sim --hall`: the simulator's virtual boards feed a real `carom hall`.

A real mosquitto on a free loopback port, `carom hall` on it (a subprocess), and `carom sim --hall
127.0.0.1:PORT --boards 2` as a person starts it (a subprocess): the two wall boards run the real
firmware, join the emulated Wi-Fi (their config.json names no network: the simulator gives them
one, and a table id each, t1 and t2), and publish over real TCP.  Buttons are pressed through the
simulator page's API; the hall's API and its page in Chromium must show what was played.  Every
wait is for a condition (a line, the API, the page), never a fixed time.

Also: a config.json that names the broker by the hall's address (192.168.1.10:1883) reaches the
broker through the access point's route, and its own table id is kept; the errors of --hall and
--config are one `carom:` line.
"""

import json
import sys
import urllib.request


from helpers import LineProcess, carom, needs_mosquitto, running_mosquitto, wait_for
from tools.run.hall import HallProc, Page


class Sim(LineProcess):
    """`carom sim` serving its page on a free port; press() through the page's API."""

    name = "carom sim"

    def __init__(self, *args):
        super().__init__([sys.executable, "-m", "host_tools", "sim", "--listen", "127.0.0.1:0", *args])
        self.url = self.wait_line(r"the simulator is at (http://\S+)", 120).group(1)

    def act(self, board, **action):
        req = urllib.request.Request(
            "%s/api/boards/%d/action" % (self.url, board),
            json.dumps(action).encode(),
            {"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=60) as r:
            assert json.loads(r.read()) == {"ok": True}

    def now(self, board):
        """The board's virtual clock (s), from the page's API."""
        with urllib.request.urlopen(self.url + "/api/state", timeout=60) as r:
            return json.loads(r.read())[board]["t"]

    def tap(self, board, button):
        """A press as a person makes it: down 0.1 s, then a second on the board's clock before the
        next (the lock-out after a press is 0.4 s)."""
        t0 = self.now(board)
        self.act(board, do="tap", button=button)
        wait_for(lambda: self.now(board) >= t0 + 1.0, True, 30, "a second after pressing %s" % button)

    def stop(self):
        return super().stop(timeout=30)


def scores(hall, table):
    t = hall.table(table)
    if t is None or t.get("state") is None:
        return None
    s = t["state"]
    return (t["status"], s["players"]["A"]["score"], s["players"]["B"]["score"], s["phase"], s["turn"])


@needs_mosquitto
def test_two_simulated_boards_play_on_the_hall(browser):
    with running_mosquitto() as broker:
        hall = HallProc(broker.port)
        sim = None
        try:
            hall.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
            sim = Sim("--hall", "127.0.0.1:%d" % broker.port, "--boards", "2")
            sim.wait_line(r"board 1: table t1 on Wi-Fi 'carom-sim', MQTT to 127\.0\.0\.1:%d$" % broker.port, 30)
            sim.wait_line(r"board 2: table t2 on Wi-Fi 'carom-sim', MQTT to 127\.0\.0\.1:%d$" % broker.port, 30)
            # Both boards join and publish their fresh match: the lag.
            for table in ("t1", "t2"):
                wait_for(lambda: scores(hall, table), ("online", 0, 0, "lag", None), 60, "%s on the hall" % table)
            # Board 1: A wins the lag and scores twice; board 2: B wins the lag, scores once and misses.
            sim.tap(0, "A.point")
            wait_for(lambda: scores(hall, "t1"), ("online", 0, 0, "running", "A"), 30, "t1: A breaks")
            sim.tap(0, "A.point")
            sim.tap(0, "A.point")
            sim.tap(1, "B.point")
            wait_for(lambda: scores(hall, "t2"), ("online", 0, 0, "running", "B"), 30, "t2: B breaks")
            sim.tap(1, "B.point")
            sim.tap(1, "B.end")
            wait_for(lambda: scores(hall, "t1"), ("online", 2, 0, "running", "A"), 30, "t1: A 2")
            wait_for(lambda: scores(hall, "t2"), ("online", 0, 1, "running", "A"), 30, "t2: B 1, A at the table")
            # The hall's page shows it, each table on its tile.
            page = Page(browser, hall.url)
            page.wait_tile(
                "t1", lambda t: (t["status"], t["A"]["score"], t["B"]["score"]) == ("online", "2", "0"), "t1's tile"
            )
            page.wait_tile(
                "t2",
                lambda t: (
                    (t["status"], t["A"]["score"], t["B"]["score"], t["A"]["at_table"]) == ("online", "0", "1", "true")
                ),
                "t2's tile",
            )
            page.close()
            # Stopping the simulator: the boards' process ends; the broker gives the hall their will.
            assert sim.stop() == 0, "\n".join(sim.lines)
            sim = None
            for table in ("t1", "t2"):
                wait_for(lambda: hall.table(table)["status"], "offline", 60, "%s offline" % table)
        finally:
            if sim is not None:
                sim.stop()
                sim.kill()
            hall.stop()
            hall.kill()


@needs_mosquitto
def test_a_config_naming_the_halls_broker_is_routed_to_it(tmp_path):
    """The board's config.json names the broker as on the hall's network (192.168.1.10:1883) and its
    own Wi-Fi and table: the access point takes that network, and routes the address to --hall's."""
    flash = tmp_path / "flash"
    flash.mkdir()
    cfg = {
        "board": "wall",
        "players": {"A": {"name": "ANNA"}, "B": {"name": "BELA"}},
        "wifi": {"ssid": "club", "password": "wifi-Secr3t-pw"},
        "mqtt": {"host": "192.168.1.10", "port": 1883, "table": "bar3", "prefix": "carom"},
    }
    (flash / "config.json").write_text(json.dumps(cfg))
    with running_mosquitto() as broker:
        hall = HallProc(broker.port)
        sim = None
        try:
            hall.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
            sim = Sim("--hall", "127.0.0.1:%d" % broker.port, "--flash", str(flash))
            sim.wait_line(
                r"board 1: table bar3 on Wi-Fi 'club', MQTT to 192\.168\.1\.10:1883 \(reaches "
                r"127\.0\.0\.1:%d\)$" % broker.port,
                30,
            )
            wait_for(lambda: scores(hall, "bar3"), ("online", 0, 0, "lag", None), 60, "bar3 on the hall")
            assert hall.table("bar3")["state"]["players"]["A"]["name"] == "ANNA"
            # The board's config.json kept what it said (the route is the network's, not the board's).
            kept = json.loads((flash / "config.json").read_text())
            assert kept["mqtt"]["host"] == "192.168.1.10" and kept["wifi"]["ssid"] == "club"
            out = "\n".join(sim.lines + hall.lines)
            assert "wifi-Secr3t-pw" not in out
        finally:
            if sim is not None:
                assert sim.stop() == 0, "\n".join(sim.lines)
                sim.kill()
            hall.stop()
            hall.kill()


def test_hall_and_config_errors_are_one_line(tmp_path):
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"board": "wall", "players": ')
    bad_schema = tmp_path / "schema.json"
    bad_schema.write_text('{"match": {"target": 0}}')
    other_board = tmp_path / "mini.json"
    other_board.write_text('{"board": "mini"}')
    for args, expected in (
        (["--hall", "127.0.0.1:99999"], "carom: --hall wants HOST[:PORT]"),
        (["--hall", "no-such-host.invalid:1883"], "carom: --hall no-such-host.invalid:1883: no IPv4 address"),
        (["--config", str(bad_json)], "carom: --config %s: not valid JSON" % bad_json),
        (["--config", str(bad_schema)], "carom: --config %s: match.target" % bad_schema),
        (["--config", str(tmp_path / "none.json")], "carom: --config %s: No such file" % (tmp_path / "none.json")),
        (["--config", str(other_board), "--board", "wall"], "carom: --config names board 'mini' but --board is 'wall'"),
        (["--headless", "--config", str(other_board)], "carom: --config and --hall go with the virtual board"),
        (["--headless", "--board", "wall", "--hall", "127.0.0.1:1883"], "carom: --hall goes with the page"),
    ):
        r = carom("sim", "--listen", "127.0.0.1:0", *args, input="", timeout=60)
        assert r.returncode != 0, (args, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(expected), (args, r.stderr)
        assert "Traceback" not in r.stderr and "the simulator is at" not in r.stdout


def test_a_bad_config_in_the_flash_is_said_and_the_board_shows_it(tmp_path):
    """config.json in --flash that the board refuses: a warning on stderr saying what is wrong and
    what the board runs instead; the board starts anyway and shows its error (E 22: no good copy)."""
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "config.json").write_text('{"match": {"target": "thirty"}}')
    r = carom("sim", "--headless", "--board", "wall", "--flash", str(flash), input="", timeout=120)
    assert r.returncode == 0, r.stderr
    warning = [line for line in r.stderr.splitlines() if "warning" in line]
    assert len(warning) == 1 and warning[0].startswith("carom sim: warning: %s: match.target" % (flash / "config.json"))
    assert (
        "the board refuses it: it has no good copy (config.good.json), so it runs the defaults, showing E 22"
        in warning[0]
    )
    first = json.loads(r.stdout.splitlines()[0])
    assert "E 22" in first["displays"].values() or "E 22" in " ".join(first["fields"].values()), first
    # With a good copy there, the board runs it (E 20), and the warning says so.
    (flash / "config.good.json").write_text('{"board": "wall", "players": {"A": {"name": "ANNA"}}}')
    r = carom("sim", "--headless", "--board", "wall", "--flash", str(flash), input="", timeout=120)
    assert "it runs its last good configuration (config.good.json), showing E 20" in r.stderr, r.stderr


def test_the_page_says_which_boards_config_is_refused(tmp_path):
    """The page with two boards, the second's config.json a schema error: a warning naming board 2
    and what it runs; the page starts, both boards on it."""
    flash = tmp_path / "flash"
    (flash / "board2").mkdir(parents=True)
    (flash / "board2" / "config.json").write_text('{"sound": {"volume": 101}}')
    sim = Sim("--boards", "2", "--flash", str(flash))
    try:
        warnings = [line for line in sim.lines if "warning" in line]
        assert len(warnings) == 1, sim.lines
        assert warnings[0].startswith(
            "carom sim: warning: board 2: %s: sound.volume" % (flash / "board2" / "config.json")
        )
        assert warnings[0].endswith(
            "the board refuses it: it has no good copy (config.good.json), so it runs the defaults, showing E 22"
        ), warnings[0]
        with urllib.request.urlopen(sim.url + "/api/boards", timeout=60) as r:
            assert len(json.loads(r.read())) == 2
    finally:
        assert sim.stop() == 0, "\n".join(sim.lines)
        sim.kill()


def test_config_file_gives_every_board_its_names(tmp_path):
    """--config FILE: checked, then written to the board's flash; the board shows its names."""
    cfg = tmp_path / "table.json"
    cfg.write_text(json.dumps({"players": {"A": {"name": "ANNA"}, "B": {"name": "BELA"}}}))
    flash = tmp_path / "flash"
    r = carom(
        "sim", "--headless", "--board", "wall", "--config", str(cfg), "--flash", str(flash), input="", timeout=120
    )
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr
    assert json.loads((flash / "config.json").read_text())["players"]["A"]["name"] == "ANNA"
    first = json.loads(r.stdout.splitlines()[0])
    assert "ANNA" in " ".join(first["fields"].values()), first["fields"]


def test_a_board_with_wifi_and_mqtt_but_no_hall_is_told_where_to_find_one(tmp_path):
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "config.json").write_text(
        json.dumps({"wifi": {"ssid": "club", "password": "wifi-Secr3t-pw"}, "mqtt": {"host": "192.168.1.10"}})
    )
    r = carom("sim", "--headless", "--board", "wall", "--flash", str(flash), input="wait 5\n", timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == [
        "carom sim: note: config.json names the Wi-Fi 'club' and the MQTT broker 192.168.1.10: here the board finds "
        "no network and keeps looking (carom sim --hall HOST:PORT gives the boards one that reaches a broker)"
    ]
    assert "wifi-Secr3t-pw" not in r.stdout + r.stderr

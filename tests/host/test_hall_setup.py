"""The hall's setups, end to end: a signed setup through mosquitto (password file and ACLs) to a
virtual wall board running the built firmware, and the host side's signing and key file.

What is tried:
- host_tools/hall/setups.py: a payload it signs is what the firmware's publisher_hall.check takes
  (on CPython); what the board would refuse (a bad table, n, setup or size) is refused here
  first; the key file is 0600, its n only grows and is on the disk before it is used, a damaged
  file is an error; `carom hall-key --flash` puts a key on a board's config.json, never printed.
- End to end (mosquitto with allow_anonymous false, a password file made by mosquitto_passwd and
  the README's ACL: boards write only under their table and read only their setup topic, the hall
  reads all and writes setups): a board keyed with `carom hall-key` gets a setup and shows the
  names in the lag; forged (another key), replayed (an older message again), stale (a newly
  signed older n), malformed (target 0) and oversized setups are refused and counted by reason
  in its state document, with every file on its flash byte for byte as it was; the same n
  again (the retained copy) is not counted; another board's login cannot write the setup topic
  and an anonymous client cannot connect; a setup during a match waits (the state document says
  so) and is applied when the match is over; one sent while the board is off is applied when it
  comes back (retained); one waiting when the power goes waits again when the board is back (the
  broker's retained copy) and is applied when the restored match is over.
"""

import hashlib
import hmac
import json
import os
import shutil
import stat
import subprocess
import sys
import threading
import time

import pytest

from helpers import flash_hashes, wait_for
from host_tools import firmware_path
from host_tools.hall import setups
from host_tools.hall.setups import Keys, SetupError
from tools.run.mosquitto import ACL_EXAMPLE, SecureMosquitto, available

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CAROM = os.path.join(os.path.dirname(sys.executable), "carom")
PLAYERS = {"A": {"name": "Anna Kovacs", "club": "BC Pest"}, "B": {"name": "Bela Nagy", "club": "Debreceni BC"}}
MATCH = {"game": "three_cushion", "target": 3}
KEY = "5a" * 32


def raw_sign(key_hex, obj):
    """A payload signed with key_hex over any JSON (what setups.sign refuses to make)."""
    data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return hmac.new(bytes.fromhex(key_hex), data, hashlib.sha256).hexdigest().encode() + b" " + data


# ---- the host's side -------------------------------------------------------------------------


def test_the_host_signs_what_the_firmware_takes():
    firmware_path()
    import publisher_hall

    setup = {"players": PLAYERS, "match": MATCH}
    payload = setups.sign(KEY, "t3", 7, setup)
    assert payload[:64] == hmac.new(bytes.fromhex(KEY), payload[65:], hashlib.sha256).hexdigest().encode()
    assert publisher_hall.check(payload, bytes.fromhex(KEY), "t3") == (7, setup, None)
    assert publisher_hall.check(payload, bytes.fromhex("a5" * 32), "t3")[2] == b"key"
    assert publisher_hall.check(payload, bytes.fromhex(KEY), "t4")[2] == b"table"
    assert setups.verify(KEY, payload)["n"] == 7
    with pytest.raises(SetupError):
        setups.verify("a5" * 32, payload)
    unicode = {"players": {"A": {"name": "Ödön Éles"}, "B": {"name": "Zoë"}}, "match": MATCH}
    assert publisher_hall.check(setups.sign(KEY, "t3", 8, unicode), bytes.fromhex(KEY), "t3")[1] == unicode
    # what the board would refuse is refused on the host, before anything is sent
    for bad in (
        {"players": PLAYERS, "match": {"target": 0}},
        {"players": PLAYERS},
        {"players": PLAYERS, "match": MATCH, "wifi": {}},
        {"players": {"A": {"name": "x" * 25}}, "match": {}},
        {"players": PLAYERS, "match": {"shootout": True}},
        [1],
    ):
        with pytest.raises(SetupError):
            setups.sign(KEY, "t3", 1, bad)
    for table, n in (("T3", 1), ("", 1), ("t/3", 1), ("t3", 0), ("t3", "1"), ("t3", 10**9)):
        with pytest.raises(SetupError):
            setups.sign(KEY, table, n, setup)
    with pytest.raises(SetupError):
        setups.sign("ab" * 31, "t3", 1, setup)
    # the longest setup the schema allows (four names of 24 four-byte characters, every match key)
    # still fits what the board reads
    wide = {
        "A": {"name": "\U0001f3b1" * 24, "club": "\U0001f3b1" * 24},
        "B": {"name": "\U0001f3b1" * 24, "club": "\U0001f3b1" * 24},
    }
    full = {
        "game": "balkline_47_2",
        "target": 9999,
        "innings_limit": 999,
        "equalizing": True,
        "draw": False,
        "shot_clock": 300,
        "timeouts": 9,
        "timeout_s": 300,
        "break_s": 3600,
        "breaker_ball": "white",
        "target_A": 9999,
        "target_B": 9999,
        "sets": 9,
        "deciding_target": 9999,
        "shootout": True,
        "warmup_s": 900,
    }
    longest = setups.sign(KEY, "a" * 24, setups.MAX_N, {"players": wide, "match": full})
    assert len(longest) <= setups.MAX_MESSAGE
    assert publisher_hall.check(longest, bytes.fromhex(KEY), "a" * 24)[2] is None


def test_the_key_file_keeps_keys_secret_and_n_growing(tmp_path):
    path = str(tmp_path / "keys.json")
    keys = Keys(path)
    key = keys.new_key("t3")
    assert len(key) == 64 and stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert key not in repr(keys)
    assert [keys.next_n("t3") for _ in range(3)] == [1, 2, 3]
    again = Keys(path)  # another process, later: the numbers go on
    assert again.key("t3") == key and again.last_n("t3") == 3 and again.next_n("t3") == 4
    n, payload = again.message("t3", {"players": PLAYERS, "match": MATCH})
    assert n == 5 and setups.verify(key, payload)["n"] == 5 and Keys(path).last_n("t3") == 5
    with pytest.raises(SetupError):
        again.next_n("t4")  # no key
    again.new_key("t3")  # a new key: its numbers start again
    assert Keys(path).last_n("t3") == 0 and Keys(path).key("t3") != key
    with open(path, "w") as f:
        f.write('{"tables": {"t3": {"key": "nothex", "n": 1}}}')
    with pytest.raises(SetupError):
        Keys(path)
    with pytest.raises(SetupError):
        setups.next_n(str(tmp_path / "other.json"), "t1")


def test_carom_hall_key_puts_a_key_on_a_flash_and_never_prints_it(tmp_path):
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "config.json").write_text(json.dumps({"mqtt": {"host": "127.0.0.1"}, "name": "Table 3"}))
    (flash / "hall.last").write_text("12\n")
    keys = str(tmp_path / "keys.json")
    r = subprocess.run(
        [CAROM, "hall-key", "--keys", keys, "--table", "t3", "--flash", str(flash)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    cfg = json.loads((flash / "config.json").read_text())
    key = Keys(keys).key("t3")
    assert cfg["hall"]["key"] == key and cfg["mqtt"]["table"] == "t3" and cfg["name"] == "Table 3"
    assert key not in r.stdout + r.stderr and not (flash / "hall.last").exists()
    r = subprocess.run([CAROM, "hall-key", "--keys", keys, "--list"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "t3" in r.stdout and key not in r.stdout
    before = flash_hashes(str(flash))
    r = subprocess.run(
        [CAROM, "hall-key", "--keys", keys, "--table", "t4", "--flash", str(flash)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode != 0 and r.stderr.startswith("carom: ") and "t3" in r.stderr
    assert flash_hashes(str(flash)) == before and Keys(keys).key("t3") == key


def test_carom_hall_key_over_a_boards_serial_link(tmp_path):
    """--device: the key written into the board's config.json through mpremote (as carom config
    writes it), its hall.last removed, the board reset and running with it; never printed."""
    from helpers import MPREMOTE, carom, lay_out_flash, start_running

    if not os.path.exists(MPREMOTE):
        pytest.skip("mpremote is not installed in the venv")
    flash = lay_out_flash(tmp_path / "flash", {"board": "wall", "mqtt": {"table": "t5"}})
    with open(os.path.join(str(flash), "hall.last"), "w") as f:
        f.write("44\n")
    vb = start_running(flash, tcp=0)
    try:
        runs = vb.stdout.count("carom: running on board wall")
        keys = str(tmp_path / "keys.json")
        r = carom("hall-key", "--keys", keys, "--table", "t5", "--device", vb.serial_url)
        assert r.returncode == 0, r.stderr
        key = Keys(keys).key("t5")
        assert key not in r.stdout + r.stderr + vb.stdout + vb.stderr
        with open(vb.flash_path("/config.json")) as f:
            cfg = json.load(f)
        assert cfg == {"board": "wall", "mqtt": {"table": "t5"}, "hall": {"key": key}}
        assert not os.path.exists(vb.flash_path("/hall.last"))
        vb.wait_for(lambda b: b.stdout.count("carom: running on board wall") > runs)
        shown = carom("config", "--device", vb.serial_url, "get", "hall.key")
        assert shown.returncode == 0 and shown.stdout.strip() == "***" and key not in shown.stdout
    finally:
        vb.close()


# ---- end to end ------------------------------------------------------------------------------

ACL = ACL_EXAMPLE  # the broker page's, as tools/run/mosquitto.py has it


def test_the_docs_show_the_broker_configuration_the_tests_run():
    """The broker page's mosquitto.conf lines and ACL are `carom hall-broker`'s output, which the
    tests' SecureMosquitto runs."""
    from host_tools.hall.brokerconf import conf

    with open(os.path.join(ROOT, "docs", "hall", "broker.md"), encoding="utf-8") as f:
        text = f.read()
    assert "```conf\n" + ACL_EXAMPLE + "```" in text
    assert "```conf\n" + conf() + "```" in text
    for argv, want in ((["hall-broker"], conf()), (["hall-broker", "--acl"], ACL_EXAMPLE)):
        r = subprocess.run([CAROM, *argv], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and r.stdout == want, r.stderr


USERS = {"hall": "hall-Pw-1", "t1": "t1-Pw-secret", "t2": "t2-Pw-secret"}
WIFI_PASSWORD = "wifi-Secr3t-hall"


class Hall:
    """A paho client logged in as `user`: publishes setups, keeps the latest state of each table."""

    def __init__(self, port, user="hall", password=None, subscribe=True):
        import paho.mqtt.client as paho

        self.states = {}
        self.reports = []  # (table, payload) of each report, as it came
        self.lock = threading.Lock()
        self.connected = threading.Event()
        self.rc = None
        self.client = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="test-" + user + str(time.time()))
        self.client.username_pw_set(user, USERS[user] if password is None else password)

        def on_connect(c, u, flags, rc, props=None):
            self.rc = rc
            if not rc.is_failure:
                if subscribe:
                    c.subscribe([("carom/+/state", 1), ("carom/+/report", 1)])
                self.connected.set()

        def on_message(c, u, msg):
            with self.lock:
                if msg.topic.endswith("/state"):
                    self.states[msg.topic.split("/")[1]] = json.loads(msg.payload)
                elif msg.topic.endswith("/report"):
                    self.reports.append((msg.topic.split("/")[1], msg.payload))

        self.client.on_connect = on_connect
        self.client.on_message = on_message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def publish(self, table, payload):
        info = self.client.publish("carom/%s/setup" % table, payload, qos=1, retain=True)
        info.wait_for_publish(10)

    def state(self, table):
        with self.lock:
            return self.states.get(table)

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def secure_broker():
    if not available() or not shutil.which("mosquitto_passwd"):
        pytest.skip("mosquitto and mosquitto_passwd are not installed (tools/deps.sh installs them)")
    m = SecureMosquitto(USERS, acl=ACL).start()
    yield m
    m.close()


@pytest.fixture
def board(tmp_path, firmware, secure_broker):
    """A wall board (table t1) keyed by carom hall-key, on Wi-Fi, logged in to the broker as t1."""
    from host_tools.simulator.scripted_board import ScriptedBoard
    from host_tools.simulator.vboard import AccessPoint

    flash = str(tmp_path / "t1")
    config = {
        "board": "wall",
        "name": "Table 1",
        "players": {"A": {"name": "Old One"}, "B": {"name": "Old Two"}},
        "match": {"game": "straight_rail", "target": 50},
        "wifi": {"ssid": "hall-t1", "password": WIFI_PASSWORD},
        "mqtt": {"host": "127.0.0.1", "port": secure_broker.port, "user": "t1", "password": USERS["t1"]},
    }
    ap = AccessPoint("hall-t1", WIFI_PASSWORD, channel=6, connect_s=0.5)
    b = ScriptedBoard("wall", flash, config, firmware=firmware, power=False, wifi=ap, name="t1")
    keys = str(tmp_path / "keys.json")
    r = subprocess.run(
        [CAROM, "hall-key", "--keys", keys, "--table", "t1", "--flash", flash],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    b.keys = Keys(keys)
    b.vb.power_on()
    b.vb.run_realtime()
    yield b
    try:
        text = b.vb.stdout + b.vb.stderr
        for secret in (USERS["t1"], WIFI_PASSWORD, b.keys.key("t1")):
            assert secret not in text
        assert "Traceback" not in text and "task failed" not in text, text[-3000:]
    finally:
        b.close()


def press(b, button, down=0.1, settle=0.5):
    vb = b.vb
    vb.press(button)
    end = vb.now + down
    vb.wait_for(lambda x: x.now >= end, timeout=10)
    vb.release(button)
    end = vb.now + settle
    vb.wait_for(lambda x: x.now >= end, timeout=10)


def setup_of(hall, table="t1"):
    s = hall.state(table)
    return s and s.get("setup")


def names(hall, table="t1"):
    s = hall.state(table)
    return s and (s["players"]["A"]["name"], s["players"]["B"]["name"])


def short(name, other):
    firmware_path()
    import view_setup

    return view_setup.short_name(name, other).decode()


def shows_names(b, a, bb):
    """The wall's name displays settle on the players' short names (after the names ran by once)."""
    want = (short(a, bb), short(bb, a))
    return wait_for(
        lambda: (b.state()["fields"]["A.name"].strip(), b.state()["fields"]["B.name"].strip()),
        want,
        40,
        "the names on the wall",
    )


def config_players(b):
    with open(os.path.join(b.flash_dir, "config.json")) as f:
        return json.load(f)["players"]


def refused_with_nothing_written(b, hall, payload, why, count):
    """`payload` published as the hall: refused for `why` (the count reaching `count`), every
    file on the flash as it was, the applied n unchanged."""
    before = flash_hashes(b.flash_dir)
    n = setup_of(hall)["n"]
    hall.publish("t1", payload)
    wait_for(lambda: setup_of(hall), lambda s: s["refused"] == count, 20, "refused (%s)" % why)
    s = setup_of(hall)
    assert s["last_refused"] == why and s["n"] == n and s["waiting"] is None, s
    assert flash_hashes(b.flash_dir) == before, why


def test_a_signed_setup_reaches_the_board_and_the_others_do_not(board, secure_broker):
    b = board
    hall = Hall(secure_broker.port)
    try:
        assert hall.connected.wait(10)
        s = wait_for(lambda: setup_of(hall), lambda s: s is not None, 40, "t1's state with its setup key")
        assert s == {"n": 0, "waiting": None, "refused": 0, "last_refused": None}
        key = b.keys.key("t1")

        # 1. a setup: applied at once (the board is in the lag with nothing played)
        first = {"players": PLAYERS, "match": MATCH}
        n1, msg1 = b.keys.message("t1", first)
        hall.publish("t1", msg1)
        wait_for(lambda: names(hall), ("Anna Kovacs", "Bela Nagy"), 20, "the names in the state document")
        st = hall.state("t1")
        assert st["phase"] == "lag" and st["events"] == 0 and st["game"] == "three_cushion" and st["target"] == 3
        assert st["setup"]["n"] == n1 == 1 and st["players"]["A"]["club"] == "BC Pest"
        shows_names(b, "Anna Kovacs", "Bela Nagy")
        assert config_players(b) == PLAYERS
        with open(os.path.join(b.flash_dir, "hall.last")) as f:
            assert int(f.read()) == 1
        # a correction before anything is played: applied at once too
        second = {"players": {"A": {"name": "Anna Kovacs"}, "B": {"name": "Csaba Toth"}}, "match": MATCH}
        n2, msg2 = b.keys.message("t1", second)
        hall.publish("t1", msg2)
        wait_for(lambda: names(hall), ("Anna Kovacs", "Csaba Toth"), 20, "the corrected pairing")

        # 2. refused, counted, nothing written
        refused_with_nothing_written(b, hall, raw_sign("a5" * 32, {"table": "t1", "n": 3, "setup": first}), "key", 1)
        refused_with_nothing_written(b, hall, msg1, "old", 2)  # replayed: the first message again
        refused_with_nothing_written(b, hall, setups.sign(key, "t1", 1, second), "old", 3)  # stale: n 1, signed now
        refused_with_nothing_written(
            b,
            hall,
            raw_sign(
                key,
                {"table": "t1", "n": 3, "setup": {"players": PLAYERS, "match": {"game": "three_cushion", "target": 0}}},
            ),
            "schema",
            4,
        )  # malformed
        refused_with_nothing_written(b, hall, raw_sign(key, b'{"table": "t1", "n": 3, "setup": '), "json", 5)
        refused_with_nothing_written(b, hall, raw_sign(key, {"table": "t2", "n": 3, "setup": first}), "table", 6)
        big = raw_sign(key, {"table": "t1", "n": 3, "setup": first, "pad": " " * 3000})
        refused_with_nothing_written(b, hall, big, "size", 7)
        # the same n again (what the broker's retained copy is at a reconnect): not counted
        hall.publish("t1", msg2)
        refused_with_nothing_written(b, hall, b"not a setup at all", "form", 8)  # the count moved by one only
        assert names(hall) == ("Anna Kovacs", "Csaba Toth")

        # 3. the broker's logins and ACLs: another board cannot write t1's setup, nobody anonymous gets in
        other = Hall(secure_broker.port, user="t2", subscribe=False)
        assert other.connected.wait(10)
        forged_by_t2 = b.keys.message("t1", first)[1]  # signed even: the broker drops it
        other.client.publish("carom/t1/setup", forged_by_t2, qos=1, retain=True).wait_for_publish(10)
        other.close()
        refused_with_nothing_written(b, hall, b"marker", "form", 9)
        assert setup_of(hall)["n"] == 2 and names(hall) == ("Anna Kovacs", "Csaba Toth")
        import paho.mqtt.client as paho

        anon = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="anon")
        got = []
        anon.on_connect = lambda c, u, f, rc, p=None: got.append(rc)
        anon.connect("127.0.0.1", secure_broker.port)
        anon.loop_start()
        wait_for(lambda: len(got), 1, 10, "the anonymous client's CONNACK")
        anon.loop_stop()
        assert got[0].is_failure

        # 4. a setup while a match is on waits, and is applied when the match is over
        press(b, "A.point")  # the lag: A breaks
        press(b, "A.point")
        third = {
            "players": {"A": {"name": "Dora Varga"}, "B": {"name": "Emil Szabo"}},
            "match": {"game": "one_cushion", "target": 5},
        }
        n3, msg3 = b.keys.message("t1", third)
        hall.publish("t1", msg3)
        wait_for(lambda: setup_of(hall)["waiting"], n3, 20, "the setup waiting")
        before = flash_hashes(b.flash_dir)
        assert names(hall) == ("Anna Kovacs", "Csaba Toth") and hall.state("t1")["phase"] == "running"
        assert config_players(b) == second["players"]
        press(b, "A.point")
        press(b, "A.point")  # 3: A reaches the target
        press(b, "B.end")  # B's equalizing inning: nothing
        wait_for(lambda: hall.state("t1")["phase"], "finished", 20, "the match over")
        assert setup_of(hall)["waiting"] == n3 and names(hall) == ("Anna Kovacs", "Csaba Toth")
        assert before["hall.last"] == flash_hashes(b.flash_dir)["hall.last"]
        wait_for(lambda: names(hall), ("Dora Varga", "Emil Szabo"), 60, "applied once the match is over")
        st = hall.state("t1")
        assert st["phase"] == "lag" and st["game"] == "one_cushion" and st["target"] == 5
        assert st["setup"] == {"n": n3, "waiting": None, "refused": 9, "last_refused": "form"}
        shows_names(b, "Dora Varga", "Emil Szabo")
        assert any(name.endswith(".json") for name in os.listdir(os.path.join(b.flash_dir, "data", "history")))
        # the match's report, signed with the board's hall key as it was sent (firmware/mqtt.py)
        wait_for(lambda: len(hall.reports), 1, 20, "the report")
        table, payload = hall.reports[0]
        data, tag = setups.split_report(payload)
        assert table == "t1" and setups.report_signed(key, data, tag) and json.loads(data)["result"] == "A"

        # 5. a setup sent while the board is off: applied when it comes back (retained)
        b.vb.stop_realtime()
        b.vb.power_off()
        fourth = {
            "players": {"A": {"name": "Ferenc Kiss"}, "B": {"name": "Gizella Nemeth"}},
            "match": {"game": "straight_rail", "target": 7},
        }
        n4, msg4 = b.keys.message("t1", fourth)
        hall.publish("t1", msg4)
        b.vb.power_on()
        b.vb.run_realtime()
        wait_for(lambda: names(hall), ("Ferenc Kiss", "Gizella Nemeth"), 60, "applied after the board came back")
        assert setup_of(hall)["n"] == n4 and hall.state("t1")["game"] == "straight_rail"
        shows_names(b, "Ferenc Kiss", "Gizella Nemeth")
        assert config_players(b) == fourth["players"]

        # 6. a power cut while a setup waits: the match comes back from the flash, the broker's retained
        # copy makes the setup wait again, and it is applied when that match is over
        press(b, "A.point")  # the lag: A breaks
        press(b, "A.point")
        fifth = {"players": {"A": {"name": "Hajnal Bodo"}, "B": {"name": "Imre Fodor"}}, "match": MATCH}
        n5, msg5 = b.keys.message("t1", fifth)
        hall.publish("t1", msg5)
        wait_for(lambda: setup_of(hall)["waiting"], n5, 20, "the setup waiting")
        b.vb.stop_realtime()
        b.vb.power_off()
        with hall.lock:
            hall.states.clear()
        b.vb.power_on()
        b.vb.run_realtime()
        wait_for(lambda: setup_of(hall), lambda s: s is not None and s["waiting"] == n5, 60, "waiting again")
        st = hall.state("t1")
        assert st["players"]["A"]["score"] == 1 and names(hall) == ("Ferenc Kiss", "Gizella Nemeth")
        assert setup_of(hall)["n"] == n4 and config_players(b) == fourth["players"]
        for _ in range(6):
            press(b, "A.point")  # 7: the target
        press(b, "B.end")
        wait_for(lambda: hall.state("t1")["phase"], "finished", 20, "the match over")
        wait_for(lambda: names(hall), ("Hajnal Bodo", "Imre Fodor"), 60, "applied once the restored match is over")
        assert setup_of(hall)["n"] == n5 and config_players(b) == fifth["players"]
        assert key not in json.dumps(hall.states) and key.upper() not in json.dumps(hall.states)  # never published
    finally:
        hall.close()


# ---- the board's cost: the 32-bit heap --------------------------------------------------------


def test_the_setup_channel_on_a_stock_esp32_heap(tmp_path):
    """A board with a hall key boots within test_heap32's goal (56 KB live), and setups are
    applied, and an oversized one dropped, in a heap cut into 4 KB holes after the boot (no
    allocation larger than that can succeed), the sampled live heap within 80 KB."""
    from host_tools import micropython32_exe
    from tools.bench.heap import WIFI, boots, configure, hall_config, heap_firmware, peak, wall
    from host_tools.simulator.vboard import VirtualBoard
    from tools.run.mosquitto import Mosquitto

    mp32 = micropython32_exe()
    if mp32 is None or not available():
        pytest.skip("needs the 32-bit MicroPython and mosquitto")
    flash = heap_firmware(str(tmp_path / "flash"))
    broker = Mosquitto().start()
    configure(flash, hall_config(broker.port, "t9", KEY), holes=4096)
    import paho.mqtt.client as paho

    states = {}
    c = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="heap-hall")
    c.on_connect = lambda c, u, f, rc, p=None: c.subscribe("carom/t9/state", qos=1)
    c.on_message = lambda c, u, m: states.update(state=json.loads(m.payload))
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    try:
        with VirtualBoard(flash, board=wall(), micropython=mp32, firmware_heap="112K", wifi=WIFI) as vb:
            vb.run_realtime()
            vb.wait_for(lambda b: len(boots(b)) >= 1 or "Traceback" in b.stderr, timeout=60)
            live, free, largest = boots(vb)[-1]
            assert live <= 56 * 1024, live
            assert any(line.startswith("HEAP holes") for line in vb.lines())
            wait_for(lambda: states.get("state", {}).get("setup"), lambda s: s is not None, 40, "the board's state")
            for n in (1, 2, 3):
                setup = {
                    "players": {
                        "A": {"name": "Anna Kovacs %d" % n, "club": "BC Pest"},
                        "B": {"name": "Bela Nagy", "club": "Debreceni BC"},
                    },
                    "match": {"game": "three_cushion", "target": 25, "innings_limit": 40, "shot_clock": 40},
                }
                c.publish("carom/t9/setup", setups.sign(KEY, "t9", n, setup), qos=1, retain=True)
                wait_for(lambda: states["state"]["players"]["A"]["name"], "Anna Kovacs %d" % n, 30, "setup %d" % n)
            c.publish("carom/t9/setup", b"0" * 64 + b" " + b"x" * 5000, qos=1, retain=True)
            wait_for(lambda: states["state"]["setup"], lambda s: s["last_refused"] == "size", 30, "the big one dropped")
            vb.stop_realtime()
            text = vb.stdout + vb.stderr
            assert "MemoryError" not in text and "Traceback" not in text and "task failed" not in text, text[-3000:]
            assert peak(vb) <= 80 * 1024, peak(vb)
            assert states["state"]["setup"] == {"n": 3, "waiting": None, "refused": 1, "last_refused": "size"}
    finally:
        c.loop_stop()
        c.disconnect()
        broker.close()

"""publisher_hall.py and mqtt.py's receiving side: the hall's signed setups, checked and applied.

What is tried: HMAC-SHA256 against RFC 4231's vectors; a setup signed with the board's key for
its table, newer than the last, valid for config.py's schema is applied when the table is free
(hall.last first, then config.json's players and match, whole, the other sections kept, then a
new match with its options); one that comes while a match is on waits (a newer one replaces
it, an older one is refused) and is applied when the table is free; the same n again (the
broker's retained copy) is ignored without a count; forged, wrong-key, another table's, old,
malformed, oversized setups are refused, counted with their reason, and change no file;
mqtt.py hands a PUBLISH on its topic to the handler and acknowledges it, and reads one
longer than MAX_IN in pieces, handing None.
"""

import binascii
import json
import os

import config
import publisher_hall
import mqtt
from fwtest import emptied, scratch_folder

BASE = scratch_folder("publisher_hall")
KEY = "5a" * 32
TABLE = "t3"
PLAYERS = {"A": {"name": "Anna Kovacs", "club": "BC Pest"}, "B": {"name": "Bela Nagy", "club": ""}}
MATCH = {"game": "three_cushion", "target": 25, "innings_limit": 40}


def sign(n, setup=None, key=KEY, table=TABLE, body=None):
    """The hall's message (host_tools/hall/setups.py makes it the same way)."""
    if body is None:
        body = json.dumps({"table": table, "n": n, "setup": setup or {"players": PLAYERS, "match": MATCH}}).encode()
    return binascii.hexlify(publisher_hall.hmac(binascii.unhexlify(key), body)) + b" " + body


class Ctrl:
    def __init__(self):
        self.options = {}
        self.started = []

    def new_match(self, now):
        self.started.append(dict(self.options))


class Match:
    phase = 0  # rules.LAG


class Board:
    topic = "carom/" + TABLE + "/"

    def __init__(self):
        self.ctrl = Ctrl()
        self.match = Match()


class Client:
    def __init__(self):
        self.subscribed = None

    def subscribe(self, topic, handler):
        self.subscribed = topic


class Pub:
    """publisher.Publisher's share: board, client, setup, free(), received()."""

    def __init__(self, free=True):
        self.board = Board()
        self.client = Client()
        self.is_free = free
        self.setup = None

    def free(self):
        return self.is_free

    def received(self, payload):
        publisher_hall.received(self, payload)


def fresh(cfg=None):
    """An empty flash folder with config.json (hall.key set); a started Pub."""
    emptied(BASE)
    publisher_hall.FILE = BASE + "/hall.last"
    publisher_hall.CONFIG = BASE + "/config.json"
    publisher_hall._config = lambda: config.load(publisher_hall.CONFIG)[0]
    if cfg is None:
        cfg = {
            "name": "Table 3",
            "wifi": {"ssid": "hall", "password": "secret123"},
            "mqtt": {"host": "10.0.0.2", "table": TABLE},
            "hall": {"key": KEY},
            "players": {"A": {"name": "Old"}},
            "match": {"game": "straight_rail", "target": 100, "break_s": 60},
        }
    with open(publisher_hall.CONFIG, "w") as f:
        f.write(json.dumps(cfg))
    config.load(publisher_hall.CONFIG)  # its good copy, as the board's start makes it
    pub = Pub()
    pub.setup = publisher_hall.start(pub)
    return pub


def files():
    """{name: bytes} of every file in the flash folder."""
    out = {}
    for name in os.listdir(BASE):
        with open(BASE + "/" + name, "rb") as f:
            out[name] = f.read()
    return out


def on_flash():
    with open(publisher_hall.CONFIG) as f:
        return json.loads(f.read())


# ---- HMAC -----------------------------------------------------------------------------


def test_hmac_sha256_rfc4231():
    assert binascii.hexlify(publisher_hall.hmac(b"\x0b" * 20, b"Hi There")) == (
        b"b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    )
    assert binascii.hexlify(publisher_hall.hmac(b"Jefe", b"what do ya want for nothing?")) == (
        b"5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    )


# ---- checking ---------------------------------------------------------------------------


def test_check_takes_a_signed_setup_and_names_what_is_wrong_with_others():
    key = binascii.unhexlify(KEY)
    n, setup, why = publisher_hall.check(sign(7), key, TABLE)
    assert (n, why) == (7, None) and setup == {"players": PLAYERS, "match": MATCH}
    good = sign(7)
    forged = good[:-3] + b"30}" if good[-3:] != b"30}" else good[:-3] + b"31}"
    assert publisher_hall.check(forged, key, TABLE)[2] == b"key"  # the body changed after signing
    assert publisher_hall.check(sign(7, key="a5" * 32), key, TABLE)[2] == b"key"  # another table's key
    assert publisher_hall.check(b"0" * 64 + b" " + good[65:], key, TABLE)[2] == b"key"
    assert publisher_hall.check(sign(7, table="t4"), key, TABLE)[2] == b"table"
    assert publisher_hall.check(None, key, TABLE)[2] == b"size"
    assert publisher_hall.check(good + b" " * mqtt.MAX_IN, key, TABLE)[2] == b"size"
    assert publisher_hall.check(b"zz" + good[2:], key, TABLE)[2] == b"form"
    assert publisher_hall.check(good[:64] + b"\n" + good[65:], key, TABLE)[2] == b"form"
    assert publisher_hall.check(b"", key, TABLE)[2] == b"form"
    assert publisher_hall.check(sign(7, body=b"{not json"), key, TABLE)[2] == b"json"
    assert publisher_hall.check(sign(7, body=b"[1, 2, 3]"), key, TABLE)[2] == b"json"
    assert publisher_hall.check(sign(0), key, TABLE)[2] == b"json"
    assert (
        publisher_hall.check(sign(7, body=json.dumps({"table": TABLE, "n": "7", "setup": {}}).encode()), key, TABLE)[2]
        == b"json"
    )
    assert (
        publisher_hall.check(
            sign(7, body=json.dumps({"table": TABLE, "n": 7, "setup": {}, "x": 1}).encode()), key, TABLE
        )[2]
        == b"json"
    )
    for bad in (
        {"players": PLAYERS, "match": {"target": 0}},  # out of range
        {"players": PLAYERS, "match": {"game": "snooker"}},
        {"players": PLAYERS, "match": {"shootout": True}},  # a shoot-out needs draw false or sets
        {"players": {"A": {"name": "x" * 25}}, "match": MATCH},  # too long
        {"players": {"A": {"name": "A\nB"}}, "match": MATCH},
        {"players": PLAYERS, "match": MATCH, "wifi": {"ssid": "evil"}},  # only players and match
        {"players": PLAYERS},
        {"players": PLAYERS, "match": [1]},
    ):
        assert publisher_hall.check(sign(7, bad), key, TABLE)[2] == b"schema", bad


# ---- applying ---------------------------------------------------------------------------


def test_without_a_hall_key_nothing_is_subscribed():
    pub = fresh({"mqtt": {"host": "10.0.0.2", "table": TABLE}})
    assert pub.setup is None and pub.client.subscribed is None


def test_a_setup_for_a_free_table_is_applied_config_first_then_a_new_match():
    pub = fresh()
    assert pub.client.subscribed == "carom/t3/setup"
    assert pub.setup[:4] == [0, None, 0, None]
    pub.received(sign(5))
    assert pub.setup[:4] == [5, None, 0, None]
    with open(publisher_hall.FILE) as f:
        assert int(f.read()) == 5
    d = on_flash()
    assert d["players"] == PLAYERS and d["match"] == MATCH  # whole: the old break_s is gone
    assert d["hall"] == {"key": KEY} and d["wifi"]["password"] == "secret123" and d["name"] == "Table 3"
    with open(config.good_path(publisher_hall.CONFIG)) as f:
        assert json.loads(f.read()) == d  # the good copy too, as config.save writes it
    started = pub.board.ctrl.started
    assert len(started) == 1
    opts = started[0]
    assert opts["name_A"] == "Anna Kovacs" and opts["club_A"] == "BC Pest" and opts["name_B"] == "Bela Nagy"
    assert opts["target"] == 25 and opts["innings_limit"] == 40 and opts.get("break_s", 180) == 180
    assert publisher_hall.last() == 5
    # the broker's retained copy at the next connect: ignored, not counted, nothing written
    before = files()
    pub.received(sign(5))
    assert pub.setup[:4] == [5, None, 0, None] and len(started) == 1 and files() == before


def test_a_setup_during_a_match_waits_and_the_newest_is_applied_when_the_table_is_free():
    pub = fresh()
    pub.is_free = False
    before = files()
    pub.received(sign(3))
    assert pub.setup[0] == 0 and pub.setup[1][0] == 3
    assert files() == before and pub.board.ctrl.started == []  # waiting: nothing written
    pub.received(sign(3))  # the retained copy again
    assert pub.setup[1][0] == 3 and pub.setup[2] == 0
    newer = {"players": {"A": {"name": "Cili"}, "B": {"name": "Dora"}}, "match": {"game": "one_cushion", "target": 50}}
    pub.received(sign(4, newer))
    assert pub.setup[1] == (4, newer) and files() == before
    pub.received(sign(2))  # older than the one waiting
    assert pub.setup[1][0] == 4 and pub.setup[2:4] == [1, b"old"] and files() == before
    pub.is_free = True
    publisher_hall.apply(pub)
    assert pub.setup[:2] == [4, None] and publisher_hall.last() == 4
    assert on_flash()["players"] == newer["players"] and on_flash()["match"] == newer["match"]
    assert pub.board.ctrl.started[-1]["name_A"] == "Cili" and len(pub.board.ctrl.started) == 1


def withdrawal(n, gone, key=KEY, table=TABLE):
    """The hall's withdrawal of setup `gone` (host_tools/hall/setups.py withdrawal())."""
    return sign(n, body=json.dumps({"table": table, "n": n, "withdraw": gone}).encode(), key=key)


def test_a_withdrawal_drops_a_waiting_setup_and_never_touches_a_started_match():
    import rules

    pub = fresh()
    key = binascii.unhexlify(KEY)
    assert publisher_hall.check(withdrawal(8, 7), key, TABLE) == (8, 7, None)
    for bad in (0, -1, "7", None, 10**9):
        assert publisher_hall.check(withdrawal(8, bad), key, TABLE)[2] == b"json", bad
    assert publisher_hall.check(withdrawal(8, 7, key="a5" * 32), key, TABLE)[2] == b"key"
    assert publisher_hall.check(withdrawal(8, 7, table="t4"), key, TABLE)[2] == b"table"
    pub.received(sign(5))  # applied: the lag
    pub.is_free = False  # a match is on: the next one waits
    pub.received(sign(6))
    before = files()
    pub.received(withdrawal(7, 6))
    assert pub.setup[:4] == [5, None, 0, None] and files() == before  # dropped, RAM only
    pub.received(withdrawal(7, 6))  # the retained copy again: nothing
    assert pub.setup[:4] == [5, None, 0, None] and files() == before
    pub.received(withdrawal(8, 5))  # the applied one, its match begun: never touched
    pub.board.match.phase = rules.RUNNING
    pub.is_free = True
    pub.received(withdrawal(9, 5))
    assert pub.setup[:4] == [5, None, 0, None] and files() == before and len(pub.board.ctrl.started) == 1
    pub.received(withdrawal(3, 5))  # older than the one applied
    assert pub.setup[2:4] == [1, b"old"]


def test_a_withdrawal_lets_an_applied_setup_go_while_its_match_has_not_begun():
    pub = fresh()
    pub.received(sign(5))
    assert on_flash()["players"] == PLAYERS
    pub.received(withdrawal(6, 5))  # the lag, nothing played: a match without names
    assert pub.setup[:4] == [6, None, 0, None] and publisher_hall.last() == 6
    assert "players" not in on_flash() and on_flash()["match"] == MATCH and on_flash()["hall"] == {"key": KEY}
    started = pub.board.ctrl.started
    assert len(started) == 2 and started[-1].get("name_A", "") == ""
    before = files()
    pub.received(withdrawal(6, 5))  # the retained copy at the next connect: ignored
    assert files() == before and len(started) == 2
    pub.received(sign(7))  # the next setup is taken as before
    assert pub.setup[0] == 7 and on_flash()["players"] == PLAYERS


def test_refused_setups_are_counted_and_write_nothing():
    pub = fresh()
    pub.received(sign(5))
    before = files()
    started = len(pub.board.ctrl.started)
    wrong_key = sign(6, key="a5" * 32)
    good = sign(6)
    cases = (
        (wrong_key, b"key"),
        (good[:70] + b"X" + good[71:], b"key"),
        (sign(4), b"old"),
        (sign(1), b"old"),
        (sign(6, table="t4"), b"table"),
        (sign(6, {"players": PLAYERS, "match": {"target": 10000}}), b"schema"),
        (sign(6, body=b'{"table": "t3", "n": 6}'), b"json"),
        (None, b"size"),
        (b"hello", b"form"),
    )
    for k, (payload, why) in enumerate(cases):
        pub.received(payload)
        assert pub.setup[2] == k + 1 and pub.setup[3] == why, (k, pub.setup)
        assert pub.setup[0] == 5 and pub.setup[1] is None
    assert files() == before and len(pub.board.ctrl.started) == started
    changes = pub.setup[4]
    pub.received(b"")  # the hall cleared the retained setup (a table taken out): neither refused nor a change
    assert pub.setup[2] == len(cases) and pub.setup[4] == changes and files() == before
    pub.received(good)  # and a good one still gets through
    assert pub.setup[0] == 6 and publisher_hall.last() == 6


def test_the_last_n_survives_a_restart_and_a_damaged_record_reads_as_none():
    pub = fresh()
    pub.received(sign(9))
    pub2 = Pub()
    pub2.setup = publisher_hall.start(pub2)
    assert pub2.setup[0] == 9
    pub2.received(sign(9))  # the retained copy after the restart: not applied again
    pub2.received(sign(8))
    assert pub2.board.ctrl.started == [] and pub2.setup[2:4] == [1, b"old"]
    with open(publisher_hall.FILE, "w") as f:
        f.write("garbage")
    assert publisher_hall.last() == 0


def test_a_setup_goes_into_the_good_copy_when_config_json_is_broken():
    long_name = {"name": "x" * 24, "club": "y" * 24}
    cfg = {
        "name": "n" * 24,
        "hall": {"key": KEY},
        "mqtt": {"host": "10.0.0.2", "table": TABLE},
        "players": {"A": long_name, "B": long_name},
    }
    pub = fresh(cfg)
    pub.received(sign(2))
    assert pub.setup[0] == 2  # fits
    pub.is_free = False
    pub.received(sign(3))
    # config.json made invalid on the board meanwhile: its good copy is what the setup goes into
    with open(publisher_hall.CONFIG, "w") as f:
        f.write("{broken")
    publisher_hall.apply(pub)
    assert pub.setup[0] == 3 and on_flash()["players"] == PLAYERS and on_flash()["name"] == "n" * 24


# ---- mqtt.py: receiving -------------------------------------------------------------------


class Reader:
    def __init__(self, data):
        self.data = data
        self.at = 0
        self.largest = 0

    async def readexactly(self, n):
        if self.at + n > len(self.data):
            raise EOFError
        self.largest = max(self.largest, n)
        out = self.data[self.at : self.at + n]
        self.at += n
        return out


def run(coro):
    try:
        import asyncio
    except ImportError:
        import uasyncio as asyncio
    return asyncio.run(coro)


def test_a_publish_on_the_topic_goes_to_the_handler_and_is_acknowledged():
    got = []
    c = mqtt.Client("t3", "127.0.0.1")
    c.subscribe("carom/t3/setup", got.append)
    assert mqtt.subscribe_packet("carom/t3/setup", 1) == b"\x82\x13\x00\x01\x00\x0ecarom/t3/setup\x01"
    payload = sign(5)
    packet = mqtt.publish_packet("carom/t3/setup", payload, qos=1, retain=True, pid=0x1234)
    kind, body = run(mqtt.read_packet(Reader(packet), mqtt.MAX_IN))
    c._received(kind, body)
    assert got == [payload] and c._acks == [b"\x12\x34"]
    c._received(*run(mqtt.read_packet(Reader(mqtt.publish_packet("carom/t4/setup", payload)), mqtt.MAX_IN)))
    assert len(got) == 1 and c._acks == [b"\x12\x34"]  # another topic, QoS 0: nothing
    raises = False
    try:
        c._received(0x32, b"\x00\x40ab")  # a topic longer than the packet
    except mqtt.MQTTException:
        raises = True
    assert raises


def test_a_publish_longer_than_max_in_is_read_in_pieces_and_handed_as_none():
    got = []
    c = mqtt.Client("t3", "127.0.0.1")
    c.subscribe("carom/t3/setup", got.append)
    big = mqtt.publish_packet("carom/t3/setup", b"x" * 20000, qos=1, pid=7)
    after = mqtt.publish_packet("carom/t3/setup", b"next", qos=0)
    r = Reader(big + after)
    kind, body = run(mqtt.read_packet(r, mqtt.MAX_IN))
    assert kind & 0x100 and len(body) == mqtt.HEAD and r.largest <= mqtt.PIECE
    c._received(kind, body)
    assert got == [None] and c._acks == [b"\x00\x07"]
    c._received(*run(mqtt.read_packet(r, mqtt.MAX_IN)))  # the stream is still in step
    assert got == [None, b"next"]


# ---- publisher.py: when the table is free ---------------------------------------------------


def test_the_table_is_free_in_an_empty_lag_or_a_while_after_the_match_is_over():
    import publisher
    import rules
    import ticks

    class Match:
        phase = rules.LAG
        n = 0

    class Store:
        held = False

    class B:
        match = Match()
        store = Store()
        reported = True

    class P:
        board = B()
        _finished = None

    p = P()
    m = p.board.match
    free = publisher.Publisher.free
    assert free(p)
    m.n = 1  # the lag has begun
    assert not free(p)
    m.n = 0
    p.board.store.held = True  # the saved match could not be read: a new one would overwrite it
    assert not free(p)
    p.board.store.held = False
    m.phase, m.n = rules.FINISHED, 40
    assert not free(p)  # not yet seen finished by publish_task
    p._finished = mqtt.ticks_ms()
    assert not free(p)  # just finished: a wrong last point can still be taken back
    p._finished = ticks.ticks_add(mqtt.ticks_ms(), -publisher.HOLD_MS - 10)
    assert free(p)
    p.board.reported = False  # its report not on the flash yet
    assert not free(p)
    p.board.reported = True
    for phase in (1, 2, 3, 5, 6, 7, 8):  # running, break, equalizing, tiebreak, set over, shoot-out, warm-up
        m.phase = phase
        assert not free(p), phase

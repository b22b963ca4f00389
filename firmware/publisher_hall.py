"""The hall's setups: the next match for this table, sent by `carom hall`, checked and applied.

Cold (cold.py): loaded when a message arrives on <prefix>/<table>/setup or a waiting
setup is applied, then dropped; publisher.py keeps what must stay (its `setup` list):

    [n applied, (n, setup) waiting or None, refused count, last refusal's reason or None,
     changes (the state document is published again when it moves), the key (32 bytes)]

The key is kept there, in RAM, as the radio's is (radio.Hmac), so a message is checked
without reading the configuration again: a stream of forged ones costs this module's load
and two SHA-256 each, not config.py (loaded only for one whose HMAC is right).

The message (the hall's host_tools/hall/setups.py makes it):

    <64 hex digits: HMAC-SHA256(hall.key, json)> <space> <json>
    json: {"table": "<mqtt table>", "n": <1..999999999, only grows>,
           "setup": {"players": {...}, "match": {...}}}   (config.json's sections, whole)
      or: {"table": "<mqtt table>", "n": <as above>, "withdraw": <the n of a setup sent before>}

A withdrawal (the hall moved the match to another table, or took it back) is checked as a
setup is (signed, this table's, newer) and lets the setup it names go if the board has not
started it: one waiting is dropped (RAM only); one applied whose match is still in the lag with
nothing played gives way to a match without names (config.json's players section removed: the
schema's defaults), its n written to FILE first as a setup's is, so the broker's retained copy
coming again is ignored.  A started match is never touched: the withdrawal is then ignored.

A setup is refused, counted and never written to the flash when it is too big
(`size`), not in that form (`form`), not signed with this board's hall.key (`key`), not
JSON or not of that shape (`json`), for another table (`table`), older than the
newest one applied or waiting (`old`), or not valid for config.py's schema (`schema`).
The same n as the one applied or waiting is the broker's retained copy coming
again (at every connect): ignored, not counted.

A setup that passes waits (in RAM) until publisher.Publisher.free() says the table is
free, then apply(): its n is written to FILE first (atomically: store.replace), then
config.json gets its players and match sections, whole, written as `carom config` writes
it (config.save: checked, atomically, and its good copy), and a new match starts with
them: the board shows the pairing and waits in the lag. Names here are bytes: a cold
module's str constants would be interned for good when it loads.
"""

import binascii
import hashlib
import json

import cold
import mqtt
import store
from radio import equal  # the radio's constant-time comparison of tags

FILE = "hall.last"  # the newest applied setup's n, as text
CONFIG = "config.json"  # config.FILE
MAX_N = 999999999


def _config():
    """The configuration in force (startup.load_config: the checked form kept in config.ok)."""
    try:
        with cold.Rare():
            import startup

            return startup.load_config()[0]
    except ImportError:  # CPython: startup.py needs app.py, which needs machine
        import config

        return config.load(CONFIG)[0]


def _options(cfg):
    """rules.Match.new's keywords for a new match (startup.match_options: only what differs
    from the rules' defaults, a small dict the controller keeps)."""
    try:
        with cold.Rare():
            import startup

            return startup.match_options(cfg)
    except ImportError:  # CPython, as above
        import config

        return config.match_options(cfg)


def start(pub):
    """Publisher's `setup` list, with the setup topic subscribed; None without hall.key."""
    key = _config()["hall"]["key"]
    if not key:
        return None
    pub.client.subscribe(pub.board.topic + "setup", pub.received)
    print("carom: taking the hall's setups from", pub.board.topic + "setup")
    return [last(), None, 0, None, 0, binascii.unhexlify(key)]


def last():
    """The newest applied setup's n from FILE (0: none, or unreadable)."""
    try:
        with open(FILE) as f:
            n = int(f.read(16))
        return n if 0 <= n <= MAX_N else 0
    except (OSError, ValueError):
        return 0


def hmac(key, data):
    """HMAC-SHA256(key, data) (RFC 2104; a key of at most 64 bytes)."""
    block = bytearray(64)
    block[: len(key)] = key
    h = hashlib.sha256(bytes(b ^ 0x36 for b in block))
    h.update(data)
    inner = h.digest()
    h = hashlib.sha256(bytes(b ^ 0x5C for b in block))
    h.update(inner)
    return h.digest()


def check(payload, key, table):
    """(n, setup, None) for a message signed with `key` (bytes) for `table`; else
    (0, None, the reason). Nothing is written."""
    if payload is None or len(payload) > mqtt.MAX_IN:
        return 0, None, b"size"
    if len(payload) < 66 or payload[64] != 0x20:
        return 0, None, b"form"
    try:
        tag = binascii.unhexlify(payload[:64])
    except ValueError:
        return 0, None, b"form"
    body = payload[65:]
    if not equal(hmac(key, body), tag):
        return 0, None, b"key"
    try:
        doc = json.loads(body)
    except ValueError:  # UnicodeError too
        return 0, None, b"json"
    if type(doc) is not dict or len(doc) != 3 or type(doc.get("n")) is not int:
        return 0, None, b"json"
    n = doc["n"]
    setup = doc.get("setup")
    gone = doc.get("withdraw")
    if type(setup) is not dict and (type(gone) is not int or not 1 <= gone <= MAX_N):
        return 0, None, b"json"
    if doc.get("table") != table:
        return 0, None, b"table"
    if not 1 <= n <= MAX_N:
        return 0, None, b"json"
    if setup is None:
        return n, gone, None  # a withdrawal: the n of the setup it takes back
    if len(setup) != 2 or type(setup.get("players")) is not dict or type(setup.get("match")) is not dict:
        return n, None, b"schema"
    import config

    try:
        config.normalize({"players": setup["players"], "match": setup["match"]}, "")
    except ValueError:
        return n, None, b"schema"
    return n, setup, None


def received(pub, payload):
    """A message on the setup topic: refused and counted, ignored (the same n again), or
    waiting (a newer one replaces the waiting one); applied at once when the table is free."""
    if payload is not None and not payload:
        return  # the hall cleared the retained setup (a table taken out of the tournament): nothing to do
    s = pub.setup
    n, setup, why = check(payload, s[5], pub.board.topic.split("/")[-2])
    if why is None:
        waiting = s[1][0] if s[1] is not None else 0
        if n == s[0] or n == waiting:
            return  # the retained copy, again
        if n < s[0] or n < waiting:
            why = b"old"
    if why is not None:
        s[2] += 1
        s[3] = why
        s[4] += 1
        print("setup: refused (%s), %d so far" % (why.decode(), s[2]))
        return
    if type(setup) is int:
        withdraw(pub, n, setup)
        return
    s[1] = (n, setup)
    s[4] += 1
    print("setup: %d waits for the table" % n)
    if pub.free():
        apply(pub)


def withdraw(pub, n, gone):
    """The hall's withdrawal `n` of setup `gone`: dropped if it waits, let go if applied and its
    match not begun (the lag, nothing played); a started match is never touched."""
    import rules

    s = pub.setup
    if s[1] is not None and s[1][0] == gone:
        s[1] = None
        s[4] += 1
        print("setup: %d withdrawn (it waited)" % gone)
        return
    if s[0] != gone or not pub.free() or pub.board.match.phase != rules.LAG:
        print("setup: %d not withdrawn (not held, or its match has begun)" % gone)
        return
    import config

    d = _read(CONFIG)
    if d is None:
        d = _read(config.good_path(CONFIG)) or {}
    d.pop("players", None)  # the schema's defaults: no names
    try:
        cfg = config.normalize(d)
        store.replace(FILE, ("%d\n" % n).encode())  # first, as a setup's: never acted on twice
        s[0] = n
        config.save(d, CONFIG)
        _config()
    except (OSError, ValueError) as e:
        print("setup: withdrawal %d not written: %r" % (n, e))
        return
    s[4] += 1
    b = pub.board
    b.ctrl.options = _options(cfg)
    b.ctrl.new_match(mqtt.ticks_ms())
    print("setup: %d withdrawn (its match had not begun)" % gone)


def _read(path):
    """The dict in a JSON file, or None."""
    try:
        with open(path, "rb") as f:
            d = json.loads(f.read(4097))  # config.MAX_BYTES + 1: a longer file is no config
        return d if type(d) is dict else None
    except (OSError, ValueError):
        return None


def apply(pub, _=None):
    """The waiting setup applied: its n on the flash, config.json's players and match, and a
    new match with them."""
    import config

    s = pub.setup
    n, setup = s[1]
    s[1] = None
    s[4] += 1
    d = _read(CONFIG)
    if d is None:  # no config.json (the defaults), or one the board does not run: its good copy
        d = _read(config.good_path(CONFIG)) or {}
    d["players"] = setup["players"]
    d["match"] = setup["match"]
    try:
        cfg = config.normalize(d)
    except ValueError:  # the board's own file with it: cannot be written
        s[2] += 1
        s[3] = b"schema"
        print("setup: %d does not fit config.json; refused" % n)
        return
    try:
        store.replace(FILE, ("%d\n" % n).encode())  # first: it is never applied twice
        s[0] = n
        config.save(d, CONFIG)
        _config()  # its checked form (config.ok) made now: a setup refused later writes nothing
    except (OSError, ValueError) as e:
        print("setup: %d not written: %r" % (n, e))
        return
    b = pub.board
    b.ctrl.options = _options(cfg)
    b.ctrl.new_match(mqtt.ticks_ms())
    p = cfg["players"]
    print("setup: %d applied: %s v %s" % (n, p["A"]["name"], p["B"]["name"]))

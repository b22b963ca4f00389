"""The hall's side of the setup channel: the tables' keys, their numbers, signed setups.

    keys = Keys("hall-keys.json")             # the hall's key file (0600), made when missing
    key = keys.new_key("t3")                  # a fresh 32-byte key (hex) for table t3: onto its board
    n = keys.next_n("t3")                     # 1, 2, 3 ... (kept in the file before it is returned)
    payload = sign(keys.key("t3"), "t3", n, setup)
    client.publish(topic("carom", "t3"), payload, qos=1, retain=True)
    payload = keys.message("t3", setup)       # next_n and sign in one

A setup is config.json's "players" and "match" sections (firmware/config.py's schema; check_setup
checks it with the firmware's own code). The message is

    <64 hex digits: HMAC-SHA256(key, json)> <space> <json>
    json = {"table": "t3", "n": 7, "setup": {"players": {...}, "match": {...}}}

and the board (firmware/publisher_hall.py) acts on it only when the HMAC is its hall.key's, the table
its own, n greater than the last it applied, and the setup valid. It is published retained
(QoS 1), so a board that is off gets it when it comes back, and the newest replaces an older
one still waiting. n only grows per table: the key file keeps each table's last n, written
(atomically) before a message with the next is made, so a crash never hands out an n twice. A
hall that loses its key file makes new keys for its boards (`carom hall-key`): a board's numbers
then start again with its new key.

The keys are secrets: never printed, logged or published; the key file is written 0600.
"""

import hashlib
import hmac as _hmac
import json
import os
import re
import tempfile
import threading

from .. import firmware_path

KEY_BYTES = 32
MAX_N = 999999999  # the board's (publisher_hall.MAX_N): below 2**30, a small int on the board
MAX_MESSAGE = 2048  # the board's mqtt.MAX_IN: a longer setup is dropped unread
_TABLE_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789_-")


class SetupError(ValueError):
    """A setup, key or table the board would refuse; the message says which field and why."""


def topic(prefix, table):
    """The setup topic of a table: <prefix>/<table>/setup."""
    return "%s/%s/setup" % (prefix, check_table(table))


def check_table(table):
    if not isinstance(table, str) or not 1 <= len(table) <= 24 or set(table) - _TABLE_CHARS:
        raise SetupError("table: %r is not a table id ([a-z0-9_-], 1 to 24 characters)" % (table,))
    return table


def key_bytes(key):
    """The 32 key bytes from 64 hex digits (or the bytes themselves)."""
    if isinstance(key, (bytes, bytearray)):
        raw = bytes(key)
    else:
        try:
            raw = bytes.fromhex(key) if isinstance(key, str) and len(key) == 2 * KEY_BYTES else b""
        except ValueError:
            raw = b""
    if len(raw) != KEY_BYTES:
        raise SetupError("a hall key is %d bytes as %d hex digits" % (KEY_BYTES, 2 * KEY_BYTES))
    return raw


def check_setup(setup):
    """The setup checked with the firmware's own schema (config.py), as the board checks it:
    a dict with exactly "players" and "match". Returns it; SetupError names the field."""
    if not isinstance(setup, dict) or set(setup) != {"players", "match"}:
        raise SetupError('setup: an object with "players" and "match" (config.json\'s sections), nothing else')
    if not isinstance(setup["players"], dict) or not isinstance(setup["match"], dict):
        raise SetupError("setup: players and match are objects")
    firmware_path()
    import config

    try:
        config.normalize({"players": setup["players"], "match": setup["match"]}, "setup")
    except ValueError as e:
        raise SetupError(str(e)) from None
    return setup


def body(table, n, setup):
    """The signed JSON's bytes (compact; UTF-8 as it is)."""
    check_table(table)
    if type(n) is not int or not 1 <= n <= MAX_N:
        raise SetupError("n: %r is not 1..%d" % (n, MAX_N))
    check_setup(setup)
    return json.dumps({"table": table, "n": n, "setup": setup}, ensure_ascii=False, separators=(",", ":")).encode()


def sign(key, table, n, setup):
    """The MQTT payload: hex HMAC-SHA256(key, json), a space, the json. SetupError when the board
    would refuse it (a bad table, n or setup, or longer than it reads)."""
    data = body(table, n, setup)
    out = _hmac.new(key_bytes(key), data, hashlib.sha256).hexdigest().encode() + b" " + data
    if len(out) > MAX_MESSAGE:
        raise SetupError("the setup is %d bytes signed; a board reads at most %d" % (len(out), MAX_MESSAGE))
    return out


def withdrawal(key, table, n, gone):
    """The MQTT payload that takes setup `gone` back from the table's board (firmware
    publisher_hall.withdraw: a waiting one is dropped, an applied one whose match has not begun is
    let go, a started match is never touched): signed as a setup is, with the next n."""
    check_table(table)
    for name, v in (("n", n), ("withdraw", gone)):
        if type(v) is not int or not 1 <= v <= MAX_N:
            raise SetupError("%s: %r is not 1..%d" % (name, v, MAX_N))
    data = json.dumps({"table": table, "n": n, "withdraw": gone}, separators=(",", ":")).encode()
    return _hmac.new(key_bytes(key), data, hashlib.sha256).hexdigest().encode() + b" " + data


def verify(key, payload):
    """The parsed JSON of a payload signed with `key`; SetupError otherwise (tests, tools)."""
    if len(payload) < 66 or payload[64:65] != b" ":
        raise SetupError("not a signed setup")
    tag, data = payload[:64], payload[65:]
    if not _hmac.compare_digest(_hmac.new(key_bytes(key), data, hashlib.sha256).hexdigest().encode(), tag):
        raise SetupError("the HMAC is not this key's")
    return json.loads(data)


REPORT_TAIL = 65  # a signed report's tail: a space and 64 hex digits (firmware/mqtt.py SIGNED_TAIL)
_TAG = re.compile(rb"[0-9a-f]{64}")


def split_report(payload):
    """(the report's JSON, its tag: 64 hex digits as bytes, or None when it carries none). A board
    with a hall key sends its report as the JSON, a space and HMAC-SHA256(key, JSON) in hex
    (firmware/mqtt.py signs the file as it sends it); JSON itself never ends that way."""
    if len(payload) > REPORT_TAIL and payload[-REPORT_TAIL] == 0x20 and _TAG.fullmatch(payload, len(payload) - 64):
        return payload[:-REPORT_TAIL], payload[-64:]
    return payload, None


def report_tag(key, data):
    """HMAC-SHA256(key, data) as 64 lowercase hex digits (bytes), as the board writes it."""
    return _hmac.new(key_bytes(key), data, hashlib.sha256).hexdigest().encode()


def sign_report(key, data):
    """A report's payload as a board with `key` sends it (tests, tools)."""
    return bytes(data) + b" " + report_tag(key, data)


def report_signed(key, data, tag):
    """Whether `tag` (from split_report) is `data`'s HMAC with `key`, compared in constant time."""
    return tag is not None and _hmac.compare_digest(report_tag(key, data), tag)


class Keys:
    """The hall's key file: {"tables": {"t3": {"key": "<64 hex>", "n": <last n>}}}, written
    atomically (a temporary file, then a rename) with mode 0600. One lock per object; two
    processes should not share a file (the hall's server owns it)."""

    def __init__(self, path):
        self.path = path
        self._lock = threading.Lock()
        self._tables = self._read()

    def _read(self):
        try:
            with open(self.path, encoding="utf-8") as f:
                d = json.load(f)
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as e:
            raise SetupError("%s: not a key file (%s)" % (self.path, e.__class__.__name__)) from None
        tables = d.get("tables") if isinstance(d, dict) else None
        if not isinstance(tables, dict):
            raise SetupError("%s: not a key file (no tables)" % self.path)
        out = {}
        for table, t in tables.items():
            try:
                check_table(table)
                key_bytes(t["key"])
                n = t.get("n", 0)
                if type(n) is not int or not 0 <= n <= MAX_N:
                    raise SetupError("n")
            except (SetupError, TypeError, KeyError):
                raise SetupError("%s: table %r is damaged" % (self.path, str(table)[:32])) from None
            out[table] = {"key": t["key"].lower(), "n": n}
        return out

    def _write(self):
        folder = os.path.dirname(os.path.abspath(self.path))
        fd, tmp = tempfile.mkstemp(prefix=".hall-keys-", dir=folder)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"tables": self._tables}, f, indent=1, sort_keys=True)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def tables(self):
        return sorted(self._tables)

    def has(self, table):
        return table in self._tables

    def key(self, table):
        """The table's key (hex); SetupError when it has none."""
        t = self._tables.get(table)
        if t is None:
            raise SetupError("table %s has no hall key (carom hall-key)" % table)
        return t["key"]

    def last_n(self, table):
        t = self._tables.get(table)
        return t["n"] if t else 0

    def new_key(self, table):
        """A fresh random key for the table (its numbers start again at 1); written, returned."""
        check_table(table)
        key = os.urandom(KEY_BYTES).hex()
        with self._lock:
            self._tables[table] = {"key": key, "n": 0}
            self._write()
        return key

    def set_key(self, table, key):
        check_table(table)
        key = key_bytes(key).hex()
        with self._lock:
            self._tables[table] = {"key": key, "n": 0}
            self._write()

    def remove(self, table):
        with self._lock:
            if self._tables.pop(table, None) is not None:
                self._write()

    def next_n(self, table):
        """The table's next n, on the disk before it is returned."""
        with self._lock:
            t = self._tables.get(table)
            if t is None:
                raise SetupError("table %s has no hall key (carom hall-key)" % table)
            if t["n"] >= MAX_N:
                raise SetupError("table %s: its numbers are used up; give it a new key" % table)
            t["n"] += 1
            self._write()
            return t["n"]

    def message(self, table, setup):
        """(n, payload): the table's next setup message, signed with its key."""
        check_setup(setup)
        key = self.key(table)
        n = self.next_n(table)
        return n, sign(key, table, n, setup)

    def withdrawal(self, table, gone):
        """(n, payload): the table's next message, taking back its setup `gone`."""
        key = self.key(table)
        n = self.next_n(table)
        return n, withdrawal(key, table, n, gone)

    def __repr__(self):  # never the keys
        return "Keys(%r, %d tables)" % (self.path, len(self._tables))


def next_n(path, table):
    """The next n of `table` in the key file at `path` (Keys(path).next_n(table))."""
    return Keys(path).next_n(table)

"""The organiser's side of the hall: the tournament, the setups sent to the tables, what a page may change.

    Tournament   host_tools/hall/tournament/ (SQLite): players, format, draw, standings, bracket
    setups.Keys  host_tools/hall/setups.py: the tables' keys and numbers (the key file, `carom hall-key`),
                 a setup's MQTT payload HMAC-signed with the table's key

The hall gives the next match to a free table and sends its setup there: a retained QoS 1 publish on
<prefix>/<table>/setup (a board offline gets it when it comes back; the board applies it only when
its own table is free, else keeps it waiting).  A table is free for the hall when it is one of the
tournament's tables, no tournament match is on it (assigned and not done), and its board shows no
match in progress: no state document at all, the lag with nothing played, or a finished match.

What each table's newest setup is doing (`setup_status`), from the board's state document
("setup": {"n": last applied, "waiting": n or null, "refused": count}, firmware/publisher_hall.py):

    sent      published; the board has not said it has it (offline, or no hall key on it)
    waiting   the board holds it until the match on it ends
    ready     the board shows the pairing and waits for the lag
    playing   the match is under way
    done      its report arrived and is in the standings
    no key    the hall has no key for that table in its key file: nothing is sent there (carom hall-key);
              the file is read again when it changes, and the table gets its match then

Every POST body is checked here field by field (`check_*`: Refused with a message that says which
field and why).  Nothing here reads a key's value except to sign: keys are never in a page, an event,
a log line or an error.
"""

import json
import os
import re
import sqlite3
import time

from . import schema

MAX_BODY = 32 * 1024  # a POST body (a list of up to MAX_PLAYERS_AT_ONCE players fits)
MAX_PLAYERS_AT_ONCE = 256
MAX_PLAYERS = 1024
MAX_TABLES = 256
MAX_NAME = 24  # config.json's players.X.name and club
MAX_TOURNAMENT_NAME = 80
VIEWS = ("tables", "standings", "bracket")
FORMATS = ("round_robin", "knockout", "groups_knockout")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# The game options a page may set: config.json's "match" keys (firmware/config.py checks the values).
GAME_KEYS = (
    "game",
    "target",
    "innings_limit",
    "equalizing",
    "draw",
    "shot_clock",
    "timeouts",
    "timeout_s",
    "break_s",
    "breaker_ball",
    "sets",
    "deciding_target",
    "shootout",
    "warmup_s",
)


class Refused(ValueError):
    """A request the organiser's API refuses: its HTTP status and a message for the page."""

    def __init__(self, message, status=400):
        super().__init__(message)
        self.status = status


# ---- what a page may send ----------------------------------------------------------------------


def _obj(body, known, required=()):
    if type(body) is not dict:
        raise Refused("the body must be a JSON object")
    for k in body:
        if k not in known:
            raise Refused("unknown field %s (expected %s)" % (json.dumps(k[:40]), ", ".join(known)))
    for k in required:
        if k not in body:
            raise Refused("%s is missing" % k)
    return body


def text(value, field, most, empty=True):
    if type(value) is not str:
        raise Refused("%s must be a text" % field)
    value = value.strip()
    if _CONTROL.search(value):
        raise Refused("%s has a control character (a line break, a tab)" % field)
    if len(value) > most:
        raise Refused("%s is %d characters long: at most %d" % (field, len(value), most))
    if not value and not empty:
        raise Refused("%s is empty" % field)
    return value


def whole(value, field, lo, hi, null=False):
    if value is None and null:
        return None
    if type(value) is not int or not lo <= value <= hi:
        raise Refused("%s must be a whole number %d..%d%s" % (field, lo, hi, " or null" if null else ""))
    return value


def check_player(body, field="player"):
    """{"name", "club"?, "target"?, "average"?} -> add_player's arguments."""
    _obj(body, ("name", "club", "target", "average"), ("name",))
    out = {
        "name": text(body["name"], field + ".name", MAX_NAME, empty=False),
        "club": text(body.get("club", ""), field + ".club", MAX_NAME),
        "target": whole(body.get("target"), field + ".target", 1, 9999, null=True),
    }
    average = body.get("average")
    if average is not None:
        if type(average) not in (int, float) or not 0 < average <= 100:
            raise Refused("%s.average must be a number above 0 and at most 100, or null" % field)
        average = float(average)
    if out["target"] is not None and average is not None:
        raise Refused("%s: give a handicap target or an average, not both" % field)
    out["average"] = average
    return out


def check_players(body):
    """{"players": [player, ...]} or one player -> a list of add_player's arguments."""
    if type(body) is dict and "players" in body:
        _obj(body, ("players",))
        players = body["players"]
        if type(players) is not list or not 1 <= len(players) <= MAX_PLAYERS_AT_ONCE:
            raise Refused("players must be a list of 1..%d players" % MAX_PLAYERS_AT_ONCE)
        return [check_player(p, "players[%d]" % i) for i, p in enumerate(players)]
    return [check_player(body)]


def check_game(options):
    """The game options, checked as a board checks its config.json's "match" (firmware/config.py)."""
    if type(options) is not dict:
        raise Refused("game_options must be an object")
    for k in options:
        if k not in GAME_KEYS:
            raise Refused(
                "game_options: unknown option %s (expected %s; each player's target comes from his"
                " handicap)" % (json.dumps(k[:40]), ", ".join(GAME_KEYS))
            )
    from .. import firmware_path

    firmware_path()
    import config

    try:
        config.normalize({"match": dict(options)}, source="")
    except ValueError as e:
        raise Refused("game_options: %s" % str(e).replace("match.", "", 1)) from None
    return dict(options)


def check_tiebreak(value):
    """A preset's name or a list of criteria (the tournament's values.tiebreak_orders checks)."""
    from .tournament.values import tiebreak_orders

    if type(value) not in (str, list):
        raise Refused("tiebreak must be a preset's name or a list of criteria")
    try:
        tiebreak_orders(value)
    except ValueError as e:
        raise Refused(str(e)) from None
    return value


def check_configure(body):
    """configure's arguments: those given (once the draw is made only the name may change)."""
    from .tournament.values import WALKOVER_RULES, WITHDRAWAL_RULES

    _obj(
        body,
        ("name", "game_options", "format", "groups", "advance", "walkover", "withdrawal", "tiebreak", "third_place"),
    )
    out = {}
    if "name" in body:
        out["name"] = text(body["name"], "name", MAX_TOURNAMENT_NAME)
    if "game_options" in body:
        out["game_options"] = check_game(body["game_options"])
    if "format" in body:
        if body["format"] not in FORMATS:
            raise Refused("format must be one of %s" % ", ".join(FORMATS))
        out["format"] = body["format"]
    if "groups" in body:
        out["groups"] = whole(body["groups"], "groups", 1, 26)
    if "advance" in body:
        out["advance"] = whole(body["advance"], "advance", 1, 64)
    for key, allowed in (("walkover", WALKOVER_RULES), ("withdrawal", WITHDRAWAL_RULES)):
        if key in body:
            if body[key] not in allowed:
                raise Refused("%s must be one of %s" % (key, ", ".join(allowed)))
            out[key] = body[key]
    if "tiebreak" in body:
        out["tiebreak"] = check_tiebreak(body["tiebreak"])
    if "third_place" in body:
        if type(body["third_place"]) is not bool:
            raise Refused("third_place must be true or false")
        out["third_place"] = body["third_place"]
    return out


def check_table(body):
    _obj(body, ("table",), ("table",))
    table = body["table"]
    if type(table) is not str or not schema.TABLE_NAME.match(table):
        raise Refused("table must be a board's table id: a-z, 0-9, _ and -, 1..24 characters (config.json mqtt.table)")
    return table


def check_draw(body):
    _obj(body, ("seed",))
    return whole(body.get("seed"), "seed", 0, 2**31 - 1, null=True)


def check_decide(body):
    """{"match": id, "winner": "A" or "B"}: the organiser names an undecided knock-out match's winner."""
    _obj(body, ("match", "winner"), ("match", "winner"))
    if body["winner"] not in ("A", "B"):
        raise Refused("winner must be A or B")
    return whole(body["match"], "match", 1, 10**6), body["winner"]


def check_walkover(body):
    """{"match": id, "present": "A" or "B"}: a no-show, the match a walkover for the present player."""
    _obj(body, ("match", "present"), ("match", "present"))
    if body["present"] not in ("A", "B"):
        raise Refused("present must be A or B (the player who came)")
    return whole(body["match"], "match", 1, 10**6), body["present"]


def check_withdraw(body):
    """{"player": name, "excluded": false}: a player withdraws (or the organiser excludes him)."""
    _obj(body, ("player", "excluded"), ("player",))
    excluded = body.get("excluded", False)
    if type(excluded) is not bool:
        raise Refused("excluded must be true or false")
    return text(body["player"], "player", MAX_NAME, empty=False), excluded


def _counts(value, field):
    _obj(value, ("score", "innings", "high_run"), ("score", "innings", "high_run"))
    return {k: whole(value[k], "%s.%s" % (field, k), 0, 99999) for k in ("score", "innings", "high_run")}


def check_result(body):
    """{"match": id, "A": {score, innings, high_run}, "B": {...}, "winner": null | "A" | "B"}: a
    result entered by hand (the paper sheet); winner only for a level score a shoot-out decided."""
    _obj(body, ("match", "A", "B", "winner"), ("match", "A", "B"))
    winner = body.get("winner")
    if winner not in (None, "A", "B"):
        raise Refused("winner must be A, B or null")
    for side in ("A", "B"):
        if type(body[side]) is not dict:
            raise Refused("%s must be an object {score, innings, high_run}" % side)
    return whole(body["match"], "match", 1, 10**6), _counts(body["A"], "A"), _counts(body["B"], "B"), winner


def check_move(body):
    """{"match": id, "table": table id}: a match on a table goes to another table."""
    _obj(body, ("match", "table"), ("match", "table"))
    return whole(body["match"], "match", 1, 10**6), check_table({"table": body["table"]})


def check_view(body):
    _obj(body, ("view",), ("view",))
    if body["view"] not in VIEWS:
        raise Refused("view must be one of %s" % ", ".join(VIEWS))
    return body["view"]


# ---- the tables ------------------------------------------------------------------------------------


def board_free(state):
    """Whether a board with this state document may take a new match, as the board itself decides
    (firmware/publisher.py free()): no state at all, the lag with nothing done in it, or finished."""
    if state is None:
        return True
    phase = state.get("phase")
    return phase == "finished" or (phase == "lag" and not state.get("events"))


def _names(setup):
    return tuple((setup.get("players", {}).get(p) or {}).get("name", "") for p in ("A", "B"))


class SentStore:
    """What the hall sent to each table (the newest setup, its number and match), in the tournament's
    SQLite file beside the tournament's own tables: it survives a restart, and the numbers only grow."""

    def __init__(self, path):
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA busy_timeout = 5000")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS hall_sent (tbl TEXT PRIMARY KEY, n INTEGER NOT NULL,"
            " match_id TEXT, setup TEXT NOT NULL, payload BLOB NOT NULL, sent_at REAL NOT NULL)"
        )

    def all(self):
        rows = self.db.execute("SELECT tbl, n, match_id, setup, payload, sent_at FROM hall_sent").fetchall()
        return {
            r[0]: {
                "n": r[1],
                "match": int(r[2]) if r[2] is not None and r[2].isdigit() else r[2],
                "setup": json.loads(r[3]),
                "payload": bytes(r[4]),
                "at": r[5],
            }
            for r in rows
        }

    def put(self, table, entry):
        self.db.execute(
            "INSERT OR REPLACE INTO hall_sent VALUES (?, ?, ?, ?, ?, ?)",
            (
                table,
                entry["n"],
                None if entry["match"] is None else str(entry["match"]),
                json.dumps(entry["setup"]),
                entry["payload"],
                entry["at"],
            ),
        )

    def delete(self, table):
        self.db.execute("DELETE FROM hall_sent WHERE tbl = ?", (table,))

    def close(self):
        self.db.close()


class KeyFile:
    """The hall's key file (setups.Keys), read again when it changed on the disk (carom hall-key adds a
    table's key while the hall runs). has(table); message(table, setup) -> (n, payload)."""

    def __init__(self, path):
        self.path = path
        self._stamp = None
        self._keys = None

    def _fresh(self):
        from . import setups

        if self.path is None:
            return None
        try:
            st = os.stat(self.path)
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            stamp = None
        if self._keys is None or stamp != self._stamp:
            self._keys = setups.Keys(self.path)
            self._stamp = stamp
        return self._keys

    def has(self, table):
        keys = self._fresh()
        return keys is not None and keys.has(table)

    def key(self, table):
        """The table's key in force (bytes), or None when the key file has none (its reports are
        then taken unsigned, and never into the tournament)."""
        from . import setups

        keys = self._fresh()
        if keys is None or not keys.has(table):
            return None
        return setups.key_bytes(keys.key(table))

    def signs(self, table, payload):
        """Whether `payload` is signed with the table's key in force (not one `carom hall-key` replaced)."""
        from . import setups

        keys = self._fresh()
        if keys is None or not keys.has(table):
            return False
        try:
            setups.verify(keys.key(table), payload)
        except (setups.SetupError, ValueError):
            return False
        return True

    def message(self, table, setup):
        keys = self._fresh()
        n, payload = keys.message(table, setup)
        self._own_write()
        return n, payload

    def withdrawal(self, table, gone):
        """(n, payload) taking the table's setup `gone` back (setups.withdrawal)."""
        keys = self._fresh()
        n, payload = keys.withdrawal(table, gone)
        self._own_write()
        return n, payload

    def _own_write(self):
        st = os.stat(self.path)
        self._stamp = (st.st_mtime_ns, st.st_size, st.st_ino)  # our own write: no need to read it again


class Organiser:
    """The tournament on the hall's event loop: pages' requests, boards' states and reports in, setups out.

    tournament  a Tournament (tournament/)
    keys        has(table), message(table, setup) -> (n, the MQTT payload): the hall's key file (KeyFile)
    publish     publish(topic, payload): a retained QoS 1 publish through the hall's MQTT connection
    """

    def __init__(self, tournament, store, keys, publish, prefix="carom", out=print, clock=time.time):
        self.t = tournament
        self.store = store
        self.keys = keys
        self.publish = publish
        self.prefix = prefix
        self.out = out
        self.clock = clock
        self.sent = store.all()  # table -> {"n", "match", "setup", "payload", "at"}
        self.unkeyed = set()  # the tournament's tables the key file has no key for (shown on the page)
        self.view = "tables"
        self.statuses = {}  # table -> the status the pages were last sent
        self.table_set = set()  # the tournament's tables (refresh_tables): only their messages concern it
        self.refresh_tables()

    def refresh_tables(self):
        """The tournament's tables, read again (after a page added or removed one)."""
        self.table_set = {row["table"] for row in self.t.tables()}

    # ---- setups out ----

    def topic(self, table):
        return "%s/%s/setup" % (self.prefix, table)

    def free_tables(self, hall):
        """The tournament's tables without a match of its own whose boards may take one (board_free)."""
        free = []
        rows = self.t.tables()
        self._check_keys(rows)
        for row in rows:
            table = row["table"]
            if row["match"] is not None or table in self.unkeyed:
                continue
            entry = hall.tables.get(table)
            if board_free(entry.state if entry is not None else None):
                free.append(table)
        return free

    def _check_keys(self, rows):
        self.unkeyed = {row["table"] for row in rows if not self.keys.has(row["table"])}

    def dispatch(self, hall):
        """Send what tables are due (send_due), assign the next matches to the free tables and send
        their setups. Returns True if any was sent."""
        if not self.t.settings()["drawn"]:
            return False
        sent = self.send_due(hall)
        free = self.free_tables(hall)
        if not free:
            return sent
        for table, match_id, setup in self.t.assign(free):
            if not self.send(table, match_id, setup):
                self.t.unassign(match_id)  # it could not be sent: the match waits for another table
            sent = True
        return sent

    def send_due(self, hall):
        """The setup of each table's assigned match that the table has not been sent, or not with the
        key in force: after a hall that stopped between assigning a match and sending it, or a send
        that failed, or `carom hall-key` on a table (a setup signed with its old key, which its board
        refuses, is signed again with the new one, unless the board shows it has it already).
        Returns True if any was sent."""
        sent = False
        for row in self.t.tables():
            table, match = row["table"], row["match"]
            if match is None or not self.keys.has(table):
                continue  # (no key: the page says so; it is sent once the key file has one)
            entry = self.sent.get(table)
            if entry is not None and str(entry["match"]) == str(match):
                if self.keys.signs(table, entry["payload"]):
                    continue
                t = hall.tables.get(table) if hall is not None else None
                board = (t.state or {}).get("setup") if t is not None and isinstance(t.state, dict) else None
                if isinstance(board, dict) and type(board.get("n")) is int and board["n"] >= entry["n"]:
                    continue  # the board took it before its key changed
            due = self.t.setup_of(table)
            if due is not None and self.send(table, due[0], due[1]):
                sent = True
        return sent

    def observe(self, table, state):
        """A board's new state: the tournament's match on it may be waiting or playing now."""
        if state is None:
            return
        try:
            self.t.observe(table, state)
        except ValueError:
            pass

    def send(self, table, match_id, setup):
        try:
            n, payload = self.keys.message(table, setup)
        except ValueError as e:  # setups.SetupError: no key, numbers used up, a setup the board would refuse
            self.out("carom hall: the setup for %s cannot be sent: %s" % (table, e))
            return False
        entry = {"n": n, "match": match_id, "setup": setup, "payload": payload, "at": self.clock()}
        self.store.put(table, entry)
        self.sent[table] = entry
        self.publish(self.topic(table), payload)
        a, b = _names(setup)
        self.out("carom hall: setup %d sent to %s: %s - %s" % (n, table, ascii(a), ascii(b)))
        return True

    def withdraw(self, table, clear=False):
        """The table's setup taken back (its match moved to another table, was a walkover or was
        entered by hand, or the organiser took it back): a signed withdrawal, retained, replaces
        the setup on the broker, so a board that holds it waiting lets it go, one that shows its
        pairing in an empty lag too, and a board that is off gets the withdrawal, not the setup,
        when it comes back; a started match is never touched (firmware publisher_hall.withdraw).
        clear (the table left the tournament), or no key for the table: the retained message is
        then cleared (an empty retained message) after the withdrawal."""
        entry = self.sent.pop(table, None)
        if entry is None:
            return False
        self.store.delete(table)
        signed = False
        try:
            if self.keys.has(table):
                self.publish(self.topic(table), self.keys.withdrawal(table, entry["n"])[1])
                signed = True
        except ValueError as e:  # setups.SetupError: the numbers used up
            self.out("carom hall: the withdrawal for %s cannot be signed: %s" % (table, e))
        if clear or not signed:
            self.publish(self.topic(table), b"")
        self.out(
            "carom hall: the setup for %s withdrawn (%s)"
            % (
                table,
                ", ".join(
                    x
                    for x in (
                        "a signed withdrawal of setup %d" % entry["n"] if signed else "",
                        "its retained copy cleared" if clear or not signed else "",
                    )
                    if x
                ),
            )
        )
        return True

    def republish(self):
        """After a (re)connect: each table's newest setup again (a broker without persistence lost it);
        one signed with a key no longer in force waits for send_due, which signs it again."""
        for table, entry in self.sent.items():
            if self.keys.signs(table, entry["payload"]):
                self.publish(self.topic(table), entry["payload"])

    # ---- boards in ----

    def report(self, table, doc):
        """A finished match's report (deduplicated by the model): the tournament's, if it is one of its matches."""
        try:
            return self.t.record_report(table, doc)
        except (ValueError, KeyError, TypeError) as e:
            self.out("carom hall: the report from %s was not taken into the tournament: %s" % (table, ascii(str(e))))
            return None

    def setup_status(self, table, hall, done):
        """What the newest setup sent to `table` is doing (see the module's docstring); `done`: the ids
        of the tournament's finished matches."""
        entry = self.sent.get(table)
        if table in self.unkeyed:
            return "no key"
        if entry is None:
            return None
        if entry["match"] is not None and str(entry["match"]) in done:
            return "done"
        t = hall.tables.get(table)
        state = t.state if t is not None else None
        board = state.get("setup") if state else None
        if not isinstance(board, dict):
            return "sent"
        if board.get("waiting") == entry["n"]:
            return "waiting"
        if type(board.get("n")) is int and board["n"] >= entry["n"]:
            return "ready" if board_free(state) and state.get("phase") == "lag" else "playing"
        return "sent"

    def _statuses(self, hall, matches=None):
        matches = self.t.matches() if matches is None else matches
        done = {str(m["id"]) for m in matches if m["status"] in ("done", "undecided")}
        return {table: self.setup_status(table, hall, done) for table in sorted(set(self.sent) | self.unkeyed)}

    def statuses_changed(self, hall):
        """The setups' statuses if any changed since the pages were last told, else None."""
        now = self._statuses(hall)
        if now == self.statuses:
            return None
        self.statuses = now
        return now

    # ---- pages ----

    def snapshot(self, hall):
        """Everything the organiser's page and the TV show of the tournament (no key, no payload)."""
        matches = self.t.matches()
        tables = self.t.tables()
        self._check_keys(tables)
        self.statuses = self._statuses(hall, matches)
        sent = {
            table: {
                "n": e["n"],
                "match": e["match"],
                "at": e["at"],
                "players": _names(e["setup"]),
                "status": self.statuses.get(table),
            }
            for table, e in self.sent.items()
        }
        return {
            "settings": self.t.settings(),
            "players": self.t.players(),
            "tables": tables,
            "matches": matches,
            "standings": self.t.standings(),
            "places": self.t.places(),
            "bracket": self.t.bracket(),
            "champion": self.t.champion(),
            "setups": sent,
            "unkeyed": sorted(self.unkeyed),
            "view": self.view,
        }

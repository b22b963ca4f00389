"""`carom config`: read and write a board's config.json through mpremote.

    carom config -d DEV show                      the configuration in force (defaults filled in)
    carom config -d DEV get players.A.name
    carom config -d DEV set players.A.name=KIM display.brightness=3 match.target=25
    carom config -d DEV import my-table.json      replace config.json with a file
    carom config -d DEV export my-table.json      the board's config.json to a file ("-": stdout)

Every value is checked on the host with the firmware's own schema
(firmware/config.py, config_edit.py) BEFORE anything is written: an invalid
value names the field and the board's file stays as it was, byte for byte.
The write is atomic on the board: config.json.tmp, its hash checked, then
os.rename over config.json.  `show`, `get` and `export` print secrets (Wi-Fi
and MQTT passwords, the radio key) as "***" unless --secrets; `import` of a
file whose secret is "***" keeps the board's current secret.

After set/import the board is reset (mpremote's `reset`), since the app reads
config.json at boot, and its start is watched; --no-reset leaves it at the REPL.
"""

import json
import sys

from .. import firmware_path
from ..boards import role_of
from ..link.boardio import BoardIO, add_device_argument, add_reset_argument, add_wait_argument, boot_problems
from ..errors import CommandError

FILE = "/config.json"
ACTIONS = ("show", "get", "set", "import", "export")


def firmware_config():
    """The firmware's own config and config_edit modules (the one schema, on the host too)."""
    firmware_path()
    import config
    import config_edit

    return config, config_edit


def config_bytes(d):
    """config.json's bytes as firmware/config.py's save() writes them."""
    config, _ = firmware_config()
    raw = (json.dumps(d, indent=2, ensure_ascii=False) + "\n").encode()
    if len(raw) > config.MAX_BYTES:
        raise CommandError(
            "config.json would be %d bytes, more than the board reads (%d); nothing was written"
            % (len(raw), config.MAX_BYTES)
        )
    return raw


def checked_config(new, where):
    """new, checked as a config.json (config.normalize; `where` names the file in the error) and small
    enough for the board to read; CommandError otherwise (the caller has written nothing)."""
    config, _ = firmware_config()
    try:
        config.normalize(new, where)
    except ValueError as e:
        raise CommandError("%s; nothing was written" % e)
    config_bytes(new)
    return new


def parse_board_config(raw, board=None):
    """The board's config.json as a dict ({} when there is none); CommandError when it is not JSON
    (saying what the board runs instead, when `board` is given to look at its good copy)."""
    if raw is None:
        return {}
    try:
        d = json.loads(raw.decode("utf-8"))
    except ValueError as e:  # UnicodeDecodeError is one too
        raise CommandError(
            "config.json on the board is not valid JSON (%s); %s: replace the file with carom config "
            "import FILE"
            % (
                e,
                fallback(board) if board is not None else "the board runs its last good configuration or the defaults",
            )
        )
    return d


def as_the_board_reads(raw, path):
    """The normalized config from a file's bytes, checked as firmware/config.py's load() checks
    them (size, UTF-8, JSON, schema); ValueError naming what is wrong."""
    config, _ = firmware_config()
    if len(raw) > config.MAX_BYTES:
        raise ValueError("%s: more than %d bytes" % (path, config.MAX_BYTES))
    try:
        d = json.loads(raw.decode("utf-8"))
    except ValueError as e:
        raise ValueError("%s: not valid JSON: %s" % (path, e))
    return config.normalize(d, path)


def fallback(board):
    """What a board whose config.json is invalid runs and shows, as firmware/config.py's load()
    decides: its good copy (config.good.json) when that one is valid (E 20), else the defaults (E 22)."""
    config, _ = firmware_config()
    good = config.good_path(FILE)
    raw = board.read_file(good)
    if raw is not None:
        try:
            as_the_board_reads(raw, good)
        except ValueError:
            pass
        else:
            return "the board runs its last good configuration (%s), showing E %d" % (
                good.lstrip("/"),
                config.ERROR_CONFIG,
            )
    return "the board has no good copy of it, so it runs the defaults, showing E %d" % config.ERROR_CONFIG_DEFAULTS


def secret_paths(schema=None, prefix=""):
    config, _ = firmware_config()
    out = []
    for e in schema if schema is not None else config.SCHEMA:
        if e[1] == config.T_OBJ:
            out += secret_paths(e[6], prefix + e[0] + ".")
        elif e[5] & config.F_SECRET:
            out.append(prefix + e[0])
    return out


def _walk(d, path):
    for key in path.split("."):
        if not isinstance(d, dict) or key not in d:
            return None, False
        d = d[key]
    return d, True


def _put(d, path, value):
    """Set d[a][b]... = value, making (or replacing null) sections on the way (config_edit.put)."""
    _, config_edit = firmware_config()
    try:
        config_edit.put(d, path, value, "config.json")
    except ValueError as e:
        raise CommandError("%s; nothing was written" % e)


def parsed_settings(settings):
    """[(key, value)] of KEY=VALUE items, each value parsed and checked by its key's own type and
    range (config_edit), alone: needs no board, so it runs before connecting. CommandError naming
    the field."""
    _, config_edit = firmware_config()
    out = []
    for item in settings:
        key, eq, text = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise CommandError("set takes KEY=VALUE (e.g. players.A.name=KIM), not %r; nothing was written" % item)
        try:
            # The key's own type and range, alone; what goes with other keys (match.shootout with
            # match.sets or draw off) is checked on the whole file, in apply_settings.
            value = config_edit.parse_value(key, text, "")
        except ValueError as e:
            raise CommandError("%s; nothing was written" % e)
        out.append((key, value))
    return out


def apply_settings(d, settings):
    """A new dict: d with every KEY=VALUE of `settings` set, each value parsed by its
    key's type (config_edit), the whole checked once at the end (config.normalize).
    Raises CommandError naming the field; d is not changed."""
    new = json.loads(json.dumps(d)) if d else {}
    if not isinstance(new, dict):
        raise CommandError("config.json on the board is not an object; replace it with carom config import FILE")
    for key, value in parsed_settings(settings):
        _put(new, key, value)
    return checked_config(new, "config.json")


def fill_secrets(new, current, source):
    """Secrets given as "***" (an export without --secrets) keep the board's current value."""
    config, _ = firmware_config()
    for path in secret_paths():
        v, found = _walk(new, path)
        if not found or v != config.REDACTED:
            continue
        old, had = _walk(current, path)
        if not had or old in (None, "", config.REDACTED):
            raise CommandError(
                '%s: %s is "***" (a redacted export) and the board has no %s to keep: put the real '
                "value in the file; nothing was written" % (source, path, path)
            )
        _put(new, path, old)
    return new


def redacted(d, secrets):
    config, _ = firmware_config()
    return d if secrets else config.redact(d)


def show_value(v):
    if isinstance(v, str):
        return v
    if isinstance(v, dict):
        return json.dumps(v, indent=2, ensure_ascii=False)
    return json.dumps(v, ensure_ascii=False)


def changes(old, new, secrets, prefix=""):
    """Lines "key: old -> new" for what differs (secrets hidden)."""
    config, _ = firmware_config()
    out = []
    keys = list(old) + [k for k in new if k not in old]
    secret = set(secret_paths())
    for k in keys:
        a, b = old.get(k), new.get(k)
        path = prefix + k
        if isinstance(a, dict) or isinstance(b, dict):
            if (a is None or isinstance(a, dict)) and (b is None or isinstance(b, dict)):
                out += changes(a or {}, b or {}, secrets, path + ".")
                continue
        if isinstance(a, dict) and isinstance(b, dict):
            out += changes(a, b, secrets, path + ".")
        elif a != b:
            if path in secret and not secrets:
                a = config.REDACTED if a else a
                b = config.REDACTED if b else b
            out.append("%s: %s -> %s" % (path, json.dumps(a, ensure_ascii=False), json.dumps(b, ensure_ascii=False)))
    return out


def write_config(board, d):
    raw = config_bytes(d)
    board.write_file_atomic(FILE, raw)
    return len(raw)


def restart(board, cfg, args):
    """Reset so the app reads the new config.json; report what it said at boot."""
    if not args.reset:
        print("not reset: the board is at the REPL; the new configuration takes effect at the next reset")
        return
    name = cfg.get("board", "wall") if isinstance(cfg, dict) else "wall"
    ok, lines = board.restart_and_watch(args.wait, role_of(name))
    if lines is None:
        print("reset")
        return
    for ln in boot_problems(lines):
        print("the board said: %s" % ln)
    if ok:
        print("reset; the board started with the new configuration")
    elif ok is False:
        raise CommandError("the board reports a problem at boot: %s" % boot_problems(lines)[0])
    else:
        print("reset; nothing seen of the app within %.0f s (check with carom doctor)" % args.wait)


def arguments(p):
    """Read and write the board's config.json through mpremote.

    show | get KEY | set KEY=VALUE... | import FILE | export FILE

    Keys are dotted paths of firmware/config.py's schema: board, name,
    players.A.name, players.B.club, match.game, match.target, match.innings_limit,
    match.equalizing (on/off), match.shot_clock, display.brightness (0..15 or null),
    sound.volume, buttons.long_ms, wifi.ssid, mqtt.host, ...  Every value is
    checked on the host before anything is written; the write is atomic.
    """
    add_device_argument(p)
    p.add_argument("action", choices=ACTIONS, help="show | get KEY | set KEY=VALUE... | import FILE | export FILE")
    p.add_argument("args", nargs="*", metavar="ARG", help="the key, KEY=VALUE settings, or the file")
    p.add_argument("--secrets", action="store_true", help="show and export passwords and keys instead of ***")
    add_reset_argument(p, "makes the app read the new configuration")
    add_wait_argument(p, "after set/import")
    p.set_defaults(run=run_config)


def run_config(args):
    config, config_edit = firmware_config()
    action, rest = args.action, args.args
    wants = {"show": (0, 0), "get": (1, 1), "set": (1, None), "import": (1, 1), "export": (1, 1)}[action]
    if len(rest) < wants[0] or (wants[1] is not None and len(rest) > wants[1]):
        usage = {
            "show": "show",
            "get": "get KEY",
            "set": "set KEY=VALUE [KEY=VALUE...]",
            "import": "import FILE",
            "export": "export FILE",
        }[action]
        raise CommandError("usage: carom config --device DEV %s" % usage)
    imported = None
    if action == "import":
        imported = read_import(rest[0])
        precheck_import(imported, rest[0])
    if action == "get":
        try:
            config_edit.get_path({}, rest[0], "")  # a key of the schema? (before connecting)
        except ValueError as e:
            raise CommandError(str(e))
    if action == "set":
        parsed_settings(rest)  # each value checked before connecting
    if action == "export" and rest[0] != "-":
        check_export_path(rest[0])
    with BoardIO(args.device, reset_on_close=args.reset, timeout=args.timeout) as board:
        raw = board.read_file(FILE)
        if action in ("show", "get", "export"):
            return read_action(action, rest, raw, args, board)
        current = parse_board_config(raw, board)
        if action == "set":
            new = apply_settings(current, rest)
        else:
            new = checked_config(fill_secrets(imported, current if isinstance(current, dict) else {}, rest[0]), rest[0])
        name = new.get("board", "wall")
        if name != (current.get("board", "wall") if isinstance(current, dict) else None):
            if board.hashes(["/boards/%s.json" % name])["/boards/%s.json" % name] is None:
                raise CommandError(
                    "board: there is no boards/%s.json on the board (carom deploy --board %s puts it "
                    "there); nothing was written" % (name, name)
                )
        diff = changes(current if isinstance(current, dict) else {}, new, args.secrets)
        if raw is not None and new == current:
            print("config.json on %s already says so; nothing written" % args.device)
        else:
            for line in diff:
                print(line)
            size = write_config(board, new)
            print("wrote config.json (%d bytes) on %s" % (size, args.device))
            if any(line.startswith(("players.", "match.")) for line in diff):
                print(
                    "note: names, clubs and match options apply now if the saved match has not started, else "
                    "from the next new match (hold `new` 3 s on the wall board)"
                )
        restart(board, new, args)
    return 0


MAX_IMPORT_BYTES = 64 * 1024  # a config.json to import (the board's own is a few KB)


def read_import(path):
    from ..userfile import read_bounded

    raw = read_bounded(path, MAX_IMPORT_BYTES, "the configuration to import")
    try:
        d = json.loads(raw.decode("utf-8"))
    except ValueError as e:
        raise CommandError("%s is not valid JSON: %s; nothing was written" % (path, e))
    if not isinstance(d, dict):
        raise CommandError("%s: expected a JSON object; nothing was written" % path)
    return d


def precheck_import(imported, path):
    """The imported file checked with the schema before connecting; a secret given as "***"
    (filled from the board later) is left out here."""
    config, _ = firmware_config()
    probe = json.loads(json.dumps(imported))
    for key in secret_paths():
        v, found = _walk(probe, key)
        if found and v == config.REDACTED:
            section, _, name = key.rpartition(".")
            parent, _ = _walk(probe, section) if section else (probe, True)
            del parent[name]
    try:
        config.normalize(probe, path)
    except ValueError as e:
        raise CommandError("%s; nothing was written" % e)


def check_export_path(path):
    """export FILE: a place a file can be written, checked before the board is read."""
    import os

    if os.path.isdir(path):
        raise CommandError("cannot write %s: it is a folder; nothing was read from the board" % path)
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise CommandError("cannot write %s: no folder %s; nothing was read from the board" % (path, parent))
    if not os.access(parent, os.W_OK | os.X_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise CommandError("cannot write %s: permission denied; nothing was read from the board" % path)


def read_action(action, rest, raw, args, board=None):
    config, config_edit = firmware_config()
    d = parse_board_config(raw, board)
    if action == "export":
        if raw is None:
            sys.stderr.write("no config.json on the board (it runs the defaults): exported {}\n")
        text = json.dumps(redacted(d, args.secrets), indent=2, ensure_ascii=False) + "\n"
        if rest[0] == "-":
            sys.stdout.write(text)
        else:
            try:
                with open(rest[0], "w", encoding="utf-8") as f:
                    f.write(text)
            except OSError as e:
                raise CommandError("cannot write %s: %s" % (rest[0], e.strerror or e))
            print(
                "exported config.json of %s to %s%s"
                % (args.device, rest[0], "" if args.secrets else " (secrets as ***; --secrets to include them)")
            )
        try:
            config.normalize(d, "config.json")
        except ValueError as e:
            sys.stderr.write("warning: the board's config.json is invalid: %s\n" % e)
        return 0
    try:
        full = as_the_board_reads(raw, "config.json") if raw is not None else config.normalize(d, "config.json")
    except ValueError as e:
        if action == "show":
            print(json.dumps(redacted(d, args.secrets), indent=2, ensure_ascii=False))
        raise CommandError(
            "the board's config.json is invalid (%s): %s"
            % (
                fallback(board) if board is not None else "the board runs its last good configuration or the defaults",
                e,
            )
        )
    if action == "show":
        if raw is None:
            sys.stderr.write("no config.json on the board: these are the defaults\n")
        print(json.dumps(redacted(full, args.secrets), indent=2, ensure_ascii=False))
        return 0
    key = rest[0]
    shown = redacted(full, args.secrets)
    value, _ = _walk(shown, key)
    print(show_value(value))
    return 0

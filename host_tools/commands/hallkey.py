"""`carom hall-key`: give a wall board its hall key, the one the hall's setups are signed with.

    carom hall-key --keys hall-keys.json --table t3 --device /dev/ttyUSB0   a new key on the board
    carom hall-key --keys hall-keys.json --table t3 --flash sim/board1      ... or a virtual board's flash
    carom hall-key --keys hall-keys.json --list                              the tables with a key (no keys)

A fresh random 32-byte key (os.urandom) goes into the board's config.json as hall.key
(checked with the firmware's schema, written atomically; mqtt.table set to the table when it
was empty, refused when the board publishes as another table) and into the hall's key file
(host_tools/hall/setups.py: mode 0600), whose numbers for that table start again; the board's
hall.last (the newest setup it applied) is removed, since a new key starts its numbers anew.
Then the board is reset (the app reads config.json at boot). The key is never printed:
`carom config show` shows hall.key as ***.
"""

import os

from ..errors import CommandError
from ..hall.setups import Keys, SetupError, check_table
from ..link.boardio import BoardIO, add_reset_argument, add_timeout_argument
from .config import FILE, checked_config, config_bytes, parse_board_config, restart, write_config

LAST = "/hall.last"


def with_key(current, table, key, where):
    """config.json's dict with hall.key (and mqtt.table); CommandError when the board publishes as
    another table or the result is not valid."""
    new = dict(current)
    mqtt = dict(new.get("mqtt") or {})
    have = mqtt.get("table") or ""
    if have and have != table:
        raise CommandError(
            "the board on %s publishes as table %s, not %s (carom config set mqtt.table=%s first); "
            "nothing was written" % (where, have, table, table)
        )
    mqtt["table"] = table
    new["mqtt"] = mqtt
    hall = dict(new.get("hall") or {})
    hall["key"] = key
    new["hall"] = hall
    return checked_config(new, "config.json on %s" % where)


def arguments(p):
    """Give a wall board a new hall key (for the hall's signed setups).

    A fresh random key goes into the board's config.json (hall.key, and mqtt.table
    when it is empty) and into the hall's key file (--keys, mode 0600); the board's
    record of the last setup it applied is removed; the board is reset. The key is
    never printed. --list shows the tables the key file has (not their keys).
    """
    p.add_argument("--keys", required=True, metavar="FILE", help="the hall's key file (made when missing)")
    p.add_argument("--table", metavar="ID", help="the table id (the board's mqtt.table)")
    p.add_argument("--device", "-d", metavar="DEV", help="the wall board: a serial port or a pyserial URL")
    p.add_argument(
        "--flash", metavar="DIR", help="instead of --device: a virtual board's flash folder (carom sim --flash)"
    )
    p.add_argument("--list", action="store_true", help="list the tables in the key file and their last n")
    add_reset_argument(p, "makes the app read the new key")
    add_timeout_argument(p)
    p.set_defaults(run=run_hall_key, wait=10.0)


def run_hall_key(args):
    try:
        keys = Keys(args.keys)
    except SetupError as e:
        raise CommandError(str(e))
    if args.list:
        if args.table or args.device or args.flash:
            raise CommandError("usage: carom hall-key --keys FILE --list")
        for table in keys.tables():
            print("%s  n=%d" % (table, keys.last_n(table)))
        return 0
    if not args.table or bool(args.device) == bool(args.flash):
        raise CommandError("usage: carom hall-key --keys FILE --table ID (--device DEV | --flash DIR)")
    try:
        check_table(args.table)
    except SetupError as e:
        raise CommandError(str(e))
    key = os.urandom(32).hex()
    if args.flash:
        where = args.flash
        write_flash(args.flash, args.table, key)
    else:
        where = args.device
        with BoardIO(args.device, reset_on_close=args.reset, timeout=args.timeout) as board:
            current = parse_board_config(board.read_file(FILE), board)
            if not isinstance(current, dict):
                raise CommandError("config.json on %s is not an object; nothing was written" % where)
            new = with_key(current, args.table, key, where)
            write_config(board, new)
            board.remove(LAST)
            restart(board, new, args)
    try:
        keys.set_key(args.table, key)
    except OSError as e:
        raise CommandError(
            "the board on %s has its new key but %s could not be written (%s): run this again"
            % (where, args.keys, e.strerror or e)
        )
    print("table %s: a new hall key on %s and in %s (not shown)" % (args.table, where, args.keys))
    return 0


def write_flash(flash, table, key):
    """A virtual board's config.json (in its flash folder) with the key, written atomically."""
    if not os.path.isdir(flash):
        raise CommandError("--flash %s: no such folder" % flash)
    path = os.path.join(flash, "config.json")
    try:
        with open(path, "rb") as f:
            raw = f.read(64 * 1024)
    except FileNotFoundError:
        raw = None
    except OSError as e:
        raise CommandError("%s cannot be read: %s" % (path, e.strerror or e))
    current = parse_board_config(raw)
    if not isinstance(current, dict):
        raise CommandError("%s is not an object; nothing was written" % path)
    new = with_key(current, table, key, flash)
    tmp = path + ".tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(config_bytes(new))
        os.replace(tmp, path)
        try:
            os.remove(os.path.join(flash, LAST.lstrip("/")))
        except FileNotFoundError:
            pass
    except OSError as e:
        raise CommandError("%s cannot be written: %s" % (path, e.strerror or e))

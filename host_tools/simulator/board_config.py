"""The virtual boards' flash folders and their config.json, as `carom sim` lays them out: --flash
checked before anything starts, --config checked as the board's firmware checks it and written into
each board's folder, a config.json already there read as the board would (and said when refused).
"""

import json
import os
import sys

from ..errors import CommandError


def check_folder(path, what="--flash"):
    """A folder carom may use or make: CommandError, before anything starts, when it is a file,
    cannot be made (a file or a missing or read-only folder on the way), or cannot be written."""
    if not path or not path.strip():
        raise CommandError("%s is empty; give a folder" % what)
    full = os.path.abspath(path)
    if os.path.exists(full):
        if not os.path.isdir(full):
            raise CommandError("%s %s is a file, not a folder" % (what, path))
        if not os.access(full, os.W_OK | os.X_OK):
            raise CommandError("%s %s: cannot write into this folder (permission denied)" % (what, path))
        return
    parent = full
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise CommandError("%s %s cannot be made: %s is a file, not a folder" % (what, path, parent))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CommandError("%s %s cannot be made in %s (permission denied)" % (what, path, parent))


def check_flash(flash, count=1, remote=False):
    """The flash folders the boards will use (as the page lays them out): FLASH, FLASH/boardN, FLASH-remote."""
    if flash is None:
        return
    check_folder(flash)
    try:
        os.makedirs(flash, exist_ok=True)  # made now, so that a place that refuses it is said before a start
    except OSError as e:
        raise CommandError("--flash %s cannot be made: %s" % (flash, e.strerror or e))
    if count > 1:
        for i in range(count):
            check_folder(os.path.join(flash, "board%d" % (i + 1)), "--flash %s: the folder" % flash)
    if remote:
        check_folder(flash.rstrip("/") + "-remote", "--flash %s with --remote: the folder" % flash)


def read_config(path):
    """--config FILE: the dict the user wrote, checked as the board's firmware/config.py load()
    checks it (size, UTF-8, JSON, schema); CommandError naming what is wrong."""
    from ..commands.config import as_the_board_reads

    try:
        with open(path, "rb") as f:
            raw = f.read(_READ_MOST)  # more than the board reads: refused below for its size
    except OSError as e:
        raise CommandError("--config %s: %s" % (path, e.strerror or e))
    try:
        as_the_board_reads(raw, path)
    except ValueError as e:
        raise CommandError("--config %s; the boards would refuse it (nothing was started)" % e)
    return json.loads(raw.decode("utf-8"))


_READ_MOST = 64 * 1024  # of a config.json: the board reads 4 KB at most


def board_config(config, board):
    """--config's dict for boards NAME: its "board" must agree with --board."""
    named = config.get("board")
    if named is not None and named != board:
        raise CommandError("--config names board %r but --board is %r: give one, or the same" % (named, board))
    return dict(config, board=board)


def write_config(folder, config):
    """config.json in a board's flash folder (made if missing), as firmware/config.py writes it."""
    from ..commands.config import config_bytes

    try:
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "config.json"), "wb") as f:
            f.write(config_bytes(config))
    except OSError as e:
        raise CommandError("cannot write the board's config.json in %s: %s" % (folder, e.strerror or e))


def flash_config(folder):
    """(the dict in folder/config.json or None when there is none, None or the reason the board
    refuses it: what load() says, with what the board runs instead)."""
    from ..commands.config import as_the_board_reads, firmware_config

    if folder is None:
        return None, None
    path = os.path.join(folder, "config.json")
    try:
        with open(path, "rb") as f:
            raw = f.read(_READ_MOST)
    except FileNotFoundError:
        return None, None
    except OSError as e:
        return None, "%s: %s" % (path, e.strerror or e)
    try:
        as_the_board_reads(raw, path)
    except ValueError as e:
        fw, _ = firmware_config()
        good = os.path.join(folder, fw.good_path("config.json"))
        try:
            with open(good, "rb") as f:
                as_the_board_reads(f.read(_READ_MOST), good)
        except (OSError, ValueError):
            runs = "it has no good copy (config.good.json), so it runs the defaults, showing E %d" % (
                fw.ERROR_CONFIG_DEFAULTS
            )
        else:
            runs = "it runs its last good configuration (config.good.json), showing E %d" % fw.ERROR_CONFIG
        return None, "%s; the board refuses it: %s" % (e, runs)
    return json.loads(raw.decode("utf-8")), None


def warn_flash_config(folder, i, count):
    """Say on stderr that a board's config.json in --flash is one it refuses (it starts anyway,
    as a real board does, on its good copy or the defaults, with the error on its display), or
    that it names a Wi-Fi network and a broker the board will not find without --hall."""
    cfg, problem = flash_config(folder)
    who = "board %d: " % (i + 1) if count > 1 else ""
    if problem:
        print("carom sim: warning: %s%s" % (who, problem), file=sys.stderr, flush=True)
    elif isinstance(cfg, dict) and (cfg.get("wifi") or {}).get("ssid") and (cfg.get("mqtt") or {}).get("host"):
        print(
            "carom sim: note: %sconfig.json names the Wi-Fi %r and the MQTT broker %s: here the board finds no "
            "network and keeps looking (carom sim --hall HOST:PORT gives the boards one that reaches a broker)"
            % (who, cfg["wifi"]["ssid"], cfg["mqtt"]["host"]),
            file=sys.stderr,
            flush=True,
        )

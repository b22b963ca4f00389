"""The board definitions in boards/ (one JSON file each), as the host tools read them.

board_names()          the names there are: ["mini", "referee", "wall", ...]
check_board_name(n)    CommandError unless boards/n.json exists and n is a valid name
board_file(n)          boards/n.json as written (the virtual board reads the file's own form)
role_of(n)             "wall", "mini" or "referee" as the file says ("wall" if unreadable)
load_board(n)          the definition normalized by the firmware's own boarddef.py
"""

import json
import os

from . import BOARDS_DIR, firmware_path
from .errors import CommandError


def board_names():
    return sorted(n[:-5] for n in os.listdir(BOARDS_DIR) if n.endswith(".json"))


def check_board_name(name):
    firmware_path()
    import config

    try:
        config.normalize({"board": name}, "--board")
    except ValueError as e:
        raise CommandError(str(e))
    if name not in board_names():
        raise CommandError("no board definition %r in %s; boards: %s" % (name, BOARDS_DIR, ", ".join(board_names())))


def board_file(name):
    with open(os.path.join(BOARDS_DIR, name + ".json")) as f:
        return json.load(f)


def role_of(name):
    try:
        return board_file(name).get("role", "wall")
    except (OSError, ValueError, AttributeError):
        return "wall"


def load_board(name):
    """The normalized board definition (firmware/boarddef.py) of boards/<name>.json."""
    firmware_path()
    import boarddef

    path = os.path.join(BOARDS_DIR, name + ".json")
    if not os.path.exists(path):
        raise CommandError("no board %r; boards: %s" % (name, ", ".join(board_names())))
    try:
        return boarddef.load(path)
    except ValueError as e:
        raise CommandError(str(e))

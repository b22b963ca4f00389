"""The tournament's limits and the checks of what a caller gives: a ValueError of one line each."""

import re

from ... import firmware_path
from .. import schema

FORMATS = ("round_robin", "knockout", "groups_knockout")
FORMAT_NAMES = {"round_robin": "round robin", "knockout": "knock-out", "groups_knockout": "groups, then knock-out"}
MAX_NAME = 24  # a board's players.X.name and club (firmware/config.py)
MAX_TITLE = 100  # the tournament's name
MAX_PLAYERS = 1024
MAX_GROUPS = 26  # A..Z
HANDICAP_INNINGS = 25
MAX_TARGET = 9999
GROUP_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
TABLE_ID = schema.TABLE_NAME
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029]")


def _count(v):
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _letter(g):
    return None if g is None else GROUP_LETTERS[g]


def _show(v):
    s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


def _text(v, what, most, empty=False):
    if not isinstance(v, str):
        raise ValueError("%s: %s is not text" % (what, _show(v)))
    if _CONTROL.search(v):
        raise ValueError("%s: %s has a control character" % (what, _show(v)))
    if not empty and not v.strip():
        raise ValueError("%s: empty" % what)
    if v != v.strip():
        raise ValueError("%s: %s begins or ends with a space" % (what, _show(v)))
    if len(v) > most:
        raise ValueError(
            "%s: %s is %d characters long (at most %d%s)"
            % (what, _show(v), len(v), most, ": a board shows no more" if most == MAX_NAME else "")
        )
    return v


def _int(v, what, lo, hi):
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ValueError("%s: %s is not a whole number in %d..%d" % (what, _show(v), lo, hi))
    return v


def _table(v):
    if not isinstance(v, str) or not TABLE_ID.match(v):
        raise ValueError("table: %s is not a table id ([a-z0-9_-], 1 to 24 characters)" % _show(v))
    return v


def _names(doc):
    """[name A, name B] of a state document or report, or None."""
    try:
        names = [doc["players"][s]["name"] for s in ("A", "B")]
    except (KeyError, TypeError):
        return None
    return names if all(isinstance(n, str) for n in names) else None


_config = None


def _config_module():
    global _config
    if _config is None:
        firmware_path()
        import config

        _config = config
    return _config


def match_section(options):
    """config.json's "match" section from the tournament's game options, normalized (every key);
    ValueError in config.py's words.  target_A/target_B come from the players, not from here."""
    if not isinstance(options, dict):
        raise ValueError("game_options: %s is not an object" % _show(options))
    for k in ("target_A", "target_B"):
        if k in options:
            raise ValueError("game_options: %s comes from the players' handicaps (add_player's target or average)" % k)
    return _config_module().normalize({"match": options}, "game_options")["match"]


def check_setup(setup):
    """A setup must pass the board's own schema (config.py) for "players" and "match"."""
    _config_module().normalize({"players": setup["players"], "match": setup["match"]}, "setup")

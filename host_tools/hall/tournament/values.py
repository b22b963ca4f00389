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
MAX_COUNT = 99999  # a hand-entered score, innings or high run (the hall's schema's bound on a board's)

# A walkover (a no-show, or the remaining matches of a player who withdrew or was excluded): the
# present player wins, 2 match points.  "uncounted": no points and no innings count in anyone's
# average.  "zero_in_limit": the absent player is booked 0 points in the game's innings limit (a
# Dutch club's rule; no limit: no innings either), the present player's average stays his own.
WALKOVER_RULES = ("uncounted", "zero_in_limit")
# A player who withdraws (or is excluded) forfeits his remaining matches; the group matches he played
# "stand", or are "annulled" (counted for nobody) while his group's places have not gone on.
WITHDRAWAL_RULES = ("stand", "annulled")
# What orders the standings, first to last (the seeding after them): match points, GD (points /
# innings, the exact fraction), GD as a share of the expected average (GD / (own target / innings
# limit): handicap events), the best high run.
CRITERIA = ("points", "gd", "gd_share", "high_run")
# Named orders: within a group, and across groups (the same place of every group compared: the best
# runners-up); a custom order (a list of CRITERIA) is used for both.
TIEBREAK_PRESETS = {
    "umb": (("points", "gd", "high_run"), ("points", "gd", "high_run")),  # UMB events' groups
    "ceb": (("points", "gd", "high_run"), ("gd", "high_run")),  # across groups: GD, points not used
    "dbu_points_gd": (("points", "gd", "high_run"), ("points", "gd", "high_run")),
    "dbu_gd_points": (("gd", "points", "high_run"), ("gd", "points", "high_run")),
    "dbu_handicap": (("points", "gd_share", "high_run"), ("points", "gd_share", "high_run")),
}
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


def tiebreak_orders(v):
    """(within a group, across groups): the criteria of a preset's name or a custom list."""
    if isinstance(v, str):
        if v not in TIEBREAK_PRESETS:
            raise ValueError(
                "tiebreak: %s is not one of %s, or a list of criteria" % (_show(v), ", ".join(TIEBREAK_PRESETS))
            )
        return TIEBREAK_PRESETS[v]
    if not isinstance(v, (list, tuple)) or not 1 <= len(v) <= len(CRITERIA):
        raise ValueError(
            "tiebreak: %s is not a preset's name or a list of 1 to %d criteria" % (_show(v), len(CRITERIA))
        )
    for c in v:
        if c not in CRITERIA:
            raise ValueError("tiebreak: %s is not one of %s" % (_show(c), ", ".join(CRITERIA)))
    if len(set(v)) != len(v):
        raise ValueError("tiebreak: a criterion twice in %s" % _show(v))
    return tuple(v), tuple(v)


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

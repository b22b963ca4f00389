"""Editing the configuration by dotted paths (host tools, the REPL).

Split from config.py so the board does not load it at boot; config.set_path
and config.get_path import it when called.

    d = config_edit.set_path(d, "match.target", "25")   # a new dict
    config_edit.get_path(d, "players.A.name")
"""

import config
from confignames import F_NULL, T_ACTIONS, T_BOOL, T_INT, T_NAMES, T_OBJ


def whole(text):
    """The int that `text` writes in plain ASCII digits, with an optional leading "-"; None
    for anything else. Not int() alone: CPython's takes any Unicode digit ("\u0663", "\uff11\uff10")
    and MicroPython's does not, nor isdigit() ("\u00b9" is a digit to it). Every number read
    from text goes through here: config set, the scripted mode's words (referee.py)."""
    digits = text[1:] if text[:1] == "-" else text
    if not digits:
        return None
    for c in digits:
        if c not in "0123456789":
            return None
    return int(text)


def _entry(path, source):
    """The schema entry at a dotted path like "players.A.name"."""
    schema = config.SCHEMA
    e = None
    done = ""
    for key in path.split("."):
        if schema is None:
            _err2(source, path, "%s is not a section" % done)
        for e in schema:
            if e[0] == key:
                break
        else:
            _err2(
                source,
                config._key(done + "." if done else "", key),
                "unknown key (expected %s)" % ", ".join([x[0] for x in schema]),
            )
        done = done + "." + key if done else key
        schema = e[6] if e[1] == T_OBJ else None
    return e


def _err2(source, path, msg):
    if source:
        path = source + ": " + path
    config._err(path, msg)


def get_path(d, path, source=config.FILE):
    """The value at a dotted path in the normalized d (defaults filled in)."""
    _entry(path, source)
    v = config.normalize(d, source)
    for key in path.split("."):
        v = v[key]
    return v


def set_path(d, path, text, source=config.FILE):
    """A NEW dict: d with the key at `path` set from `text`, a string as typed
    on a command line ("25", "on", "null", "point,miss"), parsed by the key's
    type; a non-string is taken as it is.  The whole result is checked; raises
    ValueError naming the field.  d itself is not changed."""
    e = _entry(path, source)
    if e[1] == T_OBJ:
        _err2(source, path, "a section, not a value: set one of its keys (%s)" % ", ".join([x[0] for x in e[6]]))
    value = _from_text(text, e, path, source) if type(text) is str else text
    new = config._copy(d) if d is not None else {}
    if type(new) is not dict:
        _err2(source, "config", "expected an object, got %s" % config._show(new, 0))
    put(new, path, value, source)
    config.normalize(new, source)
    return new


def parse_value(path, text, source=config.FILE):
    """The value of the key at `path` from `text` as set_path reads it, checked by the key's own
    type and range only: what goes with other keys (config._formats) is checked when the whole
    is (set_path, normalize), so keys valid only together can be set in one go. ValueError."""
    e = _entry(path, source)
    if e[1] == T_OBJ:
        _err2(source, path, "a section, not a value: set one of its keys (%s)" % ", ".join([x[0] for x in e[6]]))
    value = _from_text(text, e, path, source) if type(text) is str else text
    try:
        return config._value(value, e, path)
    except ValueError as err:
        if source:
            raise ValueError("%s: %s" % (source, err))
        raise


def put(t, path, value, source=config.FILE):
    """t[a][b]... = value for path "a.b...", in place, making (or replacing null) the
    sections on the way; ValueError naming the first that is not an object. Unchecked:
    set_path checks the whole result."""
    keys = path.split(".")
    for i, key in enumerate(keys[:-1]):
        if t.get(key) is None:
            t[key] = {}
        t = t[key]
        if type(t) is not dict:
            _err2(source, ".".join(keys[: i + 1]), "expected an object, got %s" % config._show(t, 0))
    t[keys[-1]] = value


def _from_text(s, e, path, source):
    kind, flags = e[1], e[5]
    low = s.strip().lower()
    if flags & F_NULL and low == "null":
        return None
    if kind == T_INT:
        n = whole(low)
        return s if n is None else n  # the check names it: "abc" is not an integer
    if kind == T_BOOL:
        if low in ("on", "true"):
            return True
        if low in ("off", "false"):
            return False
        _err2(source, path, "%s is not on, off, true or false" % config._show(s, 0))
    if kind == T_ACTIONS or kind == T_NAMES:
        if low == "all":
            return "all"
        if low in ("", "none"):
            return []
        return [a.strip() for a in s.split(",")]
    return s

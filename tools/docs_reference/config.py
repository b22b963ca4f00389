"""docs/reference/config.md: every config.json key, from firmware/config.py's schema (type, range,
default, secret) and host_tools/config_keys.py (what it is for)."""

from host_tools import firmware_path
from host_tools.config_keys import KEYS, SECTIONS

from .md import cell, code, head, table, value

SOURCES = ("firmware/config.py", "firmware/confignames.py", "host_tools/config_keys.py")
INTRO = """
A board's settings are one file on it, `config.json`; `carom config` reads and writes it, and
`examples/config.json` is a full example. Every section and key is optional: what the file leaves
out has its default. The board checks the file when it starts: an unknown key or a value out of
its range is refused, the board runs its last good configuration and shows `E 20` (`E 22`: the
defaults), and `carom doctor` names the key. A secret's value is never printed: `carom config
show` shows `***` for it.
"""


def _modules():
    firmware_path()
    import config
    import confignames

    return config, confignames


def _chars(chars):
    """A character set as a class: "abc...z0123456789_-" -> [a-z0-9_-]."""
    out, i = [], 0
    while i < len(chars):
        j = i
        while j + 1 < len(chars) and ord(chars[j + 1]) == ord(chars[j]) + 1:
            j += 1
        out.append(chars[i] + "-" + chars[j] if j - i >= 2 else chars[i : j + 1])
        i = j + 1
    return "[%s]" % "".join(out)


def kind_text(entry, names):
    """What a value of this schema entry may be, in words."""
    _, kind, _, lo, hi, flags, extra = entry
    n = names
    zero = flags & n.F_OR_ZERO
    if kind == n.T_INT:
        s = "integer %d..%d" % (lo, hi)
        if zero:
            s = "0 (off), or " + s
    elif kind == n.T_BOOL:
        s = "true or false"
    elif kind == n.T_TEXT:
        unit = "bytes (UTF-8)" if flags & n.F_BYTES else "characters"
        s = "text, %d..%d %s" % (lo, hi, unit)
        if zero:
            s = "text, empty or %d..%d %s" % (lo, hi, unit)
    elif kind == n.T_ID:
        s = "%d..%d of `%s`" % (lo, hi, _chars(extra))
        if "/" in extra:
            s += ", not starting or ending with `/`"
    elif kind == n.T_CHOICE:
        s = "one of " + ", ".join("`%s`" % c for c in extra)
    elif kind == n.T_HEX:
        s = "%d bytes as %d hex digits" % (lo, 2 * lo)
    elif kind == n.T_MAC:
        s = 'a MAC address, `"aa:bb:cc:dd:ee:ff"` or 12 hex digits'
    elif kind == n.T_ACTIONS:
        s = '`"all"` or a list of actions'
    elif kind == n.T_NAMES:
        s = '`"all"` or a list of ' + ", ".join("`%s`" % c for c in extra)
    else:
        raise ValueError("a schema kind this page does not know: %r" % kind)
    if flags & n.F_NULL:
        s += ", or null"
    return s


def keys(schema, obj, prefix=""):
    """[(dotted path, entry)] of every key (not the sections) of the schema, in its order."""
    out = []
    for e in schema:
        if e[1] == obj:
            out += keys(e[6], obj, prefix + e[0] + ".")
        else:
            out.append((prefix + e[0], e))
    return out


def page():
    config, n = _modules()
    out = [head("config.json: the board's settings", SOURCES, INTRO)]
    groups = {}
    for path, e in keys(config.SCHEMA, n.T_OBJ):
        section = path.split(".")[0] if "." in path else ""
        groups.setdefault(section, []).append((path, e))
    for section, rows in groups.items():
        title = SECTIONS[section]
        out.append("## %s\n" % (title + (" (`%s`)" % section if section else "")))
        cells = []
        for path, e in rows:
            cells.append(
                [
                    code(path),
                    cell(kind_text(e, n)),
                    value(e[2]),
                    "yes" if e[5] & n.F_SECRET else "",
                    cell(KEYS[path]),
                ]
            )
        out.append(table(["key", "value", "default", "secret", "what it sets"], cells))
    from controller import ACTIONS

    out.append(
        "## Actions\n\nThe actions `radio.wall_buttons` may list (the wall buttons' actions, "
        "`firmware/controller.py`): %s.\n" % ", ".join(code(a) for a in ACTIONS)
    )
    return "\n".join(out)

"""Why an event was refused, in words: the texts of the rules core's reason numbers.

The rules core returns small ints and keeps no text in the board's RAM
(rules.py, rules_setup.py for new()'s options, rules_events.py for the rarer events', formats.py
for the sets' and warm-ups', matchnames.py for those more than one of them returns). Each
reason is one line there, its number and its text:

    _NOT_AT_TABLE = const(3)  # that player is not at the table

This module reads those lines (the one place they are written), for the
people who read reasons: the scripted mode, the simulator's log, the tests.

    reasons.text(3)            # "that player is not at the table"
    reasons.NOT_AT_TABLE       # the same text, by name
    reasons.code("NOT_AT_TABLE")   # 3

Host side only (CPython, and the MicroPython unix port of the scripted mode).
"""

import formats
import rules_events
import matchnames
import rules_setup
import rules

_TEXTS = {}
_CODES = {}


def _read(module):
    path = module.__file__
    if path.endswith(".mpy"):
        raise ImportError("reasons.py reads %s.py, not %s" % (module.__name__, path))
    started = False
    with open(path) as f:
        for line in f:
            if line.startswith("# Why "):
                started = True
                continue
            if not started:
                continue
            if not line.strip():
                break
            if line.startswith("#"):
                continue
            name, _, rest = line.partition(" = const(")
            number, _, text = rest.partition(")  # ")
            name = name.lstrip("_")
            _TEXTS[int(number)] = text.strip()
            _CODES[name] = int(number)
            globals()[name] = text.strip()


_read(rules)
_read(matchnames)
_read(rules_setup)
_read(rules_events)
_read(formats)


def text(reason):
    """The words for a reason number; None stays None; a text stays as it is."""
    if reason is None or isinstance(reason, str):
        return reason
    return _TEXTS.get(reason, "refused (reason %d)" % reason)


def code(name):
    return _CODES[name]


def names():
    return list(_CODES)

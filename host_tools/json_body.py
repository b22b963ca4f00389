"""A request body's JSON, checked before it is parsed: the servers under `carom sim` and `carom hall`.

json.loads recurses once per bracket, so a body of 30,000 `[` would reach Python's recursion limit
in the handler; the nesting is counted first, in one linear pass.
"""

import json
import re

MAX_JSON_DEPTH = 32  # nesting of a JSON body ([ and {)
# A JSON string (escapes included; one left open runs to the end: no second try from each quote
# inside it) or a bracket. Possessive (Python 3.11): nothing is kept to backtrack into, so the
# scan is linear in the body's size with no stack that grows with a string's length.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]++|\\.)*+(?:"|\\?\Z)|[\[\]{}]', re.S)


def json_body(body, max_depth=MAX_JSON_DEPTH):
    """The JSON value of a request body; ValueError when it is not UTF-8 JSON, nests deeper than
    `max_depth`, or holds NaN or Infinity."""
    text = body.decode("utf-8")  # UnicodeDecodeError is a ValueError
    depth = 0
    # Nesting counted before parsing, so no recursion limit is ever met: the brackets outside
    # strings, found by the regex engine in one pass (not a Python step per character).
    for m in _JSON_TOKEN.finditer(text):
        c = m.group()[0]
        if c == '"':
            continue
        if c in "[{":
            depth += 1
            if depth > max_depth:
                raise ValueError("JSON nested deeper than %d" % max_depth)
        else:
            depth -= 1

    def constant(name):
        raise ValueError("%s is not JSON" % name)

    try:
        return json.loads(text, parse_constant=constant)
    except RecursionError:
        raise ValueError("JSON nested too deep") from None

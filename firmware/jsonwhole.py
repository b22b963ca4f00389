"""Is a JSON text whole? MicroPython's json.loads before v1.26.0 takes an object or a list cut
short as complete (fixed in MicroPython v1.26.0): a config.json or a board definition whose copy
stopped half-way would run as far as it goes. config.py and boarddef.py ask this after
json.loads, so a file cut short is refused on every release (loaded only while they check a file).

    whole(b'{"a": {"b": 1}')   False
"""


def whole(raw):
    """True when every { and [ of the JSON text raw (bytes or str) is closed by its end."""
    depth = 0
    quoted = escaped = False
    for c in raw.encode() if isinstance(raw, str) else raw:
        if quoted:
            if escaped:
                escaped = False
            elif c == 0x5C:  # a backslash
                escaped = True
            elif c == 0x22:
                quoted = False
        elif c == 0x22:
            quoted = True
        elif c == 0x7B or c == 0x5B:
            depth += 1
        elif c == 0x7D or c == 0x5D:
            depth -= 1
    return depth == 0 and not quoted

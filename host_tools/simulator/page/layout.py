"""What the page needs to draw a board: its displays, buttons and LEDs, placed by column."""

from ...boardlayout import column_of, display_label, placed_displays
from ..scripted_board import chip_key
from .actions import JUMPS, LONG_EXTRA_S

REMOTE_ORDER = ("point", "miss", "foul", "foul.time", "undo", "break", "timeout", "new")  # the referee box's keys

KEYS = {
    "A.point": "a",
    "A.end": "z",
    "B.point": "l",
    "B.end": "m",
    "foul": "f",
    "break": "b",
    "new": "n",
    "point": "a",
    "end": "z",
}


def layout(board, index):
    """What the page needs to draw a board: displays, buttons and LEDs, placed by column."""
    displays = []
    for d, column, _ in placed_displays(board):  # in the page's order: by column, from the top
        fields = [p["field"] for p in d["show"]]
        displays.append(
            {
                "key": chip_key(d["bus"], d["addr"]),
                "bus": d["bus"],
                "addr": "0x%02x" % d["addr"],
                "kind": d["kind"],
                "digits": d.get("digits", 4),
                "column": column,
                "role": "name"
                if any(f.endswith(".name") for f in fields)
                else ("score" if any(f.endswith(".score") for f in fields) else "stat"),
                "show": [
                    {
                        "field": p["field"],
                        "at": p["at"],
                        "width": p["width"],
                        "label": display_label(p["field"], column, board.get("role")),
                    }
                    for p in d["show"]
                ],
            }
        )
    buttons = []
    used = set()
    for b in board["buttons"]:
        key = KEYS.get(b["name"])
        if key is None or key in used:
            key = next((c for c in b["name"].lower() if c.isalpha() and c not in used), None)
        used.add(key)
        long_s = round(b["long_ms"] / 1000 + LONG_EXTRA_S, 3)
        buttons.append(
            {
                "name": b["name"],
                "label": b["name"].split(".", 1)[-1].upper(),
                "column": column_of(b["name"]),
                "key": key,
                "action": b["action"],
                "long_action": b["long_action"],
                "long_s": long_s,
            }
        )
    order = {n: i for i, n in enumerate(REMOTE_ORDER if board.get("role") == "remote" else KEYS)}
    buttons.sort(key=lambda b: (order.get(b["name"], 99), b["name"]))
    leds = [
        {"name": n, "column": column_of(n), "label": n.split(".", 1)[-1].upper()} for n in (board.get("leds") or {})
    ]
    return {
        "index": index,
        "board": board["name"],
        "role": board.get("role", "wall"),
        "description": board.get("description", ""),
        "displays": displays,
        "buttons": buttons,
        "leds": leds,
        "jumps": list(JUMPS),
        "identify_button": board.get("identify_button"),
    }

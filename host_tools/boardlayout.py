"""Where each display, button and LED sits on a board, as the simulator page draws it and as
`carom doctor` names a display's place: player A's column on the left, B's on the right, the
shared ones (message, target, countdown, clock) in the centre, each column from the top.

    column_of("A.score")             "A" ("B", or "mid" for a shared name)
    label_of("A.high_run")           "HIGH RUN": the label above a display
    display_label(field, column)     a field's label on its display ("A SCORE" in the centre)
    placed_displays(board)           [(display, column, order)] of a normalized definition, in page order
    place(board, display)            "player A's column, 2nd from the top"
"""

# A column's displays from the top, by the field they show.
PLAYER_ORDER = ("name", "score", "innings", "run", "high_run", "average")
SHARED_ORDER = ("message", "target", "countdown", "clock")
LABELS = {"high_run": "HIGH RUN", "average": "AVERAGE", "name": "PLAYER", "innings": "INN"}
COLUMN_NAMES = {"A": "player A's column", "B": "player B's column", "mid": "the centre"}


def column_of(name):
    """'A' for A.score / A.turn / A.point, 'B' likewise, else 'mid'."""
    if name.startswith("A."):
        return "A"
    if name.startswith("B."):
        return "B"
    return "mid"


def label_of(field):
    """The label printed above a display: A.score -> SCORE, A.high_run -> HIGH RUN."""
    short = field.split(".", 1)[-1]
    return LABELS.get(short, short.replace("_", " ").upper())


def display_label(field, column, role=None):
    """A field's label on its display: its name (SCORE), with the player's letter when the display
    shows both players' fields (A SCORE | B SCORE).  The referee box's one display shows the score
    AA:BB (app_remote.show); a board definition that still names it "clock" is labelled so."""
    if role == "remote" and field == "clock":
        return "SCORE A : B"
    label = label_of(field)
    if column == "mid" and field[:2] in ("A.", "B."):
        return field[0] + " " + label
    return label


def field_order(field):
    short = field.split(".", 1)[-1]
    table = PLAYER_ORDER if "." in field else SHARED_ORDER
    return table.index(short) if short in table else len(table)


def display_column(display):
    """The column of a display of a normalized definition: its fields' one column, else the centre."""
    columns = {column_of(p["field"]) for p in display["show"]}
    return columns.pop() if len(columns) == 1 else "mid"


def placed_displays(board):
    """[(display, column, order key)] of the normalized definition `board`, sorted as the page draws
    them: by column (A, B, mid), then from the top."""
    out = []
    for pos, d in enumerate(board["displays"]):
        fields = [p["field"] for p in d["show"]]
        order = (min(field_order(f) for f in fields) if fields else 99, pos)
        out.append((d, display_column(d), order))
    out.sort(key=lambda x: (x[1], x[2]))
    return out


def _nth(n):
    return "%d%s" % (n, "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th"))


def place(board, display):
    """Where `display` (one of board["displays"]) hangs: "player A's column, 2nd from the top"."""
    placed = placed_displays(board)
    column = next(col for d, col, _ in placed if d is display)
    mates = [d for d, col, _ in placed if col == column]
    n = next(i for i, d in enumerate(mates) if d is display) + 1
    if len(mates) == 1:
        return COLUMN_NAMES[column]
    return "%s, %s from the top" % (COLUMN_NAMES[column], _nth(n))

"""docs/reference/state-document.md and report.md: the match state document's keys and the report's,
from host_tools/hall/fields.py (what each means; checked against schema.py and the firmware by a
test), with an example the firmware writes for a short match played here."""

from host_tools import firmware_path
from host_tools.hall import fields, schema

from .md import cell, code, head, json_block, table

# The example: a short three-cushion match, played through the referee's words (firmware/referee.py).
EXAMPLE = """
new game=three_cushion target=3 breaker=A name_A=Anna club_A="BC Pest" name_B=Bela club_B="Debreceni BC"
wait 12
point
point
wait 25
miss
wait 8
foul touched
wait 40
point
wait 18
point
wait 22
miss
"""
STARTED_AT = 1764489600  # 2025-11-30 08:00 UTC: the example's wall clock


def example_match():
    """The example's match after its last line, and the referee's clock then (ms)."""
    firmware_path()
    from referee import Referee

    r = Referee()
    for line in EXAMPLE.strip().split("\n"):
        refused = r.line(line)
        if refused is not None:
            raise ValueError("the example's line %r was refused: %s" % (line, refused))
    return r.match, r.now


def _rows(table_):
    return [[code(k), cell(v), cell(w)] for k, (v, w) in table_.items()]


def _words():
    return (
        "## Words\n\n"
        "- Games: %s.\n- Fouls (`last_foul`, an inning's `fouls`): %s.\n- Position calls (`last_call`): %s.\n"
        % (
            ", ".join(code(g) for g in schema.GAMES),
            ", ".join(code(f) for f in schema.FOULS),
            ", ".join(code(c) for c in schema.CALLS),
        )
    )


STATE_SOURCES = ("firmware/matchdoc.py", "firmware/matchdoc_rest.py", "host_tools/hall/fields.py")
STATE_INTRO = """
One JSON object describes a match: the board publishes it over MQTT (`<prefix>/<table>/state`),
the simulator and the hall show it, the scripted mode (`carom sim --headless`) prints one a line,
and a match report is this document plus its innings ([report.md](report.md)). The board writes
it when someone asks (a publish, a report), never on the way from a button to the display. The
hall takes documents of at most %d KB whose keys and values are the ones below
(`host_tools/hall/schema.py` checks each).
""" % (schema.MAX_STATE_BYTES // 1024)


def state_page():
    firmware_path()
    import matchdoc

    m, now = example_match()
    out = [head("The match state document", STATE_SOURCES, STATE_INTRO)]
    out.append("## Keys\n\nAlways there: %s.\n" % ", ".join(code(k) for k in schema.STATE_REQUIRED))
    out.append(table(["key", "value", "what it is"], _rows(fields.STATE)))
    out.append("## Each player (`players.A`, `players.B`)\n")
    out.append(table(["key", "value", "what it is"], _rows(fields.PLAYER)))
    out.append("## The options (`options`)\n")
    out.append(table(["key", "value", "what it is"], _rows(fields.OPTIONS)))
    out.append(_words())
    out.append(
        "## An example\n\nA three-cushion match to 3 points at its end: A won in his second inning, B's "
        "equalizing inning scored nothing:\n\n" + json_block(matchdoc.doc(m, now))
    )
    return "\n".join(out)


REPORT_SOURCES = ("firmware/report.py", "firmware/rules_innings.py", "host_tools/hall/fields.py")
REPORT_INTRO = """
When a match ends the board saves its report on its flash (`/data/history/`), sends it over MQTT
(`<prefix>/<table>/report`, see [mqtt.md](mqtt.md)) and `carom report` pulls it as JSON, CSV, HTML
or PDF. A report is the [state document](state-document.md) at the end of the match with one key
more, `report`: where and when the match was played and every inning from the match's log. The
hall takes reports of at most %d KB.
""" % (schema.MAX_REPORT_BYTES // 1024)


def report_page():
    firmware_path()
    import report

    m, now = example_match()
    out = [head("The match report", REPORT_SOURCES, REPORT_INTRO)]
    out.append("## The `report` object\n")
    out.append(table(["key", "value", "what it is"], _rows(fields.REPORT)))
    out.append("## Each inning (`report.innings`)\n")
    out.append(table(["key", "value", "what it is"], _rows(fields.INNING)))
    rep = report.build(m, now, started_at=STARTED_AT, table="Table 3", board="wall")["report"]
    out.append(
        "## An example\n\nThe `report` of a three-cushion match to 3 points (its state document: "
        "[state-document.md](state-document.md)):\n\n" + json_block(rep)
    )
    return "\n".join(out)

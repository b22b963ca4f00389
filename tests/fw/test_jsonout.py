"""jsonout.py: JSON written in pieces equals the JSON of the whole, at every buffer size."""

import json

import rules_innings
import jsonout
import report
import rules
from referee import Referee


def write_sample(out):
    out.open("{")
    out.field("a", None)
    out.field("b", [True, False, 0, -7, 123456789])
    out.key("c")
    out.open("[")
    for i in range(30):
        out.value(i)
    out.close("]")
    out.field("text", 'quote " backslash \\ newline \n tab \t accents Őrsi Éva ß')
    out.field("long", "x" * 700)
    out.key("empty")
    out.open("{")
    out.close("}")
    out.key("gd")
    out.thousandths(1667)
    out.key("zero")
    out.thousandths(0)
    out.fields({"k": "v"})
    out.close("}")
    out.flush()


EXPECTED = {
    "a": None,
    "b": [True, False, 0, -7, 123456789],
    "c": list(range(30)),
    "text": 'quote " backslash \\ newline \n tab \t accents Őrsi Éva ß',
    "long": "x" * 700,
    "empty": {},
    "gd": 1.667,
    "zero": 0.0,
    "k": "v",
}


def test_pieces_at_every_buffer_size_parse_to_the_same_document():
    for size in (1, 2, 3, 7, 16, 64, 256, 1024):
        sink = jsonout.Pieces()
        out = jsonout.JsonOut(sink, size)
        write_sample(out)
        text = b"".join(sink.parts)
        assert json.loads(text) == EXPECTED, size
        assert out.total == len(text)
        for part in sink.parts[:-1]:
            assert len(part) <= max(size, 700 + 2), (size, len(part))


def test_counting_only():
    out = jsonout.JsonOut(None, 32)
    write_sample(out)
    sink = jsonout.Pieces()
    write_sample(jsonout.JsonOut(sink, 32))
    assert out.total == len(b"".join(sink.parts))


def test_unknown_values_are_refused():
    out = jsonout.JsonOut(None)
    try:
        out.value(1.5)  # floats are written from thousandths, never as floats
    except TypeError:
        pass
    else:
        raise AssertionError("a float was written")


def test_report_writer_yields_every_step_and_equals_build():
    """A step as the words of the codes are loaded (matchwords.py), as the state document's
    writer is loaded, after its head, as its rest is loaded (matchdoc_rest.py), after the
    spots and the area, after the options, before each player and each one's runs, every 32
    runs of a player, seven as the innings' part starts (the document's writer dropped,
    rules_setup.py loaded, the follower made with it, each of the three modules the innings'
    part imports loaded, then its own), every rules_innings.STEP entries of the log, and after the
    last inning; the steps together write what build() does."""
    r = Referee()
    assert r.line("new game=straight_rail target=500 breaker=A") is None
    for i in range(200):
        assert r.line("point" if i % 3 else "miss") is None
    sink = jsonout.Pieces()
    steps = len(list(report.writer(r.match, r.now, jsonout.JsonOut(sink, 128), table="T")))
    inns = r.match.innings[rules.A] + r.match.innings[rules.B]
    runs = r.match.innings[rules.A] // 32 + r.match.innings[rules.B] // 32
    assert steps == 10 + runs + 8 + r.match.n // rules_innings.STEP, (steps, inns, r.match.n)
    got = json.loads(b"".join(sink.parts))
    assert got == report.build(r.match, r.now, table="T")
    assert len(got["report"]["innings"]) == inns

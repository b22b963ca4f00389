"""The match state document: the one JSON document that describes a match.

The simulator, the reports, MQTT and the scripted mode all show a match
through this document. It is written in pieces (jsonout.py): the board never
holds it whole, however long the match; doc() parses it into a dict for
tests and host tools. Writing it allocates, so it is made when someone asks
for it (a report, a publish), never on the button-to-display path.

GD ("average") has three decimals, truncated from whole numbers (30/14 is 2.142:
rules.Match.average_x1000): the same number the wall board shows.

Its keys and names are bytes, not str: a str in a module is interned when the
module loads and stays in RAM for good, while this module is loaded for a
publish and dropped (cold.py); bytes go with it.
"""

import json

import jsonout
import matchwords
import rules
from matchwords import who

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


VERSION = 1

# Names of the rules core's small-int codes, as the document writes them.
PHASES = (b"lag", b"running", b"break", b"equalizing", b"finished", b"tiebreak", b"set_over", b"shootout", b"warmup")
RESULTS = (None, b"A", b"B", b"draw", b"tiebreak")
ENDINGS = (None, b"target", b"innings_limit", b"left", b"tiebreak", b"abandoned", b"shootout")
RESPOTS = (None, b"start", b"three_cushion", b"choice", b"free_ball", b"masse")


def write_fields(m, now, out):
    """The state document's fields, into an open object of a jsonout.JsonOut: the head here, then
    the rest (matchdoc_rest.py: the balls' spots, the clocks, the formats, the options, the
    players), loaded for it. A report writes the two in steps itself, head() with this module
    loaded, then matchdoc_rest.fields() with this one dropped (report.writer)."""
    for _ in head(m, now, out):
        pass
    import matchdoc_rest

    for _ in matchdoc_rest.fields(m, now, out):
        pass


def head(m, now, out):
    """The head of the state document's fields, in steps (a generator): it yields first
    (loading this module was a step) and last (the rest is loaded next: loading a module
    takes a while on the chip)."""
    yield
    countdown = m.countdown()
    out.field(b"version", VERSION)
    out.field(b"game", matchwords.GAMES[m.game])
    out.field(b"target", m.targets[0] if m.targets[0] == m.targets[1] else None)  # a handicap: the players'
    out.field(b"innings_limit", m.innings_limit or None)
    out.field(b"phase", PHASES[m.phase])
    out.field(b"turn", who(m.turn))
    out.field(b"breaker", who(m.breaker))
    out.field(b"spot_ball", who(m.spot_ball()))
    out.field(b"current_run", m.run)
    out.field(b"countdown", None if countdown < 0 else countdown)
    out.field(b"equalizing_inning", m.phase == rules.EQUALIZING)
    out.field(b"result", RESULTS[m.result])
    out.field(b"ended_by", ENDINGS[m.ended_by])
    out.field(b"last_foul", None if m.last_foul < 0 else matchwords.FOULS[m.last_foul])
    out.field(b"last_call", None if m.last_call < 0 else matchwords.CALLS[m.last_call])
    out.field(b"respot", RESPOTS[m.respot])
    yield


def _setup(s, out):
    """The hall's setups (publisher.Publisher.setup: [n applied, (n, setup) waiting or None,
    refused, the last refusal's reason (bytes) or None, ...])."""
    out.key(b"setup")
    out.open("{")
    out.field(b"n", s[0])
    out.field(b"waiting", None if s[1] is None else s[1][0])
    out.field(b"refused", s[2])
    out.field(b"last_refused", s[3])
    out.close("}")


def write(m, now, out, setup=None):
    """The state document of match m at time now, into a jsonout.JsonOut (flushed); with
    `setup` (a board that takes the hall's setups), its "setup" key too."""
    out.open("{")
    write_fields(m, now, out)
    if setup is not None:
        _setup(setup, out)
    out.close("}")
    out.flush()


def pieces(m, now, size=512, setup=None):
    """The state document as a list of bytes pieces of at most `size` (MQTT)."""
    sink = jsonout.Pieces()
    write(m, now, jsonout.JsonOut(sink, size), setup)
    return sink.parts


def text(m, now):
    return b"".join(pieces(m, now))


def doc(m, now):
    """The state document as a dict (tests, the scripted mode: it is built whole)."""
    return json.loads(text(m, now))

"""The match state document: the one JSON document that describes a match.

The simulator, the reports, MQTT and the scripted mode all show a match
through this document. It is written in pieces (jsonout.py): the board never
holds it whole, however long the match; doc() parses it into a dict for
tests and host tools. Writing it allocates, so it is made when someone asks
for it (a report, a publish), never on the button-to-display path.

GD ("average") has three decimals, rounded half up from whole numbers
(rules.Match.average_x1000): the same number the wall board shows.
"""

import json

import jsonout
import matchsetup
import rules

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


VERSION = 1

# Names of the rules core's small-int codes, as the document writes them.
PHASES = ("lag", "running", "break", "equalizing", "finished", "tiebreak", "set_over", "shootout", "warmup")
RESULTS = (None, "A", "B", "draw", "tiebreak")
ENDINGS = (None, "target", "innings_limit", "left", "tiebreak", "abandoned", "shootout")
RESPOTS = (None, "start", "three_cushion", "choice", "free_ball", "masse")
BALLS = ("A", "B", "red")  # a jump's balls: bit k of rules.Match.respot_balls is BALLS[k]
_RESPOT_3C = const(2)  # rules.py's, matchnames.RESPOT_3C
_SHOOTOUT = const(7)  # matchnames.SHOOTOUT
_WARMUP = const(8)


def _who(p):
    return None if p == rules.NOBODY else ("A", "B")[p]


def _seconds(ms):
    """Whole seconds left, rounded up (a clock shows 0 only when time is up)."""
    return None if ms < 0 else (ms + 999) // 1000


def _player(m, p, out):
    out.open("{")
    out.field("name", m.names[p])
    out.field("club", m.clubs[p])
    out.field("target", m.targets[p])
    out.field("score", m.score[p])
    out.field("innings", m.innings[p])
    out.field("high_run", m.high_run[p])
    out.key("average")
    out.thousandths(m.average_x1000(p))
    out.field("timeouts_left", m.timeouts[p])
    out.field("fouls", m.fouls[p])
    out.key("runs")
    out.open("[")
    for i in range(m.played[p] - m.innings[p], m.played[p]):  # this set's
        out.value(m.run_of(p, i))
    out.close("]")
    out.key("match")
    if m.fmt is not None and m.sets_to_win:
        score = m.match_score[p] + m.score[p]
        out.open("{")
        out.field("score", score)
        out.field("innings", m.played[p])
        out.field("high_run", m.match_high[p] if m.match_high[p] > m.high_run[p] else m.high_run[p])
        out.key("average")
        n = m.played[p]
        out.thousandths((score * 2000 + n) // (2 * n) if n else 0)
        out.close("}")
    else:
        out.value(None)
    out.close("}")


def _formats(m, now, out):
    """sets, shootout and warmup: each null, or its state (formats.py)."""
    f = m.fmt is not None
    out.key("sets")
    if f and m.sets_to_win:
        out.open("{")
        out.field("to_win", m.sets_to_win)
        out.field("number", m.set_no)
        out.key("won")
        out.open("{")
        out.field("A", m.sets_won[0])
        out.field("B", m.sets_won[1])
        out.close("}")
        out.key("scores")
        out.open("[")
        half = len(m.set_scores) // 2
        for k in range(m.sets_won[0] + m.sets_won[1]):
            out.open("[")
            out.value(m.set_scores[k])
            out.value(m.set_scores[half + k])
            out.close("]")
        out.close("]")
        out.close("}")
    else:
        out.value(None)
    out.key("shootout")
    if f and m.shootout and (m.phase == _SHOOTOUT or m.so_round):
        rounds = len(m.so_runs) // 2
        out.open("{")
        out.key("rounds")
        out.open("[")
        first = m.so_round - rounds if m.so_round > rounds else 0
        for k in range(first, m.so_round):
            out.open("[")
            out.value(m.so_runs[k % rounds])
            out.value(m.so_runs[rounds + k % rounds])
            out.close("]")
        out.close("]")
        out.field("played", m.so_round)
        out.key("current")
        if m.phase == _SHOOTOUT:
            k = m.so_round % rounds
            out.open("[")
            out.value(m.so_runs[k])
            out.value(m.so_runs[rounds + k])
            out.close("]")
        else:
            out.value(None)
        out.close("}")
    else:
        out.value(None)
    out.key("warmup")
    if f and m.phase == _WARMUP:
        out.open("{")
        out.field("player", _who(m.warm_p))
        out.field("left_s", _seconds(m.fmt.warmup_left_ms(m, now)))
        out.close("}")
    else:
        out.value(None)


def _respot(m, out):
    """respot_balls: the balls a jump sent off the table, when told (three-cushion); spots:
    each ball's spot for the player coming to the table (II.3.4: red on the top spot, his
    opponent's ball on the centre spot, his own on the middle of the baulk line; a ball whose
    spot is taken goes to the spot of the ball on it, II.3.4c)."""
    out.key("respot_balls")
    if m.respot_balls:
        out.open("[")
        for k in range(3):
            if m.respot_balls & (1 << k):
                out.value(BALLS[k])
        out.close("]")
    else:
        out.value(None)
    out.key("spots")
    if m.respot == _RESPOT_3C and m.turn != rules.NOBODY:
        out.open("{")
        out.field(BALLS[m.turn], "baulk")
        out.field(BALLS[1 - m.turn], "centre")
        out.field("red", "top")
        out.close("}")
    else:
        out.value(None)


def _area(m, out):
    """The restricted area the object balls are in (the referee's calls), or null."""
    if not m.area:
        out.value(None)
        return
    out.open("{")
    out.field("anchor", m.area == 2)
    out.field("caroms", m.area_caroms)
    out.field("limit", 1 if matchsetup.GAMES[m.game] == "balkline_47_1" else 2)
    out.field("out_next", m.out_next())
    out.close("}")


def write_fields(m, now, out):
    """The state document's fields, into an open object of a jsonout.JsonOut."""
    shot = m.shot_left_ms(now)
    countdown = m.countdown()
    out.field("version", VERSION)
    out.field("game", matchsetup.GAMES[m.game])
    out.field("target", m.targets[0] if m.targets[0] == m.targets[1] else None)  # a handicap: the players'
    out.field("innings_limit", m.innings_limit or None)
    out.field("phase", PHASES[m.phase])
    out.field("turn", _who(m.turn))
    out.field("breaker", _who(m.breaker))
    out.field("spot_ball", _who(m.spot_ball()))
    out.field("current_run", m.run)
    out.field("countdown", None if countdown < 0 else countdown)
    out.field("equalizing_inning", m.phase == rules.EQUALIZING)
    out.field("result", RESULTS[m.result])
    out.field("ended_by", ENDINGS[m.ended_by])
    out.field("last_foul", None if m.last_foul < 0 else matchsetup.FOULS[m.last_foul])
    out.field("last_call", None if m.last_call < 0 else matchsetup.CALLS[m.last_call])
    out.field("respot", RESPOTS[m.respot])
    _respot(m, out)
    out.key("area")
    _area(m, out)
    out.key("lag")
    if m.phase == rules.LAG:
        out.open("{")
        out.field("chooser", _who(m.chooser))
        out.field("collisions", m.collisions)
        out.field("ties", m.lag_ties)
        out.close("}")
    else:
        out.value(None)
    out.key("review_used")
    out.open("{")
    out.field("A", m.reviews & 1 != 0)
    out.field("B", m.reviews & 2 != 0)
    out.close("}")
    elapsed = m.elapsed_ms(now)
    out.field("elapsed_s", None if elapsed < 0 else elapsed // 1000)
    out.field("break_taken", m.break_taken != 0)
    out.field("break_left_s", _seconds(m.break_left_ms(now)))
    out.key("shot_clock")
    if shot < 0:
        out.value(None)
    else:
        out.open("{")
        out.field("left_s", _seconds(shot))
        out.field("limit_s", m.shot_limit // 1000)
        out.close("}")
    _formats(m, now, out)
    out.key("options")
    out.open("{")
    out.field("equalizing", m.equalizing)
    out.field("draw", m.draw_allowed)
    out.field("break_s", m.break_ms // 1000)
    out.field("shot_clock_s", m.shot_ms // 1000)
    out.field("timeouts", m.timeouts0)
    out.field("timeout_s", m.timeout_ms // 1000)
    out.field("breaker_ball", "white" if m.white_breaker else "spot")
    f = m.fmt is not None
    out.field("sets", m.sets_to_win if f else 0)
    out.field("deciding_target", m.deciding_target or None if f else None)
    out.field("shootout", m.shootout if f else False)
    out.field("warmup_s", m.warmup_ms // 1000 if f else 0)
    out.close("}")
    out.field("events", m.n)
    out.field("closed", m.closed)
    out.key("players")
    out.open("{")
    out.key("A")
    _player(m, rules.A, out)
    out.key("B")
    _player(m, rules.B, out)
    out.close("}")


def write(m, now, out):
    """The state document of match m at time now, into a jsonout.JsonOut (flushed)."""
    out.open("{")
    write_fields(m, now, out)
    out.close("}")
    out.flush()


def pieces(m, now, size=512):
    """The state document as a list of bytes pieces of at most `size` (MQTT)."""
    sink = jsonout.Pieces()
    write(m, now, jsonout.JsonOut(sink, size))
    return sink.parts


def text(m, now):
    return b"".join(pieces(m, now))


def doc(m, now):
    """The state document as a dict (tests, the scripted mode: it is built whole)."""
    return json.loads(text(m, now))

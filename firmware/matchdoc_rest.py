"""The rest of the state document after its head: the balls' spots, the restricted area,
the lag, the clocks, the formats' state (sets, shoot-out, warm-up), the options, and the
players with their runs.

matchdoc.write_fields() writes the head, then loads this module and writes the rest with
fields() here; a report writes the head with matchdoc.py loaded, drops it, and loads this one
(report.writer): it imports nothing of matchdoc.py's. Its keys are bytes for matchdoc.py's
reason.
"""

import matchwords
import rules
from matchwords import BALLS, seconds, who
from matchnames import RESPOT_3C, SHOOTOUT, WARMUP

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_RUNS_STEP = const(32)  # runs written between two yields of fields()


def fields(m, now, out):
    """The rest's fields, into the state document's open object: a generator that yields as
    it starts (this module loaded: a step), after the spots and the area, before the
    players, between them, before each one's runs and every _RUNS_STEP runs."""
    yield
    shot = m.shot_left_ms(now)
    _respot(m, out)
    out.key(b"area")
    _area(m, out)
    yield
    out.key(b"lag")
    if m.phase == rules.LAG:
        out.open("{")
        out.field(b"chooser", who(m.chooser))
        out.field(b"collisions", m.collisions)
        out.field(b"ties", m.lag_ties)
        out.close("}")
    else:
        out.value(None)
    out.key(b"review_used")
    out.open("{")
    out.field(b"A", m.reviews & 1 != 0)
    out.field(b"B", m.reviews & 2 != 0)
    out.close("}")
    elapsed = m.elapsed_ms(now)
    out.field(b"elapsed_s", None if elapsed < 0 else elapsed // 1000)
    out.field(b"break_taken", m.break_taken != 0)
    out.field(b"break_left_s", seconds(m.break_left_ms(now)))
    out.key(b"shot_clock")
    if shot < 0:
        out.value(None)
    else:
        out.open("{")
        out.field(b"left_s", seconds(shot))
        out.field(b"limit_s", m.shot_limit // 1000)
        out.close("}")
    yield
    _formats(m, now, out)
    out.key(b"options")
    out.open("{")
    out.field(b"equalizing", m.equalizing)
    out.field(b"draw", m.draw_allowed)
    out.field(b"break_s", m.break_ms // 1000)
    out.field(b"shot_clock_s", m.shot_ms // 1000)
    out.field(b"timeouts", m.timeouts0)
    out.field(b"timeout_s", m.timeout_ms // 1000)
    out.field(b"breaker_ball", b"white" if m.white_breaker else b"spot")
    f = m.fmt is not None
    out.field(b"sets", m.sets_to_win if f else 0)
    out.field(b"deciding_target", m.deciding_target or None if f else None)
    out.field(b"shootout", m.shootout if f else False)
    out.field(b"warmup_s", m.warmup_ms // 1000 if f else 0)
    out.close("}")
    out.field(b"events", m.n)
    out.field(b"closed", m.closed)
    yield
    out.key(b"players")
    out.open("{")
    out.key(b"A")
    yield from _player(m, rules.A, out)
    yield
    out.key(b"B")
    yield from _player(m, rules.B, out)
    out.close("}")


def _respot(m, out):
    """respot_balls: the balls a jump sent off the table, when told (three-cushion); spots:
    each ball's spot for the player coming to the table (II.3.4: red on the top spot, his
    opponent's ball on the centre spot, his own on the middle of the baulk line; a ball whose
    spot is taken goes to the spot of the ball on it, II.3.4c)."""
    out.key(b"respot_balls")
    if m.respot_balls:
        out.open("[")
        for k in range(3):
            if m.respot_balls & (1 << k):
                out.value(BALLS[k])
        out.close("]")
    else:
        out.value(None)
    out.key(b"spots")
    if m.respot == RESPOT_3C and m.turn != rules.NOBODY:
        out.open("{")
        out.field(BALLS[m.turn], b"baulk")
        out.field(BALLS[1 - m.turn], b"centre")
        out.field(b"red", b"top")
        out.close("}")
    else:
        out.value(None)


def _area(m, out):
    """The restricted area the object balls are in (the referee's calls), or null."""
    if not m.area:
        out.value(None)
        return
    out.open("{")
    out.field(b"anchor", m.area == 2)
    out.field(b"caroms", m.area_caroms)
    out.field(b"limit", 1 if matchwords.GAMES[m.game] == "balkline_47_1" else 2)
    out.field(b"out_next", m.out_next())
    out.close("}")


def _player(m, p, out):
    """A player's fields (a generator: it yields before the runs and every _RUNS_STEP runs)."""
    out.open("{")
    out.field(b"name", m.names[p])
    out.field(b"club", m.clubs[p])
    out.field(b"target", m.targets[p])
    out.field(b"score", m.score[p])
    out.field(b"innings", m.innings[p])
    out.field(b"high_run", m.high_run[p])
    out.key(b"average")
    out.thousandths(m.average_x1000(p))
    out.field(b"timeouts_left", m.timeouts[p])
    out.field(b"fouls", m.fouls[p])
    yield
    out.key(b"runs")
    out.open("[")
    for i in range(m.played[p] - m.innings[p], m.played[p]):  # this set's
        out.value(m.run_of(p, i))
        if i % _RUNS_STEP == _RUNS_STEP - 1:
            yield
    out.close("]")
    out.key(b"match")
    if m.fmt is not None and m.sets_to_win:
        score = m.match_score[p] + m.score[p]
        out.open("{")
        out.field(b"score", score)
        out.field(b"innings", m.played[p])
        out.field(b"high_run", m.match_high[p] if m.match_high[p] > m.high_run[p] else m.high_run[p])
        out.key(b"average")
        n = m.played[p]
        out.thousandths(score * 1000 // n if n else 0)  # truncated, as average_x1000
        out.close("}")
    else:
        out.value(None)
    out.close("}")


def _formats(m, now, out):
    """sets, shootout and warmup: each null, or its state (formats.py)."""
    f = m.fmt is not None
    out.key(b"sets")
    if f and m.sets_to_win:
        out.open("{")
        out.field(b"to_win", m.sets_to_win)
        out.field(b"number", m.set_no)
        out.key(b"won")
        out.open("{")
        out.field(b"A", m.sets_won[0])
        out.field(b"B", m.sets_won[1])
        out.close("}")
        out.key(b"scores")
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
    out.key(b"shootout")
    if f and m.shootout and (m.phase == SHOOTOUT or m.so_round):
        rounds = len(m.so_runs) // 2
        out.open("{")
        out.key(b"rounds")
        out.open("[")
        first = m.so_round - rounds if m.so_round > rounds else 0
        for k in range(first, m.so_round):  # kept from so_base on (formats.py)
            out.open("[")
            out.value(m.so_runs[(m.so_base + k) % rounds])
            out.value(m.so_runs[rounds + (m.so_base + k) % rounds])
            out.close("]")
        out.close("]")
        out.field(b"played", m.so_round)
        out.key(b"current")
        if m.phase == SHOOTOUT:
            k = (m.so_base + m.so_round) % rounds
            out.open("[")
            out.value(m.so_runs[k])
            out.value(m.so_runs[rounds + k])
            out.close("]")
        else:
            out.value(None)
        out.close("}")
    else:
        out.value(None)
    out.key(b"warmup")
    if f and m.phase == WARMUP:
        out.open("{")
        out.field(b"player", who(m.warm_p))
        out.field(b"left_s", seconds(m.fmt.more().warmup_left_ms(m, now)))
        out.close("}")
    else:
        out.value(None)

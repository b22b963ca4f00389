"""The match state document: one JSON-ready dict that describes a match.

The simulator, the reports, MQTT and the scripted mode all show a match
through this document.  Building it allocates, so it is made when someone
asks for it (a report, a publish), never on the button-to-display path.
"""

import rules

VERSION = 1

# Names of the rules core's small-int codes, as the document writes them.
PHASES = ("lag", "running", "break", "equalizing", "finished", "tiebreak")
RESULTS = (None, "A", "B", "draw", "tiebreak")
ENDINGS = (None, "target", "innings_limit", "left", "tiebreak")
RESPOTS = (None, "start", "three_cushion")
ENTRY_NAMES = (None, "lag", "lag_collision", "lag_fault", "choose", "point", "miss", "foul", "break_request",
               "resume", "left", "extend", "call", "timeout", "break_end", "tiebreak")


def _who(p):
    return None if p == rules.NOBODY else ("A", "B")[p]


def _seconds(ms):
    """Whole seconds left, rounded up (a clock shows 0 only when time is up)."""
    return None if ms < 0 else (ms + 999) // 1000


def player(m, p):
    n = m.innings[p]
    return {
        "name": m.names[p],
        "club": m.clubs[p],
        "score": m.score[p],
        "innings": n,
        "high_run": m.high_run[p],
        "average": round(m.score[p] / n, 3) if n else 0.0,
        "timeouts_left": m.timeouts[p],
        "fouls": m.fouls[p],
        "runs": [m.run_of(p, i) for i in range(n)],
    }


def doc(m, now):
    """The state document of match m at time now."""
    shot = m.shot_left_ms(now)
    countdown = m.countdown()
    in_lag = m.phase == rules.LAG
    return {
        "version": VERSION,
        "game": rules.GAMES[m.game],
        "target": m.target,
        "innings_limit": m.innings_limit or None,
        "phase": PHASES[m.phase],
        "turn": _who(m.turn),
        "breaker": _who(m.breaker),
        "spot_ball": _who(m.spot_ball()),
        "current_run": m.run,
        "countdown": None if countdown < 0 else countdown,
        "equalizing_inning": m.phase == rules.EQUALIZING,
        "result": RESULTS[m.result],
        "ended_by": ENDINGS[m.ended_by],
        "last_foul": None if m.last_foul < 0 else rules.FOULS[m.last_foul],
        "last_call": None if m.last_call < 0 else rules.CALLS[m.last_call],
        "respot": RESPOTS[m.respot],
        "lag": {"chooser": _who(m.chooser), "collisions": m.collisions} if in_lag else None,
        "break_taken": m.break_taken,
        "break_left_s": _seconds(m.break_left_ms(now)),
        "shot_clock": None if shot < 0 else {"left_s": _seconds(shot), "limit_s": m.shot_limit // 1000},
        "options": {
            "equalizing": m.equalizing,
            "draw": m.draw_allowed,
            "break_s": m.break_ms // 1000,
            "shot_clock_s": m.shot_ms // 1000,
            "timeouts": m.timeouts0,
            "breaker_ball": "white" if m.white_breaker else "spot",
        },
        "events": m.n,
        "closed": m.closed,
        "players": {"A": player(m, rules.A), "B": player(m, rules.B)},
    }

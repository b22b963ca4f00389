"""The innings of a match, found in its log: the report's (report.py), and the host's.

    for inning in rules_innings.each(m, started_at):    # one dict at a time
    rules_innings.listed(m)                             # all of them (tests, host tools)

Innings are found by stepping a follower match (rules_setup.follower) through
the log and watching whose turn it is.  Each inning: player, number, run,
fouls, and its start and end as match time (ms) and, when the board's clock
was set, as epoch seconds. A set match's innings are every set's, each with
its set's number ("set"; "inning" counts in its set, as the state document's
runs, which are only the current set's); a shoot-out's innings follow, each
with "shootout": true and its round's number as "inning" (the state
document's shootout keeps only the newest rounds; the report has them all).
Nothing is held whole: the log is read a chunk at a time (rules_logback.chunk: an old
one back from the flash), one inning at a time goes to the caller. Loaded for a
report and dropped again (cold.Rare).
"""

import store_journal  # noqa: F401  (kept loaded while the innings are read: the store reads old chunks through it)
import rules_logback
import matchwords
from matchnames import CHUNK, E_BREAK, E_FOUL, RSHIFT, SET_OVER, SHOOTOUT, WARMUP
from rules import EQUALIZING, LAG, NOBODY

STEP = 2  # log entries followed between two yields (None) of each(..., steps=True)


def epoch(started_at, t):
    """Epoch seconds of match time t (ms) in a match started at started_at (None: unknown)."""
    return None if started_at is None else started_at + t // 1000


def each(m, started_at=None, n=None, steps=False, store=None, shadow=None):
    """The innings of the first n entries (all) of match m, in order, one dict at a time;
    with steps, None too after every STEP entries (report.writer yields there). The log is read
    a chunk at a time (rules_logback.chunk: an old one from the flash; with steps and the match's
    store, in steps too: rules_logback.chunk_steps). `shadow`: m's follower, made by the caller
    (rules_setup.follower) or here."""
    n = m.n if n is None else n
    if shadow is None:  # a follower of m (rules_setup.follower: the report makes it before)
        import rules_setup

        shadow = rules_setup.follower(m)
    if steps:  # loading this module was a step
        yield None
    current = _opened(shadow, 0, started_at)  # a breaker set directly starts at once
    at = shadow.played[0] + shadow.played[1] - 1  # the current inning's place in its player's log
    c = None
    for i in range(n):
        j = i % CHUNK
        if c is None or not j:
            if steps and store is not None:  # a chunk read back from the flash in steps too
                c = yield from rules_logback.chunk_steps(m, i // CHUNK, store)
            else:
                c = rules_logback.chunk(m, i // CHUNK)
        code = c.codes[j]
        arg = c.args[j]
        t = c.times[j]
        if current is not None:
            _note_entry(current, code, arg)
        warm = shadow.phase == WARMUP
        follow(shadow, code, arg, t)
        if current is not None:
            over = _followed(current, shadow, at)
            if warm and shadow.phase != WARMUP and not current["run"] and not current["fouls"]:
                current["start_ms"] = t  # the breaker's first stroke comes after the warm-up
                current["start"] = epoch(started_at, t)
            if over:
                _close(current, t, started_at)
                yield current
                current = None
        if current is None:
            current = _opened(shadow, t, started_at)
            if current is not None:
                at = shadow.played[shadow.shooter] - 1
        if current is not None and shadow.turn == NOBODY:
            _close(current, t, started_at)  # the match or the set is over (an extension may open another)
        if steps and i % STEP == STEP - 1:
            yield None
            c = None  # the chunk again after the pause (rules_logback's read-back may have moved on)
    if current is not None:
        yield current


def _note_entry(current, code, arg):
    """What an entry adds to the inning under way: a foul, the half-time break."""
    if code == E_FOUL:
        current["fouls"].append(matchwords.FOULS[arg & 15])
    elif code == E_BREAK:
        current["break"] = True


def _followed(current, shadow, at):
    """The inning under way's run after the follower did an entry; True when the inning is
    over (`at`: its place in its player's log of runs)."""
    p = 0 if current["player"] == "A" else 1
    if "shootout" in current:  # a shoot-out round's inning: its run is the round's
        k = current["inning"] - 1
        rounds = len(shadow.so_runs) // 2
        current["run"] = shadow.so_runs[(shadow.so_base + k) % rounds + p * rounds]
        return shadow.phase != SHOOTOUT or shadow.shooter != p or shadow.so_round != k
    current["run"] = shadow.run_of(p, at)
    return shadow.shooter != p or shadow.played[p] != at + 1 or shadow.phase == SHOOTOUT


def follow(m, code, arg, t):
    """Do an entry of the match whose follower m is (as its log has it: chunk.codes, .args,
    .times) without logging it. Allocates (runs of new innings); raises MemoryError when
    out of memory. A cold half of rules.Match's, for its follower: the runs of innings two
    chunks of runs back are read no more, and go."""
    if not m._room():
        raise MemoryError
    m._do(code, arg, t)
    for p in (0, 1):
        k = (m.played[p] >> RSHIFT) - 2
        if k >= 0 and m._runs[p][k] is not None:
            m._runs[p][k] = None


def listed(m, started_at=None):
    """The innings of match m as a list (tests, host tools)."""
    return list(each(m, started_at))


def _opened(shadow, t, started_at):
    """A new inning where the follower has one under way, else None. In a set match each
    inning has its set's number ("set"; "inning" counts in the set); a shoot-out round's inning
    has "shootout": true, and "inning" is the round's number."""
    p = shadow.shooter
    if p == NOBODY or shadow.turn == NOBODY or shadow.phase == LAG or shadow.phase == SET_OVER or not shadow.innings[p]:
        return None
    out = {
        "player": ("A", "B")[p],
        "inning": shadow.innings[p],
        "run": 0,
        "fouls": [],
        "break": False,
        "equalizing": shadow.phase == EQUALIZING,
        "start_ms": t,
        "end_ms": None,
        "start": epoch(started_at, t),
        "end": None,
    }
    if shadow.fmt is not None and shadow.sets_to_win:
        out["set"] = shadow.set_no
    if shadow.phase == SHOOTOUT:
        out["inning"] = shadow.so_round + 1
        out["shootout"] = True
    else:
        out["run"] = shadow.run_of(p, shadow.played[p] - 1)
    return out


def _close(current, t, started_at):
    if current["end_ms"] is None:
        current["end_ms"] = t
        current["end"] = epoch(started_at, t)

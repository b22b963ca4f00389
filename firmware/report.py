"""The match report (III.3.1): the state document plus every inning, from the log.

    for _ in report.writer(match, now, jsonout.JsonOut(f), started_at=1764489600, table="Table 3"):
        await asyncio.sleep_ms(0)          # written in steps: the board goes on meanwhile
    report.build(match, now)               # the same, as a dict (tests, host tools)

Innings are found by stepping a follower match (matchsetup.follower) through
the log and watching whose turn it is.  Each inning: player, number, run,
fouls, and its start and end as match time (ms) and, when the board's clock
was set, as epoch seconds. A set match's innings are every set's, each with
its set's number ("set"; "inning" counts in its set, as the state document's
runs, which are only the current set's); a shoot-out's innings follow, each
with "shootout": true and its round's number as "inning" (the state
document's shootout keeps only the newest rounds; the report has them all).  Nothing is held whole: one inning at a time goes
to the writer. Allocates: made when a match ends or a report is asked for.
"""

import json

import jsonout
import matchdoc
import matchsetup
from matchnames import SET_OVER, SHOOTOUT, WARMUP
from rules import A, B, EQUALIZING, E_BREAK, E_FOUL, E_REVIEW, FINISHED, FOULS, LAG, NOBODY

STEP = 16  # innings written between two yields of writer()


def _epoch(started_at, t):
    return None if started_at is None else started_at + t // 1000


def each_inning(m, started_at=None, n=None):
    """The innings of the first n entries (all) of match m, in order, one dict at a time."""
    n = m.n if n is None else n
    shadow = matchsetup.follower(m)
    current = _opened(shadow, 0, started_at)  # a breaker set directly starts at once
    at = shadow.played[0] + shadow.played[1] - 1  # the current inning's place in its player's log
    for i in range(n):
        code, arg, t = m.entry(i)
        if current is not None:
            if code == E_FOUL:
                current["fouls"].append(FOULS[arg & 15])
            elif code == E_BREAK:
                current["break"] = True
        warm = shadow.phase == WARMUP
        matchsetup.follow(shadow, m, i)
        if current is not None:
            p = 0 if current["player"] == "A" else 1
            if "shootout" in current:  # a shoot-out round's inning: its run is the round's
                k = current["inning"] - 1
                rounds = len(shadow.so_runs) // 2
                current["run"] = shadow.so_runs[(shadow.so_base + k) % rounds + p * rounds]
                over = shadow.phase != SHOOTOUT or shadow.shooter != p or shadow.so_round != k
            else:
                current["run"] = shadow.run_of(p, at)
                over = shadow.shooter != p or shadow.played[p] != at + 1 or shadow.phase == SHOOTOUT
            if warm and shadow.phase != WARMUP and not current["run"] and not current["fouls"]:
                current["start_ms"] = t  # the breaker's first stroke comes after the warm-up
                current["start"] = _epoch(started_at, t)
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
    if current is not None:
        yield current


def innings(m, started_at=None):
    """The innings of match m as a list (tests, host tools)."""
    return list(each_inning(m, started_at))


def _opened(shadow, t, started_at):
    """A new inning where the follower has one under way, else None. In a set match each
    inning has its set's number ("set"; "inning" counts in the set); a shoot-out round's inning
    has "shootout": true, and "inning" is the round's number."""
    p = shadow.shooter
    if p == NOBODY or shadow.turn == NOBODY or shadow.phase == LAG or shadow.phase == SET_OVER or not shadow.innings[p]:
        return None
    out = {"player": ("A", "B")[p], "inning": shadow.innings[p], "run": 0, "fouls": [], "break": False,
           "equalizing": shadow.phase == EQUALIZING, "start_ms": t, "end_ms": None,
           "start": _epoch(started_at, t), "end": None}
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
        current["end"] = _epoch(started_at, t)


def match_end_ms(m):
    """Match time of the newest entry that is not a review: a review asked for after the end
    (it may be, until the report is signed) does not move the match's end. duration_s is this,
    from the `new` (the lag included); elapsed_s (the state document's) counts from the first
    stroke to the end (at the draw when a tie-break followed)."""
    i = m.n - 1
    while i > 0 and m.entry(i)[0] == E_REVIEW:
        i -= 1
    return m.entry(i)[2] if i >= 0 else 0


def writer(m, now, out, started_at=None, ended_at=None, table="", board=""):
    """Write the report of match m to `out` (a jsonout.JsonOut) in steps: a generator that
    yields every STEP innings. The caller may let other work run at each yield; if the
    match's log changed meanwhile (m.edits), the report written is not the match's."""
    n = m.n
    end = match_end_ms(m)
    out.open("{")
    matchdoc.write_fields(m, now, out)
    out.key("report")
    out.open("{")
    out.field("table", table)
    out.field("board", board)
    out.field("started_at", started_at)
    out.field("ended_at", ended_at if ended_at is not None else _epoch(started_at, end))
    out.field("duration_s", end // 1000)
    out.key("innings")
    out.open("[")
    k = 0
    for inning in each_inning(m, started_at, n):
        out.open("{")
        out.fields(inning)
        out.close("}")
        k += 1
        if k % STEP == 0:
            yield k
    out.close("]")
    out.key("fouls")
    out.open("{")
    out.field("A", m.fouls[A])
    out.field("B", m.fouls[B])
    out.close("}")
    out.key("signatures")
    out.open("{")
    for who in ("referee", "A", "B"):
        out.field(who, "")
    out.close("}")
    out.close("}")
    out.close("}")
    out.flush()


def write(m, now, out, started_at=None, ended_at=None, table="", board=""):
    """The whole report at once (no yields)."""
    for _ in writer(m, now, out, started_at, ended_at, table, board):
        pass


def build(m, now, started_at=None, ended_at=None, table="", board=""):
    """The report of match m as a dict: the state document, the innings, when and where."""
    sink = jsonout.Pieces()
    write(m, now, jsonout.JsonOut(sink), started_at, ended_at, table, board)
    return json.loads(b"".join(sink.parts))


async def save(board):
    """A wall board's finished match's report (app.Board), written to the flash in steps
    with other tasks running between them; dropped if the match changed meanwhile (it is
    written again); then sent to the hall. MemoryError reaches the caller."""
    import asyncio
    import time

    import history
    from app import wall_clock
    from store import report_name

    m = board.match
    store = board.store
    edits = m.edits
    name = report_name(store.gen)
    f = history.report_file(store)
    if f is None:
        return
    done = False
    try:
        out = jsonout.JsonOut(f, 256)
        for _ in writer(m, time.ticks_ms(), out, board.started_at, wall_clock(0), board.table, board.name):
            await asyncio.sleep_ms(0)
            if m.edits != edits or m.phase != FINISHED:
                break
        else:
            done = True
    finally:
        if not history.finish_report(store, f, done):
            done = False
    if done:
        board.reported = True
        if board.mqtt is not None:
            board.mqtt.send_report(name)

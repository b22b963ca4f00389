"""The match report (III.3.1): the state document plus every inning, from the log.

    for _ in report.writer(match, now, jsonout.JsonOut(f), started_at=1764489600, table="Table 3"):
        await asyncio.sleep_ms(0)          # written in steps: the board goes on meanwhile
    report.build(match, now)               # the same, as a dict (tests, host tools)

The innings are rules_innings.py's (found by following the log). Nothing is held whole: one
inning at a time goes to the writer, and the writer's parts are loaded one after the
other. Allocates: made when a match ends or a report is asked for.
"""

import json

import cold
from matchnames import E_REVIEW
from rules import A, B, FINISHED


def _epoch(started_at, t):
    return None if started_at is None else started_at + t // 1000


def match_end_ms(m):
    """Match time of the newest entry that is not a review: a review asked for after the end
    (it may be, until the report is signed) does not move the match's end. duration_s is this,
    from the `new` (the lag included); elapsed_s (the state document's) counts from the first
    stroke to the end (at the draw when a tie-break followed)."""
    i = m.n - 1
    while i > 0 and m.entry(i)[0] == E_REVIEW:
        i -= 1
    return m.entry(i)[2] if i >= 0 else 0


def writer(m, now, out, started_at=None, ended_at=None, table="", board="", store=None):
    """Write the report of match m to `out` (a jsonout.JsonOut) in steps: a generator that
    yields between them (every few runs of the state document, every rules_innings.STEP entries
    of the log). The caller may let other work run at each yield; if the match's log
    changed meanwhile (m.edits), the report written is not the match's. The state
    document's writer (matchdoc.py) and the innings' (rules_innings.py) are loaded one after the
    other, each dropped when its part is written (cold.Rare): never both in RAM. With the
    match's store, a chunk of the log read back from the flash is read in steps too."""
    n = m.n
    end = match_end_ms(m)
    import matchwords  # noqa: F401  (the words of the codes: the document's, the follower's, the innings')

    yield
    out.open("{")
    with cold.Rare():  # the state document's head, then its rest: one module in RAM at a time
        import matchdoc

        yield from matchdoc.head(m, now, out)
        del matchdoc
    with cold.Rare():
        import matchdoc_rest

        yield from matchdoc_rest.fields(m, now, out)
        del matchdoc_rest
    out.key("report")
    out.open("{")
    out.field("table", table)
    out.field("board", board)
    out.field("started_at", started_at)
    out.field("ended_at", ended_at if ended_at is not None else _epoch(started_at, end))
    out.field("duration_s", end // 1000)
    out.key("innings")
    out.open("[")
    yield  # the state document's writer dropped
    with cold.Rare():
        import rules_setup

        yield  # (loading it takes a while)
        shadow = rules_setup.follower(m)
        del rules_setup  # rules_setup.py then goes
    yield
    # What the innings' part imports, loaded a step each (loading a module takes a while; they
    # stay until the report is over: app.Board.save_report drops them with it).
    import store_files  # noqa: F401

    yield
    import store_journal  # noqa: F401

    yield
    import rules_logback  # noqa: F401

    yield
    with cold.Rare():
        import rules_innings

        for inning in rules_innings.each(m, started_at, n, True, store, shadow):
            if inning is None:
                yield
            else:
                out.open("{")
                out.fields(inning)
                out.close("}")
        del rules_innings
    yield
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
    import jsonout

    sink = jsonout.Pieces()
    write(m, now, jsonout.JsonOut(sink), started_at, ended_at, table, board)
    return json.loads(b"".join(sink.parts))


async def save(board):
    """_save, with the voice resting meanwhile (its code and buffers out of RAM: the report's
    steps need the room), once it has said what it had to (the end's call): app_cold.voice_rest,
    and voice_wake after, however the report ends."""
    if board.ctrl.voice is not None:
        with cold.Rare():
            import app_cold

            await app_cold.voice_rest(board)
        del app_cold  # out of RAM while the report is written (this frame would keep it)
    try:
        await _save(board)
    finally:
        if board.voice_setup is not None:
            with cold.Rare():
                import app_cold

                app_cold.voice_wake(board)


async def _save(board):
    """A wall board's finished match's report (app.Board), written to the flash in steps
    with other tasks running between them; dropped if the match changed meanwhile (it is
    written again); then sent to the hall. MemoryError reaches the caller. The report's
    file's part of the store (store_reportfile.py) is loaded to open the file and to put it in
    place, not between.
    What it needs is loaded a module a step (loading one takes a while on the chip)."""
    import asyncio
    import time

    import jsonout
    from app import wall_clock
    from store import report_name

    await asyncio.sleep_ms(0)
    import store_files  # noqa: F401  (store_reportfile's, kept for its second load)

    await asyncio.sleep_ms(0)
    m = board.match
    store = board.store
    edits = m.edits
    name = report_name(store.gen)
    with cold.Rare():
        import store_reportfile

        await asyncio.sleep_ms(0)  # (loading it takes a while)
        f = store_reportfile.report_file(store)
        del store_reportfile
    if f is None:
        return
    done = False
    try:
        out = jsonout.JsonOut(f, 256)
        for _ in writer(m, time.ticks_ms(), out, board.started_at, wall_clock(0), board.table, board.name, store):
            await asyncio.sleep_ms(0)
            if m.edits != edits or m.phase != FINISHED:
                break
        else:
            done = True
        out = None
    except BaseException:  # MemoryError, a cancel: the file closed and dropped at once
        out = None
        with cold.Rare():
            import store_reportfile

            store_reportfile.finish_report(store, f, False)
        raise
    await asyncio.sleep_ms(0)
    with cold.Rare():
        import store_reportfile

        await asyncio.sleep_ms(0)
        if not store_reportfile.finish_report(store, f, done):
            done = False
        del store_reportfile
    if done:
        board.reported = True
        if board.mqtt is not None:
            board.mqtt.send_report(name)
    await asyncio.sleep_ms(0)  # then save_report drops what the report loaded: a step of its own

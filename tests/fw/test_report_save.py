"""A wall board's report written as the board writes it (report.save, awaited through
app.Board.save_report): what it leaves in RAM afterwards, after a report written whole and after one
that ran out of memory half-way. On the MicroPython unix port only (pytest skips it):
report.save reads time.ticks_ms, and only MicroPython drops what save_report loaded (cold.Rare).

What is tried: a match of 600 entries (its old chunks gone from RAM: the report reads them
back from the journal) reported whole; the same with a file whose fourth write fails for
want of memory (MemoryError reaches the caller, the report is not kept, and nothing the
report loaded stays loaded); then reported again, whole.
"""

import sys

try:
    import asyncio
except ImportError:  # a MicroPython build without it
    asyncio = None

import rules
import store
from faultfs import MemFs
from fwtest import SkipTest

MICROPYTHON = sys.implementation.name == "micropython"


class Quiet:
    voice = None  # a controller without a voice (app.Board.save_report rests one)


class Board:
    """What report.save (and app.Board.save_report around it) reads of app.Board."""

    def __init__(self, m, st):
        self.ctrl = Quiet()
        self.voice_setup = None
        self.match = m
        self.store = st
        self.started_at = 1764489600
        self.table = "Table 3"
        self.name = "wall"
        self.mqtt = None
        self.reported = False


class ShortFs(MemFs):
    """MemFs whose report file runs out of memory at its `after`-th write."""

    def __init__(self):
        MemFs.__init__(self)
        self.after = -1

    def open(self, path, mode):
        f = MemFs.open(self, path, mode)
        if "w" in mode and path.endswith("report.tmp") and self.after >= 0:
            return _Short(f, self.after)
        return f


class _Short:
    def __init__(self, f, after):
        self.f = f
        self.left = after

    def write(self, data):
        if not self.left:
            raise MemoryError("memory allocation failed")
        self.left -= 1
        return self.f.write(data)

    def close(self):
        self.f.close()


def finished_match(fs):
    st = store.MatchStore("/data", fs)
    m = rules.Match()
    m.new(0, game="straight_rail", target=260, breaker=rules.A, name_A="Anna", name_B="Bela")
    st.begin(m)
    t = 0
    while m.phase != rules.FINISHED:
        t += 3000
        if m.phase == rules.EQUALIZING or m.n % 7 == 6:
            m.miss(rules.NOBODY, t)
        else:
            m.point(rules.NOBODY, t)
        m.reserve()
        st.sync(m)
    assert m.n > 3 * 128  # 3 chunks (rules.CHUNK would load matchnames.py): the report reads old ones back
    return m, st


def save(board):
    # app.py (whose wall_clock the report reads) is resident on a running board: loaded here
    # before the modules are counted. It imports machine: a stand-in where there is none.
    try:
        import machine  # noqa: F401
    except ImportError:
        sys.modules["machine"] = type(sys)("machine")
    import app

    app.wall_clock = lambda offset_s: 1764493200
    before = sorted(sys.modules)
    try:
        asyncio.run(app.Board.save_report(board))
    except MemoryError:
        return before, "MemoryError"
    return before, None


def test_a_report_leaves_nothing_loaded_after_it_whole_or_failed():
    if not MICROPYTHON or asyncio is None:
        raise SkipTest("report.save is the board's (time.ticks_ms, and cold.Rare drops modules): MicroPython's")
    fs = ShortFs()
    m, st = finished_match(fs)
    board = Board(m, st)

    fs.after = 3  # the fourth write of the report's file fails for want of memory
    before, failed = save(board)
    assert failed == "MemoryError" and not board.reported and not st.has_report()
    assert "/data/history/report.tmp" not in fs.files  # the half-written file is gone
    assert sorted(sys.modules) == before, [k for k in sys.modules if k not in before]

    fs.after = -1
    before, failed = save(board)
    assert failed is None and board.reported and st.has_report()
    assert sorted(sys.modules) == before, [k for k in sys.modules if k not in before]
    import json

    import store_history  # not before: the board does not keep it loaded

    rep = json.loads(bytes(store_history.read_report(st, store.report_name(st.gen))))
    inns = rep["report"]["innings"]
    assert len(inns) == m.innings[rules.A] + m.innings[rules.B]
    assert sum(i["run"] for i in inns if i["player"] == "A") == m.score[rules.A]

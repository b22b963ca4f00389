"""Power cuts on the host: random matches, a real directory, and a second cut during recovery.

tests/fw/test_store.py cuts the power at every write boundary of one
scripted evening, on both interpreters.  Here (CPython) the same check runs
  * on random matches from hypothesis (points, misses, fouls, undos, time-outs,
    new matches, close and report), both filesystem models;
  * on a real directory (store.PosixFs under the fault layer), torn model;
  * with a second power cut at every write boundary of the recovery itself
    (the reboot's load, which cuts a torn tail, and the referee entering the
    lost event again), then a third boot.
  * on the formats: a handicap's extension to two targets (two records: the B
    target's, kind 5, then the entry; a cut between them), sets with next_set and a break
    between sets, the shoot-out, the warm-up.
Every boot must show the state after the event being saved or after the one
before, and after the event is entered again, the state after it.
"""

import json
import os
import shutil

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host_tools import firmware_path

firmware_path()
import store_history  # noqa: E402
import store  # noqa: E402
from faultfs import LFS, TORN, FaultFs, MemFs, PowerCut  # noqa: E402
from referee import Referee  # noqa: E402
from test_store import (  # noqa: E402
    ROOT,
    cut_while_saving,
    persist,
    reboot,
    script_lines,
    state,
    survives,  # noqa: E402
    valid_snapshots,
)


class MemMedium:
    """Saved states of a RAM filesystem."""

    root = ROOT

    def fresh(self):
        return MemFs()

    def freeze(self, inner):
        return inner.clone()

    def thaw(self, frozen):
        return frozen.clone()


class DirMedium:
    """Saved states of a real directory: each one a copy under tmp."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.n = 0
        self.root = "sb"

    def fresh(self):
        return DirFs(os.path.join(self.tmp, "live"))

    def _copy(self, src):
        self.n += 1
        dst = os.path.join(self.tmp, "d%d" % self.n)
        shutil.copytree(src, dst)
        return dst

    def freeze(self, inner):
        return self._copy(inner.base)

    def thaw(self, frozen):
        return DirFs(self._copy(frozen))


class DirFs(store.PosixFs):
    """store.PosixFs with the store's paths taken inside one directory."""

    def __init__(self, base):
        store.PosixFs.__init__(self)
        self.base = base
        os.makedirs(os.path.join(base, "sb"), exist_ok=True)
        join = self._in
        self.open = lambda p, mode: open(join(p), mode)
        self.rename = lambda a, b: os.rename(join(a), join(b))
        self.remove = lambda p: os.remove(join(p))
        self.stat = lambda p: os.stat(join(p))
        self.listdir = lambda p: os.listdir(join(p))
        self.mkdir = lambda p: os.mkdir(join(p))

    def _in(self, path):
        return os.path.join(self.base, path.lstrip("/"))


def _recovery(fs, root, r, line, before, after, where):
    """Reboot and enter the line again if it was lost; returns the boot's document."""
    got, s2 = reboot(fs, root)
    assert got == before or got == after, where
    if got != after or not line.startswith("new "):
        assert persist(s2, r, line) is None, where
    return got


def cut_matrix(lines, model, medium, second_cut=False):
    """Cut the power at every write boundary of every save of lines; returns the number of cuts."""
    root = medium.root
    clean = FaultFs(medium.fresh(), model)
    s = store.MatchStore(root, clean)
    r = Referee(now=5000)
    before = None
    cuts = 0
    for line in lines:
        if line != "report":
            assert r.line(line) is None, line
        after = state(r.match, r.now)
        frozen = medium.freeze(clean.inner)
        slots = valid_snapshots(clean.inner, root)
        steps = clean.steps
        seq = s.seq
        assert persist(s, r, line) is None, line
        assert s.seq <= seq + 1 or line.startswith(("new ", "extend ")), "one record per line: " + line
        for k in range(clean.steps - steps):
            fs = FaultFs(medium.thaw(frozen), model)
            cut_while_saving(fs, root, r, line, k)
            cuts += 1
            where = "%s, %r, cut %s" % (model, line, fs.cut)
            after_cut = medium.freeze(fs.inner)
            if second_cut:
                # count the recovery's own write boundaries, then cut at each of them
                probe = FaultFs(medium.thaw(after_cut), model)
                _recovery(probe, root, r, line, before, after, where)
                for j in range(probe.steps):
                    fs2 = FaultFs(medium.thaw(after_cut), model)
                    fs2.arm(j)
                    try:
                        _recovery(fs2, root, r, line, before, after, where)
                    except PowerCut:
                        pass
                    cuts += 1
                    where2 = where + ", then during recovery: " + str(fs2.cut)
                    fs3 = fs2.reboot()
                    _recovery(fs3, root, r, line, before, after, where2)
                    got, _ = reboot(fs3.reboot(), root)
                    assert got == after, where2
            fs = FaultFs(medium.thaw(after_cut), model)
            s3 = survives(fs, fs.inner, fs.reboot, r, line, before, after, slots, where, root)
            for name in store_history.reports(s3):
                json.loads(store_history.read_report(s3, name))
        before = after
    return cuts


def test_script_on_a_real_directory(tmp_path):
    # The scripted evening of tests/fw/test_store.py, files in a real directory, torn writes.
    cuts = cut_matrix(script_lines(), TORN, DirMedium(str(tmp_path)))
    assert cuts >= 250, cuts


def test_second_cut_during_recovery():
    # Cut, then cut again while the reboot repairs the journal and the lost event is entered again.
    for model in (TORN, LFS):
        cuts = cut_matrix(script_lines(), model, MemMedium(), second_cut=True)
        assert cuts >= 300, (model, cuts)


EVENTS = st.sampled_from(
    [
        "point",
        "point",
        "point",
        "miss",
        "miss",
        "foul push",
        "foul jumped",
        "undo",
        "undo",
        "timeout",
        "close",
        "report",
        "new",
        "lag A",
        "choose A break",
        "extend 9",
    ]
)
NEW = st.sampled_from(
    [
        "new game=three_cushion target=3 breaker=A shot_clock=30 timeouts=1",
        "new game=straight_rail target=4 innings_limit=3 equalizing=off",
        'new game=one_cushion target=2 breaker=B name_A="Kovács Béla" club_B="Győri ETO"',
    ]
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(NEW, st.lists(st.tuples(EVENTS, NEW), min_size=1, max_size=30), st.sampled_from([TORN, LFS]))
def test_random_matches(first, events, model):
    # Random events (refused ones left out), each saved with a power cut at every boundary.
    r = Referee(now=5000)
    lines = [first]
    assert r.line(first) is None
    closed = False
    for event, new in events:
        line = new if event == "new" else event
        if line == "report":
            if closed:
                lines.append(line)
            continue
        if r.line(line) is None:
            lines.append(line)
            closed = r.match.closed
    cut_matrix(lines, model, MemMedium())


FORMAT_LINES = [
    "new game=three_cushion target_A=3 target_B=2 breaker=A name_A=Hc",
    "point",
    "point",
    "point",
    "point",
    "point",
    "extend 5 4",
    "point",
    "miss",
    "point B",
    "undo",
    "point B",
    "miss B",
    "point",
    "point B",
    "extend 6 6",
    "point",
    "miss B",
    "new game=straight_rail target=1 sets=2 deciding_target=1 shootout=on break_s=20 warmup_s=30",
    "warmup A",
    "wait 31",
    "lag A",
    "choose A break",
    "point",
    "miss B",
    "break_request B",
    "resume",
    "next_set",
    "point B",
    "point A",
    "point B",
    "miss B",
    "miss A",
    "undo",
    "point A",
    "miss A",
    "miss B",
    "point A",
    "miss A",
    "close",
    "report",
]


def test_format_matches_with_a_cut_at_every_boundary():
    lines = [line for line in FORMAT_LINES]
    for model in (TORN, LFS):
        cuts = cut_matrix(lines, model, MemMedium())
        assert cuts >= 100, (model, cuts)

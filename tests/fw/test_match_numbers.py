"""A match's number (its generation: history/<n>.json, the sheet's "Match no.") counts matches,
not boots ("Match no. 20" on the first match after a fresh flash).

A boot with a saved match in which nothing was played (only its start record) begins it anew
from the configuration (startup.restore); a new match asked for before any press too. Either
takes the empty match's number and slot, so the previous match stays the fallback; a match with
a journal record besides its start (even one taken back), or a report, keeps its number.
"""

import json

import store_history
import matchdoc
import store_snapshot
import store
from faultfs import MemFs
from referee import Referee

ROOT = "/mn"


def boot(fs, r=None):
    """What startup.restore does at a boot: the saved match back; a new one from the
    configuration when nothing was played in it. Returns (store, referee)."""
    s = store.MatchStore(ROOT, fs)
    r = r or Referee(now=5000)
    if not (s.restore(r.match, 5000) and r.match.n):
        assert r.line("new game=three_cushion target=2 name_A=Ann name_B=Bo") is None
        assert s.begin(r.match) is None
    return s, r


def line(s, r, text):
    assert r.line(text) is None, text
    if text.startswith("new "):
        assert s.begin(r.match) is None
    assert s.sync(r.match) is None


def gens(s):
    return sorted(x[0] for x in store_snapshot.slots(s) if x is not None)


def journals(s):
    return sorted(name for _, _, name in store_snapshot.journal_files(s))


def finish(s, r):
    """A wins: the lag, his points to the target, B misses his equalizing inning; the report saved."""
    line(s, r, "lag A")
    line(s, r, "choose A break")
    while matchdoc.doc(r.match, r.now)["phase"] == "running":
        line(s, r, "point")
    line(s, r, "miss")
    assert matchdoc.doc(r.match, r.now)["result"] == "A"
    assert store_history.save_report(s, json.dumps(matchdoc.doc(r.match, r.now))) == store.report_name(s.gen)


def test_boots_without_a_press_keep_the_number():
    fs = MemFs()
    for _ in range(5):
        s, r = boot(fs)
        assert s.gen == 1
    assert gens(s) == [1] and journals(s) == ["1.0"]
    finish(s, r)
    assert store_history.reports(s) == ["000001.json"]


def test_the_next_match_is_number_2_however_often_new_and_boots_came_before():
    fs = MemFs()
    s, r = boot(fs)
    finish(s, r)
    for _ in range(3):  # new, new, boot, new: nothing played in between
        line(s, r, "new game=straight_rail target=3")
        assert s.gen == 2
    s, r = boot(fs)
    assert s.gen == 2
    line(s, r, "new game=straight_rail target=3")
    assert s.gen == 2 and gens(s) == [1, 2]  # the finished match 1 stays the fallback
    finish(s, r)
    assert store_history.reports(s) == ["000001.json", "000002.json"]
    line(s, r, "new game=straight_rail target=3")
    assert s.gen == 3 and gens(s) == [2, 3]


def test_a_match_with_a_press_keeps_its_number():
    fs = MemFs()
    s, r = boot(fs)
    line(s, r, "lag A")  # the lag: something happened in match 1
    line(s, r, "new game=straight_rail target=3")
    assert s.gen == 2
    line(s, r, "lag A")
    line(s, r, "undo")  # taken back: the journal has records besides its start all the same
    assert s.count == 0 and s.seq > 1
    line(s, r, "new game=straight_rail target=3")
    assert s.gen == 3
    s, r = boot(fs)  # match 3 is empty: a boot keeps its number
    assert s.gen == 3 and "3.0" in journals(s)


def test_the_restored_empty_match_takes_the_new_options():
    fs = MemFs()
    s, r = boot(fs)
    line(s, r, "new game=one_cushion target=7 name_A=Kim")
    s2 = store.MatchStore(ROOT, fs)
    r2 = Referee(now=5000)
    assert s2.restore(r2.match, 5000) and s2.gen == 1
    doc = matchdoc.doc(r2.match, 5000)
    assert (doc["game"], doc["target"], doc["players"]["A"]["name"]) == ("one_cushion", 7, "Kim")

"""The match store (firmware/store.py); runs under pytest and on the MicroPython unix port.

A match is played with the rules core through referee lines; after each line
the store saves what changed (store.sync).  "Reboot" means: a new MatchStore
on the same files, restore() into a new Match.  States are compared as match
documents (matchdoc.doc), taken at the match time of the newest entry: that
is where a restored match resumes, as after an undo.
"""

import json
import os

import matchdoc
import reasons
import rules_setup
import rules
from ticks import ticks_add
import store_snapshot
import store_history
import store
import storenames
from faultfs import LFS, TORN, FailingFs, FaultFs, MemFs, PowerCut, RamFlash, VfsFs, image, read_all
from fwtest import SkipTest, raises
from referee import Referee

ROOT = "/sb"
REBOOT_NOW = 987654  # any time: a restored match does not depend on it

# One scripted evening: three matches, every kind of entry (the rarer events' too: a lag tie, a
# frozen ball and the choice, an anchor, a review, abandon, the time-out's length), undo,
# auto entries from the clocks, close and report.  Each line saves at most one journal record,
# so "the state after the last saved event or the one before it" is the state
# after this line or after the one before.  "report" saves the finished match's report.
SCRIPT = """
new game=three_cushion target=5 shot_clock=40 timeouts=1 timeout_s=20 break_s=60 name_A=Zanetti club_A=BSE name_B=Jaspers club_B=Ede
lag_collision
lag_tie
lag_fault B short
choose A break
point
frozen
frozen_choice start
point
miss
point B
undo
point
wait 41
foul push
point
miss
break_request B
wait 61
point
wait 41
point
point
point
miss
close
report
new game=straight_rail target=4 breaker=B innings_limit=3 equalizing=off break_s=0 name_A=Ceulemans name_B=Sang
point
wait 7
call entre anchor
point
wait 12.5
miss
point A
undo
undo
point
point B
review A
close
report
new game=one_cushion target=2 name_A="Őrsi Éva" club_A="Kecskeméti SE" name_B=Kiss
lag A
choose A give
point
point
point
point
extend 4
abandon A
"""


def script_lines():
    return [line.strip() for line in SCRIPT.strip().split("\n") if line.strip()]


def state(m, now):
    """The document of match m at the match time of its newest entry (what a reboot restores)."""
    t = m.entry(m.n - 1)[2] if m.n else 0
    return matchdoc.doc(m, ticks_add(now, t - m._time(now)))


def reboot(fs, root=ROOT):
    """A new store on fs, its match restored: (document or None, store)."""
    s = store.MatchStore(root, fs)
    m = rules.Match()
    if not s.restore(m, REBOOT_NOW):
        return None, s
    return matchdoc.doc(m, REBOOT_NOW), s


def valid_snapshots(fs, root=ROOT):
    """How many of the two snapshot slots hold a valid snapshot."""
    n = 0
    for slot in (0, 1):
        if store_snapshot.parse_snapshot(read_all(fs, "%s/snap.%d" % (root, slot))) is not None:
            n += 1
    return n


def persist(s, r, line):
    """What the app saves after a referee line."""
    if line == "report":
        if store_history.save_report(s, json.dumps(matchdoc.doc(r.match, r.now))) is None:
            return "report not saved"
        return None
    if line.startswith("new "):
        reason = s.begin(r.match)
        if reason:
            return reason
    return s.sync(r.match)


def play(lines, s, r=None):
    r = r or Referee(now=5000)
    for line in lines:
        if line != "report":
            assert r.line(line) is None, line
        assert persist(s, r, line) is None, line
    return r


# ---- format -----------------------------------------------------------------


def test_crc_fallback_equals_binascii():
    # The table-free CRC used when binascii.crc32 is missing gives zlib's CRC-32, also continued.
    for data, seed in ((b"", 0), (b"123456789", 0), (b"\x00\xff" * 20, 7), (bytes(range(256)), 0xDEADBEEF)):
        assert store_history.crc32_py(data, seed) == store.crc32(data, seed), data
    assert store_history.crc32_py(b"123456789") == 0xCBF43926


def test_snapshot_is_128_bytes_and_round_trips():
    # Every option goes into the 128-byte snapshot (the size LittleFS keeps inline) and comes back.
    m = rules.Match()
    m.new(
        0,
        game="balkline_71_2",
        target=300,
        breaker=rules.B,
        innings_limit=25,
        equalizing=False,
        draw=False,
        shot_clock=50,
        timeouts=2,
        timeout_s=25,
        break_s=300,
        breaker_ball="white",
        name_A="Ceulemans",
        club_A="Antwerpen",
        name_B="Sang Lee",
        club_B="NY",
    )
    buf = store_snapshot.pack_snapshot(7, m)
    assert len(buf) == storenames.SNAP_SIZE <= 128
    assert buf[:5] == b"CRMS\x04", buf[:5]
    gen, options = store_snapshot.parse_snapshot(bytes(buf))
    assert gen == 7
    assert options == {
        "game": "balkline_71_2",
        "target": 300,
        "innings_limit": 25,
        "equalizing": False,
        "draw": False,
        "breaker_ball": "white",
        "breaker": rules.B,
        "shot_clock": 50,
        "break_s": 300,
        "timeouts": 2,
        "timeout_s": 25,
        "name_A": "Ceulemans",
        "club_A": "Antwerpen",
        "name_B": "Sang Lee",
        "club_B": "NY",
    }, options
    m2 = rules.Match()
    assert m2.new(0, **options) is None
    assert matchdoc.doc(m2, 0) == matchdoc.doc(m, 0)
    # No breaker (the lag decides) is kept as such.
    m.new(0, game="three_cushion", target=40)
    assert store_snapshot.parse_snapshot(bytes(store_snapshot.pack_snapshot(1, m)))[1]["breaker"] is None
    # A format-3 snapshot (the time-out's length, no handicap or formats) is read too.
    old = bytearray(128)
    store_snapshot.struct.pack_into(
        "<4sBBBBIHHHHBH4B", old, 0, b"CRMS", 3, 3, 2, 1, 7, 300, 25, 50, 300, 2, 25, 9, 9, 8, 2
    )
    old[27 : 27 + 28] = b"CeulemansAntwerpenSang LeeNY"
    store_snapshot.struct.pack_into("<I", old, 124, store_snapshot.crc32(memoryview(old)[:124]))
    want = dict(options)
    want.update(equalizing=False, draw=True, breaker_ball="spot")  # flags 2: draw allowed
    assert store_snapshot.parse_snapshot(bytes(old)) == (7, want)
    # Format-1 and format-2 snapshots (before the time-out's length; 1: before journals began
    # with a start record) are read too: their time-out is one more shot period.
    for version in (1, 2):
        old = bytearray(128)
        store_snapshot.struct.pack_into(
            "<4sBBBBIHHHHB4B", old, 0, b"CRMS", version, 3, 2, 1, 7, 300, 25, 50, 300, 2, 9, 9, 8, 2
        )
        old[25 : 25 + 28] = b"CeulemansAntwerpenSang LeeNY"
        store_snapshot.struct.pack_into("<I", old, 124, store_snapshot.crc32(memoryview(old)[:124]))
        want = dict(options)
        want.update(timeout_s=None, equalizing=False, draw=True, breaker_ball="spot")  # flags 2: draw allowed
        assert store_snapshot.parse_snapshot(bytes(old)) == (7, want), version


def test_long_names_cut_on_character_boundaries():
    # Four long accented texts: the longest is cut first, never inside a UTF-8 character.
    names = (
        "Őrsi-Szőllősi Árpád Ödön Ürögdi",
        "Kecskeméti Biliárd Egyesület és Társai",
        "Zsótér-Kővári Éva Ágnes",
        "Ferencvárosi Torna Club",
    )
    m = rules.Match()
    m.new(0, name_A=names[0], club_A=names[1], name_B=names[2], club_B=names[3])
    buf = store_snapshot.pack_snapshot(3, m)
    assert len(buf) == 128
    options = store_snapshot.parse_snapshot(bytes(buf))[1]
    got = (options["name_A"], options["club_A"], options["name_B"], options["club_B"])
    total = 0
    for full, cut in zip(names, got):
        assert full.startswith(cut), (full, cut)
        assert len(cut) >= 15, cut  # each keeps a useful part
        total += len(bytes(cut, "utf-8"))
    assert 87 <= total <= 90, total  # format 4: 90 bytes for the four texts
    # Short texts are not touched.
    assert store_snapshot.fit_texts(("a", "é", "", "xyz")) == [b"a", bytes("é", "utf-8"), b"", b"xyz"]
    # A text of 2-byte characters only: cut to whole characters.
    cut = store_snapshot.fit_texts(("é" * 60, "", "", ""))[0]
    assert len(cut) == 90 and str(cut, "utf-8") == "é" * 45


def test_bad_snapshots_are_refused():
    # Wrong size, magic, version, CRC, game index or breaker: parse_snapshot says None.
    m = rules.Match()
    good = bytes(store_snapshot.pack_snapshot(5, m))
    assert store_snapshot.parse_snapshot(good) is not None
    assert store_snapshot.parse_snapshot(good[:-1]) is None
    assert store_snapshot.parse_snapshot(good + b"\x00") is None
    assert store_snapshot.parse_snapshot(None) is None
    for at in (0, 4, 5, 7, 8, 30, 124, 127):
        bad = bytearray(good)
        bad[at] ^= 0x10
        assert store_snapshot.parse_snapshot(bytes(bad)) is None, at


def test_record_layout_is_16_bytes():
    # One journal record: seq u32, kind, code, arg u16, time i32, CRC32 seeded with the generation.
    # Record 0 of a match is its start record, written before its snapshot.
    fs = MemFs()
    s = store.MatchStore(ROOT, fs)
    assert s.begin(rules.Match()) is None
    assert s.append(rules.E_POINT, 2, -5) is None
    data = read_all(fs, ROOT + "/jnl/%d.0" % s.gen)
    assert len(data) == 2 * storenames.REC_SIZE == 32
    assert data[:12] == b"\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00", data
    assert data[16:28] == b"\x01\x00\x00\x00\x01\x05\x02\x00\xfb\xff\xff\xff", data
    for at in (0, 16):
        crc = data[at + 12] | data[at + 13] << 8 | data[at + 14] << 16 | data[at + 15] << 24
        assert crc == store.crc32(data[at : at + 12], s.gen)


# ---- round trips ----------------------------------------------------------------


def test_round_trip_after_every_line():
    # The whole script, saved line by line; after every line a reboot gives the same match.
    fs = MemFs()
    s = store.MatchStore(ROOT, fs)
    r = Referee(now=5000)
    for line in script_lines():
        if line != "report":
            assert r.line(line) is None, line
        assert persist(s, r, line) is None, line
        got, s2 = reboot(fs)
        assert got == state(r.match, r.now), line
        assert s2.errors == 0, (line, s2.errors)
        assert s2.count == r.match.n and s2.closed == r.match.closed, line


def test_round_trip_of_a_match_to_30():
    # A three-cushion match to 30, played to the end with undos; reload gives the same entries.
    fs = MemFs()
    s = store.MatchStore("", fs)
    m = rules.Match()
    m.new(1000, name_A="Blomdahl", name_B="Caudron")
    assert s.begin(m) is None
    now = 1000
    m.lag(rules.A, now)
    m.choose(rules.A, False, now)
    seed = 1
    while m.phase != rules.FINISHED:
        now += 17000
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        roll = (seed >> 8) % 100
        if roll < 45:
            m.point(rules.NOBODY, now)
        elif roll < 95:
            m.miss(rules.NOBODY, now)
        elif roll < 97:
            m.foul(rules.NOBODY, 4, now)
        else:
            m.point(rules.NOBODY, now)
            assert s.sync(m) is None
            m.undo(now + 2000)
        assert s.sync(m) is None
    options, entries = store_history.load(store.MatchStore("", fs))
    assert entries == [m.entry(i) for i in range(m.n)]
    assert options["name_A"] == "Blomdahl" and options["target"] == 30
    got, _ = reboot(fs, "")
    assert got == state(m, now)


def test_clocks_resume_at_the_newest_entry():
    # Power cut during a break and during a shot: after the reboot the break and the shot clock
    # go on from where they were at the newest entry, and run out at the same match time.
    for script in (
        [
            "new game=three_cushion target=4 breaker=A shot_clock=30 break_s=60",
            "point",
            "point",
            "miss",
            "wait 3",
            "break_request B",
        ],
        ["new game=three_cushion target=4 breaker=A shot_clock=30 timeouts=2", "point", "wait 20", "timeout"],
    ):
        fs = MemFs()
        s = store.MatchStore(ROOT, fs)
        r = play(script, s)
        m2 = rules.Match()
        assert store.MatchStore(ROOT, fs).restore(m2, REBOOT_NOW)
        m = r.match
        at = ticks_add(r.now, m.entry(m.n - 1)[2] - m._time(r.now))  # the newest entry's moment
        for later in (0, 10000, 25000, 59999, 61000, 75000):
            m.tick(ticks_add(at, later))
            m2.tick(ticks_add(REBOOT_NOW, later))
            assert matchdoc.doc(m2, ticks_add(REBOOT_NOW, later)) == matchdoc.doc(m, ticks_add(at, later)), (
                script[-1],
                later,
            )
            assert m2.n == m.n and m2.entry(m2.n - 1) == m.entry(m.n - 1)


def test_undo_is_a_record_not_a_truncation():
    # Undo appends a record (files only grow); load drops the newest entry for it.
    fs = MemFs()
    s = store.MatchStore(ROOT, fs)
    assert s.begin(rules.Match()) is None
    assert s.undo() == storenames.NOTHING_TO_UNDO
    sizes = []
    for code, arg, t in ((rules.E_LAG, 0, 10), (rules.E_CHOOSE, 0, 20), (rules.E_POINT, 0, 30)):
        assert s.append(code, arg, t) is None
    assert s.undo() is None
    assert s.undo() is None
    assert s.append(rules.E_CHOOSE, 1, 40) is None
    for i in range(12):
        assert s.append(rules.E_POINT, 0, 50 + i) is None
        sizes.append(sum(len(fs.files[p]) for p in fs.files if "/jnl/" in p))
    assert s.undo() is None
    assert sizes == sorted(sizes) and s.seq == 20  # the start record, 17 entries, 2 + 1 undos
    options, entries = store_history.load(store.MatchStore(ROOT, fs))
    assert entries == [(rules.E_LAG, 0, 10), (rules.E_CHOOSE, 1, 40)] + [(rules.E_POINT, 0, 50 + i) for i in range(11)]


def test_close_is_saved():
    # A closed match comes back closed; an undo after a close is refused by the match, not saved.
    fs = MemFs()
    s = store.MatchStore(ROOT, fs)
    r = play(["new game=three_cushion target=1 breaker=A equalizing=off", "point", "close"], s)
    assert r.match.closed
    seq = s.seq
    assert r.line("undo") == reasons.CLOSED
    assert s.sync(r.match) is None and s.seq == seq
    got, s2 = reboot(fs)
    assert got["closed"] and s2.closed and got["result"] == "A"


def test_new_match_replaces_the_old_one():
    # Three matches in a row: load gives the newest; only the newest two journals stay on flash.
    fs = MemFs()
    s = store.MatchStore(ROOT, fs)
    play(["new game=three_cushion target=3 name_A=One breaker=A", "point", "point"], s)
    gen1 = s.gen
    play(["new game=three_cushion target=3 name_A=Two breaker=A", "point"], s)
    gen2 = s.gen
    play(["new game=three_cushion target=3 name_A=Three breaker=A"], s)
    gen3 = s.gen
    assert gen1 < gen2 < gen3
    options, entries = store_history.load(store.MatchStore(ROOT, fs))
    assert options["name_A"] == "Three" and entries == []
    journals = sorted(p for p in fs.files if "/jnl/" in p)
    assert journals == [ROOT + "/jnl/%d.0" % gen2, ROOT + "/jnl/%d.0" % gen3], journals
    assert sorted(p for p in fs.files if "/snap." in p) == [ROOT + "/snap.0", ROOT + "/snap.1"]


def test_corrupt_newest_snapshot_falls_back_to_the_previous_match():
    # The newest snapshot is damaged: the previous match comes back, with its entries, and a flag.
    fs = MemFs()
    s = store.MatchStore(ROOT, fs)
    play(["new game=three_cushion target=3 name_A=Old breaker=A", "point", "point"], s)
    play(["new game=three_cushion target=3 name_A=New breaker=A", "point"], s)
    newest = ROOT + "/snap.%d" % (
        1 if store_snapshot.parse_snapshot(bytes(fs.files[ROOT + "/snap.1"]))[0] == s.gen else 0
    )
    fs.files[newest][40] ^= 1
    s2 = store.MatchStore(ROOT, fs)
    options, entries = store_history.load(s2)
    assert options["name_A"] == "Old" and len(entries) == 2
    assert s2.errors & storenames.ERR_SNAPSHOT
    # A new match after that gets a generation above everything seen.
    assert s2.begin(rules.Match()) is None and s2.gen > s.gen


def test_nothing_usable_starts_clean():
    # Garbage in both slots and in the journal: load gives None and flags it, never raises;
    # the next match starts normally.
    fs = MemFs()
    s = store.MatchStore(ROOT, fs)
    play(["new game=three_cushion target=3 breaker=A", "point"], s)
    for p in list(fs.files):
        fs.files[p] = bytearray(b"\xa5" * len(fs.files[p]))
    s2 = store.MatchStore(ROOT, fs)
    assert store_history.load(s2) is None
    assert s2.errors & storenames.ERR_SNAPSHOT
    assert s2.restore(rules.Match(), 0) is False
    assert s2.append(rules.E_POINT, 0, 0) == storenames.NO_MATCH
    play(["new game=three_cushion target=3 breaker=B", "point"], s2)
    got, _ = reboot(fs)
    assert got["breaker"] == "B" and got["players"]["B"]["score"] == 1
    # An empty flash: nothing, no flags.
    s3 = store.MatchStore(ROOT, MemFs())
    assert store_history.load(s3) is None and s3.errors == 0


def test_torn_tail_is_cut_before_the_next_append():
    # Half a record at the journal's end (a cut in a write): load ignores it, flags it, and
    # cuts it off, so the next record is not lost behind it.
    fs = MemFs()
    s = store.MatchStore(ROOT, fs)
    r = play(["new game=three_cushion target=9 breaker=A", "point", "point"], s)
    path = ROOT + "/jnl/%d.0" % s.gen
    fs.files[path].extend(b"\x02\x00\x00\x00\x01\x05")
    s2 = store.MatchStore(ROOT, fs)
    m2 = rules.Match()
    assert s2.restore(m2, REBOOT_NOW)
    assert s2.errors & storenames.ERR_JOURNAL
    assert len(fs.files[path]) == 48  # the start record and the two points
    assert m2.point(rules.NOBODY, REBOOT_NOW + 5) is None
    assert s2.sync(m2) is None
    got, s3 = reboot(fs)
    assert got["players"]["A"]["score"] == 3 and s3.errors == 0
    assert r.match.n == 2


def test_write_errors_are_reported_not_raised():
    # A full flash: writes return a reason and set ERR_WRITE, scoring goes on; once there is
    # room again, the next sync saves everything that was missed. A new match whose begin
    # failed is no match to the store (its events must not go into the old journal): it is
    # begun again, then synced whole.
    fs = FailingFs()
    s = store.MatchStore(ROOT, fs)
    r = play(["new game=three_cushion target=9 breaker=A", "point"], s)
    fs.failing = True
    assert r.line("point") is None
    assert s.sync(r.match) == storenames.WRITE_FAILED
    assert s.errors & storenames.ERR_WRITE
    assert r.line("point") is None
    assert s.sync(r.match) == storenames.WRITE_FAILED
    assert store_history.save_report(s, "{}") is None
    assert s.begin(r.match) == storenames.WRITE_FAILED
    fs.failing = False
    assert s.sync(r.match) == storenames.NO_MATCH
    assert s.begin(r.match) is None and s.sync(r.match) is None
    got, _ = reboot(fs)
    assert got == state(r.match, r.now) and got["players"]["A"]["score"] == 3


def _rmtree(path):
    for name in os.listdir(path):
        p = path + "/" + name
        if os.stat(p)[0] & 0x4000:
            _rmtree(p)
        else:
            os.remove(p)
    os.rmdir(path)


def test_default_fs_on_a_real_directory():
    # The built-in open and os (what the board uses): a match and a report saved in a temporary
    # directory come back after a reboot.
    base = "/tmp/carom-store-%s" % "".join("%02x" % b for b in os.urandom(4))
    os.mkdir(base)
    try:
        s = store.MatchStore(base + "/store")
        r = play(
            [
                "new game=three_cushion target=2 breaker=A equalizing=off name_A=Kiss",
                "point",
                "miss",
                "point B",
                "undo",
                "miss",
                "point",
                "close",
                "report",
            ],
            s,
        )
        got, s2 = reboot(None, base + "/store")
        assert got == state(r.match, r.now) and got["closed"] and s2.errors == 0
        assert sorted(os.listdir(base + "/store")) == ["history", "jnl", "snap.0"]
        assert json.loads(store_history.read_report(s2, store_history.reports(s2)[0]))["players"]["A"]["name"] == "Kiss"
    finally:
        _rmtree(base)


# ---- history ---------------------------------------------------------------------


def test_history_keeps_the_newest_reports():
    # Seven matches with at most 4 reports kept: the three oldest are dropped, oldest first;
    # a second save of the same match replaces its report.
    fs = MemFs()
    s = store.MatchStore(ROOT, fs, max_reports=4)
    gens = []
    for i in range(7):
        play(["new game=three_cushion target=1 breaker=A equalizing=off", "point", "close"], s)
        assert store_history.save_report(s, '{"match": %d}' % i) == "%06d.json" % s.gen
        gens.append(s.gen)
    names = store_history.reports(s)
    assert names == ["%06d.json" % g for g in gens[3:]], names
    assert json.loads(store_history.read_report(s, names[0])) == {"match": 3}
    assert store_history.save_report(s, b'{"match": "again"}') == names[-1]
    assert store_history.reports(s) == names
    assert store_history.read_report(s, names[-1]) == b'{"match": "again"}'
    raises(ValueError, store_history.read_report, s, "../snap.0")
    raises(OSError, store_history.read_report, s, "000001.json")


def test_history_byte_bound():
    # At most 1000 bytes of reports: old ones go until the new one fits; a lone big one is kept.
    fs = MemFs()
    s = store.MatchStore(ROOT, fs, max_report_bytes=1000)
    for i in range(6):
        play(["new game=three_cushion target=1"], s)
        store_history.save_report(s, "x" * 300)
    sizes = [len(store_history.read_report(s, n)) for n in store_history.reports(s)]
    assert sizes == [300, 300, 300], sizes
    play(["new game=three_cushion target=1"], s)
    store_history.save_report(s, "y" * 1500)
    assert len(store_history.reports(s)) == 1 and len(store_history.read_report(s, store_history.reports(s)[0])) == 1500


# ---- power cuts -------------------------------------------------------------------


def cut_while_saving(fs, root, r, line, k):
    """Save `line` in a store started on fs (a FaultFs), the power cut at its write boundary k."""
    live = store.MatchStore(root, fs)
    store_history.load(live)
    fs.arm(k)
    try:
        persist(live, r, line)
    except PowerCut:
        return
    raise AssertionError("no cut at boundary %d of %r" % (k, line))


def survives(cut, snapshots_fs, again, r, line, before, after, slots, where, root=ROOT):
    """The checks after a power cut while `line` was saved: the flash `cut` restores the
    state before the line or after it, no valid snapshot slot is lost (counted on
    snapshots_fs), the line is entered again unless it is there already (a new match that
    made it need not be begun twice); then again() (the flash at another start) restores
    the state after the line. Returns the store of that last start."""
    got, s2 = reboot(cut, root)
    assert got == before or got == after, where
    assert valid_snapshots(snapshots_fs, root) >= slots, where
    if got != after or not line.startswith("new "):
        assert persist(s2, r, line) is None, where
    got, s3 = reboot(again(), root)
    assert got == after, where + ": after entering it again"
    return s3


def script_saves(s, taken):
    """A referee enters each line of the script, and `s` saves it: yields (the referee, the line,
    the state after the line before, the state after it, what taken() returned just before the
    save), for the caller to cut the power during that save."""
    r = Referee(now=5000)
    before = None
    for line in script_lines():
        if line != "report":
            assert r.line(line) is None, line
        after = state(r.match, r.now)
        got = taken()
        assert persist(s, r, line) is None, line
        yield r, line, before, after, got
        before = after


def power_cut_matrix(model, root=ROOT):
    """Cut the power at every write boundary of every save of the script; returns the cut count.

    After each cut: reboot, the match must be the state after this line or
    after the one before, and no snapshot slot that was valid is lost (the
    previous match stays as the fallback); then the referee enters the line
    again (if it was lost), and another reboot must give the state after this
    line.  After a report's save, every report listed must read back whole.
    """
    clean = FaultFs(MemFs(), model)
    s = store.MatchStore(root, clean)

    def taken():
        files = clean.inner.clone()
        return files, valid_snapshots(files, root), clean.steps, s.seq

    cuts = 0
    for r, line, before, after, (files, slots, steps, seq) in script_saves(s, taken):
        assert s.seq <= seq + 1 or line.startswith("new "), "one record per line: " + line
        for k in range(clean.steps - steps):
            fs = FaultFs(files.clone(), model)
            cut_while_saving(fs, root, r, line, k)
            cuts += 1
            where = "%s model, %r, cut %s" % (model, line, fs.cut)
            after_cut = fs.reboot()
            s3 = survives(after_cut, after_cut, after_cut.reboot, r, line, before, after, slots, where, root)
            for name in store_history.reports(s3):
                json.loads(store_history.read_report(s3, name))
    return cuts


def test_power_cut_at_every_boundary_torn_writes():
    # FAT-like model: a cut can leave part of a write; "wb" empties a file at once.
    cuts = power_cut_matrix(TORN)
    print("torn-write model: %d power cuts" % cuts)
    assert cuts >= 250, cuts


def test_power_cut_at_every_boundary_littlefs_model():
    # LittleFS model: a file's new content lands at close or not at all.
    cuts = power_cut_matrix(LFS, root="")
    print("littlefs model: %d power cuts" % cuts)
    assert cuts >= 120, cuts


def _littlefs():
    if not hasattr(os, "VfsLfs2"):
        raise SkipTest("LittleFS (os.VfsLfs2) is in the MicroPython unix port, not in CPython")


def test_power_cut_real_littlefs():
    # The real LittleFS (os.VfsLfs2) on a RAM flash: the power goes off before every erase and
    # program of every save, and halfway through each; the flash is mounted again as it was.
    _littlefs()
    flash = RamFlash(blocks=24)
    os.VfsLfs2.mkfs(flash)
    s = store.MatchStore(ROOT, VfsFs(os.VfsLfs2(flash)))

    def taken():
        slots = valid_snapshots(VfsFs(os.VfsLfs2(RamFlash(data=bytearray(flash.data)))))
        base = bytes(flash.data)
        flash.log = []
        return slots, base

    cuts = 0
    for r, line, before, after, (slots, base) in script_saves(s, taken):
        log = flash.log
        flash.log = None
        for k in range(len(log)):
            for partial in (False, True):
                data = image(base, log, k, partial)
                fs = VfsFs(os.VfsLfs2(RamFlash(data=data)))
                where = "%r, flash operation %d of %d%s" % (line, k, len(log), " (half done)" if partial else "")
                survives(fs, fs, lambda: VfsFs(os.VfsLfs2(RamFlash(data=data))), r, line, before, after, slots, where)
                cuts += 1
    print("real littlefs: %d power cuts" % cuts)
    assert cuts >= 200, cuts


def test_littlefs_wear_per_point():
    # Measured on the real LittleFS: a saved point costs a metadata commit, not a block copy;
    # the snapshot and every journal segment stay within the 128 bytes kept inline.
    _littlefs()
    flash = RamFlash(blocks=64)
    os.VfsLfs2.mkfs(flash)
    vfs = os.VfsLfs2(flash)
    s = store.MatchStore("", VfsFs(vfs))
    play(["new game=three_cushion target=30 breaker=A"], s)
    erases = flash.total_erases()
    programmed = flash.programmed
    m = rules.Match()
    assert s.restore(m, 0)
    for i in range(120):
        if i % 3 == 2:
            m.miss(rules.NOBODY, i * 1000)
        else:
            m.point(rules.NOBODY, i * 1000)
        assert s.sync(m) is None
    erases = flash.total_erases() - erases
    programmed = flash.programmed - programmed
    print("120 records: %d block erases, %d bytes programmed" % (erases, programmed))
    assert erases <= 20, erases  # one file appended to with open/close would erase ~1 block a record
    for name, kind, _, size in vfs.ilistdir("/jnl"):
        assert size <= 128, (name, size)
    assert vfs.stat("/snap.0")[6] == 128


# ---- running out of memory, a match rolled back, numbers at their limit -----------------


def files_of(fs):
    return dict((p, bytes(d)) for p, d in fs.files.items())


class ShortOfMemory:
    """rules_setup.apply running out of memory past `room` entries (the log of a match read
    back), while this is in force (a with block)."""

    def __init__(self, room=10):
        self.room = room

    def __enter__(self):
        self.real = rules_setup.apply
        room = self.room
        real = self.real

        def apply(m, code, arg, t, arg2=-1):
            if m.n >= room:
                raise MemoryError
            real(m, code, arg, t, arg2)

        rules_setup.apply = apply
        return self

    def __exit__(self, *exc):
        rules_setup.apply = self.real


def test_out_of_memory_while_restoring_changes_nothing_and_holds_the_store():
    # What was tried: a saved match read back by a match that runs out of memory half way,
    # with a torn tail the store would otherwise cut off. Every file stays byte for byte;
    # the store writes nothing (appends, undos, reports) until a new match is begun; the
    # next boot with memory restores the match whole.
    fs = MemFs()
    s = store.MatchStore(ROOT, fs)
    r = play(["new game=straight_rail target=50 breaker=A"] + ["point"] * 20 + ["miss", "point B"], s)
    fs.files[ROOT + "/jnl/%d.2" % s.gen] += b"\x01\x02\x03"  # a torn tail: a repair would write
    before = files_of(fs)
    s2 = store.MatchStore(ROOT, fs)
    m = rules.Match()
    with ShortOfMemory():
        raises(MemoryError, s2.restore, m, REBOOT_NOW)
    assert s2.held and s2.errors & storenames.ERR_MEMORY and not s2.errors & storenames.ERR_JOURNAL
    assert m.n == 0 and m.score == [0, 0]  # no half-read match left behind
    assert s2.append(rules.E_POINT, 0, 1) == storenames.HELD and s2.undo() == storenames.HELD
    assert s2.close() == storenames.HELD and s2.sync(r.match) == storenames.HELD
    assert store_history.save_report(s2, b"{}") is None
    assert files_of(fs) == before
    got, s3 = reboot(fs)
    assert got == state(r.match, r.now) and not s3.held
    # A new match begun by the referee ends the hold (the saved one stays as the previous match).
    s4 = store.MatchStore(ROOT, fs)
    with ShortOfMemory():
        raises(MemoryError, s4.restore, rules.Match(), REBOOT_NOW)
    assert s4.begin(rules.Match(game="three_cushion", target=5)) is None
    assert not s4.held and s4.append(rules.E_LAG, 0, 5) is None


def test_a_deleted_journal_is_a_rollback():
    # The journal of the current match deleted (a format-2 snapshot always has its start record):
    # the match comes back empty, and the store says it went back.
    fs = MemFs()
    s = store.MatchStore(ROOT, fs)
    play(["new game=three_cushion target=9 breaker=A", "point", "point"], s)
    for p in [p for p in fs.files if "/jnl/" in p]:
        del fs.files[p]
    s2 = store.MatchStore(ROOT, fs)
    m = rules.Match()
    assert s2.restore(m, 0) and m.n == 0
    assert s2.errors & storenames.ERR_ROLLBACK


def test_a_deleted_snapshot_with_a_newer_journal_is_a_rollback():
    # The newest match's snapshot deleted: the previous match comes back, and its newer
    # journal (with entries) says the board went back.
    fs = MemFs()
    s = store.MatchStore(ROOT, fs)
    play(["new game=three_cushion target=9 breaker=A name_A=Old", "point"], s)
    play(["new game=three_cushion target=9 breaker=A name_A=New", "point", "point"], s)
    newest = [p for p in fs.files if "/snap." in p and store_snapshot.parse_snapshot(bytes(fs.files[p]))[0] == s.gen][0]
    del fs.files[newest]
    s2 = store.MatchStore(ROOT, fs)
    m = rules.Match()
    assert s2.restore(m, 0) and m.names[rules.A] == "Old"
    assert s2.errors & storenames.ERR_ROLLBACK


def test_a_cut_between_start_record_and_snapshot_is_no_rollback():
    # begin() writes the new match's start record, then its snapshot: a cut between the two
    # leaves a journal with only the start record, which is no sign of a lost match.
    fs = FaultFs(MemFs(), LFS)
    s = store.MatchStore(ROOT, fs)
    play(["new game=three_cushion target=9 breaker=A name_A=Old", "point"], s)
    steps = fs.steps
    play(["new game=three_cushion target=9 breaker=A name_A=New"], store.MatchStore(ROOT, fs.inner.clone()))
    for k in range(40):
        f2 = FaultFs(fs.inner.clone(), LFS)
        live = store.MatchStore(ROOT, f2)
        store_history.load(live)
        f2.arm(k)
        try:
            live.begin(rules.Match(game="three_cushion", target=9, name_A="New"))
        except PowerCut:
            pass
        else:
            break
        s2 = store.MatchStore(ROOT, f2.reboot())
        m = rules.Match()
        assert s2.restore(m, 0)
        assert m.names[rules.A] in ("Old", "New"), k
        assert not s2.errors & storenames.ERR_ROLLBACK, (k, s2.errors)
    assert k > 3 and steps


def test_generation_at_its_limit_numbers_the_reports_again():
    # A history file numbered 2**32 - 1 (damage, or a hand): the next match does not wrap to an
    # older number. The reports are numbered 1, 2, ... in their order (the sent mark follows),
    # the new match takes the next number, and it is the one restored.
    fs = MemFs()
    s = store.MatchStore(ROOT, fs)
    for i in range(3):
        play(["new game=three_cushion target=1 breaker=A equalizing=off", "point", "close"], s)
        assert store_history.save_report(s, b'{"n": %d}' % i) is not None
    store_history.mark_sent(s, store_history.reports(s)[1])
    fs.files[ROOT + "/history/%d.json" % storenames.GEN_MAX] = bytearray(b'{"n": "big"}')
    s2 = store.MatchStore(ROOT, fs)
    assert s2.restore(rules.Match(), 0)
    assert s2.errors & storenames.ERR_ROLLBACK  # a report newer than the restored match
    m = rules.Match(game="straight_rail", target=7, name_A="After")
    assert s2.begin(m) is None
    assert store_history.reports(s2) == ["000001.json", "000002.json", "000003.json", "000004.json"]
    assert [json.loads(store_history.read_report(s2, n))["n"] for n in store_history.reports(s2)] == [0, 1, 2, "big"]
    assert s2.gen == 5 and store_history.sent(s2) == 2 and store_history.unsent(s2) == ["000003.json", "000004.json"]
    assert s2.append(rules.E_LAG, 0, 3) is None
    s3 = store.MatchStore(ROOT, fs)
    m3 = rules.Match()
    assert s3.restore(m3, 0) and m3.names[rules.A] == "After" and m3.n == 1 and s3.errors == 0


def test_reports_written_in_pieces_and_sent_marks_by_number():
    # save_report(write) writes through the file in pieces; sent/unsent compare numbers, so
    # 1000000.json (seven digits) is newer than 999999.json.
    fs = MemFs()
    s = store.MatchStore(ROOT, fs)
    play(["new game=three_cushion target=1 breaker=A equalizing=off", "point"], s)
    assert not s.has_report()

    def write(f):
        for k in range(50):
            f.write(b"%d," % k)

    name = store_history.save_report(s, write)
    assert name == store.report_name(s.gen) and s.has_report()
    assert store_history.read_report(s, name) == b"".join(b"%d," % k for k in range(50))
    assert store_history.report_size(s, name) == len(store_history.read_report(s, name))
    fs.files[ROOT + "/history/999999.json"] = bytearray(b"{}")
    fs.files[ROOT + "/history/1000000.json"] = bytearray(b"{}")
    store_history.mark_sent(s, "999999.json")
    assert store_history.unsent(s) == ["1000000.json"]
    store_history.mark_sent(s, name)  # older than what was sent: the mark stays
    assert store_history.sent(s) == 999999


def test_the_stores_record_layouts_and_its_helpers():
    """The record layouts (storenames.py's) agree; the store's file helpers are store_history.py's."""
    import store_files

    assert store_files.reports is store_history.reports and store_files.read is store_history.read  # named there again
    assert len(storenames.REC) + 1 == len(storenames.RECORD)
    assert store.struct.calcsize(storenames.RECORD) == storenames.REC_SIZE

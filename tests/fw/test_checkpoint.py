"""The match's checkpoint on the flash (firmware/store_checkpoint.py): a long match comes back after a
power cut from the state before its newest chunks, replaying at most two chunks' entries.
Runs under pytest and on the MicroPython unix port.

What is tried: a 3,000-entry match restored (at most two chunks replayed: a restore starts
from the chunk before the checkpoint's; every entry and the state the same, then 300 undos
alike on both); the newest checkpoint damaged, cut short, or both
slots damaged (the other slot, or the whole journal); the journal undone below the newest
checkpoint (stale: the older one, or the whole journal); a new match (no checkpoint of the
old one is left); the power cut at every write boundary of the sync that writes a
checkpoint, on both models of what a cut leaves (the match back as before the entry or
with it, never otherwise); a match with formats (none written).
"""

import rules_setup
import rules
import store
from faultfs import LFS, TORN, FaultFs, MemFs, PowerCut
from test_rules_log import START, play, state, windowed_match
from ticks import ticks_add


def restored(fs, now):
    """(the match read back from fs, how many entries the restore played)."""
    played = [0]
    apply = rules_setup.apply

    def counting(m, code, arg, t, arg2=-1):
        played[0] += 1
        apply(m, code, arg, t, arg2)

    rules_setup.apply = counting
    try:
        m2 = rules.Match()
        assert store.MatchStore("/w", fs).restore(m2, now)
    finally:
        rules_setup.apply = apply
    return m2, played[0]


def slots(fs):
    return sorted(p for p in fs.files if "/ckpt." in p)


def test_a_long_match_comes_back_from_its_checkpoint_replaying_at_most_a_chunk():
    m, st, fs, now = windowed_match(3000)
    assert slots(fs) == ["/w/ckpt.0", "/w/ckpt.1"]
    m2, played = restored(fs, now)
    assert played <= 2 * rules.CHUNK, played  # the newest chunk and the one before it: not the 3,000
    assert m2.n == m.n
    for i in range(m.n):
        assert m2.entry(i) == m.entry(i), i
    assert state(m2, now) == state(m, now)
    for _ in range(300):  # back over two checkpoints: the states of the old chunks came with it
        assert m2.undo(now) is None and m.undo(now) is None
    assert state(m2, now) == state(m, now)


def test_a_damaged_or_short_checkpoint_is_not_taken():
    m, st, fs, now = windowed_match(1800)
    newest = "/w/ckpt.%d" % ((m.n // rules.CHUNK) & 1)
    good = bytearray(fs.files[newest])
    fs.files[newest][len(good) // 2] ^= 0x40  # a bit flipped: its CRC fails
    m2, played = restored(fs, now)
    assert state(m2, now) == state(m, now) and played <= 3 * rules.CHUNK, played  # the other slot
    fs.files[newest] = fs.files[newest][:-9]  # cut short: its size is not its counts'
    m2, played = restored(fs, now)
    assert state(m2, now) == state(m, now) and played <= 3 * rules.CHUNK
    for path in slots(fs):  # both damaged: the whole journal, as without a checkpoint
        fs.files[path][30] ^= 1
    m2, played = restored(fs, now)
    assert state(m2, now) == state(m, now) and played >= m.n


def test_a_checkpoint_the_journal_undid_is_stale():
    m, st, fs, now = windowed_match(1800)
    newest = m.n // rules.CHUNK * rules.CHUNK
    while m.n >= newest - 40:  # below the newest checkpoint's chunk: its state of it is stale
        assert m.undo(now) is None
        assert st.sync(m) is None
    m2, played = restored(fs, now)
    assert state(m2, now) == state(m, now) and played <= 3 * rules.CHUNK  # from the chunk before it
    for i in range(m.n):
        assert m2.entry(i) == m.entry(i), i
    while m.n >= newest - 2 * rules.CHUNK - 5:  # below both: the whole journal
        assert m.undo(now) is None
        assert st.sync(m) is None
    m2, played = restored(fs, now)
    assert state(m2, now) == state(m, now) and played > m.n  # every entry, and the undone ones


def test_a_new_match_leaves_no_checkpoint_of_the_old_one():
    m, st, fs, now = windowed_match(700)
    assert slots(fs)
    m.new(now, **m.options())
    assert st.begin(m) is None
    assert slots(fs) == []
    assert m.point(rules.NOBODY, now) is None and st.sync(m) is None
    m2, played = restored(fs, now)
    assert m2.n == 1 and played == 1


def test_a_match_with_formats_writes_no_checkpoint():
    fs = MemFs()
    st = store.MatchStore("/w", fs)
    m = rules.Match()
    m.new(START, game="straight_rail", target=9999, breaker=rules.A, sets=2)
    assert st.begin(m) is None
    now = START
    for i in range(3 * rules.CHUNK):
        now = play(m, i, now)
        assert st.sync(m) is None
    assert slots(fs) == []


def _near_a_chunk(model):
    """A saved match one entry short of a chunk, on a MemFs: (match, its files, now)."""
    m, st, fs, now = windowed_match(3 * rules.CHUNK - 3)
    while m.n % rules.CHUNK:
        now = ticks_add(now, 1000)
        assert m.point(rules.NOBODY, now) is None
        assert st.sync(m) is None
    return m, fs, now


def test_a_power_cut_while_a_checkpoint_is_written_loses_nothing():
    for model in (TORN, LFS):
        m, base, now = _near_a_chunk(model)
        before = state(m, now)
        now = ticks_add(now, 1000)
        assert m.point(rules.NOBODY, now) is None  # the chunk's first entry: its sync writes a checkpoint
        after = state(m, now)
        cuts = 0
        k = 0
        while True:
            fs = FaultFs(base.clone(), model)
            st = store.MatchStore("/w", fs)
            m2 = rules.Match()
            assert st.restore(m2, now)
            fs.arm(k)
            try:
                st.sync(m)
            except PowerCut:
                cuts += 1
                back = rules.Match()
                assert store.MatchStore("/w", fs.reboot()).restore(back, now), (model, k)
                got = state(back, now)
                assert got == after or got == before, (model, k)
                k += 1
                continue
            break  # the sync ran whole: every boundary of it was tried
        assert cuts >= 6, cuts  # the journal record, and the checkpoint's file: open, write, rename

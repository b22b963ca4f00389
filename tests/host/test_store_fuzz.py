"""Damaged store files: load() never raises and gives None or a consistent prefix (hypothesis).

What is tried, on a store holding two matches (the previous one, 13
records, and the current one, 22 records over three journal segments (each
begins with its start record), with
undo records and a close; between them every kind of entry, the rarer events'
too: lag tie, review, frozen and the choice, a jump's balls, calls with
anchor and out, abandon): a bit flip at every bit of every file, truncation
of every file at every length, and random combinations of bit flips,
truncations, garbage, appended garbage, swapped and duplicated records,
files swapped, copied over each other or deleted.  A load must give None,
or the options of one of the two matches with its entries after some
number of its records (undo records applied); untouched files must load in
full.  After a load, one more entry is appended and a fresh load must give
the same prefix plus that entry (the damaged tail was cut off first).
"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host_tools import firmware_path

firmware_path()
import rules  # noqa: E402
import store_history  # noqa: E402
import store  # noqa: E402
import storenames  # noqa: E402
from faultfs import MemFs  # noqa: E402
from referee import Referee  # noqa: E402

ROOT = "/sb"


def _build():
    """The store's files, and for each match: (options, [entries after j records for each j])."""
    fs = MemFs()
    s = store.MatchStore(ROOT, fs)
    matches = []
    scripts = [  # every kind of entry of the rarer events, and a time-out's length in the snapshot
        [
            "new game=three_cushion target=20 breaker=A name_A=Prev timeout_s=25",
            "point",
            "foul jumped B red",
            "frozen",
            "frozen_choice start",
            "undo",
            "frozen_choice masse",
            "review A",
            "point",
            "foul B jumped A",
            "undo",
            "undo",
            "miss",
        ],
        [
            'new game=straight_rail target=50 name_A=Cur club_B="Szolnok"',
            "lag_tie",
            "lag B",
            "choose B break",
            "point",
            "call entre anchor",
            "point",
            "undo",
            "point",
            "call dedans",
            "miss",
            "review A",
            "point",
            "frozen",
            "miss",
            "undo",
            "call out",
            "point",
            "miss",
            "point",
            "abandon A",
            "close",
        ],
    ]
    for lines in scripts:
        r = Referee(now=1000)
        states = []
        for line in lines:
            assert r.line(line) is None, line
            if line.startswith("new "):
                assert s.begin(r.match) is None
                states.append([])  # after no record
                states.append([])  # after the start record (record 0 of every match)
                continue
            assert s.sync(r.match) is None
            entries = [r.match.entry(i) for i in range(r.match.n)]
            assert len(states) == s.seq, line  # one record per line
            states.append(entries)
        options = store_history.load(store.MatchStore(ROOT, fs))[0]
        matches.append((options, states))
    return fs, matches


FS, MATCHES = _build()
FILES = sorted(FS.files)
assert len([p for p in FILES if "/jnl/" in p]) == 2 + 3, FILES
CODES = set(code for _, states in MATCHES for code, _, _ in states[-1])
assert {
    rules.E_LAG_TIE,
    rules.E_ABANDON,
    rules.E_FROZEN,
    rules.E_FROZEN_CHOICE,
    rules.E_JUMPED,
    rules.E_REVIEW,
    rules.E_CALL,
} <= CODES, CODES
assert MATCHES[0][0]["timeout_s"] == 25


def _check(fs, untouched=False):
    """load() on fs: None or a consistent prefix; then append one entry and load again."""
    s = store.MatchStore(ROOT, fs)
    got = store_history.load(s)
    if got is None:
        assert not untouched
        return None
    options, entries = got
    for opts, states in MATCHES:
        if options == opts:
            assert entries in states, entries
            break
    else:
        raise AssertionError("options of no match: %r" % options)
    if untouched:
        assert (options, entries) == (MATCHES[1][0], MATCHES[1][1][-1])
    assert s.append(rules.E_POINT, 0, 999999) is None
    again = store_history.load(store.MatchStore(ROOT, fs))
    assert again == (options, entries + [(rules.E_POINT, 0, 999999)]), (entries, again)
    return got


def test_untouched_files_load_in_full():
    _check(FS.clone(), untouched=True)


def test_every_single_bit_flip():
    # CRC32 catches every single-bit error: the damaged record or snapshot is never used.
    for path in FILES:
        for bit in range(len(FS.files[path]) * 8):
            fs = FS.clone()
            fs.files[path][bit // 8] ^= 1 << (bit % 8)
            got = _check(fs)
            if "/snap." in path:
                # the other slot is intact: one of the two matches comes back in full
                assert got is not None and got[1] in (MATCHES[0][1][-1], MATCHES[1][1][-1])


def test_truncation_at_every_length():
    for path in FILES:
        for n in range(len(FS.files[path])):
            fs = FS.clone()
            del fs.files[path][n:]
            _check(fs)


MUTATIONS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "flip",
                "truncate",
                "garbage",
                "append",
                "swap_records",
                "dup_record",
                "swap_files",
                "copy_file",
                "delete",
                "zero",
            ]
        ),
        st.sampled_from(FILES),
        st.sampled_from(FILES),
        st.integers(0, 4095),
        st.integers(0, 4095),
        st.binary(max_size=200),
    ),
    min_size=1,
    max_size=4,
)


def _apply(fs, mutation):
    kind, path, other, i, j, junk = mutation
    data = fs.files.get(path)
    if data is None:
        return
    n = len(data)
    if kind == "flip" and n:
        data[i % n] ^= 1 << (j % 8)
    elif kind == "truncate":
        del data[i % (n + 1) :]
    elif kind == "garbage":
        fs.files[path] = bytearray(junk)
    elif kind == "append":
        data.extend(junk)
    elif kind == "zero" and n:
        data[i % n] = 0
    elif kind in ("swap_records", "dup_record") and n >= 16:
        a = (i % (n // 16)) * 16
        b = (j % (n // 16)) * 16
        ra, rb = bytes(data[a : a + 16]), bytes(data[b : b + 16])
        if kind == "swap_records":
            data[a : a + 16], data[b : b + 16] = rb, ra
        else:
            data[b:b] = ra
    elif kind == "swap_files" and other in fs.files:
        fs.files[path], fs.files[other] = fs.files[other], data
    elif kind == "copy_file" and other != path:
        fs.files[other] = bytearray(data)
    elif kind == "delete":
        del fs.files[path]


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MUTATIONS)
def test_random_damage(mutations):
    fs = FS.clone()
    for mutation in mutations:
        _apply(fs, mutation)
    _check(fs)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(FILES), st.binary(max_size=300)), min_size=1, max_size=len(FILES)))
def test_random_garbage_files(replacements):
    # Whole files replaced by random bytes (a 128-byte one may even look like a snapshot).
    fs = FS.clone()
    for path, junk in replacements:
        fs.files[path] = bytearray(junk)
    _check(fs)


def test_records_from_another_match_are_refused():
    # The previous match's journal copied over the current one's: the generation-seeded CRC refuses
    # it, so the current match loads with no entries rather than with the other match's.
    fs = FS.clone()
    prev, cur = MATCHES
    prev_gen = int(FILES[FILES.index(ROOT + "/jnl/1.0")].split("/")[-1].split(".")[0])
    assert prev_gen == 1
    for seg in range(3):
        fs.files.pop(ROOT + "/jnl/2.%d" % seg, None)
    fs.files[ROOT + "/jnl/2.0"] = bytearray(FS.files[ROOT + "/jnl/1.0"])
    s = store.MatchStore(ROOT, fs)
    options, entries = store_history.load(s)
    assert options == cur[0] and entries == [] and s.errors & storenames.ERR_JOURNAL

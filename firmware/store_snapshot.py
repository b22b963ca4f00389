"""The match store's snapshots and journals read back, begun and repaired.

Part of the store (store.py: the file layout); loaded by MatchStore.restore,
begin and the repair after a failed write, and dropped again, so a running
board keeps only the writing half in RAM. The functions work on a MatchStore
(`st`) and its internals.

snap.0, snap.1 -- two snapshot slots, 128 bytes each (LittleFS keeps a file
    of at most 128 bytes inline in its metadata).  The newer valid one is the
    match; the other is the previous match, the fallback when the newer one
    is unreadable.  Written as snap.tmp, then renamed over the older slot.
      0  4  magic b"CRMS"
      4  1  format version: 4 (a handicap and the formats); 3, 2 and 1 are read too
            (2 and on: the journal starts with a start record)
      5  1  game (index into rules.GAMES)
      6  1  flags: 1 equalizing, 2 draw allowed, 4 breaker plays the white,
            8 shoot-out, 16 the formats (sets, shoot-out or warm-up: formats.py)
      7  1  breaker: 0 A, 1 B, 255 decided by the lag
      8  4  generation (u32): one per match, always growing
     12  2  target (A's)      14  2  innings limit (0 none)
     16  2  shot clock, s     18  2  break, s
     20  1  time-outs per player
     21  2  a time-out's extra seconds (0: one more shot period; formats 3, 4)
     23  2  B's target        25  1  sets to win (0 none)
     26  2  the deciding set's target (0: the set target)
     28  2  warm-up, s
     30  4  byte lengths of name A, club A, name B, club B
     34 90  those four texts, UTF-8, one after the other; when they do not
            fit, the longest is cut first, on a character boundary
            (formats 1 and 2: the lengths at 21, the texts at 25, 99 bytes;
            format 3: the lengths at 23, the texts at 27, 97 bytes)
    124  4  CRC32 of bytes 0..123
"""

import struct

import rules_setup
import matchwords
import rules
import store
import store_files
from store_journal import records
from matchnames import CHUNK
from store import crc32, report_name
from storenames import (
    ERR_JOURNAL,
    ERR_MEMORY,
    ERR_READ,
    ERR_RESTORE,
    ERR_ROLLBACK,
    ERR_SNAPSHOT,
    ERR_WRITE,
    GEN_MAX,
    K_ARG2,
    K_CLOSE,
    K_ENTRY,
    K_START,
    K_UNDO,
    REC_SIZE,
    SEG_RECORDS,
    SNAP_SIZE,
    WRITE_FAILED,
)

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


FORMAT = const(4)
_MAGIC = b"CRMS"
_HEAD = "<4sBBBBIHHHHB"  # every format's first 21 bytes
_TAIL = "<HHBHH4B"  # format 4's, from byte 21
_TEXT_AT = const(34)
_TEXT_MAX = const(90)
_OLD_TAILS = ("<4B", "<4B", "<H4B")  # formats 1, 2 (lengths at 21, texts at 25) and 3 (texts at 27)
_CRC_AT = const(124)
_NO_BREAKER = const(255)


def _forget(st, gen):
    """The store holds match `gen` (0: none), nothing of it read or written yet."""
    st.gen = gen
    st.seq = 0
    st.count = 0
    st.closed = False
    st._broken = False
    st._seg = -1
    st._starts = []


def fit_texts(texts, budget=_TEXT_MAX):
    """The texts as UTF-8, the longest cut by whole characters until all fit in budget bytes."""
    out = [bytes(t, "utf-8") for t in texts]
    total = 0
    for b in out:
        total += len(b)
    while total > budget:
        i = 0
        for j in range(1, len(out)):
            if len(out[j]) > len(out[i]):
                i = j
        b = out[i]
        end = len(b) - 1
        while end > 0 and b[end] & 0xC0 == 0x80:  # continuation bytes of the last character
            end -= 1
        total -= len(b) - end
        out[i] = b[:end]
    return out


def pack_snapshot(gen, m):
    """The 128-byte snapshot of match m's options, for generation gen."""
    texts = fit_texts((m.names[rules.A], m.clubs[rules.A], m.names[rules.B], m.clubs[rules.B]))
    fmt = m.fmt is not None
    flags = (
        (1 if m.equalizing else 0)
        | (2 if m.draw_allowed else 0)
        | (4 if m.white_breaker else 0)
        | (8 if fmt and m.shootout else 0)
        | (16 if fmt else 0)
    )
    breaker = _NO_BREAKER if m.breaker0 == rules.NOBODY else m.breaker0
    buf = bytearray(SNAP_SIZE)
    struct.pack_into(
        _HEAD,
        buf,
        0,
        _MAGIC,
        FORMAT,
        m.game,
        flags,
        breaker,
        gen,
        m.targets0[0],
        m.innings_limit,
        m.shot_ms // 1000,
        m.break_ms // 1000,
        m.timeouts0,
    )
    struct.pack_into(
        _TAIL,
        buf,
        21,
        m.timeout_s or 0,
        m.targets0[1],
        m.sets_to_win if fmt else 0,
        m.deciding_target if fmt else 0,
        m.warmup_ms // 1000 if fmt else 0,
        len(texts[0]),
        len(texts[1]),
        len(texts[2]),
        len(texts[3]),
    )
    at = _TEXT_AT
    for t in texts:
        buf[at : at + len(t)] = t
        at += len(t)
    struct.pack_into("<I", buf, _CRC_AT, crc32(memoryview(buf)[:_CRC_AT]))
    return buf


def parse_snapshot(data):
    """(generation, options for Match.new) from snapshot bytes, or None when they are not valid."""
    if data is None or len(data) != SNAP_SIZE:
        return None
    if crc32(memoryview(data)[:_CRC_AT]) != struct.unpack_from("<I", data, _CRC_AT)[0]:
        return None
    magic, version, game, flags, breaker, gen, target, limit, shot, brk, timeouts = struct.unpack_from(_HEAD, data, 0)
    if magic != _MAGIC or not 1 <= version <= FORMAT or game >= len(matchwords.GAMES):
        return None
    timeout_s = target_b = sets = deciding = warmup = 0
    if version == FORMAT:
        timeout_s, target_b, sets, deciding, warmup, l0, l1, l2, l3 = struct.unpack_from(_TAIL, data, 21)
        at = _TEXT_AT
    elif version == 3:
        timeout_s, l0, l1, l2, l3 = struct.unpack_from(_OLD_TAILS[2], data, 21)
        at = 27
    else:
        l0, l1, l2, l3 = struct.unpack_from(_OLD_TAILS[0], data, 21)
        at = 25
    if breaker != rules.A and breaker != rules.B and breaker != _NO_BREAKER:
        return None
    if l0 + l1 + l2 + l3 > _CRC_AT - at:
        return None
    texts = []
    for n in (l0, l1, l2, l3):
        try:
            texts.append(str(bytes(data[at : at + n]), "utf-8"))
        except Exception:  # not UTF-8 (CPython checks; MicroPython may not)
            return None
        at += n
    options = {
        "game": matchwords.GAMES[game],
        "target": target,
        "innings_limit": limit,
        "equalizing": bool(flags & 1),
        "draw": bool(flags & 2),
        "breaker_ball": "white" if flags & 4 else "spot",
        "breaker": None if breaker == _NO_BREAKER else breaker,
        "shot_clock": shot,
        "break_s": brk,
        "timeouts": timeouts,
        "timeout_s": timeout_s or None,
        "name_A": texts[0],
        "club_A": texts[1],
        "name_B": texts[2],
        "club_B": texts[3],
    }
    if target_b and target_b != target:
        options["target_A"] = target
        options["target_B"] = target_b
    if flags & 16:  # the formats (formats.py)
        options["sets"] = sets
        options["deciding_target"] = deciding or None
        options["shootout"] = bool(flags & 8)
        options["warmup_s"] = warmup
    return gen, options


def restore(st, match, now):
    """Put the saved match into `match` (match.new, then its entries played as they are
    read); True if there was one. Raises MemoryError, having changed nothing on the flash,
    when there is not enough memory to read it: the store is then `held` (writes nothing).

    The entries were checked when they were played, so they are played unchecked
    (_Player: only a window of the log stays in RAM, as while the match was played; an
    undo record takes the newest one back); match time then resumes at the newest entry's
    time (Match.resume_at), as after an undo. A long match starts from its checkpoint
    (store_checkpoint.py) and plays only the entries after it.
    """
    st.errors = 0
    _forget(st, 0)
    st.held = False
    try:
        best = newest(st)
        if best is None:
            look_for_newer(st, 0)
            return False
        gen, options, version = best
        _forget(st, gen)
        if match.new(now, **options):
            st.errors |= ERR_RESTORE
            _forget(st, 0)
            return False
        for head in _checkpoints(st, match):
            # The newest whole checkpoint the journal after it does not undo: the journal
            # is read from its chunk on (store_checkpoint.py); else the other, else all of it.
            import store_checkpoint

            if store_checkpoint.load(st, match, head):
                at = head[0] - 1  # the match is put there (rules_state.from_checkpoint)
                try:
                    ends = scan(st, _Player(match, st, at * CHUNK), version, st._starts[at])
                    break
                except _Stale:
                    pass
            match.new(now, **options)
            _forget(st, gen)
        else:
            ends = scan(st, _Player(match, st), version)
        match.low = match.n
        match.resume_at(now)
        match.loader = st.load_chunk  # old chunks of the log may go: the journal has them
    except MemoryError:
        st.errors |= ERR_MEMORY
        _forget(st, 0)
        st.held = True
        match.new(now, **match.options())  # no half-read match left behind
        raise
    except Exception:  # never fatal: what was read is kept, the rest reported
        st.errors |= ERR_READ
        _forget(st, 0)
        return False
    look_for_newer(st, gen)
    if ends is not None:  # a torn or corrupt tail, or a lost segment: cut it off now
        cut_tail(st, *ends)
    if st.closed:
        import rules_events  # only for a closed match: its names stay out of RAM otherwise

        rules_events.close(match, now)
    return True


def _checkpoints(st, match):
    """The checkpoints to try (store_checkpoint.heads), or none: a match with formats, or no slot
    on the flash (store_checkpoint.py is then not loaded: a start without a long match)."""
    if match.fmt is not None or (
        st._size(store_files.ckpt_path(st, 0)) < 0 and st._size(store_files.ckpt_path(st, 1)) < 0
    ):
        return ()
    import store_checkpoint

    return store_checkpoint.heads(st)


def newest(st):
    best = None
    for got in slots(st):
        if got is not None and (best is None or got[0] > best[0]):
            best = got
    return best


def look_for_newer(st, gen):
    """A newer match than the one restored left a journal with entries, or a report: the
    match went back (its snapshot was lost). Nothing is changed; ERR_ROLLBACK says so."""
    for g, seg, name in journal_files(st):
        if g > gen and (seg > 0 or st._size(st._jdir + "/" + name) > REC_SIZE):
            st.errors |= ERR_ROLLBACK
            return
    for name in store_files.reports(st):
        if store_files.report_number(name) > gen:
            st.errors |= ERR_ROLLBACK
            return


def scan(st, match, version, first=0):
    """Read this generation's journal into `match` (a _Player, or a _Counter), from record
    `first` on (a checkpoint's chunk: the records before it are skipped, the one at it must
    be an entry, else _Stale); returns None, or (segment, its good bytes, present) of a tail
    to cut. Writes nothing."""
    gen = st.gen
    closed = False
    seg = first // SEG_RECORDS
    seq = seg * SEG_RECORDS
    arg2 = -1
    dangling = None  # the newest second argument: (its seq, its segment, the good bytes before it)
    full = SEG_RECORDS * REC_SIZE
    while True:
        data = store_files.read(st, st._segment_path(gen, seg), full + 1)
        if data is None:
            data = b""
        good = 0
        for kind, code, arg, t in records(data, seq, gen):
            if seq < first:  # before the checkpoint's chunk: only an extension's B target counts
                arg2 = arg if kind == K_ARG2 else -1
                if kind == K_ARG2:
                    dangling = (seq, seg, data[: good * REC_SIZE])
            elif first and seq == first and kind != K_ENTRY:
                raise _Stale  # not the chunk's first entry: the checkpoint is not this journal's
            elif kind == K_ENTRY:
                if not match.n % CHUNK:
                    st._starts_at(match.n // CHUNK, seq)
                match.push(code, arg, t, arg2)
                arg2 = -1
                closed = False
            elif kind == K_ARG2:
                arg2 = arg
                dangling = (seq, seg, data[: good * REC_SIZE])
            elif kind == K_UNDO:
                match.pop()
                arg2 = -1  # a second argument is the next record's, an entry's, or none's
                closed = False
            elif kind == K_CLOSE:
                arg2 = -1
                closed = True
            elif kind != K_START or seq:
                break
            seq += 1
            good += 1
        if good == SEG_RECORDS and len(data) == full:  # a full segment: the journal goes on
            seg += 1
            continue
        _flag_early_end(st, version, first, seq)
        tail = _torn_tail(st, seg, data, good)
        if dangling is not None and dangling[0] == seq - 1:  # no entry after it (a power cut
            tail = (dangling[1], dangling[2], True)  # between an extension's B target and its
            seq -= 1  # entry): cut it, or the next extension played would take it as its own
        break
    st.seq = seq
    st.count = match.n
    st.closed = closed
    return tail


def _flag_early_end(st, version, first, seq):
    """The journal ends at record seq: before the checkpoint's chunk (_Stale), or before its
    start record (the journal is gone: flagged)."""
    if first and seq <= first:  # the journal ends before the checkpoint's chunk
        raise _Stale
    if seq == 0 and version >= 2:  # not even the start record: the journal is gone
        st.errors |= ERR_ROLLBACK | ERR_JOURNAL


def _torn_tail(st, seg, data, good):
    """The journal ends in segment seg (or before it, when it is missing), after `good`
    records of its `data`: the rest of it, and any later segment (left by a lost one), is a
    tail to drop: (seg, the good bytes, present), or None when there is none."""
    if len(data) != good * REC_SIZE or later_segments(st, seg):
        st.errors |= ERR_JOURNAL
        return (seg, data[: good * REC_SIZE], len(data) > 0)
    return None


def later_segments(st, seg):
    for g, s, _ in journal_files(st):
        if g == st.gen and s > seg:
            return True
    return False


def cut_tail(st, seg, keep, present):
    """Make the journal end after `keep` (the good records of segment seg)."""
    try:
        gen = st.gen
        remove_journals(st, lambda g, s: g == gen and s > seg)
        path = st._segment_path(st.gen, seg)
        if keep:
            store.replace(path, keep, st.fs, st._jdir + "/tmp")
        elif present:
            st.fs.remove(path)
        st._broken = False
    except OSError:
        st.errors |= ERR_WRITE
        st._broken = True


def rescan(st):
    """Where the journal really ends after a failed write: count its records, cut a torn tail."""
    scratch = _Counter()
    ends = scan(st, scratch, 1)
    st.count = scratch.n
    if ends is not None:
        cut_tail(st, *ends)


def begin(st, match):
    """Save a new match (its options; its entries follow with sync or append)."""
    try:
        store_files.mkdir(st, st.root)
        store_files.mkdir(st, st._jdir)
        # The new snapshot goes over the older (or unreadable) slot; the other one, the
        # current match, stays as the previous match.
        both = slots(st)
        if both[0] is None:
            target = 0
        elif both[1] is None:
            target = 1
        else:
            target = 0 if both[0][0] < both[1][0] else 1
        other = both[1 - target]
        top = st.gen
        if other is not None:
            top = max(top, other[0])
        for g, _, _ in journal_files(st):
            top = max(top, g)
        for name in store_files.reports(st):
            top = max(top, store_files.report_number(name))
        if top >= GEN_MAX:  # the numbers ran out: number the reports again, start over above them
            top = renumber(st)
            other = None
        gen = top + 1
        if st.gen == top and st.seq <= 1 and not st.closed and not st._broken and not st.has_report():
            # Nothing was played in the current match (only its start record, no report: a boot or a
            # new match before any press): the new one takes its number and its slot, so the
            # numbers count matches, not boots. The previous match stays the other.
            for k in (0, 1):
                if both[k] is not None and both[k][0] == top:
                    target, other, gen = k, both[1 - k], top
        snap = pack_snapshot(gen, match)
        # The start record first: a snapshot is never without it, so a journal that is
        # missing under a snapshot was lost (a cut between the two leaves only the start
        # record of a match that never was, which is not taken for one).
        store_files.remove_checkpoints(st)  # the current match's: never to be taken for the new one's
        _forget(st, gen)
        match.loader = st.load_chunk  # old chunks of the log may go: the journal has them
        st.held = False
        st._seg = 0
        st._seg_path = st._segment_path(gen, 0)
        store.replace(st._seg_path, st._record(0, K_START, 0, 0, 0), st.fs, st._jdir + "/tmp")
        st.seq = 1
        store.replace(store_files.snap_path(st, target), snap, st.fs, st.root + "/snap.tmp")
    except OSError:
        st.errors |= ERR_WRITE
        _forget(st, 0)
        return WRITE_FAILED
    # The new match is in place; drop the journals of all but it and the previous match.
    keep = other[0] if other is not None else -1
    remove_journals(st, lambda g, s: g != keep and g != gen)
    return None


def renumber(st):
    """Reports numbered 1, 2, ... in their order; every other match's files go (the new
    match replaces the current one; its report, if it has one, is kept). Returns the top."""
    names = store_files.reports(st)
    sent = store_files.sent(st)
    new_sent = 0
    for i, name in enumerate(names):
        if store_files.report_number(name) <= sent:
            new_sent = i + 1
        if name != report_name(i + 1):
            store.rename(st._hdir + "/" + name, st._hdir + "/" + report_name(i + 1), st.fs)
    if sent:
        store_files.write_sent(st, new_sent)
    remove_journals(st, lambda g, s: True)
    store_files.remove_checkpoints(st)
    for slot in (0, 1):
        try:
            st.fs.remove(store_files.snap_path(st, slot))
        except OSError:
            pass
    return len(names)


def slots(st):
    """[(generation, options, format) or None] for slot 0 and slot 1."""
    out = []
    for slot in (0, 1):
        data = store_files.read(st, store_files.snap_path(st, slot), SNAP_SIZE + 1)
        got = parse_snapshot(data)
        if got is None:
            if data is not None:
                st.errors |= ERR_SNAPSHOT
            out.append(None)
        else:
            out.append((got[0], got[1], data[4]))
    return out


def journal_files(st):
    """(generation, segment, name) of each file in jnl/, one at a time (a long match's
    journal has hundreds: never a list of them all)."""
    for name in store_files.names(st, st._jdir):
        gen, dot, seg = name.partition(".")
        if dot and gen.isdigit() and seg.isdigit():
            yield int(gen), int(seg), name


def remove_journals(st, drop):
    """Remove the journal files for which drop(generation, segment) is true, a few names at
    a time (a folder is not changed while it is read, and no list of all is made)."""
    while True:
        batch = []
        for g, s, name in journal_files(st):
            if len(batch) < 16 and drop(g, s):
                batch.append(name)
        removed = 0
        for name in batch:
            try:
                st.fs.remove(st._jdir + "/" + name)
                removed += 1
            except OSError:
                pass
        if len(batch) < 16 or not removed:
            return


class _Player:
    """A match taking a journal's entries as scan() hands them and playing each as it comes
    (rules_setup.apply; an undo record takes the newest entry back and replays from its
    chunk's checkpoint), with only a window of its log in RAM: the entries are on the flash
    already, so the old chunks go as the match grows (Match.reserve) and one an undo needs
    is read back from the journal. A long match then needs no more memory to come back
    than it needed to be played. From a checkpoint, the entries before `floor` are the
    checkpoint's: an undo record that would take one back says it is stale (_Stale)."""

    def __init__(self, m, st, floor=0):
        self.m = m
        self.st = st
        self.floor = floor
        m.loader = self._load

    @property
    def n(self):
        return self.m.n

    def _load(self, k, put):
        # Chunk k as the whole journal has it. While the journal is being read the log may
        # stand past the journal's final length (later undo records take entries back), and
        # an entry may differ from the final one (taken back and played anew later): a
        # state made from such an entry is made again when the journal takes it back, as
        # every checkpoint after it is. So the read-back is not held to the log's length.
        self.st.load_chunk(k, put)
        return self.m.n

    def push(self, code, arg, t, arg2=-1):
        m = self.m
        rules_setup.apply(m, code, arg, t, arg2)  # MemoryError: no room
        m.low = m.n  # on the flash already
        if not m.n & 31:
            m.reserve()  # the next chunk made ahead, the old ones let go

    def pop(self):
        if self.floor and self.m.n <= self.floor:
            raise _Stale
        rules_setup.take_back(self.m)  # MemoryError: an old chunk could not be read back


class _Stale(Exception):
    """A checkpoint the journal does not bear out: the journal went back below its chunk
    after it was written, or does not reach it."""


class _Counter:
    """Stands in for a match when only the number of live entries is wanted."""

    def __init__(self):
        self.n = 0

    def push(self, code, arg, t, arg2=-1):
        self.n += 1

    def pop(self):
        if self.n:
            self.n -= 1

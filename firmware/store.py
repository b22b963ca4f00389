"""The match store: a match comes back exactly as it was after a power cut.

Runs on MicroPython (ESP32 LittleFS, unix port) and CPython.  Files under
`root` (file names and byte layouts; all numbers little-endian):

snap.0, snap.1 -- two snapshot slots, 128 bytes each (LittleFS keeps a file
    of at most 128 bytes inline in its metadata).  The newer valid one is the
    match; the other is the previous match, the fallback when the newer one
    is unreadable.  Written as snap.tmp, then renamed over the older slot.
      0  4  magic b"CRMS"
      4  1  format version: 2 (its journal starts with a start record); 1 is read too
      5  1  game (index into rules.GAMES)
      6  1  flags: 1 equalizing, 2 draw allowed, 4 breaker plays the white
      7  1  breaker: 0 A, 1 B, 255 decided by the lag
      8  4  generation (u32): one per match, always growing
     12  2  target            14  2  innings limit (0 none)
     16  2  shot clock, s     18  2  break, s
     20  1  time-outs per player
     21  4  byte lengths of name A, club A, name B, club B
     25 99  those four texts, UTF-8, one after the other; when they do not
            fit, the longest is cut first, on a character boundary
    124  4  CRC32 of bytes 0..123

jnl/<generation>.<segment> -- the append-only journal of that match, 16-byte
    records, 8 records per segment file (segment = seq // 8), so every
    segment stays inline too: appending one then costs a metadata commit,
    not a 4 KiB block copy.  An undo or the close is a record, never a
    truncation.
      0  4  seq (u32), 0, 1, 2, ... within the generation
      4  1  kind: 1 entry, 2 undo (take back the newest entry), 3 close,
            4 start (seq 0 of a format-2 match: written before its snapshot,
            so a journal that is gone is noticed)
      5  1  entry code (rules.E_*)     6  2  entry arg (u16)
      8  4  match time, ms (i32)
     12  4  CRC32 of bytes 0..11, seeded with the generation (a record of
            another match never passes)
    Loading stops at the first missing, torn or corrupt record; the torn
    tail is cut off (segment rewritten by temp + rename) before appending.

history/<generation>.json -- finished-match reports, written in pieces as
    history/report.tmp then renamed; at most `max_reports` files and
    `max_report_bytes` bytes, oldest dropped first.  The name comes from the
    match's generation, so saving the same match's report again replaces it.
    Generations are u32: when they would pass 2**32 - 1 (a history file of
    that number), the reports are numbered again 1, 2, ... in their order and
    the next match takes the number after them.
sent -- the number of the newest report the hall's broker acknowledged.

Reading back never takes a want of memory for damage: restore() raises
MemoryError with the flash untouched, and the store then writes nothing
(`held`) until a new match is begun, so the saved match stays on the flash
byte for byte for the next boot.  What restore() finds is reported in
`errors`; a match rolled back (its journal deleted, its snapshot gone while
a newer match left a journal or a report) sets ERR_ROLLBACK.

Methods that write return None when done, or a short reason (constants
below) and set a bit in `errors`; they never raise on a flash error, so the
scoring path goes on even with a full or failing flash.  load() never raises.

Use (the app):
    store = MatchStore("/store")
    if not store.restore(match, time.ticks_ms()):   # at boot (MemoryError: see above)
        ...                                         # nothing saved: set up a match
    store.begin(match)          # after match.new(...)
    store.sync(match)           # after events, undos, the close: what changed since the last sync
    store.save_report(write)    # a finished match: write(f) writes it in pieces; reports(), open_report(name)
"""

import os
import struct

import rules

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


try:
    from binascii import crc32 as _crc_builtin
except ImportError:  # a MicroPython build without MICROPY_PY_BINASCII_CRC32
    _crc_builtin = None


def crc32_py(data, crc=0):
    """CRC-32 (zlib's, continued from `crc`) without a table: the fallback."""
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def crc32(data, crc=0):
    if _crc_builtin is None:
        return crc32_py(data, crc)
    return _crc_builtin(data, crc) & 0xFFFFFFFF


FORMAT = const(2)
SNAP_SIZE = const(128)
REC_SIZE = const(16)
SEG_RECORDS = const(8)
_MAGIC = b"CRMS"
_SNAP_HEAD = "<4sBBBBIHHHHB4B"
_TEXT_AT = const(25)
_TEXT_MAX = const(99)
_CRC_AT = const(124)
_REC = "<IBBHi"
_RECORD = "<IBBHiI"
_NO_BREAKER = const(255)
_ENOENT = const(2)
_EEXIST = const(17)

K_ENTRY = const(1)
K_UNDO = const(2)
K_CLOSE = const(3)
K_START = const(4)
GEN_MAX = 0xFFFFFFFF

# Bits of MatchStore.errors, for the app to show.
ERR_SNAPSHOT = const(1)  # a snapshot copy was unreadable: the match shown may be the previous one
ERR_JOURNAL = const(2)  # a torn or corrupt journal tail was dropped: the newest event may be missing
ERR_WRITE = const(4)  # a flash write failed: events since then may not be saved
ERR_RESTORE = const(8)  # the saved match did not replay in full
ERR_READ = const(16)  # a file could not be read (not just missing)
ERR_ROLLBACK = const(32)  # the match went back: its journal is gone, or a newer match left traces
ERR_MEMORY = const(64)  # not enough memory to read the saved match back (nothing was changed)

# Reasons (constants: returning one allocates nothing).
WRITE_FAILED = "flash write failed"
NO_MATCH = "no match in the store"
NOTHING_TO_UNDO = "nothing to undo"
HELD = "the saved match could not be read: nothing is written until a new match"


class PosixFs:
    """The filesystem calls the store uses, over the built-in open and os."""

    def __init__(self):
        self.open = open
        self.rename = os.rename
        self.remove = os.remove
        self.stat = os.stat
        self.listdir = os.listdir
        self.mkdir = os.mkdir


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
    flags = (1 if m.equalizing else 0) | (2 if m.draw_allowed else 0) | (4 if m.white_breaker else 0)
    breaker = _NO_BREAKER if m.breaker0 == rules.NOBODY else m.breaker0
    buf = bytearray(SNAP_SIZE)
    struct.pack_into(_SNAP_HEAD, buf, 0, _MAGIC, FORMAT, m.game, flags, breaker, gen, m.target0, m.innings_limit,
                     m.shot_ms // 1000, m.break_ms // 1000, m.timeouts0,
                     len(texts[0]), len(texts[1]), len(texts[2]), len(texts[3]))
    at = _TEXT_AT
    for t in texts:
        buf[at:at + len(t)] = t
        at += len(t)
    struct.pack_into("<I", buf, _CRC_AT, crc32(memoryview(buf)[:_CRC_AT]))
    return buf


def parse_snapshot(data):
    """(generation, options for Match.new) from snapshot bytes, or None when they are not valid."""
    if data is None or len(data) != SNAP_SIZE:
        return None
    if crc32(memoryview(data)[:_CRC_AT]) != struct.unpack_from("<I", data, _CRC_AT)[0]:
        return None
    (magic, version, game, flags, breaker, gen, target, limit, shot, brk, timeouts,
     l0, l1, l2, l3) = struct.unpack_from(_SNAP_HEAD, data, 0)
    if magic != _MAGIC or not 1 <= version <= FORMAT or game >= len(rules.GAMES):
        return None
    if breaker != rules.A and breaker != rules.B and breaker != _NO_BREAKER:
        return None
    if l0 + l1 + l2 + l3 > _TEXT_MAX:
        return None
    texts = []
    at = _TEXT_AT
    for n in (l0, l1, l2, l3):
        try:
            texts.append(str(bytes(data[at:at + n]), "utf-8"))
        except Exception:  # not UTF-8 (CPython checks; MicroPython may not)
            return None
        at += n
    return gen, {
        "game": rules.GAMES[game],
        "target": target,
        "innings_limit": limit,
        "equalizing": bool(flags & 1),
        "draw": bool(flags & 2),
        "breaker_ball": "white" if flags & 4 else "spot",
        "breaker": None if breaker == _NO_BREAKER else breaker,
        "shot_clock": shot,
        "break_s": brk,
        "timeouts": timeouts,
        "name_A": texts[0],
        "club_A": texts[1],
        "name_B": texts[2],
        "club_B": texts[3],
    }


def _report_number(name):
    """The number of a report file name like 000123.json, or -1."""
    if not name.endswith(".json") or len(name) < 6:
        return -1
    digits = name[:-5]
    if not digits.isdigit():  # ASCII digits only
        return -1
    return int(digits)


def report_name(number):
    return "%06d.json" % number


class MatchStore:
    """The match being played (snapshot + journal) and the finished matches' reports."""

    def __init__(self, root, fs=None, max_reports=50, max_report_bytes=256 * 1024):
        self.fs = fs or PosixFs()
        self.root = root.rstrip("/")
        self.max_reports = max_reports
        self.max_report_bytes = max_report_bytes
        self._jdir = self.root + "/jnl"
        self._hdir = self.root + "/history"
        self.errors = 0
        self.gen = 0  # generation of the match in the store; 0: none
        self.seq = 0  # records in its journal
        self.count = 0  # live entries (appends minus undos)
        self.closed = False
        self.held = False  # restore ran out of memory: write nothing until begin()
        self._broken = False  # a write failed: rescan (and cut the torn tail) before the next one
        self._seg = -1
        self._seg_path = ""
        self._rec = bytearray(REC_SIZE)
        self._rec_head = memoryview(self._rec)[:12]

    # ---- names and small file helpers ------------------------------------

    def _snap_path(self, slot):
        return "%s/snap.%d" % (self.root, slot)

    def _segment_path(self, gen, seg):
        return "%s/%d.%d" % (self._jdir, gen, seg)

    def _read(self, path, limit):
        """At most limit bytes of a file; None when it is missing or unreadable."""
        try:
            f = self.fs.open(path, "rb")
        except OSError as e:
            if e.args and e.args[0] != _ENOENT:
                self.errors |= ERR_READ
            return None
        try:
            return f.read(limit)
        except OSError:
            self.errors |= ERR_READ
            return None
        finally:
            f.close()

    def _write_new(self, path, tmp, data):
        """Replace path with data (bytes, or write(f) writing it): write tmp, then rename it
        over path (atomic on LittleFS)."""
        f = self.fs.open(tmp, "wb")
        try:
            if callable(data):
                data(f)
            else:
                f.write(data)
        finally:
            f.close()
        self._rename(tmp, path)

    def _rename(self, tmp, path):
        try:
            self.fs.rename(tmp, path)
        except OSError as e:
            if not e.args or e.args[0] != _EEXIST:
                raise
            self.fs.remove(path)  # a filesystem whose rename does not replace (not LittleFS, not POSIX)
            self.fs.rename(tmp, path)

    def _mkdir(self, path):
        if not path:
            return
        try:
            self.fs.stat(path)
        except OSError:
            self.fs.mkdir(path)

    def _listdir(self, path):
        try:
            return self.fs.listdir(path)
        except OSError:
            return []

    def _size(self, path):
        try:
            return self.fs.stat(path)[6]
        except OSError:
            return -1

    def _slots(self):
        """[(generation, options, format) or None] for slot 0 and slot 1."""
        out = []
        for slot in (0, 1):
            data = self._read(self._snap_path(slot), SNAP_SIZE + 1)
            got = parse_snapshot(data)
            if got is None:
                if data is not None:
                    self.errors |= ERR_SNAPSHOT
                out.append(None)
            else:
                out.append((got[0], got[1], data[4]))
        return out

    def _journal_files(self):
        """[(generation, segment, name)] of the files in jnl/."""
        out = []
        for name in self._listdir(self._jdir):
            gen, dot, seg = name.partition(".")
            if dot and gen.isdigit() and seg.isdigit():
                out.append((int(gen), int(seg), name))
        return out

    # ---- reading back ---------------------------------------------------

    def restore(self, match, now):
        """Put the saved match into `match` (match.new, its entries, one replay); True if
        there was one. Raises MemoryError, having changed nothing on the flash, when there is
        not enough memory to read it: the store is then `held` (writes nothing).

        The entries were checked when they were played, so they are put in the log unplayed
        and played once at the end (an undo record takes the newest one off); match time then
        resumes at the newest entry's time (Match.resume_at), as after an undo.
        """
        self.errors = 0
        self._forget(0)
        self.held = False
        try:
            best = self._newest()
            if best is None:
                self._look_for_newer(0)
                return False
            gen, options, version = best
            self._forget(gen)
            if match.new(now, **options):
                self.errors |= ERR_RESTORE
                self._forget(0)
                return False
            ends = self._scan(match, version)
            match.replay_log(now)
        except MemoryError:
            self.errors |= ERR_MEMORY
            self._forget(0)
            self.held = True
            match.new(now, **match.options())  # no half-read match left behind
            raise
        except Exception:  # never fatal: what was read is kept, the rest reported
            self.errors |= ERR_READ
            self._forget(0)
            return False
        self._look_for_newer(gen)
        if ends is not None:  # a torn or corrupt tail, or a lost segment: cut it off now
            self._cut_tail(*ends)
        if self.closed:
            match.close(now)
        return True

    def load(self):
        """(options for Match.new, [(code, arg, t), ...]) of the saved match, or None.

        For tests and host tools: it builds a list. The board restores with restore()."""
        m = rules.Match()
        if not self.restore(m, 0):
            return None
        return m.options(), [m.entry(i) for i in range(m.n)]

    def _newest(self):
        best = None
        for got in self._slots():
            if got is not None and (best is None or got[0] > best[0]):
                best = got
        return best

    def _look_for_newer(self, gen):
        """A newer match than the one restored left a journal with entries, or a report: the
        match went back (its snapshot was lost). Nothing is changed; ERR_ROLLBACK says so."""
        for g, seg, name in self._journal_files():
            if g > gen and (seg > 0 or self._size(self._jdir + "/" + name) > REC_SIZE):
                self.errors |= ERR_ROLLBACK
                return
        for name in self.reports():
            if _report_number(name) > gen:
                self.errors |= ERR_ROLLBACK
                return

    def _forget(self, gen):
        self.gen = gen
        self.seq = 0
        self.count = 0
        self.closed = False
        self._broken = False
        self._seg = -1

    def _scan(self, match, version):
        """Read this generation's journal into `match` (pushed, not played); returns None, or
        (segment, its good bytes, present) of a tail to cut. Writes nothing."""
        gen = self.gen
        closed = False
        seq = 0
        seg = 0
        full = SEG_RECORDS * REC_SIZE
        while True:
            data = self._read(self._segment_path(gen, seg), full + 1)
            if data is None:
                data = b""
            good = 0
            while good < SEG_RECORDS and (good + 1) * REC_SIZE <= len(data):
                at = good * REC_SIZE
                s, kind, code, arg, t, crc = struct.unpack_from(_RECORD, data, at)
                if s != seq or crc != crc32(memoryview(data)[at:at + 12], gen):
                    break
                if kind == K_ENTRY:
                    match.push(code, arg, t)
                    closed = False
                elif kind == K_UNDO:
                    match.pop()
                    closed = False
                elif kind == K_CLOSE:
                    closed = True
                elif kind != K_START or seq:
                    break
                seq += 1
                good += 1
            if good == SEG_RECORDS and len(data) == full:  # a full segment: the journal goes on
                seg += 1
                continue
            if seq == 0 and version >= 2:  # not even the start record: the journal is gone
                self.errors |= ERR_ROLLBACK | ERR_JOURNAL
            # The journal ends in this segment (or before it, when it is missing): the rest of
            # it, and any later segment (left by a lost one), is a tail to drop.
            tail = None
            if len(data) != good * REC_SIZE or self._later_segments(seg):
                self.errors |= ERR_JOURNAL
                tail = (seg, data[:good * REC_SIZE], len(data) > 0)
            break
        self.seq = seq
        self.count = match.n
        self.closed = closed
        return tail

    def _later_segments(self, seg):
        for g, s, _ in self._journal_files():
            if g == self.gen and s > seg:
                return True
        return False

    def _cut_tail(self, seg, keep, present):
        """Make the journal end after `keep` (the good records of segment seg)."""
        try:
            for g, s, name in self._journal_files():
                if g == self.gen and s > seg:
                    self.fs.remove(self._jdir + "/" + name)
            path = self._segment_path(self.gen, seg)
            if keep:
                self._write_new(path, self._jdir + "/tmp", keep)
            elif present:
                self.fs.remove(path)
            self._broken = False
        except OSError:
            self.errors |= ERR_WRITE
            self._broken = True

    def _rescan(self):
        """Where the journal really ends after a failed write: count its records, cut a torn tail."""
        scratch = _Counter()
        ends = self._scan(scratch, 1)
        self.count = scratch.n
        if ends is not None:
            self._cut_tail(*ends)

    # ---- writing ----------------------------------------------------------

    def begin(self, match):
        """Save a new match (its options; its entries follow with sync or append)."""
        try:
            self._mkdir(self.root)
            self._mkdir(self._jdir)
            # The new snapshot goes over the older (or unreadable) slot; the other one, the
            # current match, stays as the previous match.
            slots = self._slots()
            if slots[0] is None:
                target = 0
            elif slots[1] is None:
                target = 1
            else:
                target = 0 if slots[0][0] < slots[1][0] else 1
            other = slots[1 - target]
            top = self.gen
            if other is not None:
                top = max(top, other[0])
            files = self._journal_files()
            for g, _, _ in files:
                top = max(top, g)
            for name in self.reports():
                top = max(top, _report_number(name))
            if top >= GEN_MAX:  # the numbers ran out: number the reports again, start over above them
                top = self._renumber()
                other = None
                files = self._journal_files()
            gen = top + 1
            snap = pack_snapshot(gen, match)
            # The start record first: a snapshot is never without it, so a journal that is
            # missing under a snapshot was lost (a cut between the two leaves only the start
            # record of a match that never was, which is not taken for one).
            self._forget(gen)
            self.held = False
            self._seg = 0
            self._seg_path = self._segment_path(gen, 0)
            self._write_new(self._seg_path, self._jdir + "/tmp", self._record(0, K_START, 0, 0, 0))
            self.seq = 1
            self._write_new(self._snap_path(target), self.root + "/snap.tmp", snap)
        except OSError:
            self.errors |= ERR_WRITE
            self._forget(0)
            return WRITE_FAILED
        # The new match is in place; drop the journals of all but it and the previous match.
        keep = other[0] if other is not None else -1
        for g, _, name in files:
            if g != keep and g != gen:
                try:
                    self.fs.remove(self._jdir + "/" + name)
                except OSError:
                    pass
        return None

    def _renumber(self):
        """Reports numbered 1, 2, ... in their order; every other match's files go (the new
        match replaces the current one; its report, if it has one, is kept). Returns the top."""
        names = self.reports()
        sent = self.sent()
        new_sent = 0
        for i, name in enumerate(names):
            if _report_number(name) <= sent:
                new_sent = i + 1
            if name != report_name(i + 1):
                self._rename(self._hdir + "/" + name, self._hdir + "/" + report_name(i + 1))
        if sent:
            self._write_sent(new_sent)
        for _, _, name in self._journal_files():
            self.fs.remove(self._jdir + "/" + name)
        for slot in (0, 1):
            try:
                self.fs.remove(self._snap_path(slot))
            except OSError:
                pass
        return len(names)

    def _record(self, seq, kind, code, arg, t):
        rec = self._rec
        struct.pack_into(_REC, rec, 0, seq, kind, code, arg, t)
        struct.pack_into("<I", rec, 12, crc32(self._rec_head, self.gen))
        return rec

    def append(self, code, arg, t):
        """Save one entry (code, arg, match time): one 16-byte record appended."""
        reason = self._put(K_ENTRY, code, arg, t)
        if reason is None:
            self.count += 1
            self.closed = False
        return reason

    def undo(self):
        """Save that the newest entry was taken back."""
        if self.gen and not self._broken and self.count == 0:
            return NOTHING_TO_UNDO
        reason = self._put(K_UNDO, 0, 0, 0)
        if reason is None:
            self.count -= 1
            self.closed = False
        return reason

    def close(self):
        """Save that the match was closed (its report signed)."""
        reason = self._put(K_CLOSE, 0, 0, 0)
        if reason is None:
            self.closed = True
        return reason

    def sync(self, match):
        """Save what changed in `match` since the last sync: undos back to match.low, the new
        entries, the close; then match.low = match.n."""
        reason = None
        keep = match.low if match.low < self.count else self.count
        while reason is None and self.count > keep:
            reason = self.undo()
        while reason is None and self.count < match.n:
            code, arg, t = match.entry(self.count)
            reason = self.append(code, arg, t)
        if reason is None and match.closed and not self.closed:
            reason = self.close()
        if reason is None:
            match.low = match.n
        return reason

    def _put(self, kind, code, arg, t):
        if self.held:
            return HELD
        if not self.gen:
            return NO_MATCH
        if self._broken:  # a write failed: find where the journal really ends, cut any torn tail
            self._broken = False
            try:
                self._rescan()
            except Exception:
                self._broken = True
            if self._broken:
                return WRITE_FAILED
            if kind == K_UNDO and self.count == 0:
                return NOTHING_TO_UNDO
        seq = self.seq
        seg = seq // SEG_RECORDS
        if seg != self._seg:
            self._seg_path = self._segment_path(self.gen, seg)
            self._seg = seg
        rec = self._record(seq, kind, code, arg, t)
        try:
            f = self.fs.open(self._seg_path, "ab")
            try:
                f.write(rec)
            finally:
                f.close()
        except OSError:
            self.errors |= ERR_WRITE
            self._broken = True
            return WRITE_FAILED
        self.seq = seq + 1
        return None

    # ---- finished matches ---------------------------------------------------

    def report_name(self):
        """The history file name of the current match's report."""
        return report_name(self.gen)

    def has_report(self):
        """The current match's report is saved."""
        return self.gen > 0 and self._size(self._hdir + "/" + self.report_name()) >= 0

    def save_report(self, data):
        """Keep a finished match's report: bytes or str, or write(f) that writes it in pieces.
        Returns its name, or None if it failed. Older reports are dropped first to make room;
        saving again for the same match replaces its report."""
        if isinstance(data, str):
            data = bytes(data, "utf-8")
        f = self.report_file()
        if f is None:
            return None
        done = False
        try:
            if callable(data):
                data(f)
            else:
                f.write(data)
            done = True
        except OSError:
            self.errors |= ERR_WRITE
        finally:
            if not self.finish_report(f, done):
                done = False
        return self.report_name() if done else None

    def report_file(self):
        """A file to write the current match's report into, in pieces; then finish_report().
        None when it cannot be opened (or the store is held)."""
        if self.held or not self.gen:
            return None
        try:
            self._mkdir(self.root)
            self._mkdir(self._hdir)
            return self.fs.open(self._hdir + "/report.tmp", "wb")
        except OSError:
            self.errors |= ERR_WRITE
            return None

    def finish_report(self, f, keep=True):
        """Close the report file; with keep, make room for it (older reports go first) and put
        it in place. True when the report is kept."""
        tmp = self._hdir + "/report.tmp"
        try:
            f.close()
            if not keep:
                self.fs.remove(tmp)
                return False
            name = self.report_name()
            size = self._size(tmp)
            others = [n for n in self.reports() if n != name]
            sizes = []
            total = 0
            for n in others:
                k = self._size(self._hdir + "/" + n)
                sizes.append(k)
                total += k
            i = 0
            while i < len(others) and (len(others) - i >= self.max_reports
                                       or total + size > self.max_report_bytes):
                self.fs.remove(self._hdir + "/" + others[i])
                total -= sizes[i]
                i += 1
            self._rename(tmp, self._hdir + "/" + name)
        except OSError:
            self.errors |= ERR_WRITE
            return False
        return True

    def reports(self):
        """Names of the saved reports, oldest first."""
        numbered = []
        for name in self._listdir(self._hdir):
            n = _report_number(name)
            if n >= 0:
                numbered.append((n, name))
        numbered.sort()
        return [name for _, name in numbered]

    def open_report(self, name):
        """A saved report opened for reading in pieces (OSError when it is missing)."""
        if _report_number(name) < 0:
            raise ValueError("not a report name: %r" % name)
        return self.fs.open(self._hdir + "/" + name, "rb")

    def read_report(self, name):
        """The bytes of a saved report, whole (host tools and tests; the board reads in pieces)."""
        f = self.open_report(name)
        try:
            return f.read()
        finally:
            f.close()

    def report_size(self, name):
        return self._size(self._hdir + "/" + name)

    def report_path(self, name):
        """The path of a saved report (for reading it in pieces: MQTT)."""
        if _report_number(name) < 0:
            raise ValueError("not a report name: %r" % name)
        return self._hdir + "/" + name

    # ---- what the hall has -------------------------------------------------------

    def sent(self):
        """The number of the newest report the broker acknowledged (0: none)."""
        data = self._read(self.root + "/sent", 16)
        try:
            return int(data) if data else 0
        except ValueError:
            return 0

    def mark_sent(self, name):
        """The broker has report `name` (and, reports being sent in order, every older one)."""
        n = _report_number(name)
        if n > self.sent():
            self._write_sent(n)

    def _write_sent(self, n):
        try:
            self._write_new(self.root + "/sent", self.root + "/sent.tmp", b"%d" % n)
        except OSError:
            self.errors |= ERR_WRITE

    def unsent(self):
        """Names of the reports the broker does not have yet, oldest first."""
        sent = self.sent()
        return [name for name in self.reports() if _report_number(name) > sent]


class _Counter:
    """Stands in for a match when only the number of live entries is wanted."""

    def __init__(self):
        self.n = 0

    def push(self, code, arg, t):
        self.n += 1

    def pop(self):
        if self.n:
            self.n -= 1

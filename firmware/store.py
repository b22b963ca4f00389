"""The match store: a match comes back exactly as it was after a power cut.

Runs on MicroPython (ESP32 LittleFS, unix port) and CPython.  Files under
`root` (file names and byte layouts; all numbers little-endian):

snap.0, snap.1 -- two 128-byte snapshot slots: the match's options (layout in
    store_snapshot.py). The newer valid one is the match; the other is the previous
    match, the fallback when the newer one is unreadable.

jnl/<generation>.<segment> -- the append-only journal of that match, 16-byte
    records, 8 records per segment file (segment = seq // 8), so every
    segment stays inline too: appending one then costs a metadata commit,
    not a 4 KiB block copy.  An undo or the close is a record, never a
    truncation.
      0  4  seq (u32), 0, 1, 2, ... within the generation
      4  1  kind: 1 entry, 2 undo (take back the newest entry), 3 close,
            4 start (seq 0 of a format-2 match: written before its snapshot,
            so a journal that is gone is noticed), 5 the next entry's second
            argument in its arg (an extension's B target, a handicap)
      5  1  entry code (rules.E_*)     6  2  entry arg (u16; what it packs: matchnames.E_*)
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
ckpt.0, ckpt.1 -- the match's checkpoint, derived from its journal (layout in store_checkpoint.py).

This module is what a running board keeps in RAM: writing the journal and the
reports. Reading a match back, beginning a new one and repairing a torn
journal are in store_snapshot.py, reading a chunk of the log back in store_journal.py, the match's
checkpoint (the state before its newest chunk: a long match comes back without replaying
its whole journal) in store_checkpoint.py, each loaded for that and dropped again.

Reading back never takes a want of memory for damage: restore() raises
MemoryError with the flash untouched, and the store then writes nothing
(`held`) until a new match is begun, so the saved match stays on the flash
byte for byte for the next boot.  What restore() finds is reported in
`errors`; a match rolled back (its journal deleted, its snapshot gone while
a newer match left a journal or a report) sets ERR_ROLLBACK.

Methods that write return None when done, or a reason (a small int:
WRITE_FAILED, NO_MATCH, NOTHING_TO_UNDO, HELD, named in store_history.py) and set a
bit in `errors`; they never raise on a flash error, so the scoring path goes
on even with a full or failing flash.

Use (the app):
    store = MatchStore("/store")
    if not store.restore(match, time.ticks_ms()):   # at boot (MemoryError: see above)
        ...                                         # nothing saved: set up a match
    store.begin(match)          # after match.new(...)
    store.sync(match)           # after events, undos, the close: what changed since the last sync
    store_history.save_report(store, write)   # store_history.py: a finished match, written in pieces
"""

import os
import struct

import cold
from matchnames import CHUNK, E_EXTEND
from storenames import (
    EEXIST,
    ERR_WRITE,
    HELD,
    K_CLOSE,
    K_ENTRY,
    K_UNDO,
    NOTHING_TO_UNDO,
    NO_MATCH,
    REC,
    SEG_RECORDS,
    WRITE_FAILED,
)

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


try:
    from binascii import crc32 as _crc_builtin
except ImportError:  # a MicroPython build without MICROPY_PY_BINASCII_CRC32
    from store_history import crc32_py as _crc_builtin


def crc32(data, crc=0):
    return _crc_builtin(data, crc) & 0xFFFFFFFF


def replace(path, data, fs=None, tmp=None):
    """Replace file `path` with data (bytes, or write(f) that writes them): written to `tmp`
    (path + ".tmp"), then renamed over path, so a power cut leaves the old file or the new
    one, never a mix (LittleFS renames atomically; FAT, in MicroPython's VFS, removes the
    old file first: config.load finishes a rename cut there). The one such write of the
    firmware (the journal's files, config.json, the checked forms, the radio's numbers).
    `fs` has rename, remove and open (a Vfs, PosixFs, a test's; without open: the built-in
    one); None: the built-in open and os. OSError (a full flash, the power) reaches the
    caller."""
    tmp = tmp or path + ".tmp"
    f = getattr(fs, "open", open)(tmp, "wb")  # fs None: the built-in open
    try:
        if callable(data):
            data(f)
        else:
            f.write(data)
    finally:
        f.close()
    rename(tmp, path, fs)


def rename(old, new, fs=None):
    """Rename over an existing file; where rename does not replace (not LittleFS, not POSIX:
    OSError EEXIST), the existing one is removed first."""
    if fs is None:
        fs = os
    try:
        fs.rename(old, new)
    except OSError as e:
        if not e.args or e.args[0] != EEXIST:
            raise
        fs.remove(new)
        fs.rename(old, new)


class PosixFs:
    """The filesystem calls the store uses: the built-in open and os's. The class itself is
    the store's `fs` (no object of it is made: nothing more stays in RAM)."""

    open = open
    rename = os.rename
    remove = os.remove
    stat = os.stat
    listdir = os.listdir
    ilistdir = getattr(os, "ilistdir", None)  # MicroPython: names one at a time
    mkdir = os.mkdir


def report_name(number):
    return "%06d.json" % number


class MatchStore:
    """The match being played (snapshot + journal) and the finished matches' reports."""

    def __init__(self, root, fs=None, max_reports=50, max_report_bytes=256 * 1024):
        """The store under folder `root`, on `fs` (None: PosixFs). Its fields: store_files.init
        (loaded for it and dropped: a constructor run once need not stay in RAM)."""
        with cold.Rare():
            import store_files

            store_files.init(self, root, fs, max_reports, max_report_bytes)

    # ---- names and small file helpers ------------------------------------

    def _segment_path(self, gen, seg):
        return "%s/%d.%d" % (self._jdir, gen, seg)

    def _size(self, path):
        try:
            return self.fs.stat(path)[6]
        except OSError:
            return -1

    # ---- reading back and beginning: store_snapshot.py, loaded for it and dropped -------

    def restore(self, match, now):
        """Put the saved match into `match` (match.new, its entries, one replay); True if
        there was one. Raises MemoryError, having changed nothing on the flash, when there is
        not enough memory to read it: the store is then `held` (writes nothing)."""
        with cold.Rare():
            import store_snapshot

            return store_snapshot.restore(self, match, now)

    def begin(self, match):
        """Save a new match (its options; its entries follow with sync or append)."""
        with cold.Rare():
            import store_snapshot

            return store_snapshot.begin(self, match)

    def load_chunk(self, k, put):
        """Log chunk k's entries from the journal (a match's loader: its old chunks need not
        stay in RAM). Returns the journal's number of entries."""
        with cold.Rare():
            import store_journal

            return store_journal.load_chunk(self, k, put)

    # ---- writing ----------------------------------------------------------

    def _record(self, seq, kind, code, arg, t):
        rec = self._rec
        struct.pack_into(REC, rec, 0, seq, kind, code, arg, t)
        struct.pack_into("<I", rec, 12, crc32(self._rec_head, self.gen))
        return rec

    def append(self, code, arg, t):
        """Save one entry (code, arg, match time): one 16-byte record appended."""
        reason = self._put(K_ENTRY, code, arg, t)
        if reason is None:
            if not self.count % CHUNK:
                self._starts_at(self.count // CHUNK, self.seq - 1)
            self.count += 1
            self.closed = False
        return reason

    def _starts_at(self, k, seq):
        """Log chunk k's first entry is journal record seq (the newest written at its place):
        reading the chunk back starts there (store_journal.load_chunk), not at the journal's start."""
        if k < len(self._starts):
            self._starts[k] = seq
        else:
            self._starts.append(seq)

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
            if code == E_EXTEND:  # a handicap's B target: a record before the entry (store_history.py)
                reason = self._sync_rare(match, t, False)
            if reason is None:
                reason = self.append(code, arg, t)
            if reason is None and self.count % CHUNK == 1 and self.count > CHUNK and match.fmt is None:
                # a chunk's first entry saved: the state before it, on the flash (store_checkpoint.py)
                self._sync_rare(match, self.count // CHUNK, True)
        if reason is None and match.closed and not self.closed:
            reason = self.close()
        if reason is None:
            match.low = match.n
        return reason

    # The writers' rare parts, each loaded for it and dropped (a frame of their own: the `with`
    # would make sync()'s and _put()'s too big for the stack, and so allocated at every call).
    # sync()'s two in one method (each method the board keeps costs RAM): with checkpoint, the
    # state before chunk n's first entry, on the flash (store_checkpoint.save); else the record of
    # the B target of an extension at match time n (store_history.put_arg2: its reason).
    def _sync_rare(self, match, n, checkpoint):
        with cold.Rare():
            if checkpoint:
                import store_checkpoint

                return store_checkpoint.save(self, match, n)
            import store_history

            return store_history.put_arg2(self, match, n)

    def _rescan(self):
        with cold.Rare():
            import store_snapshot

            store_snapshot.rescan(self)

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

    # ---- finished matches (store_history.py: writing, listing and sending reports) -----------

    def has_report(self):
        """The current match's report is saved."""
        return self.gen > 0 and self._size(self._hdir + "/" + report_name(self.gen)) >= 0

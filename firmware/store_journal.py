"""The journal read: its records, and a chunk of the log from them.

Part of the store (store.py: the file layout); loaded to read a chunk of the log back
(MatchStore.load_chunk: a deep undo, a report's old entries) and dropped, and by
store_snapshot.py, which reads the whole journal at a start. Small, so that a report that
reads a long match's old chunks one after the other keeps it loaded (rules_innings.py) and
nothing more. The functions work on a MatchStore (`st`) and its internals.
"""

import struct

import store_files
from matchnames import CHUNK
from store import crc32
from storenames import K_ENTRY, K_UNDO, RECORD, REC_SIZE, SEG_RECORDS

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_SEGMENTS = const(1)  # segments read between two yields of load_steps (a report's steps)


def records(data, seq, gen):
    """The good records at the start of a journal segment's bytes, the first numbered `seq`:
    (kind, code, arg, t) each, up to the first whose number or CRC is wrong (at most
    SEG_RECORDS). store_snapshot.scan() and load_chunk() read the journal through it."""
    at = 0
    end = min(len(data), SEG_RECORDS * REC_SIZE) - REC_SIZE
    while at <= end:
        s, kind, code, arg, t, crc = struct.unpack_from(RECORD, data, at)
        if s != seq or crc != crc32(memoryview(data)[at : at + 12], gen):
            return
        yield kind, code, arg, t
        seq += 1
        at += REC_SIZE


def load_chunk(st, k, put):
    """load_steps() at once (rules.Match's loader, through MatchStore.load_chunk): the number
    of entries the journal stands at where it stopped."""
    steps = load_steps(st, k, put)
    while True:
        try:
            next(steps)
        except StopIteration as e:
            return e.value


def load_steps(st, k, put):
    """The entries of log chunk k (positions k * CHUNK ...) from the journal, as put(j, code,
    arg, t) with j the place in the chunk. Read from the record of
    the chunk's first entry (st._starts: the newest written at that place, so every entry
    that stands in the chunk comes after it), or from the journal's start when it is not
    known; an undo record takes the position back, so a later entry at a position is the
    one that stands. The read stops at the next chunk's first entry when the store's
    entries go past it (no entry of this chunk is written again after that record).
    A generator (load_chunk: at once): it yields after every _SEGMENTS segments read, and
    its value is the number of entries the journal stands at there, or in all."""
    lo = k * CHUNK
    hi = lo + CHUNK
    gen = st.gen
    pos = 0
    first = 0
    last = -1
    if k < len(st._starts):
        first = st._starts[k]
        pos = lo
    if k + 1 < len(st._starts) and st.count > hi:
        last = st._starts[k + 1]
    seg = first // SEG_RECORDS
    seq = seg * SEG_RECORDS
    full = SEG_RECORDS * REC_SIZE
    while True:
        data = store_files.read(st, st._segment_path(gen, seg), full + 1)
        if not data:
            break
        good = 0
        for kind, code, arg, t in records(data, seq, gen):
            if seq == last:
                return pos
            if seq < first:  # before the chunk's first entry, in its segment
                pass
            elif kind == K_ENTRY:
                if lo <= pos < hi:
                    put(pos - lo, code, arg, t)
                pos += 1
            elif kind == K_UNDO and pos:
                pos -= 1
            seq += 1
            good += 1
        if good != SEG_RECORDS or len(data) != full:
            break
        seg += 1
        if not seg % _SEGMENTS:
            yield
    return pos

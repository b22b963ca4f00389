"""The match's checkpoint on the flash: a long match comes back after a power cut without
replaying its whole journal.

Part of the store (store.py: the file layout); loaded to write a checkpoint (MatchStore.sync,
when a log chunk's first entry is saved) and to read one back (store_snapshot.restore), and dropped
again. The functions work on a MatchStore (`st`) and its internals; the match's side is
rules_state.py's (its pieces, a match put back at one).

ckpt.0, ckpt.1 -- the state of the match before log entry k * CHUNK (k >= 1), in the slot
    k % 2, written as ckpt.tmp then renamed (a power cut leaves the old one or the new one).
    A checkpoint is derived from the journal, never the other way: it is written after the
    journal has the chunk's first entry, and a restore takes one only when it is whole (its
    CRC), of the match in the snapshot (its generation), and when the journal after it never
    goes back below its chunk (a deep undo since): else the other slot, else the whole
    journal is replayed, as without one. A new match removes both first.
      0  4  magic b"CRMK"      4  1  format 1      5  1  0
      6  2  k                   8  4  generation (u32)
     12  4  seq: the journal record of entry k * CHUNK
     16  2  innings played by A by then    18  2  by B      20  2  extensions by then
     22     the journal record of each chunk's first entry, chunks 0..k (u32 each)
            the checkpoints of chunks 1..k (rules.py's, 53 i32 each)
            A's runs, then B's (u16 each), the extensions' targets (A's, B's: u16 each)
    last 4  CRC32 of everything before it, seeded with the generation
A match with formats (sets, a shoot-out, a warm-up) keeps state of its own beyond the
checkpoint's ints: it has none, and is replayed whole (it is short).
"""

import struct
from array import array

import rules_state
import store_files
from matchnames import N_STATE
from store import crc32, replace
from storenames import ERR_WRITE

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_MAGIC = b"CRMK"
_FORMAT = const(1)
_HEAD = "<4sBBHIIHHH"
_HEAD_SIZE = const(22)


def size(k, played_a, played_b, ext):
    """The bytes of a checkpoint with these counts."""
    return _HEAD_SIZE + 4 * (k + 1) + 4 * N_STATE * k + 2 * (played_a + played_b) + 4 * ext + 4


def save(st, m, k):
    """Write match m's checkpoint of chunk k (its first entry is in the journal; a match
    without formats: MatchStore.sync asks only for those, before loading this module). A
    write that fails sets ERR_WRITE and leaves the other slot: a checkpoint only saves time."""
    if k < 1 or k >= len(st._starts) or not st.gen:
        return
    played_a, played_b, ext = rules_state.counts(m, k)
    head = struct.pack(_HEAD, _MAGIC, _FORMAT, 0, k, st.gen, st._starts[k], played_a, played_b, ext)
    starts = array("I", st._starts[: k + 1])

    def write(f):
        crc = crc32(head, st.gen)
        f.write(head)
        crc = crc32(starts, crc)
        f.write(starts)
        for piece in rules_state.pieces(m, k):
            crc = crc32(piece, crc)
            f.write(piece)
        f.write(struct.pack("<I", crc))

    try:
        replace(store_files.ckpt_path(st, k & 1), write, st.fs, st.root + "/ckpt.tmp")
    except OSError:
        st.errors |= ERR_WRITE


def heads(st):
    """The checkpoints of the store's match that look whole: [(k, seq, counts, slot)], the
    newest first (the CRC is checked as one is read: load())."""
    found = []
    for slot in (0, 1):
        data = store_files.read(st, store_files.ckpt_path(st, slot), _HEAD_SIZE)
        if data is None or len(data) != _HEAD_SIZE:
            continue
        magic, version, _, k, gen, seq, played_a, played_b, ext = struct.unpack(_HEAD, data)
        if (
            magic != _MAGIC
            or version != _FORMAT
            or gen != st.gen
            or k < 1
            or st._size(store_files.ckpt_path(st, slot)) != size(k, played_a, played_b, ext)
        ):
            continue
        found.append((k, seq, (played_a, played_b, ext), slot))
    found.sort(reverse=True)
    return found


def load(st, m, head):
    """Put match m at the checkpoint `head` (from heads()): True when it was whole (its CRC),
    else False and m is as the caller must make it again (new()). MemoryError: no room."""
    k, seq, counts, slot = head
    try:
        f = st.fs.open(store_files.ckpt_path(st, slot), "rb")
    except OSError:
        return False
    crc = [0]
    try:
        data = f.read(_HEAD_SIZE)
        crc[0] = crc32(data, st.gen)
        starts = array("I", bytes(4 * (k + 1)))

        def read(buf, nbytes):
            if f.readinto(buf) != nbytes:
                raise ValueError("checkpoint cut short")
            crc[0] = crc32(buf, crc[0])

        read(starts, 4 * (k + 1))
        rules_state.from_checkpoint(m, k, counts[0], counts[1], counts[2], read)
        tail = f.read(4)
    except ValueError:
        return False
    finally:
        f.close()
    if len(tail) != 4 or struct.unpack("<I", tail)[0] != crc[0] & 0xFFFFFFFF:
        return False
    st._starts = list(starts)
    return True

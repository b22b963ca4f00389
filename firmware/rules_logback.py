"""Log chunks read back from the flash: rules.Match keeps only its newest chunks in RAM.

Loaded for a deep undo, then dropped (cold.py); a report keeps it loaded while it reads
the log's chunks one after the other (chunk()).
A chunk's entries come from the match's loader (the store's journal); an
extension's entry keeps its number in the log, its target in the journal.
"""

import cold
from matchnames import CHUNK, EXT_AT, E_EXTEND
from rules import _Chunk


def chunk(m, k):
    """Chunk k of m's log (codes, args, times; an extension's arg is its number): the one in
    RAM, or read back from the flash (deep). Allocates when it reads back; OSError when the
    flash does not have it."""
    c = m._chunks[k]
    return c if c is not None else deep(m, k)


def deep(m, k):
    """Chunk k for reading (entry()): one chunk kept aside for it, read again when k changes."""
    if m._deep_k != k:
        if m._deep is None:
            m._deep = _Chunk()
        m._deep_k = -1
        fetch(m, k, m._deep)
        m._deep_k = k
    return m._deep


def read_back(m, k):
    """Chunk k back among the log's chunks (an undo deep into the match); False when it could
    not be read (no memory, or the flash has fewer entries than the log)."""
    try:
        c = m._spare.pop() if m._spare else _Chunk()
        fetch(m, k, c)
    except (MemoryError, OSError):
        m.out_of_memory += 1
        return False
    m._chunks[k] = c
    m._back = True  # Match._retire lets it go again once it is behind
    if m._deep_k == k:
        m._deep_k = -1
    return True


def chunk_steps(m, k, store):
    """chunk() in steps: a generator that yields while a chunk not in RAM is read back from
    `store`'s journal (store_journal.load_steps), a few segments at a time; its value is the chunk
    (a report's: m.loader reads a chunk at once). OSError as chunk()'s."""
    c = m._chunks[k]
    if c is not None:
        return c
    if m._deep_k == k:
        return m._deep
    if m._deep is None:
        m._deep = _Chunk()
    m._deep_k = -1
    c = m._deep
    with cold.Rare():
        import store_journal

        n = yield from store_journal.load_steps(store, k, _putter(m, k, c))
    _check(m, k, n)
    m._deep_k = k
    return c


def fetch(m, k, c):
    """Chunk k's entries from the flash (m.loader) into c; OSError when the flash has fewer
    entries than the log."""
    _check(m, k, m.loader(k, _putter(m, k, c)))


def _putter(m, k, c):
    """put(j, code, arg, t) of chunk k's entries into c (a loader's), an extension by its number."""
    ext = [m._states[k][EXT_AT] if k else 0]  # the next extension's number

    def put(j, code, arg, t):
        if code == E_EXTEND:
            arg = ext[0]
            ext[0] += 1
        c.codes[j] = code
        c.args[j] = arg
        c.times[j] = t

    return put


def _check(m, k, n):
    if n < min(m.n, (k + 1) * CHUNK):
        raise OSError(5, "log chunk %d is not on the flash" % k)

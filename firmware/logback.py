"""Log chunks read back from the flash: rules.Match keeps only its newest chunks in RAM.

Loaded for a deep undo, then dropped (cold.py); a report keeps it loaded while it reads
the log's chunks one after the other (chunk()).
A chunk's entries come from the match's loader (the store's journal); an
extension's entry keeps its number in the log, its target in the journal.
"""

from rules import _Chunk

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_CHUNK = const(128)  # rules.py's (matchnames.CHUNK): not rules.CHUNK, which loads matchnames
_E_EXTEND = const(11)
_EXT = const(18)  # where a checkpoint keeps the number of extensions: rules._FIELDS (a test checks)


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


def window(m):
    """The chunk before the newest entry's back in RAM, as a replay of the whole journal
    leaves it (a restore from a checkpoint: an undo there then reads nothing back). False
    when it could not be read (the undo that needs it tries again)."""
    k = ((m.n - 1) >> 7) - 1  # _CHUNK == 1 << 7
    return k < 0 or m._chunks[k] is not None or read_back(m, k)


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


def fetch(m, k, c):
    """Chunk k's entries from the flash (m.loader) into c; OSError when the flash has fewer
    entries than the log."""
    ext = [m._states[k][_EXT] if k else 0]  # the next extension's number

    def put(j, code, arg, t):
        if code == _E_EXTEND:
            arg = ext[0]
            ext[0] += 1
        c.codes[j] = code
        c.args[j] = arg
        c.times[j] = t

    if m.loader(k, put) < min(m.n, (k + 1) * _CHUNK):
        raise OSError(5, "log chunk %d is not on the flash" % k)

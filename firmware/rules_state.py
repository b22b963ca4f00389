"""A match's state before a chunk of its log, in the pieces the store's checkpoint keeps.

The rules core's half for store_checkpoint.py (the file, its slots, when it is taken): what of
rules.Match a checkpoint holds, and a match put back at one. It works on Match's
internals, as part of rules.py; loaded to write or read a checkpoint, and dropped.
"""

from array import array

from matchnames import CHUNK, EXT_AT, N_STATE, PLAYED_AT, RUNS
from rules import A, B, _zeros


def counts(m, k):
    """(innings played by A, by B, extensions) at chunk k's checkpoint: the sizes of its runs'
    and targets' pieces."""
    st = m._states[k]
    return st[PLAYED_AT], st[PLAYED_AT + 1], st[EXT_AT]


def pieces(m, k):
    """The state of match m before entry k * CHUNK (k >= 1), as buffers to write one after the
    other: the checkpoints of chunks 1..k (each _N_STATE ints, i32), each player's runs of the
    innings played by then (u16 each), the extensions' targets by then (A's, B's: u16 each).
    Every inning before the checkpoint is final (the run of the one under way is in the
    state); nothing here is copied whole."""
    for j in range(1, k + 1):
        yield m._states[j]
    played_a, played_b, ext = counts(m, k)
    for p, n in ((A, played_a), (B, played_b)):
        i = 0
        while n > 0:
            take = n if n < RUNS else RUNS
            yield memoryview(m._runs[p][i])[:take]
            n -= take
            i += 1
    if ext:
        yield array("H", m._targets[: 2 * ext])


def from_checkpoint(m, k, played_a, played_b, ext, read):
    """Put match m (new()'ed with its options, no entry yet) at chunk k - 1 from the
    checkpoint of chunk k: read(buf, nbytes) fills buf with the next nbytes, in pieces'
    order. The entries from (k - 1) * CHUNK on are the journal's to apply: two chunks, so
    that the one before the newest is in RAM with its middle state, as a replay of the
    whole journal leaves it (an undo there replays at most a quarter of a chunk). The older chunks
    stay on the flash (m.loader reads them). MemoryError when there is no room (the caller
    new()'s the match again)."""
    states = [None]
    for j in range(1, k + 1):
        st = _zeros("i", N_STATE)
        read(st, 4 * N_STATE)
        states.append(st)
    runs = [[], []]
    for p, n in ((A, played_a), (B, played_b)):
        while n >= 0:  # one chunk more than the runs fill: room for the next inning
            c = _zeros("H", RUNS)
            if n:
                take = n if n < RUNS else RUNS
                read(memoryview(c)[:take], 2 * take)
            runs[p].append(c)
            n -= RUNS
    targets = array("H", bytes(4 * ext))
    if ext:
        read(targets, 4 * ext)
    at = k - 1
    first = m._chunks[0]
    for s in range(6):
        m._mid_k[s] = -1
    m._chunks = [None] * at
    m._chunks.append(first)  # chunk k - 1: the next entries go there
    m._states = states[: at + 1]  # chunk k's is made again as its first entry is played
    m._cap = (at + 1) * CHUNK
    m._runs = runs  # those played from chunk k - 1 on are written again as they are played
    m._runs_cap = [len(runs[A]) * RUNS, len(runs[B]) * RUNS]
    m._targets = list(targets)
    m._deep = None
    m._deep_k = -1
    m._back = False
    m.n = at * CHUNK
    m.low = m.n
    if at:
        m._load(states[at])  # chunk 0: the state new() left

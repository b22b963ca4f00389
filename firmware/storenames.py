"""The names of the match store's codes: its files' layout, its records' kinds, its error bits
and the reasons a write is refused.

store.py writes the journal and the snapshot; store_snapshot.py, store_journal.py, store_checkpoint.py,
store_files.py, store_reportfile.py and store_history.py read them back or add to them. The codes they
share have their one home here: each imports them, and the build compiles them in
(host_tools/consts.py), so that no board loads this module.
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


SNAP_SIZE = const(128)
REC_SIZE = const(16)
SEG_RECORDS = const(8)
REC = const("<IBBHi")  # a record without its CRC
RECORD = const("<IBBHiI")
ENOENT = const(2)
EEXIST = const(17)

K_ENTRY = const(1)
K_UNDO = const(2)
K_CLOSE = const(3)
K_START = const(4)
K_ARG2 = const(5)  # the next entry's second argument (an extension's B target)
GEN_MAX = const(0xFFFFFFFF)

# Bits of MatchStore.errors, for the app to show.
ERR_SNAPSHOT = const(1)  # a snapshot copy was unreadable: the match shown may be the previous one
ERR_JOURNAL = const(2)  # a torn or corrupt journal tail was dropped: the newest event may be missing
ERR_WRITE = const(4)  # a flash write failed: events since then may not be saved
ERR_RESTORE = const(8)  # the saved match did not replay in full
ERR_READ = const(16)  # a file could not be read (not just missing)
ERR_ROLLBACK = const(32)  # the match went back: its journal is gone, or a newer match left traces
ERR_MEMORY = const(64)  # not enough memory to read the saved match back (nothing was changed)

# Reasons a write is refused (store.py returns the numbers).
WRITE_FAILED = const(1)  # flash write failed
NO_MATCH = const(2)  # no match in the store
NOTHING_TO_UNDO = const(3)  # nothing to undo
HELD = const(4)  # the saved match could not be read: nothing is written until a new match

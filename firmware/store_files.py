"""The store's small helpers: a MatchStore's fields, the names of a folder, reading a file,
the reports' names and numbers, the snapshot slots' paths, the number the broker has.

Part of the store (store.py: the file layout): a MatchStore's fields made (init, for its
constructor), and the helpers of the store's two cold halves: store_snapshot.py
(reading a match back, beginning one: at the start too) and store_history.py (the reports,
which names these again). A module of their own so that a start loads store_snapshot.py and
this, not store_history.py: every name a loaded module holds stays interned for good (cold.py).
The functions work on a MatchStore (`st`) and its internals.
"""

from store import PosixFs, replace
from storenames import ENOENT, ERR_READ, ERR_WRITE, REC_SIZE


def init(st, root, fs, max_reports, max_report_bytes):
    """MatchStore's fields (store.MatchStore.__init__ has the arguments)."""
    st.fs = fs or PosixFs
    st.root = root.rstrip("/")
    st.max_reports = max_reports
    st.max_report_bytes = max_report_bytes
    st._jdir = st.root + "/jnl"
    st._hdir = st.root + "/history"
    st.errors = 0
    st.gen = 0  # generation of the match in the store; 0: none
    st.seq = 0  # records in its journal
    st.count = 0  # live entries (appends minus undos)
    st.closed = False
    st.held = False  # restore ran out of memory: write nothing until begin()
    st._broken = False  # a write failed: rescan (and cut the torn tail) before the next one
    st._seg = -1
    st._seg_path = ""
    st._starts = []  # journal record of each log chunk's first entry (MatchStore._starts_at)
    st._rec = bytearray(REC_SIZE)
    st._rec_head = memoryview(st._rec)[:12]


def report_number(name):
    """The number of a report file name like 000123.json, or -1."""
    if not name.endswith(".json") or len(name) < 6:
        return -1
    digits = name[:-5]
    if not digits.isdigit():  # ASCII digits only
        return -1
    return int(digits)


def reports(st):
    """Names of the saved reports, oldest first."""
    numbered = []
    for name in listdir(st, st._hdir):
        n = report_number(name)
        if n >= 0:
            numbered.append((n, name))
    numbered.sort()
    return [name for _, name in numbered]


def sent(st):
    """The number of the newest report the broker acknowledged (0: none)."""
    data = read(st, st.root + "/sent", 16)
    try:
        return int(data) if data else 0
    except ValueError:
        return 0


def write_sent(st, n):
    try:
        replace(st.root + "/sent", b"%d" % n, st.fs)
    except OSError:
        st.errors |= ERR_WRITE


def snap_path(st, slot):
    return "%s/snap.%d" % (st.root, slot)


def ckpt_path(st, slot):
    """A checkpoint slot's path (store_checkpoint.py)."""
    return "%s/ckpt.%d" % (st.root, slot)


def remove_checkpoints(st):
    """A new match: no checkpoint of another is left to be taken for its own."""
    for slot in (0, 1):
        try:
            st.fs.remove(ckpt_path(st, slot))
        except OSError:
            pass


def read(st, path, limit):
    """At most limit bytes of a file; None when it is missing or unreadable."""
    try:
        f = st.fs.open(path, "rb")
    except OSError as e:
        if e.args and e.args[0] != ENOENT:
            st.errors |= ERR_READ
        return None
    try:
        return f.read(limit)
    except OSError:
        st.errors |= ERR_READ
        return None
    finally:
        f.close()


def listdir(st, path):
    try:
        return st.fs.listdir(path)
    except OSError:
        return []


def names(st, path):
    """The names in folder `path` one at a time, none when it cannot be read: no list of
    them all (a long match's journal has hundreds of files; the heap after it may have no
    block for such a list)."""
    each = getattr(st.fs, "ilistdir", None)
    try:
        if each is None:  # a filesystem without it (the tests' own)
            for name in st.fs.listdir(path):
                yield name
        else:
            for entry in each(path):
                yield entry[0]
    except OSError:
        return


def mkdir(st, path):
    """Make folder `path` unless it is there (OSError when it cannot be made)."""
    if not path:
        return
    try:
        st.fs.stat(path)
    except OSError:
        st.fs.mkdir(path)

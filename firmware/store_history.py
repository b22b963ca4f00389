"""The store's history: finished matches' reports, and what the hall's broker has.

Part of the store (store.py: the file layout); loaded by MatchStore for a
report's saving, listing or sending and dropped again, so a running board
keeps only the journal writer in RAM. The store's small file helpers (read, listdir,
reports, sent...) are store_files.py's, which store_snapshot.py uses too (and a start loads
without this module); they are named here again (writing a file whole: store.replace).
The functions work on a MatchStore (`st`) and its internals.
"""

import rules
from store_reportfile import finish_report, report_file  # noqa: F401  (the store's names for them)
from store import rename, report_name  # noqa: F401
from store_files import listdir, mkdir, names, read, report_number, reports, sent, snap_path, write_sent  # noqa: F401
from storenames import ERR_WRITE, K_ARG2


def crc32_py(data, crc=0):
    """CRC-32 (zlib's, continued from `crc`) without a table: store.crc32's fallback on a
    build without binascii.crc32."""
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def put_arg2(st, m, t):
    """Before an extension's entry, its B target in a record of its own when it has one (a
    handicap; MatchStore.sync). None, or why the record could not be written."""
    import rules_setup

    b = rules_setup.arg2(m, st.count)
    return st._put(K_ARG2, rules.E_EXTEND, b, t) if b >= 0 else None


def load(st):
    """(options for Match.new, [(code, arg, t), ...]) of the saved match, or None.
    For tests and host tools: it builds a list. The board restores with st.restore()."""
    m = rules.Match()
    if not st.restore(m, 0):
        return None
    return m.options(), [m.entry(i) for i in range(m.n)]


def report_size(st, name):
    return st._size(st._hdir + "/" + name)


def report_path(st, name):
    """The path of a saved report (for reading it in pieces: MQTT)."""
    if report_number(name) < 0:
        raise ValueError("not a report name: %r" % name)
    return st._hdir + "/" + name


def save_report(st, data):
    """Keep a finished match's report: bytes or str, or write(f) that writes it in pieces.
    Returns its name, or None if it failed. Older reports are dropped first to make room;
    saving again for the same match replaces its report."""
    if isinstance(data, str):
        data = bytes(data, "utf-8")
    f = report_file(st)
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
        st.errors |= ERR_WRITE
    finally:
        if not finish_report(st, f, done):
            done = False
    return report_name(st.gen) if done else None


def open_report(st, name):
    """A saved report opened for reading in pieces (OSError when it is missing)."""
    if report_number(name) < 0:
        raise ValueError("not a report name: %r" % name)
    return st.fs.open(st._hdir + "/" + name, "rb")


def read_report(st, name):
    """The bytes of a saved report, whole (host tools and tests; the board reads in pieces)."""
    f = open_report(st, name)
    try:
        return f.read()
    finally:
        f.close()


def mark_sent(st, name):
    """The broker has report `name` (and, reports being sent in order, every older one)."""
    n = report_number(name)
    if n > sent(st):
        write_sent(st, n)


def unsent(st):
    """Names of the reports the broker does not have yet, oldest first."""
    top = sent(st)
    return [name for name in reports(st) if report_number(name) > top]

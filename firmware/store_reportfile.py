"""A finished match's report file: opened to be written in pieces, then closed and put in
place (the older reports make room for it).

Part of the store's history (store_history.py names these too): the one part of it a report
needs while the board plays on, small so that loading it is a short step (report.save).
The functions work on a MatchStore (`st`) and its internals.
"""

from store import rename, report_name
from store_files import mkdir, reports
from storenames import ERR_WRITE


def report_file(st):
    """A file to write the current match's report into, in pieces; then finish_report().
    None when it cannot be opened (or the store is held)."""
    if st.held or not st.gen:
        return None
    try:
        mkdir(st, st.root)
        mkdir(st, st._hdir)
        return st.fs.open(st._hdir + "/report.tmp", "wb")
    except OSError:
        st.errors |= ERR_WRITE
        return None


def finish_report(st, f, keep=True):
    """Close the report file; with keep, make room for it (older reports go first) and put
    it in place. True when the report is kept."""
    tmp = st._hdir + "/report.tmp"
    try:
        f.close()
        if not keep:
            st.fs.remove(tmp)
            return False
        name = report_name(st.gen)
        size = st._size(tmp)
        others = [n for n in reports(st) if n != name]
        sizes = []
        total = 0
        for n in others:
            k = st._size(st._hdir + "/" + n)
            sizes.append(k)
            total += k
        i = 0
        while i < len(others) and (len(others) - i >= st.max_reports or total + size > st.max_report_bytes):
            st.fs.remove(st._hdir + "/" + others[i])
            total -= sizes[i]
            i += 1
        rename(tmp, st._hdir + "/" + name, st.fs)
    except OSError:
        st.errors |= ERR_WRITE
        return False
    return True

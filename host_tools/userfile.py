"""A user's file read with a bound: a device (/dev/zero), a FIFO or a file too large gets a clear
error before anything is read past the bound.

    data = read_bounded(path, MAX_BYTES, "the firmware")    # bytes; CommandError otherwise
"""

import os
import stat

from .errors import CommandError


def read_bounded(path, limit, what):
    """The bytes of the regular file `path`, at most `limit` of them; CommandError naming `what`
    when it is missing, not a regular file, or larger."""
    try:
        st = os.stat(path)  # before opening: opening a FIFO waits for a writer
        if stat.S_ISDIR(st.st_mode):
            raise CommandError("%s %s is a folder, not a file" % (what, path))
        if not stat.S_ISREG(st.st_mode):
            raise CommandError("%s %s is not a regular file (a device or a pipe?)" % (what, path))
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except FileNotFoundError:
        raise CommandError("cannot read %s %s: no such file" % (what, path)) from None
    except IsADirectoryError:
        raise CommandError("%s %s is a folder, not a file" % (what, path)) from None
    except OSError as e:
        raise CommandError("cannot read %s %s: %s" % (what, path, e.strerror or e)) from None
    if len(data) > limit:
        raise CommandError("%s %s is larger than %d bytes: not one" % (what, path, limit))
    return data

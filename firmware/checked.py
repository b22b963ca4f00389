"""Files checked once and then trusted while they stay the same.

    cfg = checked.load("config.json", "config.ok", check)

At every start the board needs config.json and its board definition in their
checked, complete form (config.py and boarddef.py check them and fill in the
defaults). Checking takes those modules' code and names into RAM and time, so
the checked form is kept beside the file, in `.ok`: the CRC-32 of the file it
was made from and of the checking module's own file (a new firmware checks
again), the CRC-32 of itself, then its JSON. While both are the same and the
kept form is whole (its own CRC matches), the kept form is used; otherwise
check() runs again, and what it returns is kept when it says so. A torn or
altered `.ok` is only ever a reason to check again.
"""

import json

from store import crc32, replace


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _crc(path, crc):
    """The CRC-32 of a file's bytes continued from crc (read in small pieces); None when the
    file is missing."""
    buf = bytearray(256)
    try:
        with open(path, "rb") as f:
            while True:
                n = f.readinto(buf)
                if not n:
                    return crc
                crc = crc32(memoryview(buf)[:n], crc)
    except OSError:
        return None


def load(path, kept, check, checker):
    """The checked form of file `path`: from file `kept` when it was made from the file as it
    is now by module `checker` as it is now (its name: checker.mpy or checker.py; or a tuple
    of names: the checker and the modules whose names it checks against), else check(),
    which returns (value, keep): value kept in `kept` when keep."""
    code = 0
    for name in (checker,) if isinstance(checker, str) else checker:
        crc = _crc(name + ".mpy", code)
        if crc is None:
            crc = _crc(name + ".py", code)
        code = code if crc is None else crc
    crc = _crc(path, code)
    if crc is not None:
        got = _kept(kept, crc)
        if got is not None:
            return got
    value, keep = check()
    if keep and crc is not None:
        _keep(kept, crc, value)
    return value


def _kept(kept, source_crc):
    raw = _read(kept)
    if raw is None:
        return None
    head, _, text = raw.partition(b"\n")
    try:
        source, own = head.split()
        if int(source) != source_crc or int(own) != crc32(text):
            return None
        return json.loads(text)
    except ValueError:  # not a kept form at all (json.loads raises a ValueError too)
        return None


def _keep(kept, source_crc, value):
    text = json.dumps(value).encode()

    def write(f):
        f.write(b"%d %d\n" % (source_crc, crc32(text)))
        f.write(text)

    try:
        replace(kept, write)
    except OSError:  # a full flash: the file is checked again at the next start
        pass

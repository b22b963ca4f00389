"""checked.py: a file's checked form is kept and trusted while the file stays the same.

What is tried: a first load checks; a second load of the same file does not; the file
edited is checked again; the kept form torn, altered, of another file, or with a broken
header is checked again; a check that says "do not keep" is never kept.
"""

import os

import checked
from fwtest import emptied, scratch_folder

BASE = scratch_folder("checked")
CHECKER = BASE + "/checker"


def setup():
    emptied(BASE)
    return BASE + "/config.json", BASE + "/config.ok"


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


class Checker:
    def __init__(self, keep=True):
        self.calls = 0
        self.keep = keep

    def __call__(self):
        self.calls += 1
        return {"checked": self.calls, "list": [1, "two", None]}, self.keep


def test_checked_once_then_trusted_until_the_file_changes():
    path, kept = setup()
    write(path, b'{"a": 1}')
    c = Checker()
    assert checked.load(path, kept, c, CHECKER) == {"checked": 1, "list": [1, "two", None]}
    assert checked.load(path, kept, c, CHECKER) == {"checked": 1, "list": [1, "two", None]} and c.calls == 1
    write(path, b'{"a": 2}')
    assert checked.load(path, kept, c, CHECKER)["checked"] == 2 and c.calls == 2
    assert checked.load(path, kept, c, CHECKER)["checked"] == 2 and c.calls == 2


def test_a_damaged_kept_form_is_only_a_reason_to_check_again():
    path, kept = setup()
    write(path, b'{"a": 1}')
    c = Checker()
    checked.load(path, kept, c, CHECKER)
    good = read(kept)
    damaged = [
        good[: len(good) // 2],
        good[:-1] + b"x",
        b"",
        b"garbage",
        b"1 2\n{}",
        b"\n" + good,
        good.replace(b"checked", b"chucked"),
    ]
    for i, bad in enumerate(damaged):
        write(kept, bad)
        assert checked.load(path, kept, c, CHECKER)["checked"] == c.calls == 2 + i, bad
    os.remove(kept)
    assert checked.load(path, kept, c, CHECKER)["checked"] == c.calls


def test_what_the_check_does_not_keep_is_checked_every_time():
    path, kept = setup()
    write(path, b"not even json")
    c = Checker(keep=False)
    checked.load(path, kept, c, CHECKER)
    checked.load(path, kept, c, CHECKER)
    assert c.calls == 2
    try:
        os.stat(kept)
    except OSError:
        pass
    else:
        raise AssertionError("a refused check was kept")


def test_a_new_checking_module_checks_again():
    path, kept = setup()
    write(path, b'{"a": 1}')
    write(CHECKER + ".py", b"# version 1")
    c = Checker()
    checked.load(path, kept, c, CHECKER)
    checked.load(path, kept, c, CHECKER)
    assert c.calls == 1
    write(CHECKER + ".py", b"# version 2: new defaults")
    checked.load(path, kept, c, CHECKER)
    assert c.calls == 2
    write(CHECKER + ".mpy", b"M\x06 compiled")  # a deployed .mpy counts before the source
    checked.load(path, kept, c, CHECKER)
    assert c.calls == 3


def test_a_new_module_the_checker_uses_checks_again():
    path, kept = setup()
    write(path, b'{"a": 1}')
    write(CHECKER + ".py", b"# version 1")
    names = BASE + "/names"  # e.g. controller.py, whose ACTIONS config.py checks against
    write(names + ".py", b"ACTIONS = 1")
    c = Checker()
    checked.load(path, kept, c, (CHECKER, names))
    checked.load(path, kept, c, (CHECKER, names))
    assert c.calls == 1
    write(names + ".py", b"ACTIONS = 2")
    checked.load(path, kept, c, (CHECKER, names))
    assert c.calls == 2
    checked.load(path, kept, c, (CHECKER, names))
    assert c.calls == 2
    os.remove(names + ".py")
    write(names + ".mpy", b"M\x06 compiled")
    checked.load(path, kept, c, (CHECKER, names))
    assert c.calls == 3
    os.remove(names + ".mpy")


def test_no_file_is_checked_every_time():
    path, kept = setup()
    c = Checker()
    checked.load(path, kept, c, CHECKER)
    checked.load(path, kept, c, CHECKER)
    assert c.calls == 2

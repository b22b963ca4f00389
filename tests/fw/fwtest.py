"""Tiny helpers shared by firmware tests; they run under pytest and MicroPython."""

import os

try:
    from unittest import SkipTest  # pytest reports it as a skip
except ImportError:  # MicroPython: tests/mp_runner.py counts it by name

    class SkipTest(Exception):
        pass


def raises(exc, fn, *args, **kw):
    """Assert that fn(*args, **kw) raises exc; return the exception."""
    try:
        fn(*args, **kw)
    except exc as e:
        return e
    raise AssertionError("%s not raised by %r" % (exc.__name__, fn))


def scratch_folder(name):
    """A folder of its own under /tmp for a test module (4 random bytes in its name: both MicroPython
    builds and pytest may run at once)."""
    return "/tmp/carom-%s-%s" % (name, "".join("%02x" % b for b in os.urandom(4)))


def emptied(folder):
    """Make `folder` if it is missing and remove the files in it; returns it."""
    try:
        os.mkdir(folder)
    except OSError:
        pass
    for name in os.listdir(folder):
        os.remove(folder + "/" + name)
    return folder

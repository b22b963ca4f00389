"""Tiny helpers shared by firmware tests; they run under pytest and MicroPython."""

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

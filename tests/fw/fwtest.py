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


def twins(hot, cold, probe):
    """A resident module `hot` keeps its constants private and compiled in (const(), with a
    leading underscore: no RAM) and forwards its public names to `cold` (cold.forward). Check
    that an unknown name raises AttributeError, and that every _NAME of `hot` equals cold.NAME;
    return how many pairs were compared. MicroPython compiles the private constants away
    (`probe`, one of them, is not there): a skip after the first check."""
    try:
        getattr(hot, "NO_SUCH_NAME")
    except AttributeError:
        pass
    else:
        raise AssertionError("an unknown name must raise AttributeError")
    if not hasattr(hot, probe):
        raise SkipTest("MicroPython compiles private constants away")
    pairs = 0
    for name in dir(cold):
        value = getattr(cold, name)
        if not name.startswith("_") and not callable(value) and hasattr(hot, "_" + name):
            assert getattr(hot, "_" + name) == value, name
            pairs += 1
    return pairs

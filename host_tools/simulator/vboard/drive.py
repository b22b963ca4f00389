"""What driving a board and driving a hub of boards share (host side)."""

import functools

from .errors import BoardError


def locked(method):
    """Run a method with the board's lock held (a background thread may drive
    the board: the serial port, real-time mode)."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)

    return wrapper


def advance_until(driven, predicate, limit, step):
    """Advance `driven` (a board or a hub) in steps of `step` s until
    predicate(driven) is true; return the virtual seconds it took. Raises
    BoardError after `limit` virtual seconds."""
    waited = 0.0
    while not predicate(driven):
        if waited >= limit:
            raise BoardError("condition not met within %.3f virtual s" % limit)
        driven.advance(step)
        waited += step
    return waited

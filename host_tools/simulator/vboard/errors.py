"""The virtual board's errors (host side)."""


class BoardError(Exception):
    """The virtual board could not do what was asked."""


class BoardTimeout(BoardError):
    """The board did not answer in real time (a loop that never waits?)."""


class BoardCrashed(BoardError):
    """The MicroPython process ended on its own."""


class RunnerQuit(Exception):
    """The runner thread was asked to stop in the middle of a command."""

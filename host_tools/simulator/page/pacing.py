"""Virtual time in step with real time (a BoardSession's clock): the Pacer, and the TurnLock its
board's callers take in turn."""

import heapq
import itertools
import threading
import time

TICK_S = 0.02  # virtual time is granted in steps of about this much real time
MAX_STEP_S = 0.25  # a late tick grants at most this much (the board slows down instead of jumping)


class TurnLock:
    """A reentrant lock its waiters get in the order they asked for it.

    threading.RLock lets a thread that releases it take it again at once, ahead of the threads
    waiting for it: a jump in slices would keep the board to itself all the same."""

    def __init__(self):
        self._cond = threading.Condition(threading.Lock())
        self._owner = None
        self._depth = 0
        self._next = 0  # the ticket the next newcomer draws
        self._serving = 0  # the ticket whose turn it is

    def acquire(self):
        me = threading.get_ident()
        with self._cond:
            if self._owner == me:
                self._depth += 1
                return True
            ticket = self._next
            self._next += 1
            while self._serving != ticket:
                self._cond.wait()
            self._owner = me
            self._depth = 1
            return True

    def release(self):
        with self._cond:
            if self._owner != threading.get_ident():
                raise RuntimeError("release of a TurnLock not held by this thread")
            self._depth -= 1
            if self._depth == 0:
                self._owner = None
                self._serving += 1
                self._cond.notify_all()

    __enter__ = acquire

    def __exit__(self, *exc):
        self.release()


class Pacer:
    """Virtual time in step with real time: grants the board the real time that passed.

    Also keeps the actions scheduled at virtual instants (a tap's release) and
    makes each at its exact instant.  Replace this class when the virtual board
    runs in real time by itself (vb.run_realtime()): start() then turns that on,
    step() only makes the scheduled actions whose instant vb.now has reached,
    and a jump's slices stay vb.advance().
    """

    def __init__(self, vb, clock=None):
        self.vb = vb
        self.clock = clock or vb  # a RadioHub: every board on it, in step (its .now, .advance)
        self._queue = []  # (virtual s, seq, fn)
        self._seq = itertools.count()
        self._last = time.monotonic()
        self.jumping = False  # a jump runs: it grants the time, step() none

    def at(self, t, fn):
        """Call fn() when virtual time reaches t (seconds)."""
        heapq.heappush(self._queue, (t, next(self._seq), fn))

    def step(self):
        """Grant the real time since the previous step (capped at MAX_STEP_S)."""
        now = time.monotonic()
        dt = min(now - self._last, MAX_STEP_S)
        self._last = now
        if dt > 0 and not self.jumping:
            self.advance_to(self.now + dt)

    @property
    def now(self):
        return self.clock.now

    def advance_to(self, goal):
        """Let virtual time reach `goal`, making every scheduled action on the way."""
        while self._queue and self._queue[0][0] <= goal:
            t, _, fn = heapq.heappop(self._queue)
            if t > self.now:
                self.clock.advance(t - self.now)
            fn()
        if goal > self.now:
            self.clock.advance(goal - self.now)

    def resume(self):
        """Real-time pacing goes on from now (after a jump)."""
        self.jumping = False
        self._last = time.monotonic()

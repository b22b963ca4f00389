# Replacement for the C module `_asyncio` (installed as sys.modules["_asyncio"]
# before the frozen asyncio is imported). The C TaskQueue stamps tasks with the
# real clock (mp_hal_ticks_ms) when no time is given; this one uses the virtual
# ticks, so the frozen asyncio scheduler runs entirely on virtual time.
# Semantics follow extmod/modasyncio.c: a queue ordered by ticks_diff of the
# keys (FIFO among equal keys), and a Task that can be awaited and cancelled.

import _vb_time as vtime

_context = None  # asyncio.core's globals: cur_task, _task_queue, CancelledError


class TaskQueue:
    def __init__(self):
        self._tasks = []  # ordered by ph_key, earliest first

    def peek(self):
        return self._tasks[0] if self._tasks else None

    def push(self, task, key=None):
        task.data = None
        task.ph_key = vtime.ticks_ms() if key is None else key
        tasks = self._tasks
        i = len(tasks)
        diff = vtime.ticks_diff
        while i > 0 and diff(task.ph_key, tasks[i - 1].ph_key) < 0:
            i -= 1
        tasks.insert(i, task)

    def pop(self):
        if not self._tasks:
            raise IndexError("empty heap")
        return self._tasks.pop(0)

    def remove(self, task):
        try:
            self._tasks.remove(task)
        except ValueError:
            pass


class Task:
    def __init__(self, coro, globals=None):
        global _context
        self.coro = coro
        self.data = None
        # True: running, not awaited; a TaskQueue: tasks awaiting it;
        # a callable: done-callback; None: done, not awaited; False: done, awaited.
        self.state = True
        self.ph_key = 0
        if globals is not None:
            _context = globals

    def done(self):
        return self.state is None or self.state is False

    def __iter__(self):
        if self.done():
            self.state = False
        elif self.state is True:
            self.state = TaskQueue()
        elif type(self.state) is not TaskQueue:
            raise RuntimeError("can't wait")
        return self

    __await__ = __iter__

    def __next__(self):
        if self.done():
            raise self.data
        waiter = _context["cur_task"]
        self.state.push(waiter)
        waiter.data = self
        return None

    def cancel(self):
        if self.done():
            return False
        if self is _context["cur_task"]:
            raise RuntimeError("can't cancel self")
        task = self
        while isinstance(task.data, Task):
            task = task.data
        run_queue = _context["_task_queue"]
        if hasattr(task.data, "remove"):
            # Waiting on a TaskQueue or on the IO queue: move it to the run queue.
            task.data.remove(task)
            run_queue.push(task)
        elif vtime.ticks_diff(task.ph_key, vtime.ticks_ms()) > 0:
            # Sleeping: bring it forward to now.
            run_queue.remove(task)
            run_queue.push(task)
        task.data = _context["CancelledError"]
        return True

"""Code a running board needs only now and then: loaded for one call, then dropped.

    cold.call("view_setup", "names", view)    # view_setup.names(view), then out of RAM
    await cold.run("report", "save", board)  # from a task: loaded, a yield, awaited, out of RAM
    for _ in cold.steps("matchdoc", "fields", m, now, out):  # a generator's: after its last item
    def __getattr__(name):                   # rules.E_POINT and the like: from matchnames
        return cold.forward("matchnames", name, "rules")

On MicroPython every module the call loaded leaves sys.modules afterwards, so
its code is garbage once the call returns (the board keeps only what it runs
every second in RAM). On CPython (host tools, tests) they stay loaded. Loading
needs memory: a MemoryError reaches the caller, who decides what it costs.

Cold halves: a class whose rare work is split off keeps it in a module of its
own that works on the class's private state (rules_setup.py, rules_events.py, rules_logback.py, rules_state.py and rules_innings.py for
rules.Match, store_snapshot.py, store_journal.py, store_checkpoint.py, store_history.py and store_reportfile.py for store.MatchStore, view_setup.py for
view.View, config_edit.py for config.py, app_cold.py for app.Board). Those pairs are one class in two
files; no other module uses another's underscore names (a test checks).
"""

import sys

_DROP = sys.implementation.name == "micropython"


def forward(module, name, of):
    """module.name, for a module's __getattr__ that finds its public names in its cold twin
    (rules in rules_setup, store in history, radio in remote, app in errorcodes); an unknown
    name raises AttributeError("<of> has no 'name'")."""
    if name[:2] == "__":  # __path__ and the like (CPython's `from m import x` asks): never forwarded
        raise AttributeError(name)
    try:
        return getattr(__import__(module), name)
    except AttributeError:
        raise AttributeError("%s has no %r" % (of, name)) from None


def call(module, name, *args):
    before = len(sys.modules)
    loaded = () if not _DROP else tuple(sys.modules)
    mod = __import__(module)
    try:
        return getattr(mod, name)(*args)
    finally:
        if _DROP and len(sys.modules) != before:
            _drop(loaded)


async def run(module, name, *args):
    """call() from a task: loads the module, lets the others run (loading takes a while),
    calls the function (awaiting an async one's coroutine), then drops what it loaded
    (call() would drop the modules before a coroutine's body ran, and leave what it imported)."""
    import asyncio  # the caller's: resident

    before = len(sys.modules)
    loaded = () if not _DROP else tuple(sys.modules)
    try:
        mod = __import__(module)
        await asyncio.sleep(0)
        got = getattr(mod, name)(*args)
        return (await got) if hasattr(got, "send") else got
    finally:
        if _DROP and len(sys.modules) != before:
            _drop(loaded)


def steps(module, name, *args):
    """call() for a generator function: its items (and its value), then what it loaded is
    dropped."""
    before = len(sys.modules)
    loaded = () if not _DROP else tuple(sys.modules)
    try:
        return (yield from getattr(__import__(module), name)(*args))
    finally:
        if _DROP and len(sys.modules) != before:
            _drop(loaded)


def call_in_steps(module, name, *args):
    """call() for a generator's caller, in two steps: the module loaded, a yield (loading it
    takes a while), then the call; the generator's value is the call's, and what it loaded
    is dropped after it: `x = yield from cold.call_in_steps("m", "f", a)`."""
    before = len(sys.modules)
    loaded = () if not _DROP else tuple(sys.modules)
    try:
        mod = __import__(module)
        yield
        return getattr(mod, name)(*args)
    finally:
        if _DROP and len(sys.modules) != before:
            _drop(loaded)


def _drop(loaded):
    for key in tuple(sys.modules):
        if key not in loaded:
            del sys.modules[key]

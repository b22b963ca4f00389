"""Code a running board needs only now and then: a plain import on the rare path, out of RAM after.

    with cold.Rare():                      # rules.Match.new
        import rules_setup
        return rules_setup.new(self, now, options)

    with cold.Rare():                      # a task (app.Board.serve: report.save), a generator
        import report                      # (report.build: matchdoc.head), the same way
        await asyncio.sleep(0)
        await report.save(board)

    def __getattr__(name):                 # rules.E_POINT and the like: from matchnames
        return cold.forward("matchnames", name, "rules")

On MicroPython every module imported inside the `with` block (the one named there and
whatever it imported in turn) leaves sys.modules when the block ends, however it ends (a
return, an exception, a generator closed): its code is garbage once the caller lets go of it
(the board keeps only what it runs every second in RAM). On CPython (host tools, tests) they
stay loaded. Loading needs memory: a MemoryError reaches the caller, who decides what it costs.

Cold halves: a class whose rare work is split off keeps it in a module of its own, named after
its hot module, that works on the class's private state (rules_setup.py, rules_events.py,
rules_logback.py, rules_state.py and rules_innings.py for rules.Match; store_snapshot.py,
store_journal.py, store_checkpoint.py, store_history.py, store_reportfile.py and store_files.py
for store.MatchStore; view_setup.py for view.View; config_edit.py for config.py; app_cold.py for
app.Board). Those pairs are one class in two files; no other module uses another's underscore
names (a test checks).
"""

import sys

_DROP = sys.implementation.name == "micropython"


def forward(module, name, of):
    """module.name, for a module's __getattr__ that finds its public names in its cold twin
    (rules in matchnames); an
    unknown name raises AttributeError("<of> has no 'name'")."""
    if name[:2] == "__":  # __path__ and the like (CPython's `from m import x` asks): never forwarded
        raise AttributeError(name)
    try:
        return getattr(__import__(module), name)
    except AttributeError:
        raise AttributeError("%s has no %r" % (of, name)) from None


class Rare:
    """`with cold.Rare():` around the rare path's imports and calls: on MicroPython, the modules
    loaded inside leave sys.modules at its end (nothing is done when none was loaded)."""

    def __enter__(self):
        self.loaded = tuple(sys.modules) if _DROP else None

    def __exit__(self, *exc):
        loaded = self.loaded
        if loaded is not None and len(sys.modules) != len(loaded):
            for key in tuple(sys.modules):
                if key not in loaded:
                    del sys.modules[key]

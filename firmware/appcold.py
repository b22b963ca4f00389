"""app.Board's work done once, or only now and then: loaded for it and dropped (cold.py).

    asyncio.run(cold.call("appcold", "start", board))   # app.Board.serve: the tasks
    cold.call("appcold", "reinit_buses", board)          # display_task: a stuck bus

Part of app.Board (its cold half: it works on the board's state). start() makes the
tasks and hands back what runs them (asyncio.gather's coroutine): no start-up coroutine
stays in RAM for as long as the board runs, nor does this code.
"""

import asyncio
import time

import app


def start(b):
    """The board's tasks, made (asyncio runs them once it runs what this returns), the
    exception handler set and the displays drawn a first time."""
    asyncio.get_event_loop().set_exception_handler(app._exception_handler)
    b._oom = b.match.out_of_memory
    b.view.render(time.ticks_ms())
    tasks = [
        asyncio.create_task(b.buttons_task()),
        asyncio.create_task(b.clock_task()),
        asyncio.create_task(b.display_task()),
        asyncio.create_task(b.save_task()),
        asyncio.create_task(b.buzzer.run()),
        asyncio.create_task(b.watchdog_task()),
    ]
    if b.radio is not None:
        tasks.append(asyncio.create_task(b.radio_task()))
    if b.hall is not None:
        tasks.append(asyncio.create_task(b.wifi_task()))
    print("carom: running on board", b.name)
    return asyncio.gather(*tasks)


def reinit_buses(b):
    """Build anew every bus (a stuck SDA line) and hand it to its chips that stopped answering."""
    for spec in b.i2c_specs:  # (bus, scl, sda, freq)
        bus = app.make_bus(*spec)
        b.buses[spec[0]] = bus
        for k in range(len(b.chips)):
            if b.chip_bus[k] == spec[0] and b.view.failed[k]:
                b.chips[k].set_bus(bus)

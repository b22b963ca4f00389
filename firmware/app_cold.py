"""app.Board's work done once, or only now and then: loaded for it and dropped (cold.py).

    with cold.Rare():
        import app_cold
        tasks = app_cold.start(board)   # app.Board.serve: the tasks (then asyncio.run(tasks))
    app_cold.stopped(board)             # serve, after Ctrl-C
    app_cold.reinit_buses(board)        # Board.reinit_buses (display_task): a stuck bus
    app_cold.flooded(board, table)      # Board.flooded (radio_task): strangers' addresses forgotten
    await app_cold.voice_rest(board)    # report.save: the voice out of RAM while a report is written
    app_cold.voice_wake(board)          # and back

Part of app.Board (its cold half: it works on the board's state). start() makes the
tasks and hands back what runs them (asyncio.gather's coroutine): no start-up coroutine
stays in RAM for as long as the board runs, nor does this code.
"""

import asyncio
import time

import machine

import app
from errorcodes import ERROR_RADIO_FLOOD, FEED_MS, STORE_ERROR_MS
from voicenames import PACK_FILE

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


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
    if b.voice_setup is not None:  # a speaker: the voice, made last (its buffers above the board's objects)
        voice_wake(b)
    if b.radio is not None:
        tasks.append(asyncio.create_task(b.radio_task()))
    if b.hall is not None:
        tasks.append(asyncio.create_task(b.wifi_task()))
    print("carom: running on board", b.name)
    return asyncio.gather(*tasks)


def stopped(b):
    """Ctrl-C stopped the tasks (the REPL): the armed watchdog is fed by a timer from now on."""
    print("carom: stopped (Ctrl-C); the watchdog is fed by a timer")
    if b.wdt is not None:
        import boot_watchdog

        boot_watchdog.start(b.wdt, FEED_MS)


async def voice_rest(b):
    """Once the voice has said what it had to (the end's call), its task ends and it leaves RAM
    (its code too: speech.py is in no sys.modules, startup.py loaded it on its rare path):
    b.voice_setup keeps what makes it again (voice_wake). Calls made meanwhile are not said."""
    v = b.ctrl.voice
    while not v.idle():
        await asyncio.sleep_ms(100)
    b.ctrl.voice = None  # no more calls
    v.rest = True
    while v.rest is True:  # its task's last steps: the bus and the pack let go
        await asyncio.sleep_ms(10)
    b.voice_setup = (v.setup, None, bytes(v.state))


def voice_wake(b):
    """The voice made (at the tasks' start, and again after a rest: voice_rest), its task started
    (not gathered: when it rests nothing holds it); at the start its clips checked (a damaged one:
    E 25 for a while), after a rest not again. No pack on the flash: no voice, nothing loaded for
    it. Short of memory: the board goes on without it (tried again after the next report)."""
    import os

    spk, vc, state = b.voice_setup  # (speaker, configuration, None), or after a rest (Voice.setup, None, state)
    try:
        os.stat(PACK_FILE)
    except OSError:
        b.voice_setup = None
        return
    import speech_setup

    try:
        v, code = speech_setup.make(spk, vc, b.match, machine, state)
    except MemoryError:
        b.short_of_memory()
        return
    b.voice_setup = None
    if code and not b.view.error:  # a damaged voice pack
        b.view.error = code
        b.error_until = time.ticks_add(time.ticks_ms(), STORE_ERROR_MS)
    if v is not None:
        v.board = b
        b.ctrl.voice = v
        asyncio.create_task(v.run())


def reinit_buses(b):
    """Build anew every bus (a stuck SDA line) and hand it to its chips that stopped answering."""
    for spec in b.i2c_specs:  # (bus, scl, sda, freq)
        bus = machine.I2C(spec[0], scl=machine.Pin(spec[1]), sda=machine.Pin(spec[2]), freq=spec[3])
        b.buses[spec[0]] = bus
        for k in range(len(b.chips)):
            if b.chip_bus[k] == spec[0] and b.view.failed[k]:
                b.chips[k].set_bus(bus)


def flooded(b, table):
    """Radio frames from too many sender addresses (app.Board.radio_task): every address but
    the paired remote's is forgotten (ESP-NOW keeps one entry each in `table`, its
    peers_table), E 44 shows for _STORE_ERROR_MS and the console says so once a flood."""
    peer = b.radio.peer
    senders = len(table)
    for mac in [mac for mac in table if mac != peer]:
        del table[mac]
    if b.view.error != ERROR_RADIO_FLOOD:
        print(
            "carom: radio frames from %d sender addresses: all but the paired remote's forgotten (E %d)"
            % (senders, ERROR_RADIO_FLOOD)
        )
    if not b.view.error or b.view.error == ERROR_RADIO_FLOOD:
        b.view.error = ERROR_RADIO_FLOOD
        b.error_until = time.ticks_add(time.ticks_ms(), STORE_ERROR_MS)

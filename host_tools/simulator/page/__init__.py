"""The simulator page: virtual wall boards drawn in a browser, segment by segment.

`carom sim` (without --headless) boots one or more virtual boards (host_tools/simulator/vboard)
running the real firmware and serves a page at http://127.0.0.1:8080 that draws
every display from the segments the firmware wrote to the emulated HT16K33 chips,
with its brightness and blinking, the LEDs, the buttons (mouse and keyboard), the
buzzer (Web Audio) and a panel to cut the power, unplug displays and move the clock.

    server.py   HTTP + server-sent events on asyncio (standard library only)
    session.py  one board: its thread, its life, what it shows (snapshots, the log, the hint); made of
        pacing.py   virtual time paced with real time (Pacer, TurnLock)
        actions.py  the page's actions (presses, power, plug, jumps, identify), each checked
        form.py     names and match options written into config.json over the serial console
        console.py  the board's console read: refused presses, the identify mode, the raw REPL
        redact.py   the Redactor: secrets never shown
        layout.py   what the page draws: displays, buttons, LEDs by column
    phase.py    the saved match's phase, for the hint line
    static/     index.html, app.js, style.css (no build step, nothing from the internet)
"""

from .server import ListenError, run  # noqa: F401

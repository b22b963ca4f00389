"""The simulator page: virtual wall boards drawn in a browser, segment by segment.

`carom sim` (without --headless) boots one or more virtual boards (host_tools/simulator/vboard)
running the real firmware and serves a page at http://127.0.0.1:8080 that draws
every display from the segments the firmware wrote to the emulated HT16K33 chips,
with its brightness and blinking, the LEDs, the buttons (mouse and keyboard), the
buzzer (Web Audio) and a panel to cut the power, unplug displays and move the clock.

    server.py   HTTP + server-sent events on asyncio (standard library only)
    session.py  one board: its thread, virtual time paced with real time, actions, snapshots
    static/     index.html, app.js, style.css (no build step, nothing from the internet)
"""

from .server import ListenError, run  # noqa: F401

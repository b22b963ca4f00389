"""The simulator page's server: aiohttp behind the project's door (host_tools/web.py).

    GET  /                          the page (static/index.html, app.js, style.css: no build step)
    GET  /static/<file>             the page's files, served from this package
    GET  /api/boards                every board's layout: displays (bus, addr, kind, fields), buttons, LEDs
    GET  /api/state                 every board's state now (the same objects the event stream sends)
    GET  /events                    server-sent events, to every page at once:
                                      hello  {server, boards}      on connect, then each board's
                                      state  {board, chips, leds, buttons, powered, t, ...}
                                      log    {board, t, kind, text} button presses, power, resets, printed lines
                                      sound  {board, events: [{t_ms, age_ms, freq, duty}]}  buzzer PWM changes
                                      voice  {board, rate, age_ms, pcm}  the samples the I2S got (base64)
                                      tick   {board, t}                  virtual time, when nothing else changed
                                      refused {board, button, action, reason, t}  the firmware refused a press
    GET  /api/boards/<n>/config     the form's values: names, clubs, match options (a wall board)
    POST /api/boards/<n>/config     {"values": {"players.A.name": "ANNA", ...}, "new_match": false}
                                    -> written as config.json through the board's serial console
                                    (as `carom config set`); {"ok": true, "said": [...]} or 400 {"error"}
    POST /api/boards/<n>/action     {"do": "tap"|"down"|"up"|"long", "button": "A.point"}
                                    {"do": "power", "on": true|false}
                                    {"do": "plug", "chip": "1:0x71", "plugged": true|false}
                                    {"do": "advance", "seconds": 60}   (0 < seconds <= 300)
                                    {"do": "identify"}   the identify mode, as a person starts it: power
                                    off, the definition's identify button held, power on, released
                                    once the mode shows (the hint line then says what to do)
                                    -> {"ok": true} or 400 {"error": reason}
                                    (advance: answered once the clock got there; the board
                                    answers the other requests meanwhile; 429 while a jump
                                    runs on that board's clock, a referee box's being its wall's)

A POST must be `Content-Type: application/json`: a page from another origin
cannot send that without the browser asking first (CORS), and nothing here
says yes, so other sites cannot press the buttons; an Origin or Host that is
not this server's is refused before (host_tools/web.py: 403, 421).  Every field is checked
by its JSON type and range (session.check_action): booleans are true/false,
numbers are numbers, names are the board's own.

Each board runs in its own thread (web/session.py); the event loop only moves
bytes.  Calls that drive a board run in the default executor.
"""

import asyncio
import json
import os
import re
import secrets

from ... import web
from ...json_body import json_body
from ...web import ListenError  # noqa: F401 (host_tools.simulator.page's)
from .session import BoardSession, close_all

STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
PORT = 8080  # the default --listen port (sim.py), shown in --listen's error message
MAX_BODY = 65536
CLIENT_QUEUE = 2000  # events waiting for one page; a page that falls this far behind is dropped


class Server(web.Server):
    """The HTTP side: routes requests to the static files, the boards and the event stream."""

    max_body = MAX_BODY

    def __init__(self, sessions, hub):
        super().__init__(STATIC_DIR)
        self.sessions = sessions
        self.hub = hub
        self._jumping = set()  # the clocks (Pacer) a jump runs on now

    async def route(self, request):
        method, path = request.method, request.path
        if method == "GET" and path in ("/", "/index.html"):
            return self.file("index.html")
        if method == "GET" and path.startswith("/static/"):
            return self.file(path[len("/static/") :])
        if method == "GET" and path == "/api/boards":
            return self.send(200, {"server": self.server_id, "boards": [s.layout for s in self.sessions]})
        if method == "GET" and path == "/api/state":
            loop = asyncio.get_running_loop()
            states = [await loop.run_in_executor(None, s.snapshot) for s in self.sessions]
            return self.send(200, states)
        if method == "GET" and path == "/events":
            return await self.stream(request, self.hub, self._opening)
        m = re.fullmatch(r"/api/boards/(\d{1,4})/config", path)  # (a board's number: not 5,000 digits)
        if m:
            return await self._config(int(m.group(1)), method, request.headers, request.body)
        m = re.fullmatch(r"/api/boards/(\d{1,4})/action", path)
        if m:
            if method != "POST":
                return self.send(405, {"error": "use POST"})
            return await self._action(int(m.group(1)), request.headers, request.body)
        if method not in ("GET", "POST"):
            return self.send(405, {"error": "method not allowed"})
        return self.send(404, {"error": "not found: %s" % path})

    async def _action(self, index, headers, body):
        if headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            return self.send(415, {"error": "send application/json"})
        if not 0 <= index < len(self.sessions):
            return self.send(404, {"error": "no board %d" % index})
        try:
            action = json_body(body)
            if not isinstance(action, dict):
                raise ValueError
        except ValueError:
            return self.send(400, {"error": "the body must be a JSON object"})
        clock = self.sessions[index].pacer if action.get("do") == "advance" else None
        if clock is not None and clock in self._jumping:  # one jump at a time per clock, none waiting
            return self.send(
                429,
                {
                    "error": "board %d's clock is still moving: one jump at a time "
                    "(send the next once this one is answered)" % index
                },
            )
        loop = asyncio.get_running_loop()
        if clock is not None:
            self._jumping.add(clock)
        try:
            reason = await loop.run_in_executor(None, self.sessions[index].act, action)
        finally:
            self._jumping.discard(clock)
        if reason:
            return self.send(400, {"error": reason})
        return self.send(200, {"ok": True})

    async def _config(self, index, method, headers, body):
        """GET: the form's values (names, clubs, match options); POST {"values": {key: text},
        "new_match": bool}: written through the board's serial console (session.configure)."""
        if not 0 <= index < len(self.sessions) or not self.sessions[index].layout.get("form"):
            return self.send(404, {"error": "no board %d with a match to configure" % index})
        session = self.sessions[index]
        loop = asyncio.get_running_loop()
        if method == "GET":
            return self.send(200, await loop.run_in_executor(None, session.config_values))
        if method != "POST":
            return self.send(405, {"error": "use GET or POST"})
        if headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            return self.send(415, {"error": "send application/json"})
        try:
            request = json_body(body)
            if not isinstance(request, dict) or set(request) - {"values", "new_match"}:
                raise ValueError
        except ValueError:
            return self.send(400, {"error": 'the body must be {"values": {...}, "new_match": false}'})
        new_match = request.get("new_match", False)
        if type(new_match) is not bool:
            return self.send(400, {"error": "new_match must be true or false"})
        error, said = await loop.run_in_executor(None, session.configure, request.get("values"), new_match)
        if error:
            return self.send(400, {"error": error, "said": said})
        return self.send(200, {"ok": True, "said": said})

    async def _opening(self, out):
        """What a page gets first: hello, then each board's log so far and its state."""
        out.write(web.sse("hello", {"server": self.server_id, "boards": len(self.sessions)}))
        loop = asyncio.get_running_loop()
        for s in self.sessions:
            for entry in list(s.log):
                out.write(web.sse("log", dict(entry, old=True)))
            out.write(web.sse("state", await loop.run_in_executor(None, s.snapshot)))


def _booted(session, out):
    i = session.index
    out("carom sim: board %d: %s, flash %s" % (i + 1, session.board_name, session.flash_dir))
    # Hook for the virtual board's serial port (a pty for mpremote), once it has one.
    serial = getattr(session.vb, "serial_path", None)
    if serial:
        out("carom sim: board %d: serial console %s (mpremote connect %s)" % (i + 1, serial, serial))


async def _boot_pair(loop, board_name, flash, publish, out, sessions):
    """The wall (board 0) and the referee remote (board 1) on one RadioHub, paired before they boot;
    both boot before time flows, then the wall's clock thread advances the hub (both boards)."""
    from ..vboard import RadioHub

    hub = RadioHub(seed=secrets.randbits(32))
    wall_cfg, remote_cfg = paired_configs(board_name, flash)
    wall = BoardSession(
        0, board_name, flash, publish=publish, config=wall_cfg, radio={"hub": hub, "name": "wall", "mac": WALL_MAC}
    )
    sessions.append(wall)
    await loop.run_in_executor(None, wall.boot)
    remote = BoardSession(
        1,
        REMOTE_BOARD,
        flash.rstrip("/") + "-remote" if flash else None,
        publish=publish,
        config=remote_cfg,
        radio={"hub": hub, "name": "remote", "mac": REMOTE_MAC},
        lead=wall,
    )
    sessions.append(remote)
    await loop.run_in_executor(None, remote.boot)
    wall.layout["paired"] = remote.layout["paired"] = True
    wall.partner = remote  # a refusal the wall prints may be of the referee box's press
    remote.layout["remote"] = True
    remote.layout["title"] = "Referee box"
    wall.run()
    remote.run()
    _booted(wall, out)
    _booted(remote, out)


def flash_dirs(flash, count):
    """The flash folder of each board: FLASH itself for one board, FLASH/board1.. for several."""
    if flash is None:
        return [None] * count
    if count == 1:
        return [flash]
    return [os.path.join(flash, "board%d" % (i + 1)) for i in range(count)]


REMOTE_BOARD = "referee"  # boards/referee.json: the referee's handheld
WALL_MAC = bytes.fromhex("240ac4000011")
REMOTE_MAC = bytes.fromhex("240ac4000021")


def mac_text(mac):
    return ":".join("%02x" % b for b in mac)


def paired_configs(board_name, flash):
    """config.json of the wall and of the remote, paired as `carom pair` pairs them: a fresh random
    key, each one's MAC as the other's peer.  A config.json already in FLASH is kept, its radio set."""
    key = secrets.token_hex(32)
    wall = {"board": board_name}
    if flash is not None:
        try:
            with open(os.path.join(flash, "config.json")) as f:
                loaded = json.load(f)
            if isinstance(loaded, dict):
                wall = loaded
        except (OSError, ValueError):
            pass
    wall = dict(wall, radio=dict(wall.get("radio") or {}, peer=mac_text(REMOTE_MAC), key=key))
    remote = {"board": REMOTE_BOARD, "radio": {"peer": mac_text(WALL_MAC), "key": key}}
    return wall, remote


def run(board_name, listen, count=1, flash=None, out=print, ready=None, stop=None, remote=False):
    """Boot `count` boards, serve the page until Ctrl-C / SIGTERM (or `stop` is set), stop everything.

    With `remote`, one wall board and a referee remote (boards/referee.json) paired over one
    RadioHub, the wall's clock thread driving both; the remote is board 1 (its flash, when FLASH
    is given, is FLASH-remote).  `ready(url, sessions)` is called once the page answers; `stop`,
    a threading.Event, stops the server when set (for running it on a thread).
    """
    if remote and count != 1:
        raise ValueError("--remote goes with one board (no --boards)")
    sock = web.listen(listen, PORT)
    url = web.url_of(sock)
    sessions = []
    try:
        return asyncio.run(_main(sock, url, board_name, count, flash, out, ready, stop, sessions, remote))
    finally:
        close_all(sessions)
        sock.close()


async def _main(sock, url, board_name, count, flash, out, ready, stop, sessions, remote=False):
    loop = asyncio.get_running_loop()
    hub = web.Hub(CLIENT_QUEUE, loop)
    stopping = web.stop_signals(loop)

    def publish(kind, index, payload):  # from the board threads
        hub.publish(kind, payload)

    if remote:
        await _boot_pair(loop, board_name, flash, publish, out, sessions)
    for i, flash_dir in enumerate(flash_dirs(flash, count) if not remote else ()):
        session = BoardSession(i, board_name, flash_dir, publish=publish)
        sessions.append(session)
        await loop.run_in_executor(None, session.start)
        _booted(session, out)

    def started():
        out("carom sim: the simulator is at %s  (Ctrl-C stops it)" % url)
        if ready:
            ready(url, sessions)

    async def closing():
        out("carom sim: stopping")
        hub.close()

    try:
        await web.serve(Server(sessions, hub), sock, stopping, stop, started, closing)
    finally:
        await loop.run_in_executor(None, close_all, sessions)
    return 0

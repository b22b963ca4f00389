"""The simulator page's server: standard library asyncio, no framework.

    GET  /                          the page (static/index.html, app.js, style.css: no build step)
    GET  /static/<file>             the page's files, served from this package
    GET  /api/boards                every board's layout: displays (bus, addr, kind, fields), buttons, LEDs
    GET  /api/state                 every board's state now (the same objects the event stream sends)
    GET  /events                    server-sent events, to every page at once:
                                      hello  {server, boards}      on connect, then each board's
                                      state  {board, chips, leds, buttons, powered, t, ...}
                                      log    {board, t, kind, text} button presses, power, resets, printed lines
                                      sound  {board, events: [{t_ms, age_ms, freq, duty}]}  buzzer PWM changes
                                      tick   {board, t}                  virtual time, when nothing else changed
    POST /api/boards/<n>/action     {"do": "tap"|"down"|"up"|"long", "button": "A.point"}
                                    {"do": "power", "on": true|false}
                                    {"do": "plug", "chip": "1:0x71", "plugged": true|false}
                                    {"do": "advance", "seconds": 60}
                                    -> {"ok": true} or 400 {"error": reason}

A POST must be `Content-Type: application/json`: a page from another origin
cannot send that without the browser asking first (CORS), and nothing here
says yes, so other sites cannot press the buttons.

Each board runs in its own thread (web/session.py); the event loop only moves
bytes.  Calls that drive a board run in the default executor.
"""

import asyncio
import json
import mimetypes
import os
import re
import signal
import socket
import time

from .session import BoardSession

STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
MAX_HEADER = 16384
MAX_BODY = 65536
CLIENT_QUEUE = 2000  # events waiting for one page; a page that falls this far behind is dropped
PING_S = 15


class ListenError(Exception):
    """The page cannot be served where asked (a busy port, an unknown host)."""


class Hub:
    """Fans events out from the board threads to every connected page."""

    def __init__(self, loop):
        self.loop = loop
        self.clients = set()

    def publish(self, kind, index, payload):
        """Thread-safe: called from the board threads."""
        data = ("event: %s\ndata: %s\n\n" % (kind, json.dumps(payload, separators=(",", ":")))).encode()
        try:
            self.loop.call_soon_threadsafe(self._fanout, data)
        except RuntimeError:
            pass  # the loop is closed: shutting down

    def _fanout(self, data):
        for queue in list(self.clients):
            try:
                queue.put_nowait(data)
            except asyncio.QueueFull:  # a page that stopped reading: drop it (it reconnects)
                self.clients.discard(queue)
                while not queue.empty():
                    queue.get_nowait()
                queue.put_nowait(None)

    def add(self):
        queue = asyncio.Queue(CLIENT_QUEUE)
        self.clients.add(queue)
        return queue

    def remove(self, queue):
        self.clients.discard(queue)

    def close(self):
        for queue in list(self.clients):
            try:
                queue.put_nowait(None)
            except asyncio.QueueFull:
                pass
        self.clients.clear()


class Server:
    """The HTTP side: routes requests to the static files, the boards and the event stream."""

    def __init__(self, sessions, hub):
        self.sessions = sessions
        self.hub = hub
        self.server_id = "%x" % int(time.time() * 1000)
        self.static = {n for n in os.listdir(STATIC_DIR) if os.path.isfile(os.path.join(STATIC_DIR, n))}
        self._tasks = set()

    async def handle(self, reader, writer):
        task = asyncio.current_task()
        self._tasks.add(task)
        try:
            await self._handle(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            self._tasks.discard(task)
            try:
                writer.close()
            except Exception:
                pass

    async def cancel_all(self):
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2)

    async def _handle(self, reader, writer):
        head = await reader.readuntil(b"\r\n\r\n")
        if len(head) > MAX_HEADER:
            return await self._send(writer, 431, {"error": "headers too large"})
        lines = head.decode("latin-1").split("\r\n")
        try:
            method, target, _ = lines[0].split(" ", 2)
        except ValueError:
            return await self._send(writer, 400, {"error": "bad request line"})
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                k, v = line.split(":", 1)
                headers[k.strip().lower()] = v.strip()
        path = target.split("?", 1)[0]
        body = b""
        length = int(headers.get("content-length") or 0)
        if length > MAX_BODY:
            return await self._send(writer, 413, {"error": "body too large"})
        if length:
            body = await reader.readexactly(length)

        if method == "GET" and path in ("/", "/index.html"):
            return await self._file(writer, "index.html")
        if method == "GET" and path.startswith("/static/"):
            return await self._file(writer, path[len("/static/"):])
        if method == "GET" and path == "/api/boards":
            return await self._send(writer, 200, {"server": self.server_id,
                                                  "boards": [s.layout for s in self.sessions]})
        if method == "GET" and path == "/api/state":
            loop = asyncio.get_running_loop()
            states = [await loop.run_in_executor(None, s.snapshot) for s in self.sessions]
            return await self._send(writer, 200, states)
        if method == "GET" and path == "/events":
            return await self._events(writer)
        m = re.fullmatch(r"/api/boards/(\d+)/action", path)
        if m:
            if method != "POST":
                return await self._send(writer, 405, {"error": "use POST"})
            return await self._action(writer, int(m.group(1)), headers, body)
        if method not in ("GET", "POST"):
            return await self._send(writer, 405, {"error": "method not allowed"})
        return await self._send(writer, 404, {"error": "not found: %s" % path})

    async def _action(self, writer, index, headers, body):
        if not headers.get("content-type", "").startswith("application/json"):
            return await self._send(writer, 415, {"error": "send application/json"})
        if not 0 <= index < len(self.sessions):
            return await self._send(writer, 404, {"error": "no board %d" % index})
        try:
            action = json.loads(body or b"{}")
            if not isinstance(action, dict):
                raise ValueError
        except ValueError:
            return await self._send(writer, 400, {"error": "the body must be a JSON object"})
        loop = asyncio.get_running_loop()
        reason = await loop.run_in_executor(None, self.sessions[index].act, action)
        if reason:
            return await self._send(writer, 400, {"error": reason})
        return await self._send(writer, 200, {"ok": True})

    async def _events(self, writer):
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
                     b"Connection: keep-alive\r\nX-Accel-Buffering: no\r\n\r\nretry: 1000\n\n")
        queue = self.hub.add()
        try:
            hello = {"server": self.server_id, "boards": len(self.sessions)}
            writer.write(("event: hello\ndata: %s\n\n" % json.dumps(hello)).encode())
            loop = asyncio.get_running_loop()
            for s in self.sessions:
                for entry in list(s.log):
                    writer.write(("event: log\ndata: %s\n\n" % json.dumps(dict(entry, old=True))).encode())
                state = await loop.run_in_executor(None, s.snapshot)
                writer.write(("event: state\ndata: %s\n\n" % json.dumps(state)).encode())
            await writer.drain()
            while True:
                try:
                    data = await asyncio.wait_for(queue.get(), PING_S)
                except asyncio.TimeoutError:
                    data = b": ping\n\n"
                if data is None:
                    break
                writer.write(data)
                await writer.drain()
        finally:
            self.hub.remove(queue)

    async def _file(self, writer, name):
        if name not in self.static:
            return await self._send(writer, 404, {"error": "not found: %s" % name})
        with open(os.path.join(STATIC_DIR, name), "rb") as f:
            data = f.read()
        ctype = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if ctype.startswith("text/") or ctype.endswith("javascript"):
            ctype += "; charset=utf-8"
        await self._send_bytes(writer, 200, data, ctype)

    async def _send(self, writer, status, obj):
        await self._send_bytes(writer, status, json.dumps(obj).encode(), "application/json")

    async def _send_bytes(self, writer, status, data, ctype):
        reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
                  413: "Payload Too Large", 415: "Unsupported Media Type",
                  431: "Request Header Fields Too Large"}.get(status, "Error")
        writer.write(("HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nCache-Control: no-store\r\n"
                      "Connection: close\r\n\r\n" % (status, reason, ctype, len(data))).encode() + data)
        await writer.drain()


def parse_listen(text):
    """'127.0.0.1:8080', ':8080', '[::1]:8080', 'localhost:0' (0: any free port) -> (host, port)."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ValueError("--listen wants HOST:PORT, e.g. 127.0.0.1:8080, not %r" % text)
    host = host.strip("[]") or "127.0.0.1"
    return host, int(port)


def bind(host, port):
    """A listening socket (bound before the boards boot, so a busy port fails fast)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    family, _, _, _, addr = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(addr)
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def url_of(sock):
    host, port = sock.getsockname()[:2]
    if ":" in host:
        host = "[%s]" % host
    if host in ("0.0.0.0", "[::]"):
        host = "127.0.0.1"
    return "http://%s:%d" % (host, port)


def flash_dirs(flash, count):
    """The flash folder of each board: FLASH itself for one board, FLASH/board1.. for several."""
    if flash is None:
        return [None] * count
    if count == 1:
        return [flash]
    return [os.path.join(flash, "board%d" % (i + 1)) for i in range(count)]


def run(board_name, listen, count=1, flash=None, out=print, ready=None, stop=None):
    """Boot `count` boards, serve the page until Ctrl-C / SIGTERM (or `stop` is set), stop everything.

    `ready(url, sessions)` is called once the page answers; `stop`, a threading.Event,
    stops the server when set (for running it on a thread).
    """
    host, port = parse_listen(listen)
    try:
        sock = bind(host, port)
    except OSError as e:
        raise ListenError("cannot serve on %s: %s (choose another with --listen HOST:PORT)"
                          % (listen, e.strerror or e)) from None
    url = url_of(sock)
    sessions = []
    try:
        return asyncio.run(_main(sock, url, board_name, count, flash, out, ready, stop, sessions))
    finally:
        for s in sessions:
            s.close()
        sock.close()


async def _main(sock, url, board_name, count, flash, out, ready, stop, sessions):
    loop = asyncio.get_running_loop()
    hub = Hub(loop)
    stopping = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stopping.set)
        except (ValueError, RuntimeError, NotImplementedError):
            pass  # not the main thread: `stop` does it
    for i, flash_dir in enumerate(flash_dirs(flash, count)):
        session = BoardSession(i, board_name, flash_dir, publish=hub.publish)
        sessions.append(session)
        await loop.run_in_executor(None, session.start)
        out("carom sim: board %d: %s, flash %s" % (i + 1, board_name, session.flash_dir))
        # Hook for the virtual board's serial port (a pty for mpremote), once it has one.
        serial = getattr(session.vb, "serial_path", None)
        if serial:
            out("carom sim: board %d: serial console %s (mpremote connect %s)" % (i + 1, serial, serial))
    server = Server(sessions, hub)
    srv = await asyncio.start_server(server.handle, sock=sock, limit=MAX_HEADER * 4)
    out("carom sim: the simulator is at %s  (Ctrl-C stops it)" % url)
    if ready:
        ready(url, sessions)
    try:
        while not (stopping.is_set() or (stop is not None and stop.is_set())):
            try:
                await asyncio.wait_for(stopping.wait(), 0.2)
            except asyncio.TimeoutError:
                pass
    finally:
        out("carom sim: stopping")
        srv.close()
        hub.close()
        await server.cancel_all()
        for s in sessions:
            await loop.run_in_executor(None, s.close)
    return 0

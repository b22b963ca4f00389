"""The small HTTP server under the host tools' pages (`carom sim`, `carom hall`): standard library asyncio.

One request per connection, JSON answers, the page's own files, server-sent events fanned out by a
Hub; a subclass of Server says what each path answers (route).
"""

import asyncio
import collections
import json
import mimetypes
import os
import signal
import socket
import time

MAX_HEADER = 16384
PING_S = 15  # a comment line on a quiet event stream, so proxies and browsers keep it open
REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 413: "Payload Too Large",
           415: "Unsupported Media Type", 431: "Request Header Fields Too Large"}
EVENTS_HEAD = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
               b"Connection: keep-alive\r\nX-Accel-Buffering: no\r\n\r\nretry: 1000\n\n")

Request = collections.namedtuple("Request", "method path headers body")


class ListenError(Exception):
    """The page cannot be served where asked (a busy port, an unknown host)."""


def parse_listen(text, example_port):
    """'127.0.0.1:8080', ':8080', '[::1]:8080', 'localhost:0' (0: any free port) -> (host, port).

    `example_port` is the port the error message shows (the tool's default)."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ValueError("--listen wants HOST:PORT, e.g. 127.0.0.1:%d, not %r" % (example_port, text))
    return host.strip("[]") or "127.0.0.1", int(port)


def bind(host, port):
    """A listening socket, bound before anything else starts, so a busy port fails fast."""
    family, _, _, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
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


def listen(text, example_port):
    """The socket for `--listen TEXT`: ValueError for a bad TEXT, ListenError when it cannot be served."""
    host, port = parse_listen(text, example_port)
    try:
        return bind(host, port)
    except OSError as e:
        raise ListenError("cannot serve on %s: %s (choose another with --listen HOST:PORT)"
                          % (text, e.strerror or e)) from None


def url_of(sock):
    host, port = sock.getsockname()[:2]
    if ":" in host:
        host = "[%s]" % host
    if host in ("0.0.0.0", "[::]"):
        host = "127.0.0.1"
    return "http://%s:%d" % (host, port)


def sse(kind, payload):
    """One server-sent event, as bytes."""
    return ("event: %s\ndata: %s\n\n" % (kind, json.dumps(payload, separators=(",", ":")))).encode()


class Hub:
    """Fans events out to every connected page: a queue of `size` events each.

    send() runs on the event loop's thread, publish() on any other (it needs `loop`).
    A page that falls `size` events behind is dropped; it reconnects.
    """

    def __init__(self, size, loop=None):
        self.size = size
        self.loop = loop
        self.clients = set()

    def send(self, kind, payload):
        self.fanout(sse(kind, payload))

    def publish(self, kind, payload):
        """Thread-safe: the event is encoded here, on the caller's thread."""
        try:
            self.loop.call_soon_threadsafe(self.fanout, sse(kind, payload))
        except RuntimeError:
            pass  # the loop is closed: shutting down

    def fanout(self, data):
        for queue in list(self.clients):
            try:
                queue.put_nowait(data)
            except asyncio.QueueFull:  # a page that stopped reading: drop it
                self.clients.discard(queue)
                while not queue.empty():
                    queue.get_nowait()
                queue.put_nowait(None)

    def add(self):
        queue = asyncio.Queue(self.size)
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
    """The HTTP side: reads a request, hands it to route(writer, request), closes the connection.

    Subclasses write route() with send(), send_bytes(), file() and stream().  A body is read only
    when `max_body` is set (a longer one gets 413).
    """

    max_body = None

    def __init__(self, static_dir):
        self.static_dir = static_dir
        self.static = {n for n in os.listdir(static_dir) if os.path.isfile(os.path.join(static_dir, n))}
        self.server_id = "%x" % int(time.time() * 1000)
        self._tasks = set()

    async def route(self, writer, request):
        raise NotImplementedError

    async def start(self, sock):
        """Serve on `sock` (from listen()): the asyncio server, to close() when done."""
        return await asyncio.start_server(self.handle, sock=sock, limit=MAX_HEADER * 4)

    async def handle(self, reader, writer):
        task = asyncio.current_task()
        self._tasks.add(task)
        try:
            await self._handle(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.CancelledError):
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
            return await self.send(writer, 431, {"error": "headers too large"})
        lines = head.decode("latin-1").split("\r\n")
        try:
            method, target, _ = lines[0].split(" ", 2)
        except ValueError:
            return await self.send(writer, 400, {"error": "bad request line"})
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                k, v = line.split(":", 1)
                headers[k.strip().lower()] = v.strip()
        body = b""
        if self.max_body is not None:
            length = int(headers.get("content-length") or 0)
            if length > self.max_body:
                return await self.send(writer, 413, {"error": "body too large"})
            if length:
                body = await reader.readexactly(length)
        await self.route(writer, Request(method, target.split("?", 1)[0], headers, body))

    async def stream(self, writer, hub, opening):
        """Server-sent events until the hub closes: `await opening(writer)` writes what a page gets first.

        The page's queue is added before `opening` runs: an opening that does not await sees
        every event the queue does not.
        """
        writer.write(EVENTS_HEAD)
        queue = hub.add()
        try:
            await opening(writer)
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
            hub.remove(queue)

    async def file(self, writer, name):
        """One of the page's files, by its bare name (no folders: nothing else can be reached)."""
        if name not in self.static:
            return await self.send(writer, 404, {"error": "not found: %s" % name})
        with open(os.path.join(self.static_dir, name), "rb") as f:
            data = f.read()
        ctype = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if ctype.startswith("text/") or ctype.endswith("javascript"):
            ctype += "; charset=utf-8"
        await self.send_bytes(writer, 200, data, ctype)

    async def send(self, writer, status, obj):
        await self.send_bytes(writer, status, json.dumps(obj).encode(), "application/json")

    async def send_bytes(self, writer, status, data, ctype, extra=""):
        """`extra`: more header lines, each ending in CRLF."""
        writer.write(("HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nCache-Control: no-store\r\n"
                      "%sConnection: close\r\n\r\n" % (status, REASONS.get(status, "Error"), ctype, len(data), extra)
                      ).encode() + data)
        await writer.drain()


def stop_signals(loop):
    """An asyncio.Event that Ctrl-C and SIGTERM set (when the loop runs on the main thread)."""
    stopping = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stopping.set)
        except (ValueError, RuntimeError, NotImplementedError):
            pass  # not the main thread: the caller's threading.Event does it
    return stopping


async def wait_stopped(stopping, stop=None):
    """Return once `stopping` (from stop_signals) or `stop` (a threading.Event, or None) is set."""
    while not (stopping.is_set() or (stop is not None and stop.is_set())):
        try:
            await asyncio.wait_for(stopping.wait(), 0.2)
        except asyncio.TimeoutError:
            pass

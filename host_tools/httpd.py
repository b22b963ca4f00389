"""The small HTTP server under the host tools' pages (`carom sim`, `carom hall`): standard library asyncio.

One request per connection, JSON answers, the page's own files, server-sent events fanned out by a
Hub; a subclass of Server says what each path answers (route).

Anything on a network is reachable by strangers, so every request is checked at the door and
answered with a status, in bounded time and memory (the limits are Server's class attributes):

    400  a request line, header or Content-Length that is not HTTP; a body that is not JSON
    403  an Origin that is not this server's (a page of another site)
    408  the request did not arrive within read_timeout seconds
    413  a body longer than max_body (or any body where max_body is None)
    421  a Host that is not one of this server's names (DNS rebinding)
    429  an event stream past max_streams_per_client from one address
    431  a request head longer than MAX_HEADER bytes
    500  a route that failed (no traceback is shown)
    503  max_connections connections already open; an event stream past max_streams (the rest of
         the connections stay for the pages' other requests: a crowd of streams never locks out
         the organiser's or the simulator's taps)

An event stream whose client closes is noticed at once (its connection is read for the end), so
its slot is free again then, not at the next event or ping.

Allowed Hosts: the listening address, localhost, 127.0.0.1, [::1] and the host of the URL the server
prints, with the listening port or none; a server listening on every address (0.0.0.0, [::])
accepts any Host.  An Origin, when a request has one, must be http://<its Host>.  A request without
Host (not a browser: a browser always sends one) is served.
"""

import asyncio
import collections
import json
import mimetypes
import os
import re
import signal
import socket
import time

MAX_HEADER = 16384
PING_S = 15  # a comment line on a quiet event stream, so proxies and browsers keep it open
READ_TIMEOUT_S = 10.0  # the whole request (head and body) arrives within this, else 408
WRITE_TIMEOUT_S = 30.0  # a client that takes no bytes for this long is dropped
MAX_CONNECTIONS = 100  # open connections (event streams included); one more gets 503
MAX_STREAMS = 64  # event streams open at once: the other 36 connections are kept for requests
MAX_STREAMS_PER_CLIENT = 8  # event streams from one address (a TV, an organiser's tabs)
LINGER_S = 2.0  # after an answer, what the client still sends is read and dropped this long at most ...
LINGER_BYTES = 1 << 20  # ... and this much at most (then the connection closes)
HUB_BYTES = 4 << 20  # bytes of events waiting for one page; beyond that (or `size` events) it is dropped
MAX_JSON_DEPTH = 32  # nesting of a JSON body ([ and {)
REASONS = {200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
           408: "Request Timeout", 409: "Conflict", 413: "Payload Too Large", 415: "Unsupported Media Type",
           421: "Misdirected Request", 429: "Too Many Requests", 431: "Request Header Fields Too Large",
           500: "Internal Server Error", 501: "Not Implemented", 503: "Service Unavailable"}
EVENTS_HEAD = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
               b"Connection: keep-alive\r\nX-Accel-Buffering: no\r\n\r\nretry: 1000\n\n")
LOCAL_NAMES = ("localhost", "127.0.0.1", "::1", "localhost.localdomain", "ip6-localhost")
_REQUEST_LINE = re.compile(r"([A-Z]{1,20}) (/[\x21-\x7e]*) HTTP/1\.[01]")
# A header line: its value's trailing blanks are cut in Python (a lazy group before them made a
# line of blanks quadratic: 0.4 s for one 16 KB line).
_HEADER = re.compile(r"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*+(.*)")
_DIGITS = re.compile(r"[0-9]+")
# A JSON string (escapes included; one left open runs to the end: no second try from each quote
# inside it) or a bracket. Possessive (Python 3.11): nothing is kept to backtrack into, so the
# scan is linear in the body's size with no stack that grows with a string's length.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]++|\\.)*+(?:"|\\?\Z)|[\[\]{}]', re.S)

Request = collections.namedtuple("Request", "method path headers body")


class ListenError(Exception):
    """The page cannot be served where asked (a busy port, an unknown host)."""


class BadRequest(Exception):
    """A request refused at the door: its status and the reason sent back."""

    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status
        self.reason = reason


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


def split_host(value):
    """'127.0.0.1:8080' -> ('127.0.0.1', 8080); '[::1]' -> ('::1', None); None when it is no host."""
    value = value.strip().lower()
    if value.startswith("["):
        name, sep, rest = value[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            return None
        port = rest[1:] if rest else None
    else:
        name, sep, port = value.partition(":")
        if not sep:
            port = None
    if not name or (port is not None and not _DIGITS.fullmatch(port)):
        return None
    return name, int(port) if port is not None else None


def client_address(writer):
    """The address a connection comes from ("" when unknown)."""
    peer = writer.get_extra_info("peername")
    return peer[0] if isinstance(peer, tuple) and peer else ""


def json_body(body, max_depth=MAX_JSON_DEPTH):
    """The JSON value of a request body; ValueError when it is not UTF-8 JSON, nests deeper than
    `max_depth`, or holds NaN or Infinity."""
    text = body.decode("utf-8")  # UnicodeDecodeError is a ValueError
    depth = 0
    # Nesting counted before parsing, so no recursion limit is ever met: the brackets outside
    # strings, found by the regex engine in one pass (not a Python step per character).
    for m in _JSON_TOKEN.finditer(text):
        c = m.group()[0]
        if c == '"':
            continue
        if c in "[{":
            depth += 1
            if depth > max_depth:
                raise ValueError("JSON nested deeper than %d" % max_depth)
        else:
            depth -= 1

    def constant(name):
        raise ValueError("%s is not JSON" % name)

    try:
        return json.loads(text, parse_constant=constant)
    except RecursionError:
        raise ValueError("JSON nested too deep") from None


def sse(kind, payload):
    """One server-sent event, as bytes."""
    return ("event: %s\ndata: %s\n\n" % (kind, json.dumps(payload, separators=(",", ":")))).encode()


class ClientQueue(asyncio.Queue):
    """One page's events waiting to be written: at most `maxsize` events and `max_bytes` bytes."""

    def __init__(self, maxsize, max_bytes):
        super().__init__(maxsize)
        self.max_bytes = max_bytes
        self.bytes = 0
        self.on_drop = None  # called when the hub drops this page (the stream closes its connection)

    def _put(self, item):
        self.bytes += len(item or b"")
        super()._put(item)

    def _get(self):
        item = super()._get()
        self.bytes -= len(item or b"")
        return item

    def offer(self, data):
        """Queue `data`; False (nothing queued) when it would pass either bound."""
        if self.full() or self.bytes + len(data) > self.max_bytes:
            return False
        self.put_nowait(data)
        return True

    def drop(self):
        """Empty the queue and end the stream (None), closing the page's connection."""
        while not self.empty():
            self.get_nowait()
        self.put_nowait(None)
        if self.on_drop is not None:
            self.on_drop()


class Hub:
    """Fans events out to every connected page: a queue of `size` events and `max_bytes` bytes each.

    send() runs on the event loop's thread, publish() on any other (it needs `loop`).
    A page that falls `size` events or `max_bytes` bytes behind is dropped; it reconnects.
    """

    def __init__(self, size, loop=None, max_bytes=HUB_BYTES):
        self.size = size
        self.loop = loop
        self.max_bytes = max_bytes
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
            if not queue.offer(data):  # a page that stopped reading: drop it
                self.clients.discard(queue)
                queue.drop()

    def add(self):
        queue = ClientQueue(self.size, self.max_bytes)
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
    when `max_body` is set (a longer one gets 413).  The limits below are class attributes a
    subclass or a test may change; allowed_hosts (filled by start()) may get more names.
    """

    max_body = None
    read_timeout = READ_TIMEOUT_S
    write_timeout = WRITE_TIMEOUT_S
    max_connections = MAX_CONNECTIONS
    max_streams = MAX_STREAMS
    max_streams_per_client = MAX_STREAMS_PER_CLIENT
    linger_s = LINGER_S

    def __init__(self, static_dir):
        self.static_dir = static_dir
        self.static = {n for n in os.listdir(static_dir) if os.path.isfile(os.path.join(static_dir, n))}
        self.server_id = "%x" % int(time.time() * 1000)
        self._tasks = set()
        self._answered = set()  # writers that got their status line
        self._streams = set()  # writers of event streams
        self._readers = {}  # writer -> its reader, while its request is handled
        self._stream_clients = collections.Counter()  # client address -> its event streams
        self._refusing = 0  # connections past max_connections being answered 503
        self.allowed_hosts = set(LOCAL_NAMES)
        self.any_host = False
        self.port = None

    async def route(self, writer, request):
        raise NotImplementedError

    async def start(self, sock):
        """Serve on `sock` (from listen()): the asyncio server, to close() when done."""
        host, self.port = sock.getsockname()[:2]
        if host in ("0.0.0.0", "::"):
            self.any_host = True
        self.allowed_hosts.add(host.lower())
        self.allowed_hosts.add(split_host(url_of(sock)[len("http://"):])[0])
        return await asyncio.start_server(self.handle, sock=sock, limit=MAX_HEADER * 4)

    async def handle(self, reader, writer):
        task = asyncio.current_task()
        if len(self._tasks) >= self.max_connections:
            await self._refuse(reader, writer)
            return
        self._tasks.add(task)
        self._readers[writer] = reader
        linger = True
        try:
            await self._handle(reader, writer)
        except asyncio.CancelledError:
            linger = False
        except (ConnectionError, asyncio.IncompleteReadError, TimeoutError):
            pass
        except Exception:  # a route that failed: an answer, never a traceback
            if writer not in self._answered:
                try:
                    await self.send(writer, 500, {"error": "internal error"})
                except Exception:
                    pass
        finally:
            try:
                if linger and writer not in self._streams:
                    await self._linger(reader, writer)
            finally:
                self._tasks.discard(task)
                self._answered.discard(writer)
                self._streams.discard(writer)
                self._readers.pop(writer, None)
                writer.close()

    async def _refuse(self, reader, writer):
        """503 past max_connections; past as many again waiting to close, the connection is reset."""
        if self._refusing >= self.max_connections:
            writer.transport.abort()
            return
        self._refusing += 1
        try:
            await self.send(writer, 503, {"error": "too many connections"})
            await self._linger(reader, writer)
        except Exception:
            pass
        finally:
            self._refusing -= 1
            self._answered.discard(writer)
            writer.close()

    async def _linger(self, reader, writer):
        """After the answer: end our side, then read and drop what the client still sends (at most
        LINGER_BYTES, for linger_s), so closing does not reset the connection and lose the answer."""
        try:
            if writer.transport.is_closing():
                return
            if writer.can_write_eof():
                writer.write_eof()
            got = 0
            async with asyncio.timeout(self.linger_s):
                while got < LINGER_BYTES:
                    chunk = await reader.read(65536)
                    if not chunk:
                        break
                    got += len(chunk)
        except (Exception, asyncio.CancelledError):
            pass

    async def cancel_all(self):
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2)

    async def _handle(self, reader, writer):
        try:
            async with asyncio.timeout(self.read_timeout):  # (wait_for can swallow a cancel on 3.11)
                request = await self.read_request(reader)
        except BadRequest as e:
            return await self.send(writer, e.status, {"error": e.reason})
        except TimeoutError:
            return await self.send(writer, 408, {"error": "the request did not arrive within %g s"
                                                 % self.read_timeout})
        if request is None:
            return  # the client closed before a whole request
        await self.route(writer, request)

    async def read_request(self, reader):
        """The Request, None when the client went away first; BadRequest when it is refused."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.LimitOverrunError:
            raise BadRequest(431, "headers too large") from None
        except asyncio.IncompleteReadError:
            return None
        if len(head) > MAX_HEADER:
            raise BadRequest(431, "headers too large")
        lines = head[:-4].decode("latin-1").split("\r\n")
        m = _REQUEST_LINE.fullmatch(lines[0])
        if not m:
            raise BadRequest(400, "bad request line")
        method, target = m.groups()
        headers = {}
        for line in lines[1:]:
            h = _HEADER.fullmatch(line)
            if not h:
                raise BadRequest(400, "bad header line")
            name = h.group(1).lower()
            if name in headers and name in ("host", "origin", "content-length", "content-type"):
                raise BadRequest(400, "%s given twice" % name)
            headers[name] = h.group(2).rstrip(" \t")
        self.check_origin(headers)
        if "transfer-encoding" in headers:
            raise BadRequest(400, "send a Content-Length, not Transfer-Encoding")
        length = headers.get("content-length")
        if length is not None and not _DIGITS.fullmatch(length):
            raise BadRequest(400, "bad Content-Length")
        if length is None:
            length = 0
        else:  # any number of digits is a length; more than 18 of them is too long for any body
            length = int(length) if len(length.lstrip("0")) <= 18 else 1 << 62
        body = b""
        if length and (self.max_body is None or length > self.max_body):
            raise BadRequest(413, "body too large")
        if length:
            try:
                body = await reader.readexactly(length)
            except asyncio.IncompleteReadError:
                return None
        return Request(method, target.split("?", 1)[0], headers, body)

    def host_allowed(self, value):
        """Whether a Host header names this server (see the module's docstring)."""
        parts = split_host(value)
        if parts is None:
            return False
        name, port = parts
        if self.any_host:
            return True
        return name in self.allowed_hosts and port in (None, self.port)

    def check_origin(self, headers):
        """421 for a Host that is not this server's, 403 for an Origin that is not http://<Host>."""
        host = headers.get("host")
        if host is not None and not self.host_allowed(host):
            raise BadRequest(421, "not served under that Host")
        origin = headers.get("origin")
        if origin is None:
            return
        origin = origin.lower()
        if host is not None:
            if origin != "http://" + host.lower():
                raise BadRequest(403, "requests from other origins are refused")
        elif not (origin.startswith("http://") and self.host_allowed(origin[len("http://"):])):
            raise BadRequest(403, "requests from other origins are refused")

    async def stream(self, writer, hub, opening):
        """Server-sent events until the hub closes: `await opening(writer)` writes what a page gets first.

        The page's queue is added before `opening` runs: an opening that does not await sees
        every event the queue does not.  A page that takes no bytes for write_timeout seconds,
        or falls the hub's bound behind, is dropped (its connection closed).
        """
        client = client_address(writer)
        if self._stream_clients[client] >= self.max_streams_per_client:
            return await self.send(writer, 429, {"error": "too many event streams from this address"})
        if len(self._streams) >= self.max_streams:
            return await self.send(writer, 503, {"error": "too many event streams open"})
        self._answered.add(writer)
        self._streams.add(writer)
        self._stream_clients[client] += 1
        writer.write(EVENTS_HEAD)
        queue = hub.add()
        queue.on_drop = writer.transport.abort
        watcher = asyncio.create_task(self._watch_close(self._readers.get(writer), writer, asyncio.current_task()))
        try:
            await opening(writer)
            await self._drain(writer)
            while True:
                try:
                    async with asyncio.timeout(PING_S):
                        data = await queue.get()
                except TimeoutError:
                    data = b": ping\n\n"
                if data is None:
                    break
                writer.write(data)
                await self._drain(writer)
        finally:
            watcher.cancel()
            hub.remove(queue)
            self._stream_clients[client] -= 1
            if self._stream_clients[client] <= 0:
                del self._stream_clients[client]

    async def _watch_close(self, reader, writer, stream_task):
        """An event stream's connection, read for its end: when the client closes it (or sends more
        than a page ever does), the stream ends at once and its slot is free."""
        got = 0
        try:
            while reader is not None and got < LINGER_BYTES:
                chunk = await reader.read(4096)
                if not chunk:
                    break
                got += len(chunk)
        except (ConnectionError, OSError):
            pass
        writer.transport.abort()
        stream_task.cancel()

    async def _drain(self, writer):
        try:
            async with asyncio.timeout(self.write_timeout):
                await writer.drain()
        except TimeoutError:
            writer.transport.abort()
            raise ConnectionError("the client took nothing for %g s" % self.write_timeout) from None

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
        self._answered.add(writer)
        writer.write(("HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nCache-Control: no-store\r\n"
                      "%sConnection: close\r\n\r\n" % (status, REASONS.get(status, "Error"), ctype, len(data), extra)
                      ).encode() + data)
        await self._drain(writer)

    async def send_stream(self, writer, chunks, ctype, extra="", first=b"", piece_bytes=256 * 1024):
        """A 200 answer of unknown length (the connection's end ends it), from an iterable of
        bytes, written in pieces of about `piece_bytes`, each drained before the next is made: a
        large answer (the hall's exports) holds one piece at a time and lets the loop serve
        other requests between pieces."""
        self._answered.add(writer)
        writer.write(("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nCache-Control: no-store\r\n%sConnection: close\r\n\r\n"
                      % (ctype, extra)).encode() + first)
        piece, size = [], 0
        for chunk in chunks:
            piece.append(chunk)
            size += len(chunk)
            if size >= piece_bytes:
                writer.write(b"".join(piece))
                piece, size = [], 0
                await self._drain(writer)
                await asyncio.sleep(0)
        writer.write(b"".join(piece))
        await self._drain(writer)


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

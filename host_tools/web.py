"""The HTTP server under the host tools' pages (`carom sim`, `carom hall`): aiohttp, behind a door.

aiohttp parses the requests and writes the answers.  This module adds what is the project's own:
the door every request passes first, the limits, event streams fanned out by a Hub (events.py), the CLI's
--listen.  A subclass of Server says what each path answers (route); one request per connection.

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

The door reads a connection's head itself and hands aiohttp only a head it let in, then only the
body its Content-Length announces (the rest is read and dropped).  aiohttp alone would answer
differently: its C and Python parsers refuse a bad head each with its own words, it refuses an
HTTP/1.1 request without Host (served here: the door adds one), waits on blank lines before a
request line, takes absolute targets and chunked bodies, has no read timeout for a head and no
bound on connections.  Every answer is HTTP/1.1, closes its connection, and is followed by a
linger: our side ends, what the client still sends is read and dropped (linger_s, LINGER_BYTES at
most), so closing does not reset the connection and lose the answer.

An event stream whose client closes is noticed at once (the connection's end ends it), so its
slot is free again then, not at the next event or ping.

Allowed Hosts: the listening address, localhost, 127.0.0.1, [::1] and the host of the URL the server
prints, with the listening port or none; a server listening on every address (0.0.0.0, [::])
accepts any Host.  An Origin, when a request has one, must be http://<its Host>.  A request without
Host (not a browser: a browser always sends one) is served.
"""

import asyncio
import collections
import io
import json
import mimetypes
import os
import re
import signal
import socket
import time

import aiohttp
import aiohttp.web
from aiohttp.http_exceptions import LineTooLong

from .events import HUB_BYTES, ClientQueue, Hub, sse  # noqa: F401  (the pages take them from here)

MAX_HEADER = 16384
PING_S = 15  # a comment line on a quiet event stream, so proxies and browsers keep it open
READ_TIMEOUT_S = 10.0  # the whole request (head and body) arrives within this, else 408
WRITE_TIMEOUT_S = 30.0  # a client that takes no bytes for this long is dropped
MAX_CONNECTIONS = 100  # open connections (event streams included); one more gets 503
MAX_STREAMS = 64  # event streams open at once: the other 36 connections are kept for requests
MAX_STREAMS_PER_CLIENT = 8  # event streams from one address (a TV, an organiser's tabs)
LINGER_S = 2.0  # after an answer, what the client still sends is read and dropped this long at most ...
LINGER_BYTES = 1 << 20  # ... and this much at most (then the connection closes)
# The door's answers, written by hand (aiohttp never saw those requests).
REASONS = {
    400: "Bad Request",
    403: "Forbidden",
    408: "Request Timeout",
    413: "Payload Too Large",
    421: "Misdirected Request",
    431: "Request Header Fields Too Large",
    503: "Service Unavailable",
}
EVENTS_HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no"}
LOCAL_NAMES = ("localhost", "127.0.0.1", "::1", "localhost.localdomain", "ip6-localhost")
_REQUEST_LINE = re.compile(r"[A-Z]{1,20} /[\x21-\x7e]* HTTP/1\.[01]")
# A header line: its value's trailing blanks are cut in Python (a lazy group before them made a
# line of blanks quadratic: 0.4 s for one 16 KB line); no control character in the value.
_HEADER = re.compile(r"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*+([\t\x20-\x7e\x80-\xff]*)")
_DIGITS = re.compile(r"[0-9]+")
_ONCE = ("host", "origin", "content-length", "content-type")  # a second one is refused

# A route's request: `path` is the target as sent, without its query; `headers` the door's, a dict
# (names in lower case, a repeated one's last value, values read as Latin-1, their blanks cut: aiohttp
# before 3.14.4 kept a value's trailing blanks); `http` is aiohttp's request.
Request = collections.namedtuple("Request", "method path headers body http")


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
        raise ListenError(
            "cannot serve on %s: %s (choose another with --listen HOST:PORT)" % (text, e.strerror or e)
        ) from None


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


def _answer(transport, status, reason, linger_s):
    """The door's answer, written by hand; our side ends, and the connection closes when the client
    closes its side or after `linger_s` (returned: that timer)."""
    body = json.dumps({"error": reason}).encode()
    transport.write(
        b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
        b"Cache-Control: no-store\r\nConnection: close\r\n\r\n%s" % (status, REASONS[status].encode(), len(body), body)
    )
    if transport.can_write_eof():
        transport.write_eof()
    return asyncio.get_running_loop().call_later(linger_s, transport.close)


class _Unframed(aiohttp.web.StreamResponse):
    """An answer that its connection's end ends (an event stream, an export): no Content-Length and
    no chunks, so its bytes are the events as written."""

    _length_check = False  # aiohttp's switch for that (its WebSocketResponse's too)


class _Refused(asyncio.Protocol):
    """A connection past max_connections: 503, then closed once the client is done; past as many
    again waiting to close, a connection is reset unanswered."""

    def __init__(self, server):
        self.server = server
        self.transport = self.timer = None
        self.dropped = 0

    def connection_made(self, transport):
        self.transport = transport
        if len(self.server._refused) > self.server.max_connections:
            transport.abort()
        else:
            self.timer = _answer(transport, 503, "too many connections", self.server.linger_s)

    def data_received(self, data):
        self.dropped += len(data)
        if self.dropped > LINGER_BYTES:
            self.transport.close()

    def connection_lost(self, exc):
        self.server._refused.discard(self)
        if self.timer is not None:
            self.timer.cancel()


class _Connection(aiohttp.web.RequestHandler):
    """aiohttp's protocol for one connection, behind the door: the head is kept until it is whole and
    let in; aiohttp gets it and the body its Content-Length says, no more."""

    def __init__(self, server, manager, **kwargs):
        super().__init__(manager, **kwargs)
        self.server = server
        self.head = bytearray()
        self.body_left = None  # None while the head is read; then the body's bytes still to come
        self.headers = None  # the door's, once it let the head in
        self.refused = False  # answered at the door: what comes is dropped
        self.dropped = 0  # bytes read and dropped (past the request, or after a refusal)
        self.deadline = self.timer = None
        self.lost = asyncio.get_running_loop().create_future()  # done when the connection is closed

    def connection_made(self, transport):
        loop = asyncio.get_running_loop()
        self.deadline = loop.time() + self.server.read_timeout
        self.timer = loop.call_at(self.deadline, self._too_slow)
        super().connection_made(transport)  # (aiohttp's task may start at once: Python 3.12's eager tasks)

    def connection_lost(self, exc):
        self.server._conns.discard(self)
        self.timer.cancel()
        if not self.lost.done():
            self.lost.set_result(None)
        super().connection_lost(exc)

    def abort(self):
        if self.transport is not None:
            self.transport.abort()

    def data_received(self, data):
        if self.body_left is None and not self.refused:
            start = max(0, len(self.head) - 3)
            self.head += data
            end = self.head.find(b"\r\n\r\n", start)
            if end < 0 and len(self.head) <= MAX_HEADER:
                return
            if end < 0 or end + 4 > MAX_HEADER:
                return self.refuse(431, "headers too large")
            head, data = bytes(self.head[: end + 4]), bytes(self.head[end + 4 :])
            self.head = None
            try:
                head, self.body_left, self.headers = self.server.door(head)
            except BadRequest as e:
                return self.refuse(e.status, e.reason)
            super().data_received(head)
        if self.body_left and not self.refused:
            body, data = data[: self.body_left], data[self.body_left :]
            self.body_left -= len(body)
            super().data_received(body)
        self.dropped += len(data)
        if self.dropped > LINGER_BYTES and self.transport is not None:
            self.transport.close()

    def refuse(self, status, reason):
        self.refused, self.head = True, None
        self.timer.cancel()
        self.timer = _answer(self.transport, status, reason, self.server.linger_s)

    def _too_slow(self):
        if self.body_left is None and not self.refused:
            self.refuse(408, "the request did not arrive within %g s" % self.server.read_timeout)

    def handle_error(self, request, status=500, exc=None, message=None):
        """aiohttp's own refusals (a head the door let in that its parser did not): JSON too, no log."""
        if request.writer.output_size > 0:
            raise ConnectionError("the answer is under way")
        if isinstance(exc, LineTooLong):
            status, reason = 431, "headers too large"
        else:
            reason = "bad request" if status < 500 else "internal error"
        response = self.server.send(status, {"error": reason})
        response.force_close()
        return response


class Server:
    """The HTTP side: checks each request at the door, hands it to route(request), answers, closes.

    route() returns an answer made with send(), send_bytes() or file(), or awaits stream() or
    send_stream().  A body is read only when `max_body` is set (a longer one gets 413).  The
    limits below are class attributes a subclass or a test may change; allowed_hosts (filled by
    start()) may get more names.
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
        self.streams = 0  # event streams open now
        self._stream_clients = collections.Counter()  # client address -> its event streams
        self._conns = set()  # connections served (_Connection)
        self._refused = set()  # connections past max_connections being answered 503 (_Refused)
        self._aiohttp = None
        self.allowed_hosts = set(LOCAL_NAMES)
        self.any_host = False
        self.port = None

    @property
    def connections(self):
        """Connections open now, event streams included (not those answered 503)."""
        return len(self._conns)

    async def route(self, request):
        raise NotImplementedError

    async def start(self, sock):
        """Serve on `sock` (from listen()): the asyncio server, to close() when done."""
        host, self.port = sock.getsockname()[:2]
        if host in ("0.0.0.0", "::"):
            self.any_host = True
        self.allowed_hosts.add(host.lower())
        self.allowed_hosts.add(split_host(url_of(sock)[len("http://") :])[0])
        self._aiohttp = aiohttp.web.Server(self._handle, request_factory=self._request)
        return await asyncio.get_running_loop().create_server(self._connect, sock=sock)

    def _connect(self):
        """A new connection's protocol, counted now (a burst of accepts comes before any connection_made)."""
        if len(self._conns) >= self.max_connections:
            conn = _Refused(self)
            self._refused.add(conn)
            return conn
        conn = _Connection(
            self,
            self._aiohttp,
            loop=asyncio.get_running_loop(),
            access_log=None,
            max_line_size=MAX_HEADER,
            max_field_size=MAX_HEADER,
            lingering_time=0,
            auto_decompress=False,
        )
        self._conns.add(conn)
        return conn

    def _request(self, message, payload, protocol, writer, task):
        """aiohttp's request, answered in HTTP/1.1 whatever version it asked in (as a server should)."""
        return aiohttp.web.BaseRequest(
            message._replace(version=aiohttp.HttpVersion11),
            payload,
            protocol,
            writer,
            task,
            asyncio.get_running_loop(),
            client_max_size=(self.max_body or 0) + 1,
        )

    async def cancel_all(self):
        """End every connection (the server stops): closed, event streams ended, handlers cancelled."""
        for conn in list(self._conns) + list(self._refused):
            if conn.transport is not None:
                conn.transport.close()
        if self._aiohttp is not None:
            await self._aiohttp.shutdown(0.5)
        loop = asyncio.get_running_loop()
        end = loop.time() + 2
        while (self._conns or self._refused) and loop.time() < end:
            for conn in list(self._conns) + list(self._refused):
                if conn.transport is not None:
                    conn.transport.abort()  # (a client that took nothing: its buffered bytes never go)
            await asyncio.sleep(0.01)

    def door(self, head):
        """A request's head let in: (the head for aiohttp, the body's length, the headers); BadRequest
        when refused."""
        lines = head[:-4].decode("latin-1").split("\r\n")
        if not _REQUEST_LINE.fullmatch(lines[0]):
            raise BadRequest(400, "bad request line")
        headers = {}
        for line in lines[1:]:
            h = _HEADER.fullmatch(line)
            if not h:
                raise BadRequest(400, "bad header line")
            name = h.group(1).lower()
            if name in headers and name in _ONCE:
                raise BadRequest(400, "%s given twice" % name)
            headers[name] = h.group(2).rstrip(" \t")
        self.check_origin(headers)
        if "transfer-encoding" in headers:
            raise BadRequest(400, "send a Content-Length, not Transfer-Encoding")
        length = headers.get("content-length", "0")
        if not _DIGITS.fullmatch(length):
            raise BadRequest(400, "bad Content-Length")
        # Any number of digits is a length; more than 18 of them is too long for any body.
        length = int(length) if len(length.lstrip("0")) <= 18 else 1 << 62
        if length and (self.max_body is None or length > self.max_body):
            raise BadRequest(413, "body too large")
        if "host" not in headers:  # (aiohttp refuses an HTTP/1.1 request without one)
            head = head[:-2] + b"Host: localhost\r\n\r\n"
        return head, length, headers

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
        elif not (origin.startswith("http://") and self.host_allowed(origin[len("http://") :])):
            raise BadRequest(403, "requests from other origins are refused")

    async def _handle(self, http):
        """aiohttp's handler: the body (within the read deadline), the route's answer, the linger."""
        conn = http.protocol
        try:
            async with asyncio.timeout_at(conn.deadline):
                body = await http.read()
        except TimeoutError:
            response = self.send(408, {"error": "the request did not arrive within %g s" % self.read_timeout})
        else:
            try:
                response = await self.route(
                    Request(http.method, http.raw_path.split("?", 1)[0], conn.headers, body, http)
                )
            except Exception:  # a route that failed: an answer, never a traceback
                if http.writer.output_size:  # (an answer under way ends there)
                    conn.abort()
                response = self.send(500, {"error": "internal error"})
        try:
            if not response.prepared:
                response.force_close()
                if http.method == "HEAD" and isinstance(response, aiohttp.web.Response):
                    response.body = b""  # (aiohttp sends none: the length says so)
                    response.headers["Content-Length"] = "0"
                await self._write(conn, response.prepare(http))
            await self._write(conn, response.write_eof())
        except ConnectionError:
            return response
        transport = conn.transport
        if transport is not None and not transport.is_closing():
            if transport.can_write_eof():
                transport.write_eof()
            try:
                async with asyncio.timeout(self.linger_s):
                    await asyncio.shield(conn.lost)
            except TimeoutError:
                pass
        return response

    async def _write(self, conn, step):
        """An answer's step (aiohttp drains as it writes): a client that takes nothing for
        write_timeout seconds is dropped."""
        try:
            async with asyncio.timeout(self.write_timeout):
                await step
        except TimeoutError:
            conn.abort()
            raise ConnectionError("the client took nothing for %g s" % self.write_timeout) from None

    async def stream(self, request, hub, opening):
        """Server-sent events until the hub closes: `await opening(out)` writes what a page gets first
        (out.write(bytes)).

        The page's queue is added before `opening` runs: an opening that does not await sees
        every event the queue does not.  A page that takes no bytes for write_timeout seconds,
        falls the hub's bound behind or closes its connection is dropped at once.
        """
        client = request.http.remote or ""
        if self._stream_clients[client] >= self.max_streams_per_client:
            return self.send(429, {"error": "too many event streams from this address"})
        if self.streams >= self.max_streams:
            return self.send(503, {"error": "too many event streams open"})
        conn = request.http.protocol
        self.streams += 1
        self._stream_clients[client] += 1
        queue = hub.add()
        queue.on_drop = conn.abort
        conn.lost.add_done_callback(lambda _: queue.drop())  # the client went: the stream ends now
        response = _Unframed(headers=EVENTS_HEADERS)
        response.force_close()
        try:
            first = io.BytesIO()
            await opening(first)
            await self._write(conn, response.prepare(request.http))
            data = b"retry: 1000\n\n" + first.getvalue()
            while data is not None:
                await self._write(conn, response.write(data))
                try:
                    async with asyncio.timeout(PING_S):
                        data = await queue.get()
                except TimeoutError:
                    data = b": ping\n\n"
        except ConnectionError:
            pass
        finally:
            hub.remove(queue)
            self.streams -= 1
            self._stream_clients[client] -= 1
            if self._stream_clients[client] <= 0:
                del self._stream_clients[client]
        return response

    def file(self, name):
        """One of the page's files, by its bare name (no folders: nothing else can be reached)."""
        if name not in self.static:
            return self.send(404, {"error": "not found: %s" % name})
        with open(os.path.join(self.static_dir, name), "rb") as f:
            data = f.read()
        ctype = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if ctype.startswith("text/") or ctype.endswith("javascript"):
            ctype += "; charset=utf-8"
        return self.send_bytes(200, data, ctype)

    def send(self, status, obj):
        return self.send_bytes(status, json.dumps(obj).encode(), "application/json")

    def send_bytes(self, status, data, ctype, headers=None):
        """`headers`: more of them, a dict."""
        return aiohttp.web.Response(
            status=status,
            body=data,
            headers=dict({"Content-Type": ctype, "Cache-Control": "no-store"}, **headers or {}),
        )

    async def send_stream(self, request, chunks, ctype, headers=None, first=b"", piece_bytes=256 * 1024):
        """A 200 answer of unknown length (the connection's end ends it), from an iterable of
        bytes, written in pieces of about `piece_bytes`, each drained before the next is made: a
        large answer (the hall's exports) holds one piece at a time and lets the loop serve
        other requests between pieces."""
        conn = request.http.protocol
        response = _Unframed(headers=dict({"Content-Type": ctype, "Cache-Control": "no-store"}, **headers or {}))
        response.force_close()
        try:
            await self._write(conn, response.prepare(request.http))
            piece, size = [first], len(first)
            for chunk in chunks:
                piece.append(chunk)
                size += len(chunk)
                if size >= piece_bytes:
                    await self._write(conn, response.write(b"".join(piece)))
                    piece, size = [], 0
                    await asyncio.sleep(0)
            await self._write(conn, response.write(b"".join(piece)))
        except ConnectionError:
            pass
        return response


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


async def serve(server, sock, stopping, stop=None, started=None, closing=None):
    """Serve `server` on `sock` until `stopping` (from stop_signals) or `stop` (a threading.Event)
    is set: `started()` is called once it answers; when it stops, no new connection is taken,
    `closing()` (a coroutine function: the tool's own things, its hubs) is awaited, then every
    open connection ends (cancel_all)."""
    srv = await server.start(sock)
    try:
        if started is not None:
            started()
        await wait_stopped(stopping, stop)
    finally:
        srv.close()
        if closing is not None:
            await closing()
        await server.cancel_all()

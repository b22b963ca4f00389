"""The hall dashboard's server: standard library asyncio, no framework (as host_tools/web).

    GET /                   the page (static/index.html, hall.js, hall.css: no build step)
    GET /static/<file>      the page's files, served from this package
    GET /api/tables         {server, prefix, broker, counts, tables: [{table, name, status, updated,
                            updates, state}]}, tables in natural order (t2 before t10)
    GET /api/results        {results: [...]}: the results list as the page shows it (flat rows)
    GET /results.json       every finished match: the report as the board sent it plus
                            "hall": {table, received_at, id}, in the order they arrived
    GET /results.csv        one row per match (columns: model.CSV_COLUMNS), local times
    GET /events             server-sent events to every page:
                              hello     {server, prefix, broker}        on connect, then
                              snapshot  {tables, results, results_total}  everything known now
                                                                        (the newest 500 results)
                              table     {table, name, status, updated, updates, state}
                              gone      {table}                         its retained topics were cleared
                              result    {result, replaces}              a finished match (replaces: an id or null)
                              broker    {address, connected, since, detail, connects}

Nothing here changes anything: there is no POST.  The MQTT client (broker.py) runs on
paho's thread and hands every message to the event loop, where the model (model.py)
and the pages' queues live, so nothing needs a lock.
"""

import asyncio
import json
import mimetypes
import os
import signal
import socket
import time

from .broker import Subscriber, parse_broker
from .model import Hall, valid_report

STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
MAX_HEADER = 16384
PAGE_RESULTS = 500  # results a page gets when it connects (all of them: /results.csv, /results.json)
CLIENT_QUEUE = 5000  # events waiting for one page; a page that falls this far behind is dropped (it reconnects)
PING_S = 15


class ListenError(Exception):
    """The dashboard cannot be served where asked (a busy port, an unknown host)."""


def sse(kind, payload):
    return ("event: %s\ndata: %s\n\n" % (kind, json.dumps(payload, separators=(",", ":")))).encode()


def local_time(epoch):
    return "" if epoch is None else time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch))


class Hub:
    """Fans events out to every connected page (on the event loop's thread)."""

    def __init__(self):
        self.clients = set()

    def send(self, kind, payload):
        data = sse(kind, payload)
        for queue in list(self.clients):
            try:
                queue.put_nowait(data)
            except asyncio.QueueFull:  # a page that stopped reading: drop it (it reconnects, gets a snapshot)
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


class Dashboard:
    """The hall's state on the event loop: the model, the broker link, the pages, the results file."""

    def __init__(self, hall, address, results_file=None, out=print):
        self.hall = hall
        self.hub = Hub()
        self.out = out
        self.broker = {"address": address, "connected": False, "since": None, "detail": "connecting", "connects": 0}
        self.results_file = results_file
        self._results_out = None
        if results_file:
            try:
                self._load_results(results_file)
                self._results_out = open(results_file, "a", encoding="utf-8")
            except OSError as e:
                raise ValueError("cannot use the results file %s: %s" % (results_file, e.strerror or e)) from None

    def _load_results(self, path):
        """Results kept by an earlier run (JSON lines, as /results.json's entries)."""
        if not os.path.exists(path):
            return
        bad = 0
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    entry = json.loads(line)
                    info = entry.pop("hall")
                    if not valid_report(entry):
                        raise ValueError(line)
                    self.hall.add_result(str(info["table"]), entry, float(info["received_at"]))
                except (ValueError, KeyError, TypeError, AttributeError):
                    bad += 1
        self.out("carom hall: %d results read from %s%s" % (len(self.hall.results), path,
                                                          ", %d damaged lines skipped" % bad if bad else ""))

    def message(self, topic, payload, received):
        for kind, data in self.hall.handle(topic, payload, received):
            if kind == "result" and self._results_out is not None:
                entry = self.hall.last_result
                self._results_out.write(json.dumps(entry.to_json(), separators=(",", ":")) + "\n")
                self._results_out.flush()
            self.hub.send(kind, data)

    def link(self, connected, detail, when):
        b = self.broker
        if connected != b["connected"] or detail != b["detail"]:
            if connected != b["connected"] or b["since"] is None:
                b["since"] = when
            b["connected"] = connected
            b["detail"] = detail
            if connected:
                b["connects"] += 1
            self.out("carom hall: broker %s %s (%s)" % (b["address"], "connected" if connected else "not connected",
                                                        detail))
            self.hub.send("broker", b)

    def close(self):
        self.hub.close()
        if self._results_out is not None:
            self._results_out.close()


class Server:
    """The HTTP side: the page's files, the JSON and CSV views, the event stream."""

    def __init__(self, dash):
        self.dash = dash
        self.server_id = "%x" % int(time.time() * 1000)
        self.static = {n for n in os.listdir(STATIC_DIR) if os.path.isfile(os.path.join(STATIC_DIR, n))}
        self._tasks = set()

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
            return await self._send(writer, 431, {"error": "headers too large"})
        try:
            method, target, _ = head.decode("latin-1").split("\r\n", 1)[0].split(" ", 2)
        except ValueError:
            return await self._send(writer, 400, {"error": "bad request line"})
        path = target.split("?", 1)[0]
        if method != "GET":
            return await self._send(writer, 405, {"error": "only GET: the dashboard changes nothing"})
        hall = self.dash.hall
        if path in ("/", "/index.html"):
            return await self._file(writer, "index.html")
        if path.startswith("/static/"):
            return await self._file(writer, path[len("/static/"):])
        if path == "/api/tables":
            return await self._send(writer, 200, {"server": self.server_id, "prefix": hall.prefix,
                                                  "broker": self.dash.broker, "counts": hall.counts,
                                                  "tables": hall.table_list()})
        if path == "/api/results":
            return await self._send(writer, 200, {"results": hall.summaries()})
        if path == "/results.json":
            data = json.dumps(hall.results_json(), indent=1).encode()
            return await self._send_bytes(writer, 200, data, "application/json", self._download("json"))
        if path == "/results.csv":
            data = hall.results_csv(local_time).encode("utf-8-sig")  # the BOM: spreadsheets read UTF-8 names
            return await self._send_bytes(writer, 200, data, "text/csv; charset=utf-8", self._download("csv"))
        if path == "/events":
            return await self._events(writer)
        return await self._send(writer, 404, {"error": "not found: %s" % path})

    def _download(self, ext):
        return 'Content-Disposition: attachment; filename="carom-results-%s.%s"\r\n' % (
            time.strftime("%Y%m%d-%H%M"), ext)

    async def _events(self, writer):
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
                     b"Connection: keep-alive\r\nX-Accel-Buffering: no\r\n\r\nretry: 1000\n\n")
        dash = self.dash
        # The queue is added and the snapshot written in one step of the loop: no event is missed or doubled.
        queue = dash.hub.add()
        try:
            writer.write(sse("hello", {"server": self.server_id, "prefix": dash.hall.prefix, "broker": dash.broker}))
            writer.write(sse("snapshot", {"tables": dash.hall.table_list(),
                                          "results": dash.hall.summaries(PAGE_RESULTS),
                                          "results_total": len(dash.hall.results)}))
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
            dash.hub.remove(queue)

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

    async def _send_bytes(self, writer, status, data, ctype, extra=""):
        reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
                  431: "Request Header Fields Too Large"}.get(status, "Error")
        writer.write(("HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nCache-Control: no-store\r\n"
                      "%sConnection: close\r\n\r\n" % (status, reason, ctype, len(data), extra)).encode() + data)
        await writer.drain()


def parse_listen(text):
    """'127.0.0.1:8090', ':8090', '[::1]:8090', 'localhost:0' (0: any free port) -> (host, port)."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ValueError("--listen wants HOST:PORT, e.g. 127.0.0.1:8090, not %r" % text)
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


def url_of(sock):
    host, port = sock.getsockname()[:2]
    if ":" in host:
        host = "[%s]" % host
    if host in ("0.0.0.0", "[::]"):
        host = "127.0.0.1"
    return "http://%s:%d" % (host, port)


def default_client_id(port):
    """Stable across restarts (the broker keeps the session's reports), distinct per listening port."""
    host = "".join(c for c in socket.gethostname() if c.isalnum() or c in "-_")[:32] or "host"
    return "carom-hall-%s-%d" % (host, port)


def run(broker, listen="127.0.0.1:8090", prefix="carom", client_id=None, results_file=None, out=print,
        ready=None, stop=None):
    """Serve the dashboard until Ctrl-C / SIGTERM (or `stop`, a threading.Event, is set).

    `ready(url, dashboard)` is called once the page answers.  Raises ValueError for a bad
    --broker or --listen and ListenError when the address cannot be served.
    """
    host, port = parse_broker(broker)
    lhost, lport = parse_listen(listen)
    try:
        sock = bind(lhost, lport)
    except OSError as e:
        raise ListenError("cannot serve on %s: %s (choose another with --listen HOST:PORT)"
                          % (listen, e.strerror or e)) from None
    try:
        return asyncio.run(_main(sock, host, port, prefix, client_id or default_client_id(sock.getsockname()[1]),
                                 results_file, out, ready, stop))
    finally:
        sock.close()


async def _main(sock, host, port, prefix, client_id, results_file, out, ready, stop):
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stopping.set)
        except (ValueError, RuntimeError, NotImplementedError):
            pass  # not the main thread: `stop` does it
    address = "%s:%d" % (host if ":" not in host else "[%s]" % host, port)
    dash = Dashboard(Hall(prefix), address, results_file, out)

    def on_message(topic, payload, retained):
        received = time.time()  # stamped on paho's thread, when the message arrived
        try:
            loop.call_soon_threadsafe(dash.message, topic, payload, received)
        except RuntimeError:
            pass  # the loop is closed: shutting down

    def on_link(connected, detail):
        try:
            loop.call_soon_threadsafe(dash.link, connected, detail, time.time())
        except RuntimeError:
            pass

    subscriber = Subscriber(host, port, prefix, client_id, on_message, on_link)
    server = Server(dash)
    srv = await asyncio.start_server(server.handle, sock=sock, limit=MAX_HEADER * 4)
    url = url_of(sock)
    subscriber.start()
    out("carom hall: tables under %s/<table>/ on the broker %s (client id %s)" % (prefix, address, client_id))
    out("carom hall: the dashboard is at %s  (Ctrl-C stops it)" % url)
    if ready:
        ready(url, dash)
    try:
        while not (stopping.is_set() or (stop is not None and stop.is_set())):
            try:
                await asyncio.wait_for(stopping.wait(), 0.2)
            except asyncio.TimeoutError:
                pass
    finally:
        out("carom hall: stopping")
        await loop.run_in_executor(None, subscriber.stop)
        srv.close()
        dash.close()
        await server.cancel_all()
    return 0

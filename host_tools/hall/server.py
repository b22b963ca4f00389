"""The hall dashboard's server: standard library asyncio, no framework (host_tools/httpd.py, as host_tools/simulator/page).

    GET /                   the page (static/index.html, hall.js, hall.css: no build step)
    GET /static/<file>      the page's files, served from this package
    GET /api/tables         {server, prefix, broker, counts, tables: [{table, name, status, updated,
                            updates, state}]}, tables in natural order (t2 before t10)
    GET /api/results        {results: [...]}: the results list as the page shows it (flat rows)
    GET /results.json       every finished match: the report as the board sent it plus
                            "hall": {table, received_at, id}, in the order they arrived
                            (both exports are written in pieces: send_stream)
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
import math
import os
import socket
import threading
import time

from .. import httpd
from ..httpd import ListenError  # noqa: F401 (host_tools.hall's)
from . import schema
from .broker import Subscriber, parse_broker
from .model import Hall

STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
PORT = 8090  # the default --listen port, shown in --listen's error message
PAGE_RESULTS = 500  # results a page gets when it connects (all of them: /results.csv, /results.json)
CLIENT_QUEUE = 5000  # events waiting for one page; a page that falls this far behind is dropped (it reconnects)
MAX_BACKLOG_BYTES = 32 * 1024 * 1024  # payloads received on paho's thread, not yet handled on the loop
MAX_FILE_BYTES = 64 * 1024 * 1024  # the results file; when full it becomes FILE.1 and FILE starts again
EXPORT_CHUNK = 256 * 1024  # an export is written in pieces of about this size, other requests in between


def local_time(epoch):
    try:
        return "" if epoch is None else time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch))
    except (OverflowError, OSError, ValueError, TypeError):
        return ""


class Dashboard:
    """The hall's state on the event loop: the model, the broker link, the pages, the results file."""

    def __init__(self, hall, address, results_file=None, out=print):
        self.hall = hall
        self.hub = httpd.Hub(CLIENT_QUEUE)  # on the event loop's thread: send(); bounded in bytes (httpd.HUB_BYTES)
        self.out = out
        self.broker = {"address": address, "connected": False, "since": None, "detail": "connecting", "connects": 0}
        self.results_file = results_file
        self._results_out = None
        self._file_bytes = 0
        self._backlog = 0  # bytes of payloads on their way from paho's thread to the loop
        self._backlog_lock = threading.Lock()
        if results_file:
            try:
                self._load_results(results_file)
                self._results_out = open(results_file, "ab")
                self._file_bytes = self._results_out.tell()
            except OSError as e:
                raise ValueError("cannot use the results file %s: %s" % (results_file, e.strerror or e)) from None

    def _load_results(self, path):
        """Results kept by an earlier run (JSON lines, as /results.json's entries), checked as reports are."""
        if not os.path.exists(path):
            return
        bad = 0
        longest = schema.MAX_REPORT_BYTES + 4096
        with open(path, "rb") as f:
            while True:
                line = f.readline(longest + 1)
                if not line:
                    break
                if len(line) > longest:
                    bad += 1
                    while line and not line.endswith(b"\n"):  # the rest of a line too long to be a report
                        line = f.readline(longest)
                    continue
                try:
                    entry = schema.parse(line, longest)
                    info = entry.pop("hall")
                    table, received = info["table"], info["received_at"]
                    if (type(table) is not str or not schema.TABLE_NAME.match(table) or type(received) not in (int, float)
                            or not math.isfinite(received)):
                        raise ValueError(line)
                    schema.check_report(entry)
                    self.hall.add_result(table, entry, float(received))
                except (ValueError, KeyError, TypeError, AttributeError):
                    bad += 1
        self.out("carom hall: %d results read from %s%s" % (len(self.hall.results), path,
                                                          ", %d damaged lines skipped" % bad if bad else ""))

    def received(self, topic, payload, when, loop):
        """On paho's thread: hands a message to the loop, unless too many bytes are already on their way."""
        size = len(payload)
        with self._backlog_lock:
            if size > schema.MAX_REPORT_BYTES or self._backlog + size > MAX_BACKLOG_BYTES:
                kind, payload, size = ("size" if size > schema.MAX_REPORT_BYTES else "backlog"), None, 0
            else:
                kind = None
                self._backlog += size
        try:
            if kind is None:
                loop.call_soon_threadsafe(self.message, topic, payload, when)
            else:
                loop.call_soon_threadsafe(self.refused, kind, topic)
        except RuntimeError:
            pass  # the loop is closed: shutting down

    def refused(self, kind, topic):
        self.hall.counts["messages"] += 1
        self.hall.drop(kind, topic, "too large" if kind == "size" else "the hall is %d bytes behind" % MAX_BACKLOG_BYTES)
        self._log_drops()

    def message(self, topic, payload, received):
        with self._backlog_lock:
            self._backlog -= len(payload)
        for kind, data in self.hall.handle(topic, payload, received):
            if kind == "result" and self._results_out is not None:
                self._append(self.hall.last_result)
            self.hub.send(kind, data)
        self._log_drops()

    def _log_drops(self):
        for kind, topic, detail in self.hall.drops_to_log():
            self.out("carom hall: dropped a message on %s (%s: %s); more of this kind are only counted"
                     " (/api/tables counts.dropped)" % (ascii(topic[:100]), kind, ascii(detail[:120])))

    def _append(self, result):
        line = result.json_bytes() + b"\n"
        try:
            if self._file_bytes + len(line) > MAX_FILE_BYTES:
                self._rotate()
            self._results_out.write(line)
            self._results_out.flush()
            self._file_bytes += len(line)
        except OSError as e:
            self.out("carom hall: cannot write the results file %s: %s" % (self.results_file, e.strerror or e))

    def _rotate(self):
        """The results file is full: it becomes FILE.1 (replacing an older one), and FILE starts again
        with the newest results of the list in memory (without the replaced ones), up to half its limit."""
        path = self.results_file
        self._results_out.close()
        os.replace(path, path + ".1")
        tmp = path + ".tmp"
        keep, size = [], 0
        for r in reversed(self.hall.results):  # the newest results, up to half the file's limit
            line = r.json_bytes() + b"\n"
            if size + len(line) > MAX_FILE_BYTES // 2:
                break
            keep.append(line)
            size += len(line)
        with open(tmp, "wb") as f:
            f.writelines(reversed(keep))
        os.replace(tmp, path)
        self._results_out = open(path, "ab")
        self._file_bytes = self._results_out.tell()
        self.out("carom hall: the results file reached %d bytes: the older results are in %s.1, %s starts again"
                 " with the newest %d results" % (MAX_FILE_BYTES, path, path, len(keep)))

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


class Server(httpd.Server):
    """The HTTP side: the page's files, the JSON and CSV views, the event stream."""

    max_body = 1024  # nothing takes a body; a small one is read so that a POST gets its 405

    def __init__(self, dash):
        super().__init__(STATIC_DIR)
        self.dash = dash

    async def route(self, writer, request):
        path = request.path
        if request.method != "GET":
            return await self.send(writer, 405, {"error": "only GET: the dashboard changes nothing"})
        hall = self.dash.hall
        if path in ("/", "/index.html"):
            return await self.file(writer, "index.html")
        if path.startswith("/static/"):
            return await self.file(writer, path[len("/static/"):])
        if path == "/api/tables":
            return await self.send(writer, 200, {"server": self.server_id, "prefix": hall.prefix,
                                                 "broker": self.dash.broker, "counts": hall.counts,
                                                 "bytes": hall.bytes(), "tables": hall.table_list()})
        if path == "/api/results":
            return await self.send(writer, 200, {"results": hall.summaries()})
        if path == "/results.json":
            return await self.send_stream(writer, hall.results_json_chunks(), "application/json",
                                          self._download("json"), piece_bytes=EXPORT_CHUNK)
        if path == "/results.csv":
            chunks = (c.encode("utf-8") for c in hall.results_csv_chunks(local_time))
            return await self.send_stream(writer, chunks, "text/csv; charset=utf-8", self._download("csv"),
                                          b"\xef\xbb\xbf", EXPORT_CHUNK)  # the BOM: spreadsheets read UTF-8 names
        if path == "/events":
            return await self.stream(writer, self.dash.hub, self._opening)
        return await self.send(writer, 404, {"error": "not found: %s" % path})

    def _download(self, ext):
        return 'Content-Disposition: attachment; filename="carom-results-%s.%s"\r\n' % (
            time.strftime("%Y%m%d-%H%M"), ext)

    async def _opening(self, writer):
        """What a page gets first: hello and a snapshot of everything known now.

        It does not await: the page's queue is added and the snapshot written in one step of
        the loop, so no event is missed or doubled.
        """
        dash = self.dash
        writer.write(httpd.sse("hello", {"server": self.server_id, "prefix": dash.hall.prefix,
                                         "broker": dash.broker}))
        writer.write(httpd.sse("snapshot", {"tables": dash.hall.table_list(),
                                            "results": dash.hall.summaries(PAGE_RESULTS),
                                            "results_total": len(dash.hall.results)}))


def parse_listen(text):
    """'127.0.0.1:8090', ':8090', '[::1]:8090', 'localhost:0' (0: any free port) -> (host, port)."""
    return httpd.parse_listen(text, PORT)


def default_client_id(port):
    """Stable across restarts (the broker keeps the session's reports), distinct per listening port."""
    host = "".join(c for c in socket.gethostname() if c.isalnum() or c in "-_")[:32] or "host"
    return "carom-hall-%s-%d" % (host, port)


def run(broker, listen="127.0.0.1:8090", prefix="carom", client_id=None, results_file=None, out=print,
        ready=None, stop=None, user=None, password=None):
    """Serve the dashboard until Ctrl-C / SIGTERM (or `stop`, a threading.Event, is set).

    `ready(url, dashboard)` is called once the page answers.  Raises ValueError for a bad
    --broker or --listen and ListenError when the address cannot be served.
    """
    host, port = parse_broker(broker)
    sock = httpd.listen(listen, PORT)
    try:
        return asyncio.run(_main(sock, host, port, prefix, client_id or default_client_id(sock.getsockname()[1]),
                                 results_file, out, ready, stop, user, password))
    finally:
        sock.close()


async def _main(sock, host, port, prefix, client_id, results_file, out, ready, stop, user=None, password=None):
    loop = asyncio.get_running_loop()
    stopping = httpd.stop_signals(loop)
    address = "%s:%d" % (host if ":" not in host else "[%s]" % host, port)
    dash = Dashboard(Hall(prefix), address, results_file, out)

    def on_message(topic, payload, retained):
        dash.received(topic, payload, time.time(), loop)  # stamped on paho's thread, when the message arrived

    def on_link(connected, detail):
        try:
            loop.call_soon_threadsafe(dash.link, connected, detail, time.time())
        except RuntimeError:
            pass

    subscriber = Subscriber(host, port, prefix, client_id, on_message, on_link, user, password)
    server = Server(dash)
    srv = await server.start(sock)
    url = httpd.url_of(sock)
    subscriber.start()
    out("carom hall: tables under %s/<table>/ on the broker %s (client id %s%s)"
        % (prefix, address, client_id, ", user %s" % ascii(user) if user else ""))
    out("carom hall: the dashboard is at %s  (Ctrl-C stops it)" % url)
    if ready:
        ready(url, dash)
    try:
        await httpd.wait_stopped(stopping, stop)
    finally:
        out("carom hall: stopping")
        await loop.run_in_executor(None, subscriber.stop)
        srv.close()
        dash.close()
        await server.cancel_all()
    return 0

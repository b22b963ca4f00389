"""The hall dashboard's server: standard library asyncio, no framework (host_tools/httpd.py, as host_tools/simulator/page).

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
import os
import socket
import time

from .. import httpd
from ..httpd import ListenError  # noqa: F401 (host_tools.hall's)
from .broker import Subscriber, parse_broker
from .model import Hall, valid_report

STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
PORT = 8090  # the default --listen port, shown in --listen's error message
PAGE_RESULTS = 500  # results a page gets when it connects (all of them: /results.csv, /results.json)
CLIENT_QUEUE = 5000  # events waiting for one page; a page that falls this far behind is dropped (it reconnects)


def local_time(epoch):
    return "" if epoch is None else time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch))


class Dashboard:
    """The hall's state on the event loop: the model, the broker link, the pages, the results file."""

    def __init__(self, hall, address, results_file=None, out=print):
        self.hall = hall
        self.hub = httpd.Hub(CLIENT_QUEUE)  # on the event loop's thread: send()
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


class Server(httpd.Server):
    """The HTTP side: the page's files, the JSON and CSV views, the event stream."""

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
                                                 "tables": hall.table_list()})
        if path == "/api/results":
            return await self.send(writer, 200, {"results": hall.summaries()})
        if path == "/results.json":
            data = json.dumps(hall.results_json(), indent=1).encode()
            return await self.send_bytes(writer, 200, data, "application/json", self._download("json"))
        if path == "/results.csv":
            data = hall.results_csv(local_time).encode("utf-8-sig")  # the BOM: spreadsheets read UTF-8 names
            return await self.send_bytes(writer, 200, data, "text/csv; charset=utf-8", self._download("csv"))
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
        ready=None, stop=None):
    """Serve the dashboard until Ctrl-C / SIGTERM (or `stop`, a threading.Event, is set).

    `ready(url, dashboard)` is called once the page answers.  Raises ValueError for a bad
    --broker or --listen and ListenError when the address cannot be served.
    """
    host, port = parse_broker(broker)
    sock = httpd.listen(listen, PORT)
    try:
        return asyncio.run(_main(sock, host, port, prefix, client_id or default_client_id(sock.getsockname()[1]),
                                 results_file, out, ready, stop))
    finally:
        sock.close()


async def _main(sock, host, port, prefix, client_id, results_file, out, ready, stop):
    loop = asyncio.get_running_loop()
    stopping = httpd.stop_signals(loop)
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
    srv = await server.start(sock)
    url = httpd.url_of(sock)
    subscriber.start()
    out("carom hall: tables under %s/<table>/ on the broker %s (client id %s)" % (prefix, address, client_id))
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

"""The hall dashboard's server: aiohttp behind the project's door (host_tools/web.py, as host_tools/simulator/page).

    GET /                   the TV (static/index.html, hall.js, hall.css: no build step): tables,
                            standings or bracket, as the organiser switches it
    GET /organiser          the organiser's page (static/organiser.html, organiser.js)
    GET /overlay/<table>    a score overlay for streaming software (static/overlay.html, overlay.js)
    GET /static/<file>      the pages' files, served from this package
    GET /api/tables         {server, prefix, broker, counts, tables: [{table, name, status, updated,
                            updates, state}]}, tables in natural order (t2 before t10)
    GET /api/results        {results: [...]}: the results list as the page shows it (flat rows)
    GET /results.json       every finished match: the report as the board sent it plus
                            "hall": {table, received_at, id, signed}, in the order they arrived
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
                              tournament  organiser.Organiser.snapshot(): players, tables, matches,
                                          standings, bracket, setups sent, the TV's view
                              view      {view}                          the TV shows tables, standings
                                                                        or bracket
    GET /events/<table>     one table's events only (the overlay): hello, snapshot {table: {...} or
                            null}, table, gone, result, broker
    GET /api/tournament     the tournament event's document
    GET /tournament.csv, /tournament.json, /tournament.html
                            the standings and the bracket (Tournament.export_*; the HTML prints)
    POST /api/organiser/<action>  the organiser's changes, a JSON object each (organiser.check_*):
                              configure {name, game_options, format, groups, advance}
                              players   {name, club, target, average} or {players: [...]}
                              table     {table}     add a table;   untable {table}  remove it
                              draw      {seed}      pair the matches; the free tables get theirs
                              decide    {match, winner: A|B}  an undecided knock-out match's winner
                              view      {view}      what the TV shows

Every POST but signin needs the organiser: a session cookie from POST /api/organiser/signin
{"code"} or the code in the header X-Carom-Organiser-Code (signin.py); else 401 (429 after too
many wrong codes). The rest of the hall is open and read-only.

A POST must be `Content-Type: application/json` with the header `X-Carom-Hall: organiser` (a
page of another site cannot send that header without the server's consent, which it never
gives), a body of at most organiser.MAX_BODY bytes, an Origin (if any) that is this server's,
and a Host that is an address, localhost or this machine's name (a DNS name pointing at the hall
would be another site's: DNS rebinding).  Refusals say why, as {"error": ...}.

The MQTT client (broker.py) runs on paho's thread and hands every message to the event
loop, where the model (model.py), the tournament (organiser.py) and the pages' queues
live, so nothing needs a lock.
"""

import asyncio
import errno
import ipaddress
import json
import math
import os
import socket
import sqlite3
import stat
import tempfile
import threading
import time

from .. import web
from ..json_body import json_body
from ..web import ListenError  # noqa: F401 (host_tools.hall's)
from . import organiser as org
from . import signin
from . import schema
from .broker import Subscriber, parse_broker
from .model import Hall

STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
PORT = 8090  # the default --listen port, shown in --listen's error message
PAGE_RESULTS = 500  # results a page gets when it connects (all of them: /results.csv, /results.json)
CLIENT_QUEUE = 5000  # events waiting for one page; a page that falls this far behind is dropped (it reconnects)
MAX_BACKLOG_BYTES = 32 * 1024 * 1024  # payloads received on paho's thread, not yet handled on the loop
MAX_FILE_BYTES = 64 * 1024 * 1024  # the results file; when full it becomes FILE.1 and FILE starts again
EXPORT_CHUNK = 256 * 1024
NO_FRAMES = {"X-Frame-Options": "DENY", "Content-Security-Policy": "frame-ancestors 'none'"}
TOURNAMENT_EVERY_S = 0.1  # the tournament's work after boards' messages: at most one pass this often
SETTLE_S = 1.0  # after a connect, the hall waits this long for the retained states before assigning matches  # an export is written in pieces of about this size, other requests in between


def local_time(epoch):
    try:
        return "" if epoch is None else time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch))
    except (OverflowError, OSError, ValueError, TypeError):
        return ""


class Dashboard:
    """The hall's state on the event loop: the model, the broker link, the pages, the results file."""

    def __init__(self, hall, address, results_file=None, out=print, organiser=None):
        self.hall = hall
        self.hub = web.Hub(CLIENT_QUEUE)  # on the event loop's thread: send(); bounded in bytes (web.HUB_BYTES)
        self.overlays = {}  # table -> the Hub of the overlays open on that table
        self.organiser = organiser
        self._marks = {}  # table -> what decides whether it is free and its setup's status, as last seen
        self._observe = set()  # tables whose new state the tournament has not seen yet (later())
        self._due = None  # the tournament's pending pass (later())
        self._due_full = False
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
        if not stat.S_ISREG(os.stat(path).st_mode):  # /dev/zero would never end
            raise OSError(errno.EINVAL, "not a regular file")
        bad = 0
        longest = schema.MAX_REPORT_BYTES + 4096
        read = 0
        with open(path, "rb") as f:
            while read <= MAX_FILE_BYTES:  # (a file that grew past what the hall writes: its start only)
                line = f.readline(longest + 1)
                read += len(line)
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
                    table, received, signed = info["table"], info["received_at"], info.get("signed") is True
                    if (
                        type(table) is not str
                        or not schema.TABLE_NAME.match(table)
                        or type(received) not in (int, float)
                        or not math.isfinite(received)
                    ):
                        raise ValueError(line)
                    schema.check_report(entry)
                    self.hall.add_result(table, entry, float(received), signed)
                except (ValueError, KeyError, TypeError, AttributeError):
                    bad += 1
        self.out(
            "carom hall: %d results read from %s%s"
            % (len(self.hall.results), path, ", %d damaged lines skipped" % bad if bad else "")
        )

    def received(self, topic, payload, when, loop, ack=None):
        """On paho's thread: hands a message to the loop, unless too many bytes are already on their way.
        `ack` (the broker's acknowledgement) is called once the loop has handled it: a report after
        the tournament's database has it."""
        size = len(payload)
        with self._backlog_lock:
            if size > schema.MAX_REPORT_BYTES or self._backlog + size > MAX_BACKLOG_BYTES:
                kind, payload, size = ("size" if size > schema.MAX_REPORT_BYTES else "backlog"), None, 0
            else:
                kind = None
                self._backlog += size
        try:
            if kind is None:
                loop.call_soon_threadsafe(self.message, topic, payload, when, ack)
            else:
                loop.call_soon_threadsafe(self.refused, kind, topic, ack)
        except RuntimeError:
            pass  # the loop is closed: shutting down (not acknowledged: the broker keeps it)

    def refused(self, kind, topic, ack=None):
        self.hall.counts["messages"] += 1
        self.hall.drop(
            kind, topic, "too large" if kind == "size" else "the hall is %d bytes behind" % MAX_BACKLOG_BYTES
        )
        self._log_drops()
        if ack is not None:
            ack()  # (a payload too large stays too large: the broker need not send it again)

    def message(self, topic, payload, received, ack=None):
        try:
            self._message(topic, payload, received)
        finally:
            if ack is not None:
                ack()  # handled: a report is in the tournament's database (organiser.report commits)

    def _message(self, topic, payload, received):
        with self._backlog_lock:
            self._backlog -= len(payload)
        changed = recorded = False
        for kind, data in self.hall.handle(topic, payload, received):
            if kind == "result":
                if self._results_out is not None:
                    self._append(self.hall.last_result)
                last = self.hall.last_result
                if self.organiser is not None and last.table in self.organiser.table_set and last.signed:
                    # (a replacement too: the match finished again after an undo)
                    recorded = self.organiser.report(last.table, last.doc) is not None or recorded
            self.hub.send(kind, data)
            table = data["result"]["table"] if kind == "result" else data.get("table")
            hub = self.overlays.get(table)
            if hub is not None:
                hub.send(kind, data)
            if kind in ("table", "gone"):
                changed = self._marked(table) or changed
        self._log_drops()
        if changed or recorded:
            self.later(full=recorded)

    def later(self, full=False):
        """The tournament's work after boards' messages, done once for all that arrive within
        TOURNAMENT_EVERY_S (a burst of states costs one pass, not one each)."""
        self._due_full = self._due_full or full
        if self._due is None:
            self._due = asyncio.get_running_loop().call_later(TOURNAMENT_EVERY_S, self._due_work)

    def _due_work(self):
        full, self._due, self._due_full = self._due_full, None, False
        observe, self._observe = self._observe, set()
        for table in sorted(observe):
            t = self.hall.tables.get(table)
            if t is not None and t.state is not None:
                self.organiser.observe(table, t.state)
        self.tournament_changed(full=full)

    def _marked(self, table):
        """Whether what makes `table` free, and its setup's status, changed with its newest message."""
        if self.organiser is None or table not in self.organiser.table_set:
            return False  # (a table outside the tournament costs the tournament nothing)
        t = self.hall.tables.get(table)
        s = t.state if t is not None else None
        mark = (
            None
            if s is None
            else (
                org.board_free(s),
                s.get("phase"),
                json.dumps(s.get("setup")),
                json.dumps([(s.get("players") or {}).get(p, {}).get("name") for p in "AB"]),
            )
        )
        if self._marks.get(table, 0) == mark:
            return False
        if mark is None:
            self._marks.pop(table, None)
        else:
            self._marks[table] = mark
            self._observe.add(table)  # the tournament's match on it may be playing now (later())
        return True

    def tournament_changed(self, full=False):
        """After a change: the free tables get their next matches; the pages hear of what changed."""
        o = self.organiser
        if o is None:
            return
        if full:
            o.refresh_tables()
        sent = o.dispatch(self.hall)
        if (sent or full or o.statuses_changed(self.hall) is not None) and self.hub.clients:
            self.hub.send("tournament", o.snapshot(self.hall))  # (no page open: nobody to tell)

    def publish_view(self, view):
        self.organiser.view = view
        self.hub.send("view", {"view": view})

    def _log_drops(self):
        for kind, topic, detail in self.hall.drops_to_log():
            self.out(
                "carom hall: dropped a message on %s (%s: %s); more of this kind are only counted"
                " (/api/tables counts.dropped)" % (ascii(topic[:100]), kind, ascii(detail[:120]))
            )

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
        self.out(
            "carom hall: the results file reached %d bytes: the older results are in %s.1, %s starts again"
            " with the newest %d results" % (MAX_FILE_BYTES, path, path, len(keep))
        )

    def link(self, connected, detail, when):
        b = self.broker
        if connected != b["connected"] or detail != b["detail"]:
            if connected != b["connected"] or b["since"] is None:
                b["since"] = when
            b["connected"] = connected
            b["detail"] = detail
            if connected:
                b["connects"] += 1
                if self.organiser is not None:
                    self.organiser.republish()
                    # The retained states arrive just after a connect: the free tables get their
                    # matches once they are known (a table never heard of is free too).
                    asyncio.get_running_loop().call_later(SETTLE_S, self.tournament_changed)
            self.out(
                "carom hall: broker %s %s (%s)" % (b["address"], "connected" if connected else "not connected", detail)
            )
            self.hub.send("broker", b)
            for hub in self.overlays.values():
                hub.send("broker", b)

    def close(self):
        if self._due is not None:
            self._due.cancel()
        self.hub.close()
        for hub in self.overlays.values():
            hub.close()
        if self._results_out is not None:
            self._results_out.close()


class Server(web.Server):
    """The HTTP side: the pages' files, the JSON and CSV views, the event streams, the organiser's POSTs."""

    max_body = org.MAX_BODY

    def __init__(self, dash, signin=None):
        super().__init__(STATIC_DIR)
        self.dash = dash
        self.signin = signin  # signin.SignIn: who may change the tournament (None: anyone: tests of the pages)
        self.names = {n.lower() for n in (socket.gethostname(), socket.gethostname() + ".local")}

    async def route(self, request):
        path = request.path
        if request.method == "POST":
            return await self.post(request)
        if request.method != "GET":
            return self.send(405, {"error": "use GET, or POST for the organiser's changes"})
        page = self._page(path)
        if page is not None:
            return page
        hall = self.dash.hall
        if path == "/api/tables":
            return self.send(
                200,
                {
                    "server": self.server_id,
                    "prefix": hall.prefix,
                    "broker": self.dash.broker,
                    "counts": hall.counts,
                    "bytes": hall.bytes(),
                    "tables": hall.table_list(),
                },
            )
        if path == "/api/results":
            return self.send(200, {"results": hall.summaries()})
        if path == "/results.json":
            return await self.send_stream(
                request,
                hall.results_json_chunks(),
                "application/json",
                self._download("results", "json"),
                piece_bytes=EXPORT_CHUNK,
            )
        if path == "/results.csv":
            chunks = (c.encode("utf-8") for c in hall.results_csv_chunks(local_time))
            return await self.send_stream(
                request,
                chunks,
                "text/csv; charset=utf-8",
                self._download("results", "csv"),
                b"\xef\xbb\xbf",
                EXPORT_CHUNK,
            )  # the BOM: spreadsheets read UTF-8 names
        if path == "/events":
            return await self.stream(request, self.dash.hub, self._opening)
        if path.startswith("/events/"):
            return await self.table_stream(request, path[len("/events/") :])
        if path == "/api/tournament":
            return self.send(200, self.dash.organiser.snapshot(hall))
        if path in ("/tournament.csv", "/tournament.json", "/tournament.html"):
            return self._tournament_export(path.rsplit(".", 1)[1])
        return self.send(404, {"error": "not found: %s" % path})

    def _page(self, path):
        """The TV, the organiser's page, an overlay or a static file; None for any other path."""
        if path in ("/", "/index.html"):
            return self.file("index.html")
        if path in ("/organiser", "/organiser/"):
            # Never inside another site's frame (a click on Draw made through a page laid over it).
            with open(os.path.join(STATIC_DIR, "organiser.html"), "rb") as f:
                data = f.read()
            return self.send_bytes(200, data, "text/html; charset=utf-8", NO_FRAMES)
        if path.startswith("/overlay/"):
            if not schema.TABLE_NAME.match(path[len("/overlay/") :]):
                return self.send(404, {"error": "/overlay/<table>: a table id (a-z, 0-9, _, -)"})
            return self.file("overlay.html")
        if path.startswith("/static/"):
            return self.file(path[len("/static/") :])
        return None

    def _tournament_export(self, ext):
        """/tournament.csv, .json or .html: the tournament as a file (the CSV with a BOM for spreadsheets)."""
        data = getattr(self.dash.organiser.t, "export_" + ext)()
        ctype = {"csv": "text/csv; charset=utf-8", "json": "application/json", "html": "text/html; charset=utf-8"}[ext]
        first = b"\xef\xbb\xbf" if ext == "csv" else b""
        extra = None if ext == "html" else self._download("tournament", ext)
        return self.send_bytes(200, first + data.encode("utf-8"), ctype, extra)

    def _download(self, what, ext):
        return {
            "Content-Disposition": 'attachment; filename="carom-%s-%s.%s"' % (what, time.strftime("%Y%m%d-%H%M"), ext)
        }

    async def _opening(self, out):
        """What a page gets first: hello and a snapshot of everything known now.

        It does not await: the page's queue is added and the snapshot written in one step of
        the loop, so no event is missed or doubled.
        """
        dash = self.dash
        out.write(web.sse("hello", {"server": self.server_id, "prefix": dash.hall.prefix, "broker": dash.broker}))
        if dash.organiser is not None:
            out.write(web.sse("tournament", dash.organiser.snapshot(dash.hall)))
        out.write(
            web.sse(
                "snapshot",
                {
                    "tables": dash.hall.table_list(),
                    "results": dash.hall.summaries(PAGE_RESULTS),
                    "results_total": len(dash.hall.results),
                },
            )
        )

    async def table_stream(self, request, table):
        """One table's events (the overlay): its own hub, made when its first overlay opens."""
        if not schema.TABLE_NAME.match(table):
            return self.send(404, {"error": "/events/<table>: a table id (a-z, 0-9, _, -)"})
        dash = self.dash
        hub = dash.overlays.get(table)
        if hub is None:
            hub = dash.overlays[table] = web.Hub(CLIENT_QUEUE)

        async def opening(w):
            t = dash.hall.tables.get(table)
            w.write(
                web.sse(
                    "hello",
                    {"server": self.server_id, "prefix": dash.hall.prefix, "broker": dash.broker, "table": table},
                )
            )
            w.write(web.sse("snapshot", {"table": t.to_json() if t is not None else None}))

        try:
            return await self.stream(request, hub, opening)
        finally:
            if not hub.clients and dash.overlays.get(table) is hub:
                del dash.overlays[table]

    # ---- the organiser's changes ----

    def post_host_ok(self, headers):
        """A POST's Host: an IP address, localhost or this machine's name (not a DNS name of another site)."""
        host = headers.get("host")
        if host is None:
            return True
        parts = web.split_host(host)
        if parts is None:
            return False
        name = parts[0]
        try:
            ipaddress.ip_address(name)
            return True
        except ValueError:
            return name in web.LOCAL_NAMES or name in self.names

    async def post(self, request):
        headers = request.headers
        if not request.path.startswith("/api/organiser/"):
            return self.send(405, {"error": "only the organiser's API (/api/organiser/...) takes a POST"})
        if headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            return self.send(415, {"error": "send the body as Content-Type: application/json"})
        if headers.get("x-carom-hall") != "organiser":
            return self.send(
                403,
                {"error": "the organiser's changes come from its page (the header X-Carom-Hall: organiser is missing)"},
            )
        if not self.post_host_ok(headers):
            return self.send(
                403,
                {
                    "error": "the organiser's changes are taken under an IP address,"
                    " localhost or this machine's name, not another Host"
                },
            )
        try:
            body = json_body(request.body)
        except ValueError as e:
            return self.send(400, {"error": "the body is not JSON: %s" % str(e)[:120]})
        action = request.path[len("/api/organiser/") :]
        if self.signin is not None:
            if action == "signin":
                got = self.signin.sign_in(body.get("code") if isinstance(body, dict) else None)
                if got == "throttled":
                    return self.send(429, {"error": "too many wrong codes: wait a minute"})
                if got is None:
                    return self.send(401, {"error": "not the organiser's code"})
                return self.send_bytes(200, b'{"ok": true}', "application/json", self.signin.set_cookie(got))
            allowed = self.signin.allowed(headers)
            if allowed == "throttled":
                return self.send(429, {"error": "too many wrong codes: wait a minute"})
            if allowed is None:
                return self.send(
                    401, {"error": "sign in first, with the code carom hall printed (or --organiser-code-file's)"}
                )
        try:
            answer = self.organise(action, body)
        except org.Refused as e:
            return self.send(e.status, {"error": str(e)})
        return self.send(200, answer)

    def organise(self, action, body):
        """One change; the pages hear of it.  Refused (400: the field; 409: not now; 404) else."""
        dash = self.dash
        o = dash.organiser
        t = o.t
        try:
            if action == "view":
                dash.publish_view(org.check_view(body))
                return {"view": o.view}
            if action == "configure":
                t.configure(**org.check_configure(body))
            elif action == "players":
                players = org.check_players(body)
                known = {p["name"] for p in t.players()}
                if len(known) + len(players) > org.MAX_PLAYERS:
                    raise org.Refused("at most %d players" % org.MAX_PLAYERS, 409)
                for p in players:  # all or none: a name twice is refused before any is added
                    if p["name"] in known:
                        raise org.Refused(
                            "name: %s is already a player (names must differ: the boards' reports"
                            " are matched by them)" % json.dumps(p["name"], ensure_ascii=False),
                            409,
                        )
                    known.add(p["name"])
                ids = [t.add_player(**p) for p in players]
                dash.tournament_changed(full=True)
                return {"added": ids}
            elif action == "table":
                table = org.check_table(body)
                tables = [r["table"] for r in t.tables()]
                if table not in tables and len(tables) >= org.MAX_TABLES:
                    raise org.Refused("at most %d tables" % org.MAX_TABLES, 409)
                t.add_table(table)
            elif action == "untable":
                table = org.check_table(body)
                t.remove_table(table)
                o.withdraw(table)
            elif action == "draw":
                t.draw(seed=org.check_draw(body))
            elif action == "decide":
                t.decide(*org.check_decide(body))
            else:
                raise org.Refused("no such change: %s" % ascii(action[:40]), 404)
        except (ValueError, KeyError) as e:
            if isinstance(e, org.Refused):
                raise
            raise org.Refused(str(e.args[0] if isinstance(e, KeyError) and e.args else e)[:300], 409) from None
        dash.tournament_changed(full=True)
        return {"ok": True}


def parse_listen(text):
    """'127.0.0.1:8090', ':8090', '[::1]:8090', 'localhost:0' (0: any free port) -> (host, port)."""
    return web.parse_listen(text, PORT)


def default_client_id(port):
    """Stable across restarts (the broker keeps the session's reports), distinct per listening port."""
    host = "".join(c for c in socket.gethostname() if c.isalnum() or c in "-_")[:32] or "host"
    return "carom-hall-%s-%d" % (host, port)


CLIENT_ID_CHECK = {
    True: "carom hall: the broker makes each login its own client id: no board's login can take the hall's session",
    False: "carom hall: warning: the broker lets a login connect with any client id, so a board's login can throw the"
    " hall (or another board) off the broker; set use_username_as_clientid true (carom hall-broker prints"
    " the configuration)",
    None: "carom hall: warning: could not check the broker's client ids (no answer)",
    "anonymous": "carom hall: warning: no --user: on a broker without logins anyone on the network can take the"
    " hall's client id and throw it off (reports are still checked by their signatures); carom"
    " hall-broker prints a configuration with logins",
}


def open_organiser(db, prefix, out, tournament=None, keys=None):
    """The Organiser on the tournament file `db` (None: a temporary file, removed at the end) and
    the key file `keys` (None: hall-keys.json beside `db`; none without `db`).
    Returns (organiser, cleanup)."""
    tmpdir = None
    if db is None:
        tmpdir = tempfile.mkdtemp(prefix="carom-hall-")
        db = os.path.join(tmpdir, "tournament.sqlite")
    if tournament is None:
        from .tournament import Tournament as tournament
    try:
        t = tournament(db)  # ValueError naming the file when it is not a tournament's
        store = org.SentStore(db)
    except (OSError, sqlite3.Error, ValueError) as e:
        if tmpdir is not None:
            import shutil

            shutil.rmtree(tmpdir, ignore_errors=True)
        if isinstance(e, ValueError):
            raise
        raise ValueError("cannot use the tournament file %s: %s" % (db, e)) from None
    if tmpdir is not None:
        out(
            "carom hall: the tournament is kept in a temporary file only (no --db FILE): it is gone when"
            " carom hall stops"
        )
    else:
        out("carom hall: the tournament is in %s" % db)
    if keys is None and tmpdir is None:
        keys = os.path.join(os.path.dirname(os.path.abspath(db)), "hall-keys.json")
    if keys is not None:
        from .setups import Keys

        try:
            found = Keys(keys).tables()
        except (OSError, ValueError) as e:
            raise ValueError(str(e)) from None
        if found:
            listed = ", ".join(found[:20]) + (" ..." if len(found) > 20 else "")
        else:
            listed = "none yet: carom hall-key --keys %s --table ID gives a board its key" % keys
        out("carom hall: the tables' hall keys are in %s (%d tables: %s)" % (keys, len(found), listed))
    else:
        out("carom hall: no key file (--keys FILE, or --db FILE: hall-keys.json beside it): no setup can be sent")
    o = org.Organiser(t, store, org.KeyFile(keys), publish=None, prefix=prefix, out=out)

    def cleanup():
        store.close()
        close = getattr(t, "close", None)
        if close is not None:
            close()
        if tmpdir is not None:
            import shutil

            shutil.rmtree(tmpdir, ignore_errors=True)

    return o, cleanup


def run(
    broker,
    listen="127.0.0.1:8090",
    prefix="carom",
    client_id=None,
    results_file=None,
    out=print,
    ready=None,
    stop=None,
    user=None,
    password=None,
    db=None,
    keys=None,
    tournament=None,
    organiser_code=None,
):
    """Serve the dashboard until Ctrl-C / SIGTERM (or `stop`, a threading.Event, is set).

    `db`: the tournament's SQLite file (None: a temporary one); `keys`: the hall's key file
    (setups.Keys; None: hall-keys.json beside `db`); `tournament`: the class (tests).
    `ready(url, dashboard)` is called once the page answers.  `organiser_code`: the organiser's
    sign-in code (None: a new one, printed once).  Raises ValueError for a bad --broker,
    --listen or --db and ListenError when the address cannot be served.
    """
    host, port = parse_broker(broker)
    sock = web.listen(listen, PORT)
    try:
        organiser, cleanup = open_organiser(db, prefix, out, tournament, keys)
        try:
            if organiser_code is None:
                organiser_code = signin.new_code()
                out(
                    "carom hall: the organiser signs in with the code %s (shown only here; --organiser-code-file"
                    " keeps one across restarts)" % organiser_code
                )
            return asyncio.run(
                _main(
                    sock,
                    host,
                    port,
                    prefix,
                    client_id or default_client_id(sock.getsockname()[1]),
                    results_file,
                    out,
                    ready,
                    stop,
                    user,
                    password,
                    organiser,
                    signin.SignIn(organiser_code),
                )
            )
        finally:
            cleanup()
    finally:
        sock.close()


async def _main(
    sock,
    host,
    port,
    prefix,
    client_id,
    results_file,
    out,
    ready,
    stop,
    user=None,
    password=None,
    organiser=None,
    sign_in=None,
):
    loop = asyncio.get_running_loop()
    stopping = web.stop_signals(loop)
    address = "%s:%d" % (host if ":" not in host else "[%s]" % host, port)
    dash = Dashboard(
        Hall(prefix, organiser.keys.key if organiser is not None else None), address, results_file, out, organiser
    )

    def on_message(topic, payload, retained, ack):
        dash.received(topic, payload, time.time(), loop, ack)  # stamped on paho's thread, when the message arrived

    def on_link(connected, detail):
        try:
            loop.call_soon_threadsafe(dash.link, connected, detail, time.time())
        except RuntimeError:
            pass

    subscriber = Subscriber(host, port, prefix, client_id, on_message, on_link, user, password)
    if organiser is not None:
        organiser.publish = subscriber.publish
    server = Server(dash, sign_in)
    srv = await server.start(sock)
    url = web.url_of(sock)

    def checked(own):
        try:
            loop.call_soon_threadsafe(out, CLIENT_ID_CHECK[own])
        except RuntimeError:
            pass

    subscriber.start(checked)
    if not user:
        out(CLIENT_ID_CHECK["anonymous"])
    out(
        "carom hall: tables under %s/<table>/ on the broker %s (client id %s%s)"
        % (prefix, address, client_id, ", user %s" % ascii(user) if user else "")
    )
    out("carom hall: the dashboard is at %s  (Ctrl-C stops it); the organiser's page at %s/organiser" % (url, url))
    if ready:
        ready(url, dash)
    try:
        await web.wait_stopped(stopping, stop)
    finally:
        out("carom hall: stopping")
        await loop.run_in_executor(None, subscriber.stop)
        srv.close()
        dash.close()
        await server.cancel_all()
    return 0

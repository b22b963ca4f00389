"""The hall's HTTP side: the pages, the API, the exports, the event streams and the organiser's POSTs,
on host_tools/web.py's Server (aiohttp behind the project's door, as host_tools/simulator/page).

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
                              configure {name, game_options, format, groups, advance, walkover,
                                         withdrawal, tiebreak, third_place}
                              players   {name, club, target, average} or {players: [...]}
                              table     {table}     add a table;   untable {table}  remove it
                              draw      {seed}      pair the matches; the free tables get theirs
                              decide    {match, winner: A|B}  an undecided knock-out match's winner
                              view      {view}      what the TV shows
                              walkover  {match, present: A|B}   a no-show: a walkover for who came
                              withdraw  {player, excluded}      a player withdraws (or is excluded)
                              result    {match, A, B, winner}   a result entered by hand
                              move      {match, table}          a match to another table
                              unsend    {table}     the table's setup taken back from its board

Every POST but signin needs the organiser: a session cookie from POST /api/organiser/signin
{"code"} or the code in the header X-Carom-Organiser-Code (signin.py); else 401 (429 after too
many wrong codes). The rest of the hall is open and read-only.

A POST must be `Content-Type: application/json` with the header `X-Carom-Hall: organiser` (a
page of another site cannot send that header without the server's consent, which it never
gives), a body of at most organiser.MAX_BODY bytes, an Origin (if any) that is this server's,
and a Host that is an address, localhost or this machine's name (a DNS name pointing at the hall
would be another site's: DNS rebinding).  Refusals say why, as {"error": ...}.

What a page sees comes from the dashboard (dashboard.py) on the same event loop; a change the
organiser POSTs is applied by changes.py.
"""

import ipaddress
import os
import socket
import time

from .. import web
from ..json_body import json_body
from . import changes
from . import organiser as org
from . import schema
from .dashboard import CLIENT_QUEUE

STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
PAGE_RESULTS = 500  # results a page gets when it connects (all of them: /results.csv, /results.json)
EXPORT_CHUNK = 256 * 1024  # an export is written in pieces of about this size, other requests in between
NO_FRAMES = {"X-Frame-Options": "DENY", "Content-Security-Policy": "frame-ancestors 'none'"}


def local_time(epoch):
    try:
        return "" if epoch is None else time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch))
    except (OverflowError, OSError, ValueError, TypeError):
        return ""


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
            answer = changes.apply(self.dash, action, body)
        except org.Refused as e:
            return self.send(e.status, {"error": str(e)})
        return self.send(200, answer)

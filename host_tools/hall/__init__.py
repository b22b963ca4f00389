"""The hall dashboard: every table's match on one page, live, from the boards' MQTT topics.

`carom hall --broker HOST[:PORT]` subscribes to <prefix>/+/state, /status and /report and
serves a page (default http://127.0.0.1:8090) with a tile per table and the results list
of finished matches (exported as /results.csv and /results.json).  It also runs a tournament
(/organiser, --db FILE): each free table is sent its next match on <prefix>/<table>/setup,
signed with the table's key (--keys FILE), and the reports fill the standings and the bracket;
/overlay/<table> is a score overlay for streaming software.

    schema.py   what gets in: the state document's and the report's schema, bounded in bytes before parsing
    model.py    the tables and the results list, fed message by message (pure; the dedup rule, slots,
                eviction, the byte bounds)
    broker.py   the MQTT subscription (and the setups' publish): paho-mqtt on its own thread, reconnecting
    tournament/  the tournament in SQLite: players, draw, matches onto tables, standings, bracket, exports
                (a module per job: tournament/__init__.py lists them)
    setups.py   the tables' keys and numbers (the key file), a setup signed for its table
    organiser.py  the tournament on the hall: which tables are free, the setups sent and what they do,
                what the organiser's page may POST (every field checked)
    dashboard.py  the hall's state on the event loop: messages into the model, the pages' hubs, the
                tournament's dispatch, the broker link (paho's thread hands it every message)
    results_file.py  the results list kept in a file (--results): read back, appended, rotated
    routes.py   the HTTP side on host_tools/web.py: the pages, the API, the exports, the event
                streams, the organiser's POSTs (their checks and sign-in)
    changes.py  the organiser's changes applied to the tournament
    server.py   `carom hall`'s process: all of the above put together, run until Ctrl-C
    static/     the TV (index.html, hall.js, hall.css), the organiser's page (organiser.*), the
                bracket both draw (bracket.js), the overlay (overlay.*): no build step, nothing
                from the internet

The simulated tables (tools/hall/loadgen.py) and the tournament runner (tools/hall/tourneyrun.py)
are the repository's, for the tests, `make bench` and a demo: not shipped.
"""

from .server import ListenError, run  # noqa: F401

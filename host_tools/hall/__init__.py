"""The hall dashboard: every table's match on one page, live, from the boards' MQTT topics.

`carom hall --broker HOST[:PORT]` subscribes to <prefix>/+/state, /status and /report and
serves a page (default http://127.0.0.1:8090) with a tile per table and the results list
of finished matches (exported as /results.csv and /results.json).

    schema.py   what gets in: the state document's and the report's schema, bounded in bytes before parsing
    model.py    the tables and the results list, fed message by message (pure; the dedup rule, slots,
                eviction, the byte bounds)
    broker.py   the MQTT subscription: paho-mqtt on its own thread, reconnecting by itself
    server.py   HTTP + server-sent events on asyncio (standard library only)
    loadgen.py  simulated tables publishing real state documents (tests, benchmark, a demo)
    bench.py    hall_section(): the load benchmark's figures for `make bench`
    static/     index.html, hall.js, hall.css (no build step, nothing from the internet)
"""

from .server import ListenError, run  # noqa: F401

"""The hall's state on the event loop: the boards' MQTT messages into the model, the pages' hubs, the
tournament's dispatch, the broker link's status, the results file.

The MQTT client (broker.py) runs on paho's thread and hands every message to the event loop
(received()), where the model (model.py), the tournament (organiser.py) and the pages' queues
live, so nothing needs a lock.  The HTTP side (routes.py) reads what is here.
"""

import asyncio
import json
import threading

from .. import web
from . import organiser as org
from . import schema
from .results_file import ResultsFile

CLIENT_QUEUE = 5000  # events waiting for one page; a page that falls this far behind is dropped (it reconnects)
MAX_BACKLOG_BYTES = 32 * 1024 * 1024  # payloads received on paho's thread, not yet handled on the loop
TOURNAMENT_EVERY_S = 0.1  # the tournament's work after boards' messages: at most one pass this often
SETTLE_S = 1.0  # after a connect, the hall waits this long for the retained states before assigning matches


class Dashboard:
    """The hall's state on the event loop: the model, the broker link, the pages, the results file
    (`results_file`: a path, or None)."""

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
        self.results_file = ResultsFile(results_file, hall, out) if results_file else None
        self._backlog = 0  # bytes of payloads on their way from paho's thread to the loop
        self._backlog_lock = threading.Lock()

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
                if self.results_file is not None:
                    self.results_file.append(self.hall.last_result)
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
        if self.results_file is not None:
            self.results_file.close()

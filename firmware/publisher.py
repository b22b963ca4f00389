"""The wall board in the hall: its state and its reports published over MQTT.

Loaded by app.Board.wifi_task the first time the board is on the network (a
board off the network costs no RAM for it); then it stays.

    <prefix>/<table>/state   the state document, retained, on every change
    <prefix>/<table>/status  "online", or "offline" (the last will)
    <prefix>/<table>/report  each finished match, QoS 1; kept on flash until the
                             broker has it, sent again after a power cut if it had not;
                             with hall.key: the report, a space and 64 hex digits of
                             HMAC-SHA256(hall.key, the report) (mqtt.py signs as it sends)
    <prefix>/<table>/setup   read (with hall.key in config.json): the hall's next match for
                             this table, signed; publisher_hall.py checks and applies it

A setup that passed publisher_hall's checks waits here (RAM: `setup`) until the table is
free: in the lag with nothing played, or its match finished, its report on the flash and
HOLD_MS gone by since (an undo of a wrong last point stays possible); then publisher_hall
applies it. A newer one replaces a waiting one.
"""

import asyncio
import time

import cold
import mqtt
import rules
from ticks import ticks_diff

PUBLISH_MS = 200  # how often the state is looked at for a change
HOLD_MS = 20000  # a finished match stays on the wall this long before a waiting setup replaces it


class Publisher:
    def __init__(self, board):
        """board: the app.Board (its hall, topic, match, controller and store)."""
        self.board = board
        client_id, host, port, user, password, keepalive = board.hall
        status = board.topic + "status"
        self.client = mqtt.Client(
            client_id,
            host,
            port,
            user,
            password,
            keepalive=keepalive,
            will=(status, b"offline", True, 1),
            birth=(status, b"online", True, 1),
        )
        self._resend = True
        self._published = None
        # The hall's setups: [n applied, (n, setup) waiting or None, refused, last refusal's
        # reason, changes] (publisher_hall.start), or None without hall.key.
        with cold.Rare():
            import publisher_hall

            self.setup = publisher_hall.start(self)
        self._finished = None  # ticks_ms when publish_task first saw the match finished
        asyncio.create_task(self.client.run())
        asyncio.create_task(self.publish_task())

    def state_pieces(self):
        """The state document now, in pieces (mqtt.py asks for it when it sends; matchdoc.py
        is loaded for it and dropped: no document code stays in RAM)."""
        with cold.Rare():
            import matchdoc

            return matchdoc.pieces(self.board.match, time.ticks_ms(), 512, self.setup)

    async def publish_task(self):
        """The state document after every change (off the button path: this allocates)."""
        b = self.board
        m = b.match
        while True:
            s = self.setup
            if m.phase != rules.FINISHED:
                self._finished = None
            elif self._finished is None:
                self._finished = mqtt.ticks_ms()
            if s is not None and s[1] is not None and self.free():
                self.received(None, True)
            key = (b.ctrl.matches, m.n, m.edits, m.closed, s and s[4])
            if self._published != key:
                self._published = key
                self.client.state(b.topic + "state", self.state_pieces)
            await asyncio.sleep_ms(PUBLISH_MS)

    def free(self):
        """No match in progress: nothing played in the lag, or finished (its report on the
        flash) for HOLD_MS; never while the saved match could not be read (store.held)."""
        b = self.board
        m = b.match
        if m.phase != rules.FINISHED or self._finished is None:
            return m.phase == rules.LAG and not m.n and not b.store.held
        return b.reported and ticks_diff(mqtt.ticks_ms(), self._finished) >= HOLD_MS

    def received(self, payload, apply=False):
        """A message on the setup topic (bytes; None: too big) to publisher_hall.received, or
        with apply, publisher_hall.apply (the waiting setup, the table now free). Never raises
        (it runs in mqtt.py's reading task)."""
        try:
            with cold.Rare():
                import publisher_hall

                if apply:
                    publisher_hall.apply(self, payload)
                else:
                    publisher_hall.received(self, payload)
        except Exception as e:  # noqa: BLE001 -- a waiting setup is tried again; a new one comes again retained
            print("setup:", repr(e))
            if isinstance(e, MemoryError):
                self.board.short_of_memory()

    def send_report(self, name):
        """A finished match's report, read from its file as it is sent; signed with the hall
        key when the board has one (the hall refuses an unsigned report from a table it keyed)."""
        with cold.Rare():
            import store_history

            path = store_history.report_path(self.board.store, name)
        s = self.setup
        self.client.publish_file(
            self.board.topic + "report", path, qos=1, on_ack=lambda topic: self.acked(name), key=s[5] if s else None
        )

    def acked(self, name):
        try:
            with cold.Rare():
                import store_history

                store_history.mark_sent(self.board.store, name)
        except MemoryError:  # not marked: sent again after the next start (the hall drops repeats)
            self.board.short_of_memory()

    def resend(self):
        """Once: the reports finished while the broker was away (or at a power cut)."""
        if self._resend:
            with cold.Rare():
                import store_history

                unsent = store_history.unsent(self.board.store)
            for name in unsent:
                self.send_report(name)
            self._resend = False

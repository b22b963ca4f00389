"""The wall board in the hall: its state and its reports published over MQTT.

Loaded by app.Board.wifi_task the first time the board is on the network (a
board off the network costs no RAM for it); then it stays.

    <prefix>/<table>/state   the state document, retained, on every change
    <prefix>/<table>/status  "online", or "offline" (the last will)
    <prefix>/<table>/report  each finished match, QoS 1; kept on flash until the
                             broker has it, sent again after a power cut if it had not
"""

import asyncio
import time

import cold
import mqtt

PUBLISH_MS = 200  # how often the state is looked at for a change


class Publisher:
    def __init__(self, board):
        """board: the app.Board (its hall, topic, match, controller and store)."""
        self.board = board
        client_id, host, port, user, password = board.hall
        status = board.topic + "status"
        self.client = mqtt.Client(client_id, host, port, user, password, keepalive=30,
                                  will=(status, b"offline", True, 1), birth=(status, b"online", True, 1))
        self._resend = True
        self._published = None
        asyncio.create_task(self.client.run())
        asyncio.create_task(self.publish_task())

    def state_pieces(self):
        """The state document now, in pieces (mqtt.py asks for it when it sends; matchdoc.py
        is loaded for it and dropped: no document code stays in RAM)."""
        return cold.call("matchdoc", "pieces", self.board.match, time.ticks_ms())

    async def publish_task(self):
        """The state document after every change (off the button path: this allocates)."""
        b = self.board
        m = b.match
        while True:
            key = (b.ctrl.matches, m.n, m.edits, m.closed)
            if self._published != key:
                self._published = key
                self.client.state(b.topic + "state", self.state_pieces)
            await asyncio.sleep_ms(PUBLISH_MS)

    def send_report(self, name):
        """A finished match's report, read from its file as it is sent."""
        path = cold.call("history", "report_path", self.board.store, name)
        self.client.publish_file(self.board.topic + "report", path, qos=1,
                                 on_ack=lambda topic: self.acked(name))

    def acked(self, name):
        try:
            cold.call("history", "mark_sent", self.board.store, name)
        except MemoryError:  # not marked: sent again after the next start (the hall drops repeats)
            self.board.short_of_memory()

    def resend(self):
        """Once: the reports finished while the broker was away (or at a power cut)."""
        if self._resend:
            for name in cold.call("history", "unsent", self.board.store):
                self.send_report(name)
            self._resend = False

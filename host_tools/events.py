"""Server-sent events for the pages: one event's bytes, and the hub that fans events out to every
open stream, each page's queue bounded in events and bytes (a page that falls behind is dropped
and reconnects). No HTTP here: web.py streams what a queue holds.
"""

import asyncio
import json

HUB_BYTES = 4 << 20  # bytes of events waiting for one page; beyond that (or `size` events) it is dropped


def sse(kind, payload):
    """One server-sent event, as bytes."""
    return ("event: %s\ndata: %s\n\n" % (kind, json.dumps(payload, separators=(",", ":")))).encode()


class ClientQueue(asyncio.Queue):
    """One page's events waiting to be written: at most `maxsize` events and `max_bytes` bytes."""

    def __init__(self, maxsize, max_bytes):
        super().__init__(maxsize)
        self.max_bytes = max_bytes
        self.bytes = 0
        self.on_drop = None  # called when the hub drops this page (the stream closes its connection)

    def _put(self, item):
        self.bytes += len(item or b"")
        super()._put(item)

    def _get(self):
        item = super()._get()
        self.bytes -= len(item or b"")
        return item

    def offer(self, data):
        """Queue `data`; False (nothing queued) when it would pass either bound."""
        if self.full() or self.bytes + len(data) > self.max_bytes:
            return False
        self.put_nowait(data)
        return True

    def drop(self):
        """Empty the queue and end the stream (None), closing the page's connection."""
        while not self.empty():
            self.get_nowait()
        self.put_nowait(None)
        if self.on_drop is not None:
            self.on_drop()


class Hub:
    """Fans events out to every connected page: a queue of `size` events and `max_bytes` bytes each.

    send() runs on the event loop's thread, publish() on any other (it needs `loop`).
    A page that falls `size` events or `max_bytes` bytes behind is dropped; it reconnects.
    """

    def __init__(self, size, loop=None, max_bytes=HUB_BYTES):
        self.size = size
        self.loop = loop
        self.max_bytes = max_bytes
        self.clients = set()

    def send(self, kind, payload):
        self.fanout(sse(kind, payload))

    def publish(self, kind, payload):
        """Thread-safe: the event is encoded here, on the caller's thread."""
        try:
            self.loop.call_soon_threadsafe(self.fanout, sse(kind, payload))
        except RuntimeError:
            pass  # the loop is closed: shutting down

    def fanout(self, data):
        for queue in list(self.clients):
            if not queue.offer(data):  # a page that stopped reading: drop it
                self.clients.discard(queue)
                queue.drop()

    def add(self):
        queue = ClientQueue(self.size, self.max_bytes)
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

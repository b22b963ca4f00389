"""A small MQTT 3.1.1 client for asyncio that never holds up the scoring.

    c = Client("table3", "192.168.1.10", will=("carom/table3/status", b"offline", True, 1))
    asyncio.create_task(c.run())
    c.state("carom/table3/state", payload)     # the newest state: older unsent ones are dropped
    c.publish("carom/table3/report", data, qos=1, on_ack=callback)
    c.publish_file("carom/table3/report", "/data/history/000012.json", qos=1, on_ack=callback)
    c.publish_file("carom/table3/report", path, qos=1, on_ack=callback, key=hall_key)  # signed
    c.subscribe("carom/table3/setup", handler)   # handler(payload bytes, or None: too big)

A payload is bytes, or a function returning a list of bytes pieces that is
called when the message goes out (the state document of that moment, never
held whole); a file is read and sent in pieces of PIECE bytes. A message that
cannot be sent for want of memory is tried again at the next connection.
Connects with a keepalive and a last will, publishes QoS 0 and 1, retained or
not, and reconnects with backoff (1, 2, 4 ... 60 s) while the broker or the
network is down, for as long as it takes. Nothing here blocks: publishing
only queues; the task sends. QoS 1 messages wait until their PUBACK and are
sent again (DUP) after a reconnect. micropython-lib's umqtt.robust blocks
while it reconnects, which a scoreboard cannot afford.

One topic may be subscribed to (QoS 1, again at every connect: a retained
message arrives each time). A PUBLISH to the board of more than MAX_IN bytes
is read in pieces and dropped (its handler gets None); a smaller one's
payload goes to the handler, then it is acknowledged.

Give the broker as an IP address: a host name is looked up with
socket.getaddrinfo, which blocks on MicroPython (and for long when the DNS
server is unreachable).
"""

import asyncio
import binascii
import hashlib
import os
import struct

from ticks import ticks_diff

try:
    from time import ticks_ms
except ImportError:  # CPython (tests of the packet functions)
    from time import monotonic

    def ticks_ms():
        return int(monotonic() * 1000) & 0x3FFFFFFF  # ticks.py's period


CONNECT = 0x10
CONNACK = 0x20
PUBLISH = 0x30
PUBACK = 0x40
SUBSCRIBE = 0x82
PINGREQ = 0xC0
PINGRESP = 0xD0
DISCONNECT = 0xE0

BACKOFF_MAX_S = 60
TIMEOUT_S = 10  # an answer that takes longer: the connection is dead
PIECE = 512  # bytes of a file read and sent at a time
MAX_IN = 2048  # a packet to the board up to this size is read whole; a PUBLISH's head: HEAD bytes
HEAD = 128
SIGNED_TAIL = 65  # a signed file's tail: b" " and 64 hex digits of its HMAC-SHA256


class MQTTException(Exception):
    pass


# ---- packets ----------------------------------------------------------------------


def _length(n):
    """The remaining-length field: 7 bits a byte, high bit = more."""
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | 0x80 if n else byte)
        if not n:
            return bytes(out)


def _str(s):
    b = s if isinstance(s, (bytes, bytearray)) else s.encode()
    return struct.pack("!H", len(b)) + b


def connect_packet(client_id, keepalive=30, will=None, user=None, password=None, clean=True):
    flags = 0x02 if clean else 0
    payload = _str(client_id)
    if will is not None:
        topic, message, retain, qos = will
        flags |= 0x04 | (qos << 3) | (0x20 if retain else 0)
        payload += _str(topic) + _str(message)
    if user:
        flags |= 0x80
        payload += _str(user)
        if password:
            flags |= 0x40
            payload += _str(password)
    body = _str("MQTT") + bytes((4, flags)) + struct.pack("!H", keepalive) + payload
    return bytes((CONNECT,)) + _length(len(body)) + body


def publish_header(topic, size, qos=0, retain=False, pid=0, dup=False):
    """A PUBLISH packet up to its payload, for a payload of `size` bytes sent after it."""
    header = PUBLISH | (0x08 if dup else 0) | (qos << 1) | (1 if retain else 0)
    head = _str(topic) + (struct.pack("!H", pid) if qos else b"")
    return bytes((header,)) + _length(len(head) + size) + head


def publish_packet(topic, payload, qos=0, retain=False, pid=0, dup=False):
    return publish_header(topic, len(payload), qos, retain, pid, dup) + payload


def puback_packet(pid):
    return bytes((PUBACK, 2)) + struct.pack("!H", pid)


def subscribe_packet(topic, pid):
    body = struct.pack("!H", pid) + _str(topic) + b"\x01"  # QoS 1
    return bytes((SUBSCRIBE,)) + _length(len(body)) + body


PINGREQ_PACKET = bytes((PINGREQ, 0))
DISCONNECT_PACKET = bytes((DISCONNECT, 0))


async def read_packet(reader, limit=0):
    """(type byte, body bytes) of the next packet from an asyncio stream. With a limit, a
    longer packet is read in pieces and dropped: (type byte | 0x100, its first HEAD bytes)."""
    head = await reader.readexactly(1)
    n = 0
    shift = 0
    while True:
        b = (await reader.readexactly(1))[0]
        n |= (b & 0x7F) << shift
        if not b & 0x80:
            break
        shift += 7
        if shift > 21:
            raise MQTTException("bad remaining length")
    if limit and n > limit:
        body = await reader.readexactly(HEAD)
        n -= HEAD
        while n:
            k = n if n < PIECE else PIECE
            await reader.readexactly(k)
            n -= k
        return head[0] | 0x100, body
    body = await reader.readexactly(n) if n else b""
    return head[0], body


# ---- the client ---------------------------------------------------------------------


class Client:
    def __init__(self, client_id, host, port=1883, user=None, password=None, keepalive=30, will=None, birth=None):
        """will: (topic, message, retain, qos) the broker publishes if we vanish;
        birth: (topic, message, retain, qos) published at every connect (e.g. "online")."""
        self.client_id = client_id
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.keepalive = keepalive
        self.will = will
        self.birth = birth
        self.connected = False
        self.connects = 0  # successful connections so far
        self.failures = 0  # failed attempts since the last success
        self._state = {}  # topic -> (payload, retain): only the newest is kept, waiting to be sent
        self._latest = {}  # topic -> (payload, retain): the newest ever, sent again after each connect
        self._heard = 0  # ticks_ms when the broker last sent anything
        self._queue = []  # (topic, payload, qos, retain, on_ack) in order
        self._inflight = {}  # pid -> (topic, payload, retain, on_ack) awaiting PUBACK
        self._pid = 0
        self._wake = asyncio.Event()
        self._writer = None
        self._sub = None  # (topic as bytes, handler) once subscribed
        self._acks = []  # the packet ids of received QoS 1 messages, to acknowledge

    # Publishing only queues: the task sends.

    def state(self, topic, payload, retain=True):
        """The newest value of a topic (QoS 0); an unsent older one is replaced, and after every
        (re)connect the newest is sent again: one written into a silently dead connection is not lost."""
        self._state[topic] = self._latest[topic] = (payload, retain)
        self._wake.set()

    def publish(self, topic, payload, qos=0, retain=False, on_ack=None):
        """Queue a message; with qos=1 on_ack(topic) is called when the broker has it."""
        self._queue.append((topic, payload, qos, retain, on_ack))
        self._wake.set()

    def publish_file(self, topic, path, qos=0, retain=False, on_ack=None, key=None):
        """Queue a file's content as a message, read in pieces when it is sent (a file gone
        by then is dropped). With `key` (bytes, at most 64) the message is signed: the file,
        a space and 64 hex digits of HMAC-SHA256(key, the file), made as the pieces go out."""
        self.publish(topic, _File(path, key), qos, retain, on_ack)

    def subscribe(self, topic, handler):
        """Subscribe to `topic` (QoS 1) at every connect; handler(payload) for each message on it
        (None: one longer than MAX_IN, dropped unread). It runs in the reading task: it must not
        raise."""
        self._sub = (topic.encode(), handler)

    def pending(self):
        return len(self._state) + len(self._queue) + len(self._inflight)

    async def run(self):
        """Connect, send, keep alive; on any failure wait (backoff) and connect again. Forever."""
        delay = 1
        while True:
            try:
                await self._session()
            except (OSError, MQTTException, EOFError, asyncio.TimeoutError, MemoryError) as e:
                self._note("mqtt: %s" % (e,))  # MemoryError too: the next connection sends it all again
            self._close()
            if self.connected:
                self.connected = False
                delay = 1
            self.failures += 1
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX_S)

    def _note(self, text):
        print(text)

    def _close(self):
        w = self._writer
        self._writer = None
        if w is not None:
            try:
                w.s.close()  # MicroPython's Stream.close() does nothing: its socket closes in wait_closed()
            except OSError:
                pass

    async def _session(self):
        reader, writer = await asyncio.wait_for(asyncio.open_connection(self.host, self.port), TIMEOUT_S)
        self._writer = writer
        writer.write(connect_packet(self.client_id, self.keepalive, self.will, self.user, self.password))
        await writer.drain()
        kind, body = await asyncio.wait_for(read_packet(reader), TIMEOUT_S)
        if kind != CONNACK or len(body) != 2 or body[1] != 0:
            raise MQTTException("connection refused (%s)" % (body[1] if len(body) == 2 else "no CONNACK"))
        self.connected = True
        self.connects += 1
        self.failures = 0
        self._heard = ticks_ms()
        for topic in self._latest:
            self._state[topic] = self._latest[topic]
        if self.birth is not None:
            topic, message, retain, qos = self.birth
            writer.write(publish_packet(topic, message, 0, retain))
        self._acks = []  # a session's packet ids end with it
        if self._sub is not None:
            self._pid = self._pid % 65535 + 1
            writer.write(subscribe_packet(self._sub[0], self._pid))
        # Messages that were waiting for a PUBACK when the connection died go again (DUP).
        for pid in sorted(self._inflight):
            topic, payload, retain, on_ack = self._inflight[pid]
            await self._send(writer, topic, payload, 1, retain, pid, True)
        await writer.drain()
        reading = asyncio.create_task(self._reader(reader))
        try:
            await self._sender(writer, reading)
        finally:
            reading.cancel()

    async def _sender(self, writer, reading):
        last = ticks_ms()
        while True:
            if reading.done():
                raise MQTTException("the connection closed")
            sent = False
            while self._state:
                topic = next(iter(self._state))
                payload, retain = self._state.pop(topic)
                await self._send(writer, topic, payload, 0, retain, 0, False)
                sent = True
            while self._queue:
                topic, payload, qos, retain, on_ack = self._queue.pop(0)
                pid = 0
                if qos:
                    self._pid = self._pid % 65535 + 1
                    pid = self._pid
                    self._inflight[pid] = (topic, payload, retain, on_ack)
                await self._send(writer, topic, payload, qos, retain, pid, False)
                sent = True
            while self._acks:
                writer.write(bytes((PUBACK, 2)) + self._acks.pop(0))
                sent = True
            if not sent and ticks_diff(ticks_ms(), last) >= self.keepalive * 500:
                writer.write(PINGREQ_PACKET)
                sent = True
            if ticks_diff(ticks_ms(), self._heard) > self.keepalive * 1500:
                raise MQTTException("no answer from the broker for %d s" % (self.keepalive * 3 // 2))
            if sent:
                await asyncio.wait_for(writer.drain(), TIMEOUT_S)
                last = ticks_ms()
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), 1)
            except asyncio.TimeoutError:
                pass

    async def _send(self, writer, topic, payload, qos, retain, pid, dup):
        """One PUBLISH: bytes, pieces made now (written without a pause: they belong to one
        moment), or a file read in pieces."""
        if isinstance(payload, _File):
            await payload.send(writer, publish_header, topic, qos, retain, pid, dup)
            return
        pieces = payload() if callable(payload) else (payload,)
        size = 0
        for p in pieces:
            size += len(p)
        writer.write(publish_header(topic, size, qos, retain, pid, dup))
        for p in pieces:
            writer.write(p)

    async def _reader(self, reader):
        # Ends (never raises: the app resets the board on a task's exception) when the
        # connection does; the sender sees it done and the session starts again.
        try:
            while True:
                kind, body = await read_packet(reader, MAX_IN)
                self._heard = ticks_ms()
                if kind & 0xF0 == PUBLISH:
                    self._received(kind, body)
                kind &= 0xF0
                if kind == PUBACK and len(body) == 2:
                    pid = struct.unpack("!H", body)[0]
                    done = self._inflight.pop(pid, None)
                    if done is not None and done[3] is not None:
                        done[3](done[0])
        except (OSError, EOFError, MQTTException):
            pass
        finally:
            self._wake.set()

    def _received(self, kind, body):
        """A PUBLISH to the board: to the handler if it is on our topic, then acknowledged."""
        at = 2 + (body[0] << 8 | body[1]) if len(body) > 1 else 1 << 20
        if at + (2 if kind & 6 else 0) > len(body):
            raise MQTTException("bad PUBLISH")
        topic = body[2:at]
        pid = None
        if kind & 6:  # QoS 1 (or 2, which we never ask for)
            pid = body[at : at + 2]
            at += 2
        if self._sub is not None and topic == self._sub[0]:
            self._sub[1](None if kind & 0x100 else body[at:])
        if pid is not None:
            self._acks.append(pid)
            self._wake.set()


class _File:
    """A message whose payload is a file, read in PIECE-byte pieces as it is sent; with a key,
    signed (SIGNED_TAIL more bytes: a space and the HMAC in hex, hashed from the same pieces)."""

    def __init__(self, path, key=None):
        self.path = path
        self.key = key

    async def send(self, writer, header, topic, qos, retain, pid, dup):
        try:
            size = os.stat(self.path)[6]
            f = open(self.path, "rb")
        except OSError:
            return  # gone (older reports make room for new ones): nothing to send
        try:
            key = self.key
            h = None
            if key is not None:
                pad = bytearray(64)
                pad[: len(key)] = key
                for i in range(64):
                    pad[i] ^= 0x36
                h = hashlib.sha256(pad)
            writer.write(header(topic, size + (SIGNED_TAIL if h else 0), qos, retain, pid, dup))
            buf = bytearray(PIECE)
            left = size
            while left > 0:
                n = f.readinto(buf)
                if not n:  # shorter than it was: the packet cannot be finished on this connection
                    raise MQTTException("%s changed while it was sent" % self.path)
                n = min(n, left)
                piece = memoryview(buf)[:n]
                if h is not None:
                    h.update(piece)
                writer.write(piece)
                left -= n
                await writer.drain()
            if h is not None:
                inner = h.digest()
                for i in range(64):
                    pad[i] ^= 0x36 ^ 0x5C
                h = hashlib.sha256(pad)
                h.update(inner)
                writer.write(b" " + binascii.hexlify(h.digest()))
        finally:
            f.close()

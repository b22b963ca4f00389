"""JSON written in pieces through one small buffer: no document is ever whole in RAM.

    out = JsonOut(f)                  # anything with write(bytes); None only counts bytes
    out.open("{"); out.key("score"); out.value(12); out.close("}")
    out.flush()                       # out.total: bytes written

The state document and the match report are written with it (matchdoc.py,
report.py): into a file on the flash, or into a list of pieces for MQTT, so a
3,000-entry match never needs one large allocation.
"""

import json


class Pieces:
    """A write() target that keeps what is written as a list of bytes pieces."""

    def __init__(self):
        self.parts = []

    def write(self, data):
        self.parts.append(bytes(data))
        return len(data)


class JsonOut:
    def __init__(self, out, size=256):
        self.out = out
        self._buf = bytearray(size)
        self._n = 0
        self.total = 0
        self._first = True  # nothing before the next item in this object or list: no comma
        self._names = {}  # str keys as bytes, encoded once (a report's innings repeat ten keys)

    def _put(self, data):
        n = len(data)
        if self._n + n > len(self._buf):
            self.flush()
            if n > len(self._buf):  # a long text: straight through
                if self.out is not None:
                    self.out.write(data)
                self.total += n
                return
        self._buf[self._n : self._n + n] = data
        self._n += n

    def flush(self):
        if self._n:
            if self.out is not None:
                self.out.write(memoryview(self._buf)[: self._n])
            self.total += self._n
            self._n = 0

    def _item(self):
        if not self._first:
            self._put(b",")
        self._first = False

    def open(self, bracket):
        """Start an object ("{") or a list ("[")."""
        self._item()
        self._put(b"{" if bracket == "{" else b"[")
        self._first = True

    def close(self, bracket):
        self._put(b"}" if bracket == "}" else b"]")
        self._first = False

    def key(self, name):
        """The key of the next value in an object: str, or bytes (a plain name: a module that
        writes its names as bytes leaves no interned strings behind, matchdoc.py)."""
        self._item()
        self._put(b'"')
        if not isinstance(name, bytes):
            b = self._names.get(name)
            if b is None:
                b = self._names[name] = name.encode()
            name = b
        self._put(name)
        self._put(b'":')
        self._first = True

    def value(self, v):
        """None, a bool, an int, a str, a plain name as bytes, or a list or tuple of them."""
        self._item()
        if v is None:
            self._put(b"null")
        elif v is True:
            self._put(b"true")
        elif v is False:
            self._put(b"false")
        elif isinstance(v, int):
            self._put(b"%d" % v)
        elif isinstance(v, str):
            self._put(json.dumps(v).encode())
        elif isinstance(v, bytes):  # a plain name (no quote or backslash in it), as key() takes
            self._put(b'"')
            self._put(v)
            self._put(b'"')
        elif isinstance(v, (list, tuple)):
            self._put(b"[")
            self._first = True
            for x in v:
                self.value(x)
            self._put(b"]")
            self._first = False
        else:
            raise TypeError("no JSON for %r" % (v,))

    def thousandths(self, x1000):
        """A number with three decimals, from an int of thousandths (no float)."""
        self._item()
        self._put(b"%d.%03d" % (x1000 // 1000, x1000 % 1000))

    def field(self, name, v):
        self.key(name)
        self.value(v)

    def fields(self, d):
        """The items of a small dict as key/value pairs (values as value() takes them)."""
        for k in d:
            self.field(k, d[k])

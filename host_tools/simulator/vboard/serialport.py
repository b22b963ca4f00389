"""The virtual board's UART as the host sees it: a pseudo-terminal, and
optionally a TCP server, that tools such as mpremote open like a USB-serial port.

    port = SerialPort(tcp=0)       # a pty, and a TCP server on a free port
    port.path                      # "/dev/pts/7": mpremote connect /dev/pts/7
    port.url                       # "socket://127.0.0.1:40123"

The host keeps the pty's master side (and the listening socket) for the whole
life of the VirtualBoard, so the port outlives every reset of the MicroPython
process behind it. Nothing here knows about the board: VirtualBoard reads the
received bytes with read_input() and hands the board's console output to
write_output().

- Output is "cooked" as the ESP32 port's stdout is: a lone "\\n" becomes
  "\\r\\n" ("\\r\\n" is sent as is).
- Nobody listening (the pty's slave side closed, no TCP client): output is
  dropped, as a UART's is. While someone listens, output waits in a buffer of
  up to `out_limit` bytes when the reader is slow; beyond that it is dropped.
- One TCP client at a time: a new connection replaces the previous one.
  Input from the pty and the TCP client is merged.
"""

import errno
import os
import select
import socket
import threading
import tty


class _Sink:
    """Output waiting for one reader (the pty master or a TCP client)."""

    def __init__(self, limit):
        self.buf = bytearray()
        self.limit = limit

    def add(self, data):
        room = self.limit - len(self.buf)
        if room > 0:
            self.buf += data[:room]


class SerialPort:
    def __init__(self, pty=True, tcp=None, host="127.0.0.1", out_limit=1 << 20):
        """pty: open a pseudo-terminal. tcp: None/False for none, True or 0 for
        a free port, or a port number."""
        self._lock = threading.Lock()
        self._out_limit = out_limit
        self._cr_last = False  # the last output byte was "\r"
        self.master = None
        self.path = None
        self._pty_sink = None
        self._pty_poll = None
        self._listener = None
        self._client = None
        self._client_sink = None
        self.tcp_port = None
        if pty:
            master, slave = os.openpty()
            try:
                tty.setraw(slave)  # no echo, no line editing, no \n -> \r\n on either side
                self.path = os.ttyname(slave)
            finally:
                os.close(slave)  # the user opens it by path; keeping it open would keep stale output
            os.set_blocking(master, False)
            self.master = master
            self._pty_sink = _Sink(out_limit)
            self._pty_poll = select.poll()
            self._pty_poll.register(master, select.POLLIN)
        if tcp is not None and tcp is not False:
            port = 0 if tcp is True else int(tcp)
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind((host, port))
            listener.listen(1)
            listener.setblocking(False)
            self._listener = listener
            self.tcp_host = host
            self.tcp_port = listener.getsockname()[1]

    @property
    def url(self):
        """pyserial URL of the TCP side ("socket://127.0.0.1:PORT"), or None."""
        if self.tcp_port is None:
            return None
        return "socket://%s:%d" % (self.tcp_host, self.tcp_port)

    def pty_connected(self):
        """Someone has the pty's slave side open (no hang-up on the master)."""
        return self.master is not None and not self._pty_events() & select.POLLHUP

    def _pty_events(self):
        mask = 0
        for _, ev in self._pty_poll.poll(0):
            mask |= ev
        return mask

    # ------------------------------------------------------------ for the host's loop

    def select_sets(self):
        """(readers, writers) to wait on: input, new connections, pending output."""
        readers, writers = [], []
        with self._lock:
            if self.master is not None:
                events = self._pty_events()
                # Hung up (nobody has the slave open): the master would always be
                # "ready"; only bytes written just before the close are worth a wake-up.
                if not events & select.POLLHUP or events & select.POLLIN:
                    readers.append(self.master)
                if self._pty_sink.buf and not events & select.POLLHUP:
                    writers.append(self.master)
            if self._listener is not None:
                readers.append(self._listener)
            if self._client is not None:
                readers.append(self._client)
                if self._client_sink.buf:
                    writers.append(self._client)
        return readers, writers

    def read_input(self):
        """Everything received since the last call (accepts new TCP clients)."""
        data = bytearray()
        with self._lock:
            # Bytes a client wrote just before closing the slave are still readable.
            while self.master is not None and self._pty_events() & select.POLLIN:
                try:
                    chunk = os.read(self.master, 65536)
                except (BlockingIOError, OSError):
                    break
                if not chunk:
                    break
                data += chunk
            self._accept()
            if self._client is not None:
                while True:
                    try:
                        chunk = self._client.recv(65536)
                    except BlockingIOError:
                        break
                    except OSError:
                        self._drop_client()
                        break
                    if not chunk:
                        self._drop_client()
                        break
                    data += chunk
        return bytes(data)

    def write_output(self, data):
        """The board's console output (raw bytes): cooked, then sent or buffered."""
        if not data:
            return
        with self._lock:
            cooked = self._cook(data)
            if self.master is not None:
                if self.pty_connected():
                    self._pty_sink.add(cooked)
                else:
                    self._pty_sink.buf.clear()
            if self._client is not None:
                self._client_sink.add(cooked)
            self._flush()

    def flush(self):
        with self._lock:
            self._flush()

    def close(self):
        with self._lock:
            if self.master is not None:
                os.close(self.master)
                self.master = None
            self._drop_client()
            if self._listener is not None:
                self._listener.close()
                self._listener = None

    # ------------------------------------------------------------ internals

    def _cook(self, data):
        out = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        if self._cr_last and data[:1] == b"\n":
            out = out[1:]  # "\r" ended the previous chunk: this "\n" completes its "\r\n"
        self._cr_last = data[-1:] == b"\r"
        return out

    def _flush(self):
        sink = self._pty_sink
        if sink is not None and sink.buf:
            if not self.pty_connected():
                sink.buf.clear()
            else:
                try:
                    n = os.write(self.master, sink.buf)
                    del sink.buf[:n]
                except BlockingIOError:
                    pass
                except OSError as e:
                    if e.errno != errno.EIO:
                        raise
                    sink.buf.clear()
        sink = self._client_sink
        if self._client is not None and sink.buf:
            try:
                n = self._client.send(sink.buf)
                del sink.buf[:n]
            except BlockingIOError:
                pass
            except OSError:
                self._drop_client()

    def _accept(self):
        if self._listener is None:
            return
        while True:
            try:
                conn, _ = self._listener.accept()
            except (BlockingIOError, OSError):
                return
            self._drop_client()
            conn.setblocking(False)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._client = conn
            self._client_sink = _Sink(self._out_limit)

    def _drop_client(self):
        if self._client is not None:
            try:
                self._client.close()
            except OSError:
                pass
        self._client = None
        self._client_sink = None

"""host_tools.web, the server under `carom sim` and `carom hall` (aiohttp behind a door): over a real
loopback socket.

A small Server subclass stands in for the pages: its routes answer JSON, a file, an echo of the
body and an event stream; the client is asyncio's own, speaking bytes, so the test sees exactly
what a browser would get.
"""

import asyncio
import json
import socket
import threading

import pytest

from host_tools import web


class EchoServer(web.Server):
    max_body = 64

    def __init__(self, static_dir, hub):
        super().__init__(static_dir)
        self.hub = hub

    async def route(self, request):
        if request.path == "/":
            return self.file("index.html")
        if request.path.startswith("/static/"):
            return self.file(request.path[len("/static/") :])
        if request.path == "/echo":
            return self.send(
                200,
                {"method": request.method, "body": request.body.decode(), "type": request.headers.get("content-type")},
            )
        if request.path == "/events":
            return await self.stream(request, self.hub, self.opening)
        return self.send(404, {"error": "not found: %s" % request.path})

    async def opening(self, out):
        out.write(web.sse("hello", {"server": self.server_id}))


def serve(tmp_path, scenario):
    """Run `await scenario(port, server, hub)` with an EchoServer on 127.0.0.1:<any port>."""
    (tmp_path / "index.html").write_text("<p>hi</p>")

    async def main():
        hub = web.Hub(4, asyncio.get_running_loop())
        server = EchoServer(str(tmp_path), hub)
        sock = web.listen("127.0.0.1:0", 8080)
        srv = await server.start(sock)
        try:
            assert web.url_of(sock) == "http://127.0.0.1:%d" % sock.getsockname()[1]
            return await asyncio.wait_for(scenario(sock.getsockname()[1], server, hub), 20)
        finally:
            srv.close()
            hub.close()
            await server.cancel_all()
            sock.close()

    return asyncio.run(main())


async def exchange(port, raw):
    """Send raw request bytes, read the whole answer (the server closes the connection)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(raw)
    await writer.drain()
    data = await reader.read()
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    assert int(headers["Content-Length"]) == len(body), data
    return lines[0], headers, body


def test_parse_listen():
    assert web.parse_listen("127.0.0.1:8080", 8080) == ("127.0.0.1", 8080)
    assert web.parse_listen(":0", 8080) == ("127.0.0.1", 0)
    assert web.parse_listen("[::1]:8090", 8080) == ("::1", 8090)
    assert web.parse_listen("localhost:65535", 8080) == ("localhost", 65535)


@pytest.mark.parametrize("text", ["8080", "127.0.0.1", "host:", "host:80x", "host:65536", "host:-1", ""])
def test_parse_listen_errors(text):
    with pytest.raises(ValueError) as e:
        web.parse_listen(text, 8090)
    assert str(e.value) == "--listen wants HOST:PORT, e.g. 127.0.0.1:8090, not %r" % text


def test_busy_port_is_a_clear_error():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        with pytest.raises(web.ListenError) as e:
            web.listen("127.0.0.1:%d" % port, 8080)
    assert str(e.value) == (
        "cannot serve on 127.0.0.1:%d: Address already in use (choose another with --listen HOST:PORT)" % port
    )


def test_bad_listen_text_is_a_value_error_before_binding():
    with pytest.raises(ValueError, match="--listen wants HOST:PORT"):
        web.listen("nonsense", 8080)


def test_request_and_response(tmp_path):
    async def scenario(port, server, hub):
        status, headers, body = await exchange(
            port,
            b"POST /echo?x=1 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
            b'Content-Length: 7\r\n\r\n{"a":1}' % port,
        )
        assert status == "HTTP/1.1 200 OK"
        assert headers["Content-Type"] == "application/json"
        assert headers["Cache-Control"] == "no-store" and headers["Connection"] == "close"
        assert json.loads(body) == {"method": "POST", "body": '{"a":1}', "type": "application/json"}

        status, headers, body = await exchange(port, b"GET / HTTP/1.1\r\n\r\n")
        assert (status, headers["Content-Type"], body) == ("HTTP/1.1 200 OK", "text/html; charset=utf-8", b"<p>hi</p>")
        status, _, body = await exchange(port, b"GET /static/../index.html HTTP/1.1\r\n\r\n")
        assert status == "HTTP/1.1 404 Not Found" and json.loads(body) == {"error": "not found: ../index.html"}
        status, _, body = await exchange(port, b"GET /nowhere HTTP/1.1\r\n\r\n")
        assert status == "HTTP/1.1 404 Not Found" and json.loads(body) == {"error": "not found: /nowhere"}
        status, _, body = await exchange(port, b"NONSENSE\r\n\r\n")
        assert status == "HTTP/1.1 400 Bad Request" and json.loads(body) == {"error": "bad request line"}
        status, _, body = await exchange(port, b"POST /echo HTTP/1.1\r\nContent-Length: 65\r\n\r\n" + b"x" * 65)
        assert status == "HTTP/1.1 413 Payload Too Large" and json.loads(body) == {"error": "body too large"}
        status, _, body = await exchange(port, b"GET / HTTP/1.1\r\nX: " + b"y" * web.MAX_HEADER + b"\r\n\r\n")
        assert status == "HTTP/1.1 431 Request Header Fields Too Large"
        assert json.loads(body) == {"error": "headers too large"}

    serve(tmp_path, scenario)


async def read_event(reader):
    return (await reader.readuntil(b"\n\n")).decode()


def test_event_stream(tmp_path, monkeypatch):
    monkeypatch.setattr(web, "PING_S", 0.2)

    async def scenario(port, server, hub):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /events HTTP/1.1\r\n\r\n")
        head = (await reader.readuntil(b"\r\n\r\n")).decode()
        assert head.startswith("HTTP/1.1 200 OK\r\n") and "Content-Type: text/event-stream\r\n" in head
        assert await read_event(reader) == "retry: 1000\n\n"
        assert await read_event(reader) == 'event: hello\ndata: {"server":"%s"}\n\n' % server.server_id
        assert len(hub.clients) == 1

        hub.send("state", {"t": 1, "name": "é"})
        assert await read_event(reader) == 'event: state\ndata: {"t":1,"name":"\\u00e9"}\n\n'
        thread = threading.Thread(target=hub.publish, args=("log", {"text": "from a thread"}))
        thread.start()
        thread.join()
        assert await read_event(reader) == 'event: log\ndata: {"text":"from a thread"}\n\n'
        assert await read_event(reader) == ": ping\n\n"  # nothing sent for PING_S

        hub.close()  # the server stops: the stream ends and the connection closes
        assert await reader.read() == b""
        await asyncio.sleep(0)
        assert not hub.clients
        writer.close()

    serve(tmp_path, scenario)


def test_cancel_all_ends_open_streams(tmp_path):
    async def scenario(port, server, hub):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /events HTTP/1.1\r\n\r\n")
        await reader.readuntil(b"event: hello")
        await server.cancel_all()
        await reader.read()  # EOF: the handler closed the connection
        assert not hub.clients and server.connections == 0
        writer.close()

    serve(tmp_path, scenario)


def test_a_page_that_falls_behind_is_dropped():
    async def main():
        hub = web.Hub(2)
        slow, quick = hub.add(), hub.add()
        for i in range(2):
            hub.send("tick", {"t": i})
            quick.get_nowait()
        hub.send("tick", {"t": 2})
        assert hub.clients == {quick}
        assert slow.get_nowait() is None and slow.empty()  # its stream ends; the page reconnects
        assert quick.get_nowait() == b'event: tick\ndata: {"t":2}\n\n'

    asyncio.run(main())

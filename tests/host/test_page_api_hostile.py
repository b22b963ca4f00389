"""The simulator page's API against strangers: `carom sim` as a person starts it, spoken to
over raw sockets.  Every hostile request found before is sent again and gets its status, nothing is
done with it, and the server answers afterwards; then a seeded fuzz of random methods, paths, headers
and bodies, each answered with a valid HTTP status (never 500), the board still served after it.
"""

import json
import random
import re
import socket
import sys
import threading
import time

import pytest

from helpers import LineProcess, wait_until

STATUS = re.compile(rb"HTTP/1\.1 (\d{3}) [A-Za-z ]+\r\n")
FUZZ_CASES = 600


class Sim(LineProcess):
    name = "carom sim"

    def __init__(self, *args):
        super().__init__([sys.executable, "-m", "host_tools", "sim", "--listen", "127.0.0.1:0", *args])
        self.url = self.wait_line(r"the simulator is at (http://\S+)", 90).group(1)
        self.port = int(self.url.rsplit(":", 1)[1])
        self.host = b"127.0.0.1:%d" % self.port

    def gave_up(self):
        self.stop()

    def raw(self, data):
        """Send `data`, read the answer: (status, headers text, body bytes); an event stream's head only."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=60) as s:
            s.sendall(data)
            got = b""
            while b"\r\n\r\n" not in got:
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
            head, _, body = got.partition(b"\r\n\r\n")
            m = STATUS.match(head + b"\r\n")
            assert m, (data[:200], got[:200])
            if b"text/event-stream" in head:
                return int(m.group(1)), head.decode("latin-1"), b""
            length = int(re.search(rb"Content-Length: (\d+)", head).group(1))
            while len(body) < length:
                chunk = s.recv(65536)
                if not chunk:
                    break
                body += chunk
            assert len(body) == length, (data[:200], got[:200])
            return int(m.group(1)), head.decode("latin-1"), body

    def post(self, body, ctype=b"application/json", extra=b"", board=0):
        if not isinstance(body, bytes):
            body = json.dumps(body).encode()
        return self.raw(
            b"POST /api/boards/%d/action HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\n%s"
            b"Content-Length: %d\r\n\r\n%s" % (board, self.host, ctype, extra, len(body), body)
        )

    def state(self, board=0):
        code, _, body = self.raw(b"GET /api/state HTTP/1.1\r\nHost: %s\r\n\r\n" % self.host)
        assert code == 200
        return json.loads(body)[board]


@pytest.fixture(scope="module")
def sim():
    s = Sim()
    try:
        yield s
    finally:
        code = s.stop(timeout=30)
        s.kill()
        assert "Traceback" not in "\n".join(s.lines), "\n".join(s.lines)
        assert code == 0


def error(answer):
    code, _, body = answer
    return code, json.loads(body)["error"]


def test_hostile_requests_found_before(sim):
    """Each request that used to kill its handler, freeze the boards or be obeyed wrongly."""
    h = sim.host
    # Content-Length that is no length: the handler died with a traceback.
    for length in (b"abc", b"-5"):
        code, _, _ = sim.raw(
            b"POST /api/boards/0/action HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json"
            b"\r\nContent-Length: %s\r\n\r\n{}" % (h, length)
        )
        assert code == 400
    # A JSON body 30,000 deep (RecursionError), or NaN.
    assert error(sim.post(b"[" * 30000 + b"]" * 30000)) == (400, "the body must be a JSON object")
    assert error(sim.post(b'{"do": "advance", "seconds": NaN}')) == (400, "the body must be a JSON object")
    assert error(sim.post(b'{"do": "tap", "button": "A.point"' + b" " * 70000 + b"}"))[0] == 413
    # Fields of the wrong JSON type: a list as the button, an object as the chip, strings as numbers
    # and booleans ("on": "false" powered the board on).
    assert error(sim.post({"do": "tap", "button": ["x"]})) == (400, 'no button ["x"] on this board')
    assert error(sim.post({"do": "plug", "chip": {}, "plugged": False})) == (400, "no display {} on this board")
    assert error(sim.post({"do": "advance", "seconds": "1e3"})) == (400, 'seconds must be a JSON number, not "1e3"')
    assert error(sim.post({"do": "advance", "seconds": True}))[0] == 400
    # One hour at once froze every board for 24.5 s: at most 300 s (the page's largest jump).
    assert error(sim.post({"do": "advance", "seconds": 3600})) == (400, "seconds must be more than 0 and at most 300")
    assert error(sim.post({"do": "tap", "button": "A.point", "extra": 1}))[0] == 400
    assert error(sim.post({"do": 5}))[0] == 400
    assert sim.post({"do": "power", "on": False})[0] == 200
    wait_until(lambda: sim.state()["powered"] is False, what="the power cut")
    assert error(sim.post({"do": "power", "on": "false"})) == (400, 'on must be true or false, not "false"')
    assert error(sim.post({"do": "power", "on": 1}))[0] == 400
    # From another site: a foreign Host (DNS rebinding) or Origin is refused before anything is done.
    body = json.dumps({"do": "power", "on": True}).encode()
    assert (
        sim.raw(
            b"POST /api/boards/0/action HTTP/1.1\r\nHost: attacker.example:%d\r\nOrigin: "
            b"http://attacker.example:%d\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
            % (sim.port, sim.port, len(body), body)
        )[0]
        == 421
    )
    assert sim.post(body, extra=b"Origin: http://attacker.example\r\n")[0] == 403
    assert sim.post(body, ctype=b"text/plain")[0] == 415
    assert sim.post(body, ctype=b"application/jsonp")[0] == 415
    assert sim.state()["powered"] is False  # none of them was acted on
    assert sim.post(body, extra=b"Origin: http://%s\r\n" % h) == (200, sim.post(body)[1], b'{"ok": true}')
    wait_until(lambda: sim.state()["powered"] is True, what="power back on")
    assert error(sim.post({"do": "advance", "seconds": 10}, board=7)) == (404, "no board 7")


def fuzz_request(rng, sim):
    """One random request: bytes."""
    methods = [
        b"GET",
        b"POST",
        b"PUT",
        b"DELETE",
        b"HEAD",
        b"OPTIONS",
        b"PATCH",
        b"get",
        b"G\x00T",
        b"",
        bytes(rng.randrange(33, 127) for _ in range(rng.randrange(1, 8))),
    ]
    paths = [
        b"/",
        b"/index.html",
        b"/api/boards",
        b"/api/state",
        b"/api/boards/0/action",
        b"/api/boards/1/action",
        b"/api/boards/-1/action",
        b"/api/boards/99999999999999999999/action",
        b"/static/app.js",
        b"/api/boards/" + b"9" * 5000 + b"/action",
        b"/api/boards/" + b"9" * 5000 + b"/config",
        b"/static/../server.py",
        b"/static/",
        b"/%00",
        b"/api/boards/0/action?x=1",
        b"*",
        b"http://x/",
        b"/" + bytes(rng.randrange(0, 256) for _ in range(rng.randrange(0, 40))),
    ]
    values = [
        True,
        False,
        None,
        0,
        -1,
        1.5,
        10,
        300,
        301,
        1e308,
        "A.point",
        "foul",
        "1:0x70",
        "0x70",
        "",
        "x" * 300,
        [],
        {},
        ["A.point"],
        {"a": 1},
        "true",
        "60",
    ]
    action = {}
    if rng.random() < 0.9:
        action["do"] = rng.choice(["tap", "down", "up", "long", "power", "plug", "advance", "nope", 1, None])
    for field in rng.sample(["button", "on", "chip", "plugged", "seconds", "junk"], rng.randrange(0, 4)):
        action[field] = rng.choice(values)
    if action.get("do") == "advance" and isinstance(action.get("seconds"), (int, float)):
        action["seconds"] = 0  # a valid jump would only slow the fuzz down
    bodies = [
        json.dumps(action).encode(),
        json.dumps([action]).encode(),
        b"",
        b"{",
        b"null",
        b"[" * 100,
        bytes(rng.randrange(0, 256) for _ in range(rng.randrange(1, 200))),
        json.dumps(action).encode()[:-1],
    ]
    body = rng.choice(bodies)
    headers = []
    host = rng.choice(
        [
            sim.host,
            sim.host,
            sim.host,
            sim.host,
            b"localhost:%d" % sim.port,
            b"attacker.example",
            b"",
            b"[::1]:%d" % sim.port,
            None,
        ]
    )
    if host is not None:
        headers.append(b"Host: " + host)
    if rng.random() < 0.3:
        headers.append(b"Origin: " + rng.choice([b"http://" + sim.host, b"http://attacker.example", b"null"]))
    if rng.random() < 0.8:
        headers.append(
            b"Content-Type: "
            + rng.choice(
                [b"application/json", b"application/json; charset=utf-8", b"text/plain", b"", b"APPLICATION/JSON"]
            )
        )
    length = rng.choice([len(body), len(body), b"abc", b"-1", b"", None, b"99999999", b"1e3", b"%d" % len(body)])
    if isinstance(length, int):
        length = b"%d" % length
    if length is not None:
        headers.append(b"Content-Length: " + length)
    if rng.random() < 0.1:
        headers.append(
            rng.choice(
                [
                    b"X: " + b"y" * 20000,
                    b"no colon",
                    b"Transfer-Encoding: chunked",
                    b"\xff\xfe: \x00",
                    b"Content-Length: 0",
                ]
            )
        )
    if rng.random() < 0.2:
        rng.shuffle(headers)
    if rng.random() < 0.75:  # most requests well formed, so the cases reach the routes
        line = b"%s %s HTTP/1.1" % (rng.choice([b"GET", b"POST", b"POST", b"PUT"]), rng.choice(paths[:9]))
    else:
        version = rng.choice([b"HTTP/1.1", b"HTTP/1.0", b"HTTP/2", b""])
        line = b" ".join(x for x in (rng.choice(methods), rng.choice(paths), version) if x or rng.random() < 0.1)
    # A body is padded to what Content-Length says (up to the limit), so no case waits for the read timeout.
    if length is not None and re.fullmatch(rb"[0-9]+", length) and int(length) <= 65536:
        body = body.ljust(int(length), b" ")
    return line + b"\r\n" + b"".join(h + b"\r\n" for h in headers) + b"\r\n" + body


def test_fuzz(sim):
    """FUZZ_CASES random requests (seeded): each answered with a status the server means (never a 500,
    a reset or silence), and the page still served afterwards."""
    rng = random.Random(13)
    seen = {}
    for _ in range(FUZZ_CASES):
        data = fuzz_request(rng, sim)
        code, _, body = sim.raw(data)
        assert code in (200, 400, 403, 404, 405, 413, 415, 421, 429, 431), (code, data[:300], body)
        seen[code] = seen.get(code, 0) + 1
    assert len(seen) >= 8, seen  # the cases reach most answers
    assert sim.state()["board"] == 0
    code, _, body = sim.raw(b"GET / HTTP/1.1\r\nHost: %s\r\n\r\n" % sim.host)
    assert code == 200 and b"<html" in body.lower()


# ---- moving the clock forward: the board answers while a jump runs --------------------------------

MAX_JUMP_S = 300  # the largest jump a request may ask for (page/actions.py MAX_JUMP_S)
STILL_MOVING = "board %d's clock is still moving: one jump at a time (send the next once this one is answered)"


class Jump(threading.Thread):
    """One {"do": "advance"} request, sent on its own thread; `answer` once it came."""

    def __init__(self, sim, seconds=MAX_JUMP_S, board=0, count=1):
        super().__init__(daemon=True)
        self.sim, self.seconds, self.board, self.count = sim, seconds, board, count
        self.answers = []
        self.start()

    def run(self):
        for _ in range(self.count):  # one after another: each sent as soon as the one before is answered
            self.answers.append(self.sim.post({"do": "advance", "seconds": self.seconds}, board=self.board))

    @property
    def answer(self):
        return self.answers[-1] if self.answers else None


def under_way(sim, t0, real0, board=0):
    """The first state answered while the jump that started at t0 runs, or None if the jump was over first.
    A state shows the jump under way when its clock is further on than the real time since real0
    could take it (only a jump moves it faster) and short of t0 + 300."""
    while True:
        state = sim.state(board)
        if state["t"] >= t0 + MAX_JUMP_S:
            return None
        if state["t"] - t0 > time.monotonic() - real0 + 1:
            return state


def test_the_board_answers_during_the_largest_jump(sim):
    """advance 300 in one request: meanwhile the state and a tap are answered (a state answered after the
    tap still shows the jump under way); once the jump is answered, the board's clock moved 300 s."""
    real0 = time.monotonic()
    t0 = sim.state()["t"]
    jump = Jump(sim)
    assert under_way(sim, t0, real0), "no state was answered while the jump ran"
    assert sim.post({"do": "tap", "button": "A.point"})[0] == 200
    assert under_way(sim, t0, real0), "the tap was answered only once the jump was over"
    jump.join(120)
    assert jump.answer[0] == 200 and jump.answer[2] == b'{"ok": true}'
    moved = round(sim.state()["t"] - t0, 3)  # the times are in ms
    assert MAX_JUMP_S <= moved <= MAX_JUMP_S + time.monotonic() - real0 + 0.01  # no more than real time beside it


def test_back_to_back_jumps(sim):
    """Jumps sent while one runs are refused at once (429, saying why), not queued behind it; jumps sent
    one after another as fast as they are answered each move the clock 300 s, and the board answers
    the state and taps during each of them."""
    real0 = time.monotonic()
    t0 = sim.state()["t"]
    jump = Jump(sim)
    assert under_way(sim, t0, real0)
    for _ in range(5):
        assert error(sim.post({"do": "advance", "seconds": 10})) == (429, STILL_MOVING % 0)
    assert under_way(sim, t0, real0), "a refusal waited for the running jump"
    jump.join(120)
    assert jump.answer[0] == 200

    real0 = time.monotonic()
    t0 = sim.state()["t"]
    jumps = Jump(sim, count=3)
    seen = []  # the board's clock in each state answered while the jumps ran
    while jumps.is_alive():
        assert sim.post({"do": "tap", "button": "B.point"})[0] == 200
        seen.append(sim.state()["t"])
    assert [a[0] for a in jumps.answers] == [200] * 3
    moved = round(sim.state()["t"] - t0, 3)
    drift = time.monotonic() - real0  # the real time between the jumps moves the clock too
    assert 3 * MAX_JUMP_S <= moved <= 3 * MAX_JUMP_S + drift + 0.01
    for k in range(3):  # a state answered in the middle of each jump
        assert any(t0 + k * MAX_JUMP_S + drift + 1 < t < t0 + (k + 1) * MAX_JUMP_S for t in seen), (k, drift, seen)
    assert sim.post({"do": "advance", "seconds": 10})[0] == 200  # and the next jump is taken


def test_the_paired_boards_have_one_clock_and_one_jump_at_a_time():
    """With --remote the wall and the referee box run on one clock: while a jump of the referee box
    runs, a jump of the wall is refused (429), the wall's buttons and the state are answered, and
    both boards end 300 s on."""
    remote = Sim("--remote")
    try:
        real0 = time.monotonic()
        t0 = remote.state(1)["t"]
        jump = Jump(remote, board=1)
        assert under_way(remote, t0, real0, board=1)
        assert error(remote.post({"do": "advance", "seconds": 10}, board=0)) == (429, STILL_MOVING % 0)
        assert remote.post({"do": "tap", "button": "A.point"}, board=0)[0] == 200
        assert under_way(remote, t0, real0, board=0), "the wall's tap was answered only once the jump was over"
        jump.join(120)
        assert jump.answer[0] == 200
        for board in (0, 1):
            assert MAX_JUMP_S <= round(remote.state(board)["t"] - t0, 3) <= MAX_JUMP_S + time.monotonic() - real0 + 0.01
    finally:
        code = remote.stop(timeout=30)
        remote.kill()
    assert "Traceback" not in "\n".join(remote.lines), "\n".join(remote.lines)
    assert code == 0

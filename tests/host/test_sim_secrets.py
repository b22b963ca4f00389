"""`carom sim` never shows a secret: not in its event stream, its API, the page's log, its terminal.

The real `carom config set` puts a Wi-Fi password, an MQTT password and a radio key on the simulated
board through its serial port (a pty), then `carom config show`, `show --secrets`, `carom doctor`
and `mpremote cat` read config.json back over the raw REPL, and a person at the friendly REPL
prints the file.  Everything the simulator sent is then searched for the three strings: every
event of one /events stream held open throughout, the opening of a stream opened afterwards (the
last 500 log lines), /api/state, /api/boards, the log the page shows in Chromium, and the lines
`carom sim` printed.  (The session's Redactor: the raw REPL's answers are not logged, and the
current secrets, any 64-hex run and any quoted "password"/"key" value are "***".)
"""

import os
import secrets
import socket
import sys
import threading

from helpers import LineProcess, MPREMOTE, carom, ok, run_mpremote, wait_until

WIFI = "Wp-" + secrets.token_hex(6) + "'\"é"
MQTT = "Mq-" + secrets.token_hex(6)
KEY = secrets.token_hex(32)
SECRETS = (WIFI, MQTT, KEY)


class Events:
    """Every byte of one /events stream, read on a thread."""

    def __init__(self, url):
        host, port = url[len("http://") :].rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=60)
        self.sock.sendall(b"GET /events HTTP/1.1\r\nHost: %s:%s\r\n\r\n" % (host.encode(), port.encode()))
        self.data = b""
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        while True:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            with self.lock:
                self.data += chunk

    def text(self):
        with self.lock:
            return self.data.decode("utf-8", "replace")

    def close(self):
        self.sock.close()


def leaks(text):
    return [
        s
        for s in SECRETS
        if s in text or s.encode("unicode_escape").decode() in text or s.encode("utf-8").hex() in text
    ]


def test_secrets_never_leave_the_simulator(tmp_path, browser):
    flash = str(tmp_path / "flash")
    sim = LineProcess([sys.executable, "-m", "host_tools", "sim", "--listen", "127.0.0.1:0", "--flash", flash])
    sim.name = "carom sim"
    events = None
    try:
        pty = sim.wait_line(r"serial console (/dev/pts/\d+)", timeout=90).group(1)
        sim.url = sim.wait_line(r"the simulator is at (http://\S+)", timeout=60).group(1)
        events = Events(sim.url)
        wait_until(lambda: "event: hello" in events.text(), what="the event stream's hello")

        said = ok(
            carom(
                "config",
                "--device",
                pty,
                "set",
                "wifi.ssid=hall",
                "wifi.password=" + WIFI,
                "mqtt.host=broker.lan",
                "mqtt.password=" + MQTT,
                "radio.peer=24:0a:c4:00:00:21",
                "radio.key=" + KEY,
            )
        )
        with open(os.path.join(flash, "config.json"), encoding="utf-8") as f:
            on_flash = f.read()
        assert all(s in on_flash for s in (MQTT, KEY)) and "hall" in on_flash  # the board has them
        said += ok(carom("config", "--device", pty, "show"))
        secret_show = ok(carom("config", "--device", pty, "show", "--secrets"))
        assert MQTT in secret_show and KEY in secret_show  # asked for, on the asker's own terminal only
        doctor = carom("doctor", "--device", pty)
        said += doctor.stdout + doctor.stderr
        if os.path.exists(MPREMOTE):
            cat = run_mpremote(pty, "cat", "config.json", text=True)
            assert MQTT in cat.stdout, cat.stderr  # mpremote itself got the file
        # A person at the friendly REPL (the app stopped by Ctrl-C) prints the file.
        fd = os.open(pty, os.O_RDWR | os.O_NOCTTY)
        try:
            os.write(fd, b"\x03\x03")
            wait_until(
                lambda: ">>> " in events.text() or "KeyboardInterrupt" in events.text(),
                timeout=30,
                what="the REPL after Ctrl-C",
            )
            os.write(fd, b"print(open('config.json').read())\r")
            wait_until(
                lambda: '\\"ssid\\": \\"hall\\"' in events.text(),
                timeout=30,
                what="config.json printed at the REPL, in the log",
            )
        finally:
            os.close(fd)
        streamed = events.text()
        assert '\\"password\\": \\"***\\"' in streamed  # it was printed, its secrets hidden
        assert "uses the raw REPL" in streamed

        later = Events(sim.url)  # a page opened afterwards: the log so far
        try:
            wait_until(lambda: "event: state" in later.text(), what="the opening of a later stream")
            opening = later.text()
        finally:
            later.close()
        state = sim.get("/api/state", raw=True)[0].decode()
        boards = sim.get("/api/boards", raw=True)[0].decode()

        page = browser.new_page()
        try:
            page.goto(sim.url)
            page.wait_for_function("() => document.body.innerText.includes('uses the raw REPL')", timeout=30000)
            shown = page.evaluate("() => document.body.innerText")
            html = page.content()
        finally:
            page.close()

        assert "ssid" in shown or "hall" in shown
        for where, text in (
            ("the event stream", streamed),
            ("a later stream's opening", opening),
            ("/api/state", state),
            ("/api/boards", boards),
            ("the page", shown + html),
            ("carom sim's terminal", "\n".join(sim.lines)),
            ("carom config show / doctor's terminal", said),
        ):
            assert leaks(text) == [], "%s shows a secret" % where
    finally:
        if events is not None:
            events.close()
        sim.stop(timeout=30)
        sim.kill()


def test_redactor_by_value_and_by_shape(tmp_path):
    """The Redactor alone: a secret config.json held (read from the folder, kept after it changes), as
    written, JSON-escaped and in a Python repr of the file's bytes; any 64-hex run; quoted fields."""
    import json

    from host_tools.simulator.page.redact import Redactor

    r = Redactor()
    wifi, mqtt = "pa'ss\"wörd", "mqtt-Secret"
    (tmp_path / "config.json").write_text(
        json.dumps({"wifi": {"password": wifi}, "mqtt": {"password": mqtt}, "radio": {"key": KEY}}, ensure_ascii=False)
    )
    r.watch(str(tmp_path))
    (tmp_path / "config.json").write_text("{}")  # changed: the old secrets stay hidden
    r.watch(str(tmp_path))
    raw = json.dumps({"wifi": {"password": wifi}}, ensure_ascii=False).encode()
    for text in (
        wifi,
        json.dumps(wifi),
        repr(raw),
        str({"p": wifi}),
        "x" + mqtt + "y",
        KEY.upper(),
        "k=" + KEY + "0",
        "%s: %s" % ("mqtt.password", mqtt),
    ):
        shown = r(text)
        assert leaks(shown) == [] and wifi not in shown and mqtt not in shown and "wörd" not in shown, (text, shown)
    assert r('{"password": "other", "key": "k", "ssid": "hall"}') == '{"password": "***", "key": "***", "ssid": "hall"}'
    assert r("score 12 3abc") == "score 12 3abc"


def test_raw_repl_answers_are_not_logged():
    """A config.json read 512 bytes at a time splits a secret between two raw REPL answers: no line of
    them is logged; the friendly banner, or a reset after the last answer, ends the hiding."""
    from host_tools.simulator.page.session import BoardSession

    s = BoardSession(0, "wall")
    lines = [
        "carom: stopped (Ctrl-C)",
        "raw REPL; CTRL-B to exit\r",
        '>OK\x04\x04>OKb\'{\\n  "password": "hun\'\r',
        "\x04\x04>OKb'ter2\"}'\r",
        "\x04\x04>",
        "MicroPython v1.29.0 on 2026-07-05; ESP32",
        'Type "help()" for more information.\r',
        ">>> hello",
    ]
    out = s._console_lines(lines, rebooted=False)
    assert out == [
        "carom: stopped (Ctrl-C)",
        (
            "serial",
            "a host tool (mpremote, carom config, doctor) uses the raw "
            "REPL: the board's answers to it are not shown here",
        ),
        'Type "help()" for more information.\r',
        ">>> hello",
    ]
    assert s._console_lines(["raw REPL; CTRL-B to exit\r", ">OKb'hun'"], False)[1:] == []
    assert s._console_lines(["\x04\x04>OKb'ter2'", "\x04>OK", "carom: running on board wall"], rebooted=True) == [
        "carom: running on board wall"
    ]  # reset by the tool: the app's lines after its last answer
    assert s._console_lines(["carom: running on board wall"], False) == ["carom: running on board wall"]

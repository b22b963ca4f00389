"""The simulator page in a real browser (Debian's Chromium, driven by Playwright).

`carom sim --listen 127.0.0.1:<port>` runs as a subprocess, as a person starts it;
the tests click the page's buttons and read back the segments the PAGE drew (the
lit SVG polygons of each digit), decoded into text by tools/run/sim.py.  Nothing is read from the
match state: what is checked is what the firmware wrote to the emulated HT16K33
chips, as the page shows it.  (The docs' picture of the page: tools/pictures.py.)
"""

import contextlib
import json
import os
import re
import subprocess
import urllib.error
import urllib.request

import pytest

from helpers import CAROM, free_port, wait_for
from host_tools.simulator.page.actions import TAP_S
from host_tools.simulator.page.pacing import MAX_STEP_S
from tools.run.sim import Sim, open_page


def children_of(pid):
    """Pids of the processes whose parent is `pid` (the boards' MicroPython processes)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry))
    return out


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


RECORD_JS = """() => new Promise(ready => {
  window.recorded = [];
  const es = new EventSource('/events');
  for (const kind of ['state', 'log']) {
    es.addEventListener(kind, e => window.recorded.push([kind, JSON.parse(e.data)]));
  }
  es.addEventListener('hello', () => ready(true));  // connected: nothing after this is missed
})"""


def press_to_lit_s(p, button, led):
    """Virtual seconds from the press of `button` (its log entry) to the first state with `led` lit,
    both as the server sent them to the page (RECORD_JS)."""

    def times():
        events = p.page.evaluate("() => window.recorded")
        pressed = [e["t"] for kind, e in events if kind == "log" and e["text"].startswith(button + " pressed")]
        lit = [e["t"] for kind, e in events if kind == "state" and e["board"] == 0 and e["leds"].get(led) == 1]
        return pressed[:1], lit[:1]

    (pressed,), (lit,) = wait_for(times, lambda v: v[0] and v[1], what="the press and %s lit, recorded" % led)
    return lit - pressed


def stop_and_check(sim):
    """Ctrl-C stops the server and its boards: exit 0, no MicroPython left, temporary flash removed."""
    boards = children_of(sim.proc.pid)
    assert boards, "no MicroPython process under carom sim"
    assert sim.stop() == 0, "\n".join(sim.lines)
    assert "carom sim: stopping" in sim.lines
    for pid in boards:
        assert not alive(pid), "MicroPython %d still runs after Ctrl-C" % pid
    return boards


@contextlib.contextmanager
def sim_page(browser):
    """`carom sim` on a free port, its page open and the first board's score drawn: (sim, page); at
    the end, stopped and checked (stop_and_check)."""
    sim = Sim([CAROM, "sim", "--listen", "127.0.0.1:%d" % free_port()], timeout=90)
    try:
        p = open_page(browser, sim)
        p.wait_text("A.score", "   0")
        yield sim, p
    finally:
        stop_and_check(sim)


# ---- the page as a newcomer uses it: default board, default configuration -----------------------


def test_points_undo_power_cycle(browser, tmp_path):
    sim = Sim([CAROM, "sim", "--listen", "127.0.0.1:%d" % free_port()])
    try:
        p = open_page(browser, sim)
        page = p.page
        assert p.text("A.score") == "   0" and p.text("B.score") == "   0"
        assert p.text("message") == "LAG "
        assert p.chip("0x70")["brightness"] == "8"  # boards/wall.json: brightness 8
        # In the lag the first press of a player's button says he breaks; then five points.
        p.page.evaluate(RECORD_JS)  # from here on, every state and log event with its virtual time
        p.button("A.point").click()
        wait_for(lambda: p.led("A.turn"), "1", what="A's turn LED")
        press_s = press_to_lit_s(p, "A.point", "A.turn")
        p.let_pass(0.5)  # the turn passed to A: the lock-out (400 ms) ignores presses meanwhile
        for _ in range(5):
            p.button("A.point").click()  # quick clicks: the server holds each 100 ms, then the next
        p.wait_text("A.score", "   5")
        assert p.text("A.run") == " 5" and p.text("A.innings") == " 1"
        assert p.text("A.high_run") == "   5"
        assert p.text("A.average") == "5.000"  # the decimal point is a lit segment too
        assert p.led("A.spot") == "1" and p.led("B.turn") == "0"
        # Press and hold with the mouse for 1.5 s: a long press on a point button undoes.
        box = p.button("A.point").bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        wait_for(lambda: p.button("A.point").get_attribute("data-down"), "true", what="A.point held")
        p.let_pass(1.5)
        page.mouse.up()
        p.wait_text("A.score", "   4")
        assert p.text("A.run") == " 4"
        wait_for(
            lambda: any(re.search(r"A\.point pressed (1\.[5-9]|[2-9]\.)", x) for x in p.log_lines()),
            True,
            what="the long press in the log",
        )
        # A misses; B scores three.
        p.button("A.end").click()
        wait_for(lambda: p.led("B.turn"), "1", what="B's turn LED")
        p.let_pass(0.5)  # the lock-out after the turn passes (400 ms)
        for _ in range(3):
            p.button("B.point").click()
        p.wait_text("B.score", "   3")
        assert p.text("A.score") == "   4" and p.text("B.innings") == " 1"
        page.screenshot(path=str(tmp_path / "simulator.png"))
        assert (tmp_path / "simulator.png").stat().st_size > 10000
        # Power cut: every display and LED goes dark.
        page.click('.board[data-board="0"] [data-action="power-off"]')
        wait_for(p.lit_polygons, 0, what="lit segments after the power cut")
        assert p.chip("0x70")["lit"] == "false" and p.led("A.turn") == "0"
        assert page.is_enabled('[data-action="power-on"]') and not page.is_enabled('[data-action="power-off"]')
        # Power on: the app starts again and restores the match from its journal on the flash.
        page.click('.board[data-board="0"] [data-action="power-on"]')
        p.wait_text("A.score", "   4")
        assert p.text("B.score") == "   3" and p.text("A.high_run") == "   4"  # undo took it back too
        wait_for(lambda: p.led("B.turn"), "1", what="B's turn LED after the restore")
        assert page.get_attribute('.board[data-board="0"]', "data-boots") == "2"
        wait_for(lambda: sum("PWRON_RESET" in x for x in p.log_lines()), 2, what="two power-on boots in the log")
        assert any("power cut" in x for x in p.log_lines())
        assert any("carom: match restored" in x for x in p.log_lines())  # what the firmware printed
        assert any("carom: running on board wall" in x for x in p.log_lines())
        assert p.errors == []
        # On the board's clock: lit once the press was released (a button with a long action
        # acts on release) and debounced, within 100 ms; the page hears of it at most one grant
        # of virtual time later (a loaded machine makes the grants no longer, only more).
        print("first press to A's turn LED: %.0f virtual ms" % (press_s * 1000))
        assert TAP_S <= press_s <= TAP_S + 0.1 + MAX_STEP_S
    finally:
        stop_and_check(sim)
    for folder in sim.flash:
        assert not os.path.exists(folder), "the temporary flash %s was left behind" % folder


# ---- a configured board: names, blinking, brightness, colon, plug/unplug, clock, keys, two pages ----

CONFIG = {
    "board": "wall",
    "players": {"A": {"name": "ANNA"}, "B": {"name": "BELA"}},
    "match": {"game": "three_cushion", "target": 3},
}


@pytest.fixture(scope="module")
def configured():
    import tempfile

    flash = tempfile.mkdtemp(prefix="carom-web-test-")
    with open(os.path.join(flash, "config.json"), "w") as f:
        json.dump(CONFIG, f)
    sim = Sim([CAROM, "sim", "--listen", "127.0.0.1:%d" % free_port(), "--flash", flash])
    yield sim
    stop_and_check(sim)
    assert os.path.exists(os.path.join(flash, "main.py"))  # a flash given with --flash is kept
    import shutil

    shutil.rmtree(flash, ignore_errors=True)


def test_blink_brightness_colon_plug_clock_keys_two_pages(browser, configured, tmp_path):
    sim = configured
    p = open_page(browser, sim)
    other = open_page(browser, sim)  # a second browser watching the same board
    page = p.page
    p.wait_text("A.name", "ANNA")
    assert p.text("B.name") == "BELA" and p.text("message") == "LAG " and p.text("target") == "   3"
    # Keyboard: 'a' is A.point (held while the key is down).
    events0 = int(page.get_attribute("#sound", "data-events"))
    page.keyboard.press("a")
    wait_for(lambda: p.led("A.turn"), "1", what="A's turn LED after the 'a' key")
    wait_for(lambda: other.led("A.turn"), "1", what="A's turn LED on the second page")
    # A target of 3 in three-cushion: the countdown shows from the start, blinking at 1 Hz.
    p.wait_text("countdown", "   3")
    countdown = p.fields["countdown"][0]  # its chip (boards/wall.json)
    chip = p.chip(countdown)
    assert chip["blink"] == "1" and chip["brightness"] == "8"
    # All its lit segments go dark together and light up together (as one chip blinks); in the dark
    # half a lit segment looks exactly as an unlit one (they vanished, and the unlit ghosts
    # left read as another number), so nothing of the number is seen.
    looks = """(key) => {
      const look = s => { const c = getComputedStyle(s); return [c.fill, c.opacity, c.filter].join(" "); };
      const f = document.querySelector('.board[data-board="0"] figure[data-chip="' + key + '"]');
      return {dark: f.dataset.dark, on: [...f.querySelectorAll('polygon.on')].map(look),
              off: [...new Set([...f.querySelectorAll('g.cell polygon.off')].map(look))]};
    }"""
    halves = set()
    for dark in (True, False, True, False):
        page.wait_for_function(
            """([key, dark]) => document.querySelector(
            '.board[data-board="0"] figure[data-chip="' + key + '"]').dataset.dark === (dark ? "true" : "false")""",
            arg=[countdown, dark],
            timeout=3000,
        )
        seen = page.evaluate(looks, countdown)  # the half it is in, read with the looks (it may have turned since)
        assert len(seen["on"]) == 5 and len(seen["off"]) == 1, seen  # "3": 5 segments; every unlit one alike
        assert all((look == seen["off"][0]) == (seen["dark"] == "true") for look in seen["on"]), (dark, seen)
        halves.add(seen["dark"])
    assert halves == {"true", "false"}, halves
    assert p.chip("0x70")["blink"] == "0"
    # The accepted press chirped: the buzzer's PWM events reached the page (sound is off until turned on).
    wait_for(lambda: int(page.get_attribute("#sound", "data-events")) > events0, True, what="sound events")
    assert page.get_attribute("#sound", "aria-pressed") == "false"
    page.click("#sound")
    assert page.get_attribute("#sound", "aria-pressed") == "true"
    # Unplug A's innings/run display from the panel; a point on the other page; E 71 shows.
    page.uncheck('.board[data-board="0"] input[data-chip="0x71"]')
    wait_for(lambda: p.chip("0x71")["present"], "false", what="0x71 unplugged")
    p.let_pass(0.5)  # the lock-out after the turn passed to A
    other.button("A.point").click()
    p.wait_text("A.score", "   1")
    # With sound on, the countdown's beeps are scheduled on the page's Web Audio oscillator.
    wait_for(lambda: int(page.get_attribute("#sound", "data-played") or 0) > 0, True, what="notes played")
    assert page.evaluate("() => sound.ctx.state") in ("running", "suspended")
    p.wait_text("message", "E 71", timeout=5)
    assert p.chip("0x71")["lit"] == "false"
    page.check('.board[data-board="0"] input[data-chip="0x71"]')
    p.wait_text("A.run", " 1", timeout=6)  # retried, set up again, up to date
    p.wait_text("message", lambda m: m != "E 71", timeout=5)
    # A scores once more (2 of 3: the half), misses; B asks for the break: 3:00 with the colon lit.
    p.button("A.point").click()
    p.wait_text("A.score", "   2")
    page.keyboard.press("z")
    wait_for(lambda: p.led("B.turn"), "1", what="B's turn LED after the 'z' key")
    p.let_pass(0.5)  # the lock-out after the turn passes
    page.keyboard.press("b")
    clock = p.wait_text("clock", lambda t: re.fullmatch(r" [23]:[0-5]\d", t) is not None)
    assert p.chip(p.fields["clock"][0])["colon"] is True
    p.wait_text("message", "BREA")  # the start of the marquee
    # Move the clock forward one minute from the panel (the page sees the clock run on meanwhile).
    t_before = float(page.get_attribute('.board[data-board="0"]', "data-t"))
    page.click('.board[data-board="0"] [data-action="advance"][data-seconds="60"]')
    wait_for(
        lambda: float(page.get_attribute('.board[data-board="0"]', "data-t")),
        lambda t: t >= t_before + 60,
        what="the board's clock a minute on",
    )
    p.wait_text("clock", lambda t: re.fullmatch(r" [12]:[0-5]\d", t) is not None and t <= " 2:00")
    # Shift+A: a long press (1.5 s) of A.point, which undoes the newest entry: the break request.
    page.keyboard.press("Shift+A")
    # No break and no shot clock: the match's time since its first stroke, h:mm with the colon.
    # The undo took the break's minute back: time goes on from the newest entry's
    # (rules.Match.resume_at), seconds after the first stroke.
    p.wait_text("clock", " 0:00", timeout=6)
    assert p.chip(p.fields["clock"][0])["colon"] is True
    assert p.led("B.turn") == "1" and p.text("A.score") == "   2"
    assert any("A.point long press 1.50 s" in x for x in p.log_lines())
    assert clock and p.errors == [] and other.errors == []
    page.screenshot(path=str(tmp_path / "break.png"))


def test_api_refusals(configured):
    sim = configured
    with pytest.raises(urllib.error.HTTPError) as e:
        sim.post(0, {"do": "tap", "button": "nope"})
    assert e.value.code == 400 and "no button" in json.loads(e.value.read())["error"]
    req = urllib.request.Request(
        sim.url + "/api/boards/0/action", b'{"do": "tap", "button": "foul"}', {"Content-Type": "text/plain"}
    )  # what a cross-site form could send
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=10)
    assert e.value.code == 415
    with pytest.raises(urllib.error.HTTPError) as e:
        sim.get("/static/../server.py")
    assert e.value.code == 404
    state = sim.get("/api/state")[0]
    assert {c["key"] for c in state["chips"]} >= {"0x70", "1:0x70"} and state["powered"] is True


def test_busy_port_is_a_clear_error():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        r = subprocess.run(
            [CAROM, "sim", "--listen", "127.0.0.1:%d" % port], capture_output=True, text=True, timeout=60
        )
    assert r.returncode == 1
    assert "cannot serve on 127.0.0.1:%d" % port in r.stderr and "--listen" in r.stderr

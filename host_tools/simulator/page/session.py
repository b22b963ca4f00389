"""One virtual board behind the simulator page: its time, its buttons, what it shows.

    session = BoardSession(0, "wall", flash_dir=None, publish=callback)
    session.start()                     # boots the firmware, then time flows with real time
    session.act({"do": "tap", "button": "A.point"})
    session.snapshot()                  # what the chips, LEDs and buttons show now
    session.close()                     # stops the clock thread and the MicroPython process

Time.  The virtual board's clock only moves when the host grants time, so a
`Pacer` thread grants it in step with the wall clock: every TICK_S it advances
the board by the real time that passed (at most MAX_STEP_S, so a slow machine
slows the board down rather than making it jump).  Button presses, releases
and the other actions run under the same lock, between two steps; a release
scheduled at a virtual instant (the end of a tap) is made at exactly that
instant.  When the virtual board gets a real-time mode of its own, only
`Pacer` changes: `step()` then lets the board run on by itself and the
scheduled releases become timers.

A jump ({"do": "advance"}, up to MAX_JUMP_S) is the firmware's own loop run
for that much virtual time: 300 s is some 30,000 turns of its 10 ms tasks,
seconds of real time.  It runs in slices of JUMP_SLICE_S with the lock let go
between them (TurnLock: whoever asked for it meanwhile has it first), so taps,
the state and the clock thread's events are served while it runs; the tap is
made at the virtual instant the jump has reached.  One jump at a time runs on
a clock (the server answers 429 to another).

`publish(kind, board_index, payload)` is called from the pacer thread (and
from whichever thread called `act`) with "state" (a snapshot that changed),
"log" (one line), "sound" (PWM events of the buzzer) and "tick" (the virtual
time, when nothing else changed); the server turns
them into server-sent events.
"""

import heapq
import itertools
import json
import math
import os
import re
import signal
import threading
import time

from ...link.boardio import APP_RUNNING as RUNNING
from ..scripted_board import ScriptedBoard, chip_key
from ..segments import decode
from ...boardlayout import column_of, display_label, placed_displays
from .phase import PhaseReader, hint

TICK_S = 0.02  # virtual time is granted in steps of about this much real time
MAX_STEP_S = 0.25  # a late tick grants at most this much (the board slows down instead of jumping)
TAP_S = 0.1  # a click: down this long, then released
MIN_DOWN_S = 0.1  # a press shorter than this (a quick click) is held this long
GAP_S = 0.1  # a button is left up at least this long between two presses
LONG_EXTRA_S = 0.5  # a long press lasts the button's long_ms plus this (1.5 s for 1000 ms)
CLOCK_EVERY_S = 0.1  # when nothing else changes, the virtual time is sent this often
JUMPS = (10, 60, 300)  # "move the clock forward" buttons, seconds
MAX_JUMP_S = max(JUMPS)  # the most one {"do": "advance"} moves the clock
JUMP_SLICE_S = 1.0  # a jump runs this much virtual time at a time, then lets others have the board's lock
ACTIONS = {"tap": ("button",), "down": ("button",), "up": ("button",), "long": ("button",),
           "power": ("on",), "plug": ("chip", "plugged"), "advance": ("seconds",),
           "identify": ()}  # each one's fields
LOG_KEEP = 500  # log lines a newly connected page is sent
STOP_GRACE_S = 2.0  # at the end, how long a clock thread may take to finish its step
BLINK_HZ = (0, 2, 1, 0.5)
REFUSED = re.compile(r"carom: refused (\S+): (.*)$")  # the firmware's line for a refused press or a lock-out
LOCKED_OUT = "locked out: the turn had just passed (a press that soon after is ignored)"
MARK_S = 1.2  # how long the page marks a refused button (real seconds; the page's own timer)
# The identify mode (firmware/identify.py): the line it prints when it shows, the one when it is left.
IDENTIFY_SHOWS = "identify: press a button"
IDENTIFY_LEFT = "identify: done"
IDENTIFY_HINT = "Identify mode: press a button to see its name{where}; hold one {long} to leave"
REMOTE_ORDER = ("point", "miss", "foul", "foul.time", "undo", "break", "timeout", "new")  # the referee box's keys

KEYS = {"A.point": "a", "A.end": "z", "B.point": "l", "B.end": "m", "foul": "f", "break": "b", "new": "n",
        "point": "a", "end": "z"}


def layout(board, index):
    """What the page needs to draw a board: displays, buttons and LEDs, placed by column."""
    displays = []
    for d, column, _ in placed_displays(board):  # in the page's order: by column, from the top
        fields = [p["field"] for p in d["show"]]
        displays.append({
            "key": chip_key(d["bus"], d["addr"]),
            "bus": d["bus"],
            "addr": "0x%02x" % d["addr"],
            "kind": d["kind"],
            "digits": d.get("digits", 4),
            "column": column,
            "role": "name" if any(f.endswith(".name") for f in fields) else (
                "score" if any(f.endswith(".score") for f in fields) else "stat"),
            "show": [{"field": p["field"], "at": p["at"], "width": p["width"],
                      "label": display_label(p["field"], column, board.get("role"))}
                     for p in d["show"]],
        })
    buttons = []
    used = set()
    for b in board["buttons"]:
        key = KEYS.get(b["name"])
        if key is None or key in used:
            key = next((c for c in b["name"].lower() if c.isalpha() and c not in used), None)
        used.add(key)
        long_s = round(b["long_ms"] / 1000 + LONG_EXTRA_S, 3)
        buttons.append({
            "name": b["name"],
            "label": b["name"].split(".", 1)[-1].upper(),
            "column": column_of(b["name"]),
            "key": key,
            "action": b["action"],
            "long_action": b["long_action"],
            "long_s": long_s,
        })
    order = {n: i for i, n in enumerate(REMOTE_ORDER if board.get("role") == "remote" else KEYS)}
    buttons.sort(key=lambda b: (order.get(b["name"], 99), b["name"]))
    leds = [{"name": n, "column": column_of(n), "label": n.split(".", 1)[-1].upper()}
            for n in (board.get("leds") or {})]
    return {
        "index": index,
        "board": board["name"],
        "role": board.get("role", "wall"),
        "description": board.get("description", ""),
        "displays": displays,
        "buttons": buttons,
        "leds": leds,
        "jumps": list(JUMPS),
        "identify_button": board.get("identify_button"),
    }


def shown(value, limit=40):
    """A value from a request, as JSON, cut short: for the reason a request is refused."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = "?"
    return text if len(text) <= limit else text[:limit] + "..."


def check_action(action, buttons, chips):
    """Why `action` (the JSON a page POSTed) is refused, or None: each field by its JSON type and
    range.  buttons, chips: the board's button names and display keys ("1:0x71")."""
    if not isinstance(action, dict):
        return "the body must be a JSON object"
    do = action.get("do")
    if not isinstance(do, str) or do not in ACTIONS:
        return "unknown action %s (one of %s)" % (shown(do), ", ".join(ACTIONS))
    fields = ACTIONS[do]
    for name in action:
        if name != "do" and name not in fields:
            return "%s takes %s, not %s" % (do, ", ".join(fields) or "no other field", shown(name))
    for name in fields:
        if name not in action:
            return "%s needs %s" % (do, name)
    if "button" in fields and not (isinstance(action["button"], str) and action["button"] in buttons):
        return "no button %s on this board" % shown(action["button"])
    for name in ("on", "plugged"):
        if name in fields and type(action[name]) is not bool:
            return "%s must be true or false, not %s" % (name, shown(action[name]))
    if "chip" in fields and not (isinstance(action["chip"], str) and action["chip"] in chips):
        return "no display %s on this board" % shown(action["chip"])
    if "seconds" in fields:
        seconds = action["seconds"]
        if type(seconds) not in (int, float) or (type(seconds) is float and not math.isfinite(seconds)):
            return "seconds must be a JSON number, not %s" % shown(seconds)
        if not 0 < seconds <= MAX_JUMP_S:
            return "seconds must be more than 0 and at most %d" % MAX_JUMP_S
    return None


# ---- the form: names and match options (firmware/config.py's `players` and `match` keys) ---------

FORM_KEYS = ("players.A.name", "players.A.club", "players.B.name", "players.B.club",
             "match.game", "match.target", "match.target_A", "match.target_B", "match.innings_limit",
             "match.draw", "match.sets", "match.deciding_target", "match.shootout", "match.warmup_s")
NULLABLE = ("match.target_A", "match.target_B", "match.deciding_target")  # blank: not set (null)
SKIP_BLANK = ("match.game", "match.target", "match.innings_limit", "match.draw", "match.sets", "match.shootout",
              "match.warmup_s")  # blank: left as the board has it
BOOT_WAIT_S = 30  # seconds the board's start is watched after the reset (real time)
SETTLE_S = 0.3  # after the new match's long press, virtual seconds for the board to start it
MAX_FORM_TEXT = 100  # a value longer than this is refused before the board is touched


class _Quiet:
    """BoardIO's progress stream: nothing to show on the page's server terminal."""

    def write(self, text):
        return len(text)

    def flush(self):
        pass


def apply_form(current, settings):
    """A new config dict: `current` with each (key, text) of the form set as `carom config set`
    sets them (each value by its key's type and range, then the whole file checked once: the
    firmware's words for a bad value); CommandError, nothing written, when one is refused."""
    from ...commands.config import apply_settings
    from ...errors import CommandError

    if current is not None and not isinstance(current, dict):
        raise CommandError("config.json on the board is not an object; nothing was written")
    return apply_settings(current, ["%s=%s" % (key, text) for key, text in settings])


def reason_text(n):
    """The words for one of the rules core's reason numbers."""
    from ... import firmware_path

    firmware_path()
    import reasons

    return reasons.text(n)


def check_form(values):
    """Why the form's JSON is refused (None: each key one of FORM_KEYS, each value a string)."""
    if not isinstance(values, dict) or not values:
        return "values must be a JSON object of the form's fields"
    for k, v in values.items():
        if k not in FORM_KEYS:
            return "%s is not a field of the form (%s)" % (shown(k), ", ".join(FORM_KEYS))
        if not isinstance(v, str):
            return "%s must be a string, not %s" % (k, shown(v))
        if len(v) > MAX_FORM_TEXT or any(c in v for c in "\n\r\x00"):
            return "%s: at most %d characters on one line" % (k, MAX_FORM_TEXT)
    return None


# ---- secrets never shown ----------------------------------------------------------------------

HIDDEN = "***"  # firmware/config.py's REDACTED
MIN_SECRET = 4  # a shorter secret is too common a string to hide by its value (the rules below still do)
HEX_RUN = re.compile(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{64,}(?![0-9A-Fa-f])")  # a radio key (or any 32+ bytes in hex)
# A quoted "password"/"key"/"psk" field's value: up to its closing quote, a backslash escaping the
# next character; without one before the line's end, up to the line's last quote of its kind.  What
# `(?:\\.|(?!\3).)*\3` matched, in one pass: that took a backslash two ways, so a value of n
# backslashes never closed cost about 1.6 ** n steps (0.8 to 2.3 s for a form value's error in
# carom sim, two days for 60).
SECRET_FIELD = re.compile(r"""((["'])(?:password|key|psk)\2\s*:\s*)(["'])(?:(?:\\.|(?!\3)[^\\\n])*+\3|[^\n]*\3)""")
RAW_REPL = "raw REPL; CTRL-B to exit"  # the board entered the raw REPL (a host tool: mpremote, carom)
FRIENDLY = 'Type "help()" for more information.'  # the banner: the board left it


def _secret_paths():
    from ...commands.config import secret_paths  # the config schema's F_SECRET entries

    return secret_paths()


class Redactor:
    """Hides the board's secrets (Wi-Fi and MQTT passwords, the radio key) in text the simulator shows.

    By value: every secret the board's config.json (and config.json.tmp, a write under way) held
    since the session started, as written and as JSON or Python would escape it.  By shape: any run
    of 64 or more hex digits, and the value of a quoted "password"/"key"/"psk" field."""

    def __init__(self, paths=None):
        self.paths = paths if paths is not None else _secret_paths()
        self.secrets = set()
        self._forms = []
        self._seen = {}  # file -> (mtime_ns, size) when last read

    def learn_config(self, d):
        """Every non-empty secret value of a config dict."""
        for path in self.paths:
            v = d
            for key in path.split("."):
                v = v.get(key) if isinstance(v, dict) else None
            if isinstance(v, str) and v and v != HIDDEN:
                self.learn(v)

    def learn(self, secret):
        if secret in self.secrets:
            return
        self.secrets.add(secret)
        if len(secret) < MIN_SECRET:
            return
        forms = set()
        for written in (secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]):
            forms |= {written, repr(written)[1:-1], repr(written.encode())[2:-1]}  # as text, as a repr of it
        self._forms = sorted(set(self._forms) | forms, key=len, reverse=True)

    def watch(self, folder):
        """Learn the secrets of folder/config.json and config.json.tmp when they changed."""
        if not folder:
            return
        for name in ("config.json", "config.json.tmp"):
            path = os.path.join(folder, name)
            try:
                st = os.stat(path)
                if self._seen.get(path) == (st.st_mtime_ns, st.st_size):
                    continue
                self._seen[path] = (st.st_mtime_ns, st.st_size)
                with open(path, "rb") as f:
                    raw = f.read(1 << 16)
                self.learn_config(json.loads(raw.decode("utf-8", "replace")))
            except (OSError, ValueError):
                continue

    def __call__(self, text):
        if not isinstance(text, str):
            return text
        for form in self._forms:
            if form in text:
                text = text.replace(form, HIDDEN)
        text = HEX_RUN.sub(HIDDEN, text)
        return SECRET_FIELD.sub(lambda m: m.group(1) + m.group(3) + HIDDEN + m.group(3), text)


def close_all(sessions, grace=STOP_GRACE_S):
    """Stop every board: the clock threads first.  A Ctrl-C in the terminal reaches the boards'
    MicroPython processes too (one process group), and a board interrupted in the middle of a
    step never answers it: the step would wait out the board's 30 s timeout.  So a clock thread
    still running after `grace` seconds has its boards' processes ended under it."""
    for s in sessions:
        s._stop.set()
    threads = [s._thread for s in sessions if s._thread is not None and s._thread is not threading.current_thread()]
    deadline = time.monotonic() + grace
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    if any(t.is_alive() for t in threads):
        for s in sessions:
            s.kill_board()
    for s in sessions:
        s.close()


class HubBoard(ScriptedBoard):
    """A ScriptedBoard on a RadioHub (ESP-NOW to the other boards on it), with a given MAC."""

    def __init__(self, board_name, flash_dir, config, hub, name, mac):
        super().__init__(board_name, flash_dir, config, radio=hub, name=name, unique_id=mac)


class TurnLock:
    """A reentrant lock its waiters get in the order they asked for it.

    threading.RLock lets a thread that releases it take it again at once, ahead of the threads
    waiting for it: a jump in slices would keep the board to itself all the same."""

    def __init__(self):
        self._cond = threading.Condition(threading.Lock())
        self._owner = None
        self._depth = 0
        self._next = 0  # the ticket the next newcomer draws
        self._serving = 0  # the ticket whose turn it is

    def acquire(self):
        me = threading.get_ident()
        with self._cond:
            if self._owner == me:
                self._depth += 1
                return True
            ticket = self._next
            self._next += 1
            while self._serving != ticket:
                self._cond.wait()
            self._owner = me
            self._depth = 1
            return True

    def release(self):
        with self._cond:
            if self._owner != threading.get_ident():
                raise RuntimeError("release of a TurnLock not held by this thread")
            self._depth -= 1
            if self._depth == 0:
                self._owner = None
                self._serving += 1
                self._cond.notify_all()

    __enter__ = acquire

    def __exit__(self, *exc):
        self.release()


class Pacer:
    """Virtual time in step with real time: grants the board the real time that passed.

    Also keeps the actions scheduled at virtual instants (a tap's release) and
    makes each at its exact instant.  Replace this class when the virtual board
    runs in real time by itself (vb.run_realtime()): start() then turns that on,
    step() only makes the scheduled actions whose instant vb.now has reached,
    and a jump's slices stay vb.advance().
    """

    def __init__(self, vb, clock=None):
        self.vb = vb
        self.clock = clock or vb  # a RadioHub: every board on it, in step (its .now, .advance)
        self._queue = []  # (virtual s, seq, fn)
        self._seq = itertools.count()
        self._last = time.monotonic()
        self.jumping = False  # a jump runs: it grants the time, step() none

    def at(self, t, fn):
        """Call fn() when virtual time reaches t (seconds)."""
        heapq.heappush(self._queue, (t, next(self._seq), fn))

    def step(self):
        """Grant the real time since the previous step (capped at MAX_STEP_S)."""
        now = time.monotonic()
        dt = min(now - self._last, MAX_STEP_S)
        self._last = now
        if dt > 0 and not self.jumping:
            self.advance_to(self.now + dt)

    @property
    def now(self):
        return self.clock.now

    def advance_to(self, goal):
        """Let virtual time reach `goal`, making every scheduled action on the way."""
        while self._queue and self._queue[0][0] <= goal:
            t, _, fn = heapq.heappop(self._queue)
            if t > self.now:
                self.clock.advance(t - self.now)
            fn()
        if goal > self.now:
            self.clock.advance(goal - self.now)

    def resume(self):
        """Real-time pacing goes on from now (after a jump)."""
        self.jumping = False
        self._last = time.monotonic()


class BoardSession:
    """A virtual board the page shows and drives; thread-safe."""

    def __init__(self, index, board_name, flash_dir=None, publish=None, config=None, radio=None, lead=None):
        """radio: {"hub": RadioHub, "name": its name on the hub, "mac": bytes}, for boards paired over
        ESP-NOW.  lead: the session whose clock thread drives the hub (its lock and pacer are shared);
        None for the one that drives it (or a board on its own)."""
        self.index = index
        self.board_name = board_name
        self.flash_dir = flash_dir
        self.config = config
        self.radio = radio
        self.lead = lead
        self.publish = publish or (lambda kind, index, payload: None)
        self.lock = lead.lock if lead is not None else TurnLock()
        self.sb = None
        self.vb = None
        self.pacer = None
        self.layout = None
        self.log = []  # the latest LOG_KEEP lines
        self._stop = threading.Event()
        self._thread = None
        self._last_state = None
        self._last_t = 0.0
        self._decoded = {}  # (bus, addr) -> (ram, Reading)
        self._out_seen = {"stdout": 0, "stderr": 0}
        self._partial = {"stdout": "", "stderr": ""}
        self._sounds_seen = 0
        self._boots_seen = 0
        self._buttons = {}  # name -> {"down_at": virtual s or None, "free_at": virtual s}
        self._pressed = set()  # buttons whose pin is driven now
        self.failed = None  # the error that stopped the board's process, if any
        self.redact = Redactor()  # every line logged and every error shown goes through it
        self._raw_repl = False  # the board is at the raw REPL: what it sends back is a host tool's, not shown
        self.partner = None  # the referee box paired with this wall (its presses may be refused here)
        self.phase = None  # the saved match's phase and turn (phase.py), for the hint line
        self._phases = None
        self._hint = ""
        self._phase_name = None
        self._new_button = "NEW 3 s"  # the button held for a new match, and how long (its board's)
        self._configuring = threading.Lock()  # one config.json write at a time
        self._identify_held = None  # the identify button, held since the power-on until the mode shows
        self.identifying = False  # the board is in its identify mode (what it printed says so)
        if isinstance(config, dict):
            self.redact.learn_config(config)

    # ---- life ------------------------------------------------------------------------

    def start(self):
        """Deploy the firmware, power the board on and start the clock thread."""
        self.boot()
        self.run()

    def boot(self):
        """Deploy the firmware and power the board on (time does not flow yet)."""
        with self.lock:
            self._boot()

    def _boot(self):
        if self.radio is not None:
            self.sb = HubBoard(self.board_name, self.flash_dir, self.config, **self.radio)
        else:
            self.sb = ScriptedBoard(self.board_name, self.flash_dir, config=self.config)
        self.vb = self.sb.vb
        self.vb.open_serial()  # the REPL on a pty: mpremote works against the board while the page runs
        self.flash_dir = self.sb.flash_dir
        self.redact.watch(self.flash_dir)
        self.layout = layout(self.sb.board, self.index)
        self.layout["flash"] = self.flash_dir
        self.layout["mark_s"] = MARK_S
        self.layout["form"] = self.layout["role"] == "wall" and bool(self.flash_dir)
        self._phases = PhaseReader(self.flash_dir) if self.layout["role"] == "wall" else None
        held = [b for b in self.sb.board["buttons"] if b["long_action"] == "new_match"]
        self._new_button = "%s %g s" % (held[0]["name"].upper(), held[0]["long_ms"] / 1000) if held else "NEW 3 s"
        self.buzzer_pin = self.vb.named_pins.get("buzzer")
        if self.lead is not None:
            self.pacer = self.lead.pacer  # boot the lead first
        else:
            self.pacer = Pacer(self.vb, self.radio["hub"] if self.radio else None)
        for b in self.sb.board["buttons"]:
            self._buttons[b["name"]] = {"down_at": None, "free_at": 0.0, "last": -1.0}
        self._collect()

    def run(self):
        """Start the clock thread (a session with a lead only publishes what changed)."""
        self._thread = threading.Thread(target=self._run, name="board-%d" % self.index, daemon=True)
        self._thread.start()

    def close(self):
        """Stop the clock and end the MicroPython process (and remove a temporary flash)."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)
        with self.lock:
            if self.sb is not None:
                self.sb.close()

    @property
    def pid(self):
        return self.vb.pid if self.vb is not None else None

    def _run(self):
        while not self._stop.wait(TICK_S):
            with self.lock:
                if self._stop.is_set():
                    break
                try:
                    if self.lead is None:
                        self._guard(self.pacer.step)
                    self._collect()
                except Exception:
                    if self._stop.is_set():  # its process was ended under it (close_all)
                        break
                    raise

    def kill_board(self):
        """End the board's MicroPython process at once (SIGKILL): a step waiting on it ends."""
        pid = self.pid
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def _guard(self, fn, *args):
        """Run a board call; a board whose process died is shown off, with the reason logged."""
        from ..vboard import BoardError

        try:
            fn(*args)
            return True
        except BoardError as e:
            if self._stop.is_set():
                return False
            # The error quotes the console's last lines: a raw REPL answer among them (its \x04) is left out.
            lines = [line if "\x04" not in line else "(an answer to a host tool at the raw REPL, not shown)"
                     for line in str(e).splitlines()] or [""]
            self.failed = self.redact("\n".join(lines))
            self._log("error", lines[0])
            for line in lines[1:]:
                self._log("stderr", line)
            if self.vb.powered:
                self.vb.power_off()
            return False

    # ---- actions from the page ----------------------------------------------------------

    def act(self, action):
        """Do what the page asked: {"do": "tap"|"down"|"up"|"long", "button": name},
        {"do": "power", "on": bool}, {"do": "plug", "chip": "1:0x71", "plugged": bool},
        {"do": "advance", "seconds": n}, {"do": "identify"} (the identify mode, started as a
        person does: _identify).  Returns None, or why it was refused (check_action:
        nothing is done with a field of the wrong type or out of range)."""
        reason = check_action(action, self._buttons, {d["key"] for d in self.layout["displays"]})
        if reason:
            return reason
        do = action["do"]
        if do == "advance":
            return self._jump(action["seconds"])
        with self.lock:
            if self._stop.is_set():
                return "the simulator is stopping"
            if do in ("tap", "down", "up", "long"):
                reason = getattr(self, "_" + do)(action["button"])
            elif do == "power":
                reason = self._power(action["on"])
            elif do == "plug":
                reason = self._plug(action["chip"], action["plugged"])
            else:
                reason = self._identify()
            self._collect()
            return reason

    def _press_at(self, name, t):
        def press():
            self._pressed.add(name)
            self.vb.press(name)
        self._schedule(t, press)

    def _release_at(self, name, t):
        def release():
            self._pressed.discard(name)
            self.vb.release(name)
        self._schedule(t, release)

    def _schedule(self, t, fn):
        if t <= self.pacer.now:
            self._guard(fn)
        else:
            self.pacer.at(t, lambda: self._guard(fn))

    def _down(self, name):
        b = self._buttons[name]
        if b["down_at"] is not None:
            return None  # already held
        t = max(self.pacer.now, b["free_at"])
        b["down_at"] = b["last"] = t
        b["free_at"] = float("inf")
        self._press_at(name, t)
        return None

    def _up(self, name, held=MIN_DOWN_S, quiet=False):
        b = self._buttons[name]
        if b["down_at"] is None:
            return None
        t = max(self.pacer.now, b["down_at"] + held)
        if not quiet:  # logged at the instant it went down (the release comes later)
            self._log("press", "%s pressed %.2f s" % (name, t - b["down_at"]), at=b["down_at"])
        b["down_at"] = None
        b["free_at"] = t + GAP_S
        self._release_at(name, t)
        return None

    def _tap(self, name, seconds=TAP_S, what="pressed"):
        b = self._buttons[name]
        if b["down_at"] is not None:
            return "%s is held down" % name
        t = max(self.pacer.now, b["free_at"])
        b["down_at"] = b["last"] = t
        self._log("press", "%s %s %.2f s" % (name, what, seconds))
        self._press_at(name, t)
        return self._up(name, held=seconds, quiet=True)

    def _long(self, name):
        spec = next(b for b in self.layout["buttons"] if b["name"] == name)
        return self._tap(name, spec["long_s"], "long press")

    def _power(self, on):
        vb = self.vb
        if on and not vb.powered:
            self.failed = None
            self._log("power", "power on")
            self._guard(vb.power_on)
        elif not on and vb.powered:
            self._log("power", "power cut")
            self._guard(vb.power_off)
        return None

    def _identify(self):
        """The identify mode, started as a person starts it: the power off, the board definition's
        identify button held, the power on; the button is released once the mode shows (the board
        printed its first line: _collect), or once the app runs instead."""
        name = self.sb.board.get("identify_button")
        if not name:
            return "this board's definition names no identify button"
        b = self._buttons[name]
        if b["down_at"] is not None:
            return "%s is held down: release it first" % name
        self._log("power", "identify mode: power off, %s held, power on" % name)
        if self.vb.powered:
            self._guard(self.vb.power_off)
        self.failed = None
        b["down_at"] = b["last"] = self.pacer.now
        b["free_at"] = float("inf")
        self._pressed.add(name)
        self._identify_held = name
        self._guard(self.vb.press, name)
        self._guard(self.vb.power_on)
        return None

    def _identify_console(self, line):
        """The identify mode as the board's console tells it: shown (release the button held
        since the power-on), left."""
        if line.startswith(IDENTIFY_SHOWS):
            self.identifying = True
        elif line.startswith(IDENTIFY_LEFT):
            self.identifying = False
        if self._identify_held and (self.identifying or line.startswith(RUNNING)):
            name, self._identify_held = self._identify_held, None
            b = self._buttons[name]
            b["down_at"] = None
            b["free_at"] = self.pacer.now + GAP_S
            self._log("press", "%s released: the %s shows" % (name, "identify mode" if self.identifying else "app"))
            self._release_at(name, self.pacer.now)

    def _plug(self, chip, plugged):
        keys = {d["key"]: (d["bus"], int(d["addr"], 16)) for d in self.layout["displays"]}
        if chip not in keys:
            return "no display %r on this board" % (chip,)
        bus, addr = keys[chip]
        present = self.vb.chip(addr, bus=bus).present
        if present != plugged:
            self._log("plug", "display %s %s" % (chip, "plugged in" if plugged else "unplugged"))
            self._guard(self.vb.plug if plugged else self.vb.unplug, addr, bus)
        return None

    def _jump(self, seconds):
        """Move the clock `seconds` forward, JUMP_SLICE_S at a time with the lock let go in between
        (the firmware sees the same time pass as in one go: its timers, the watchdog and the
        scheduled releases run at their instants).  Refused while a jump runs on this clock (a
        referee box shares its wall's); ends early when the simulator stops or the board fails."""
        with self.lock:
            if self._stop.is_set():
                return "the simulator is stopping"
            if self.pacer.jumping:
                return "the clock is still moving: one jump at a time"
            self.pacer.jumping = True
            self._log("time", "clock moved forward %g s" % seconds)
            goal = self.pacer.now + seconds
        try:
            while True:
                with self.lock:
                    left = goal - self.pacer.now
                    if left < 1e-6 or self._stop.is_set():
                        break
                    if not self._guard(self.pacer.advance_to, goal if left <= JUMP_SLICE_S else
                                       self.pacer.now + JUMP_SLICE_S):
                        break
        finally:
            with self.lock:
                self.pacer.resume()
                if not self._stop.is_set():
                    self._collect()
        return None

    # ---- names and match options, through the board's serial console ------------------------

    def config_values(self):
        """The form's fields as the board's config.json has them now (players, match; defaults
        filled in by the firmware's schema), and the games to choose from.  Read from the flash
        folder (read only: no secret is in these keys); written only by configure()."""
        from ...commands.config import as_the_board_reads, firmware_config

        config, _ = firmware_config()
        path = os.path.join(self.flash_dir, "config.json") if self.flash_dir else None
        try:
            with open(path, "rb") as f:
                full = as_the_board_reads(f.read(), "config.json")
        except (OSError, TypeError, ValueError):
            full = config.normalize({}, "config.json")
        values = {}
        for key in FORM_KEYS:
            section, _, name = key.rpartition(".")
            v = full
            for part in section.split("."):
                v = v.get(part) or {}
            values[key] = v.get(name)
        games = next(e[6] for e in next(e for e in config.SCHEMA if e[0] == "match")[6] if e[0] == "game")
        return {"values": values, "games": list(games)}

    def _flash_config(self):
        """config.json in the flash folder as a dict ({} when it is missing or not an object)."""
        try:
            with open(os.path.join(self.flash_dir, "config.json"), "rb") as f:
                d = json.loads(f.read().decode("utf-8"))
        except (OSError, TypeError, ValueError):
            return {}
        return d if isinstance(d, dict) else {}

    def _buttons_up(self):
        """Wait (virtual time, at most BOOT_WAIT_S of real time) until every button's press or
        long press is over: the write resets the board, and a button down at its start is a safe
        boot (E 30; NEW is the wall's safe-boot button). Why not, if one is held by hand."""
        for name, b in self._buttons.items():
            if b["down_at"] is not None and b["free_at"] == float("inf"):
                return "%s is held down: release it first (a button down when the board restarts is a safe boot)" % name
        until = max([b["free_at"] for b in self._buttons.values()] + [0.0]) + SETTLE_S
        deadline = time.monotonic() + BOOT_WAIT_S
        while self.pacer.now < until and time.monotonic() < deadline and not self._stop.is_set():
            time.sleep(TICK_S)
        return None

    def configure(self, values, new_match=False):
        """Write the form's values into config.json the way `carom config set` does: over the
        board's serial console (mpremote's raw REPL: the app stops), each value parsed and the
        whole checked by the firmware's own schema before anything is written, the file written
        atomically, then the board reset and its start watched.  Returns (None, lines said) or
        (the error, lines); nothing is written when a value is refused."""
        from ...commands.config import FILE, changes, parse_board_config, write_config
        from ...errors import CommandError
        from ...link.boardio import BoardIO, boot_problems

        reason = check_form(values)
        if reason:
            return reason, []
        settings = [(k, "null" if v == "" and k in NULLABLE else v) for k, v in values.items()
                    if not (v == "" and k in SKIP_BLANK)]
        try:  # checked before the board is touched, against the config.json the form was filled from
            apply_form(self._flash_config(), settings)
        except CommandError as e:
            return self.redact(str(e)), []
        port = getattr(self.vb, "serial_path", None)
        if not port:
            return "this board has no serial console", []
        reason = self._buttons_up()
        if reason:
            return reason, []
        if not self._configuring.acquire(blocking=False):
            return "a configuration is being written to this board now", []
        said = []
        try:
            self._log("config", "writing config.json through the serial console %s (as carom config set)" % port)
            with BoardIO(port, reset_on_close=True, out=_Quiet()) as board:
                raw = board.read_file(FILE)
                current = parse_board_config(raw, board)
                new = apply_form(current, settings)
                diff = changes(current if isinstance(current, dict) else {}, new, False)
                if raw is not None and new == current:
                    said.append("config.json already says so; nothing written")
                else:
                    said += diff
                    size = write_config(board, new)
                    said.append("wrote config.json (%d bytes)" % size)
                ok, lines = board.restart_and_watch(BOOT_WAIT_S, "wall")
                problems = boot_problems(lines or [])
            for line in said:
                self._log("config", line)
            if ok is False or problems:
                return self.redact("the board reports a problem at boot: %s" % "; ".join(problems)), said
            if ok is None:
                return "the board did not say it runs within %d s after the reset" % BOOT_WAIT_S, said
            said.append("reset; the board started with the new configuration")
        except CommandError as e:
            self._log("refused", "config: %s" % e)
            return self.redact(str(e)), said
        finally:
            self._configuring.release()
        if new_match:
            spec = next((b for b in self.layout["buttons"] if b["long_action"] == "new_match"), None)
            if spec is not None:
                reason = self.act({"do": "long", "button": spec["name"]})
                if reason:
                    return reason, said
                # Answered once the button is back up and the new match began (the hold is virtual time).
                until = self._buttons[spec["name"]]["free_at"] + SETTLE_S
                deadline = time.monotonic() + BOOT_WAIT_S
                while self.pacer.now < until and time.monotonic() < deadline and not self._stop.is_set():
                    time.sleep(TICK_S)
                said.append("%s held %g s: a new match with these options" % (spec["name"], spec["long_s"]))
        else:
            said.append("names, clubs and match options apply now if the match has not started, else from "
                        "the next new match (hold NEW 3 s)")
        return None, [self.redact(x) for x in said]

    # ---- what the board shows -------------------------------------------------------------

    def _log(self, kind, text, at=None):
        """One line to the log (and every page): its secrets hidden first (Redactor); `at`: the
        virtual instant it happened, when not now."""
        if at is None:
            at = self.vb.now if self.vb else 0.0
        entry = {"board": self.index, "t": round(at, 3), "kind": kind,
                 "text": self.redact(text)}
        self.log.append(entry)
        del self.log[:-LOG_KEEP]
        self.publish("log", self.index, entry)

    def _collect(self):
        """Publish what changed since last time: printed lines, resets, sounds, the state."""
        vb = self.vb
        rebooted = len(vb.boots) > self._boots_seen
        for boot in vb.boots[self._boots_seen:]:
            self._log("reset", "boot at %.3f s: %s (%s)" % (boot.t_ms / 1000, boot.cause_name, boot.kind))
        self._boots_seen = len(vb.boots)
        for stream in ("stdout", "stderr"):
            text = vb.stdout if stream == "stdout" else vb.stderr
            new = text[self._out_seen[stream]:]
            if new:
                self._out_seen[stream] = len(text)
                self.redact.watch(self.flash_dir)  # what was just printed may hold a secret set just now
                lines = (self._partial[stream] + new).split("\n")
                self._partial[stream] = lines.pop()
                if stream == "stdout":
                    lines = self._console_lines(lines, rebooted)
                for line in lines:
                    if isinstance(line, tuple):
                        self._log(*line)
                        continue
                    line = line.rstrip("\r")
                    refused = REFUSED.match(line) if stream == "stdout" else None
                    if stream == "stdout":
                        self._identify_console(line)
                    if refused:
                        self._refused(refused.group(1), refused.group(2).strip())
                    else:
                        self._log(stream, line)
        sounds = vb.sounds[self._sounds_seen:]
        self._sounds_seen = len(vb.sounds)
        if sounds:
            now_ms = vb.now_ms
            events = [{"t_ms": round(ev.t_ms, 3), "age_ms": round(now_ms - ev.t_ms, 3),
                       "freq": ev.freq, "duty": ev.duty_u16}
                      for ev in sounds if self.buzzer_pin is None or ev.pin == self.buzzer_pin]
            if events:
                self.publish("sound", self.index, {"board": self.index, "events": events})
        self._update_hint()
        state = self.snapshot()
        comparable = dict(state, t=None)
        if comparable != self._last_state:
            self._last_state = comparable
            self._last_t = state["t"]
            self.publish("state", self.index, state)
        elif abs(state["t"] - self._last_t) >= CLOCK_EVERY_S:  # only the clock moved
            self._last_t = state["t"]
            self.publish("tick", self.index, {"board": self.index, "t": state["t"]})

    def _refused(self, action, reason):
        """The firmware refused a press (or ignored it in a lock-out): said in the log of the board
        that printed it, and a "refused" event marks the button pressed for it (this board's, or
        the paired referee box's when its press came last)."""
        if reason.isdigit():  # a reason number: its words (firmware/reasons.py, host side)
            reason = reason_text(int(reason))
        elif reason == "locked out":
            reason = LOCKED_OUT
        board, button = self, None
        best = -1.0
        for s in (self, self.partner):
            if s is None or s.layout is None:
                continue
            for spec in s.layout["buttons"]:
                if action not in (spec["name"], spec["action"], spec["long_action"]):
                    continue
                last = s._buttons[spec["name"]]["last"]
                if last > best:
                    board, button, best = s, spec["name"], last
        who = button if board is self else "the referee box's %s" % button
        self._log("refused", "%s refused: %s" % (who if button else action, reason))
        payload = {"board": board.index, "button": button, "action": action, "reason": self.redact(reason),
                   "t": round(self.vb.now, 3)}
        self.publish("refused", board.index, payload)

    def _update_hint(self):
        """The hint line for the phase the board's match is in (a referee box: its wall's), or
        for the identify mode while the board is in it."""
        if not self.vb.powered or self.failed:
            self.identifying = False
        if self.identifying:
            message = next((d for d in self.sb.board["displays"] if any(p["field"] == "message" for p in d["show"])),
                           (self.sb.board["displays"] or [None])[0])
            where = " (on %d.%02x)" % (message["bus"], message["addr"]) if message else ""
            self._hint = IDENTIFY_HINT.format(where=where, long="%g s" % (self.sb.board["timings"]["long_ms"] / 1000))
            self._phase_name = "identify"
            return
        if self.lead is not None:
            info = self.lead.phase
            role = "remote"
        elif self._phases is not None:
            info = self.phase = self._phases.read()
            role = "wall" if any(b["name"] == "A.point" for b in self.layout["buttons"]) else "generic"
        else:
            self._hint = self._phase_name = None
            return
        if not self.vb.powered:
            self._hint = "The power is off: Power on starts the board again" if role == "wall" else \
                "No batteries: Put in"
        elif self.failed:
            self._hint = ""
        else:
            self._hint = hint(info, role, self._new_button)
        self._phase_name = (info or {}).get("phase", "lag")

    def _console_lines(self, lines, rebooted):
        """The lines of the board's console to log (a (kind, text) among them says the raw REPL began):
        at the raw REPL (mpremote, carom config, doctor,
        deploy) the board answers a host tool, in pieces that may split a secret (a file read 512
        bytes at a time, as Python reprs), so those answers are not logged, only that it happened.
        The raw REPL ends with the friendly banner, or with a reset (after the tool's last reply,
        which holds the raw REPL's \\x04)."""
        if self._raw_repl and rebooted:
            last = max((i for i, line in enumerate(lines) if "\x04" in line), default=-1)
            self._raw_repl = False
            lines = lines[last + 1:]
        out = []
        for line in lines:
            if self._raw_repl:
                if FRIENDLY in line:
                    self._raw_repl = False
                    out.append(line[line.index(FRIENDLY):])
                continue
            if RAW_REPL in line:
                self._raw_repl = True
                out.append(("serial", "a host tool (mpremote, carom config, doctor) uses the raw REPL: "
                                      "the board's answers to it are not shown here"))
                continue
            out.append(line)
        return out

    def _reading(self, chip):
        key = (chip.bus, chip.address)
        cached = self._decoded.get(key)
        if cached is not None and cached[0] == chip.ram:
            return cached[1]
        kind = next(d["kind"] for d in self.layout["displays"]
                    if d["bus"] == chip.bus and int(d["addr"], 16) == chip.address)
        reading = decode(chip.ram, kind)
        self._decoded[key] = (chip.ram, reading)
        return reading

    def snapshot(self):
        """The board as the page draws it: every chip's segments, the LEDs, the buttons."""
        with self.lock:
            vb = self.vb
            powered = vb.powered
            asleep = vb.asleep  # deep sleep: the display in standby, the LED pins not driven
            awake = powered and not asleep
            chips = vb.chips()
            out = []
            for d in self.layout["displays"]:
                chip = chips[(d["bus"], int(d["addr"], 16))]
                lit = awake and chip.lit
                entry = {
                    "key": d["key"],
                    "bus": d["bus"],
                    "addr": d["addr"],
                    "kind": d["kind"],
                    "present": chip.present,
                    "lit": lit,
                    "brightness": chip.brightness,
                    "blink": BLINK_HZ[chip.blink] if lit else 0,
                    "colon": False,
                    "text": None,
                    "cells": [],
                }
                if lit:
                    reading = self._reading(chip)
                    entry["colon"] = reading.colon
                    entry["text"] = reading.text
                    entry["cells"] = [{"char": c.char, "dp": c.dp, "segments": list(c.names)}
                                      for c in reading.cells]
                out.append(entry)
            leds = {}
            for name, spec in (self.sb.board.get("leds") or {}).items():
                level = vb.pin_level(name) if awake else None
                if level is not None and spec.get("active_low"):
                    level ^= 1
                leds[name] = level
            return {
                "board": self.index,
                "t": round(vb.now, 3),
                "powered": powered,
                "asleep": asleep,
                "failed": self.failed,
                "boots": len(vb.boots),
                "chips": out,
                "leds": leds,
                "buttons": {name: name in self._pressed for name in self._buttons},
                "phase": self._phase_name,
                "hint": self._hint,
            }

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
"log" (one line), "sound" (PWM events of the buzzer), "voice" (the samples its I2S was
sent: 16-bit mono PCM, base64) and "tick" (the virtual
time, when nothing else changed); the server turns
them into server-sent events.

The parts of a session, a module each: pacing.py (the clock), actions.py, form.py, console.py,
redact.py (secrets never shown), layout.py (what the page draws).
"""

import os
import signal
import threading
import time

from ..scripted_board import ScriptedBoard
from ..segments import decode
from .actions import Actions
from .console import REFUSED, Console
from .form import Form
from .layout import layout
from .pacing import TICK_S, Pacer, TurnLock
from .phase import PhaseReader, hint
from .redact import Redactor

CLOCK_EVERY_S = 0.1  # when nothing else changes, the virtual time is sent this often
LOG_KEEP = 500  # log lines a newly connected page is sent
STOP_GRACE_S = 2.0  # at the end, how long a clock thread may take to finish its step
BLINK_HZ = (0, 2, 1, 0.5)
MARK_S = 1.2  # how long the page marks a refused button (real seconds; the page's own timer)
IDENTIFY_HINT = "Identify mode: press a button to see its name{where}; hold one {long} to leave"


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


class BoardSession(Actions, Form, Console):
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
        self._i2s_seen = 0
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
            lines = [
                line if "\x04" not in line else "(an answer to a host tool at the raw REPL, not shown)"
                for line in str(e).splitlines()
            ] or [""]
            self.failed = self.redact("\n".join(lines))
            self._log("error", lines[0])
            for line in lines[1:]:
                self._log("stderr", line)
            if self.vb.powered:
                self.vb.power_off()
            return False

    # ---- what the board shows -------------------------------------------------------------

    def _log(self, kind, text, at=None):
        """One line to the log (and every page): its secrets hidden first (Redactor); `at`: the
        virtual instant it happened, when not now."""
        if at is None:
            at = self.vb.now if self.vb else 0.0
        entry = {"board": self.index, "t": round(at, 3), "kind": kind, "text": self.redact(text)}
        self.log.append(entry)
        del self.log[:-LOG_KEEP]
        self.publish("log", self.index, entry)

    def _collect(self):
        """Publish what changed since last time: printed lines, resets, sounds, the state."""
        vb = self.vb
        rebooted = len(vb.boots) > self._boots_seen
        for boot in vb.boots[self._boots_seen :]:
            self._log("reset", "boot at %.3f s: %s (%s)" % (boot.t_ms / 1000, boot.cause_name, boot.kind))
        self._boots_seen = len(vb.boots)
        for stream in ("stdout", "stderr"):
            text = vb.stdout if stream == "stdout" else vb.stderr
            new = text[self._out_seen[stream] :]
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
        sounds = vb.sounds[self._sounds_seen :]
        self._sounds_seen = len(vb.sounds)
        if sounds:
            now_ms = vb.now_ms
            events = [
                {"t_ms": round(ev.t_ms, 3), "age_ms": round(now_ms - ev.t_ms, 3), "freq": ev.freq, "duty": ev.duty_u16}
                for ev in sounds
                if self.buzzer_pin is None or ev.pin == self.buzzer_pin
            ]
            if events:
                self.publish("sound", self.index, {"board": self.index, "events": events})
        self._voice()
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

    def _voice(self):
        """The samples the board's I2S was sent since last time, to the page (its Sound switch
        plays them), and what they said, to the log (heard against the board's voice pack)."""
        vb = self.vb
        writes = vb.i2s_writes[self._i2s_seen :]
        if not writes:
            return
        self._i2s_seen += len(writes)
        import base64

        ear = self.sb.ear
        if ear is not None:
            from ...voice.words import spoken

            names = [n for n in ear.heard(vb.i2s_writes) if n != "?"]
            if names:
                self._log("said", spoken(ear.language, names))
        rate = vb.i2s[4] if vb.i2s else 8000
        self.publish(
            "voice",
            self.index,
            {
                "board": self.index,
                "rate": rate,
                "age_ms": round(vb.now_ms - writes[0][0], 3),
                "pcm": base64.b64encode(b"".join(data for _, data in writes)).decode(),
            },
        )

    def _update_hint(self):
        """The hint line for the phase the board's match is in (a referee box: its wall's), or
        for the identify mode while the board is in it."""
        if not self.vb.powered or self.failed:
            self.identifying = False
        if self.identifying:
            message = next(
                (d for d in self.sb.board["displays"] if any(p["field"] == "message" for p in d["show"])),
                (self.sb.board["displays"] or [None])[0],
            )
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
            self._hint = (
                "The power is off: Power on starts the board again" if role == "wall" else "No batteries: Put in"
            )
        elif self.failed:
            self._hint = ""
        else:
            self._hint = hint(info, role, self._new_button)
        self._phase_name = (info or {}).get("phase", "lag")

    def _reading(self, chip):
        key = (chip.bus, chip.address)
        cached = self._decoded.get(key)
        if cached is not None and cached[0] == chip.ram:
            return cached[1]
        kind = next(
            d["kind"] for d in self.layout["displays"] if d["bus"] == chip.bus and int(d["addr"], 16) == chip.address
        )
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
                    entry["cells"] = [{"char": c.char, "dp": c.dp, "segments": list(c.names)} for c in reading.cells]
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

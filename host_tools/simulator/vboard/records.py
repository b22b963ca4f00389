"""What a virtual board reports: the ESP32's reset causes and wake-up reasons,
and the records of boots, pin changes, sounds and steps (host side)."""

from dataclasses import dataclass

# machine.reset_cause() (ports/esp32/modmachine.c)
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

# machine.wake_reason()
EXT0_WAKE = 2
EXT1_WAKE = 3
TIMER_WAKE = 4
# RTC GPIO n -> GPIO: bit n of RTC_CNTL_EXT_WAKEUP1_STATUS (machine.mem32[0x3FF480D0]).
RTC_GPIO = (36, 37, 38, 39, 34, 35, 25, 26, 33, 32, 4, 0, 2, 15, 13, 12, 14, 27)
CPU_HZ_AT_BOOT = 160_000_000  # a stock image's CPU clock (ESP-IDF's default; mp/_vb_machine.py starts at it)


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

# Test firmware for the virtual board (tests/host/test_vboard_*.py). Not the
# scoreboard: a small counter that uses the hardware the way the real one does.
#
# - a task polls the "count" button (GPIO13, active low) every 10 ms; each press
#   increments a counter shown on the HT16K33 at 0x70 (raw writeto, right
#   aligned on the 4 digits at RAM 0, 2, 6, 8), beeps 50 ms at 2 kHz on GPIO25
#   and is kept in RTC memory as b"count=N";
# - the status LED (GPIO2) is on while the button is held;
# - a task feeds a 3 s watchdog every second, until the "hang" button (GPIO14)
#   is pressed;
# - I2C errors are printed and the display is set up again once it answers;
# - each boot appends a line to /log.txt (written to /log.tmp, then renamed).

import asyncio
import os
import time

from machine import I2C, PWM, RTC, WDT, Pin, reset_cause
from micropython import const

_ADDR = const(0x70)
_COUNT_PIN = const(13)
_HANG_PIN = const(14)
_LED_PIN = const(2)
_BUZZER_PIN = const(25)
_WDT_MS = const(3000)
_FEED_MS = const(1000)
_POLL_MS = const(10)
_BEEP_MS = const(50)
_DIGITS = b"\x3f\x06\x5b\x4f\x66\x6d\x7d\x07\x7f\x6f"
_DIGIT_RAM = (0, 2, 6, 8)


class Display:
    def __init__(self, i2c):
        self.i2c = i2c
        self.buf = bytearray(17)  # byte 0: RAM address 0x00, then 16 bytes of RAM
        self.ready = False
        self.shown = None

    def show(self, n):
        buf = self.buf
        for i in range(1, 17):
            buf[i] = 0
        for k in range(4):
            if n >= 10**k or k == 0:
                buf[1 + _DIGIT_RAM[3 - k]] = _DIGITS[(n // 10**k) % 10]
        try:
            if not self.ready:
                self.i2c.writeto(_ADDR, b"\x21")  # oscillator on
                self.i2c.writeto(_ADDR, b"\x81")  # display on, no blink
                self.i2c.writeto(_ADDR, b"\xef")  # full brightness
                self.ready = True
            self.i2c.writeto(_ADDR, buf)
            self.shown = n
        except OSError as e:
            self.ready = False
            self.shown = None
            print("display error", e.errno)


def log_boot(cause):
    try:
        with open("/log.txt") as f:
            old = f.read()
    except OSError:
        old = ""
    with open("/log.tmp", "w") as f:
        f.write(old + "boot cause=%d\n" % cause)
    os.rename("/log.tmp", "/log.txt")


class App:
    def __init__(self):
        self.rtc = RTC()
        mem = self.rtc.memory()
        self.count = int(mem[6:]) if mem.startswith(b"count=") else 0
        self.display = Display(I2C(0, scl=Pin(22), sda=Pin(21), freq=400000))
        self.button = Pin(_COUNT_PIN, Pin.IN, Pin.PULL_UP)
        self.hang = Pin(_HANG_PIN, Pin.IN, Pin.PULL_UP)
        self.led = Pin(_LED_PIN, Pin.OUT, value=0)
        self.buzzer = PWM(Pin(_BUZZER_PIN), freq=2000, duty_u16=0)
        self.wdt = WDT(timeout=_WDT_MS)
        self.hanging = False

    def pressed(self):
        self.count += 1
        self.rtc.memory(b"count=%d" % self.count)
        print("count", self.count)
        self.display.show(self.count)
        asyncio.create_task(self.beep())

    async def beep(self):
        self.buzzer.duty_u16(32768)
        await asyncio.sleep_ms(_BEEP_MS)
        self.buzzer.duty_u16(0)

    async def poll_buttons(self):
        last = 1
        while True:
            level = self.button()
            if level != last:
                last = level
                self.led(1 - level)
                if level == 0:
                    self.pressed()
            if not self.hanging and self.hang() == 0:
                self.hanging = True
                print("hanging: no more watchdog feeds")
            await asyncio.sleep_ms(_POLL_MS)

    async def feed(self):
        while not self.hanging:
            self.wdt.feed()
            await asyncio.sleep_ms(_FEED_MS)

    async def refresh(self):
        # Set the display up again after an I2C error.
        while True:
            await asyncio.sleep_ms(1000)
            if self.display.shown != self.count:
                self.display.show(self.count)

    async def uptime(self):
        start = time.ticks_ms()
        while True:
            await asyncio.sleep(10)
            print("uptime", time.ticks_diff(time.ticks_ms(), start) // 1000)


async def main():
    cause = reset_cause()
    app = App()
    print("boot cause=%d rtc=%r" % (cause, app.rtc.memory()))
    log_boot(cause)
    app.display.show(app.count)
    asyncio.create_task(app.feed())
    asyncio.create_task(app.refresh())
    asyncio.create_task(app.uptime())
    await app.poll_buttons()


try:
    asyncio.run(main())
finally:
    asyncio.new_event_loop()

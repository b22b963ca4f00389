# Probe firmware: checks the emulated machine/time/asyncio/flash from inside the
# board and prints "ok <name>" or "FAIL <name> <detail>" for each check. Stages
# kept in RTC memory walk through machine.reset(), machine.soft_reset() and
# machine.deepsleep(); tests/host/test_vboard_probe.py reads the lines.

import asyncio
import os
import sys
import time

import machine
from machine import I2C, PWM, RTC, Pin, Signal, SoftI2C, Timer

rtc = RTC()


def check(name, got, want):
    if got == want:
        print("ok", name)
    else:
        print("FAIL", name, "got", repr(got), "want", repr(want))


def check_raises(name, fn, errno=None):
    try:
        fn()
    except OSError as e:
        check(name, e.errno, errno)
        return
    except ValueError:
        check(name, "ValueError", errno if errno is not None else "ValueError")
        return
    print("FAIL", name, "nothing raised")


def pins():
    b = Pin(13, Pin.IN, Pin.PULL_UP)
    check("pin pull-up idle", b.value(), 1)
    check("pin callable", b(), 1)
    d = Pin(15, Pin.IN, Pin.PULL_DOWN)
    check("pin pull-down idle", d.value(), 0)
    led = Pin(2, Pin.OUT, value=1)
    check("pin out readback", led.value(), 1)
    led.off()
    led.on()
    led(0)
    check("pin out off", led(), 0)
    s = Signal(Pin(4, Pin.OUT), invert=True)
    s.on()
    check("signal inverted", Pin(4).value(), 0)
    check_raises("pin input-only", lambda: Pin(34, Pin.OUT))
    check_raises("pin invalid", lambda: Pin(24))


def i2c():
    bus = I2C(0, scl=Pin(22), sda=Pin(21), freq=400000)
    check("i2c scan", bus.scan(), [0x70, 0x71])
    check("i2c writeto acks", bus.writeto(0x70, b"\x00\x01\x02\x03"), 4)
    bus.writeto(0x70, b"\x02")
    check("i2c readfrom", bus.readfrom(0x70, 2), b"\x03\x00")
    buf = bytearray(3)
    bus.readfrom_mem_into(0x70, 0x00, buf)
    check("i2c readfrom_mem_into", bytes(buf), b"\x01\x02\x03")
    check("i2c writevto", bus.writevto(0x71, (b"\x04", b"\xaa\xbb")), 3)
    soft = SoftI2C(scl=Pin(22), sda=Pin(21))
    soft.writeto_mem(0x71, 0x06, b"\xcc")
    check("softi2c same bus", soft.readfrom_mem(0x71, 0x04, 3), b"\xaa\xbb\xcc")
    check_raises("i2c absent write", lambda: bus.writeto(0x72, b"\x21"), 19)
    check_raises("i2c absent read", lambda: bus.readfrom(0x72, 1), 19)


def pwm_and_rtc():
    p = PWM(Pin(25), freq=440, duty_u16=16384)
    check("pwm freq", p.freq(), 440)
    p.duty(512)
    check("pwm duty", p.duty(), 511)
    p.deinit()
    rtc.memory(b"probe")
    check("rtc memory", rtc.memory(), b"probe")
    check_raises("rtc memory too long", lambda: rtc.memory(bytes(2049)))
    check("unique_id", machine.unique_id(), b"\x24\x0a\xc4\x00\x00\x01")
    check("freq", machine.freq(), 160000000)
    machine.freq(240000000)
    check("freq set", machine.freq(), 240000000)


def clock():
    t0 = time.ticks_ms()
    check("ticks start near wrap", t0 >= 2**30 - 2000, True)
    time.sleep_ms(1500)
    t1 = time.ticks_ms()
    check("ticks wrapped", t1 < t0, True)
    check("ticks_diff across wrap", time.ticks_diff(t1, t0), 1500)
    check("ticks_add wraps", time.ticks_add(2**30 - 1, 1), 0)
    u0 = time.ticks_us()
    time.sleep_us(250)
    check("sleep_us", time.ticks_diff(time.ticks_us(), u0), 250)
    check("epoch 2000", time.gmtime()[0], 2000)
    rtc.datetime((2024, 5, 17, 4, 12, 30, 0, 0))
    check("rtc datetime set", rtc.datetime()[:7], (2024, 5, 17, 4, 12, 30, 0))
    time.sleep(2)
    check("wall clock runs", time.localtime()[3:6], (12, 30, 2))


def flash():
    with open("/a.txt", "w") as f:
        f.write("A")
    os.rename("/a.txt", "/b.txt")
    check("rename absolute", sorted(n for n in os.listdir("/") if n.endswith(".txt"))[:1], ["b.txt"])
    os.mkdir("/d")
    os.chdir("/d")
    check("getcwd", os.getcwd(), "/d")
    with open("c.txt", "w") as f:
        f.write("C")
    os.rename("c.txt", "/d/e.txt")
    check("rename relative", os.listdir("/d"), ["e.txt"])
    os.chdir("/")
    with open("/d/../b.txt") as f:
        check("dotdot", f.read(), "A")
    os.remove("/d/e.txt")
    os.rmdir("/d")
    os.remove("/b.txt")
    st = os.statvfs("/")
    check("statvfs blocks", (st[0], st[2]), (4096, 512))
    check("no emulation on the flash", [n for n in os.listdir("/") if n.startswith("_vb")], [])
    check("sys.path", sys.path, ["", ".frozen", "/lib"])


async def async_checks():
    async def sleeper(ms):
        await asyncio.sleep_ms(ms)
        return ms

    t0 = time.ticks_ms()
    try:
        await asyncio.wait_for(sleeper(10000), 1)
        print("FAIL wait_for no timeout")
    except asyncio.TimeoutError:
        check("wait_for timeout", time.ticks_diff(time.ticks_ms(), t0), 1000)

    ev = asyncio.Event()

    async def setter():
        await asyncio.sleep_ms(300)
        ev.set()

    t0 = time.ticks_ms()
    asyncio.create_task(setter())
    await ev.wait()
    check("event", time.ticks_diff(time.ticks_ms(), t0), 300)

    t0 = time.ticks_ms()
    check("gather", await asyncio.gather(sleeper(200), sleeper(100)), [200, 100])
    check("gather time", time.ticks_diff(time.ticks_ms(), t0), 200)

    task = asyncio.create_task(sleeper(5000))
    await asyncio.sleep_ms(10)
    task.cancel()
    try:
        await task
        print("FAIL cancel")
    except asyncio.CancelledError:
        check("cancel", task.done(), True)

    fired = []
    tim = Timer(0, mode=Timer.PERIODIC, period=100, callback=lambda t: fired.append(time.ticks_ms()))
    await asyncio.sleep_ms(350)
    tim.deinit()
    check("timer periodic", len(fired), 3)


def stage_first():
    pins()
    i2c()
    pwm_and_rtc()
    clock()
    flash()
    asyncio.run(async_checks())
    print("checks done")
    rtc.memory(b"stage1")
    machine.reset()
    print("FAIL reset returned")


def main():
    cause = machine.reset_cause()
    stage = rtc.memory()
    print("boot cause=%d stage=%s ticks=%d" % (cause, stage.decode(), time.ticks_ms()))
    if stage == b"stage1":
        check("cause after reset()", cause, machine.SOFT_RESET)
        rtc.memory(b"stage2")
        time.sleep_ms(100)
        machine.soft_reset()
    elif stage == b"stage2":
        rtc.memory(b"stage3")
        print("sleeping")
        machine.deepsleep(5000)
    elif stage == b"stage3":
        check("cause after deepsleep", cause, machine.DEEPSLEEP_RESET)
        print("awake")
    else:
        stage_first()


main()

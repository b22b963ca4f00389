# A pin interrupt wakes an asyncio task through a ThreadSafeFlag.
import asyncio
import time

from machine import Pin

flag = asyncio.ThreadSafeFlag()


def on_press(pin):
    flag.set()


button = Pin(13, Pin.IN, Pin.PULL_UP)
button.irq(on_press, Pin.IRQ_FALLING)


async def main():
    while True:
        await flag.wait()
        print("irq at", time.ticks_ms(), "level", button())


asyncio.run(main())

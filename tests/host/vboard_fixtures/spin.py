# Busy waits that never call a sleep: a ticks_ms() loop, then a task that
# spins on `await asyncio.sleep(0)`. Virtual time must still pass.
import asyncio
import time

t0 = time.ticks_ms()
while time.ticks_diff(time.ticks_ms(), t0) < 50:
    pass
print("busy-wait done at", time.ticks_ms())


async def spinner():
    start = time.ticks_ms()
    while time.ticks_diff(time.ticks_ms(), start) < 1000:
        await asyncio.sleep(0)
    print("spun until", time.ticks_ms())


asyncio.run(spinner())

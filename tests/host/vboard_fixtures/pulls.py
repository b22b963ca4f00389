# Levels of released buttons: GPIO34 (no internal pull exists), GPIO25 (no pull
# set), GPIO26 (PULL_UP); then every 10 ms, whenever they change.
import time

from machine import Pin

pins = (Pin(34, Pin.IN), Pin(25, Pin.IN), Pin(26, Pin.IN, Pin.PULL_UP))
last = None
while True:
    levels = " ".join(str(p()) for p in pins)
    if levels != last:
        print(levels)
        last = levels
    time.sleep_ms(10)

# Runs at every start, also after a soft reset from mpremote's raw REPL, where main.py
# does not run: if the app had armed the watchdog (recorded in RTC memory; a power cut
# clears it), feed it from a timer until the app takes over (boot_watchdog.py).
import machine

_mem = machine.RTC().memory()
if len(_mem) >= 5 and _mem[:2] == b"CR" and _mem[4]:
    import boot_watchdog

    boot_watchdog.start()
del _mem

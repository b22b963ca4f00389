# Boot shim of the virtual board, run by the MicroPython unix port:
#     micropython vb_boot.py <ctl_in fd> <ctl_out fd>
# It is started by host_tools/simulator/vboard/board.py, which writes the board's
# configuration as one JSON line on ctl_in first (an argument cannot carry it:
# this port turns arguments into qstrs, and one of 256+ bytes is fatal).
#
# 1. Load the emulation modules from this folder (never from the flash), and
#    install them in sys.modules under the names the firmware imports:
#    machine, time, select and _asyncio (the frozen asyncio then runs on the
#    virtual clock, see _vb_asyncio.py), micropython (kbd_intr sets the
#    emulated UART's interrupt character), network, socket, espnow,
#    aioespnow and esp32 (Wi-Fi, real sockets, the radio hub, deep-sleep wake-up).
# 2. Mount the flash folder as "/", make sys.path what an ESP32 has.
# 3. Run /boot.py and /main.py like the ESP32 port does (main.py only when
#    the REPL is in friendly mode: after a soft reset from the raw REPL the
#    port skips it), with Ctrl-C on the UART enabled. When main ends or fails:
#    with a console attached (config "repl"), run the REPL (_vb_repl.py) until
#    it asks for a soft reset; without one, stay idle (the watchdog keeps running).
#
# Between 2 and 3 the shim reports the heap the emulation leaves behind
# ("heap <gc.mem_alloc()> <gc.mem_free()> <held>", after a collection), so the
# host can size -X heapsize as the emulation plus the firmware's share
# (vboard/heap.py). With config "measure" it stops there: a calibration start,
# no firmware runs. With "firmware_free" it first holds the few bytes by which
# the rounded heap size leaves more free than that (<held>: their count).
# boot.py or main.py ending by an exception is reported as "fail <path> <name>".

import gc
import sys

# Collect every few KB while the emulation's modules are compiled: their garbage is then
# reused as it is made, and what the emulation keeps lies low and close together.
gc.threshold(2048)

import _vb_core

config = _vb_core.setup(int(sys.argv[1]), int(sys.argv[2]))

import _vb_time

_vb_time.setup(config)

import _vb_select
import _vb_asyncio
import _vb_machine

_vb_machine.setup(config)

import _vb_network

_vb_network.setup(config, _vb_machine._unique_id)

import _vb_socket  # before "select" is replaced: it holds the real one
import _vb_espnow
import _vb_aioespnow
import _vb_esp32
import _vb_flash
import _vb_micropython
import _vb_repl  # before sys.path becomes the ESP32's: only the flash is reachable then

for name, module in (
    ("machine", _vb_machine),
    ("umachine", _vb_machine),
    ("time", _vb_time),
    ("utime", _vb_time),
    ("select", _vb_select),
    ("uselect", _vb_select),
    ("_asyncio", _vb_asyncio),
    ("micropython", _vb_micropython),
    ("network", _vb_network),
    ("socket", _vb_socket),
    ("usocket", _vb_socket),
    ("espnow", _vb_espnow),
    ("aioespnow", _vb_aioespnow),
    ("esp32", _vb_esp32),
):
    sys.modules[name] = module

import builtins
import os
import vfs

builtins.input = _vb_repl.input  # reads the UART like the ESP32's input(), waiting on the virtual clock

vfs.umount("/")
vfs.mount(_vb_flash.FlashVfs(config["flash"], config.get("flash_size", 0x200000)), "/")
os.chdir("/")
sys.path[:] = ["", ".frozen", "/lib"]
sys.argv[:] = []


def _compile(path):
    # Its own frame: the source text is garbage once compiled (the ESP32 port's
    # lexer reads the file as it goes and never holds it all).
    with open(path) as f:
        return compile(f.read(), path, "exec")


def _run(path, env):
    try:
        code = _compile(path)
    except OSError:
        return False
    _vb_core.set_interrupt_char(3)  # Ctrl-C on the UART interrupts boot.py and main.py
    try:
        exec(code, env)
        if _vb_core.kbd_pending:
            raise KeyboardInterrupt
    finally:
        _vb_core.set_interrupt_char(-1)
    return True


def _soft_reset():
    if _vb_core.repl_enabled:
        _vb_core.console_write(b"MPY: soft reboot\r\n")
    _vb_core.reset(_vb_machine._reset_cause, "vm")


# Made now: when the firmware has taken the whole heap, there may be no memory to format these.
_FAIL_NO_MEMORY = b"fail - MemoryError\n"
_NO_MEMORY_TO_PRINT = "MemoryError (no memory left to print the traceback)\n"


def _report_failure(path, exc):
    gc.collect()
    try:
        _vb_core.send("fail %s %s" % (path, type(exc).__name__))
    except MemoryError:
        _vb_core.ctl_out.write(_FAIL_NO_MEMORY)


def _main():
    env = {"__name__": "__main__"}
    paths = ["/boot.py"]
    if _vb_core.repl_mode == "friendly":  # after a soft reset from the raw REPL, main.py is skipped
        paths.append("/" + config["main"])
    for path in paths:
        try:
            if not _run(path, env) and path != "/boot.py":
                _vb_core.stderr("no %s on the flash" % path)
        except SystemExit:
            if _vb_core.host_gone:
                raise
            _soft_reset()
        except BaseException as e:  # like the port: print it and go on (to the console if there is one)
            _report_failure(path, e)
            try:
                _vb_core.print_exception(e, None if _vb_core.repl_enabled else sys.stderr)
            except MemoryError:
                sys.stderr.write(_NO_MEMORY_TO_PRINT)
    banner = _vb_core.repl_enabled  # a console attached later finds the REPL waiting, banner long gone
    while True:
        if _vb_core.repl_enabled:
            _vb_repl.run(env, banner)
            _soft_reset()
        _vb_core.idle(None)


_held = None  # see _even_out(): a chain of tuples (previous, bytearray or nothing)
_kept = None  # the largest free run, kept aside for a moment
# The collector is conservative: a pointer left in a live frame keeps its object. So
# every allocation below is made in a frame of its own that has returned before the
# next collection.


def _even_out(want, block):
    """Hold what the heap the host sized leaves free beyond `want` (-X heapsize is
    rounded, and a small share may need a bigger heap for the emulation to load).
    The free space has holes between the emulation's objects (compiling them left
    garbage there) and a large run after them. A chip's fresh heap has no such holes:
    so the holes are held first, a block at a time from the lowest, with the largest
    run kept aside; only what they cannot take comes off the end of that run. The
    firmware gets the run and what is left of the holes."""
    global _kept
    gc.collect()
    if gc.mem_free() - want < block:
        return
    _keep(_largest_free(block))  # (its object: 1 block elsewhere)
    kept = len(_kept) + block
    while gc.mem_free() + kept - want >= block and _link(-1):
        pass
    _kept = None
    gc.collect()
    _hold(want, block)


def _fits(n):
    try:
        bytearray(n)
        return True
    except MemoryError:
        return False


def _keep(n):
    global _kept
    _kept = bytearray(n)


def _link(n):
    """Hold n bytes more: a tuple of 1 block, and a bytearray (n: its bytes; -1: none)."""
    global _held
    try:
        _held = (_held, bytearray(n)) if n >= 0 else (_held,)
        return True
    except MemoryError:
        return False


def _largest_free(block):
    """Bytes of the largest bytearray that fits now (bisection; nothing kept)."""
    lo, hi = 0, gc.mem_free()
    while hi - lo > block:
        mid = (lo + hi) // 2 // block * block
        if _fits(mid):
            lo = mid
        else:
            hi = mid
        gc.collect()
    return lo


def _hold(want, block):
    """Hold pieces, each the biggest that fits, until gc.mem_free() is `want` (a tuple
    of 1 block, and a bytearray object of 1 block with its bytes in whole blocks)."""
    size = gc.mem_free()
    while True:
        excess = gc.mem_free() - want
        if excess < block:
            break
        size = min(size, excess - 2 * block)
        if _link(size):
            continue
        if size < 0:
            break  # not even a block left
        size = size // 2 // block * block if size > 0 else -1
        gc.collect()  # what a half-made piece left
    gc.collect()


def _held_bytes():
    n = 0
    node = _held
    while node is not None:
        if len(node) > 1:
            n += len(node[1])
        node = node[0]
    return n


if config.get("firmware_free") is not None:
    _even_out(config["firmware_free"], config["gc_block"])
else:
    gc.collect()
gc.threshold(-1)  # the port's default, as the firmware finds it
_vb_core.send("heap %d %d %d" % (gc.mem_alloc(), gc.mem_free(), _held_bytes()))
if config.get("measure"):
    while True:
        _vb_core.idle(None)
_main()

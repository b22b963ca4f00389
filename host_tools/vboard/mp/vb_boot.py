# Boot shim of the virtual board, run by the MicroPython unix port:
#     micropython vb_boot.py <ctl_in fd> <ctl_out fd>
# It is started by host_tools/vboard/board.py, which writes the board's
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

import sys

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


def _run(path, env):
    try:
        source = open(path).read()
    except OSError:
        return False
    code = compile(source, path, "exec")
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
            _vb_core.print_exception(e, None if _vb_core.repl_enabled else sys.stderr)
    banner = _vb_core.repl_enabled  # a console attached later finds the REPL waiting, banner long gone
    while True:
        if _vb_core.repl_enabled:
            _vb_repl.run(env, banner)
            _soft_reset()
        _vb_core.idle(None)


_main()

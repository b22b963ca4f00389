# Boot shim of the virtual board, run by the MicroPython unix port:
#     micropython vb_boot.py <ctl_in fd> <ctl_out fd>
# It is started by host_tools/vboard/board.py, which writes the board's
# configuration as one JSON line on ctl_in first (an argument cannot carry it:
# this port turns arguments into qstrs, and one of 256+ bytes is fatal).
#
# 1. Load the emulation modules from this folder (never from the flash), and
#    install them in sys.modules under the names the firmware imports:
#    machine, time, select and _asyncio (the frozen asyncio then runs on the
#    virtual clock, see _vb_asyncio.py).
# 2. Mount the flash folder as "/", make sys.path what an ESP32 has.
# 3. Run /boot.py and /main.py like the ESP32 port does; when main ends or
#    fails, stay idle like the REPL would (the watchdog keeps running).

import sys

import _vb_core

config = _vb_core.setup(int(sys.argv[1]), int(sys.argv[2]))

import _vb_time

_vb_time.setup(config)

import _vb_select
import _vb_asyncio
import _vb_machine

_vb_machine.setup(config)

import _vb_flash

for name, module in (
    ("machine", _vb_machine),
    ("umachine", _vb_machine),
    ("time", _vb_time),
    ("utime", _vb_time),
    ("select", _vb_select),
    ("uselect", _vb_select),
    ("_asyncio", _vb_asyncio),
):
    sys.modules[name] = module

import os
import vfs

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
    exec(compile(source, path, "exec"), env)
    return True


def _main():
    env = {"__name__": "__main__"}
    for path in ("/boot.py", "/" + config["main"]):
        try:
            if not _run(path, env) and path != "/boot.py":
                _vb_core.stderr("no %s on the flash" % path)
        except SystemExit:
            if _vb_core.host_gone:
                raise
            _vb_core.reset(_vb_machine._reset_cause, "vm")
        except BaseException as e:  # like the REPL: print it and go on
            sys.print_exception(e, sys.stderr)
    while True:
        _vb_core.idle(None)


_main()

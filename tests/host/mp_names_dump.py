# Run on MicroPython: prints every name its builtins, built-in types and modules (and the
# frozen asyncio's) list, one a line. host_tools/micropython_names.txt is the union of what
# the unix ports print (tests/host/test_shortnames.py checks it): names the build never shortens;
# and, by hand, the ESP32's machine.I2S names the unix ports lack (I2S, irq, shift and its keywords).
seen = set()
names = set()


def walk(o, depth):
    if id(o) in seen or depth > 3:
        return
    seen.add(id(o))
    try:
        ds = dir(o)
    except Exception:
        return
    for n in ds:
        names.add(n)
        try:
            v = getattr(o, n)
        except Exception:
            continue
        if type(v) is type or type(v).__name__ == "module":
            walk(v, depth + 1)


import builtins

walk(builtins, 0)
for t in (
    str,
    bytes,
    bytearray,
    list,
    dict,
    tuple,
    int,
    float,
    set,
    frozenset,
    memoryview,
    type,
    object,
    Exception,
    range,
    slice,
):
    walk(t, 0)
mods = "array asyncio binascii builtins cmath collections deflate errno gc hashlib heapq io json machine math micropython os platform random re select socket ssl struct sys time uctypes vfs framebuf btree cryptolib _thread termios ffi websocket bluetooth uasyncio asyncio.core asyncio.event asyncio.funcs asyncio.lock asyncio.stream".split()
for m in mods:
    try:
        mod = __import__(m)
        names.add(m)
        walk(mod, 0)
    except Exception:
        pass
for n in sorted(names):
    print(n)

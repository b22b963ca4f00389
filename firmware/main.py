# The board runs the scoreboard app for the board named in config.json.
import gc
import sys

gc.collect()
heap_at_start = gc.mem_alloc()  # what the interpreter (and on the virtual board, its emulation) uses
# Collect after every 4 KB allocated, not only when the heap is full: garbage then never
# spreads to the top of the heap, and what lives long is allocated low (the free space
# stays in one piece; app.py keeps a threshold while the board runs).
gc.threshold(4096)

import machine  # noqa: E402  (handed to startup; app.py and app_cold.py import it too)

try:
    import startup  # noqa: E402
except (MemoryError, ImportError) as e:  # a heap too small even for it (MicroPython's import can
    startup = None  # take a MemoryError while it looks for the file for no file: ImportError)
    print("carom: not enough memory to start (E 24): %s" % e)
board = startup.start(machine, heap_at_start) if startup else None
startup = None
sys.modules.pop("startup", None)  # its code and the board definition: not needed any more
gc.collect()
if board is not None:
    used = gc.mem_alloc()
    print("carom: heap in use %d bytes, %d of them the app's; free %d" % (used, used - heap_at_start, gc.mem_free()))
    board.serve()

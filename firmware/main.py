# The board runs the scoreboard app for the board named in config.json.
import gc
import sys

gc.collect()
heap_at_start = gc.mem_alloc()  # what the interpreter (and on the virtual board, its emulation) uses

import startup  # noqa: E402

board = startup.start(heap_at_start)
del sys.modules["startup"], startup  # its code and the board definition: not needed any more
gc.collect()
if board is not None:
    used = gc.mem_alloc()
    print("carom: heap in use %d bytes, %d of them the app's; free %d" % (used, used - heap_at_start, gc.mem_free()))
    board.serve()

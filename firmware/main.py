# The board runs the scoreboard app for the board named in config.json.
import gc

gc.collect()
heap_at_start = gc.mem_alloc()  # what the interpreter (and on the virtual board, its emulation) uses

import app  # noqa: E402

app.main(heap_at_start)

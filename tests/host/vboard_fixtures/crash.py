# Fails at start-up: the traceback goes to stderr and the board stays up, like a REPL.
import time

print("starting")
raise RuntimeError("boom")

# Fails at start-up: the traceback goes to stderr and the board stays up, like a REPL.
# The traceback names the line of the raise: line 5.

print("starting")
raise RuntimeError("boom")

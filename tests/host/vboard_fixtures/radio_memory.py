# main.py for the wall's virtual board: a MemoryError at each step of handling a remote
# command (tests/host/test_radio_memory.py). The wall's own objects (startup.build with a
# paired remote); the heap locked (micropython.heap_lock: the first allocation raises
# MemoryError) inside one step of app.Board.radio_frame at a time. After each failure: the
# sequence number is recorded (in RAM and on the flash) if and only if the command was acted
# on; the same frame again, without a fault, acts on it if it had not been, and the command
# is acted on once in all. Prints "ok <case>" or "FAIL <case>: why", then "DONE <n>".
# (The emulator's LED pins allocate to tell the host: with the heap locked, a command whose
# LEDs change fails after it was acted on, which tries that branch too.)

import micropython

import app
import radio
import remote
import startup

config, error = startup.load_config()
import machine  # noqa: E402

b = startup.build(startup.load_board(config["board"]), config, error, machine)
rx = b.radio
m = b.match
ctrl = b.ctrl
key = remote.hex_key(config["radio"]["key"])
tx = remote.Sender(key, rx.own_id, rx.peer, 2)
COMMANDS = ("point", "miss", "undo", "foul", "new_match")


class Air:
    """ESP-NOW's send, recorded (the emulator's allocates for the host)."""

    def __init__(self):
        self.sent = []

    def send(self, peer, frame, sync):
        self.sent.append(bytes(frame))


class Bus:
    """An I2C bus that takes the bytes (the emulator's allocates to tell the host; a real one does not)."""

    def writeto(self, addr, buf):
        return len(buf)


air = Air()
b.espnow = air
for chip in b.chips:
    chip.set_bus(Bus())


def locked(fn, arity):
    """fn with the heap locked while it runs (no *args: a call with them allocates)."""

    def call0():
        micropython.heap_lock()
        try:
            return fn()
        finally:
            micropython.heap_unlock()

    def call1(a):
        micropython.heap_lock()
        try:
            return fn(a)
        finally:
            micropython.heap_unlock()

    def call3(a, b, c):
        micropython.heap_lock()
        try:
            return fn(a, b, c)
        finally:
            micropython.heap_unlock()

    def call4(a, b, c, d):
        micropython.heap_lock()
        try:
            return fn(a, b, c, d)
        finally:
            micropython.heap_unlock()

    return (call0, call1, None, call3, call4)[arity]


def on_flash():
    try:
        with open(app.RADIO_FILE) as f:
            return tuple(int(w) for w in f.read().split())
    except OSError:
        return None


def state():
    return (m.n, m.edits, ctrl.matches)


# Where the heap runs out: (name, install, remove). Each wraps one step in heap_lock.
def patch(obj, name, arity):
    orig = getattr(obj, name)

    def install():
        setattr(obj, name, locked(orig, arity))

    def remove():
        setattr(obj, name, orig)

    return install, remove


STEPS = (
    ("receive", patch(rx, "receive", 1)),
    ("write_last", patch(app, "write_last", 1)),
    ("Controller.remote", patch(ctrl, "remote", 3)),
    ("View.new_match", patch(b.view, "new_match", 0)),
    ("Controller.summary", patch(ctrl, "summary", 0)),
    ("Receiver.ack", patch(rx, "ack", 4)),
    ("send", patch(air, "send", 3)),
)

cases = 0


def fail(case, why):
    print("FAIL %s: %s" % (case, why))


def run_case(case, step, frame, seq):
    global cases
    cases += 1
    install, remove = step
    before_last, before_file, before = rx.last, on_flash(), state()
    n_sent = len(air.sent)
    install()
    raised = False
    try:
        b.radio_frame(frame)
    except MemoryError:
        raised = True
    finally:
        remove()
    acted = state() != before
    if acted:
        if rx.last != seq or on_flash() != seq:
            return fail(case, "acted on, not recorded: %r %r" % (rx.last, on_flash()))
    else:
        if rx.last != before_last:
            return fail(case, "recorded in RAM, not acted on: %r" % (rx.last,))
        if on_flash() not in (before_file, None):
            return fail(case, "recorded on the flash, not acted on: %r" % (on_flash(),))
    if not raised and not acted and len(air.sent) == n_sent:
        return fail(case, "no MemoryError, nothing done, nothing sent")
    # The remote sends it again: acted on now if it was not, acknowledged either way.
    after = state()
    n_sent = len(air.sent)
    b.radio_frame(frame)
    if acted and state() != after:
        return fail(case, "acted on twice")
    if not acted and state() == after:
        return fail(case, "never acted on")
    if rx.last != seq or on_flash() != seq:
        return fail(case, "not recorded after the retransmission: %r %r" % (rx.last, on_flash()))
    ack = air.sent[-1] if len(air.sent) > n_sent else b""
    if len(ack) != radio.FRAME_LEN or ack[1] != radio.T_ACK or tx.acked(ack) is None:
        return fail(case, "no acknowledgement")
    print(
        "ok %s (%s)"
        % (
            case,
            "no MemoryError" if not raised else "acted on before the fault" if acted else "acted on when sent again",
        )
    )


action = __import__("controller").ACTIONS
b.radio_frame(tx.command(0))  # the lag: A breaks (rx.last from /radio.last, written by the test)
for name, step in STEPS:
    for command in COMMANDS:
        if command == "undo":
            b.radio_frame(tx.command(0))  # something to undo
        frame = tx.command(action.index(command))
        run_case("%s %s" % (name, command), step, frame, tx.pending[0])

# A wall that lost its record: the command answering its challenge, the heap locked in
# Controller.remote: not acted on, the nonce kept, the answer sent again is acted on.
app.forget_last()
rx.last = None
frame = tx.command(action.index("new_match"))
b.radio_frame(frame)
answer = tx.challenged(air.sent[-1])
if answer is None:
    fail("challenge", "no challenge")
else:
    run_case("challenged Controller.remote new_match", STEPS[2][1], answer, tx.pending[0])

# Accepting and taking back a number allocate nothing: no MemoryError can come between them.
seq = (9, 9)
was = ok = None  # this module's globals made before the heap is locked (a new one may grow its dict)
micropython.heap_lock()
try:
    was = rx.last
    rx.accept(seq)
    rx.revert()
    ok = rx.last == was
finally:
    micropython.heap_unlock()
print("ok accept and revert with the heap locked" if ok else "FAIL accept/revert")
print("DONE %d" % cases)

"""Benchmark main.py for the virtual board: what the wall spends on each radio frame.

Runs the wall's own objects (app.Board with a paired remote, so radio.Receiver is the
one setup_radio made) on a MicroPython unix port (64-bit or 32-bit). Per frame, through
app.Board.radio_frame, the path its radio_task takes: bytes allocated (micropython.mem_total(),
which also counts call frames put on the heap) and microseconds of this machine, for
forged frames of each kind (dropped: garbage, a wrong tag, an authentic replay), for a
good command (acted on and acknowledged; without and with the flash writes: the save
task's persist and /radio.last), a retransmission, and an authentic frame answered with
a challenge (a wall that lost its record). Breakdown: the tag, receive, Controller.remote,
the acknowledgement. ESP-NOW's send and the I2C writes are counted away (the emulator's
allocate to tell the host; the chip's do not). Frames are made beforehand with
remote.Sender (the remote's side).
"""

import gc
import json

import micropython

import _vb_time
import app
import radionames
import remote

real = _vb_time._real_time
N = 200


class CountingBus:
    def writeto(self, addr, buf):
        return len(buf)


class Air:
    def __init__(self):
        self.sent = 0

    def send(self, peer, frame, sync):
        self.sent += 1


import startup  # noqa: E402

config, error = startup.load_config()
board = startup.load_board(config["board"])
import machine  # noqa: E402

b = startup.build(board, config, error, machine)
for chip in b.chips:
    chip.set_bus(CountingBus())  # the emulator's I2C allocates to tell the host; a real bus does not
b.espnow = Air()
b.view.render(0)
rx = b.radio
rx.last = (0, 0)  # a wall that knows its last number (the challenge is measured apart)
key = remote.hex_key(config["radio"]["key"])
tx = remote.Sender(key, rx.own_id, rx.peer, 1)
ctrl = b.ctrl
write_last = app.write_last


def no_flash(seq):
    return True


def measure(frames):
    """(bytes allocated, microseconds) per frame through app.Board.radio_frame."""
    gc.collect()
    m0 = micropython.mem_total()
    t0 = real.ticks_us()
    for f in frames:
        b.radio_frame(f)
    us = real.ticks_diff(real.ticks_us(), t0)
    return (micropython.mem_total() - m0) / len(frames), us / len(frames)


def commands(n, command=0):
    return [tx.command(command) for _ in range(n)]


out = {}
app.write_last = no_flash
b.radio_frame(commands(1)[0])  # the lag: A breaks
out["good"] = measure(commands(N))  # points, acted on and acknowledged
again = [tx.pending[1]] * N
out["repeat"] = measure(again)  # the newest again: acknowledged, not acted on

# Forged frames, all dropped without an answer.
garbage = bytes(range(33))  # a wrong size
out["forged_size"] = measure([garbage] * N)
bad = bytearray(again[0])
bad[radionames.SIGNED] ^= 1  # a wrong tag: one HMAC, then dropped
out["forged_tag"] = measure([bytes(bad)] * N)
old = commands(1)[0]
b.radio_frame(commands(1)[0])
out["forged_replay"] = measure([old] * N)  # authentic and older: a tag and a decode, then dropped
sent = b.espnow.sent

app.write_last = write_last
out["good_flash"] = measure(commands(N))  # with /radio.last written before acting
gc.collect()
m0 = micropython.mem_total()
t0 = real.ticks_us()
for f in commands(N):
    b.radio_frame(f)
    b.persist()
out["good_flash_persist"] = ((micropython.mem_total() - m0) / N, real.ticks_diff(real.ticks_us(), t0) / N)

# A wall that lost its record: every authentic frame is answered with a challenge.
rx.last = None
rx.nonce = None
out["challenged"] = measure([old] * N)
challenges = b.espnow.sent - sent - 2 * N  # beyond the good commands' acknowledgements
rx.last = (0, 0)

# The breakdown of a good command.
data = bytes(again[0][: radionames.SIGNED])
gc.collect()
m0 = micropython.mem_total()
for i in range(N):
    rx.hmac.tag(data)
out["tag"] = (micropython.mem_total() - m0) / N
batch = commands(N)
got = [None] * N
gc.collect()
m0 = micropython.mem_total()
for i in range(N):
    got[i] = rx.receive(batch[i])
out["receive"] = (micropython.mem_total() - m0) / N  # the result tuples included
gc.collect()
m0 = micropython.mem_total()
for i in range(N):
    ctrl.remote(0, 0, 70000 + i)
out["controller"] = (micropython.mem_total() - m0) / N
seq = got[-1][2]
gc.collect()
m0 = micropython.mem_total()
for i in range(N):
    rx.ack(seq, 0, 0, ctrl.summary())
out["ack"] = (micropython.mem_total() - m0) / N
out["challenges_sent"] = challenges
print("BENCH " + json.dumps(out))
